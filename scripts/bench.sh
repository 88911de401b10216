#!/usr/bin/env bash
# Throughput and memory benchmark for neardup.
#
# Builds the release binary, generates a >= 200 MB JSONL corpus from ../shared/data (Gutenberg
# chunks with injected near-duplicates, scripts/make_corpus.py) unless it exists, then runs
# neardup in several configurations and prints one markdown table: docs/s, MB/s (input bytes),
# peak RSS (/usr/bin/time -v), duplicates found. Also shows that memory stays flat with
# --window on a stream three times the corpus.
#
# Usage: scripts/bench.sh [corpus-MB]    (default 220; the corpus goes to bench-data/)
#        REPEAT=5 scripts/bench.sh         (runs per row; the row shows the median)
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-220}
data=bench-data
corpus=$data/corpus-${mb}mb.jsonl
mkdir -p "$data"
cargo build --release --quiet
bin=target/release/neardup
if [ ! -s "$corpus" ]; then
  echo "generating $corpus ..." >&2
  python3 scripts/make_corpus.py --mb "$mb" > "$corpus.tmp" && mv "$corpus.tmp" "$corpus"
fi
docs=$(wc -l < "$corpus")
idf=$data/corpus-${mb}mb.idf
if [ ! -s "$idf" ]; then
  echo "counting document frequencies into $idf ..." >&2
  /usr/bin/time -f 'neardup idf: %e s, %M KB' "$bin" idf "$corpus" > "$idf"
fi
bytes=$(wc -c < "$corpus")
cores=$(nproc)

# run NAME INPUT ARGS...: one table row, the median of $REPEAT runs (this machine's timings
# vary by about 10% from run to run). INPUT is a file neardup opens itself, or a shell command
# ("cat a b c") whose output is piped in, as a stream would be.
REPEAT=${REPEAT:-3}
run() {
  local name=$1 input=$2
  shift 2
  local cmd files=() rss=()
  if [ -f "$input" ]; then
    cmd="$bin --stats -q $* $input"
  else
    cmd="$input | $bin --stats -q $*"
  fi
  for _ in $(seq "$REPEAT"); do
    local stats
    stats=$(mktemp)
    files+=("$stats")
    rss+=("$( { /usr/bin/time -f '%M' bash -c "$cmd > /dev/null 2> $stats" ; } 2>&1 | tail -1)")
  done
  python3 - "$name" "${rss[*]}" "${files[@]}" <<'PY'
import json, sys
name, rss = sys.argv[1], max(int(r) for r in sys.argv[2].split())
runs = [json.loads([l for l in open(p) if l.startswith("{")][-1]) for p in sys.argv[3:]]
s = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
print(f"| {name} | {s['docs_read']:,} | {s['docs_per_sec']:,.0f} | {s['mb_per_sec']:.1f} | {rss/1024:,.0f} MiB | {s['dropped_exact']:,} + {s['dropped_near']:,} | {s['window_docs']:,} |")
PY
  rm -f "${files[@]}"
}

echo
echo "corpus: $corpus, $docs documents, $((bytes / 1000000)) MB; machine: $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "defaults: word 5-grams, K=128, T=0.8 (16 bands x 8 rows), exact Jaccard verification"
echo
echo "| run | docs | docs/s | MB/s | peak RSS | dropped (exact + near) | window docs |"
echo "|---|---|---|---|---|---|---|"
run "--threads 1" "$corpus" -j 1
run "--threads $cores (all cores)" "$corpus" -j 0
run "-t 0.5, --threads $cores" "$corpus" -j 0 -t 0.5
run "--verify none, --threads $cores" "$corpus" -j 0 --verify none
run "--bag, --threads $cores" "$corpus" -j 0 --bag
run "--weights set, --threads 1" "$corpus" -j 1 --weights set
run "--weights tf, --threads 1" "$corpus" -j 1 --weights tf
run "--weights tfidf --idf FILE, --threads 1" "$corpus" -j 1 --weights tfidf --idf "$idf"
run "--weights tfidf --idf FILE, --threads $cores" "$corpus" -j 0 --weights tfidf --idf "$idf"
run "--weights tfidf --idf-warmup 50000, --threads $cores" "$corpus" -j 0 --weights tfidf --idf-warmup 50000
run "--annotate, --threads $cores" "$corpus" -j 0 --annotate
run "stdin stream, --window 20000, 1x corpus" "cat $corpus" -j 0 --window 20000
run "stdin stream, --window 20000, 3x corpus" "cat $corpus $corpus $corpus" -j 0 --window 20000
