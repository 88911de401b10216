"""Find near-duplicate text documents: the neardup engine, in process.

The same engine as the ``neardup`` command (installed with this package): documents are
compared by the Jaccard similarity of their word n-gram shingles, MinHash and LSH find
candidates among the recent documents (``window``), and every candidate is verified exactly.

Options are the command line's, as keyword arguments: ``threshold=0.8`` is
``--threshold 0.8``, ``strip_html=True`` is ``--strip-html``, a list repeats the flag, and an
option left out (or None) has the command line's default. An unknown keyword raises
``TypeError`` (naming the closest option), a bad value ``ValueError`` in keyword terms.

    >>> import neardup
    >>> d = neardup.Deduper(threshold=0.8)
    >>> d.add("the quick brown fox jumps over the lazy dog by the river bank") is None
    True
    >>> d.add("The Quick Brown Fox jumps over the lazy dog by the river bank")
    Match(dup_of=0, similarity=1.0, exact=True, in_reference=False)
    >>> dup_of, similarity, exact, in_reference = d.add(
    ...     "the quick brown fox jumps over the lazy dog by the river bank!")
    >>> (dup_of, similarity)
    (0, 0.8)

Texts may be ``str`` or missing values (None, NaN, ``pd.NA``: not documents, see
``on_bad_line``; said in one ``NeardupWarning`` per call); batches any iterable of them, a
column or a table (pandas, polars, pyarrow, Hugging Face datasets; Arrow columns are read
from their buffers), but not one str. A batch that fails part way raises with exactly the
rows decided before the one that failed: ``e.outcomes``, ``e.added``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import warnings
from collections.abc import Callable, Iterable
from typing import Any, Literal

from . import _neardup
from ._neardup import BadDocumentError, Match, NeardupWarning, Skipped, __version__

__all__ = [
    "BadDocumentError",
    "Deduper",
    "Match",
    "NeardupWarning",
    "Skipped",
    "__version__",
    "clusters",
    "dedup",
    "pairs",
]

Id = str | int
Outcome = Match | Skipped | None

def _command_line_only(command: str | None) -> set[str]:
    """The flags the API refuses by name (about files, formats and output: it takes texts
    and returns values instead), as keywords: each flag's definition says so."""
    names = set(_neardup.command_line_only(None)) | set(
        _neardup.command_line_only(command)
    )
    return {name.replace("-", "_") for name in names}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _value(value: object) -> str:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _known(command: str | None) -> set[str]:
    """The keywords a call takes: the command line's long flags, with underscores."""
    return {name.replace("-", "_") for name in _neardup.options(command)}


Settings = list[tuple[str, bool | str | list[str]]]


def _settings(
    caller: str, options: dict[str, object], command: str | None = None
) -> Settings:
    """The keyword arguments as the engine reads them: ``(long flag name, value)``, the
    value True (a switch), a str or a list of str, each read by its flag's own parser (None
    and False leave a flag out)."""
    refused = _command_line_only(command)
    known = _known(command) - refused
    settings: Settings = []
    for name, value in options.items():
        if name in refused:
            raise TypeError(
                f"{caller}() takes texts and returns values: {_flag(name)} is for the "
                "neardup command"
            )
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TypeError(
                f"{caller}() got an unexpected keyword argument {name!r}{hint}"
            )
        if value is None or value is False:
            continue
        flag = name.replace("_", "-")
        if value is True:
            settings.append((flag, True))
        elif isinstance(value, (list, tuple)):
            settings.append((flag, [_value(item) for item in value]))
        else:
            settings.append((flag, _value(value)))
    return settings


def _python_terms(message: str) -> str:
    """A command-line message in keyword terms: ``'--max-edit <D>'`` becomes
    ``max_edit``."""
    message = re.sub(
        r"invalid value for '--([a-z0-9-]+)': ",
        lambda m: m.group(1).replace("-", "_") + ": ",
        message,
    )
    return re.sub(
        r"'--([a-z0-9-]+)(?: <[^>]*>)?'",
        lambda m: m.group(1).replace("-", "_"),
        message,
    )


