#!/usr/bin/env bash
# The window's cost per document, two builds side by side, runs interleaved (old, new, …) so
# that the shared machine's drift hits both alike:
# - ordinary text, 100,000 documents (text-100000): --drop-dups -t 0.8 at -j 1 and -j 2,
#   median of RUNS (7) paired runs: seconds, docs/s, new/old, and the median of the pairs'
#   own ratios;
# - one template (tpl1-N) at 50,000 / 200,000 / 800,000 documents, -j 2, median of TPL_RUNS (3):
#   seconds, µs a document, lines kept; then the growth 200k -> 800k (4x the documents) and the
#   800k corpus' docs/s against the ordinary corpus' (-j 2).
#
# Usage: scripts/bench-window.sh OLD_BINARY NEW_BINARY
#        RUNS=3 TPL_RUNS=1 SIZES="50000 200000" scripts/bench-window.sh /tmp/old target/release/neardup
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
new=$2
runs=${RUNS:-7}
tpl_runs=${TPL_RUNS:-3}
sizes=${SIZES:-50000 200000 800000}
mkdir -p bench-data
# shellcheck source=scripts/corpora.sh
. scripts/corpora.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# timed BUILD OUT BIN ARGS...: appends the wall seconds to $work/OUT.BUILD.s and the kept lines
# to $work/OUT.BUILD.kept.
timed() {
  local build=$1 out=$2 bin=$3 start end
  shift 3
  start=$EPOCHREALTIME
  "$bin" -q "$@" > "$work/lines"
  end=$EPOCHREALTIME
  awk -v a="$start" -v b="$end" 'BEGIN {print b - a}' >> "$work/$out.$build.s"
  wc -l < "$work/lines" > "$work/$out.$build.kept"
}

text=$(corpus text 100000)
docs=$(wc -l < "$text")
echo "## ordinary text: $docs documents, --drop-dups -t 0.8, median of $runs paired runs"
echo "| threads | old s | new s | old docs/s | new docs/s | new/old docs/s | median of pairs |"
echo "|---|---|---|---|---|---|---|"
for j in 1 2; do
  for _ in $(seq "$runs"); do
    for build in old new; do
      bin=$old
      [ "$build" = new ] && bin=$new
      timed "$build" "text$j" "$bin" --drop-dups -t 0.8 -j "$j" "$text"
    done
  done
  so=$(median < "$work/text$j.old.s")
  sn=$(median < "$work/text$j.new.s")
  # Each pair ran back to back, so its ratio is the least touched by the machine's drift.
  pairs=$(paste "$work/text$j.old.s" "$work/text$j.new.s" | awk '{print $1 / $2}' | median)
  awk -v j="$j" -v so="$so" -v sn="$sn" -v d="$docs" -v p="$pairs" 'BEGIN {
    printf "| -j %d | %.3f | %.3f | %d | %d | %.2fx | %.2fx |\n", j, so, sn, d / so, d / sn, so / sn, p }'
done
ordinary_old=$(median < "$work/text2.old.s")
ordinary_new=$(median < "$work/text2.new.s")

echo
echo "## one template, --drop-dups -t 0.8 -j 2, median of $tpl_runs runs"
echo "| documents | old s | new s | old µs/doc | new µs/doc | old kept | new kept |"
echo "|---|---|---|---|---|---|---|"
for n in $sizes; do
  tpl=$(corpus tpl1 "$n")
  for _ in $(seq "$tpl_runs"); do
    for build in old new; do
      bin=$old
      [ "$build" = new ] && bin=$new
      timed "$build" "tpl$n" "$bin" --drop-dups -t 0.8 -j 2 "$tpl"
    done
  done
  so=$(median < "$work/tpl$n.old.s")
  sn=$(median < "$work/tpl$n.new.s")
  awk -v n="$n" -v so="$so" -v sn="$sn" -v ko="$(cat "$work/tpl$n.old.kept")" \
    -v kn="$(cat "$work/tpl$n.new.kept")" 'BEGIN {
    printf "| %d | %.2f | %.2f | %.1f | %.1f | %d | %d |\n", n, so, sn, so / n * 1e6, sn / n * 1e6, ko, kn }'
done
if [[ " $sizes " == *" 200000 "* && " $sizes " == *" 800000 "* ]]; then
  for build in old new; do
    a=$(median < "$work/tpl200000.$build.s")
    b=$(median < "$work/tpl800000.$build.s")
    awk -v w="$build" -v a="$a" -v b="$b" -v o="$([ "$build" = old ] && echo "$ordinary_old" || echo "$ordinary_new")" \
      -v d="$docs" 'BEGIN {
      printf "%s: 200k -> 800k %.2fx the time; 800k at %.2fx the ordinary corpus'"'"' docs/s\n",
        w, b / a, (800000 / b) / (d / o) }'
  done
fi
