#!/usr/bin/env bash
# The filter on heavily duplicated data beside ordinary text: how cost grows with the input
# when one template (or a hundred) is posted over and over.
#
# Corpora (generated into bench-data/ once, seeded):
# - tplK-N: N documents from K templates of 100 words, 1 to 3 words changed in each
#   (scripts/make_template_corpus.py; ~0.7 KB a line);
# - text-N: N chunks of Gutenberg text of about the same length, 5% injected near
#   duplicates (scripts/make_corpus.py --chunk 640), up to 200,000 documents.
# Each row: --drop-dups at a threshold on 1 and 2 threads, docs/s (median of $RUNS), peak RSS,
# dropped documents, candidates verified. Then memory with --window on the largest corpus.
#
# Usage: scripts/bench-templates.sh [BINARY]       (default: target/release/neardup, built)
#        SIZES="50000 200000 1000000" RUNS=3 THRESHOLDS="0.8 0.95" scripts/bench-templates.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/neardup
fi
sizes=${SIZES:-50000 200000 1000000}
runs=${RUNS:-3}
thresholds=${THRESHOLDS:-0.8 0.95}
mkdir -p bench-data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=scripts/corpora.sh
. scripts/corpora.sh

# run PATH ARGS...: prints "seconds peak_kb stats_json" (median seconds of $runs).
run() {
  local path=$1
  shift
  : > "$work/s"
  local kb=0
  for _ in $(seq "$runs"); do
    local start=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$work/t" "$bin" --stats -q "$@" "$path" > /dev/null 2> "$work/stats"
    local end=$EPOCHREALTIME
    awk -v a="$start" -v b="$end" 'BEGIN {print b - a}' >> "$work/s"
    kb=$(cat "$work/t")
  done
  echo "$(median < "$work/s") $kb $(cat "$work/stats")"
}

echo "| corpus | docs | T | threads | docs/s | MB/s | peak RSS | dropped | candidates verified |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in $sizes; do
  kinds="tpl1 tpl100 text"
  # The Gutenberg subset makes about 300,000 such chunks: ordinary text up to 200,000.
  [ "$n" -le 200000 ] || kinds="tpl1 tpl100"
  for kind in $kinds; do
    path=$(corpus "$kind" "$n")
    bytes=$(wc -c < "$path")
    docs=$(wc -l < "$path")
    for t in $thresholds; do
      for j in 1 2; do
        read -r s kb stats < <(run "$path" --drop-dups -t "$t" -j "$j")
        dropped=$(echo "$stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["dropped"])')
        checked=$(echo "$stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["candidates_checked"])')
        awk -v c="$kind" -v d="$docs" -v t="$t" -v j="$j" -v s="$s" -v b="$bytes" -v kb="$kb" \
          -v dr="$dropped" -v ch="$checked" 'BEGIN {
            printf "| %s | %d | %s | %d | %d | %.1f | %d MiB | %d | %d |\n",
              c, d, t, j, d / s, b / 1e6 / s, kb / 1024, dr, ch
          }'
      done
    done
  done
done

echo
echo "Memory with --window 10000 (-j 2, T = 0.8): peak RSS by corpus size"
echo
echo "| corpus | docs | peak RSS | docs/s |"
echo "|---|---|---|---|"
for n in $sizes; do
  for kind in tpl1 tpl100; do
    path=$(corpus "$kind" "$n")
    docs=$(wc -l < "$path")
    read -r s kb _ < <(run "$path" --drop-dups -t 0.8 -j 2 --window 10000)
    awk -v c="$kind" -v d="$docs" -v s="$s" -v kb="$kb" \
      'BEGIN { printf "| %s | %d | %d MiB | %d |\n", c, d, kb / 1024, d / s }'
  done
done
