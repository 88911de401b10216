#!/usr/bin/env bash
# How the Spark job scales: 20k, 80k and 320k documents of ~1.3 KB (Gutenberg chunks with
# injected near duplicates, scripts/make_corpus.py), the job in local[2], wall time end to
# end (Spark's start-up included), the time of each stage and the driver's peak RSS; and
# `neardup clusters` on the same file beside it, with a check that the job's clusters equal
# the exact components (`neardup clusters --max-candidates 0`). A benchmark, not a test.
#
# Usage: spark/bench_spark.sh [SIZES]   (default "20000 80000 320000"; needs Java 17+)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-20000 80000 320000}
cargo build --release --quiet
neardup=$PWD/target/release/neardup
# shellcheck source=spark/cluster.sh
. spark/cluster.sh
spark_venv
mkdir -p bench-data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
largest=$(echo "$sizes" | tr ' ' '\n' | sort -n | tail -1)
all=bench-data/spark-$largest.jsonl
if [ ! -s "$all" ]; then
  echo "generating $all ..." >&2
  python3 scripts/make_corpus.py --chunk 1300 --mb $((largest * 13 / 10000 + 20)) --seed 11 2> /dev/null \
    | head -n "$largest" > "$all.tmp"
  mv "$all.tmp" "$all"
fi

echo "| docs | MB | Spark local[2] | stages (s) | rounds | driver peak RSS | neardup clusters | same as exact components |"
echo "|---|---|---|---|---|---|---|---|"
for n in $sizes; do
  corpus=$work/docs-$n.jsonl
  head -n "$n" "$all" > "$corpus"
  mb=$(awk -v b="$(wc -c < "$corpus")" 'BEGIN { printf "%.0f", b / 1e6 }')
  start=$EPOCHREALTIME
  /usr/bin/time -f '%M' -o "$work/rss" "$venv/bin/spark-submit" --master 'local[2]' \
    --driver-memory 6g --conf spark.ui.enabled=false --conf spark.sql.shuffle.partitions=8 \
    spark/neardup_spark.py --input "$corpus" --output "$work/out-$n" \
    --neardup "$neardup" --stats > "$work/stats" 2> "$work/log" \
    || { cp "$work/log" bench-data/spark-failed.log; grep -m5 -i "error" "$work/log" >&2; exit 1; }
  spark=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  stages=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(", ".join(f"{k} {v}" for k, v in s["seconds"].items()))' "$work/stats")
  rounds=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["component_rounds"])' "$work/stats")
  start=$EPOCHREALTIME
  "$neardup" clusters -q "$corpus" > "$work/single-$n"
  single=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
  # The job's bucket bound and the single machine's --max-candidates differ: compare with
  # the exact components, and say how many documents the single machine's bound moved.
  "$neardup" clusters -q --max-candidates 0 "$corpus" > "$work/exact-$n"
  same=no
  cat "$work/out-$n"/part-* | cmp -s - "$work/exact-$n" && same=yes
  cmp -s "$work/single-$n" "$work/exact-$n" || same="$same (neardup clusters, bounded: differs)"
  echo "| $n | $mb | $spark s | $stages | $rounds | $(($(cat "$work/rss") / 1024)) MiB | $single s | $same |"
done
