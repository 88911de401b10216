#!/usr/bin/env bash
# The group commands beside the filter and --pairs, on ordinary text and on heavy
# duplication, at two sizes each (to show how cost grows): seconds and peak RSS per command,
# then how far the bounded components are from the exact ones.
#
# Corpora (generated into bench-data/ once, seeded; see scripts/corpora.sh): the peer
# corpus (95,410 Gutenberg chunks with injected near duplicates), tpl100-N (N documents from
# 100 templates) and tpl1-N (one template), 1 to 3 of 100 words changed in each.
# A run that takes longer than $TIMEOUT seconds is stopped and shown as "> TIMEOUT s".
#
# Usage: scripts/bench-groups.sh [BINARY]   (default: target/release/neardup, built)
#        SIZES="50000 200000" RUNS=3 TIMEOUT=120 THREADS=2 scripts/bench-groups.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/neardup
fi
sizes=${SIZES:-50000 200000}
runs=${RUNS:-3}
limit=${TIMEOUT:-120}
threads=${THREADS:-2}
mkdir -p bench-data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/corpora.sh
. scripts/corpora.sh

# cell PATH ARGS...: "S s, M MiB" (median seconds of $runs, last peak RSS), or "> limit s".
cell() {
  local path=$1
  shift
  : > "$work/s"
  local kb=0
  for _ in $(seq "$runs"); do
    local start=$EPOCHREALTIME
    local code=0
    timeout "$limit" /usr/bin/time -f '%M' -o "$work/t" "$bin" "$@" -q -j "$threads" "$path" \
      > /dev/null 2> "$work/err" || code=$?
    if [ "$code" = 124 ]; then
      echo "> $limit s"
      return
    elif [ "$code" != 0 ]; then
      echo "failed: $(head -c 200 "$work/err")" >&2
      exit 1
    fi
    local end=$EPOCHREALTIME
    awk -v a="$start" -v b="$end" 'BEGIN {print b - a}' >> "$work/s"
    kb=$(cat "$work/t")
  done
  awk -v s="$(median < "$work/s")" -v kb="$kb" 'BEGIN { printf "%.2f s, %d MiB", s, kb / 1024 }'
}

commands=("--drop-dups" "--pairs" "clusters" "clusters --keep first" \
  "clusters --max-candidates 0" "clusters --by cliques" "graph --format tsv")
targets=("peers 0")
for n in $sizes; do targets+=("tpl100 $n" "tpl1 $n"); done

echo "Seconds and peak RSS, $threads threads, T = 0.8, median of $runs (clusters: components, bounded;"
echo "--max-candidates 0: exact components)."
echo
header="| corpus | docs |"
rule="|---|---|"
for c in "${commands[@]}"; do header+=" \`$c\` |"; rule+="---|"; done
echo "$header"
echo "$rule"
for target in "${targets[@]}"; do
  read -r kind n <<< "$target"
  path=$(corpus "$kind" "$n")
  row="| $kind | $(wc -l < "$path") |"
  for c in "${commands[@]}"; do
    # shellcheck disable=SC2086 # each command is a few words
    row+=" $(cell "$path" $c) |"
  done
  echo "$row"
done

echo
echo "Bounded components against exact ones (--max-candidates 0): documents of the exact"
echo "groups of two or more, and how many of them the bounded run left outside their group's"
echo "largest part; false joins (a bounded group spanning two exact groups) must be 0."
echo
echo "| corpus | docs in groups | moved | false joins |"
echo "|---|---|---|---|"
for target in "${targets[@]}"; do
  read -r kind n <<< "$target"
  path=$(corpus "$kind" "$n")
  timeout "$limit" "$bin" clusters -q -j "$threads" --max-candidates 0 "$path" > "$work/exact" \
    || { echo "| $kind $n | exact run > $limit s | | |"; continue; }
  "$bin" clusters -q -j "$threads" "$path" > "$work/bounded"
  python3 - "$work/exact" "$work/bounded" "$kind" <<'EOF'
import json, sys
from collections import Counter, defaultdict
exact, bounded = ([json.loads(l)["cluster"] for l in open(p)] for p in sys.argv[1:3])
parts = defaultdict(list)
for e, b in zip(exact, bounded):
    parts[e].append(b)
grouped = sum(len(p) for p in parts.values() if len(p) > 1)
moved = sum(len(p) - Counter(p).most_common(1)[0][1] for p in parts.values())
spans = defaultdict(set)
for e, b in zip(exact, bounded):
    spans[b].add(e)
false_joins = sum(1 for s in spans.values() if len(s) > 1)
print(f"| {sys.argv[3]} {len(exact)} | {grouped} | {moved} ({100 * moved / max(grouped, 1):.2f} %) | {false_joins} |")
EOF
done
