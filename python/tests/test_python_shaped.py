"""The module as Python users meet it: failed batches that say what they added, the types
pandas, numpy, pyarrow and datasets hand over, keyword errors, records that unpack, pickling,
and the one-call table API. Each test names the defect it covers (issue 30)."""

import _thread
import itertools
import math
import pickle
import threading
import time

import neardup
import pytest

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
WORDS += ["eta", "theta", "iota", "kappa", "lambda", "mu"]


def text(i: int) -> str:
    """A document unlike every other: six words chosen by the digits of i."""
    digits = f"{i:06d}"
    return " ".join(f"{WORDS[int(d)]}{k}" for k, d in enumerate(digits)) + f" doc{i}"


def test_a_failed_batch_says_what_it_added_and_a_retry_loses_nothing(tmp_path):
    # Defect 1: a generator raising past the first 65,536 documents.
    texts = [text(i) for i in range(80_000)]

    def failing():
        yield from texts[:70_000]
        raise OSError("disk gone")

    d = neardup.Deduper()
    with pytest.raises(OSError, match="disk gone") as e:
        d.keep_many(failing())
    # Every document read before the generator raised was decided (issue 45).
    added = e.value.added
    assert added == 70_000 == len(e.value.outcomes)
    assert all(o is None for o in e.value.outcomes)
    assert any("first 70000 documents" in note for note in e.value.__notes__)
    assert any("reading row 70000" in note for note in e.value.__notes__)
    # Retrying with the rest, as the note says, keeps every document.
    assert all(d.keep_many(texts[added:]))
    assert d.stats()["written"] == 80_000

    # A bad item in the second slice: the same.
    d = neardup.Deduper()
    with pytest.raises(TypeError) as e:
        d.add_many([*texts[:70_000], 5, *texts[70_000:]])
    assert e.value.added == 70_000

    # A with block that ends in an exception does not save its state.
    state = tmp_path / "w.state"
    with pytest.raises(OSError), neardup.Deduper(state=state) as d:
        d.keep_many(failing())
    assert not state.exists()
    with neardup.Deduper(state=state) as d:
        assert all(d.keep_many(texts[:1000]))
    with neardup.Deduper(state=state) as d:
        assert not any(d.keep_many(texts[:1000]))
        assert all(d.keep_many(texts[1000:2000]))


def test_one_string_is_not_a_batch():
    # Defect 2.
    for call in (
        lambda t: neardup.Deduper().keep_many(t),
        lambda t: neardup.Deduper().add_many(t),
        neardup.pairs,
        neardup.clusters,
    ):
        with pytest.raises(TypeError, match="not one str"):
            call("some text with words")
        with pytest.raises(TypeError, match="not one bytes"):
            call(b"some text with words")


def test_missing_values_from_pandas_numpy_and_arrow():
    # Defect 3: NaN, pd.NA, pd.NaT and pyarrow nulls are missing values, not errors.
    pd = pytest.importorskip("pandas")
    texts = [text(1), math.nan, pd.NA, None, text(1), pd.NaT]
    for policy, expected in [("pass", None), ("skip", neardup.Skipped)]:
        outcomes = neardup.Deduper(on_bad_line=policy).add_many(texts)
        assert outcomes[0] is None
        assert isinstance(outcomes[4], neardup.Match)
        for k in (1, 2, 3, 5):
            assert (
                outcomes[k] is None
                if expected is None
                else isinstance(outcomes[k], expected)
            )
    series = pd.Series(texts[:5], dtype="string")
    assert neardup.Deduper().keep_many(series) == [True, True, True, True, False]
    assert neardup.clusters(pd.Series([text(1), None, text(1)])) == [0, -1, 0]


