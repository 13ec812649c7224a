"""The store interface, the backends by name, and the layout of a store directory.

A backend is a :class:`Store` subclass; defining one registers it in :data:`BACKENDS` under
its ``name``, and :func:`open_store` picks one from there. A store directory is laid out as::

    DIR/kg-store.json   marker and format version
    DIR/lock            flock: exclusive while a build writes, shared while others read
    DIR/oxigraph/       the Oxigraph (RocksDB) database
    DIR/cache/          derived data (the NetworkX projection), safe to delete

Examples
--------
>>> sorted(BACKENDS)
['embedded', 'endpoint']
>>> open_store(endpoint="http://localhost:7878/query", write=True)
Traceback (most recent call last):
...
kg.errors.UsageError: a remote endpoint is read-only here; build into a local --store
"""

from __future__ import annotations

import fcntl
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, ClassVar

from kg.errors import StoreError, StoreNotFoundError, UpdateRefusedError

if TYPE_CHECKING:
    from rdflib import Graph
    from rdflib.term import Node

    from kg.query.result import Result

MARKER = "kg-store.json"
FORMAT_VERSION = 2  # 2: each paper's extraction record is kept beside it (kg.build.extraction_graph)
DEFAULT_STORE = ".kg"

Triple = tuple["Node", "Node", "Node"]
Quad = tuple["Node", "Node", "Node", "Node"]
"""A triple in the named graph its fourth term names."""
Bindings = Mapping[str, "Node"]
"""Values for a query's variables, by name without the ``?``: rdflib terms."""


def default_store_path() -> str:
    """``$KG_STORE`` if set, else ``./.kg``."""
    return os.environ.get("KG_STORE") or DEFAULT_STORE


BACKENDS: dict[str, type[Store]] = {}
"""Every backend by its name: ``embedded`` and ``endpoint``."""


class Store(ABC):
    """What every backend offers: SPARQL, an rdflib Graph, counting, and closing."""

    name: ClassVar[str]
    writable: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        BACKENDS[cls.name] = cls

    @abstractmethod
    def __init__(self, location: str | os.PathLike[str], *, create: bool = False, write: bool = False) -> None:
        """Open the store at ``location`` (a directory, or a URL for a remote store)."""

    @property
    @abstractmethod
    def graph(self) -> Graph:
        """The rdflib Graph over this store's default graph."""

    @abstractmethod
    def query(self, sparql: str, *, bindings: Bindings | None = None, prefixes: dict[str, str] | None = None) -> Result:
        """Run a SPARQL query, with the project's prefixes declared, and return a Result.

        ``bindings`` gives variables their values (``{"entity": URIRef(...)}``) without writing
        them into the text, as if the query had named them; a bound variable must be one the
        query selects (Oxigraph's rule). The queries of :mod:`kg.store.queries` say which of
        their variables may be bound.
        """

    @abstractmethod
    def __len__(self) -> int:
        """Number of triples."""

    def close(self) -> None:
        """Release the store."""

    def write(self, triples: Iterable[Triple | Quad]) -> None:
        """Add triples in one transaction: all of them or none. A quad's fourth term names the
        graph it goes to; a triple goes to the default graph."""
        raise StoreError(f"the {self.name} store is read-only")

    def replace(self, current: str, triples: Iterable[Triple], *, then: str | None = None) -> tuple[int, int]:
        """Make the default graph's triples that the ``SELECT ?s ?p ?o`` query ``current`` finds
        exactly ``triples``, in one transaction, and run the SPARQL update ``then`` only once
        that is in the store.

        Returns the number of triples removed and added.
        """
        raise StoreError(f"the {self.name} store is read-only")

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(
    location: str | os.PathLike[str] | None = None,
    *,
    create: bool = False,
    write: bool = False,
    endpoint: str | None = None,
) -> Store:
    """Open the store at ``location`` (a directory) or the remote ``endpoint``.

    Parameters
    ----------
    location : path, optional
        The store directory; defaults to ``$KG_STORE`` or ``./.kg``.
    create : bool
        Create the store if it does not exist (implies ``write``).
    write : bool
        Open for writing, holding the store's exclusive lock.
    endpoint : str, optional
        URL of a SPARQL 1.1 endpoint, used instead of a directory.
    """
    if endpoint:
        return BACKENDS["endpoint"](endpoint, create=create, write=write)
    return BACKENDS["embedded"](location or default_store_path(), create=create, write=write)


def refuse_update(sparql: str) -> None:
    """Raise :class:`UpdateRefusedError` if ``sparql`` is a SPARQL update rather than a query.

    Examples
    --------
    >>> refuse_update("SELECT * WHERE { ?s ?p ?o }")
    >>> refuse_update("DELETE WHERE { ?s ?p ?o }")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kg.errors.UpdateRefusedError: DELETE WHERE is a SPARQL update, and updates are not accepted: ...
    """
    from kg.query.sparql import UPDATE_OPERATIONS, operation

    found = operation(sparql)
    if found is not None and found.split()[0] in UPDATE_OPERATIONS:
        raise UpdateRefusedError(found)


def prepare_directory(path: Path, *, create: bool) -> None:
    """Check the marker of the store directory ``path``, or make a new store there if ``create``."""
    marker = path / MARKER
    if marker.is_file():
        try:
            version = json.loads(marker.read_text()).get("format")
        except (OSError, ValueError):
            raise StoreError(f"{path}: damaged store marker {MARKER}") from None
        if version != FORMAT_VERSION:
            raise StoreError(f"{path}: store format {version}, this kg reads format {FORMAT_VERSION}; rebuild it")
        return
    if not create:
        raise StoreNotFoundError(f"{path}: no graph store here; run `kg build SOURCE --store {path}` first")
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise StoreNotFoundError(f"{path}: exists and is not a kg store; choose an empty or new directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"format": FORMAT_VERSION}) + "\n")
    except OSError as err:
        raise StoreError(f"{path}: cannot create the store: {err.strerror}") from None


def acquire_lock(path: Path, *, exclusive: bool) -> IO[str]:
    """Hold the lock of the store directory ``path``: exclusive to write, shared to read."""
    handle = open(path / "lock", "a+")
    try:
        fcntl.flock(handle, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        doing = "reading it (a shell or query?)" if exclusive else "building it"
        raise StoreError(f"{path}: the store is in use by another process {doing}; try again when it ends") from None
    return handle


def release_lock(handle: IO[str]) -> None:
    """Let go of a lock taken with :func:`acquire_lock`."""
    fcntl.flock(handle, fcntl.LOCK_UN)
    handle.close()
