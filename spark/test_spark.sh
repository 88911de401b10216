#!/usr/bin/env bash
# Runs spark/neardup_spark.py with PySpark in local mode (local[2]) on the bundled
# Reuters sample and checks that its clusters equal `neardup clusters` byte for byte, for
# several engine settings, and that its deduplicated dataset equals `neardup clusters
# --keep`. PySpark (with pyarrow and pandas) comes from PyPI into a venv (target/spark-venv);
# Java 17 must be installed. The same on a real cluster: spark/test_cluster.sh.
# Usage: spark/test_spark.sh [path/to/neardup]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=spark/cluster.sh
. spark/cluster.sh
neardup=$(spark_neardup "${1:-}")
spark_venv
corpus=tests/data/reuters-sample.jsonl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Spark's scratch (the files shipped with --files, shuffle blocks) inside $work, removed with
# it: by default it stays in /tmp, about 250 MB a run with a debug build of neardup.
export SPARK_LOCAL_DIRS="$work/spark-local"
mkdir -p "$SPARK_LOCAL_DIRS"
"$neardup" idf "$corpus" > "$work/sample.idf"

# check NAME IDFIELD [ENGINE FLAGS...]: the job on $input (format $input_format) against
# `neardup clusters` on the JSON Lines corpus.
input=$corpus input_format=jsonl
check() {
    local name=$1 idfield=$2; shift 2
    local idargs=()
    [ -n "$idfield" ] && idargs=(--id-field "$idfield")
    "$neardup" clusters "${idargs[@]}" "$@" "$corpus" > "$work/$name.expected"
    local start=$SECONDS
    "$venv/bin/spark-submit" --master 'local[2]' --conf spark.ui.enabled=false \
        --conf spark.default.parallelism=2 \
        spark/neardup_spark.py --input "$input" --input-format "$input_format" \
        --output "$work/$name.out" \
        --neardup "$neardup" "${idargs[@]}" --stats -- "$@" > "$work/$name.stats" \
        2> "$work/$name.log" || { cat "$work/$name.log" >&2; exit 1; }
    cat "$work/$name.out"/part-* > "$work/$name.got"
    local groups
    groups=$(grep -vc '"size":1}' "$work/$name.expected" || true)
    if cmp -s "$work/$name.expected" "$work/$name.got"; then
        echo "spark $name: same clusters as neardup clusters ($(wc -l < "$work/$name.got") documents, $groups in groups of 2+; $((SECONDS - start)) s; $(grep '^{' "$work/$name.stats"))"
    else
        echo "spark $name: clusters differ from neardup clusters" >&2
        diff "$work/$name.expected" "$work/$name.got" | head -20 >&2
        exit 1
    fi
}

check default ""
check ids-t0.5 id -t 0.5
check edit id -t 0.5 --verify jaccard,edit --max-edit 0.3
check tfidf id -t 0.6 --weights tfidf --idf "$work/sample.idf"

# The deduplicated dataset: one line per cluster, as `neardup clusters --keep` writes it.
keep() {
    local policy=$1; shift
    "$neardup" clusters --id-field id --keep "$policy" "$@" "$corpus" > "$work/keep.expected"
    "$venv/bin/spark-submit" --master 'local[2]' --conf spark.ui.enabled=false \
        --conf spark.default.parallelism=2 \
        spark/neardup_spark.py --input "$corpus" --output "$work/keep-$policy.clusters" \
        --keep "$policy" --survivors "$work/keep-$policy.out" \
        --neardup "$neardup" --id-field id -- "$@" 2> "$work/keep.log" \
        || { cat "$work/keep.log" >&2; exit 1; }
    cat "$work/keep-$policy.out"/part-* > "$work/keep.got"
    if cmp -s "$work/keep.expected" "$work/keep.got"; then
        echo "spark --keep $policy: same survivors as neardup clusters --keep ($(wc -l < "$work/keep.got") lines)"
    else
        echo "spark --keep $policy: survivors differ from neardup clusters --keep" >&2
        diff "$work/keep.expected" "$work/keep.got" | head -10 >&2
        exit 1
    fi
}
keep longest -t 0.5
keep max:date -t 0.5

# The same corpus as Parquet (one file, rows in input order).
"$venv/bin/python" - "$corpus" "$work/sample.parquet" <<'PY'
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
spark.read.json(sys.argv[1]).select("id", "text").coalesce(1).write.parquet(sys.argv[2])
spark.stop()
PY
input=$work/sample.parquet input_format=parquet
check parquet id -t 0.5
