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
``on_bad_line``); batches any iterable of them (a list, a pandas Series, a pyarrow array, a
generator), but not one str. A batch that fails part way (a generator that raises, a value
that is not a text) raises with what was added before the error: ``e.outcomes``, ``e.added``.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import tempfile
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

# Command-line options about files, formats and output: the API takes texts and returns
# values instead.
_COMMAND_LINE_ONLY = {
    "files",
    "drop_dups",
    "only_dups",
    "annotate",
    "pairs",
    "pairs_format",
    "line_buffered",
    "stats",
    "no_progress",
    "format",
    "input_format",
    "field",
    "id_field",
    "max_line_bytes",
    "checkpoint_every",
    "block_by",
    "node_attr",
    "keep",
    "from_edges",
    "help",
    "version",
}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _value(value: object) -> str:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _known(command: str | None) -> set[str]:
    """The keywords a call takes: the command line's long flags, with underscores."""
    return {name.replace("-", "_") for name in _neardup.options(command)}


def _argv(
    caller: str, options: dict[str, object], command: str | None = None
) -> list[str]:
    """The command line of keyword arguments (None and False leave a flag out); each value
    is joined to its flag (``--threshold=-0.1``) so that no value is read as a flag."""
    known = _known(command) - _COMMAND_LINE_ONLY
    argv: list[str] = []
    for name, value in options.items():
        if name in _COMMAND_LINE_ONLY:
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
        if value is True:
            argv.append(_flag(name))
        elif isinstance(value, (list, tuple)):
            argv += [f"{_flag(name)}={_value(item)}" for item in value]
        else:
            argv.append(f"{_flag(name)}={_value(value)}")
    return argv


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


def _rows(texts: Iterable[Any], column: str | None) -> Iterable[Any]:
    """``texts``, or each row's ``column`` (rows of dicts, a ``datasets.Dataset``)."""
    if column is None:
        return texts
    return (row[column] for row in texts)


def _reference_file(texts: Iterable[Any], ids: Iterable[Any] | None) -> str:
    """In-memory reference texts (and ids) written to a temporary JSON Lines file for
    ``--against``; the caller removes it once the reference is loaded."""
    handle, path = tempfile.mkstemp(prefix="neardup-against-", suffix=".jsonl")
    with os.fdopen(handle, "w", encoding="utf-8") as f:
        id_list = None if ids is None else iter(ids)
        for text in texts:
            if isinstance(text, float) and math.isnan(text):
                text = None
            row: dict[str, object] = {"text": text}
            if id_list is not None:
                value = next(id_list)
                row["id"] = value.__index__() if hasattr(value, "__index__") else value
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


class Deduper:
    """A streaming filter: each document added is compared with the documents kept so far.

    ``add`` returns None for a document that is kept (the first of its kind), or the
    ``Match`` it duplicates: the same documents ``neardup --drop-dups`` keeps, given the
    same texts in the same order and the same options. A dropped document is never
    compared with again, so nothing is dropped by chaining.

    ``most_similar=True`` names the most similar kept document (as ``--annotate`` does)
    rather than the first one verified; what is kept is the same.

    ``against`` (a file or a list of files: corpora in any input format, or saved
    ``--state`` files) drops documents that match a reference document too;
    ``against_only=True`` compares with the reference only.

    A text with no words after normalisation (or None, a missing value) is not a document:
    under the default ``on_bad_line="pass"`` it is kept (``add`` returns None), under
    ``"skip"`` ``add`` returns ``Skipped``, and under ``"fail"`` it raises
    ``BadDocumentError``.

    ``state`` (a file) resumes the window saved there by ``save`` or by ``neardup --state``,
    if the file exists; ``save()`` writes it, and so does leaving a ``with`` block. The
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
        # char_ngram), so only what differs is passed.
        settings = {
            k: v
            for k, v in self._options.items()
            if k != "most_similar" and _DEDUPER_DEFAULTS.get(k, None) != v
        }
        argv = _argv("Deduper", settings)
        if most_similar:
            argv.append("--annotate")
        reference = None
        if against_texts is not None:
            if isinstance(against_texts, (str, bytes)):
                raise TypeError(
                    "against_texts must be an iterable of texts, not one str"
                )
            reference = _reference_file(against_texts, against_ids)
            argv.append(f"--against={reference}")
            if against_ids is not None:
                argv.append("--id-field=id")
        try:
            self._inner = _engine(_neardup.Deduper, argv)
        finally:
            if reference is not None:
                os.remove(reference)
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
        if self._state is not None and exc_type is None:
            self.save()

    def save(self, path: str | os.PathLike[str] | None = None) -> None:
        """Saves the window (the kept documents it holds, their signatures and fingerprints),
        the IDF table and the count of documents added to ``path``, or to the ``state`` file:
        the file ``neardup --state`` writes, which a later ``Deduper(state=...)`` or command
        line resumes, or ``against`` takes as a reference."""
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
        """Decides a batch of documents in order, signing them on every core (``threads``).

        The same outcomes as ``add`` one by one. ``texts`` may be any iterable (a list, a
        pandas Series, a pyarrow array, a generator over a file), or rows of dicts with the
        text in ``column``: they are copied out of Python 65,536 at a time and the GIL is
        released while each slice is signed and verified, so memory beyond the returned list
        stays bounded and Ctrl-C is heard between slices. Batches of thousands of documents
        keep every core busy. ``progress`` is called with the number of documents of each
        slice decided (``tqdm(total=n).update`` fits).

        If reading or deciding fails part way (a generator raises, a value is not a text),
        the slices decided before stay added, and the exception says so: ``e.outcomes`` (their
        outcomes), ``e.added`` (their number) and a note. Retry with the documents after
        them.
        """
        return self._inner.add_many(_rows(texts, column), ids, progress)

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
        outcomes = self._inner.add_many(_rows(texts, column), ids, progress)
        return [outcome is None for outcome in outcomes]

    def stats(self) -> dict[str, Any]:
        """The counts so far, as ``neardup --stats`` prints them: ``docs_read`` documents
        added, ``written`` kept, ``dropped_exact``, ``dropped_near``, ``candidates``
        verified, ``window_docs`` held, and more."""
        return json.loads(self._inner.stats())


# The defaults `Deduper`'s signature shows, which are the command line's.
_DEDUPER_DEFAULTS: dict[str, object] = {
    "threshold": 0.8,
    "ngram": 5,
    "window": 0,
    "weights": "set",
    "idf_warmup": 0,
    "against_only": False,
    "on_bad_line": "pass",
    "threads": 0,
    "max_candidates": 48,
}


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
    once, as the engine goes: a generator over a file is never held in memory whole.
    """
    argv = _argv("pairs", dict(threshold=threshold, **options))
    return _engine(_neardup.pairs, argv, _rows(texts, column))


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
    if threshold in ("components", "cliques"):
        # clusters(texts, "cliques"): the second argument was `by` before `threshold`.
        by, threshold = threshold, None  # type: ignore[assignment]
    argv = _argv("clusters", dict(threshold=threshold, **options), command="clusters")
    return _engine(_neardup.clusters, [f"--by={by}", *argv], _rows(texts, column))


