#!/usr/bin/env bash
# Pair recall of MinHash + LSH against the exact join, and what it costs: for every corpus
# this project has and T = 0.3, 0.5, 0.8, the pairs `--pairs` finds over the pairs
# `--pairs --exact` (the All-Pairs prefix filter: every pair at or above T) finds. Both
# verify with the same exact similarity, so precision is 1 and recall is the ratio of the
# counts. With OLD_BINARY, its recall and throughput too, timed interleaved with the new one.
#
# Corpora: the bundled Reuters sample; all of Reuters-21578, the Leipzig entity-resolution
# records and Gutenberg chunks (from ../shared/data); the peer corpus (scripts/corpora.sh).
# A run longer than $TIMEOUT seconds is stopped ("-").
#
# Usage: scripts/bench-recall.sh [BINARY [OLD_BINARY]]   (default: target/release/neardup)
#        RUNS=3 TIMEOUT=600 THRESHOLDS="0.3 0.5 0.8" THREADS=2 scripts/bench-recall.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
old=${2:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/neardup
fi
runs=${RUNS:-3}
limit=${TIMEOUT:-600}
threads=${THREADS:-2}
thresholds=${THRESHOLDS:-0.3 0.5 0.8}
mkdir -p bench-data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/corpora.sh
. scripts/corpora.sh

shared=../shared/data
[ -s bench-data/reuters.jsonl ] \
  || python3 scripts/reuters_to_jsonl.py "$shared/reuters21578/reuters21578-sgm.tar.xz" > bench-data/reuters.jsonl
[ -s bench-data/leipzig.jsonl ] \
  || python3 scripts/leipzig_to_jsonl.py "$shared/leipzig-er" > bench-data/leipzig.jsonl
corpora=(
  "sample tests/data/reuters-sample.jsonl"
  "reuters bench-data/reuters.jsonl"
  "leipzig bench-data/leipzig.jsonl"
  "gutenberg $(corpus text 50000)"
  "peers $(corpus peers 0)"
)

# pairs BINARY PATH T [FLAGS...]: "COUNT SECONDS" of one --pairs run, or "- -" on timeout.
pairs() {
  local b=$1 path=$2 t=$3
  shift 3
  local start=$EPOCHREALTIME
  if ! timeout "$limit" "$b" --pairs -q -j "$threads" -t "$t" "$@" "$path" > "$work/pairs"; then
    echo "- -"
    return
  fi
  local end=$EPOCHREALTIME
  echo "$(wc -l < "$work/pairs") $(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.4f", a / b }'; }

if [ -n "$old" ]; then
  echo "| corpus | docs | T | exact pairs | recall before | recall after | docs/s before | docs/s after | after / before |"
  echo "|---|---|---|---|---|---|---|---|---|"
else
  echo "| corpus | docs | T | exact pairs | recall | docs/s |"
  echo "|---|---|---|---|---|---|"
fi
for entry in "${corpora[@]}"; do
  read -r name path <<< "$entry"
  docs=$(wc -l < "$path")
  for t in $thresholds; do
    read -r exact _ < <(pairs "$bin" "$path" "$t" --exact)
    : > "$work/new"
    : > "$work/old"
    for _ in $(seq "$runs"); do
      [ -z "$old" ] || pairs "$old" "$path" "$t" >> "$work/old"
      pairs "$bin" "$path" "$t" >> "$work/new"
    done
    found=$(head -1 "$work/new" | cut -d' ' -f1)
    seconds=$(cut -d' ' -f2 "$work/new" | median)
    rate=$(awk -v d="$docs" -v s="$seconds" 'BEGIN { if (s == "-") print "-"; else printf "%d", d / s }')
    if [ -n "$old" ]; then
      found_old=$(head -1 "$work/old" | cut -d' ' -f1)
      seconds_old=$(cut -d' ' -f2 "$work/old" | median)
      rate_old=$(awk -v d="$docs" -v s="$seconds_old" 'BEGIN { if (s == "-") print "-"; else printf "%d", d / s }')
      echo "| $name | $docs | $t | $exact | $(ratio "$found_old" "$exact") | $(ratio "$found" "$exact") | $rate_old | $rate | $(ratio "$rate" "$rate_old") |"
    else
      echo "| $name | $docs | $t | $exact | $(ratio "$found" "$exact") | $rate |"
    fi
  done
done
