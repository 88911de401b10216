#!/usr/bin/env python3
"""Near-duplicate groups on Apache Spark, with neardup doing the per-document work.

    spark-submit scripts/spark/neardup_spark.py --input docs.jsonl --output clusters/ \
        --neardup /path/to/neardup [--id-field id] [--text-field text] \
        [--keep longest --survivors unique/] -- -t 0.8 -n 5

The stages, and who does them (DataFrames throughout: the JVM parses, shuffles and joins;
Python only passes lines between Spark and neardup):

1. read: JSON Lines (or Parquet with --input-format parquet); every row gets its 0-based
   index in input order (from Spark's partition ids and per-partition counts, no sort); ids
   are the --id-field values or, without it, 1-based line numbers (neardup's own default).
2. sign (neardup): each partition is piped through `neardup sign`: one (index, band, key)
   per document and LSH band.
3. candidates (Spark): per bucket (band, key), the members sorted by index; each member is
   paired with the next --bucket-neighbours members (default 32; 0: every pair). A bucket no
   larger than that gives every pair, as on one machine; a larger one (a template posted
   100,000 times) gives pairs linear in its size instead of quadratic, and its members stay
   connected through their neighbours wherever the neighbours verify.
4. verify (neardup): each candidate with both texts through `neardup verify-pairs`, the
   same check as the filter (--verify chain, threshold, weights).
5. components (Spark): the alternating large-star / small-star algorithm (Kiveris et al.,
   "Connected Components in MapReduce and Beyond", SoCC 2014): O(log n) rounds whatever the
   diameter, each round checkpointed so that its plan does not grow.
6. write: one JSON line per document, {"id", "cluster", "size"}, in input order, clusters
   numbered from 1 by their first document as `neardup clusters` numbers them (on one machine
   the output equals `neardup clusters` byte for byte: scripts/spark/test_spark.sh). With
   --keep POLICY --survivors DIR, also the deduplicated dataset: one input row per cluster,
   chosen as `neardup clusters --keep` chooses (first, last, longest, shortest, max:FIELD,
   min:FIELD; ties to the earliest), in input order, as JSON Lines (the lines unchanged) or
   Parquet (as the input).

Everything after `--` is passed to both neardup commands (shingling, K, threshold, seed,
--verify, --weights tfidf --idf FILE with the file readable on every worker). The neardup
binary must exist at the same path on every worker (or be shipped with --files).
"""

import argparse
import json
import shlex
import sys
import time

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--input", required=True, help="JSON Lines file/dir or Parquet dataset")
    p.add_argument("--input-format", choices=["jsonl", "parquet"], default="jsonl")
    p.add_argument("--output", required=True, help="cluster table directory (JSON Lines parts)")
    p.add_argument("--neardup", default="neardup", help="path of the neardup binary")
    p.add_argument("--id-field", default=None, help="id field (default: line number)")
    p.add_argument("--text-field", default="text", help="text field (top-level name)")
    p.add_argument("--partitions", type=int, default=0, help="0: Spark's default")
    p.add_argument("--bucket-neighbours", type=int, default=32,
                   help="pair each bucket member with this many next members (0: all pairs)")
    p.add_argument("--keep", default=None,
                   help="survivor policy: first, last, longest, shortest, max:FIELD, min:FIELD")
    p.add_argument("--survivors", default=None, help="directory for the deduplicated dataset")
    p.add_argument("--checkpoint-dir", default=None,
                   help="reliable checkpoints for the component rounds (default: local ones)")
    p.add_argument("--stats", action="store_true", help="print counts and stage times (JSON)")
    if "--" in argv:
        cut = argv.index("--")
        args = p.parse_args(argv[:cut])
        args.engine = argv[cut + 1 :]
    else:
        args = p.parse_args(argv)
        args.engine = []
    if (args.keep is None) != (args.survivors is None):
        p.error("--keep and --survivors go together")
    return args


def with_index(df):
    """Adds `i`, the row's 0-based position in input order, without a global sort: Spark's
    monotonically increasing id is (partition << 33) + row, and the partitions' row counts
    give each partition's first index."""
    df = df.withColumn("_mid", F.monotonically_increasing_id())
    # Reading files is deterministic, so the ids are the same when the plan runs again.
    df = df.withColumn("_part", F.shiftright("_mid", 33))
    counts = sorted(df.groupBy("_part").count().collect())
    offsets, total = [], 0
    for part, count in counts:
        offsets.append((part, total))
        total += count
    spark = df.sparkSession
    starts = spark.createDataFrame(offsets, "_part long, _start long")
    return (
        df.join(F.broadcast(starts), "_part")
        .withColumn("i", F.col("_start") + F.col("_mid") - F.shiftleft("_part", 33))
        .drop("_mid", "_part", "_start")
    )


