"""The native half of the ``neardup`` module (see ``neardup/__init__.py``)."""

from collections.abc import Callable, Iterable, Iterator

__version__: str

class NeardupWarning(UserWarning):
    """What the neardup command says on stderr as a warning."""

class BadDocumentError(ValueError):
    """A missing value or a text with no words after normalisation, under
    ``on_bad_line="fail"``."""

class Match:
    """The kept document a duplicate matched: a small frozen record that unpacks as
    ``dup_of, similarity, exact, in_reference``."""

    _fields: tuple[str, str, str, str]
    __match_args__ = ("dup_of", "similarity", "exact", "in_reference")
    def __init__(
        self,
        dup_of: str | int,
        similarity: float,
        exact: bool = False,
        in_reference: bool = False,
    ) -> None: ...
    def __iter__(self) -> Iterator[str | int | float | bool]: ...
    def __len__(self) -> int: ...
    def _asdict(self) -> dict[str, str | int | float | bool]: ...
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

Settings = list[tuple[str, bool | str | list[str]]]

class Deduper:
    def __init__(
        self,
        settings: Settings,
        against_texts: Iterable[object] | None = None,
        against_ids: Iterable[object] | None = None,
        against_only: bool = False,
    ) -> None: ...
    def add(
        self, text: str | None, id: str | int | None = None
    ) -> Match | Skipped | None: ...
    def add_many(
        self,
        texts: Iterable[object],
        ids: Iterable[object] | None = None,
        progress: Callable[[int], object] | None = None,
        raw: bool = False,
    ) -> list[Match | Skipped | None]: ...
    def save(self, path: str | None = None) -> None: ...
    def write_report(self, path: str | None = None, call: str | None = None) -> None: ...
    def stats(self) -> str: ...

def pairs(settings: Settings, texts: Iterable[object]) -> list[tuple[int, int, float]]: ...
def clusters(
    settings: Settings, texts: Iterable[object], longest: bool = False
) -> tuple[list[int], list[int] | None]: ...
def reads_arrow(texts: object) -> bool: ...
def options(command: str | None = None) -> list[str]: ...
def command_line_only(command: str | None = None) -> list[str]: ...
def defaults(command: str | None = None) -> list[tuple[str, str]]: ...
