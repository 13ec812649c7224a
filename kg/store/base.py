"""The store interface, the backends by name, and the layout of a store directory.

A backend is a :class:`Store` subclass; defining one registers it in :data:`BACKENDS` under
its ``name``, and :func:`open_store` picks one from there. A store directory (format 3) is laid
out as::

    DIR/kg-store.json   marker and format version
    DIR/lock            flock held exclusively by the one build writing the store, with its process id
                        in it; readers never hold it
    DIR/oxigraph/       the working Oxigraph (RocksDB) database, written by builds only
    DIR/snapshots/N/    published snapshots of it (RocksDB checkpoints: hard links to its immutable
                        table files); never written; a reader holds a shared flock on the one it reads
    DIR/snapshots/N.json  what snapshot N holds (papers, files with sizes and digests), checked on opening
    DIR/current         the name N of the current snapshot, replaced atomically when a build publishes
    DIR/unpublished     present while the working database holds what no snapshot has (a build
                        stopped before it published): the next build publishes it
    DIR/cache/          derived data (the NetworkX projection), kept per snapshot, safe to delete

Readers (``open_store`` without ``write``) open the current snapshot, so they read while a build
writes and never stop one; a build publishes a new snapshot when it finishes, and removes the older
ones no reader holds (:mod:`kg.store.snapshots`; the marker and the build's lock are
:mod:`kg.store.directory`). A store of format 2 (no snapshots) is upgraded when it is first opened.

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

import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from kg.errors import StoreError, UpdateRefusedError

if TYPE_CHECKING:
    from rdflib import Graph
    from rdflib.term import Node

    from kg.query.result import Result

DEFAULT_STORE = ".kg"

Triple = tuple["Node", "Node", "Node"]
Quad = tuple["Node", "Node", "Node", "Node"]
"""A triple in the named graph its fourth term names."""
Bindings = Mapping[str, "Node"]
"""Values for a query's variables, by name without the ``?``: rdflib terms."""


@dataclass(frozen=True)
class QueryDataset:
    """The graphs a query reads, named outside it, as the SPARQL 1.1 Protocol's ``default-graph-uri`` and
    ``named-graph-uri`` name them: they replace the query's own ``FROM`` and ``FROM NAMED``.

    ``default``: the IRIs of the graphs merged into the query's default graph (none: an empty one);
    ``named``: the IRIs of the graphs ``GRAPH`` may read (none: no named graph).
    """

    default: tuple[str, ...] = ()
    named: tuple[str, ...] = ()


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

    def refresh(self) -> bool:
        """Move to the graph's newest published state if a build changed it since the store was
        opened (an embedded store reads one snapshot until then); returns whether the graph changed.
        A long-lived reader (the shell) calls this between statements."""
        return False

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
    wait: bool = False,
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
        Open for writing, as the one build writing the store (holding its build lock); otherwise
        the store's current snapshot is read.
    wait : bool
        When another build holds the store, wait for it to finish instead of raising
        :class:`kg.errors.StoreBusyError`.
    endpoint : str, optional
        URL of a SPARQL 1.1 endpoint, used instead of a directory.
    """
    if endpoint:
        return BACKENDS["endpoint"](endpoint, create=create, write=write)
    return BACKENDS["embedded"](location or default_store_path(), create=create, write=write, wait=wait)


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