def _engine(call: Any, *args: object) -> Any:
    """Calls the native module, with its usage errors in keyword terms."""
    try:
        return call(*args)
    except BadDocumentError:
        raise
    except ValueError as e:
        raise ValueError(_python_terms(str(e))) from None


def _kind(data: object) -> str:
    """The library a value comes from (``pandas``, ``polars``, ``pyarrow``, ``datasets``)."""
    return type(data).__module__.partition(".")[0]


def _columns_of(data: Any) -> list[str] | None:
    """The column names of a table, to name in a message."""
    for attribute in ("column_names", "columns"):
        names = getattr(data, attribute, None)
        if names is not None:
            try:
                return [str(name) for name in names]
            except TypeError:
                return None
    if isinstance(data, dict):
        return [str(name) for name in data]
    return None


def _pick(data: Any, column: str) -> Any:
    """``data[column]``, or a ``KeyError`` that lists the columns there are."""
    try:
        if _kind(data) == "pyarrow":
            return data.column(column)
        return data[column]
    except (KeyError, IndexError, ValueError, TypeError) as e:
        names = _columns_of(data)
        if names is None:
            raise
        raise KeyError(
            f"no column {column!r}: the columns are {', '.join(map(repr, names))}"
        ) from e


_TABLES = {
    "pandas": ("DataFrame",),
    "polars": ("DataFrame", "LazyFrame"),
    "pyarrow": ("Table", "RecordBatch"),
    "datasets": ("Dataset", "DatasetDict", "IterableDataset"),
}


def _texts(data: Any, column: str | None, caller: str) -> tuple[Any, Any]:
    """The texts of ``data`` as the engine reads them, and the row labels (a pandas index)
    or None (positions). A table (pandas, polars, pyarrow, a ``datasets.Dataset``, a dict of
    columns, rows of dicts) gives its ``column``; a column (a pandas or polars Series, a
    pyarrow Array or ChunkedArray, a sequence or iterable of str) is taken as it is. Arrow
    columns (pyarrow, polars, datasets, pandas' Arrow-backed strings) are read by the engine
    from their buffers, without a Python object per row."""
    if isinstance(data, (str, bytes)):
        return data, None  # refused by the engine, which says why
    kind = _kind(data)
    table = type(data).__name__ in _TABLES.get(kind, ()) or isinstance(data, dict)
    if table:
        if column is None:
            names = _columns_of(data)
            listed = f" (the columns are {', '.join(map(repr, names))})" if names else ""
            raise TypeError(
                f"{caller}() takes a table's texts from one column: give column={listed}"
            )
        if kind == "datasets":
            if type(data).__name__ == "DatasetDict":
                raise TypeError(
                    f"{caller}() takes one split of a DatasetDict: "
                    f"{caller}(ds['train'], column=...)"
                )
            if type(data).__name__ == "IterableDataset":
                return (row[column] for row in data), None
            # The Arrow column as the rows are ordered (after select or shuffle too).
            if column not in data.column_names:
                raise KeyError(
                    f"no column {column!r}: the columns are "
                    f"{', '.join(map(repr, data.column_names))}"
                )
            return data.with_format("arrow")[column], None
        if kind == "polars" and type(data).__name__ == "LazyFrame":
            data = data.select(column).collect()
        data = _pick(data, column)
    elif column is not None:
        # Rows of dicts (or of anything indexable by column).
        return (row[column] for row in data), None
    if _kind(data) == "pandas":
        return _pandas_texts(data), data.index
    if _kind(data) == "polars" and not hasattr(data, "__arrow_c_stream__"):
        return data.to_arrow(), None
    return data, None


