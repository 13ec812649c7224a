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
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING

from kg.errors import QueryError, QuerySyntaxError, StoreError
from kg.iterate import chunked
from kg.namespace import PREFIXES, STAGED_ADDITIONS, STAGED_REMOVALS
from kg.store.base import Bindings, Quad, QueryDataset, Store, Triple, refuse_update
from kg.store.directory import (
    FORMAT_VERSION,
    WORKING,
    BuildLock,
    check_marker,
    clear_unpublished,
    is_unpublished,
    mark_unpublished,
    write_marker,
)
from kg.store.queries import APPLY_STAGED, PAPER_COUNT, TRIPLE_COUNT
from kg.store.snapshots import (
    SNAPSHOTS,
    Snapshot,
    check_snapshot,
    current_snapshot,
    has_snapshot,
    hold_current_snapshot,
    publish_snapshot,
    remove_unread_snapshots,
    shares_tables,
    snapshot_record,
)

if TYPE_CHECKING:
    import pyoxigraph
    from rdflib import Graph

    from kg.query.result import Result


class EmbeddedStore(Store):
    """An on-disk Oxigraph store in a directory of this project.

    Opened for reading, it reads the store's current snapshot (see :mod:`kg.store.snapshots`),
    whatever a build is doing, until :meth:`refresh` moves it to a newer one. Opened for writing
    (``write`` or ``create``), it holds the build lock and writes the working database; what it
    wrote becomes the current snapshot when it is closed without an error (:meth:`publish`).
    """

    name = "embedded"
    writable = True

    def __init__(
        self, path: str | os.PathLike[str], *, create: bool = False, write: bool = False, wait: bool = False
    ) -> None:
        self.path = Path(path)
        self.writable = write or create
        self._lock: BuildLock | None = None
        self._snapshot: Snapshot | None = None
        self._ox: pyoxigraph.Store | None = None
        self._graph: Graph | None = None
        self._unpublished = False  # the working database holds something no snapshot has
        version = check_marker(self.path, create=create)
        if self.writable:
            self._open_working(version, wait=wait)
        else:
            if version < FORMAT_VERSION:
                _upgrade(self.path)
            self._open_snapshot()

    def _open_working(self, version: int, *, wait: bool) -> None:
        self._lock = BuildLock(self.path, wait=wait)
        try:
            self._check_working()
            self._ox = _open_database(self.path / WORKING, read_only=False)
            if version < FORMAT_VERSION:  # the database is the same: publish it as it is, so readers read on
                self.publish()
                write_marker(self.path)
            # Publish at the end, even with nothing to add, what a stopped build left unpublished, and
            # over a current snapshot that is gone or damaged (its database is a copy, the build's intact).
            self._unpublished = is_unpublished(self.path) or not self._snapshot_opens()
        except BaseException:
            self._release()
            raise

    def _snapshot_opens(self) -> bool:
        if not has_snapshot(self.path):
            return False
        name = str(current_snapshot(self.path))
        try:  # no reader lock needed: only a build removes snapshots, and this one holds the build lock
            check_snapshot(self.path, name)
            _open_database(self.path / SNAPSHOTS / name, read_only=True)
        except StoreError:
            return False
        return True

    def _check_working(self) -> None:
        """Refuse a working database that holds fewer papers than the graph published (builds only add
        papers; RocksDB opens a database whose MANIFEST was cut short as an older one, and would then
        delete the table files that older one lacks). Checked read-only, so a refused one is left as it is."""
        working = self.path / WORKING
        name = current_snapshot(self.path) if has_snapshot(self.path) else None
        if name is None:
            return
        if not working.is_dir():  # a new, empty one would be published with only this build's papers
            raise StoreError(
                f"{working}: the working database is missing; to build on the graph published, "
                f"copy it there: cp -a {self.path / SNAPSHOTS / name} {working}"
            )
        try:
            published = int(snapshot_record(self.path, name).get("papers", 0))
        except StoreError:
            return  # the snapshot is damaged, not (necessarily) the database: the build publishes anew
        held = _papers(_open_database(working, read_only=True), working)
        if held < published:
            raise StoreError(f"{working}: damaged database: it holds {held} papers, the graph published {published}")

    def _papers(self) -> int:
        return _papers(self._ox, self.path / WORKING)

    def _open_snapshot(self) -> None:
        snapshot = hold_current_snapshot(self.path)
        try:
            self._ox = _open_database(snapshot.directory, read_only=True)
        except BaseException:
            snapshot.release()
            raise
        self._snapshot = snapshot

    @property
    def snapshot(self) -> Snapshot | None:
        """The snapshot read (None when open for writing)."""
        return self._snapshot

    @property
    def published(self) -> bool:
        """Whether readers have a graph to read (some snapshot was published)."""
        return self._snapshot is not None or has_snapshot(self.path)

    def refresh(self) -> bool:
        """Move a reader to the current snapshot if a build published a newer one since it was opened;
        returns whether the graph changed (a build that added nothing may publish the same graph
        again). The rdflib :attr:`graph` is replaced too.

        Raises
        ------
        kg.errors.StoreError
            The new snapshot cannot be opened (the old one is then still read).
        """
        if self._snapshot is None or current_snapshot(self.path) in (None, self._snapshot.name):
            return False
        previous = self._snapshot
        self._open_snapshot()
        self._graph = None
        previous.release()
        return self._snapshot.key != previous.key

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
        from kg.query.result import Result

        started = time.perf_counter()
        answer = self.answer(sparql, bindings=bindings, prefixes=prefixes)
        failure = None
        try:
            result = Result.from_oxigraph(answer, query=sparql)
        except (OSError, RuntimeError) as err:
            failure = _one_line(err)  # raised below: the error's traceback would keep the iterator alive
        # Oxigraph's result iterator must be released in the thread that made it (the shell runs
        # queries in a worker thread); a comprehension's frame could keep it alive past this point.
        del answer
        if failure is not None:
            raise QueryError(f"query failed: {failure}")
        result.elapsed = time.perf_counter() - started
        return result

    def answer(
        self,
        sparql: str,
        *,
        bindings: Bindings | None = None,
        prefixes: dict[str, str] | None = None,
        dataset: QueryDataset | None = None,
    ) -> pyoxigraph.QuerySolutions | pyoxigraph.QueryBoolean | pyoxigraph.QueryTriples:
        """Oxigraph's own answer to ``sparql`` (see :meth:`query`), not yet read: what
        :meth:`query` makes its Result of, and :mod:`kg.store.worker` writes to its pipe.
        ``dataset``, if given, replaces the query's own ``FROM`` and ``FROM NAMED``.

        Raises
        ------
        kg.errors.QuerySyntaxError, kg.errors.UpdateRefusedError, kg.errors.QueryError
            As :meth:`query` does.
        """
        import pyoxigraph as ox

        substitutions = {}
        if bindings:
            from kg.query.terms import to_oxigraph

            substitutions = {ox.Variable(name): to_oxigraph(value) for name, value in bindings.items()}
        graphs = {}
        if dataset is not None:
            graphs = {
                "default_graph": [ox.NamedNode(iri) for iri in dataset.default],
                "named_graphs": [ox.NamedNode(iri) for iri in dataset.named],
            }
        declared = PREFIXES if prefixes is None else prefixes
        try:
            return self._ox.query(sparql, prefixes=dict(declared), substitutions=substitutions, **graphs)
        except SyntaxError as err:
            refuse_update(sparql)  # Oxigraph's query parser says only "expected CONSTRUCT"
            raise _syntax_error(err, sparql, declared) from None
        except (OSError, RuntimeError) as err:  # RuntimeError: Oxigraph's word for damaged data
            raise QueryError(f"query failed: {_one_line(err)}") from None

    def write(self, triples: Iterable[Triple | Quad]) -> None:
        if not self.writable:
            raise StoreError(f"{self.path}: opened read-only")
        import pyoxigraph as ox

        from kg.query.terms import to_oxigraph

        quads = [ox.Quad(*(to_oxigraph(term) for term in item)) for item in triples]
        if not self._unpublished and all(quad in self._ox for quad in quads):
            return  # nothing new (a rebuild recording source locations it has): nothing to publish
        with self._writing():
            self._ox.extend(quads)

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

        with self._writing():
            removals, additions = ox.NamedNode(STAGED_REMOVALS), ox.NamedNode(STAGED_ADDITIONS)
            for graph in (removals, additions):
                self._ox.remove_graph(graph)
            found = _unique([_digests(chunk) for chunk in chunked(self._selected(current), CHUNK)])
            target = ox.DefaultGraph() if not len(found) else additions
            wanted, fresh = [], []
            for chunk in chunked((ox.Triple(*map(to_oxigraph, triple)) for triple in triples), CHUNK):
                digests = _digests(chunk, unique=False)
                new = ~_among(digests, found)
                self._ox.extend([ox.Quad(t.subject, t.predicate, t.object, target) for t, n in zip(chunk, new) if n])
                self._ox.flush()  # RocksDB would buffer up to 128 MB per column family, growing with the corpus
                wanted.append(digests)
                fresh.append(digests[new])
            wanted_digests = _unique(wanted)
            stale = []
            if len(found):
                for chunk in chunked(self._selected(current), CHUNK):
                    digests = _digests(chunk, unique=False)
                    gone = ~_among(digests, wanted_digests)
                    self._ox.extend(
                        [ox.Quad(t.subject, t.predicate, t.object, removals) for t, g in zip(chunk, gone) if g]
                    )
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

    def update(self, sparql: str) -> None:
        """Run the SPARQL update ``sparql`` (the project's prefixes declared) in one transaction; it is
        published with what else was written when the store is closed.

        Raises
        ------
        SyntaxError
            The update does not parse.
        RuntimeError
            It cannot apply (a ``DROP GRAPH`` of a graph that is not there).
        OSError
            Writing failed.
        """
        if not self.writable:
            raise StoreError(f"{self.path}: opened read-only")
        self._mark_unpublished()
        self._ox.update(sparql, prefixes=dict(PREFIXES))

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Around every change of the working database: mark it unpublished first, and report a
        failure to write (a full disk) as one line."""
        self._mark_unpublished()
        try:
            yield
        except (OSError, RuntimeError) as err:
            raise StoreError(f"{self.path}: cannot write the store: {_one_line(err)}") from None

    def _mark_unpublished(self) -> None:
        if not self._unpublished:
            mark_unpublished(self.path)
            self._unpublished = True

    def publish(self, *, changed: bool = True) -> str:
        """Make what was written the current snapshot, which readers open from now on; returns its
        name. (Closing the store publishes what was written, and removes the older snapshots that
        no reader holds.) With ``changed`` false the graph is the one published last, and what was
        cached of it stays valid.

        Raises
        ------
        kg.errors.StoreError
            The snapshot cannot be written (a full disk); the previous one is still current.
        """
        if not self.writable:
            raise StoreError(f"{self.path}: opened read-only")
        content = uuid.uuid4().hex
        if not changed and self._snapshot_opens():
            content = str(snapshot_record(self.path, str(current_snapshot(self.path))).get("content") or content)
        try:
            name = publish_snapshot(self._ox, self.path, papers=self._papers(), content=content)
        except (OSError, RuntimeError) as err:
            raise StoreError(f"{self.path}: cannot publish the graph: {_one_line(err)}") from None
        clear_unpublished(self.path)
        self._unpublished = False
        return name

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
        """Write a writer's buffers to disk (RocksDB does so in the background anyway)."""
        if self.writable and self._ox is not None:
            try:
                self._ox.flush()
            except (OSError, RuntimeError) as err:
                raise StoreError(f"{self.path}: cannot write the store: {_one_line(err)}") from None

    def close(self) -> None:
        """Release the store; a writer first publishes what it wrote (:meth:`publish`)."""
        self._finish(publish=True)

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        # A writer stopped by an error publishes nothing: the next build completes what it began.
        self._finish(publish=kind is None)

    def _finish(self, *, publish: bool) -> None:
        try:
            if self.writable and self._ox is not None and publish:
                current = current_snapshot(self.path)
                if self._unpublished:
                    self.publish()
                elif current is not None and not shares_tables(self.path, current):
                    # The database compacted its tables: the snapshot's copies would double the store's
                    # size; a snapshot of the same graph taken now shares them again.
                    self.publish(changed=False)
                self.flush()
                # Snapshots that readers held at the last publication go once they are let go.
                current = current_snapshot(self.path)
                if current is not None:
                    remove_unread_snapshots(self.path, keep=current)
        finally:
            self._ox = None
            self._graph = None
            self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        if self._snapshot is not None:
            self._snapshot.release()
            self._snapshot = None