def dedup(
    data: Any,
    column: str = "text",
    threshold: float = 0.8,
    keep: Literal["first", "longest"] = "first",
    **options: object,
) -> Any:
    """One call for a table: which rows to keep, what each duplicate duplicates, and groups.

    ``data`` is a pandas DataFrame (the result is one too, with the input's index), or a
    list of dicts, or a dict of lists (the result is then a dict of lists). The texts are
    ``data[column]``. Columns of the result:

    - ``keep``: True for the rows to keep;
    - ``dup_of``: for a dropped row, the position (from 0) of the kept row it duplicates,
      else None;
    - ``similarity``: its similarity to that row (1.0 for an exact copy), else None;
    - ``cluster``: the row's group (connected components of the verified pairs; -1 for a
      text with no words).

    ``keep="first"`` keeps what ``Deduper`` (and ``neardup --drop-dups``) keeps: a row is
    dropped when it is near a row kept before it. ``keep="longest"`` keeps the longest text
    of each group (the earliest of equals) and names it in ``dup_of`` for the rest of the
    group; ``similarity`` is then None. Options as for ``Deduper``.

        >>> import neardup
        >>> rows = {"text": ["the cat sat on the mat today", "The cat sat on the mat today",
        ...                  "a dog barked at the mailman twice"]}
        >>> neardup.dedup(rows)["keep"]
        [True, False, True]
    """
    try:
        import pandas as pd
    except ImportError:  # pandas is optional
        pd = None
    if pd is not None and isinstance(data, pd.DataFrame):
        texts = data[column].tolist()
    elif isinstance(data, dict):
        texts = list(data[column])
    else:
        texts = [row[column] for row in data]
    groups = clusters(texts, threshold=threshold, **options)
    n = len(texts)
    keep_flags = [True] * n
    dup_of: list[int | None] = [None] * n
    similarity: list[float | None] = [None] * n
    if keep == "first":
        d = Deduper(threshold=threshold, most_similar=True, **options)
        for i, outcome in enumerate(d.add_many(texts)):
            if isinstance(outcome, Match):
                keep_flags[i] = False
                dup_of[i] = int(outcome.dup_of)
                similarity[i] = outcome.similarity
    elif keep == "longest":
        best: dict[int, int] = {}
        for i, group in enumerate(groups):
            if group < 0:
                continue
            length = len(texts[i]) if isinstance(texts[i], str) else -1
            j = best.get(group)
            if j is None or length > len(texts[j]):
                best[group] = i
        for i, group in enumerate(groups):
            if group >= 0 and best[group] != i:
                keep_flags[i] = False
                dup_of[i] = best[group]
    else:
        raise ValueError(f"keep must be 'first' or 'longest', got {keep!r}")
    result = {
        "keep": keep_flags,
        "dup_of": dup_of,
        "similarity": similarity,
        "cluster": groups,
    }
    if pd is not None and isinstance(data, pd.DataFrame):
        frame = pd.DataFrame(result, index=data.index)
        frame["dup_of"] = frame["dup_of"].astype("Int64")
        return frame
    return result
