#!/usr/bin/env python3
"""Near-duplicate clusters on Apache Spark, with neardup doing the per-partition work.

    spark-submit scripts/spark/neardup_spark.py --input docs.jsonl --output clusters/ \
        --neardup /path/to/neardup [--id-field id] [--text-field text] -- -t 0.8 -n 5

The stages, and who does them:

1. read: JSON Lines (or Parquet with --input-format parquet) -> (index, id, text); documents
   get an index in input order (zipWithIndex), ids are the --id-field values or, without it,
   the 1-based line number (as neardup's own default ids).
2. sign (neardup, embarrassingly parallel): each partition is piped through `neardup sign`,
   which writes one (index, band, key) per document and LSH band.
3. shuffle (Spark): group by (band, key); every two documents of a bucket are a candidate
   pair; pairs are de-duplicated. The shuffle moves b keys per document.
4. verify (neardup): each candidate is joined with both texts and piped through
   `neardup verify-pairs`, which applies the same check as the filter (--verify chain,
   threshold, weights): the verified edges.
5. group (Spark): connected components by iterated minimum-label propagation over the edges
   (rounds = the longest shortest path in a component, plus one).
6. write: one JSON line per document, {"id", "cluster", "size"}, in input order, with
   clusters numbered from 1 by their first document as `neardup clusters` numbers them; so on one
   machine the output equals `neardup clusters` byte for byte (scripts/spark/test_spark.sh).

Everything after `--` is passed to both neardup commands (shingling, K, threshold, seed,
--verify, --weights tfidf --idf FILE with the file readable on every worker). The neardup
binary must exist at the same path on every worker (or be shipped with --files).
"""

import argparse
import json
import shlex
import sys

from pyspark.sql import SparkSession


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--input", required=True, help="JSON Lines file/dir or Parquet dataset")
    p.add_argument("--input-format", choices=["jsonl", "parquet"], default="jsonl")
    p.add_argument("--output", required=True, help="output directory (JSON Lines parts)")
    p.add_argument("--neardup", default="neardup", help="path of the neardup binary")
    p.add_argument("--id-field", default=None, help="id field (default: line number)")
    p.add_argument("--text-field", default="text", help="text field (top-level name)")
    p.add_argument("--partitions", type=int, default=0, help="0: Spark's default")
    p.add_argument("--stats", action="store_true", help="print counts (JSON) to stdout")
    if "--" in argv:
        cut = argv.index("--")
        args = p.parse_args(argv[:cut])
        args.engine = argv[cut + 1 :]
    else:
        args = p.parse_args(argv)
        args.engine = []
    return args


def read_documents(spark, args):
    """(index, id, text) in input order; index is 0-based, ids are JSON-able values."""
    if args.input_format == "parquet":
        cols = [args.text_field] + ([args.id_field] if args.id_field else [])
        rows = spark.read.parquet(args.input).select(*cols).rdd.map(lambda r: r.asDict())
    else:
        rows = spark.sparkContext.textFile(args.input).map(json.loads)
    id_field, text_field = args.id_field, args.text_field

    def to_doc(row_index):
        row, index = row_index
        doc_id = row.get(id_field) if id_field else index + 1
        return index, doc_id, row.get(text_field)

    docs = rows.zipWithIndex().map(to_doc)
    if args.partitions:
        docs = docs.repartition(args.partitions)
    return docs


def candidate_pairs(docs, neardup, engine):
    """Pipe documents through `neardup sign` and join them on (band, key). Also returns the
    indexes of the documents neardup signed (lines without words are not documents)."""
    sign = [neardup, "sign", "--quiet", "--input-format", "jsonl", "--id-field", "i"]
    sign += ["--on-bad-line", "skip"] + engine
    lines = docs.filter(lambda d: isinstance(d[2], str)).map(
        lambda d: json.dumps({"i": d[0], "text": d[2]})
    )
    keys = lines.pipe(" ".join(shlex.quote(a) for a in sign)).map(
        lambda line: line.split("\t")
    )
    keys = keys.cache()
    signed = keys.map(lambda f: int(f[0])).distinct().map(lambda i: (i, None))
    buckets = keys.map(lambda f: ((int(f[1]), f[2]), int(f[0]))).groupByKey()

    def pairs(members):
        m = sorted(set(members))
        return [(a, b) for i, a in enumerate(m) for b in m[i + 1 :]]

    return buckets.flatMap(lambda kv: pairs(kv[1])).distinct(), signed