def test_numpy_and_arrow_inputs():
    # Defect 4: numpy integer ids, pyarrow (chunked) arrays, dict rows with column=.
    np = pytest.importorskip("numpy")
    texts = [text(i % 3) for i in range(6)]
    outcomes = neardup.Deduper().add_many(texts, ids=np.arange(100, 106))
    assert outcomes[3].dup_of == 100
    assert neardup.Deduper().add(texts[0], id=np.int64(7)) is None
    pa = pytest.importorskip("pyarrow")
    array = pa.array([*texts, None])
    chunked = pa.chunked_array([texts[:3], [*texts[3:], None]])
    expected = [True, True, True, False, False, False, True]
    assert neardup.Deduper().keep_many(array) == expected
    assert neardup.Deduper().keep_many(chunked) == expected
    assert neardup.Deduper().add_many(texts, ids=pa.array(range(6)))[3].dup_of == 0
    rows = [{"text": t, "n": i} for i, t in enumerate(texts)]
    assert neardup.Deduper().keep_many(rows, column="text") == expected[:6]
    assert neardup.pairs(rows, column="text")[0] == (0, 3, 1.0)


def test_against_texts_in_memory():
    # Defect 4: a reference held in memory, with its own ids.
    reference = [text(1), text(2)]
    d = neardup.Deduper(against_texts=reference, against_ids=["ref-a", "ref-b"])
    m = d.add(text(2))
    assert m.in_reference and m.dup_of == "ref-b"
    d = neardup.Deduper(against_texts=iter(reference))
    assert d.add(text(1)).dup_of == 0
    assert d.add(text(3)) is None


def test_against_texts_are_read_in_memory_with_every_setting(monkeypatch):
    # No temporary file: the reference goes to the engine as the batches do.
    import tempfile

    def no_files(*args, **kwargs):
        raise AssertionError("a temporary file was made")

    monkeypatch.setattr(tempfile, "mkstemp", no_files)
    base = "the quick brown fox jumps over the lazy dog by the river bank today and then"
    reference = [base + " runs home fast", None, base + " sleeps"]
    docs = [base + " runs home quickly", "a text about something else entirely here"]
    # Signed with the table the first batch teaches, as the command line signs a file.
    # A text that is not a document is said when the texts are given, even while they
    # wait for the table.
    with pytest.warns(neardup.NeardupWarning, match="1 reference text"):
        d = neardup.Deduper(
            weights="tfidf", idf_warmup=2, threshold=0.5, against_texts=reference
        )
    first, second = d.add_many(docs)
    assert first.in_reference and first.dup_of == 0 and not first.exact
    assert second is None
    # Compared with the reference alone: a copy of an earlier document is kept.
    d = neardup.Deduper(against_texts=[base + " sleeps"], against_only=True)
    assert d.add_many([docs[1], docs[1], base + " sleeps"])[:2] == [None, None]
    assert d.add(base + " sleeps").in_reference
    # A text that is not a document, under on_bad_line="fail": named by its row.
    with pytest.raises(neardup.BadDocumentError, match="against_texts row 1"):
        neardup.Deduper(against_texts=reference, on_bad_line="fail")
    # Also while the texts wait for the table idf_warmup learns: said when they are given,
    # not as a row of the first batch, and no reference is left half loaded.
    with pytest.raises(neardup.BadDocumentError, match="against_texts row 1"):
        neardup.Deduper(
            weights="tfidf", idf_warmup=2, against_texts=reference, on_bad_line="fail"
        )


AD = (
    "Senior Rust engineer wanted in Berlin for our search team: hybrid work, four days a "
    "week, a friendly team and a good salary"
)


def test_the_readme_example_is_what_happens():
    # Defect 5: the README's and python/README's example, as printed there.
    d = neardup.Deduper(threshold=0.8)
    assert d.add(AD) is None
    assert d.add(AD + "!", id="ad-2") == neardup.Match(0, 0.9, False, False)
    assert d.add(AD.upper()) == neardup.Match(0, 1.0, True, False)


ZH = [
    "我们今天去公园散步，天气非常好，阳光明媚，大家都很开心。",
    "我们今天去公园散步，天气非常好，阳光明媚，大家都很高兴。",
]
JA = [
    "今日は天気がとても良いので、家族と一緒に近くの公園を散歩しました。",
    "今日は天気がとても良いので、家族と一緒に近くの公園を散策しました。",
]


