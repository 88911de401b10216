#!/usr/bin/env bash
# Where each thread's time goes in one run: for each thread (by name: the sequencer is the
# main thread, named as the binary; then neardup-signer, -helper, -reader, -writer, -chores,
# -encoder, -row-group), the CPU it used and its busy share of the run's wall time. A thread
# well below 100% while another is near it is where the run waits: on two cores the other
# thread's idle share is what overlapping more of the commit could take. `--stats` gives the
# same CPU by stage, not by thread.
#
# Usage: scripts/thread-time.sh [NEARDUP ARGS...]
#        scripts/thread-time.sh -j 2 --drop-dups bench-data/tpl1-200000.jsonl
# NEARDUP=path picks the binary (default: target/release/neardup, built first so that a
# stale build is never the one measured).
# Needs `perf` (root, or perf_event_paranoid <= 1). Samples each thread at 1 kHz.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "thread-time: needs perf" >&2; exit 2; }
if [ -z "${NEARDUP:-}" ]; then cargo build --release --quiet; fi
bin=${NEARDUP:-$PWD/target/release/neardup}
[ $# -gt 0 ] || set -- -j 2 --drop-dups "$(bash -c 'source scripts/corpora.sh; corpus tpl1 200000')"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
perf record -q -e cpu-clock -F 1000 -o "$work/perf.data" \
  "$bin" "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
perf script -i "$work/perf.data" -F comm,tid,time 2>/dev/null | python3 -c '
import collections, re, sys
cpu = collections.Counter()  # samples (1 ms each) by thread
name = {}
start = end = None
for line in sys.stdin:
    m = re.match(r"\s*(.+?)\s+(\d+)\s+([\d.]+):", line)
    if not m:
        continue
    comm, tid, t = m.groups()
    t = float(t)
    start = t if start is None else start
    end = t
    cpu[tid] += 1
    name.setdefault(tid, comm)
if start is None:
    sys.exit("thread-time: perf took no samples (a run too short to measure)")
wall = max(end - start, 0.001)
rows = collections.defaultdict(lambda: [0, 0.0])
for tid, n in cpu.items():
    rows[name[tid]][0] += 1
    rows[name[tid]][1] += n / 1000
print("wall %.2f s" % wall)
print("%-18s %5s %7s %6s" % ("thread", "count", "cpu s", "busy"))
for n, (count, c) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
    if c >= 0.01:
        print("%-18s %5d %7.2f %5.0f%%" % (n, count, c, 100 * c / (count * wall)))
'