def _pandas_texts(series: Any) -> Any:
    """A pandas Series' texts: its Arrow array when it holds Arrow strings, else its values
    one by one."""
    if "Arrow" in type(series.array).__name__:
        try:
            import pyarrow as pa

            return pa.array(series.array)
        except (ImportError, TypeError, ValueError):
            pass
    return series.to_numpy(dtype=object, na_value=None)


class Deduper:
    """A streaming filter: each document added is compared with the documents kept so far.

    ``add`` returns None for a document that is kept (the first of its kind), or the
    ``Match`` it duplicates: the same documents ``neardup --drop-dups`` keeps, given the
    same texts in the same order and the same options. A dropped document is never
    compared with again, so nothing is dropped by chaining.

    ``most_similar=True`` names the most similar kept document (as ``--annotate`` does)
    rather than the first one verified; what is kept is the same.

    ``against`` (a file or a list of files: corpora in any input format, or saved
    ``--state`` indexes) drops documents that match a reference document too;
    ``against_only=True`` compares with the reference only.

    A text with no words after normalisation (or None, a missing value) is not a document:
    under the default ``on_bad_line="pass"`` it is kept (``add`` returns None), under
    ``"skip"`` ``add`` returns ``Skipped``, and under ``"fail"`` it raises
    ``BadDocumentError``.

    ``state`` (an index directory) resumes the window saved there by ``save`` or by
    ``neardup --state``, if there is one; ``save()`` writes it (appending what was added since
    the last save), and so does leaving a ``with`` block. The
    settings that shape the window must be the saved ones (else ``ValueError``).

    With ``weights="tfidf"``, give ``idf`` (a file from ``neardup idf``) or ``idf_warmup=N``:
    the table is then learnt from the first N documents of the first ``add_many`` batch.

    Other options are the command line's (``ngram``, ``char_ngram``, ``shingle``,
    ``strip_html``, ``strip_punct``, ``keep_case``, ``no_nfkc``, ``stopwords``, ``bag``,
    ``verify``, ``max_edit``, ``min_cosine``, ``min_lcs``, ``exact``, ``num_perm``,
    ``bands``, ``rows``, ``recall``, ``seed``, ``max_candidates``, ``quiet``): see
    ``neardup --help``.
    """

    def __init__(
        self,
        threshold: float = 0.8,
        *,
        ngram: int = 5,
        window: int = 0,
        weights: Literal["set", "tf", "tfidf"] = "set",
        idf: str | os.PathLike[str] | None = None,
        idf_warmup: int = 0,
        against: str
        | os.PathLike[str]
        | Iterable[str | os.PathLike[str]]
        | None = None,
        against_texts: Iterable[str | None] | None = None,
        against_ids: Iterable[Id] | None = None,
        against_only: bool = False,
        most_similar: bool = False,
        state: str | os.PathLike[str] | None = None,
        on_bad_line: Literal["pass", "skip", "fail"] = "pass",
        threads: int = 0,
        max_candidates: int = 48,
        max_memory: str | int | None = None,
        **options: object,
    ) -> None:
        """See the class. ``against_texts`` (with ``against_ids``, else positions) is a
        reference held in memory rather than files; ``max_memory`` (bytes, or ``"512M"``)
        bounds the window as ``--max-memory`` does."""
        if isinstance(against, (str, os.PathLike)):
            against = [against]
        against = list(against) if against is not None else []
        self._options: dict[str, object] = dict(
            threshold=threshold,
            ngram=ngram,
            window=window,
            weights=weights,
            idf=idf,
            idf_warmup=idf_warmup,
            against_only=against_only,
            most_similar=most_similar,
            state=state,
            on_bad_line=on_bad_line,
            threads=threads,
            max_candidates=max_candidates,
            max_memory=max_memory,
            **options,
        )
        self._options["against"] = against or None
        # Defaults are left to the command line (some flags exclude others: ngram and
        # char_ngram), so only what differs from its defaults is passed.
        defaults = _cli_defaults()
        settings = {
            k: v
            for k, v in self._options.items()
            if k != "most_similar" and not _is_default(k, v, defaults)
        }
        # A reference of texts alone: --against-only is the engine's to apply (the command
        # line's flag needs a file).
        only_texts = against_texts is not None and not against and against_only
        if only_texts:
            settings.pop("against_only", None)
        keywords = _settings("Deduper", settings)
        if most_similar:
            keywords.append(("annotate", True))
        if against_texts is not None and isinstance(against_texts, (str, bytes)):
            raise TypeError("against_texts must be an iterable of texts, not one str")
        self._inner = _engine(
            _neardup.Deduper, keywords, against_texts, against_ids, only_texts
        )
        self._state = state

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{k}={v!r}" for k, v in self._options.items() if v is not None
        )
        return f"Deduper({shown})"

    def __reduce__(self) -> tuple[object, tuple[object, ...], dict[str, object]]:
        """A pickled ``Deduper`` carries its settings, not its window: unpickled (in a
        worker process, say) it starts empty. Give ``state`` to carry a window."""
        return (_unpickle, (self._options,), {})

    def __enter__(self) -> Deduper:  # noqa: PYI034 (typing.Self is Python 3.11+)
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        # A block that ends in an exception does not save: the window may hold part of a
        # batch that the caller will add again.
        if exc_type is not None:
            return
        if self._state is not None:
            self.save()
        if self._options.get("report") is not None:
            self.write_report()

    def write_report(self, path: str | os.PathLike[str] | None = None) -> None:
        """Writes the HTML page of ``neardup --report`` about the documents added so far
        (what was dropped and why, other thresholds, the largest groups, borderline
        removals with word diffs) to ``path``, or to the ``report`` file given to the
        constructor (a ``with`` block writes it at its end). Needs ``report=`` set, which
        is what makes the ``Deduper`` gather the page's figures as documents are added."""
        self._inner.write_report(None if path is None else os.fspath(path))

    def save(self, path: str | os.PathLike[str] | None = None) -> None:
        """Saves the window (the kept documents it holds, their signatures and fingerprints),
        the IDF table and the count of documents added to ``path``, or to the ``state``
        directory: the index ``neardup --state`` writes, which a later ``Deduper(state=...)``
        or command line resumes, or ``against`` takes as a reference."""
        self._inner.save(None if path is None else os.fspath(path))

    def add(self, text: str | None, id: Id | None = None) -> Outcome:
        """Decides one document: None when it is kept, else the ``Match`` it duplicates.

        ``id`` (a str or an int) is what a later ``Match.dup_of`` names this document by;
        by default its position among the documents added, counting from 0.
        """
        return self._inner.add(text, id)

    def add_many(
        self,
        texts: Iterable[Any],
        ids: Iterable[Id] | None = None,
        *,
        column: str | None = None,
        progress: Callable[[int], object] | None = None,
    ) -> list[Outcome]:
        """Decides a batch of documents in order, signing them on every core (``threads``);
        with more than two threads (or ``helpers="always"``) the lookups are made on every
        core too, and committed in order.

        The same outcomes as ``add`` one by one, on any thread count. ``texts`` may be any iterable of str (a
        list, a generator over a file), a column (a pandas or polars Series, a pyarrow
        Array or ChunkedArray) or a table with the text in ``column`` (pandas, polars or
        pyarrow tables, a ``datasets.Dataset``, rows of dicts). Arrow columns are read from
        their buffers; other texts are copied out of Python. Rows go to the engine 65,536 at
        a time with the GIL released, so memory beyond the returned list stays bounded and
        Ctrl-C is heard between slices. ``progress`` is called with the number of rows of
        each slice decided (``tqdm(total=n).update`` fits).

        If the call fails part way (a row that is not a text, a missing value under
        ``on_bad_line="fail"``, a generator that raises, memory running out), every row
        before the one that failed was decided, and no other: ``e.added`` is their number,
        ``e.outcomes`` their outcomes, and a note says so. Retry with the rows from
        ``e.added`` on.
        """
        texts, _ = _texts(texts, column, "add_many")
        return self._inner.add_many(texts, ids, progress)

    def keep(self, text: str | None, id: Id | None = None) -> bool:
        """``add``, as a yes/no for ``filter``: True when the document is kept."""
        return self._inner.add(text, id) is None

    def keep_many(
        self,
        texts: Iterable[Any],
        ids: Iterable[Id] | None = None,
        *,
        column: str | None = None,
        progress: Callable[[int], object] | None = None,
    ) -> list[bool]:
        """``add_many``, as yes/no per document: True for the documents kept."""
        texts, _ = _texts(texts, column, "keep_many")
        outcomes = self._inner.add_many(texts, ids, progress)
        return [outcome is None for outcome in outcomes]

    def stats(self) -> dict[str, Any]:
        """The counts so far, as ``neardup --stats`` prints them: ``docs_read`` documents
        added, ``written`` kept, ``dropped_exact``, ``dropped_near``, ``candidates``
        verified, ``window_docs`` held, and more."""
        return json.loads(self._inner.stats())


