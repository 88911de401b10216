"""The native half of the ``neardup`` module (see ``neardup/__init__.py``)."""

from collections.abc import Iterable

__version__: str

class BadDocumentError(ValueError):
    """A text with no words after normalisation, under ``on_bad_line="fail"``."""

class Match:
    """The kept document a duplicate matched."""

    @property
    def dup_of(self) -> str | int:
        """Its id: the one given to ``add``, or its position among the documents added
        (from 0)."""
    @property
    def similarity(self) -> float:
        """Their similarity (1.0 for an exact copy)."""
    @property
    def exact(self) -> bool:
        """Whether their normalised texts are equal."""
    @property
    def in_reference(self) -> bool:
        """Whether the kept document is one of the ``against`` reference."""

class Skipped:
    """A text that is not a document, left out under ``on_bad_line="skip"``."""

    @property
    def reason(self) -> str:
        """Why it is not a document."""

class Deduper:
    def __init__(self, argv: list[str]) -> None: ...
    def add(
        self, text: str | None, id: str | int | None = None
    ) -> Match | Skipped | None: ...
    def add_many(
        self, texts: Iterable[str | None], ids: Iterable[str | int] | None = None
    ) -> list[Match | Skipped | None]: ...
    def save(self, path: str | None = None) -> None: ...
    def stats(self) -> str: ...

def pairs(argv: list[str], texts: Iterable[str]) -> list[tuple[int, int, float]]: ...
def clusters(argv: list[str], texts: Iterable[str]) -> list[int]: ...
def main(argv: list[str]) -> int: ...
