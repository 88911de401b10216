#!/usr/bin/env bash
# Runs two neardup binaries over every mode and command on the bundled corpora and compares
# their standard output byte for byte (and their exit codes). For refactors that must not
# change what neardup writes.
#
# Usage: scripts/compare-builds.sh OLD_BINARY NEW_BINARY
#   e.g. git stash; cargo build --release; cp target/release/neardup /tmp/old
#        git stash pop; cargo build --release
#        scripts/compare-builds.sh /tmp/old target/release/neardup
# Uses tests/data/reuters-sample.jsonl, plus the Reuters-21578 collection from ../shared/data
# when it is there. Prints one line per case and "N same, M differ"; exits 1 if any differ.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
new=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sample=tests/data/reuters-sample.jsonl
corpora=("$sample")
reuters=../shared/data/reuters21578/reuters21578-sgm.tar.xz
if [ -f "$reuters" ] && command -v python3 >/dev/null; then
  python3 scripts/reuters_to_jsonl.py "$reuters" > "$work/reuters.jsonl" 2>/dev/null || true
  [ -s "$work/reuters.jsonl" ] && corpora+=("$work/reuters.jsonl")
fi
# A plain-text copy of the sample (the text field only) for the text-mode cases.
python3 -c 'import json,sys
for l in open(sys.argv[1]): print(json.loads(l)["text"].replace("\n"," "))' "$sample" \
  > "$work/sample.txt"

same=0
differ=0
# case NAME ARGS...: runs both binaries with ARGS (stdin from /dev/null) and compares.
case_() {
  local name=$1
  shift
  local a b
  set +e
  "$old" "$@" > "$work/old.out" 2> "$work/old.err" < /dev/null
  a=$?
  "$new" "$@" > "$work/new.out" 2> "$work/new.err" < /dev/null
  b=$?
  set -e
  if [ "$a" = "$b" ] && cmp -s "$work/old.out" "$work/new.out"; then
    same=$((same + 1))
    printf 'same    %-40s exit %s, %s bytes\n' "$name" "$a" "$(wc -c < "$work/new.out")"
  else
    differ=$((differ + 1))
    printf 'DIFFERS %-40s exit %s vs %s\n' "$name" "$a" "$b"
  fi
}

idf=$work/sample.idf
"$new" idf --id-field id "$sample" > "$idf"

for corpus in "${corpora[@]}"; do
  tag=$(basename "$corpus" .jsonl)
  for j in 1 2; do
    for t in 0.8 0.5; do
      case_ "$tag drop-dups -t $t -j $j" -j "$j" -t "$t" --id-field id "$corpus"
      case_ "$tag pairs -t $t -j $j" -j "$j" -t "$t" --pairs --id-field id "$corpus"
    done
    case_ "$tag only-dups -j $j" -j "$j" --only-dups --id-field id "$corpus"
    case_ "$tag annotate -j $j" -j "$j" --annotate --id-field id "$corpus"
    case_ "$tag pairs jsonl window -j $j" -j "$j" --pairs --pairs-format jsonl -w 100 "$corpus"
  done
  case_ "$tag exact join" --exact -t 0.6 --pairs --id-field id "$corpus"
  case_ "$tag verify none" --verify none --pairs "$corpus"
  case_ "$tag verify chain" --verify jaccard,edit,cosine,lcs --annotate "$corpus"
  case_ "$tag verify text stages" --verify cosine -t 0.5 --pairs "$corpus"
  case_ "$tag weights tf" --weights tf --pairs -t 0.6 "$corpus"
  case_ "$tag weights tfidf warmup" --weights tfidf --idf-warmup 300 --pairs -t 0.6 "$corpus"
  case_ "$tag char ngram" --char-ngram 7 --pairs -t 0.7 "$corpus"
  case_ "$tag stopword shingles" --shingle stopword -n 2 --pairs -t 0.6 "$corpus"
  case_ "$tag bag" --bag --strip-punct --keep-case --pairs "$corpus"
  case_ "$tag block-by" --block-by date --pairs -t 0.5 "$corpus"
  case_ "$tag graph graphml" graph -t 0.5 --input-format jsonl --id-field id "$corpus"
  case_ "$tag graph tsv" graph -t 0.5 --format tsv --id-field id "$corpus"
  case_ "$tag graph json" graph -t 0.5 --format json --node-attr date --id-field id "$corpus"
  case_ "$tag graph dot all-nodes" graph -t 0.5 --format dot --all-nodes "$corpus"
  case_ "$tag clusters components" clusters -t 0.5 --id-field id "$corpus"
  case_ "$tag clusters cliques" clusters -t 0.5 --by cliques --id-field id "$corpus"
  case_ "$tag clusters max-cluster" clusters -t 0.3 --max-cluster 5 --min-edge 0.4 "$corpus"
  case_ "$tag sign tsv" sign "$corpus"
  case_ "$tag sign jsonl signature" sign --format jsonl --signature --id-field id "$corpus"
  case_ "$tag hist" hist -n 1..4 --sample 300 "$corpus"
  case_ "$tag sample" sample --sample 300 "$corpus"
  case_ "$tag sample jsonl" sample --jsonl --per-bin 2 --sample 200 "$corpus"
done

case_ "sample tfidf idf file" --weights tfidf --idf "$idf" --id-field id --pairs -t 0.5 "$sample"
case_ "idf" idf --id-field id "$sample"
case_ "idf max-terms" idf --max-terms 1000 --char-ngram 5 "$sample"
case_ "tune" tune -t 0.7
case_ "tune bands" tune -k 256 --bands 32
case_ "explain chain" explain 514 6875 --id-field id -t 0.3 "$sample"
case_ "explain pair" explain 175 190 --id-field id -t 0.5 --min-edge 0.5 "$sample"
case_ "explain no path" explain 4 5 --id-field id "$sample"
case_ "text drop-dups" --input-format text "$work/sample.txt"
case_ "text annotate" --annotate "$work/sample.txt"
case_ "text graph" graph --format tsv -t 0.5 "$work/sample.txt"

# verify-pairs over the candidate pairs of a --pairs run, texts joined in.
"$new" --pairs -t 0.4 --pairs-format jsonl --id-field id "$sample" > "$work/pairs.jsonl"
python3 - "$sample" "$work/pairs.jsonl" > "$work/candidates.jsonl" <<'EOF'
import json, sys
texts = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    texts[d["id"]] = d["text"]
for line in open(sys.argv[2]):
    p = json.loads(line)
    a, b = p["id_a"], p["id_b"]
    print(json.dumps({"a": a, "b": b, "text_a": texts[a], "text_b": texts[b]}))
EOF
case_ "verify-pairs" verify-pairs "$work/candidates.jsonl"
case_ "verify-pairs jsonl t 0.7" verify-pairs --pairs-format jsonl -t 0.7 "$work/candidates.jsonl"
"$new" --pairs -t 0.5 --id-field id "$sample" > "$work/edges.tsv"
case_ "clusters from-edges" clusters --from-edges "$work/edges.tsv"
case_ "clusters from-edges cliques" clusters --by cliques --from-edges "$work/edges.tsv"
case_ "bad usage" --threshold 2 "$sample"
case_ "missing file" /nonexistent/file

echo "$same same, $differ differ"
[ "$differ" = 0 ]