def _cli_defaults(command: str | None = None) -> dict[str, str]:
    """The command line's default of each keyword that has one, as it would be written
    (``"0.8"``, ``"false"`` for a switch): the defaults live there alone, and the signatures
    that show them are checked against them (python/tests)."""
    return {
        name.replace("-", "_"): value for name, value in _neardup.defaults(command)
    }


def _is_default(name: str, value: object, defaults: dict[str, str]) -> bool:
    """Whether keyword ``name`` set to ``value`` says what the command line does without
    it (None and False leave a flag out anyway)."""
    if value is None or value is False:
        return True
    return value is not True and defaults.get(name) == _value(value)


def _unpickle(options: dict[str, object]) -> Deduper:
    return Deduper(**options)


def pairs(
    texts: Iterable[Any],
    threshold: float | None = None,
    *,
    column: str | None = None,
    **options: object,
) -> list[tuple[int, int, float]]:
    """Every verified pair of similar texts, as ``neardup --pairs`` lists them:
    ``(i, j, similarity)`` with positions ``i < j`` in ``texts``, ordered by ``j`` then
    as found. Pairs are looked for within ``window`` documents of each other (the command
    line's default); ``window=0`` compares every document with every other. Options as for
    ``Deduper``. Runs on every core (``threads``), without the GIL. ``texts`` is read
    once, as the engine goes: a generator over a file is never held in memory whole. Texts
    may come in any shape ``Deduper.add_many`` takes (a column, or a table and ``column``).
    """
    settings = _settings("pairs", dict(threshold=threshold, **options))
    return _engine(_neardup.pairs, settings, _texts(texts, column, "pairs")[0])