def test_text_without_spaces_is_split_into_words_everywhere():
    # Issue 31: each Chinese or Japanese character is a word, in Deduper, pairs and clusters.
    d = neardup.Deduper(threshold=0.5)
    assert d.add(ZH[0]) is None
    assert d.add(ZH[1]).dup_of == 0
    assert [(a, b) for a, b, _ in neardup.pairs(ZH + JA, threshold=0.5)] == [(0, 1), (2, 3)]
    assert neardup.clusters(ZH + JA, threshold=0.5) == [0, 0, 1, 1]
    # words="spaces" is the old rule: a sentence is one word, nothing matches.
    d = neardup.Deduper(threshold=0.5, words="spaces")
    assert d.add(ZH[0]) is None and d.add(ZH[1]) is None


def test_errors_in_python_terms():
    # Defect 6.
    with pytest.raises(ValueError, match=r"^threshold: -0.1 is not in \(0, 1\]$"):
        neardup.Deduper(threshold=-0.1)
    with pytest.raises(
        TypeError,
        match="unexpected keyword argument 'treshold'; did you mean 'threshold'",
    ):
        neardup.Deduper(treshold=0.8)
    with pytest.raises(TypeError, match="--help is for the neardup command"):
        neardup.Deduper(help=True)
    with pytest.raises(TypeError, match="did you mean 'min_edge'"):
        neardup.clusters([text(1)], min_edg=0.5)
    with pytest.raises(ValueError, match="^invalid value 'lots' for max_memory"):
        neardup.Deduper(max_memory="lots")
    with pytest.raises(ValueError, match=r"^invalid value 'bubble' for words\n  \[possible values: unicode, spaces\]$"):
        neardup.Deduper(words="bubble")
    with pytest.raises(ValueError, match="^a value is required for threshold but none was supplied$"):
        neardup.Deduper(threshold=True)
    with pytest.raises(ValueError, match="^unexpected value 'yes' for strip_html found"):
        neardup.Deduper(strip_html="yes")
    with pytest.raises(ValueError, match="^the argument idf cannot be used with idf_warmup$"):
        neardup.Deduper(idf="f", idf_warmup=3)


def test_settings_are_read_by_the_flags_own_parsers_not_a_command_line():
    # The native module takes (flag, value) pairs, each value read by its flag's parser:
    # a value that looks like a flag is a value, a list flag takes a list or commas.
    d = neardup._neardup.Deduper([("threshold", "0.5"), ("verify", ["jaccard", "edit"])])
    assert d.add(text(1)) is None
    with pytest.raises(TypeError):
        neardup._neardup.Deduper(["--threshold=0.5"])
    with pytest.raises(ValueError, match="--window <N>'?: invalid digit"):
        neardup._neardup.Deduper([("window", "--drop-dups")])
    one = neardup.pairs([text(1), text(1)], threshold=0.5, verify="jaccard,edit")
    listed = neardup.pairs([text(1), text(1)], threshold=0.5, verify=["jaccard", "edit"])
    assert one == listed == [(0, 1, 1.0)]


def test_stats_does_not_hold_the_gil_during_a_batch():
    # Defect 7: stats() waits for another thread's batch without freezing other threads.
    d = neardup.Deduper(threads=1)
    texts = [text(i) * 4 for i in range(200_000)]
    worker = threading.Thread(target=d.keep_many, args=(texts,))
    ticks: list[float] = []

    def ticker():
        while worker.is_alive():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    worker.start()
    clock = threading.Thread(target=ticker)
    clock.start()
    asked = 0
    while worker.is_alive():
        d.stats()
        asked += 1
    clock.join()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert asked > 0 and len(ticks) > 10
    # A slice of 65,536 documents takes several tenths of a second to decide; stats()
    # waiting for it with the GIL held stopped the ticker that long.
    assert max(gaps) < 0.15, f"other threads froze for {max(gaps):.2f} s"
    assert d.stats()["docs_read"] == 200_000


