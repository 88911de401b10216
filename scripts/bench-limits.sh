#!/usr/bin/env bash
# Limits as they are met in practice, two builds side by side:
# - peak RSS at --max-memory 64M, 128M, 256M (and 64M with --spill-dir none) on the 1M
#   rounds corpus: the whole process against the budget;
# - default flags in a memory cgroup of 256 MiB (cgroup v1 or v2, as root; skipped with a
#   reason elsewhere): exit status, peak RSS, the note;
# - a live pipe, one document every 100 ms (scripts/live_latency.py);
# - the 100k peer corpus as a file and through a pipe, runs interleaved (old, new, …):
#   what flushing at a live input's pauses costs a fast input.
#
# Usage: scripts/bench-limits.sh NEW_BINARY OLD_BINARY
#        RUNS=11 SIZE=600000 scripts/bench-limits.sh target/release/neardup /tmp/old
set -euo pipefail
cd "$(dirname "$0")/.."
new=$1
old=$2
runs=${RUNS:-11}
size=${SIZE:-1000000}
mkdir -p bench-data
# shellcheck source=scripts/corpora.sh
. scripts/corpora.sh
peers=$(corpus peers 0)
rounds=bench-data/rounds-$size.jsonl
if [ ! -s "$rounds" ]; then
  python3 scripts/make_rounds_corpus.py --source "$peers" --docs "$size" > "$rounds.tmp"
  mv "$rounds.tmp" "$rounds"
fi
peak() { # peak BIN ARGS... -> "exit peak_MiB seconds"
  local bin=$1
  shift
  local t
  t=$(mktemp)
  local start=$EPOCHREALTIME code=0
  "$bin" -q --stats "$@" 2> "$t" > /dev/null || code=$?
  local end=$EPOCHREALTIME
  local kib
  kib=$(grep -o '"peak_rss_bytes":[0-9]*' "$t" | cut -d: -f2)
  rm -f "$t"
  awk -v c="$code" -v b="${kib:-0}" -v s="$start" -v e="$end" \
    'BEGIN {printf "exit %d, %.1f MiB, %.2f s", c, b / 1048576, e - s}'
}
echo "## peak RSS under --max-memory ($size documents)"
for args in "--max-memory 64M" "--max-memory 128M" "--max-memory 256M" \
  "--max-memory 64M --spill-dir none"; do
  read -r -a a <<< "$args"
  # The old build may have no peak_rss_bytes: measure it with time(1) when it is there.
  if command -v /usr/bin/time > /dev/null; then
    o=$(/usr/bin/time -f '%M' "$old" -q "${a[@]}" "$rounds" 2>&1 > /dev/null | tail -1)
    o="$(awk -v k="$o" 'BEGIN {printf "%.1f MiB", k / 1024}')"
  else
    o="(no /usr/bin/time)"
  fi
  echo "$args: new $(peak "$new" "${a[@]}" "$rounds"); old peak $o"
done

echo "## default flags in a memory cgroup of 256 MiB"
cg=""
if [ "$(id -u)" = 0 ]; then
  own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup | head -1)
  if [ -n "$own" ] && [ -d "/sys/fs/cgroup/memory$own" ]; then
    cg=/sys/fs/cgroup/memory$own/neardup-bench-$$
    mkdir "$cg" && echo $((256 << 20)) > "$cg/memory.limit_in_bytes"
  elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    own=$(awk -F: '$1 == 0 {print $3}' /proc/self/cgroup)
    cg=/sys/fs/cgroup$own/neardup-bench-$$
    mkdir "$cg" && echo $((256 << 20)) > "$cg/memory.max"
  fi
fi
if [ -n "$cg" ]; then
  err=$(mktemp)
  for b in "$old" "$new"; do
    code=0
    sh -c "echo \$\$ > $cg/cgroup.procs; exec $b --stats $rounds" 2> "$err" > /dev/null || code=$?
    echo "$b: exit $code; $(grep -o '"peak_rss_bytes":[0-9]*\|reached at input line [0-9]*\|"docs_per_sec":[0-9]*' "$err" | tr '\n' ' ')"
  done
  rm -f "$err"
  rmdir "$cg"
else
  echo "skipped: needs root and a writable memory cgroup"
fi

echo "## a live pipe, one document every 100 ms"
for b in "$old" "$new"; do echo "$b: $(python3 scripts/live_latency.py "$b" 30 0.1)"; done

echo "## the peer corpus ($(wc -l < "$peers") documents), median of $runs interleaved runs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for _ in $(seq "$runs"); do
  for tag in old new; do
    b=$old
    [ $tag = new ] && b=$new
    s=$EPOCHREALTIME; "$b" -q "$peers" > /dev/null; e=$EPOCHREALTIME
    awk -v s="$s" -v e="$e" 'BEGIN {print e - s}' >> "$work/$tag.file"
    s=$EPOCHREALTIME; "$b" -q < "$peers" > /dev/null; e=$EPOCHREALTIME
    awk -v s="$s" -v e="$e" 'BEGIN {print e - s}' >> "$work/$tag.stdin"
    s=$EPOCHREALTIME; cat "$peers" | "$b" -q > /dev/null; e=$EPOCHREALTIME
    awk -v s="$s" -v e="$e" 'BEGIN {print e - s}' >> "$work/$tag.pipe"
  done
done
docs=$(wc -l < "$peers")
for how in file stdin pipe; do
  o=$(median < "$work/old.$how")
  n=$(median < "$work/new.$how")
  awk -v h="$how" -v o="$o" -v n="$n" -v d="$docs" \
    'BEGIN {printf "%s: old %.3f s (%d docs/s), new %.3f s (%d docs/s), new/old docs/s %.3f\n", h, o, d / o, n, d / n, o / n}'
done
