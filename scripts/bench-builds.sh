#!/usr/bin/env bash
# Throughput of two neardup builds on the peer corpus, runs interleaved (old, new, old, new…)
# so that this shared machine's drift hits both alike. For changes that must not cost speed.
#
# Usage: scripts/bench-builds.sh OLD_BINARY NEW_BINARY
#        RUNS=7 scripts/bench-builds.sh …        (runs per row; the row shows the median)
# Rows: --pairs at T = 0.8 and 0.5 (the peer benchmark's settings: --no-nfkc, word 5-grams),
# on one core (taskset, every thread on it) and on all cores. Prints a markdown table with
# docs/s, MB/s and peak RSS of each build and new/old.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
new=$2
runs=${RUNS:-5}
corpus=${CORPUS:-bench-data/peers-130mb.jsonl}
mkdir -p bench-data
if [ ! -s "$corpus" ]; then
  echo "generating $corpus ..." >&2
  python3 scripts/make_corpus.py --mb 130 --chunk 950 --seed 7 > "$corpus.tmp"
  mv "$corpus.tmp" "$corpus"
fi
docs=$(wc -l < "$corpus")
bytes=$(wc -c < "$corpus")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# median FILE: the median of the numbers in FILE, one per line.
median() { sort -g "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "| run | old docs/s | new docs/s | new/old | old MB/s | new MB/s | old RSS | new RSS |"
echo "|---|---|---|---|---|---|---|---|"
for t in 0.8 0.5; do
  for where in "1 core" "all cores"; do
    pin=()
    [ "$where" = "1 core" ] && pin=(taskset -c 0)
    : > "$work/old.s"; : > "$work/new.s"; : > "$work/old.kb"; : > "$work/new.kb"
    for _ in $(seq "$runs"); do
      for build in old new; do
        bin=$old
        [ "$build" = new ] && bin=$new
        # Wall time from bash's microsecond clock (time's %e has 10 ms steps); peak RSS
        # from time.
        local_start=$EPOCHREALTIME
        /usr/bin/time -f '%M' -o "$work/time" "${pin[@]}" "$bin" --pairs --no-nfkc \
          -t "$t" "$corpus" > /dev/null
        local_end=$EPOCHREALTIME
        awk -v a="$local_start" -v b="$local_end" 'BEGIN {print b - a}' >> "$work/$build.s"
        cat "$work/time" >> "$work/$build.kb"
      done
    done
    so=$(median "$work/old.s"); sn=$(median "$work/new.s")
    ko=$(median "$work/old.kb"); kn=$(median "$work/new.kb")
    awk -v t="$t" -v w="$where" -v so="$so" -v sn="$sn" -v ko="$ko" -v kn="$kn" \
      -v d="$docs" -v b="$bytes" 'BEGIN {
        printf "| T = %s, %s | %d | %d | %.3f | %.1f | %.1f | %d MiB | %d MiB |\n",
          t, w, d / so, d / sn, so / sn, b / 1e6 / so, b / 1e6 / sn, ko / 1024, kn / 1024
      }'
  done
done
echo
echo "$docs documents, $bytes bytes; median of $runs interleaved runs per build and row."
