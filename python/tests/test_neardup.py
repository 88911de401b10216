"""The Python module against the `neardup` command the package installs: the same documents
kept, the same pairs, the same groups, the same errors."""

import doctest
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import neardup
import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "reuters-sample.jsonl"
EXAMPLES = ROOT / "python" / "examples"
COMMAND = shutil.which("neardup")


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Runs the installed `neardup` command."""
    assert COMMAND, "pip install puts neardup on the PATH"
    return subprocess.run([COMMAND, *args], capture_output=True, check=check)


def held(state) -> dict:
    """What a saved index holds (`neardup state info --check`), not how its files are laid out."""
    info = json.loads(cli("state", "info", "--check", "--json", str(state)).stdout)
    return {k: v for k, v in info.items() if not k.endswith("_bytes") and k != "index"}


@pytest.fixture(scope="module")
def sample():
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    rows = [json.loads(line) for line in lines]
    return lines, [r["text"] for r in rows], [r["id"] for r in rows]


@pytest.fixture(scope="module")
def idf_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("idf") / "sample.idf"
    path.write_bytes(cli("idf", str(SAMPLE)).stdout)
    return path


WEIGHTINGS = [
    {},
    {"threshold": 0.5},
    {"weights": "tf", "threshold": 0.6},
    {"weights": "tfidf", "idf": "IDF", "threshold": 0.6},
    {"weights": "tfidf", "idf_warmup": 300, "threshold": 0.6},
    {"window": 40, "threshold": 0.5},
]


def flags(options: dict) -> list[str]:
    return [
        part
        for name, value in options.items()
        for part in ("--" + name.replace("_", "-"), str(value))
    ]


@pytest.mark.parametrize(
    "options", WEIGHTINGS, ids=lambda o: flags(o) and " ".join(flags(o))
)
def test_keeps_what_drop_dups_keeps(sample, idf_file, options):
    lines, texts, ids = sample
    options = {k: (str(idf_file) if v == "IDF" else v) for k, v in options.items()}
    expected = cli(
        "--drop-dups", "--id-field", "id", *flags(options), str(SAMPLE)
    ).stdout
    outcomes = neardup.Deduper(**options).add_many(texts, ids)
    kept = b"".join(line for line, o in zip(lines, outcomes) if o is None)
    assert any(isinstance(o, neardup.Match) for o in outcomes)
    assert kept == expected
    if "idf_warmup" not in options:
        d = neardup.Deduper(threads=1, **options)
        assert [d.add(t, i) for t, i in zip(texts, ids)] == outcomes
    for o in outcomes:
        if o is not None:
            assert o.dup_of in ids and 0 < o.similarity <= 1


def test_most_similar_names_what_annotate_names(sample):
    _lines, texts, ids = sample
    out = cli("--annotate", "-t", "0.5", "--id-field", "id", str(SAMPLE)).stdout
    annotations = [json.loads(line)["neardup"] for line in out.splitlines()]
    outcomes = neardup.Deduper(0.5, most_similar=True).add_many(texts, ids)
    assert len(annotations) == len(outcomes)
    for a, o in zip(annotations, outcomes):
        if o is None:
            assert a["dup_of"] is None
        else:
            assert (a["dup_of"], a["exact"]) == (o.dup_of, o.exact)
            assert a["similarity"] == pytest.approx(o.similarity, abs=1e-4)


def test_default_ids_are_positions():
    d = neardup.Deduper()
    text = "one two three four five six seven eight nine ten"
    assert d.keep_many(["first document entirely different words here now", text]) == [
        True,
        True,
    ]
    m = d.add(text.upper())
    assert m == d.add(text) and (m.dup_of, m.exact, m.similarity) == (1, True, 1.0)
    assert "dup_of=1" in repr(m)
    stats = d.stats()
    assert (stats["docs_read"], stats["written"], stats["dropped_exact"]) == (4, 2, 2)


def test_batches_beyond_a_slice_stream_from_generators():
    # More documents than one slice copied out of Python (65,536), from a generator.
    texts = [
        f"item {i % 9000} of the catalogue, in words {i % 3} to go"
        for i in range(70_000)
    ]
    batch = neardup.Deduper().add_many(t for t in texts)
    d = neardup.Deduper()
    assert batch == [d.add(t) for t in texts]
    assert 0 < sum(o is None for o in batch) < len(texts)


def test_ids_come_back_as_given():
    text = "one two three four five six seven eight nine ten"
    d = neardup.Deduper()
    assert d.add(text, id=2**80) is None
    assert d.add(text, id="x").dup_of == 2**80
    d = neardup.Deduper()
    assert d.add(text, id="first") is None
    assert d.add_many([text], ids=(i for i in ["second"]))[0].dup_of == "first"
    with pytest.raises(ValueError, match="differ in length"):
        neardup.Deduper().add_many(["a b", "c d"], ids=iter([1]))
    with pytest.raises(ValueError, match="differ in length"):
        neardup.Deduper().add_many(["a b"], ids=iter([1, 2]))


@pytest.mark.parametrize("threshold", [0.5, 0.8])
def test_pairs_equal_the_command_line_s(sample, threshold):
    _, texts, _ = sample
    # Line numbers as ids: the module's pairs are positions.
    out = cli("--pairs", "-t", str(threshold), "--id-field", "none", str(SAMPLE)).stdout.decode()
    expected = [line.split("\t") for line in out.splitlines()]
    got = neardup.pairs(texts, threshold=threshold)
    assert len(got) == len(expected) > 10
    for (i, j, s), (a, b, t) in zip(got, expected):
        assert (i + 1, j + 1) == (int(a), int(b))
        assert s == pytest.approx(float(t), abs=5e-5)


def test_pairs_learn_idf_from_their_first_texts_as_the_command_line_does(sample):
    # The texts go to the engine as batches: --idf-warmup learns from the first ones and
    # replays them, as the command line does with its first lines.
    _, texts, _ = sample
    flags = ["--weights", "tfidf", "--idf-warmup", "300", "-t", "0.5"]
    out = cli("--pairs", *flags, "--id-field", "none", str(SAMPLE)).stdout.decode()
    expected = [line.split("\t") for line in out.splitlines()]
    got = neardup.pairs(texts, weights="tfidf", idf_warmup=300, threshold=0.5)
    assert len(got) == len(expected) > 10
    for (i, j, s), (a, b, t) in zip(got, expected):
        assert (i + 1, j + 1) == (int(a), int(b))
        assert s == pytest.approx(float(t), abs=5e-5)
    out = cli("clusters", *flags, str(SAMPLE)).stdout
    expected = [json.loads(line)["cluster"] - 1 for line in out.splitlines()]
    assert neardup.clusters(texts, weights="tfidf", idf_warmup=300, threshold=0.5) == expected


@pytest.mark.parametrize("by", ["components", "cliques"])
def test_clusters_equal_the_command_line_s(sample, by):
    _, texts, _ = sample
    out = cli("clusters", "--by", by, "-t", "0.5", str(SAMPLE)).stdout
    expected = [json.loads(line)["cluster"] - 1 for line in out.splitlines()]
    got = neardup.clusters(texts, by=by, threshold=0.5)
    assert got == expected
    assert len(set(got)) < len(got)


def test_pairs_and_clusters_stream_their_texts():
    # Several MiB from a generator: written to the engine chunk by chunk, past a full channel.
    texts = [
        f"entry {i // 2} of the ledger holds {i // 2 * 7 % 1009} units"
        for i in range(200_000)
    ]
    expected = neardup.pairs(texts)
    assert len(expected) == 100_000
    assert neardup.pairs(t for t in texts) == expected
    assert neardup.clusters(iter(texts)) == [i // 2 for i in range(200_000)]

    def failing():
        yield from texts
        raise OSError("disk gone")

    with pytest.raises(OSError, match="disk gone"):
        neardup.pairs(failing())
    with pytest.raises(
        TypeError, match=r"texts must be str \(or a missing value.*\), not int"
    ):
        neardup.clusters([*texts, 5])


def test_texts_that_are_not_documents():
    texts = ["alpha beta gamma delta epsilon", "  ", "alpha beta gamma delta epsilon"]
    assert neardup.Deduper().add_many(texts)[1] is None
    assert neardup.Deduper().add_many([None, *texts])[0] is None
    assert isinstance(neardup.Deduper(on_bad_line="skip").add(None), neardup.Skipped)
    skipped = neardup.Deduper(on_bad_line="skip").add_many(texts)[1]
    assert isinstance(skipped, neardup.Skipped) and "no words" in skipped.reason
    with pytest.raises(neardup.BadDocumentError, match="row 1: no words"):
        neardup.Deduper(on_bad_line="fail").add_many(texts)
    assert neardup.clusters(texts, quiet=True) == [0, -1, 0]
    assert neardup.pairs(["a\nb c\td e", "a b c d e"], quiet=True) == [(0, 1, 1.0)]


def test_errors_are_the_command_line_s_in_keyword_terms():
    run = cli("--threshold", "2", check=False)
    assert run.returncode == 2
    assert "'--threshold': 2 is not in (0, 1]" in run.stderr.decode()
    with pytest.raises(ValueError, match=r"^threshold: 2 is not in \(0, 1\]$"):
        neardup.Deduper(threshold=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_option'"):
        neardup.Deduper(no_such_option=1)
    with pytest.raises(ValueError, match="tfidf needs document frequencies"):
        neardup.pairs(["a"], weights="tfidf")
    with pytest.raises(TypeError, match="--id-field is for the neardup command"):
        neardup.Deduper(id_field="id")
    with pytest.raises(TypeError, match="an id is a str or an int"):
        neardup.Deduper().add("some text here", id=1.5)
    with pytest.raises(TypeError, match="texts must be str"):
        neardup.Deduper().add_many([b"bytes"])
    with pytest.raises(ValueError, match="differ in length"):
        neardup.Deduper().add_many(["a b c"], ids=[1, 2])
    with pytest.raises(OSError, match="no-such-file"):
        neardup.Deduper(against="no-such-file.jsonl")


def test_against_a_reference(tmp_path, sample):
    lines, texts, ids = sample
    reference = tmp_path / "reference.jsonl"
    reference.write_bytes(b"".join(lines[:400]))
    rest = tmp_path / "rest.jsonl"
    rest.write_bytes(b"".join(lines[400:]))
    expected = cli("--against", str(reference), "--id-field", "id", str(rest)).stdout
    d = neardup.Deduper(against=reference)
    outcomes = d.add_many(texts[400:], ids[400:])
    assert b"".join(l for l, o in zip(lines[400:], outcomes) if o is None) == expected
    assert any(o is not None and o.in_reference for o in outcomes)


def test_state_resumes_and_is_the_command_line_s(tmp_path, sample):
    lines, texts, ids = sample
    state, cli_state = tmp_path / "own.state", tmp_path / "cli.state"
    first = tmp_path / "first.jsonl"
    first.write_bytes(b"".join(lines[:500]))
    cli("--id-field", "id", "-t", "0.5", "--state", str(cli_state), str(first))
    with neardup.Deduper(0.5, state=state) as d:
        outcomes = d.add_many(texts[:500], ids[:500])
    assert held(state) == held(cli_state)
    with neardup.Deduper(0.5, state=state) as d:
        assert d.stats()["docs_read"] == 500
        outcomes += d.add_many(texts[500:], ids[500:])
    assert outcomes == neardup.Deduper(0.5).add_many(texts, ids)
    with pytest.raises(ValueError, match="^state: .* was made with other settings"):
        neardup.Deduper(0.5, ngram=3, state=state)


def test_batches_from_threads_release_the_gil(sample):
    _, texts, _ = sample
    expected = neardup.Deduper(threads=1).keep_many(texts)
    results = {}

    def run(k):
        results[k] = neardup.Deduper(threads=1).keep_many(texts)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[k] == expected for k in range(3))


def test_the_command_is_the_binary_s(tmp_path):
    assert cli("--version").stdout.decode().strip() == f"neardup {neardup.__version__}"
    run = subprocess.run(
        f"{COMMAND} --annotate --id-field id {SAMPLE} | head -n 1",
        shell=True,
        capture_output=True,
        check=False,
    )
    assert run.returncode == 0 and run.stderr == b""
    assert json.loads(run.stdout)["neardup"]["dup_of"] is None


@pytest.mark.parametrize(
    "example",
    ["pandas_dedup.py", "table_dedup.py", "polars_dedup.py", "hf_datasets_dedup.py"],
)
def test_examples(example):
    needs = {"hf": "datasets", "po": "polars"}.get(example[:2], "pandas")
    pytest.importorskip(needs)
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / example)],
        capture_output=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"},
    )
    assert run.returncode == 0, run.stderr.decode()
    kept = len(cli("--drop-dups", str(SAMPLE)).stdout.splitlines())
    assert run.stdout.decode().startswith(f"953 rows, {kept} kept")


def test_the_module_docstring_example():
    assert doctest.testmod(neardup).failed == 0


def test_deduper_signature_shows_the_command_lines_defaults():
    """The defaults Deduper's signature shows are the command line's, which alone decide
    (a keyword equal to its flag's default is left out of the command line)."""
    import inspect

    cli = neardup._cli_defaults()
    shown = {
        name: p.default
        for name, p in inspect.signature(neardup.Deduper).parameters.items()
        if p.default is not inspect.Parameter.empty and p.default is not None
    }
    assert "threshold" in shown and "max_candidates" in shown
    for name, default in shown.items():
        if name == "most_similar":  # --annotate: a mode, not a setting
            continue
        if isinstance(default, bool):
            assert cli.get(name) == str(default).lower(), name
        else:
            assert cli.get(name) == str(default), name
        assert neardup._is_default(name, default, cli)
    assert not neardup._is_default("threshold", 0.9, cli)
    assert not neardup._is_default("against_only", True, cli)
    # dedup's threshold is the same setting; pairs and clusters leave theirs to the flag.
    dedup_threshold = inspect.signature(neardup.dedup).parameters["threshold"].default
    assert cli["threshold"] == str(dedup_threshold)


def test_a_graph_over_max_memory_is_a_memory_error():
    """Cliques need every verified pair: a graph that would not fit in max_memory once
    grouped stops the call with a MemoryError naming the budget, not the interpreter."""
    ad = (
        "warehouse picker wanted for the night shift at our distribution centre near the "
        "ring road full time permanent contract forklift licence an advantage but not "
        "required training given from the first day free parking and a canteen on site "
        "apply today with your cv and quote reference {}"
    )
    texts = [ad.format(i) for i in range(1500)]
    with pytest.raises(MemoryError, match="max_memory"):
        neardup.clusters(texts, by="cliques", max_memory="64M")
    # Components joined as the texts arrive hold no pair inside a group.
    assert set(neardup.clusters(texts, max_memory="64M")) == {0}


def test_a_list_longer_than_a_slice_keeps_what_smaller_batches_keep():
    # More texts than one slice of the batch (65,536): the module says the whole count
    # ahead, and the window is sized for it; the answer is the one of batches that do not.
    texts = [f"item {i % 50_000} of the catalogue, shelf {i % 50_000 % 7}" for i in range(70_000)]
    whole = neardup.dedup(texts)["keep"]
    d = neardup.Deduper()
    parts = []
    for start in range(0, len(texts), 10_000):
        parts.extend(d.keep_many(texts[start : start + 10_000]))
    assert whole == parts
    assert sum(whole) < len(texts)
    # An iterable without a length is read slice by slice as before.
    d = neardup.Deduper()
    assert d.keep_many(iter(texts)) == parts