def test_match_is_a_small_record_and_stats_count_the_window():
    # Defect 10.
    d = neardup.Deduper()
    d.add(text(1))
    m = d.add(text(1))
    dup_of, similarity, exact, in_reference = m
    assert (dup_of, similarity, exact, in_reference) == (0, 1.0, True, False)
    assert m._asdict() == {
        "dup_of": 0,
        "similarity": 1.0,
        "exact": True,
        "in_reference": False,
    }
    assert dict(zip(m._fields, m)) == m._asdict()
    assert "in_reference=False" in repr(m)
    assert hash(m) == hash(neardup.Match(0, 1.0, True, False))
    assert d.stats()["window_bytes"] > 0
    # The command line's default budget: half of the tightest system limit, and which.
    stats = d.stats()
    assert stats["max_memory"] > 0 and stats["max_memory_from"].startswith("half of"), stats
    assert neardup.Deduper(max_memory="1G").stats()["max_memory"] == 1 << 30
    # dedup() keeps no window between calls: its failure does not advise a partial retry.
    with pytest.raises(neardup.BadDocumentError) as failed:
        neardup.dedup([text(1), "   ", text(2)], on_bad_line="fail")
    notes = " ".join(getattr(failed.value, "__notes__", []))
    assert "after them when you retry" not in notes and "keeps nothing between calls" in notes
    # The exceptions are the package's, by name too.
    assert neardup.BadDocumentError.__module__ == "neardup"
    assert neardup.NeardupWarning.__module__ == "neardup"
    assert repr(neardup.BadDocumentError("x")) == "BadDocumentError('x')"
    assert neardup.clusters([text(1), text(1)], 0.8) == [0, 0]
    assert neardup.clusters([text(1), text(1)], "cliques") == [0, 0]
    assert "threshold=0.5" in repr(neardup.Deduper(threshold=0.5))


def test_a_deduper_pickles_its_settings():
    # Defect 9: datasets' num_proc and its cache need a picklable filter.
    d = neardup.Deduper(threshold=0.6, ngram=3)
    d.add(text(1))
    copy = pickle.loads(pickle.dumps(d))
    assert repr(copy) == repr(d)
    assert copy.add(text(1)) is None, "the window stays behind"


def test_dedup_one_call_for_a_table():
    rows = {"text": [text(1), text(2), text(1), None, text(2) + " extra words here"]}
    result = neardup.dedup(rows, threshold=0.5)
    assert result["keep"] == [True, True, False, True, False]
    assert result["dup_of"] == [None, None, 0, None, 1]
    assert result["similarity"][2] == 1.0
    assert result["cluster"] == [0, 1, 0, -1, 1]
    longest = neardup.dedup(rows, threshold=0.5, keep="longest")
    assert longest["keep"] == [True, False, False, True, True]
    assert longest["dup_of"] == [None, 4, 0, None, None]
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(rows, index=[10, 11, 12, 13, 14])
    out = neardup.dedup(frame, threshold=0.5)
    assert list(out.index) == [10, 11, 12, 13, 14]
    assert out["keep"].tolist() == result["keep"]
    assert frame[out["keep"]].shape[0] == 3


def test_warnings_go_through_python(tmp_path):
    # Defect 8: the engine's warnings are Python warnings, naming settings by their keywords.
    banding = r"no banding of num_perm 4 values reaches recall"
    with pytest.warns(neardup.NeardupWarning, match=banding):
        neardup.Deduper(threshold=0.3, num_perm=4, recall=0.999)
    reference = tmp_path / "reference.jsonl"
    reference.write_text(
        '{"text": "alpha beta gamma delta epsilon"}\nnot json\n{"text": "zeta eta theta"}\n'
    )
    with pytest.warns(neardup.NeardupWarning, match=r"reference.jsonl:2: invalid JSON"):
        neardup.Deduper(against=reference)
    many = [f"document {i} says {i * 7} and {i * 13}" for i in range(80_000)]
    d = neardup.Deduper(max_memory="48M", spill_dir="none")
    with pytest.warns(neardup.NeardupWarning, match=r"raise max_memory to"):
        d.keep_many(many)


def test_progress_and_ctrl_c_in_long_calls():
    # Defect 7 (Ctrl-C heard within pairs/clusters) and the progress callable.
    seen: list[int] = []
    neardup.Deduper().keep_many((text(i) for i in range(150_000)), progress=seen.append)
    assert seen == [65_536, 65_536, 18_928]

    def endless():
        i = 0
        while True:
            i += 1
            yield text(i % 1_000_000)

    for call in (neardup.pairs, neardup.clusters):
        timer = threading.Timer(0.3, _thread.interrupt_main)
        start = time.perf_counter()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            call(endless())
        timer.join()
        assert time.perf_counter() - start < 5