def clusters(
    texts: Iterable[Any],
    threshold: float | str | None = None,
    *,
    by: Literal["components", "cliques"] = "components",
    column: str | None = None,
    **options: object,
) -> list[int]:
    """The group of each text, as ``neardup clusters`` forms them: connected components
    of the verified pairs, or disjoint cliques (every two members similar). Groups are
    numbered from 0 in order of their first member; a text that is not a document (no
    words) gets -1. ``min_edge`` and ``max_cluster`` as on the command line; other options
    as for ``Deduper``. ``texts`` is read once, as for ``pairs``.
    """
    if options.get("report") is not None:
        raise TypeError(
            "clusters() returns groups, not a page: report= is for dedup() and Deduper "
            "(or `neardup clusters --report`)"
        )
    if threshold in ("components", "cliques"):
        # clusters(texts, "cliques"): the second argument was `by` before `threshold`.
        by, threshold = threshold, None  # type: ignore[assignment]
    settings = _settings("clusters", dict(threshold=threshold, **options), "clusters")
    texts, _ = _texts(texts, column, "clusters")
    groups, _ = _engine(_neardup.clusters, [("by", by), *settings], texts)
    return groups


def _is_rows_of_mappings(data: Any) -> bool:
    """Whether ``data`` is a sequence whose first item is a dict (rows of records)."""
    try:
        return isinstance(data[0], dict)
    except (TypeError, IndexError, KeyError):
        return False


