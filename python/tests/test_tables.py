"""Issue 45: a failed call says exactly what it did, every table shape gives the answer a
list of the same strings gives, Arrow columns are read from their buffers, and the module
keeps Python's conventions (warnings, positions from 0, keyword errors, rounded floats)."""

import json
import subprocess
import sys
import warnings

import neardup
import pytest

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
WORDS += ["eta", "theta", "iota", "kappa", "lambda", "mu"]


def text(i: int) -> str:
    """Six words chosen by the digits of i: unlike every other i."""
    digits = f"{i:06d}"
    return " ".join(f"{WORDS[int(d)]}{k}" for k, d in enumerate(digits)) + f" doc{i}"


# Every fifth text repeats an earlier one: the outcomes mix kept and dropped documents.
TEXTS = [text(i if i % 5 else i // 7) for i in range(80_001)]


@pytest.fixture(scope="module")
def clean():
    """The outcomes of one run over all the texts, which every prefix shares."""
    return neardup.Deduper().add_many(TEXTS)


SIZES = [4, 300, 5_003, 80_001]
POSITIONS = [0, 1, 3, 255, 256, 5_002, 70_000]


def _bad(kind: str, texts: list[object], at: int) -> tuple[object, type[Exception]]:
    """The batch with a failure at `at`, and the exception it raises."""
    if kind == "missing":
        texts[at] = None
        return texts, neardup.BadDocumentError
    if kind == "not a text":
        texts[at] = {"text": "a dict"}
        return texts, TypeError

    def failing():
        yield from texts[:at]
        raise OSError("the source went away")

    return failing(), OSError


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", ["missing", "not a text", "generator raises"])
@pytest.mark.parametrize("container", [list, iter])
def test_a_failed_call_reports_exactly_what_it_added(clean, size, kind, container):
    for at in [p for p in POSITIONS if p < size]:
        d = neardup.Deduper(on_bad_line="fail")
        batch, error = _bad(kind, list(TEXTS[:size]), at)
        if kind != "generator raises":
            batch = container(batch)
        with pytest.raises(error) as e:
            d.add_many(batch)
        # Every row before the failing one was decided, with the outcomes of a clean run,
        # and nothing after it: the window holds exactly what is reported.
        assert e.value.added == at == len(e.value.outcomes), (size, at)
        assert e.value.outcomes == clean[:at]
        stats = d.stats()
        assert stats["docs_read"] == at
        assert stats["written"] + stats["dropped"] == at
        assert stats["written"] == sum(o is None for o in clean[:at])
        if kind == "missing":
            assert str(e.value) == f"row {at} is a missing value (None)"
        # The retry the note asks for ends where one clean run ends.
        rest = d.add_many(TEXTS[at:size])
        assert e.value.outcomes + rest == clean[:size]


def test_a_missing_value_is_named_as_such():
    d = neardup.Deduper(on_bad_line="fail")
    for missing, name in [(None, "None"), (float("nan"), "NaN")]:
        with pytest.raises(neardup.BadDocumentError, match=rf"^row 2 is a missing value \({name}\)\n"):
            d.add_many([text(1), text(2), missing])
        with pytest.raises(neardup.BadDocumentError, match=rf"^the text is a missing value \({name}\)$"):
            d.add(missing)
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(neardup.BadDocumentError, match=r"^row 1 is a missing value \(null\)\n"):
        neardup.Deduper(on_bad_line="fail").add_many(pa.array([text(1), None]))
    with pytest.raises(neardup.BadDocumentError, match=r"^row 1: no words left"):
        neardup.Deduper(on_bad_line="fail").add_many([text(1), "   "])


SHAPE_TEXTS = [text(1), text(2), None, text(1).upper(), text(3), "", text(2) + " more"]


def _shapes():
    """(name, data, column) for every table and column shape the module takes."""
    shapes = [
        ("list", list(SHAPE_TEXTS), None),
        ("tuple", tuple(SHAPE_TEXTS), None),
        ("dict of lists", {"text": list(SHAPE_TEXTS), "n": list(range(7))}, "text"),
        ("list of dicts", [{"text": t, "n": i} for i, t in enumerate(SHAPE_TEXTS)], "text"),
    ]
    try:
        import pandas as pd

        frame = pd.DataFrame({"body": SHAPE_TEXTS, "n": range(7)}, index=list("abcdefg"))
        shapes += [
            ("pandas Series (object)", pd.Series(SHAPE_TEXTS, dtype=object), None),
            ("pandas Series (string)", pd.Series(SHAPE_TEXTS, dtype="string"), None),
            ("pandas DataFrame", frame, "body"),
        ]
        try:
            import pyarrow  # noqa: F401

            shapes.append(
                ("pandas Series (Arrow)", pd.Series(SHAPE_TEXTS, dtype="string[pyarrow]"), None)
            )
        except ImportError:
            pass
    except ImportError:
        pass
    try:
        import pyarrow as pa

        table = pa.table({"body": SHAPE_TEXTS, "n": list(range(7))})
        shapes += [
            ("pyarrow Array", pa.array(SHAPE_TEXTS), None),
            ("pyarrow large_string", pa.array(SHAPE_TEXTS, type=pa.large_string()), None),
            ("pyarrow string_view", pa.array(SHAPE_TEXTS, type=pa.string_view()), None),
            ("pyarrow dictionary", pa.array(SHAPE_TEXTS).dictionary_encode(), None),
            ("pyarrow ChunkedArray", pa.chunked_array([SHAPE_TEXTS[:2], SHAPE_TEXTS[2:]]), None),
            ("pyarrow Table", table, "body"),
            ("pyarrow RecordBatch", table.to_batches()[0], "body"),
        ]
    except ImportError:
        pass
    try:
        import polars as pl

        frame = pl.DataFrame({"body": SHAPE_TEXTS, "n": list(range(7))})
        shapes += [
            ("polars Series", pl.Series(SHAPE_TEXTS), None),
            ("polars DataFrame", frame, "body"),
            ("polars LazyFrame", frame.lazy(), "body"),
        ]
    except ImportError:
        pass
    try:
        import datasets

        ds = datasets.Dataset.from_dict({"body": SHAPE_TEXTS, "n": list(range(7))})
        shapes.append(("datasets.Dataset", ds, "body"))
    except ImportError:
        pass
    return shapes


@pytest.mark.parametrize(("name", "data", "column"), _shapes(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_shape_gives_the_answer_of_a_list(name, data, column):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", neardup.NeardupWarning)
        expected = neardup.Deduper().keep_many(list(SHAPE_TEXTS))
        assert expected == [True, True, True, False, True, True, True]
        if "LazyFrame" not in name:
            assert neardup.Deduper().keep_many(data, column=column) == expected, name
        result = neardup.dedup(data, column=column)
        flat = neardup.dedup(list(SHAPE_TEXTS))
    kind = type(data).__module__.partition(".")[0]
    if kind == "pandas":
        assert list(result.index) == list(data.index)
        assert result["keep"].tolist() == flat["keep"]
        assert result["cluster"].tolist() == flat["cluster"]
        labels = list(data.index)
        assert result["dup_of"].iloc[3] == labels[0]
    elif kind == "polars":
        assert result["keep"].to_list() == flat["keep"]
        assert result["dup_of"].to_list() == flat["dup_of"]
    else:
        assert result == flat
    assert flat["keep"] == expected
    assert flat["dup_of"] == [None, None, None, 0, None, None, None]
    assert flat["cluster"] == [0, 1, -1, 0, 2, -1, 3]


def test_arrow_columns_are_read_from_their_buffers():
    pa = pytest.importorskip("pyarrow")
    reads_arrow = neardup._neardup.reads_arrow
    assert reads_arrow(pa.array(["a"])) and reads_arrow(pa.chunked_array([["a"]]))
    assert not reads_arrow(["a"])
    texts, _ = neardup._texts(pa.table({"t": ["a"]}), "t", "test")
    assert reads_arrow(texts)
    pl = pytest.importorskip("polars")
    assert reads_arrow(neardup._texts(pl.DataFrame({"t": ["a"]}), "t", "test")[0])
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"t": ["a", "b", "c"]}).select([2, 0])
    column, _ = neardup._texts(ds, "t", "test")
    assert reads_arrow(column)
    # Rows as the dataset orders them, after select().
    assert neardup.dedup(ds, column="t")["keep"] == [True, True]
    with pytest.raises(TypeError, match="Arrow column is of type Int64"):
        neardup.Deduper().keep_many(pa.array([1, 2]))


def test_bad_rows_are_warnings_with_positions_and_nothing_on_stderr(capfd):
    texts = [text(1), None, text(2), "   "]
    with pytest.warns(neardup.NeardupWarning) as caught:
        keep = neardup.Deduper().keep_many(texts)
    assert keep == [True, True, True, True]
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(
        "2 rows are not documents: row 1 is a missing value (None); row 3: no words left"
    )
    assert caught[0].filename == __file__
    with pytest.warns(neardup.NeardupWarning, match="row 1 is a missing value"):
        neardup.clusters(texts)
    with pytest.warns(neardup.NeardupWarning, match="row 1 is a missing value"):
        neardup.dedup(texts)
    assert capfd.readouterr().err == ""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert neardup.Deduper(quiet=True).keep_many(texts) == keep


def test_dedup_and_deduper_agree_on_bad_rows():
    texts = [text(1), None, text(1), ""]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", neardup.NeardupWarning)
        for policy in ("pass", "skip"):
            table = neardup.dedup(texts, on_bad_line=policy)
            assert table["keep"] == neardup.Deduper(on_bad_line=policy).keep_many(texts)
            assert table["cluster"] == [0, -1, 0, -1]
        longest = neardup.dedup(texts, keep="longest", on_bad_line="skip")
        assert longest["keep"] == [True, False, False, False]
    with pytest.warns(neardup.NeardupWarning, match=r"row 1 is a missing value \(None\) \(kept") as caught:
        assert neardup.dedup(texts, keep="longest")["keep"] == [True, True, False, True]
    assert all(w.filename == __file__ for w in caught)


def test_keyword_errors_name_the_function_called():
    with pytest.raises(TypeError, match=r"^dedup\(\) got an unexpected keyword argument 'treshold'; did you mean 'threshold'"):
        neardup.dedup(["a b c"], treshold=0.5)
    with pytest.raises(TypeError, match=r"^dedup\(\) takes texts"):
        neardup.dedup(["a b c"], only_dups=True)
    with pytest.raises(KeyError, match="no column 'txt': the columns are 'text', 'n'"):
        neardup.dedup({"text": ["a"], "n": [1]}, column="txt")
    with pytest.raises(TypeError, match="for rows of dicts, name the text's key with column="):
        neardup.Deduper().keep_many([{"text": "a b c"}])


def test_similarities_are_the_numbers_the_command_line_prints(tmp_path):
    base = "one two three four five six seven eight nine ten eleven twelve"
    texts = [base, base + " thirteen", base + " thirteen fourteen", base[:-7]]
    pairs = neardup.pairs(texts, threshold=0.5)
    path = tmp_path / "t.txt"
    path.write_text("\n".join(texts) + "\n")
    cli = subprocess.run(
        ["neardup", "--pairs", "-t", "0.5", str(path)], capture_output=True, text=True, check=True
    )
    printed = [
        (int(a) - 1, int(b) - 1, float(s))
        for a, b, s in (line.split("\t") for line in cli.stdout.splitlines())
    ]
    assert pairs == printed
    assert all(repr(s) == repr(round(s, 4)) for _, _, s in pairs)
    d = neardup.Deduper(threshold=0.5)
    d.add(texts[0])
    assert d.add(texts[2]).similarity == round(d.add(texts[2]).similarity, 4)


def test_stats_per_document_from_the_first_document():
    d = neardup.Deduper()
    d.add(text(1))
    one = d.stats()["ram_bytes_per_doc"]
    d.keep_many([text(i) for i in range(2, 20_000)])
    many = d.stats()["ram_bytes_per_doc"]
    assert 0 < one < 4096 and 0 < many < 4096
    assert 0.5 < one / many < 2, (one, many)


def test_running_out_of_memory_raises_memory_error():
    # Under an address-space limit a little above what the interpreter maps, a batch that
    # would need more raises MemoryError with what it added; the interpreter goes on.
    script = """
import random, resource, neardup
def mapped():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize"):
            return int(line.split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (mapped() + (300 << 20), resource.RLIM_INFINITY))
rng = random.Random(1)
words = [f"w{i}" for i in range(50000)]
texts = (" ".join(rng.choice(words) for _ in range(60)) for _ in range(2_000_000))
d = neardup.Deduper(max_memory="50G")
try:
    d.add_many(texts)
    print("finished")
except MemoryError as e:
    print("MemoryError", e.added, d.stats()["docs_read"])
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    words = run.stdout.split()
    assert words[0] == "MemoryError", run.stdout
    assert words[1] == words[2] and int(words[1]) % 65_536 == 0


def test_the_report_page_from_python(tmp_path):
    texts = [text(i % 40) for i in range(200)] + ["<script>alert(1)</script> " + text(3)]
    page = tmp_path / "dedup.html"
    result = neardup.dedup(texts, report=page)
    html = page.read_text()
    assert 'data-stat="docs_read">201<' in html
    assert f'data-stat="dropped">{result["keep"].count(False)}<' in html
    assert "<script>" not in html
    # The page names the call in the module's terms, not as a command line's flags.
    assert "<code>neardup.dedup()</code>" in html
    assert "--drop-dups" not in html
    with neardup.Deduper(report=tmp_path / "with.html") as d:
        d.keep_many(texts)
    html = (tmp_path / "with.html").read_text()
    assert 'data-stat="docs_read">201<' in html
    assert "<code>neardup.Deduper()</code>" in html
    with neardup.Deduper(most_similar=True, report=tmp_path / "similar.html") as d:
        d.add_many(texts)
    similar = (tmp_path / "similar.html").read_text()
    assert "<code>neardup.Deduper(most_similar=True)</code>" in similar
    d = neardup.Deduper()
    d.add(text(1))
    with pytest.raises(ValueError, match="^report: give a file"):
        d.write_report(tmp_path / "no.html")
    with pytest.raises(ValueError, match="keep='first'"):
        neardup.dedup(texts, keep="longest", report=page)
    with pytest.raises(TypeError, match="report= is for dedup"):
        neardup.clusters(texts, report=page)
    with pytest.raises(ValueError, match="^report: only the filter modes"):
        neardup.pairs(texts, report=page)
