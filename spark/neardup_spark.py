#!/usr/bin/env python3
"""Near-duplicate groups on Apache Spark, with neardup doing the per-document work.

    spark-submit [--files /path/to/neardup] spark/neardup_spark.py \
        --input docs.jsonl --output clusters/ --neardup /path/to/neardup \
        [--id-field id] [--text-field text] [--keep longest --survivors unique/] -- -t 0.8 -n 5

The output equals `neardup clusters` on the same file (same flags after `--`), byte for byte:
one JSON line per document, {"id", "cluster", "size"}, in input order, clusters numbered from
1 by their first document. The steps (each a Spark job description, so that Spark's event
log and UI name them; spark/stage_report.py sums them):

1. sign: the input's lines are read as text (never parsed in the JVM) in input order; each
   partition streams its lines through `neardup sign` in a subprocess of the Python worker,
   over Arrow batches (`mapInArrow`): neardup parses the JSON, takes the text and id fields
   and applies its bad-line policy exactly as `neardup clusters` does. Out comes one row a
   line: its position `mid` (Spark's monotonically increasing id: partition << 33 | row),
   and for a document its id as neardup writes it, its rank among the partition's documents
   and its LSH band keys (64-bit). The table is cached: it is small (no text).
2. candidates: per bucket (band, key), the members sorted by position; each member is paired
   with its next --bucket-neighbours members (default 128; 0: all pairs), a quarter as many
   in buckets of more than --large-bucket (256) members. Small buckets give every pair, as
   on one machine; a template posted 100,000 times gives pairs linear in its size, and its
   members stay connected through their neighbours.
3. verify: each pair goes to the partition of its first document, and each partition gets
   the text of every document its pairs name, once (the lines of documents in no pair are
   dropped where they are read, by a broadcast semi-join); `neardup verify-pairs` holds
   those documents and takes the pairs by id: the same decision as the filter (--verify
   chain, threshold, weights), a text shingled once a partition rather than once a pair.
4. components: the verified edges are collected on the driver (--driver-edges at most; a
   union-find, near-linear); above that, the large-star / small-star rounds of Kiveris et
   al. ("Connected Components in MapReduce and Beyond", SoCC 2014) run on the cluster and
   only each grouped document's root comes back. Either way the driver holds one entry per
   document in a group of two or more, never one per document.
5. write: one pass over the cached table, partition by partition (no sort, no shuffle: the
   partitions are the input's, in order), numbering each cluster by its first document from
   the per-partition counts. With --keep POLICY --survivors DIR, also the deduplicated
   dataset: one input row per cluster, chosen as `neardup clusters --keep` chooses (first,
   last, longest, shortest, max:FIELD, min:FIELD; ties to the earliest), in input order: the
   lines unchanged (JSON Lines) or the rows (Parquet); only the dropped rows are broadcast.

The neardup binary runs on every executor: give its path there with --neardup, or ship it
with spark-submit --files and name it by its file name (--neardup neardup). Everything after
`--` goes to both neardup commands (shingling, K, threshold, seed, --verify, --weights tfidf
--idf FILE); a file they name is read on the executors: at that path, or, named by its file
name alone, where spark-submit --files put it.
"""

import argparse
import bisect
import json
import os
import shlex
import subprocess
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
from pyspark import SparkFiles
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

ROW_BITS = 33  # monotonically_increasing_id(): partition << 33 | row within the partition
ROW_MASK = (1 << ROW_BITS) - 1


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--input", required=True, help="JSON Lines file/dir or Parquet dataset")
    p.add_argument("--input-format", choices=["jsonl", "parquet"], default="jsonl")
    p.add_argument("--output", required=True, help="cluster table directory (JSON Lines parts)")
    p.add_argument("--neardup", default="neardup",
                   help="the neardup binary on the executors (a path, or the name of a file "
                        "shipped with --files)")
    p.add_argument("--id-field", default=None,
                   help="id field (default, as neardup's: 'id' when each of the first 32 "
                        "lines has one that is a string or an integer, else the line number; "
                        "'none': the line number)")
    p.add_argument("--text-field", default="text", help="text field (top-level name)")
    p.add_argument("--partitions", type=int, default=0,
                   help="input partitions (default: twice Spark's default parallelism)")
    p.add_argument("--bucket-neighbours", type=int, default=128,
                   help="pair each bucket member with this many next members (0: all pairs)")
    p.add_argument("--large-bucket", type=int, default=256,
                   help="in buckets of more members (a template's), a quarter as many")
    p.add_argument("--driver-edges", type=int, default=20_000_000,
                   help="verified edges joined into groups on the driver at most; more go "
                        "through rounds on the cluster")
    p.add_argument("--keep", default=None,
                   help="survivor policy: first, last, longest, shortest, max:FIELD, min:FIELD")
    p.add_argument("--survivors", default=None, help="directory for the deduplicated dataset")
    p.add_argument("--checkpoint-dir", default=None,
                   help="reliable checkpoints for the cluster rounds (default: local ones)")
    p.add_argument("--stats", action="store_true", help="print counts and step times (JSON)")
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


