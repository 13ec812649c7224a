"""Where the graph lives: a small store interface and its backends, looked up by name.

``embedded`` is an on-disk Oxigraph store read through rdflib (``oxrdflib``), so SPARQL
runs in Oxigraph's engine; ``endpoint`` is a remote SPARQL 1.1 endpoint (read-only here).
A store directory is laid out as::

    DIR/kg-store.json   marker and format version
    DIR/lock            flock: exclusive while a build writes, shared while others read
    DIR/oxigraph/       the Oxigraph (RocksDB) database
    DIR/cache/          derived data (the NetworkX projection), safe to delete

Examples
--------
>>> import tempfile, os
>>> from rdflib import Literal
>>> from kg.rdf import KG, paper_iri
>>> with tempfile.TemporaryDirectory() as tmp:
...     with open_store(os.path.join(tmp, "s"), create=True) as store:
...         store.write([(paper_iri("p1"), KG.sourceLocation, Literal("a.txt:1"))])
...         len(store)
1
"""
from __future__ import annotations

import fcntl
import json
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, ClassVar

from kg.errors import QueryError, QuerySyntaxError, StoreError, UsageError
from kg.namespace import PREFIXES

if TYPE_CHECKING:
    import pyoxigraph
    from rdflib import Graph
    from rdflib.term import Node

    from kg.query.result import Result

MARKER = "kg-store.json"
FORMAT_VERSION = 1
DEFAULT_STORE = ".kg"

Triple = tuple["Node", "Node", "Node"]


def default_store_path() -> str:
    """``$KG_STORE`` if set, else ``./.kg``."""
    return os.environ.get("KG_STORE") or DEFAULT_STORE


class Store(ABC):
    """What every backend offers: SPARQL, an rdflib Graph, counting, and closing."""

    name: ClassVar[str]
    writable: ClassVar[bool] = False

    @property
    @abstractmethod
    def graph(self) -> Graph:
        """The rdflib Graph over this store's default graph."""

    @abstractmethod
    def query(self, sparql: str, *, prefixes: dict[str, str] | None = None) -> Result:
        """Run a SPARQL query, with the project's prefixes declared, and return a Result."""

    @abstractmethod
    def __len__(self) -> int:
        """Number of triples."""

    def close(self) -> None:
        """Release the store."""

    def write(self, triples: Iterable[Triple]) -> None:
        """Add triples in one transaction: all of them or none."""
        raise StoreError(f"the {self.name} store is read-only")

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EmbeddedStore(Store):
    """An on-disk Oxigraph store in a directory of this project."""

    name = "embedded"
    writable = True

    def __init__(self, path: str | os.PathLike[str], *, create: bool = False, write: bool = False) -> None:
        import pyoxigraph as ox

        self.path = Path(path)
        self._lock = None
        _prepare_directory(self.path, create=create)
        self._lock = _acquire_lock(self.path, exclusive=write or create)
        try:
            db = self.path / "oxigraph"
            self._ox: pyoxigraph.Store = ox.Store(str(db)) if (write or create) else ox.Store.read_only(str(db))
        except OSError as err:
            self._release()
            raise StoreError(f"{self.path}: cannot open the store: {err}") from None
        self._graph: Graph | None = None
        self.writable = write or create

    @property
    def ox(self) -> pyoxigraph.Store:
        """The underlying pyoxigraph Store, for bulk work (dump, transactional writes)."""
        return self._ox

    @property
    def graph(self) -> Graph:
        if self._graph is None:
            from oxrdflib import OxigraphStore
            from rdflib import Graph
            from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

            self._graph = Graph(store=OxigraphStore(store=self._ox), identifier=DATASET_DEFAULT_GRAPH_ID)
            for prefix, iri in PREFIXES.items():
                self._graph.bind(prefix, iri, override=True)
        return self._graph

    def query(self, sparql: str, *, prefixes: dict[str, str] | None = None) -> Result:
        from kg.query.result import Result

        started = time.perf_counter()
        try:
            answer = self._ox.query(sparql, prefixes=dict(PREFIXES if prefixes is None else prefixes))
        except SyntaxError as err:
            raise _syntax_error(err) from None
        except OSError as err:
            raise QueryError(f"query failed: {err}") from None
        result = Result.from_oxigraph(answer)
        # Oxigraph's result iterator must be released in the thread that made it (the shell runs
        # queries in a worker thread); a comprehension's frame could keep it alive past this point.
        del answer
        result.elapsed = time.perf_counter() - started
        return result

    def write(self, triples: Iterable[Triple]) -> None:
        if not self.writable:
            raise StoreError(f"{self.path}: opened read-only")
        import pyoxigraph as ox

        from kg.query.terms import to_oxigraph

        quads = [ox.Quad(to_oxigraph(s), to_oxigraph(p), to_oxigraph(o)) for s, p, o in triples]
        self._ox.extend(quads)

    def __len__(self) -> int:
        (row,) = self._ox.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        return int(row[0].value)

    def dump(self, stream: IO[bytes], rdf_format: pyoxigraph.RdfFormat) -> None:
        """Write the default graph to ``stream`` in an Oxigraph RDF format."""
        import pyoxigraph as ox

        kwargs = {} if rdf_format.supports_datasets else {"from_graph": ox.DefaultGraph()}
        prefixes = PREFIXES if rdf_format.name in ("Turtle", "TriG", "N3", "RDF/XML") else None
        self._ox.dump(stream, rdf_format, prefixes=prefixes, **kwargs)

    def flush(self) -> None:
        if self.writable:
            self._ox.flush()

    def close(self) -> None:
        if getattr(self, "_ox", None) is not None:
            self.flush()
            del self._ox
            self._ox = None  # type: ignore[assignment]
            self._graph = None
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None