def verified_edges(docs, pairs, neardup, engine):
    """Join each pair with both texts and keep what `neardup verify-pairs` verifies."""
    texts = docs.map(lambda d: (d[0], d[2]))
    with_a = pairs.join(texts).map(lambda kv: (kv[1][0], (kv[0], kv[1][1])))
    both = with_a.join(texts).map(
        lambda kv: json.dumps(
            {"a": kv[1][0][0], "b": kv[0], "text_a": kv[1][0][1], "text_b": kv[1][1]}
        )
    )
    verify = [neardup, "verify-pairs", "--quiet"] + engine
    out = both.pipe(" ".join(shlex.quote(a) for a in verify))
    return out.map(lambda line: line.split("\t")).map(lambda f: (int(f[0]), int(f[1])))


def components(edges):
    """vertex -> smallest vertex of its component, for every vertex with an edge."""
    both = edges.flatMap(lambda e: [e, (e[1], e[0])]).distinct().cache()
    labels = both.map(lambda e: (e[0], e[0])).distinct().cache()
    rounds = 0
    while True:
        rounds += 1
        offered = both.join(labels).map(lambda kv: (kv[1][0], kv[1][1]))
        updated = labels.union(offered).reduceByKey(min).cache()
        changed = updated.join(labels).filter(lambda kv: kv[1][0] != kv[1][1]).count()
        labels.unpersist()
        labels = updated
        if changed == 0:
            return labels, rounds


def main(argv):
    args = parse_args(argv)
    spark = SparkSession.builder.appName("neardup").getOrCreate()
    docs = read_documents(spark, args).cache()
    pairs, signed = candidate_pairs(docs, args.neardup, args.engine)
    pairs = pairs.cache()
    # Only documents neardup signed are nodes, as in `neardup clusters`.
    docs = docs.map(lambda d: (d[0], d)).join(signed).map(lambda kv: kv[1][0]).cache()
    edges = verified_edges(docs, pairs, args.neardup, args.engine).cache()
    labels, rounds = components(edges)

    # Every document's component root (itself when it has no edge), then clusters numbered
    # from 1 in order of their first document, as `neardup clusters` numbers them.
    root = docs.map(lambda d: (d[0], d[0])).leftOuterJoin(labels).map(
        lambda kv: (kv[0], kv[1][1] if kv[1][1] is not None else kv[0])
    )
    sizes = root.map(lambda kv: (kv[1], 1)).reduceByKey(lambda a, b: a + b)
    number = sizes.keys().sortBy(lambda r: r).zipWithIndex().mapValues(lambda i: i + 1)
    per_root = sizes.join(number)  # root -> (size, cluster number)
    ids = docs.map(lambda d: (d[0], d[1]))
    rows = (
        root.map(lambda kv: (kv[1], kv[0]))
        .join(per_root)
        .map(lambda kv: (kv[1][0], (kv[1][1][1], kv[1][1][0])))
        .join(ids)
        .sortByKey()
        .map(
            lambda kv: json.dumps(
                {"id": kv[1][1], "cluster": kv[1][0][0], "size": kv[1][0][1]},
                separators=(",", ":"),
                ensure_ascii=False,
            )
        )
    )
    rows.saveAsTextFile(args.output)
    if args.stats:
        print(
            json.dumps(
                {
                    "documents": docs.count(),
                    "candidate_pairs": pairs.count(),
                    "verified_edges": edges.count(),
                    "label_rounds": rounds,
                }
            )
        )
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
