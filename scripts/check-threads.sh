#!/usr/bin/env bash
# Checks that the thread count never changes what neardup writes: every case runs with -j 1
# and then with each of THREADS (default 2 3 4 5 6 7 8) under --helpers always (the filter
# decided from speculations, the group commands helped), and with -j 2 and -j 8 under
# --helpers auto; standard output, the exit code, and any file a case writes (a Parquet table,
# a --state index) must equal -j 1's byte for byte.
#
# Cases, on every corpus: --drop-dups, --only-dups, --annotate, --pairs, a --window that
# evicts, a --max-memory that evicts (on the 100k-document corpora), --against (the first
# half as the reference, the second as input), a --state run split in two (the index saved
# after each half compared too), clusters and clusters --keep longest, graph (the pair and
# group cases not on one template, where every pair is verified); Parquet in and out (with pyarrow from the
# Python test venv, when it is there). Corpora: the bundled Reuters sample, Reuters-21578 and
# DBLP-ACM's titles from ../shared/data (when there), and the generated benchmark corpora
# text-100000, tpl1-50000 and tpl1-200000 (CORPORA=small skips those three).
#
# Usage: scripts/check-threads.sh [BINARY]
#        THREADS="2 4" CORPORA=small scripts/check-threads.sh
# Prints one line per case and thread count and "N same, M differ"; exits 1 if any differ.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/corpora.sh
if [ $# -ge 1 ]; then
  bin=$(realpath "$1")
else
  cargo build --release --quiet
  bin=$PWD/target/release/neardup
fi
threads=${THREADS:-2 3 4 5 6 7 8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

corpora=(tests/data/reuters-sample.jsonl)
reuters=../shared/data/reuters21578/reuters21578-sgm.tar.xz
if [ -f "$reuters" ]; then
  python3 scripts/reuters_to_jsonl.py "$reuters" > "$work/reuters.jsonl" 2> /dev/null || true
  [ -s "$work/reuters.jsonl" ] && corpora+=("$work/reuters.jsonl")
fi
dblp=../shared/data/leipzig-er/DBLP-ACM
if [ -d "$dblp" ]; then
  python3 - "$dblp" > "$work/dblp-acm.jsonl" <<'EOF'
import csv, glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/*.csv")):
    if "Mapping" in path:
        continue
    with open(path, encoding="latin-1", newline="") as f:
        for row in csv.DictReader(f):
            title = row.get("title") or ""
            if title.strip():
                print(json.dumps({"id": f"{path.rsplit('/', 1)[1]}:{row.get('id')}", "text": title}))
EOF
  [ -s "$work/dblp-acm.jsonl" ] && corpora+=("$work/dblp-acm.jsonl")
fi
if [ "${CORPORA:-all}" != small ]; then
  corpora+=("$(corpus text 100000)" "$(corpus tpl1 50000)" "$(corpus tpl1 200000)")
fi
py=target/python-test-venv/bin/python
parquet=yes
if ! "$py" -c 'import pyarrow' 2> /dev/null; then
  parquet=no
  echo "skipping Parquet cases: no pyarrow in $py (scripts/test-python.sh makes it)"
fi

same=0
differ=0
# stat FILE KEY: a figure of the --stats line in FILE (- when there is none).
stat() {
  python3 -c 'import json, sys
try: print(json.loads(open(sys.argv[1]).read().splitlines()[-1]).get(sys.argv[2], "-"))
except Exception: print("-")' "$1" "$2"
}
# run DIR THREADS HELPERS ARGS...: one run in DIR (made empty), its stdout and exit code kept
# (--stats to DIR/../stats-THREADS-HELPERS). A command's flags follow its name.
run() {
  local dir=$1 j=$2 helpers=$3
  shift 3
  local command=()
  case $1 in clusters | graph) command=("$1") && shift ;; esac
  rm -rf "$dir"
  mkdir -p "$dir"
  set +e
  (cd "$dir" && "$bin" "${command[@]}" -q --stats -j "$j" --helpers "$helpers" "$@" \
    > stdout 2> stderr < /dev/null)
  echo $? > "$dir/exit"
  set -e
  mv "$dir/stderr" "$dir.stats-$j-$helpers"
}
# compare NAME ONE MANY THREADS HELPERS: counts MANY's files against ONE's, saying which differ.
compare() {
  if diff -r -q "$2" "$3" > /dev/null; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    printf 'DIFFERS %-44s -j %s --helpers %s\n' "$1" "$4" "$5"
  fi
}
# Each thread count to compare with -j 1, as "THREADS HELPERS".
variants() {
  for j in $threads; do echo "$j always"; done
  echo "2 auto"
  echo "8 auto"
}
# each NAME STEP ONE MANY ARGS...: STEP (run or split) at -j 1 into ONE, then at every
# thread count into MANY, compared with ONE.
each() {
  local name=$1 step=$2 one=$3 many=$4 n helpers
  shift 4
  "$step" "$one" 1 never "$@"
  while read -r n helpers; do
    "$step" "$many" "$n" "$helpers" "$@"
    compare "$name" "$one" "$many" "$n" "$helpers"
  done < <(variants)
}
# case_ NAME ARGS...: -j 1 against every thread count (files the case writes compared too).
case_() {
  local name=$1
  shift
  each "$name" run "$work/one" "$work/many" "$@"
  local first=${threads%% *}
  printf 'checked %-44s exit %s, %s bytes, %s evicted, %s speculated at -j %s\n' "$name" \
    "$(cat "$work/one/exit")" "$(wc -c < "$work/one/stdout")" \
    "$(stat "$work/one.stats-1-never" evictions)" \
    "$(stat "$work/many.stats-$first-always" speculated)" "$first"
}
# split DIR THREADS HELPERS FIRST SECOND ARGS...: a --state run split in two in DIR, the
# index copied after the first half.
split() {
  local dir=$1 n=$2 helpers=$3 first=$4 second=$5
  shift 5
  rm -rf "$dir"
  mkdir -p "$dir"
  "$bin" -q -j "$n" --helpers "$helpers" --state "$dir/index" "$@" "$first" > "$dir/out1"
  cp -r "$dir/index" "$dir/index-after-1"
  "$bin" -q -j "$n" --helpers "$helpers" --state "$dir/index" "$@" "$second" > "$dir/out2"
}
# state_case NAME FIRST SECOND ARGS...: a --state run split in two; both outputs and the
# index after each half compared.
state_case() {
  local name=$1
  shift
  each "$name" split "$work/state-one" "$work/state-many" "$@"
  printf 'checked %-44s %s + %s bytes\n' "$name" "$(wc -c < "$work/state-one/out1")" \
    "$(wc -c < "$work/state-one/out2")"
}

for corpus in "${corpora[@]}"; do
  corpus=$(realpath "$corpus")
  tag=$(basename "$corpus" .jsonl)
  lines=$(wc -l < "$corpus")
  half=$((lines / 2))
  head -n "$half" "$corpus" > "$work/$tag.first.jsonl"
  tail -n +"$((half + 1))" "$corpus" > "$work/$tag.second.jsonl"
  case_ "$tag drop-dups" "$corpus"
  case_ "$tag only-dups" --only-dups "$corpus"
  case_ "$tag annotate -t 0.6" --annotate -t 0.6 "$corpus"
  # On one template every pair is a candidate and verified: the pair-writing cases take
  # minutes a run there, so they run on the other corpora only.
  groups=yes
  case $tag in tpl1-*) groups=no ;; esac
  [ $groups = yes ] && case_ "$tag pairs" --pairs "$corpus"
  case_ "$tag window $((lines / 10 + 1))" --window $((lines / 10 + 1)) "$corpus"
  case_ "$tag max-memory 128M" --max-memory 128M --annotate "$corpus"
  case_ "$tag against first half" --against "$work/$tag.first.jsonl" "$work/$tag.second.jsonl"
  state_case "$tag state split" "$work/$tag.first.jsonl" "$work/$tag.second.jsonl"
  if [ $groups = yes ]; then
    case_ "$tag clusters" clusters -t 0.6 "$corpus"
    case_ "$tag clusters keep longest" clusters --keep longest "$corpus"
    case_ "$tag graph tsv" graph --format tsv "$corpus"
  fi
  if [ "$parquet" = yes ]; then
    "$py" - "$corpus" "$work/$tag.parquet" <<'EOF'
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
t = pa.Table.from_pylist([{"id": str(r.get("id", i)), "text": r["text"]} for i, r in enumerate(rows)])
pq.write_table(t, sys.argv[2], compression="zstd", row_group_size=(len(rows) + 3) // 4)
EOF
    case_ "$tag parquet to parquet" "$work/$tag.parquet" -o out.parquet
    case_ "$tag parquet annotate to lines" --annotate --output-format lines "$work/$tag.parquet"
  fi
done

echo "$same same, $differ differ"
[ "$differ" = 0 ]