class EndpointStore(Store):
    """A remote SPARQL 1.1 endpoint (Fuseki, GraphDB, Virtuoso, QLever, Oxigraph server), read-only."""

    name = "endpoint"

    def __init__(self, url: str) -> None:
        if not url.startswith(("http://", "https://")):
            raise UsageError(f"--endpoint must be an http(s) URL, not {url!r}")
        self.url = url
        self._graph: Graph | None = None

    @property
    def graph(self) -> Graph:
        if self._graph is None:
            from rdflib import Graph
            from rdflib.plugins.stores.sparqlstore import SPARQLStore

            self._graph = Graph(store=SPARQLStore(query_endpoint=self.url, returnFormat="json"))
        return self._graph

    def query(self, sparql: str, *, prefixes: dict[str, str] | None = None) -> Result:
        from kg.namespace import sparql_prologue
        from kg.query.result import Result

        started = time.perf_counter()
        text = sparql_prologue(PREFIXES if prefixes is None else prefixes) + sparql
        try:
            answer = self.graph.query(text)
            result = Result.from_rdflib(answer)
        except Exception as err:  # the endpoint's errors come in many library types
            raise QueryError(f"{self.url}: {_first_line(err)}") from None
        result.elapsed = time.perf_counter() - started
        return result

    def __len__(self) -> int:
        result = self.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        return int(result.rows[0][0].toPython())


STORES: dict[str, type[Store]] = {"embedded": EmbeddedStore, "endpoint": EndpointStore}


def open_store(location: str | os.PathLike[str] | None = None, *, create: bool = False,
               write: bool = False, endpoint: str | None = None) -> Store:
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
        if create or write:
            raise UsageError("a remote endpoint is read-only here; build into a local --store")
        return EndpointStore(endpoint)
    return EmbeddedStore(location or default_store_path(), create=create, write=write)


def _prepare_directory(path: Path, *, create: bool) -> None:
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
        raise StoreError(f"{path}: no graph store here; run `kg build SOURCE --store {path}` first")
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise StoreError(f"{path}: exists and is not a kg store; choose an empty or new directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"format": FORMAT_VERSION}) + "\n")
    except OSError as err:
        raise StoreError(f"{path}: cannot create the store: {err.strerror}") from None


def _acquire_lock(path: Path, *, exclusive: bool) -> IO[str]:
    handle = open(path / "lock", "a+")
    try:
        fcntl.flock(handle, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        doing = "reading it (a shell or query?)" if exclusive else "building it"
        raise StoreError(f"{path}: the store is in use by another process {doing}; try again when it ends") from None
    return handle


def _syntax_error(err: SyntaxError) -> QuerySyntaxError:
    # Oxigraph reports "error at 2:7: expected ..." (line:column, 1-based), with long character-class lists.
    import re

    first = str(err).splitlines()[0]
    found = re.match(r"error at (\d+):(\d+):\s*(.*)", first)
    message = found.group(3) if found else first
    if "Prefix not found" in message:
        message = "unknown prefix (declare it with PREFIX; see .prefixes)"
    if found:
        return QuerySyntaxError(message, line=int(found.group(1)), column=int(found.group(2)))
    return QuerySyntaxError(message)


def _first_line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]
