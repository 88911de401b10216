#!/usr/bin/env bash
# The Spark job on a real standalone cluster: a master and two workers on 127.0.0.1
# (spark/cluster.sh, from the pip pyspark; Java 17), the neardup binary and an IDF
# table shipped to the executors with spark-submit --files (tf-idf weights). Checks that the
# job's clusters equal `neardup clusters` on the bundled Reuters sample, then runs it again
# and kills worker 2 and its executor (SIGKILL) once the candidates step has started (the
# signed table cached on both executors, a shuffle under way), so that Spark must re-run lost
# tasks and re-compute lost cached partitions, and checks the output again. Always stops
# what it started.
# Usage: spark/test_cluster.sh [path/to/neardup]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=spark/cluster.sh
. spark/cluster.sh
neardup=$(spark_neardup "${1:-}")
spark_venv
corpus=tests/data/reuters-sample.jsonl
work=$(mktemp -d)
trap 'cluster_stop; rm -rf "$work"' EXIT
# Spark's scratch (the files shipped with --files, shuffle blocks) inside $work, removed with
# it: by default it stays in /tmp, about 250 MB a run with a debug build of neardup.
export SPARK_LOCAL_DIRS="$work/spark-local"
mkdir -p "$SPARK_LOCAL_DIRS"
cluster_start "$work/cluster"
# The binary and an IDF table reach the executors by --files, named by their file names.
"$neardup" idf "$corpus" > "$work/sample.idf"
engine=(-t 0.5 --weights tfidf --idf sample.idf)
"$neardup" clusters -t 0.5 --weights tfidf --idf "$work/sample.idf" "$corpus" > "$work/expected"

# job NAME: the job on the cluster, in the background ($job_pid), its log in $work/NAME.log.
job() {
  local name=$1
  # Both executors up before the first task, so that both hold work when one is killed.
  "$venv/bin/spark-submit" --master "$master" --conf spark.ui.enabled=false \
    --conf spark.scheduler.minRegisteredResourcesRatio=1 \
    --executor-memory 1g --files "$neardup,$work/sample.idf" \
    spark/neardup_spark.py --input "$corpus" --output "$work/$name.out" \
    --neardup "$(basename "$neardup")" -- "${engine[@]}" > /dev/null 2> "$work/$name.log" &
  job_pid=$!
}

# check NAME: the job's clusters against `neardup clusters`.
check() {
  local name=$1
  if ! wait "$job_pid"; then
    echo "spark cluster $name: the job failed; its log ends:" >&2
    grep -v " INFO " "$work/$name.log" | tail -20 >&2
    exit 1
  fi
  if cat "$work/$name.out"/part-* | cmp -s "$work/expected" -; then
    echo "spark cluster $name: same clusters as neardup clusters ($(wc -l < "$work/expected") documents)"
  else
    echo "spark cluster $name: clusters differ from neardup clusters" >&2
    cat "$work/$name.out"/part-* | diff "$work/expected" - | head -10 >&2
    exit 1
  fi
}

job whole
check whole

job lost-worker
# Mid-job: once the candidates step has started (its first count: the signed table is cached
# on both executors, and the bucket shuffle is under way).
for _ in $(seq 1200); do
  grep -q "Got job .* (count at" "$work/lost-worker.log" 2> /dev/null && break
  sleep 0.1
done
cluster_kill_worker 2
check lost-worker
lost=$(grep -c "Lost task\|Resubmitted\|FetchFailed\|Lost executor" "$work/lost-worker.log" || true)
if [ "$lost" -gt 0 ]; then
  echo "spark cluster lost-worker: the driver lost the executor and re-ran its work ($lost log lines say so)"
else
  echo "spark cluster lost-worker: the driver never saw the executor go" >&2
  exit 1
fi