def read_documents(spark, args):
    """(i, _id, _text, row, the input's columns) in input order: `row` is what the survivors
    write (the raw line of JSON Lines, the columns of Parquet); `_text` is null where there
    is no text."""
    if args.input_format == "parquet":
        rows = spark.read.parquet(args.input)
        parsed = rows.select("*", F.struct(*rows.columns).alias("row"))
    else:
        lines = spark.read.text(args.input)
        schema = spark.read.json(args.input).schema
        parsed = lines.select(F.col("value").alias("row"), F.from_json("value", schema).alias("j"))
        parsed = parsed.select("row", "j.*")
    text = F.col(args.text_field) if args.text_field in parsed.columns else F.lit(None)
    ident = [F.col(args.id_field).alias("_id")] if args.id_field else []
    # The raw rows and the other columns are held only for the survivors.
    extra = ["row"] + [c for c in parsed.columns if c != "row"] if args.keep else []
    parsed = with_index(parsed.select(text.cast("string").alias("_text"), *ident, *extra))
    if not args.id_field:
        parsed = parsed.withColumn("_id", F.col("i") + 1)
    if args.partitions:
        parsed = parsed.repartition(args.partitions)
    return parsed


def pipe(spark, lines, command, schema):
    """Pipes a one-column DataFrame of lines through `command` on every partition and reads
    its tab-separated output with `schema`."""
    out = lines.rdd.map(lambda r: r[0]).pipe(" ".join(shlex.quote(a) for a in command))
    return spark.read.csv(out, sep="\t", schema=schema)


def sign(spark, docs, args):
    """(i, band, key) of every signed document (lines without words are not documents)."""
    command = [args.neardup, "sign", "--quiet", "--input-format", "jsonl", "--id-field", "i",
               "--on-bad-line", "skip"] + args.engine
    lines = docs.where(F.col("_text").isNotNull()).select(
        F.to_json(F.struct("i", F.col("_text").alias("text"))))
    return pipe(spark, lines, command, "i long, band int, key string")


def candidate_pairs(keys, neighbours):
    """Distinct (a, b), a < b: each bucket member with its next `neighbours` members."""
    buckets = keys.groupBy("band", "key").agg(F.array_sort(F.collect_list("i")).alias("m"))
    buckets = buckets.where(F.size("m") > 1)
    reach = F.size("m") - 1 if neighbours <= 0 else F.least(F.col("p") + neighbours, F.size("m") - 1)
    starts = buckets.select("m", F.explode(F.sequence(F.lit(0), F.size("m") - 2)).alias("p"))
    pairs = starts.select(
        F.explode(
            F.transform(F.sequence(F.col("p") + 1, reach), lambda q: F.struct(
                F.element_at("m", F.col("p") + 1).alias("a"), F.element_at("m", q + 1).alias("b")))
        ).alias("e")
    )
    return pairs.select("e.a", "e.b").distinct()


def verified_edges(spark, docs, pairs, args):
    """The candidates `neardup verify-pairs` verifies, as (a, b)."""
    texts = docs.select("i", "_text")
    both = (
        pairs.join(texts.withColumnRenamed("i", "a").withColumnRenamed("_text", "text_a"), "a")
        .join(texts.withColumnRenamed("i", "b").withColumnRenamed("_text", "text_b"), "b")
        .select(F.to_json(F.struct("a", "b", "text_a", "text_b")))
    )
    command = [args.neardup, "verify-pairs", "--quiet"] + args.engine
    return pipe(spark, both, command, "a long, b long, s double").select("a", "b")


def checkpoint(df, reliable):
    return df.checkpoint() if reliable else df.localCheckpoint()


