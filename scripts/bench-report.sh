#!/usr/bin/env bash
# What --report costs: `neardup --drop-dups` with and without `--report FILE.html` on the same
# corpus, interleaved (3 runs each), each run a process timed whole with its peak RSS; the
# page's size. Corpora at 1x and 4x: the peer corpus (its first quarter, then whole) and one
# template posted over and over (adversarial: every document a candidate of many).
#
# Usage: scripts/bench-report.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/corpora.sh
cargo build --release --quiet
bin=target/release/neardup
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
peers=$(corpus peers 0)
quarter=bench-data/peers-quarter.jsonl
[ -s "$quarter" ] || head -n $(($(wc -l < "$peers") / 4)) "$peers" > "$quarter"
echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo
echo "| corpus | documents | without: s (median of 3) | with --report | × time | peak RSS without → with | page |"
echo "|---|---|---|---|---|---|---|"
for corpus in "$quarter" "$peers" "$(corpus tpl1 25000)" "$(corpus tpl1 100000)"; do
  : > "$work/without" && : > "$work/with"
  for _ in 1 2 3; do
    /usr/bin/time -f '%e %M' -a -o "$work/without" "$bin" --drop-dups "$corpus" > /dev/null 2>&1
    /usr/bin/time -f '%e %M' -a -o "$work/with" "$bin" --drop-dups --report "$work/page.html" "$corpus" > /dev/null 2>&1
  done
  python3 - "$corpus" "$(wc -l < "$corpus")" "$work/without" "$work/with" "$(wc -c < "$work/page.html")" <<'PY'
import statistics, sys
corpus, docs, without, with_, page = sys.argv[1:]
def runs(path):
    rows = [line.split() for line in open(path) if line.strip()]
    return statistics.median(float(r[0]) for r in rows), max(int(r[1]) for r in rows)
(a, ra), (b, rb) = runs(without), runs(with_)
print(f"| {corpus} | {int(docs):,} | {a:.2f} | {b:.2f} | {b / a:.3f} | {ra / 1024:,.0f} → {rb / 1024:,.0f} MiB (+{(rb - ra) / 1024:,.0f}) | {int(page):,} B |")
PY
done