# --- neardup in a subprocess of the Python worker --------------------------------------------


def shipped(name):
    """A file named without a directory and shipped with spark-submit --files: its path on
    this executor (None otherwise)."""
    if os.path.sep in name or not os.path.exists(SparkFiles.get(name)):
        return None
    return SparkFiles.get(name)


def on_executor(command):
    """`command` with the binary and the files it names (`--idf FILE`, `--against FILE`,
    `--stop-words FILE`…) found where --files put them on this executor, when they were
    shipped that way; paths are left as given."""
    path = shipped(command[0])
    if path and not os.access(path, os.X_OK):
        os.chmod(path, 0o755)
    resolved = [path or command[0]]
    for arg in command[1:]:
        flag, eq, value = arg.partition("=")
        if eq and flag.startswith("--") and shipped(value):
            resolved.append(f"{flag}={shipped(value)}")
        else:
            resolved.append(shipped(arg) if not arg.startswith("-") and shipped(arg) else arg)
    return resolved


class Piped:
    """`command` fed by a thread with the lines `feed()` yields, its standard output read by
    the caller; a failed command raises with the end of its standard error, so that Spark
    retries the task and, when it fails again, the job says why."""

    def __init__(self, command, feed):
        self.command = command
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.error = None
        self.stderr = b""
        self.writer = threading.Thread(target=self._write, args=(feed,), daemon=True)
        self.writer.start()
        self.err_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self.err_reader.start()

    def _write(self, feed):
        try:
            for chunk in feed:
                self.proc.stdin.write(chunk)
        except BrokenPipeError:
            pass  # the command ended early: its exit status says why
        except BaseException as e:  # an input error: the task must fail, not truncate
            self.error = e
        finally:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass

    def _read_stderr(self):
        self.stderr = self.proc.stderr.read()

    def finish(self):
        self.writer.join()
        self.err_reader.join()
        code = self.proc.wait()
        if self.error is not None:
            raise self.error
        if code != 0:
            tail = self.stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
            raise RuntimeError(f"{' '.join(self.command)} exited with {code}: " + " / ".join(tail))


def lines_of(batches, column, positions=None):
    """Bytes to write for the `column` of each batch, one line a row; the rows' positions
    go to `positions` as they are written."""
    for batch in batches:
        values = batch.column(column).to_pylist()
        if positions is not None:
            positions.extend(batch.column("mid").to_pylist())
        yield ("\n".join(values) + "\n").encode("utf-8") if values else b""


SIGNED = "mid long, id string, k long, keys array<long>"


