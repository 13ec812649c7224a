"""The state of one shell session, passed to every command handler, and where it persists.

Settings (format, timing, limit, timeout), the last query, what runs the session's SPARQL (a
child process that Ctrl-C and ``.timeout`` can stop) and the derived data a session caches
(the label index, the NetworkX projection, the completion catalog) live in one
:class:`Session`; nothing is kept in module globals. Saved queries and the input history
persist under ``$XDG_DATA_HOME/abstract-kg/`` (``~/.local/share/abstract-kg/`` by default)
as ``queries.json`` and ``history``.

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> saved = SavedQueries(os.path.join(folder, "queries.json"))
>>> saved.save("methods", "SELECT ?m WHERE { ?m a kg:Method }")
>>> SavedQueries(os.path.join(folder, "queries.json")).get("methods")
'SELECT ?m WHERE { ?m a kg:Method }'
>>> saved.names()
['methods']
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kg.errors import KGError, UsageError
from kg.files import write_atomically

if TYPE_CHECKING:
    from kg.explore.lookup import LabelIndex
    from kg.explore.projection import Projection
    from kg.store import Store
    from kg.store.worker import QueryRunner

DEFAULT_LIMIT = 1000
"""Rows shown before a result is cut (``.limit N``; ``.limit 0`` shows all)."""

APP_DIR = "abstract-kg"

T = TypeVar("T")


def data_dir() -> Path:
    """``$XDG_DATA_HOME/abstract-kg``, or ``~/.local/share/abstract-kg`` (not created here).

    A relative ``$XDG_DATA_HOME`` is ignored, as the XDG Base Directory specification says.

    Examples
    --------
    >>> import os
    >>> os.environ["XDG_DATA_HOME"] = "/tmp/xdg"
    >>> str(data_dir())
    '/tmp/xdg/abstract-kg'
    >>> del os.environ["XDG_DATA_HOME"]
    """
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / APP_DIR


def history_path() -> Path:
    """The file of the prompt's persistent history."""
    return data_dir() / "history"


def queries_path() -> Path:
    """The JSON file of saved queries (``.save NAME`` / ``.run NAME``)."""
    return data_dir() / "queries.json"


class SavedQueries:
    """Named SPARQL queries in a JSON object ``{name: query}``, written atomically.

    Parameters
    ----------
    path : path-like
        The JSON file; it and its folder are created on the first save.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as err:
            raise UsageError(f"{self.path}: cannot read the saved queries: {err}") from None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise UsageError(f"{self.path}: not a JSON object of named queries")
        return data

    def names(self) -> list[str]:
        """The saved names, sorted."""
        return sorted(self._load())

    def items(self) -> list[tuple[str, str]]:
        """``(name, query)`` pairs, sorted by name."""
        return sorted(self._load().items())

    def get(self, name: str) -> str | None:
        """The query saved as ``name``, or None."""
        return self._load().get(name)

    def save(self, name: str, query: str) -> None:
        """Save (or replace) ``name``."""
        data = self._load()
        data[name] = query
        text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path, lambda stream: stream.write(text.encode("utf-8")))
        except OSError as err:
            raise UsageError(f"{self.path}: cannot save: {err.strerror or err}") from None


@dataclass
class Session:
    """Everything a command handler may read or change.

    Attributes
    ----------
    store : kg.store.Store
        The graph (embedded or a remote endpoint).
    location : str
        The store directory or endpoint URL, for messages.
    fmt : str
        Output format: one of :data:`kg.query.result.FORMATS`.
    timing : bool
        Show the time taken in the summary line.
    limit : int
        Show at most this many rows of a result; 0 for no limit.
    timeout : float or None
        Abandon a SPARQL statement that runs longer than this many seconds (``.timeout``);
        None for no limit.
    queries : kg.store.worker.QueryRunner or None
        What runs SPARQL statements so that Ctrl-C and :attr:`timeout` stop them: a
        :class:`kg.store.worker.QueryWorker` (a child process) for a local store, the endpoint
        store itself for a remote one (see :func:`kg.store.worker.query_runner`). None: the
        store runs them in this process, where neither can stop them.
    saved : SavedQueries
        Named queries, persisted.
    last_query : str or None
        The text of the last SPARQL query that ran, for ``.save``.
    running : bool
        False once ``.quit`` ran.
    cache : dict
        Derived data, computed once per session (see :meth:`cached`).
    notes : list of str
        What the statement running has to tell beside its result (which entity an ambiguous
        name was taken for); the shell shows them and empties the list after each statement.
    """

    store: Store
    location: str = ""
    fmt: str = "table"
    timing: bool = True
    limit: int = DEFAULT_LIMIT
    timeout: float | None = None
    queries: QueryRunner | None = None
    saved: SavedQueries = field(default_factory=lambda: SavedQueries(queries_path()))
    last_query: str | None = None
    running: bool = True
    cache: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def cached(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()`` once per session, under ``key``.

        Examples
        --------
        >>> session = Session(store=None)
        >>> session.cached("answer", lambda: 42), session.cached("answer", lambda: 0)
        (42, 42)
        """
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def refresh(self) -> bool:
        """Move to the graph a build published since the last statement, if one did, and drop what the
        session derived from the old one (labels, projection, completion names); a note says so.
        Called before each statement, so that a long session sees new papers and never stops a build.

        Returns whether the graph changed. A new graph that cannot be opened is noted, and the old
        one still read.
        """
        try:
            moved = self.store.refresh()
        except KGError as err:
            self.note(f"{err}; still reading the graph as it was")
            return False
        if moved:
            self.cache.clear()
            self.note("a build changed the graph since the last statement; reading the new one")
        return moved

    def labels(self) -> LabelIndex:
        """The store's entities by label and alias (for entity arguments)."""
        from kg.explore.lookup import LabelIndex

        return self.cached("labels", lambda: LabelIndex.from_store(self.store))

    def resolve(self, name: str) -> str:
        """The IRI of the entity called ``name`` (label, alias, prefixed name or IRI), by the one
        lookup of :meth:`kg.explore.lookup.LabelIndex.lookup`; when the name was ambiguous, a note
        says which entity was taken (:attr:`notes`).

        Raises
        ------
        kg.errors.EntityNotFoundError
            With "did you mean" suggestions.
        """
        name = name.strip()
        if not name:
            raise UsageError("name an entity (a label, an alias or an IRI)")
        choice = self.labels().lookup(name)
        self.note(choice.note())
        return choice.iri

    def note(self, *notes: str | None) -> None:
        """Keep ``notes`` (None for nothing to say) to show beside the statement's result."""
        self.notes.extend(note for note in notes if note)

    def projection(self) -> Projection:
        """The store's :class:`kg.explore.projection.Projection` for the path algorithms, loaded once.

        :func:`kg.explore.projection.load_projection` reads it from the store's cache when the store
        has not changed since it was cached.
        """
        from kg.explore.projection import load_projection

        return self.cached("projection", lambda: load_projection(self.store))
