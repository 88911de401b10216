#!/usr/bin/env bash
# The Spark job on a standalone cluster on loopback (one master, two workers of one core and
# 3 GB each, spark/cluster.sh), at several sizes of ordinary text (the peer corpus
# rewritten round after round, bench-data/rounds-1000000.jsonl, ~1.45 KB a document): wall
# seconds of spark-submit end to end (session start included, cluster start not), the job's
# own step times, Spark's metrics by step (spark/stage_report.py on the event log),
# whether the clusters equal `neardup clusters` on the same file (and its time) and the exact
# components (`neardup clusters --max-candidates 0`); then the
# marginal rate between the smallest and the second size, and one more run of the smallest
# size with worker 2 and its executor killed (SIGKILL) mid-job. A benchmark, not a test.
#
# Usage: spark/bench_cluster.sh [SIZES]   (default "40000 160000 640000")
#        JOB=path/to/other_job.py spark/bench_cluster.sh   (another version of the job)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-40000 160000 640000}
job=${JOB:-spark/neardup_spark.py}
cargo build --release --quiet
neardup=$PWD/target/release/neardup
# shellcheck source=spark/cluster.sh
. spark/cluster.sh
spark_venv
work=$(mktemp -d)
trap 'cluster_stop; rm -rf "$work"' EXIT
cluster_start "$work/cluster"

source=bench-data/rounds-1000000.jsonl
if [ ! -s "$source" ]; then
  echo "bench_cluster: $source is made by scripts/bench-memory.sh (SIZES=1000000 CORPORA=rounds)" >&2
  exit 1
fi

# run N TAG [KILL]: the job on the first N documents; KILL=1 kills worker 2 mid-job.
run() {
  local n=$1 tag=$2 kill=${3:-0} corpus=bench-data/cluster-$1.jsonl
  [ -s "$corpus" ] || head -n "$n" "$source" > "$corpus"
  mkdir -p "$work/events-$tag"
  local start=$EPOCHREALTIME
  "$venv/bin/spark-submit" --master "$master" --conf spark.ui.enabled=false \
    --executor-memory 2g --driver-memory 4g --conf spark.scheduler.minRegisteredResourcesRatio=1 \
    --conf spark.eventLog.enabled=true --conf spark.eventLog.compress=false \
    --conf "spark.eventLog.dir=$work/events-$tag" \
    "$job" --input "$corpus" --output "$work/out-$tag" --neardup "$neardup" --stats \
    > "$work/stats-$tag" 2> "$work/log-$tag" &
  local pid=$!
  if [ "$kill" = 1 ]; then
    # Mid-job: once the candidates step has started (the signed table cached on both
    # executors, the bucket shuffle under way), as spark/test_cluster.sh does.
    for _ in $(seq 1200); do
      grep -q "Got job .* (count at" "$work/log-$tag" 2> /dev/null && break
      sleep 0.1
    done
    cluster_kill_worker 2
  fi
  wait "$pid" || { cp "$work/log-$tag" bench-data/spark-cluster-failed.log; tail -20 "$work/log-$tag" >&2; return 1; }
  seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  "$neardup" clusters -q "$corpus" > "$work/expected-$n"
  local t0=$EPOCHREALTIME
  "$neardup" clusters -q -j 2 "$corpus" > /dev/null
  single=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
  same=no
  cat "$work/out-$tag"/part-* | cmp -s - "$work/expected-$n" && same=yes
  # The job's bucket bound and the binary's --max-candidates differ where buckets are large:
  # the exact components (every candidate verified) say which is nearer.
  [ -s "$work/exact-$n" ] || "$neardup" clusters -q --max-candidates 0 "$corpus" > "$work/exact-$n"
  exact=no
  cat "$work/out-$tag"/part-* | cmp -s - "$work/exact-$n" && exact=yes
  cmp -s "$work/expected-$n" "$work/exact-$n" && exact="$exact (neardup clusters: yes)"
  steps=$(python3 -c 'import json,sys; s=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(", ".join(f"{k} {v}" for k, v in s["seconds"].items()))' "$work/stats-$tag")
  echo "| $n | $seconds s | $steps | $single s | $same | $exact |"
  python3 spark/stage_report.py "$work/events-$tag"/* > "$work/report-$tag"
}

echo "| docs | job on the cluster | steps (s) | neardup clusters -j 2 | same as neardup clusters | same as exact components |"
echo "|---|---|---|---|---|---|"
declare -A took
for n in $sizes; do
  run "$n" "$n"
  took[$n]=$seconds
done
read -r first second _ <<< "$sizes"
if [ -n "${second:-}" ]; then
  awk -v a="$first" -v b="$second" -v ta="${took[$first]}" -v tb="${took[$second]}" \
    'BEGIN { printf "\nmarginal rate %d -> %d: %.0f docs/s; fixed cost (the %d run): %.1f s\n", a, b, (b - a) / (tb - ta), a, ta }'
fi
echo
echo "worker 2 and its executor killed mid-job:"
run "$first" "$first-kill" 1
echo "($(grep -c "Lost task\|Resubmitted\|FetchFailed\|Lost executor" "$work/log-$first-kill" || true) driver log lines on the loss and the work re-run)"
for n in $sizes; do
  echo
  echo "Spark's metrics by step, $n documents:"
  cat "$work/report-$n"
done