def sign_partition(command):
    """mapInArrow: the lines (mid, value) of one partition -> one row a line (SIGNED); a
    line that is not a document (no text, bad JSON, no words) has null id, k and keys."""

    def run(batches):
        positions = []
        piped = Piped(on_executor(command), lines_of(batches, "value", positions))
        decoder = json.JSONDecoder()
        mids, ids, ks, ends, missing, hexes = [], [], [], [0], [], []
        done = signed = 0  # lines accounted for, documents among them

        def add(mid, ident, k, keys):
            mids.append(mid)
            ids.append(ident)
            ks.append(k)
            missing.append(keys is None)
            if keys is not None:
                hexes.append(keys)
            ends.append(ends[-1] + (len(keys) // 16 if keys else 0))

        def flush():
            # 16 hex digits a key, read as the 8 bytes of an int64 and mixed with its band's
            # salt: one 64-bit bucket id a band key, so that buckets group on one column.
            values = np.frombuffer(bytes.fromhex("".join(hexes)), dtype=np.int64)
            if len(values):
                values = (values.reshape(len(hexes), -1) ^ band_salt(len(values) // len(hexes)))
            keys = pa.ListArray.from_arrays(pa.array(ends, pa.int32()),
                                            pa.array(values.reshape(-1), pa.int64()),
                                            mask=pa.array(missing))
            batch = pa.RecordBatch.from_arrays(
                [pa.array(mids, pa.int64()), pa.array(ids, pa.string()),
                 pa.array(ks, pa.int64()), keys], ["mid", "id", "k", "keys"])
            for column in (mids, ids, ks, missing, hexes):
                column.clear()
            ends[:] = [0]
            return batch

        for raw in piped.proc.stdout:
            # {"id":ID,"line":N,"bands":["16 hex digits",...]}: ID exactly as neardup
            # writes it (the output copies it).
            text = raw.decode("utf-8")
            _, end = decoder.raw_decode(text, 6)
            rest = text[end:]
            line = int(rest[8 : rest.index(",", 8)])
            for unsigned in range(done, line - 1):
                add(positions[unsigned], None, None, None)
            start = rest.index("[") + 1
            keys = rest[start : rest.index("]", start)].replace('"', "").replace(",", "")
            add(positions[line - 1], text[6:end], signed, keys)
            signed += 1
            done = line
            if len(mids) >= 8192:
                yield flush()
        piped.finish()
        for unsigned in range(done, len(positions)):
            add(positions[unsigned], None, None, None)
        if mids:
            yield flush()

    return run


def band_salt(bands):
    """A distinct odd 64-bit constant a band (multiples of the golden-ratio constant)."""
    return (np.arange(1, bands + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)).view(np.int64)


def bucket_pairs(neighbours, large):
    """mapInArrow: (key, mid) rows, all of a key in one partition -> candidate (a, b), a < b:
    each bucket member, in order of position, with its next `neighbours` members (0: all),
    a quarter as many in a bucket of more than `large` members: there the pairs are what
    costs (a template's bucket holds every posting of it), in smaller ones reach is what
    finds the one match a document has among many that share its boilerplate."""

    def run(batches):
        table = pa.Table.from_batches(list(batches))
        if table.num_rows < 2:
            return
        table = table.take(pc.sort_indices(table, [("key", "ascending"), ("mid", "ascending")]))
        keys = table.column("key").to_numpy()
        mids = table.column("mid").to_numpy()
        starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
        sizes = np.diff(np.append(starts, len(keys)))
        a, b = [], []
        for start, size in zip(starts[sizes > 1], sizes[sizes > 1]):
            members = mids[start : start + size]
            reach = neighbours if size <= large else max(1, neighbours // 4)
            reach = size - 1 if neighbours <= 0 else min(reach, size - 1)
            for step in range(1, reach + 1):
                a.append(members[:-step])
                b.append(members[step:])
        if a:
            yield pa.RecordBatch.from_arrays(
                [pa.array(np.concatenate(a)), pa.array(np.concatenate(b))], ["a", "b"])

    return run


def verify_partition(command):
    """mapInArrow: candidate pairs as verify-pairs JSON lines (value) -> verified (a, b)."""

    def run(batches):
        piped = Piped(on_executor(command), lines_of(batches, "value"))
        out = piped.proc.stdout.read()
        piped.finish()
        if out:
            table = pacsv.read_csv(
                pa.py_buffer(out),
                read_options=pacsv.ReadOptions(column_names=["a", "b", "s"]),
                parse_options=pacsv.ParseOptions(delimiter="\t"),
                convert_options=pacsv.ConvertOptions(
                    column_types={"a": pa.int64(), "b": pa.int64(), "s": pa.float64()}))
            yield from table.select(["a", "b"]).to_batches()

    return run


# --- the steps ------------------------------------------------------------------------------


def read_lines(spark, args):
    """(mid, value): every input line (JSON Lines) or row (Parquet, as a JSON object of its
    text and id), in input order. Reading is deterministic, so a second read gives every
    line the same mid."""
    if args.input_format == "parquet":
        rows = spark.read.parquet(args.input)
        fields = [F.col(args.text_field).cast("string").alias(args.text_field)]
        if args.id_field:
            fields.append(F.col(args.id_field))
        lines = rows.select(F.to_json(F.struct(*fields)).alias("value"))
    else:
        # LF only: a lone CR is not a line break to neardup.
        lines = spark.read.option("lineSep", "\n").text(args.input)
    return lines.select(F.monotonically_increasing_id().alias("mid"), "value")


def own_ids(spark, args):
    """Whether the input's first lines (up to 32 that are not blank) each hold an `id` that
    is a string or an integer: neardup's rule for ids when no --id-field is given."""
    looked = 0
    for row in read_lines(spark, args).limit(64).collect():
        if looked == 32:
            break
        if not row.value.strip():
            continue
        looked += 1
        try:
            value = json.loads(row.value)
        except ValueError:
            return False
        ident = value.get("id") if isinstance(value, dict) else None
        if not isinstance(ident, str) and (not isinstance(ident, int) or isinstance(ident, bool)):
            return False
    return looked > 0


def sign(spark, args):
    command = [args.neardup, "sign", "--quiet", "--format", "jsonl", "--input-format", "jsonl",
               "--field", args.text_field, "--on-bad-line", "skip"]
    # Every partition numbers by the same rule: the one decided above, never its own.
    command += ["--id-field", args.id_field or "none"]
    return read_lines(spark, args).mapInArrow(sign_partition(command + args.engine), SIGNED)


def candidate_pairs(signed, neighbours, large):
    """Distinct (a, b), a < b: each bucket member with its next `neighbours` members. The
    keys go to their partition by a hash shuffle and each partition is sorted in Arrow:
    no object aggregation of member lists in the JVM."""
    keys = signed.where(F.col("keys").isNotNull()).select(F.explode("keys").alias("key"), "mid")
    spark = signed.sparkSession
    parts = int(spark.conf.get("spark.sql.shuffle.partitions"))
    pairs = keys.repartition(parts, "key").mapInArrow(bucket_pairs(neighbours, large),
                                                      "a long, b long")
    return pairs.distinct()


def text_of(args):
    """The text field of a line, as verify-pairs takes it."""
    field = json.dumps(args.text_field)[1:-1].replace("`", "``")
    return F.from_json("value", f"`{field}` STRING").getField(args.text_field)


def verified_edges(spark, pairs, args):
    """The candidates `neardup verify-pairs` verifies, as (a, b). Each pair goes to the
    partition of its first document; each partition gets the text of every document its
    pairs name once, then the pairs by id (verify-pairs holds the documents), so a text
    crosses the shuffle and is shingled once a partition, not once a pair."""
    parts = int(spark.conf.get("spark.sql.shuffle.partitions"))
    # F.hash is the hash of Spark's own hash partitioning: every row whose k hashes as a
    # pair's `a` lands in that pair's partition.
    pairs = pairs.withColumn("p", F.pmod(F.hash("a"), F.lit(parts)))
    need = (
        pairs.select("p", "a", F.col("a").alias("mid"))
        .union(pairs.select("p", "a", F.col("b").alias("mid")))
        .groupBy("p", "mid").agg(F.min("a").alias("k"))
    )
    ends = need.select("mid").distinct()
    # The lines of documents in no pair are dropped where they are read.
    lines = read_lines(spark, args).join(F.broadcast(ends), "mid", "left_semi")
    texts = lines.select("mid", text_of(args).alias("t"))
    document = F.to_json(F.struct(F.col("mid").alias("id"), F.col("t").alias("text")))
    docs = need.join(texts, "mid").select("k", F.lit(0).alias("o"), document.alias("value"))
    named = pairs.select(F.col("a").alias("k"), F.lit(1).alias("o"),
                         F.to_json(F.struct("a", "b")).alias("value"))
    rows = docs.union(named).repartition(parts, "k").sortWithinPartitions("o", "k")
    # Every line is the job's own: one that is not a candidate is a fault, not data.
    command = [args.neardup, "verify-pairs", "--quiet", "--on-bad-line", "fail"] + args.engine
    return rows.select("value").mapInArrow(verify_partition(command), "a long, b long")


def union_find(edges):
    """{vertex: root} for every vertex of (a, b) edges, root the smallest of its component."""
    parent = {}

    def find(x):
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:
            parent[x], x = root, parent[x]
        return root

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            if ra < rb:
                parent[rb] = ra
            else:
                parent[ra] = rb
        parent.setdefault(a, a)
        parent.setdefault(b, b)
    return {v: find(v) for v in parent}


def checkpoint(df, reliable):
    return df.checkpoint() if reliable else df.localCheckpoint()


def star_rounds(edges, reliable):
    """(v, root) for every vertex with an edge, root the smallest vertex of its component,
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
            labels = e.groupBy(F.col("v").alias("mid")).agg(F.min("u").alias("root"))
            return labels, rounds


def components(edges, edge_count, args):
    """({vertex: root} for every document with an edge, cluster rounds run)."""
    if edge_count <= args.driver_edges:
        table = edges.toArrow()
        return union_find(zip(table.column("a").to_pylist(), table.column("b").to_pylist())), 0
    labels, rounds = star_rounds(edges, args.checkpoint_dir is not None)
    table = labels.toArrow()
    roots = dict(zip(table.column("mid").to_pylist(), table.column("root").to_pylist()))
    roots.update((r, r) for r in set(roots.values()))
    return roots, rounds


class Numbering:
    """Cluster numbers and sizes from the per-partition counts: a cluster's number is the
    count of clusters whose first document comes no later than its own first document, i.e.
    the documents up to it less the grouped documents before it that are not first."""

    def __init__(self, counts, root_of, root_rank):
        # counts: {partition: (lines, documents)}
        self.line_base, self.doc_base = {}, {}
        lines = docs = 0
        for part in sorted(counts):
            self.line_base[part], self.doc_base[part] = lines, docs
            lines += counts[part][0]
            docs += counts[part][1]
        self.root_of = root_of
        self.later = sorted(v for v, r in root_of.items() if v != r)  # grouped, not first
        sizes = {}
        for r in root_of.values():
            sizes[r] = sizes.get(r, 0) + 1
        self.size = sizes
        # root -> its rank among documents, from (partition, rank in partition)
        self.number = {r: self.cluster_of(r, root_rank[r]) for r in sizes}

    @classmethod
    def of_state(cls, state):
        """A Numbering from `vars()` of one (plain data, which a broadcast can carry)."""
        numbering = cls.__new__(cls)
        numbering.__dict__.update(state)
        return numbering

    def cluster_of(self, mid, k):
        """The number of the cluster a document `mid`, the partition's k-th, would start."""
        before = self.doc_base[mid >> ROW_BITS] + k
        return before - bisect.bisect_left(self.later, mid) + 1


def write_partition(shared, id_field):
    """mapInArrow: the cached table -> `{"id","cluster","size"}` lines of its documents.
    `shared` is the Numbering's state as a broadcast variable: sent once to each executor, not
    with every task."""

    def run(batches):
        numbering = Numbering.of_state(shared.value)
        for batch in batches:
            out = []
            for mid, ident, k in zip(*(batch.column(c).to_pylist() for c in ("mid", "id", "k"))):
                if k is None:
                    continue
                root = numbering.root_of.get(mid)
                if root is None:
                    cluster, size = numbering.cluster_of(mid, k), 1
                else:
                    cluster, size = numbering.number[root], numbering.size[root]
                if not id_field:
                    ident = numbering.line_base[mid >> ROW_BITS] + (mid & ROW_MASK) + 1
                out.append(f'{{"id":{ident},"cluster":{cluster},"size":{size}}}')
            if out:
                yield pa.RecordBatch.from_arrays([pa.array(out, pa.string())], ["value"])

    return run


def survivor_order(policy):
    """Window order for --keep: the survivor is the first row; ties go to the earliest."""
    if policy == "first":
        return [F.col("mid").asc()]
    if policy == "last":
        return [F.col("mid").desc()]
    length = F.length(F.encode("t", "UTF-8"))
    if policy == "longest":
        return [length.desc_nulls_last(), F.col("mid").asc()]
    if policy == "shortest":
        return [length.asc_nulls_last(), F.col("mid").asc()]
    kind, _, field = policy.partition(":")
    if kind in ("max", "min") and field:
        value = F.col(f"row.`{field}`")
        order = value.desc_nulls_last() if kind == "max" else value.asc_nulls_last()
        return [order, F.col("mid").asc()]
    raise SystemExit(f"neardup_spark: --keep {policy}: not a policy")


def write_survivors(spark, args, signed, root_of):
    """One input row a cluster: every ungrouped document, and each group's survivor."""
    grouped = spark.createDataFrame(list(root_of.items()), "mid long, root long")
    if args.input_format == "parquet":
        rows = spark.read.parquet(args.input)
        rows = rows.select(F.monotonically_increasing_id().alias("mid"), "*")
        lines = rows.select("mid", F.col(args.text_field).cast("string").alias("t"),
                            F.struct(*[F.col(f"`{c}`") for c in rows.columns[1:]]).alias("row"))
    else:
        raw = read_lines(spark, args)
        lines = raw.select("mid", text_of(args).alias("t"), F.col("value").alias("line"))
        kind, _, field = args.keep.partition(":")
        if kind in ("max", "min"):
            schema = spark.read.json(raw.join(F.broadcast(grouped), "mid", "left_semi")
                                     .select("value").rdd.map(lambda r: r[0])).schema
            if field not in schema.fieldNames():
                raise SystemExit(f"neardup_spark: --keep {args.keep}: no field {field!r}")
            lines = lines.withColumn("row", F.from_json("line", schema))
    members = lines.join(F.broadcast(grouped), "mid")
    order = survivor_order(args.keep)
    rank = F.row_number().over(Window.partitionBy("root").orderBy(*order))
    kept = {r.mid for r in members.withColumn("r", rank).where("r = 1").select("mid").collect()}
    # Dropped: lines that are not documents, and group members that do not survive.
    dropped = [r.mid for r in signed.where(F.col("k").isNull()).select("mid").toLocalIterator()]
    dropped += [v for v in root_of if v not in kept]
    gone = spark.createDataFrame([(m,) for m in dropped], "mid long")
    survivors = lines.join(F.broadcast(gone), "mid", "left_anti")
    if args.input_format == "parquet":
        survivors.select("row.*").write.parquet(args.survivors)
    else:
        survivors.select(F.col("line").alias("value")).write.text(args.survivors)


def settle_partitions(spark, args):
    """Input split into twice the cluster's cores (or --partitions) pieces of at most 128 MB,
    so that every core signs from the start; shuffles the same unless set by the user."""
    sc = spark.sparkContext
    want = args.partitions or 2 * sc.defaultParallelism
    jvm = sc._jvm
    path = jvm.org.apache.hadoop.fs.Path(args.input)
    size = path.getFileSystem(sc._jsc.hadoopConfiguration()).getContentSummary(path).getLength()
    piece = max(1 << 20, min(128 << 20, -(-size // want)))
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(piece))
    spark.conf.set("spark.sql.files.openCostInBytes", str(min(piece, 4 << 20)))
    if not sc.getConf().contains("spark.sql.shuffle.partitions"):
        spark.conf.set("spark.sql.shuffle.partitions", str(want))


def main(argv):
    args = parse_args(argv)
    spark = SparkSession.builder.appName("neardup").getOrCreate()
    sc = spark.sparkContext
    if args.checkpoint_dir:
        sc.setCheckpointDir(args.checkpoint_dir)
    settle_partitions(spark, args)
    times = {}
    start = time.time()
    times_order = []

    def lap(name):
        nonlocal start
        now = time.time()
        if times_order:
            times[times_order[-1]] = round(now - start, 2)
        start = now
        if name:
            times_order.append(name)
            sc.setJobDescription(name)

    # Ids as the command line takes them: the lines' own `id` when the first ones have one.
    if args.id_field == "none":
        args.id_field = None
    elif args.id_field is None and args.input_format == "jsonl" and own_ids(spark, args):
        args.id_field = "id"
    lap("sign")
    signed = sign(spark, args).cache()
    counts = {r.p: (r.lines, r.docs) for r in signed.groupBy(F.shiftright("mid", ROW_BITS).alias("p"))
              .agg(F.count("*").alias("lines"), F.count("k").alias("docs")).collect()}
    lap("candidates")
    pairs = candidate_pairs(signed, args.bucket_neighbours, args.large_bucket).cache()
    pair_count = pairs.count()
    lap("verify")
    edges = verified_edges(spark, pairs, args).cache()
    edge_count = edges.count()
    pairs.unpersist()
    lap("components")
    root_of, rounds = components(edges, edge_count, args)
    edges.unpersist()
    roots = sorted(set(root_of.values()))
    root_rank = {}
    if roots:
        wanted = spark.createDataFrame([(r,) for r in roots], "mid long")
        root_rank = {r.mid: r.k for r in signed.join(F.broadcast(wanted), "mid").select("mid", "k")
                     .toLocalIterator()}
    numbering = Numbering(counts, root_of, root_rank)
    lap("write")
    (
        signed.select("mid", "id", "k")
        .mapInArrow(write_partition(sc.broadcast(vars(numbering)), args.id_field), "value string")
        .write.text(args.output)
    )
    if args.keep:
        lap("survivors")
        write_survivors(spark, args, signed, root_of)
    lap(None)
    if args.stats:
        print(json.dumps({
            "documents": sum(d for _, d in counts.values()),
            "lines": sum(n for n, _ in counts.values()),
            "candidate_pairs": pair_count,
            "verified_edges": edge_count,
            "grouped_documents": len(root_of),
            "component_rounds": rounds,
            "clusters": sum(d for _, d in counts.values()) - len(numbering.later),
            "seconds": times,
        }))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
