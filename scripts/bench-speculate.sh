#!/usr/bin/env bash
# Deciding on every core: the filter at -j 1, -j 2 (--helpers auto, the default, never and
# always) and -j 4 --helpers always, on ordinary text (text-100000), on one template
# (tpl1-50000, tpl1-200000) and on a million short lines (short-1000000): median wall seconds of RUNS runs, the speed-up over -j 1, how
# many documents were decided from a speculated lookup (--stats "speculated"), the in-order
# commit's CPU and its share of the run's CPU (--stats "cpu_seconds", of the last run), and
# whether the output is the -j 1 bytes.
#
# Usage: scripts/bench-speculate.sh [BINARY]      (default target/release/neardup)
#        RUNS=5 CORPORA="text-100000 tpl1-200000" scripts/bench-speculate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/neardup}
runs=${RUNS:-3}
corpora=${CORPORA:-text-100000 tpl1-50000 tpl1-200000 short-1000000}
mkdir -p bench-data
# shellcheck source=scripts/corpora.sh
. scripts/corpora.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%-14s %-22s %8s %8s %11s %7s %6s %s\n' corpus run seconds speed-up speculated commit share output
for name in $corpora; do
  path=$(corpus "${name%%-*}" "${name#*-}")
  base=
  for setting in "-j 1" "-j 2" "-j 2 --helpers never" "-j 2 --helpers always" \
    "-j 4 --helpers always"; do
    : > "$work/times"
    for _ in $(seq "$runs"); do
      start=$(date +%s.%N)
      # shellcheck disable=SC2086
      "$bin" -q --stats $setting "$path" > "$work/out" 2> "$work/err"
      end=$(date +%s.%N)
      awk -v a="$start" -v b="$end" 'BEGIN { print b - a }' >> "$work/times"
    done
    secs=$(median < "$work/times")
    [ -z "$base" ] && base=$secs && cp "$work/out" "$work/one"
    spec=$(grep -o '"speculated":[0-9]*' "$work/err" | cut -d: -f2)
    same=$(cmp -s "$work/out" "$work/one" && echo "same bytes" || echo DIFFERS)
    # The stages' CPU: "commit" and the sum of all.
    cpu=$(grep -o '"cpu_seconds":{[^}]*}' "$work/err" | tr -d '{}"' | tr ',' '\n' | sed 's/.*://')
    commit=$(grep -o '"commit":[0-9.]*' "$work/err" | cut -d: -f2)
    share=$(echo "$cpu" | awk -v c="$commit" '{ t += $1 } END { printf "%.0f%%", 100 * c / t }')
    printf '%-14s %-22s %8.2f %7.2fx %11s %7.2f %6s %s\n' "$name" "$setting" "$secs" \
      "$(awk -v a="$base" -v b="$secs" 'BEGIN { print a / b }')" "$spec" "$commit" "$share" "$same"
  done
done