def _open_database(directory: Path, *, read_only: bool) -> pyoxigraph.Store:
    import pyoxigraph as ox

    try:
        return ox.Store.read_only(str(directory)) if read_only else ox.Store(str(directory))
    except OSError as err:
        raise StoreError(f"{directory}: cannot open the database: {_one_line(err)}") from None
    except RuntimeError as err:  # Oxigraph's word for damaged data ("Corruption: ...")
        raise StoreError(f"{directory}: damaged database: {_one_line(err)}") from None


def _papers(database: pyoxigraph.Store, directory: Path) -> int:
    try:
        (row,) = database.query(PAPER_COUNT, prefixes=dict(PREFIXES))
    except (OSError, RuntimeError) as err:
        raise StoreError(f"{directory}: damaged database: {_one_line(err)}") from None
    return int(row[0].value)


def _upgrade(path: Path) -> None:
    """Publish the database of a store of the previous format as its first snapshot, and mark it
    of this format (a reader does this once; the build lock keeps builds out meanwhile)."""
    try:
        EmbeddedStore(path, write=True).close()
    except StoreError as err:
        raise StoreError(f"{path}: a store of format 2 is upgraded before it is read, and cannot be: {err}") from None


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


CHUNK = 50_000
"""Triples per transaction (and flush of the write buffers) when a replacement streams into the store."""


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
