"""Parquet and Arrow written by the `neardup` command open in pyarrow and polars with the
input's schema, and `--annotate`'s columns are typed."""

import io
import json
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "reuters-sample.jsonl"
COMMAND = shutil.which("neardup")


def cli(*args, stdin=None):
    assert COMMAND, "pip install puts neardup on the PATH"
    return subprocess.run([COMMAND, *map(str, args)], input=stdin, capture_output=True)


@pytest.fixture(scope="module")
def table():
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    t = pa.Table.from_pylist(rows)
    # A column neardup does not read, of a type JSON would lose, and schema metadata.
    t = t.append_column("when", pa.array([r["id"] * 1000 for r in rows], pa.timestamp("ms")))
    return t.replace_schema_metadata({"source": "reuters", "version": "3"})


@pytest.fixture(scope="module")
def kept_ids():
    out = cli("-q", SAMPLE).stdout.decode().splitlines()
    return [json.loads(line)["id"] for line in out]


def test_parquet_out_opens_in_pyarrow_and_polars_with_the_input_schema(tmp_path, table, kept_ids):
    src = tmp_path / "in.parquet"
    pq.write_table(table, src, row_group_size=250, compression="snappy")
    out = tmp_path / "out.parquet"
    run = cli("-q", src, "-o", out)
    assert run.returncode == 0, run.stderr
    kept = pq.read_table(out)
    assert kept.schema.equals(table.schema, check_metadata=True)
    assert kept.column("id").to_pylist() == kept_ids
    frame = pl.read_parquet(out)
    assert frame.schema == pl.from_arrow(table).schema
    assert frame["id"].to_list() == kept_ids


def test_annotate_columns_are_typed(tmp_path, table):
    src = tmp_path / "in.parquet"
    pq.write_table(table, src)
    out = tmp_path / "annotated.parquet"
    assert cli("-q", "--annotate", src, "-o", out).returncode == 0
    t = pq.read_table(out)
    assert t.schema.field("neardup_dup_of").type == pa.int64()
    assert t.schema.field("neardup_similarity").type == pa.float64()
    assert t.schema.field("neardup_exact").type == pa.bool_()
    frame = pl.read_parquet(out)
    dups = frame.filter(pl.col("neardup_dup_of").is_not_null())
    assert len(dups) > 0 and dups["neardup_similarity"].min() >= 0.8
    assert frame.filter(pl.col("neardup_dup_of").is_null())["neardup_similarity"].null_count() \
        == frame["neardup_dup_of"].null_count()


def test_arrow_stream_between_pyarrow_and_polars(table, kept_ids):
    sink = io.BytesIO()
    with ipc.new_stream(sink, table.schema) as w:
        w.write_table(table, max_chunksize=100)
    run = cli("-q", "-", stdin=sink.getvalue())
    assert run.returncode == 0, run.stderr
    kept = ipc.open_stream(run.stdout).read_all()
    assert kept.schema.equals(table.schema, check_metadata=True)
    assert kept.column("id").to_pylist() == kept_ids
    # polars writes a stream neardup reads.
    buf = io.BytesIO()
    pl.from_arrow(table).write_ipc_stream(buf)
    run = cli("-q", "--output-format", "lines", "-", stdin=buf.getvalue())
    assert run.returncode == 0, run.stderr
    assert [json.loads(line)["id"] for line in run.stdout.splitlines()] == kept_ids


def test_polars_written_parquet_with_large_and_view_strings(tmp_path, kept_ids, table):
    src = tmp_path / "polars.parquet"
    pl.from_arrow(table).write_parquet(src)
    run = cli("-q", src, "--output-format", "lines")
    assert run.returncode == 0, run.stderr
    assert [json.loads(line)["id"] for line in run.stdout.splitlines()] == kept_ids