def dedup(
    data: Any,
    column: str | None = None,
    threshold: float = 0.8,
    keep: Literal["first", "longest"] = "first",
    **options: object,
) -> Any:
    """One call for a table: which rows to keep, what each duplicate duplicates, and groups.

    ``data`` is a table and ``column`` the name of its text column (default ``"text"``): a
    pandas, polars or pyarrow table, a ``datasets.Dataset``, a dict of columns, a list of
    dicts. Or it is the texts themselves: a pandas or polars Series, a pyarrow Array or
    ChunkedArray, a list of str. Every shape gives the same answer as a list of the same
    strings. The result is a pandas DataFrame with the input's index for pandas input, a
    polars DataFrame for polars input, else a dict of lists, with one row per input row:

    - ``keep``: True for the rows to keep (what ``neardup --drop-dups`` keeps);
    - ``dup_of``: for a dropped row, the kept row it duplicates (its index label for pandas
      input, else its position from 0), else None;
    - ``similarity``: their similarity as the command line prints it (1.0 for an exact copy),
      else None;
    - ``cluster``: the row's group, numbered from 0 in order of first member: each kept row
      with the rows dropped as its duplicates (with ``keep="longest"``: the connected
      components of the verified pairs, as ``clusters()``); -1 for a row that is not a
      document (a missing value, a text with no words).

    ``keep="first"`` keeps a row unless it is near a row kept before it, naming the most
    similar one. ``keep="longest"`` keeps the longest text (in bytes; the first of equals)
    of each group and names it in ``dup_of`` for the rest; ``similarity`` is then None.
    Rows that are not documents follow ``on_bad_line`` as in ``Deduper`` (kept under
    ``"pass"``, not kept under ``"skip"``) and are said in one ``NeardupWarning``. Each text
    is read and signed once; Arrow columns are read from their buffers. Options as for
    ``Deduper``; ``report="page.html"`` also writes the page of ``neardup --report``.

        >>> import neardup
        >>> rows = {"text": ["the cat sat on the mat today", "The cat sat on the mat today",
        ...                  "a dog barked at the mailman twice"]}
        >>> neardup.dedup(rows)["keep"]
        [True, False, True]
    """
    if keep not in ("first", "longest"):
        raise ValueError(f"keep must be 'first' or 'longest', got {keep!r}")
    if keep == "longest" and options.get("report") is not None:
        raise ValueError("report= is written by keep='first' (a --drop-dups run), not 'longest'")
    _check_keywords("dedup", dict(threshold=threshold, **options))
    kind = _kind(data)
    table = type(data).__name__ in _TABLES.get(kind, ()) or isinstance(data, dict)
    if column is None and (table or _is_rows_of_mappings(data)):
        column = "text"
    texts, index = _texts(data, column, "dedup")
    if not hasattr(texts, "__len__") and not hasattr(texts, "__arrow_c_stream__"):
        texts = list(texts)
    if keep == "first":
        result = _first_kept(texts, index, threshold, options)
    else:
        result = _longest_kept(texts, index, threshold, options)
    if kind == "pandas":
        import pandas as pd

        frame = pd.DataFrame(result, index=index)
        if index is None or _is_default_index(index):
            frame["dup_of"] = frame["dup_of"].astype("Int64")
        frame["similarity"] = frame["similarity"].astype("Float64")
        return frame
    if kind == "polars":
        import polars as pl

        return pl.DataFrame(result, strict=False)
    return result


def _is_default_index(index: Any) -> bool:
    """Whether a pandas index is the positions 0, 1, ..."""
    return type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1