def components(edges, reliable):
    """(u, root) for every vertex with an edge, root the smallest vertex of its component,
    by alternating large-star and small-star until a large-star changes nothing."""
    e = checkpoint(edges.select(F.least("a", "b").alias("u"), F.greatest("a", "b").alias("v"))
                   .where("u != v").distinct(), reliable)
    rounds = 0
    while True:
        rounds += 1
        # Large-star: every neighbour larger than u joins u's smallest neighbour (or u).
        both = e.union(e.select(F.col("v").alias("u"), F.col("u").alias("v")))
        low = both.groupBy("u").agg(F.least(F.min("v"), F.col("u")).alias("m"))
        large = (both.where("v > u").join(low, "u").select(F.col("v").alias("u"), F.col("m").alias("v")))
        large = checkpoint(large.select(F.least("u", "v").alias("u"), F.greatest("u", "v").alias("v"))
                           .where("u != v").distinct(), reliable)
        changed = large.exceptAll(e).count() + e.exceptAll(large).count()
        # Small-star: u and its smaller neighbours join the smallest of them.
        down = large.select(F.col("v").alias("hi"), F.col("u").alias("lo"))
        low = down.groupBy("hi").agg(F.min("lo").alias("m"))
        small = down.join(low, "hi").select(F.col("lo").alias("x"), "m").union(
            low.select(F.col("hi").alias("x"), "m"))
        e = checkpoint(small.select(F.least("x", "m").alias("u"), F.greatest("x", "m").alias("v"))
                       .where("u != v").distinct(), reliable)
        if changed == 0:
            labels = e.groupBy(F.col("v").alias("i")).agg(F.min("u").alias("root"))
            return labels, rounds


def survivor_order(policy, columns):
    """Window order for --keep: the survivor is the first row; ties go to the earliest."""
    if policy == "first":
        return [F.col("i").asc()]
    if policy == "last":
        return [F.col("i").desc()]
    length = F.length(F.encode("_text", "UTF-8"))
    if policy == "longest":
        return [length.desc_nulls_last(), F.col("i").asc()]
    if policy == "shortest":
        return [length.asc_nulls_last(), F.col("i").asc()]
    kind, _, field = policy.partition(":")
    if kind in ("max", "min") and field in columns:
        value = F.col(field)
        order = value.desc_nulls_last() if kind == "max" else value.asc_nulls_last()
        return [order, F.col("i").asc()]
    raise SystemExit(f"neardup_spark: --keep {policy}: not a policy (or no field {field!r})")


def main(argv):
    args = parse_args(argv)
    spark = SparkSession.builder.appName("neardup").getOrCreate()
    if args.checkpoint_dir:
        spark.sparkContext.setCheckpointDir(args.checkpoint_dir)
    times = {}
    start = time.time()

    def lap(name):
        nonlocal start
        now = time.time()
        times[name] = round(now - start, 2)
        start = now

    docs = read_documents(spark, args).cache()
    lap("read")
    keys = sign(spark, docs, args).cache()
    signed = keys.select("i").distinct()
    lap("sign")
    signed = signed.cache()
    pairs = candidate_pairs(keys, args.bucket_neighbours).cache()
    pair_count = pairs.count()
    keys.unpersist()
    lap("candidates")
    edges = verified_edges(spark, docs, pairs, args).cache()
    edge_count = edges.count()
    pairs.unpersist()
    lap("verify")
    labels, rounds = components(edges, args.checkpoint_dir is not None)
    lap("components")

    # Every signed document's root (itself without an edge); clusters numbered from 1 in
    # order of their first document, as `neardup clusters` numbers them.
    nodes = docs.join(signed, "i")
    rooted = nodes.join(labels, "i", "left").withColumn("root", F.coalesce("root", "i")).cache()
    sizes = rooted.groupBy("root").agg(F.count("*").alias("size"))
    numbered = sizes.select("root").orderBy("root").rdd.map(lambda r: r[0]).zipWithIndex()
    numbers = spark.createDataFrame(numbered, "root long, n long").withColumn("cluster", F.col("n") + 1)
    table = rooted.join(sizes, "root").join(numbers, "root").cache()
    (
        table.orderBy("i")
        .select(F.to_json(F.struct(F.col("_id").alias("id"), "cluster", "size")).alias("value"))
        .write.text(args.output)
    )
    lap("write")
    if args.keep:
        order = survivor_order(args.keep, docs.columns)
        ranked = table.withColumn("rank", F.row_number().over(Window.partitionBy("cluster").orderBy(*order)))
        kept = ranked.where("rank = 1").orderBy("i")
        if args.input_format == "parquet":
            kept.select("row.*").write.parquet(args.survivors)
        else:
            kept.select(F.col("row").alias("value")).write.text(args.survivors)
        lap("survivors")
    if args.stats:
        print(json.dumps({
            "documents": docs.count(),
            "signed": table.count(),
            "candidate_pairs": pair_count,
            "verified_edges": edge_count,
            "component_rounds": rounds,
            "clusters": sizes.count(),
            "seconds": times,
        }))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
