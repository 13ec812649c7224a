"""The embedded store: an on-disk Oxigraph database in a store directory, read through rdflib.

SPARQL runs in Oxigraph's engine (``pyoxigraph``); values are bound with its ``substitutions``.

Examples
--------
>>> import tempfile, os
>>> from rdflib import Literal, URIRef
>>> from kg.rdf import KG, paper_iri
>>> from kg.store.base import open_store
>>> with tempfile.TemporaryDirectory() as tmp:
...     with open_store(os.path.join(tmp, "s"), create=True) as store:
...         store.write([(paper_iri("p1"), KG.sourceLocation, Literal("a.txt:1"))])
...         result = store.query("SELECT ?p ?where WHERE { ?p kg:sourceLocation ?where }",
...                              bindings={"p": URIRef(paper_iri("p1"))})
>>> [str(where) for _, where in result.rows]
['a.txt:1']
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING

from kg.errors import QueryError, QuerySyntaxError, StoreError
from kg.namespace import PREFIXES, STAGED_ADDITIONS, STAGED_REMOVALS
from kg.store.base import (
    Bindings,
    Quad,
    Store,
    Triple,
    acquire_lock,
    prepare_directory,
    refuse_update,
    release_lock,
)
from kg.store.queries import APPLY_STAGED, TRIPLE_COUNT

if TYPE_CHECKING:
    import pyoxigraph
    from rdflib import Graph

    from kg.query.result import Result


class EmbeddedStore(Store):
    """An on-disk Oxigraph store in a directory of this project."""

    name = "embedded"
    writable = True

    def __init__(self, path: str | os.PathLike[str], *, create: bool = False, write: bool = False) -> None:
        import pyoxigraph as ox

        self.path = Path(path)
        self._lock = None
        prepare_directory(self.path, create=create)
        self._lock = acquire_lock(self.path, exclusive=write or create)
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

    def query(self, sparql: str, *, bindings: Bindings | None = None, prefixes: dict[str, str] | None = None) -> Result:
        import pyoxigraph as ox

        from kg.query.result import Result
        from kg.query.terms import to_oxigraph

        started = time.perf_counter()
        substitutions = {ox.Variable(name): to_oxigraph(value) for name, value in (bindings or {}).items()}
        declared = PREFIXES if prefixes is None else prefixes
        try:
            answer = self._ox.query(sparql, prefixes=dict(declared), substitutions=substitutions)
        except SyntaxError as err:
            refuse_update(sparql)  # Oxigraph's query parser says only "expected CONSTRUCT"
            raise _syntax_error(err, sparql, declared) from None
        except OSError as err:
            raise QueryError(f"query failed: {err}") from None
        result = Result.from_oxigraph(answer, query=sparql)
        # Oxigraph's result iterator must be released in the thread that made it (the shell runs
        # queries in a worker thread); a comprehension's frame could keep it alive past this point.
        del answer
        result.elapsed = time.perf_counter() - started
        return result

    def write(self, triples: Iterable[Triple | Quad]) -> None:
        if not self.writable:
            raise StoreError(f"{self.path}: opened read-only")
        import pyoxigraph as ox

        from kg.query.terms import to_oxigraph

        self._ox.extend([ox.Quad(*(to_oxigraph(term) for term in item)) for item in triples])

    def replace(self, current: str, triples: Iterable[Triple], *, then: str | None = None) -> tuple[int, int]:
        """Replace what ``current`` selects by ``triples`` (see :meth:`Store.replace`).

        Only the difference is written, and neither side is held in memory: ``triples`` is read once,
        as it comes, and ``current`` is run twice, each triple compared by a 128-bit digest of its
        N-Triples form (a sorted array of 16 bytes a triple). Where there is nothing to remove (a
        first build), the additions go straight to the default graph, a transaction per
        :data:`CHUNK` triples, and ``then`` runs at the end: a process killed before leaves ``then``
        undone (the build's flag that consolidation is due), and the next replacement completes the
        work. Otherwise the removals and additions are staged in two named graphs, and one SPARQL
        update (a single transaction) applies them and runs ``then``; a process killed before it
        leaves the default graph as it was, and the next replacement discards the staged graphs
        first. Either way ``then`` runs only once the replacement is in the store.

        Examples
        --------
        >>> import tempfile, os
        >>> from rdflib import Literal, URIRef
        >>> from kg.store.base import open_store
        >>> a, p = URIRef("http://example.org/a"), URIRef("http://example.org/p")
        >>> everything = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     with open_store(os.path.join(tmp, "s"), create=True) as store:
        ...         store.write([(a, p, Literal("old")), (a, p, Literal("kept"))])
        ...         change = store.replace(everything, [(a, p, Literal("kept")), (a, p, Literal("new"))])
        ...         values = sorted(str(o) for _, _, o in store.graph)
        >>> change, values
        ((1, 1), ['kept', 'new'])
        """
        if not self.writable:
            raise StoreError(f"{self.path}: opened read-only")
        import pyoxigraph as ox

        from kg.query.terms import to_oxigraph

        removals, additions = ox.NamedNode(STAGED_REMOVALS), ox.NamedNode(STAGED_ADDITIONS)
        for graph in (removals, additions):
            self._ox.remove_graph(graph)
        found = _unique([_digests(chunk) for chunk in _chunks(self._selected(current), CHUNK)])
        target = ox.DefaultGraph() if not len(found) else additions
        wanted, fresh = [], []
        for chunk in _chunks((ox.Triple(*map(to_oxigraph, triple)) for triple in triples), CHUNK):
            digests = _digests(chunk, unique=False)
            new = ~_among(digests, found)
            self._ox.extend([ox.Quad(t.subject, t.predicate, t.object, target) for t, n in zip(chunk, new) if n])
            self._ox.flush()  # RocksDB would buffer up to 128 MB per column family, growing with the corpus
            wanted.append(digests)
            fresh.append(digests[new])
        wanted_digests = _unique(wanted)
        stale = []
        if len(found):
            for chunk in _chunks(self._selected(current), CHUNK):
                digests = _digests(chunk, unique=False)
                gone = ~_among(digests, wanted_digests)
                self._ox.extend([ox.Quad(t.subject, t.predicate, t.object, removals) for t, g in zip(chunk, gone) if g])
                self._ox.flush()
                stale.append(digests[gone])
        updates = [] if then is None else [then]
        if target == additions:
            updates.insert(0, APPLY_STAGED)
        if updates:
            self._ox.update(" ;\n".join(updates), prefixes=dict(PREFIXES))
        return len(_unique(stale)), len(_unique(fresh))

    def _selected(self, select: str):
        """The solutions of a ``SELECT ?s ?p ?o`` query, as triples, as Oxigraph streams them."""
        import pyoxigraph as ox

        for solution in self._ox.query(select, prefixes=dict(PREFIXES)):
            yield ox.Triple(*solution)

    def __len__(self) -> int:
        (row,) = self._ox.query(TRIPLE_COUNT)
        return int(row[0].value)

    def dump(self, stream: IO[bytes], rdf_format: pyoxigraph.RdfFormat) -> None:
        """Write the default graph to ``stream`` in an Oxigraph RDF format (the named graphs hold
        the build's bookkeeping, not the knowledge graph)."""
        import pyoxigraph as ox

        prefixes = PREFIXES if rdf_format.name in ("Turtle", "TriG", "N3", "RDF/XML") else None
        self._ox.dump(stream, rdf_format, prefixes=prefixes, from_graph=ox.DefaultGraph())

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
            release_lock(self._lock)
            self._lock = None


CHUNK = 50_000
"""Triples per transaction (and flush of the write buffers) when a replacement streams into the store."""


def _chunks(items, size: int):
    chunk = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _digests(triples, *, unique: bool = True):
    """The 128-bit BLAKE2 digests of ``triples`` (pyoxigraph Triples) in N-Triples, as a numpy array
    (sorted and without repeats if ``unique``)."""
    import hashlib

    import numpy as np

    digests = np.array([hashlib.blake2b(str(t).encode(), digest_size=16).digest() for t in triples], dtype="S16")
    return np.unique(digests) if unique else digests


def _unique(arrays):
    import numpy as np

    return np.unique(np.concatenate(arrays)) if arrays else np.array([], dtype="S16")


def _among(digests, sorted_digests):
    """Which of ``digests`` are in the sorted array ``sorted_digests``."""
    import numpy as np

    if not len(sorted_digests):
        return np.zeros(len(digests), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_digests, digests), len(sorted_digests) - 1)
    return sorted_digests[at] == digests


def _syntax_error(err: SyntaxError, sparql: str, declared: Mapping[str, str]) -> QuerySyntaxError:
    # Oxigraph reports "error at 2:7: expected ..." (line:column, 1-based), with long character-class lists.
    first = str(err).splitlines()[0]
    found = re.match(r"error at (\d+):(\d+):\s*(.*)", first)
    message = found.group(3) if found else first
    if "Prefix not found" in message:
        line, column = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
        message = unknown_prefix_message(sparql, line, column, declared)
    if found:
        return QuerySyntaxError(message, line=int(found.group(1)), column=int(found.group(2)))
    return QuerySyntaxError(message)


# The prefixed name that ends where Oxigraph stops: a prefix (possibly empty), a colon and a local part.
_PREFIXED_NAME_BEFORE = re.compile(r"(?<![\w.:-])([A-Za-z][\w.-]*)?:[^\s{}()<>,;]*$")


def unknown_prefix_message(sparql: str, line: int, column: int, declared: Mapping[str, str]) -> str:
    """Which prefix is unknown (Oxigraph only says that one is: the name ends before ``line:column``),
    and the prefixes that are declared.

    Examples
    --------
    >>> unknown_prefix_message("SELECT * {\\n  ?s foo:bar ?o }", 2, 13, {"kg": "urn:kg#", "rdfs": "urn:rdfs#"})
    "unknown prefix 'foo:'; declared: kg:, rdfs: (declare others with PREFIX)"
    """
    lines = sparql.splitlines()
    before = lines[line - 1][: max(column - 1, 0)] if 0 < line <= len(lines) else ""
    name = _PREFIXED_NAME_BEFORE.search(before)
    which = f" '{name.group(1) or ''}:'" if name else ""
    known = ", ".join(f"{prefix}:" for prefix in declared)
    return f"unknown prefix{which}; declared: {known} (declare others with PREFIX)"