def _check_keywords(caller: str, options: dict[str, object]) -> None:
    """Refuses a keyword that neither ``Deduper`` nor the command line takes, naming
    ``caller``."""
    own = {"idf", "idf_warmup", "against", "against_texts", "against_ids", "state"}
    _settings(caller, {k: v for k, v in options.items() if k not in own})


def _first_kept(
    texts: Any, index: Any, threshold: float, options: dict[str, object]
) -> dict[str, list[Any]]:
    """``dedup(keep="first")``: one ``Deduper`` pass, naming the most similar kept row."""
    d = Deduper(threshold=threshold, most_similar=True, **options)
    # Rows that are not documents come as Skipped whatever the policy, so that they get no
    # group; the policy decides whether they are kept.
    try:
        outcomes = d._inner.add_many(texts, None, None, True)
    except BadDocumentError as e:
        # The Deduper's note (retry with the documents after the first `added`) is for a
        # window kept between calls; dedup() keeps none.
        notes = getattr(e, "__notes__", None)
        if notes:
            notes[:] = [
                "neardup: dedup() keeps nothing between calls: fix or drop that row and call it "
                "again with the whole table, or pass on_bad_line='pass' or 'skip'"
            ]
        raise
    if options.get("report") is not None:
        d._inner.write_report(None, "neardup.dedup()")
    kept_bad = options.get("on_bad_line", "pass") == "pass"
    n = len(outcomes)
    keep_flags = [True] * n
    dup_of: list[Any] = [None] * n
    similarity: list[float | None] = [None] * n
    cluster = [-1] * n
    groups: dict[object, int] = {}
    labels = None if index is None or _is_default_index(index) else list(index)
    for i, outcome in enumerate(outcomes):
        if outcome is None:
            cluster[i] = groups.setdefault(("row", i), len(groups))
        elif isinstance(outcome, Match):
            keep_flags[i] = False
            similarity[i] = outcome.similarity
            if outcome.in_reference:
                dup_of[i] = outcome.dup_of
                cluster[i] = groups.setdefault(("reference", outcome.dup_of), len(groups))
            else:
                row = int(outcome.dup_of)
                dup_of[i] = row if labels is None else labels[row]
                cluster[i] = groups[("row", row)]
        else:  # Skipped: not a document
            keep_flags[i] = kept_bad
    return {"keep": keep_flags, "dup_of": dup_of, "similarity": similarity, "cluster": cluster}


def _longest_kept(
    texts: Any, index: Any, threshold: float, options: dict[str, object]
) -> dict[str, list[Any]]:
    """``dedup(keep="longest")``: the connected components, and the longest of each."""
    # The graph leaves out rows that are not documents; only "fail" changes that.
    settings = {k: v for k, v in options.items() if k != "on_bad_line"}
    if options.get("on_bad_line") == "fail":
        settings["on_bad_line"] = "fail"
    keywords = _settings("dedup", dict(threshold=threshold, **settings), "clusters")
    skip = options.get("on_bad_line") == "skip"
    # The grouping leaves bad rows out of every group ("skipped"); dedup keeps them under
    # "pass", and says so.
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", NeardupWarning)
        groups, best = _engine(_neardup.clusters, keywords, texts, True)
    for w in said:
        message = str(w.message)
        if not skip:
            message = message.replace(
                " (skipped)", " (kept, as on_bad_line='pass' says; no group)"
            )
        warnings.warn(message, w.category, stacklevel=3)
    n = len(groups)
    labels = None if index is None or _is_default_index(index) else list(index)
    keep_flags = [True] * n
    dup_of: list[Any] = [None] * n
    for i, group in enumerate(groups):
        if group < 0:
            keep_flags[i] = not skip
        elif best[group] != i:
            keep_flags[i] = False
            row = best[group]
            dup_of[i] = row if labels is None else labels[row]
    return {"keep": keep_flags, "dup_of": dup_of, "similarity": [None] * n, "cluster": groups}
