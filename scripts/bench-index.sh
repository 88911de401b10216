#!/usr/bin/env bash
# The incremental index (--state DIR), as a daily crawl uses it:
# - a run of 1,000 new documents against an index of N documents (999,000 by default, ordinary
#   text: the rounds corpus, 1.6 KB a document): end-to-end seconds, the open and save
#   seconds of --stats, peak RSS; three runs in a row (the first meets new documents, the
#   next two the same ones again), and a read-only --against INDEX run;
# - --checkpoint-every 100000 over a stream of CKPT documents (2,000,000 by default): the
#   bytes the run wrote (time(1)'s file system outputs) against the final index's size.
# - the opening's worst case: the same day's run against an index whose log is just under the
#   length at which the tables are written whole again, and against the tables alone (FOLD=0
#   skips it).
# OLD=path/to/neardup measures a build whose --state is one file the same way, runs
# interleaved (old, new, ...).
#
# Usage: scripts/bench-index.sh [N]          N=3999000 for the 4x size
#        OLD=/tmp/old/neardup CKPT=0 scripts/bench-index.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-999000}
ckpt=${CKPT:-2000000}
new=${NEW:-target/release/neardup}
old=${OLD:-}
[ -x "$new" ] || cargo build --release --locked -q
mkdir -p bench-data
# shellcheck source=scripts/corpora.sh
. scripts/corpora.sh
rounds() { # rounds N -> path of a rounds corpus of at least N documents
  local want=$1 f
  for f in bench-data/rounds-*.jsonl; do
    local have=${f##*-}
    have=${have%.jsonl}
    if [ -s "$f" ] && [ "$have" -ge "$want" ] 2> /dev/null; then
      echo "$f"
      return
    fi
  done
  f=bench-data/rounds-$want.jsonl
  python3 scripts/make_rounds_corpus.py --source "$(corpus peers 0)" --docs "$want" > "$f.tmp"
  mv "$f.tmp" "$f"
  echo "$f"
}
src=$(rounds $((n + 1000)))
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-index.XXXXXX")
trap 'rm -rf "$work"' EXIT
sed -n "$((n + 1)),$((n + 1000))p" "$src" > "$work/new.jsonl"

run() { # run LABEL BIN ARGS... -> one line: seconds, open/save seconds, peak RSS, exit
  local label=$1 bin=$2
  shift 2
  local err=$work/err start end code=0
  start=$EPOCHREALTIME
  "$bin" -q --stats "$@" 2> "$err" > /dev/null || code=$?
  end=$EPOCHREALTIME
  local rss load save
  rss=$(grep -o '"peak_rss_bytes":[0-9]*' "$err" | cut -d: -f2 || true)
  load=$(grep -o '"state_load_seconds":[0-9.e-]*' "$err" | cut -d: -f2 || true)
  save=$(grep -o '"state_save_seconds":[0-9.e-]*' "$err" | cut -d: -f2 || true)
  awk -v l="$label" -v s="$start" -v e="$end" -v r="${rss:-0}" -v a="${load:--}" \
    -v b="${save:--}" -v c="$code" \
    'BEGIN {printf "%-34s %6.2f s  open %-6s save %-6s peak %6.0f MiB  exit %d\n", l, e - s, a, b, r / 1048576, c}'
}
size() { du -sb "$1" | cut -f1; }

for build in ${old:+old} new; do
  bin=$new
  [ "$build" = old ] && bin=$old
  state=$work/state-$build
  [ "$build" = old ] && state=$work/state-$build.ndstate
  echo "## $build build ($bin): index of $n documents"
  run "building it" "$bin" --state "$state" <(head -n "$n" "$src")
  echo "index on disk: $(size "$state") bytes"
  for i in 1 2 3; do
    run "1,000 documents, run $i" "$bin" --state "$state" "$work/new.jsonl"
  done
  run "1,000 documents --against it" "$bin" --against "$state" "$work/new.jsonl"
  echo "index on disk after: $(size "$state") bytes"
  rm -rf "$state"
done

# The opening's worst case: a log just under the length at which a run writes the tables
# whole (a 64th of them: about n/50 documents of log), against the tables alone.
if [ "${FOLD:-1}" != 0 ]; then
  k=$((n / 50))
  echo "## new build: 1,000 documents against $n, with a log of $k documents and without"
  run "building $((n - k))" "$new" --state "$work/fold" <(head -n "$((n - k))" "$src")
  cp -r "$work/fold" "$work/plain"
  run "logging $k more" "$new" --state "$work/fold" <(sed -n "$((n - k + 1)),${n}p" "$src")
  "$new" state info "$work/fold" | grep 'on disk'
  for i in 1 2 3; do
    for kind in fold plain; do
      rm -rf "$work/c"
      cp -r "$work/$kind" "$work/c"
      sync
      run "1,000 documents, $kind $i" "$new" --state "$work/c" "$work/new.jsonl"
    done
  done
  rm -rf "$work/fold" "$work/plain" "$work/c"
fi

if [ "$ckpt" -gt 0 ]; then
  stream=$(rounds "$ckpt")
  for build in ${old:+old} new; do
    bin=$new
    [ "$build" = old ] && bin=$old
    state=$work/ckpt-$build
    echo "## $build build: --checkpoint-every 100000 over $ckpt documents"
    out=$(/usr/bin/time -f '%e %O' "$bin" -q --state "$state" --checkpoint-every 100000 \
      <(head -n "$ckpt" "$stream") 2>&1 > /dev/null | tail -1)
    final=$(size "$state")
    awk -v o="$out" -v f="$final" 'BEGIN {split(o, a, " ");
      printf "%.1f s, written %.2f GB, final index %.2f GB: %.2fx\n", a[1], a[2] * 512 / 1e9, f / 1e9, a[2] * 512 / f}'
    rm -rf "$state"
  done
fi
