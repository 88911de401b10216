"""Find near-duplicate text documents: the neardup engine, in process.

The same engine as the ``neardup`` command (installed with this package): documents are
compared by the Jaccard similarity of their word n-gram shingles, MinHash and LSH find
candidates among the recent documents (``window``), and every candidate is verified exactly.

Options are the command line's, as keyword arguments: ``threshold=0.8`` is
``--threshold 0.8``, ``strip_html=True`` is ``--strip-html``, a list repeats the flag, and an
option left out (or None) has the command line's default. A bad value raises ``ValueError``
with the command line's message.

    >>> import neardup
    >>> d = neardup.Deduper(threshold=0.8)
    >>> d.add("the quick brown fox jumps over the lazy dog by the river bank") is None
    True
    >>> d.add("The Quick Brown Fox jumps over the lazy dog by the river bank")
    Match(dup_of=0, similarity=1.0, exact=True)
    >>> d.add("the quick brown fox jumps over the lazy dog by the river bank!")
    Match(dup_of=0, similarity=0.8, exact=False)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Literal

from . import _neardup
from ._neardup import BadDocumentError, Match, Skipped, __version__

__all__ = [
    "BadDocumentError",
    "Deduper",
    "Match",
    "Skipped",
    "__version__",
    "clusters",
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
}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _value(value: object) -> str:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _argv(caller: str, options: dict[str, object]) -> list[str]:
    """The command line of keyword arguments (None and False leave a flag out)."""
    argv: list[str] = []
    for name, value in options.items():
        if name in _COMMAND_LINE_ONLY:
            raise TypeError(
                f"{caller}() takes texts and returns values: {_flag(name)} is for the "
                "neardup command"
            )
        if value is None or value is False:
            continue
        if value is True:
            argv.append(_flag(name))
        elif isinstance(value, (list, tuple)):
            for item in value:
                argv += [_flag(name), _value(item)]
        else:
            argv += [_flag(name), _value(value)]
    return argv


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
        threshold: float | None = None,
        *,
        ngram: int | None = None,
        window: int | None = None,
        weights: Literal["set", "tf", "tfidf"] | None = None,
        idf: str | os.PathLike[str] | None = None,
        idf_warmup: int | None = None,
        against: str
        | os.PathLike[str]
        | Iterable[str | os.PathLike[str]]
        | None = None,
        against_only: bool = False,
        most_similar: bool = False,
        state: str | os.PathLike[str] | None = None,
        on_bad_line: Literal["pass", "skip", "fail"] | None = None,
        threads: int | None = None,
        **options: object,
    ) -> None:
        if isinstance(against, (str, os.PathLike)):
            against = [against]
        argv = _argv(
            "Deduper",
            dict(
                threshold=threshold,
                ngram=ngram,
                window=window,
                weights=weights,
                idf=idf,
                idf_warmup=idf_warmup,
                against=list(against) if against is not None else None,
                against_only=against_only,
                state=state,
                on_bad_line=on_bad_line,
                threads=threads,
                **options,
            ),
        )
        if most_similar:
            argv.append("--annotate")
        self._inner = _neardup.Deduper(argv)
        self._state = state

    def __enter__(self) -> Deduper:  # noqa: PYI034 (typing.Self is Python 3.11+)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._state is not None:
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
        self, texts: Iterable[str | None], ids: Iterable[Id] | None = None
    ) -> list[Outcome]:
        """Decides a batch of documents in order, signing them on every core (``threads``).

        The same outcomes as ``add`` one by one. ``texts`` may be any iterable (a list, a
        pandas Series, a generator over a file): they are copied out of Python 65,536 at a
        time and the GIL is released while each slice is signed and verified, so memory
        beyond the returned list stays bounded and Ctrl-C is heard between slices.
        Batches of thousands of documents keep every core busy.
        """
        return self._inner.add_many(texts, ids)

    def keep(self, text: str | None, id: Id | None = None) -> bool:
        """``add``, as a yes/no for ``filter``: True when the document is kept."""
        return self._inner.add(text, id) is None

    def keep_many(
        self, texts: Iterable[str | None], ids: Iterable[Id] | None = None
    ) -> list[bool]:
        """``add_many``, as yes/no per document: True for the documents kept."""
        return [outcome is None for outcome in self._inner.add_many(texts, ids)]

    def stats(self) -> dict[str, object]:
        """The counts so far, as ``neardup --stats`` prints them: ``docs_read`` documents
        added, ``written`` kept, ``dropped_exact``, ``dropped_near``, ``candidates``
        verified, ``window_docs`` held, and more."""
        return json.loads(self._inner.stats())


def pairs(
    texts: Iterable[str],
    threshold: float | None = None,
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
    return _neardup.pairs(argv, texts)


def clusters(
    texts: Iterable[str],
    by: Literal["components", "cliques"] = "components",
    threshold: float | None = None,
    **options: object,
) -> list[int]:
    """The group of each text, as ``neardup clusters`` forms them: connected components
    of the verified pairs, or disjoint cliques (every two members similar). Groups are
    numbered from 0 in order of their first member; a text that is not a document (no
    words) gets -1. ``min_edge`` and ``max_cluster`` as on the command line; other options
    as for ``Deduper``. ``texts`` is read once, as for ``pairs``.
    """
    argv = _argv("clusters", dict(threshold=threshold, **options))
    return _neardup.clusters(["--by", by, *argv], texts)
