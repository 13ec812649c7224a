"""What the server does with the store outside its query processes: reading a whole graph for the Graph
Store Protocol's GET, and, with ``--allow-update``, writing it for SPARQL Update and the Graph Store
Protocol's PUT, POST and DELETE.

A read opens the store read-only, as a query process does (:func:`kg.store.open_store`), and writes the
graph in the chosen syntax to a file: the default graph by the exporter of ``kg export``, a named graph
by pyoxigraph. A write runs in a child process (``python -m kg.serve.storage``, :func:`write_in_child`),
so that its time limit can end it, as a query's ends its query process: the child opens the store for
writing as ``kg build`` does (``write=True``, which takes the store's exclusive lock), runs one SPARQL
update (one transaction: a PUT's drop and insert land together or not at all) and closes the store,
which publishes what it wrote. An update ended by its time limit has not committed, so nothing of it is
written; the query processes read the snapshot published last meanwhile, and the next query reads the
update's. An uploaded graph is parsed by pyoxigraph, then written out as N-Triples into the update's
``INSERT DATA`` (:func:`kg.store.queries.insert_data`). ``LOAD`` is refused before any of this (see
:mod:`kg.serve.app`): the server reads no file or URL that a client names.
"""

from __future__ import annotations

import os
import pickle
import select
import subprocess
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from kg.errors import StoreError
from kg.namespace import PREFIXES
from kg.store import EmbeddedStore, open_store
from kg.store.queries import drop_graph, insert_data
from kg.store.worker import child_environment, exit_with_parent

if TYPE_CHECKING:
    import pyoxigraph

__all__ = [
    "StoreBusy",
    "UpdateTimeout",
    "dump_graph",
    "parse_graph",
    "run_update",
    "upload_update",
    "write_in_child",
]

_APPLIED, _REFUSED = b"A", b"E"  # the child's first byte: the update committed, or it failed before


class StoreBusy(Exception):
    """Another process holds the store (a build writing it)."""


class UpdateTimeout(Exception):
    """The write ran past its time limit: its process was ended before it committed, and nothing was written."""


def write_in_child(location: str, update: str, *, graph: str | None = None, timeout: float) -> bool:
    """Run the SPARQL ``update`` on the store at ``location`` in a child process opened for writing; with
    ``graph``, only if the store has that named graph (False, writing nothing, when it has not; True
    otherwise).

    Raises
    ------
    UpdateTimeout
        The write did not commit within ``timeout`` seconds; the child was ended.
    StoreBusy
        The store's lock is held by another process.
    SyntaxError, RuntimeError, OSError
        As :func:`run_update` raises them.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "kg.serve.storage", location],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=child_environment(),
    )
    try:
        with process.stdin:  # type: ignore[union-attr]
            process.stdin.write(pickle.dumps((update, graph)))  # type: ignore[union-attr]
        if not select.select([process.stdout], [], [], timeout)[0]:
            raise UpdateTimeout(timeout)
        # Once committed, the write is waited for to its end: closing the store publishes it.
        first, reply = process.stdout.read(1), process.stdout.read()  # type: ignore[union-attr]
        process.wait()
    except BaseException:
        process.kill()
        process.wait()
        raise
    finally:
        process.stdout.close()  # type: ignore[union-attr]
    if first not in (_APPLIED, _REFUSED) or not reply:
        raise OSError(f"the update's process ended unexpectedly (exit status {process.returncode})")
    outcome, value = pickle.loads(reply)
    if outcome == "error":
        raise value
    return value


def _write(location: str, update: str, graph: str | None, committed: Callable[[], None]) -> bool:
    """The child's write; ``committed`` is called once the update has committed."""
    try:
        store = open_store(location, write=True)
    except StoreError as err:
        raise StoreBusy(str(err)) from None
    with store:
        if graph is not None and not graph_exists(store, graph):  # type: ignore[arg-type]  # an EmbeddedStore
            return False
        run_update(store, update)  # type: ignore[arg-type]
        committed()
    return True


def run_update(store: EmbeddedStore, sparql: str) -> None:
    """Run a client's SPARQL update, with the project's prefixes declared as for queries.

    Raises
    ------
    SyntaxError
        The update does not parse.
    RuntimeError
        The update cannot apply (a ``DROP GRAPH`` of a graph that is not there).
    OSError
        Writing the store failed.
    """
    store.update(sparql)


def parse_graph(body: bytes, rdf_format: pyoxigraph.RdfFormat, *, base: str | None) -> str:
    """The triples of an uploaded graph as N-Triples text.

    Raises
    ------
    SyntaxError
        The body is not in ``rdf_format``, or (in a syntax for datasets) puts triples in a named graph:
        a Graph Store request writes one graph, the one its URL names.
    """
    import pyoxigraph as ox

    triples = []
    for quad in ox.parse(body, format=rdf_format, base_iri=base):
        if not isinstance(quad.graph_name, ox.DefaultGraph):
            raise SyntaxError(f"it puts triples in the named graph {quad.graph_name}; upload one graph")
        triples.append(quad.triple)
    return ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES).decode("utf-8")


def upload_update(ntriples: str, graph: str | None, *, replace: bool) -> str:
    """The update that adds ``ntriples`` to ``graph`` (None: the default graph), replacing what it held
    when ``replace`` (a PUT) rather than adding to it (a POST)."""
    insert = insert_data(ntriples, graph)
    return f"{drop_graph(graph)} ;\n{insert}" if replace else insert


def dump_graph(location: str, graph: str | None, fmt: str, stream: IO[bytes]) -> bool:
    """Write ``graph`` (None: the default graph) of the store at ``location`` to ``stream`` in the RDF syntax
    ``fmt`` (an export format's name: ``ttl``, ``nt``, ``jsonld``, ``xml``); False, writing nothing, when
    the store has no such named graph.

    Raises
    ------
    kg.errors.StoreError
        The store cannot be opened.
    """
    import pyoxigraph as ox

    from kg.export import get_exporter
    from kg.query.formats import GRAPH_FORMATS

    with open_store(location) as store:
        if graph is None:
            get_exporter(fmt).write(store, stream)
            return True
        name = ox.NamedNode(graph)
        if not store.ox.contains_named_graph(name):  # type: ignore[attr-defined]  # an EmbeddedStore
            return False
        rdf_format = getattr(ox.RdfFormat, GRAPH_FORMATS[fmt])
        quads = store.ox.quads_for_pattern(None, None, None, name)  # type: ignore[attr-defined]
        prefixes = dict(PREFIXES) if rdf_format.name in ("Turtle", "RDF/XML") else None  # as the exports bind them
        ox.serialize((quad.triple for quad in quads), stream, rdf_format, prefixes=prefixes)
        return True


def graph_exists(store: EmbeddedStore, graph: str) -> bool:
    """Whether the store has the named graph ``graph``."""
    import pyoxigraph as ox

    return store.ox.contains_named_graph(ox.NamedNode(graph))


def main(argv: list[str] | None = None) -> int:
    """``python -m kg.serve.storage STORE``: one write, read from stdin as the pickled ``(update, graph
    that must exist)``; on stdout, one byte, :data:`_APPLIED` once the update commits or :data:`_REFUSED` if it does
    not, then the pickled ``("ok", value)`` or ``("error", exception)``."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides what stops
    exit_with_parent()
    (location,) = argv if argv is not None else sys.argv[1:]
    update, graph = pickle.load(sys.stdin.buffer)
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing else reaches the server's pipe
    applied = False

    def committed() -> None:
        nonlocal applied
        replies.write(_APPLIED)
        replies.flush()
        applied = True

    try:
        reply: tuple = ("ok", _write(location, update, graph, committed))
    except Exception as err:  # every error goes back to the server, which answers for it
        reply = ("error", err)
    if not applied:
        replies.write(_REFUSED)
    try:
        payload = pickle.dumps(reply)
    except Exception:  # an exception that does not pickle
        payload = pickle.dumps(("error", OSError(f"{type(reply[1]).__name__}: {reply[1]}")))
    replies.write(payload)
    replies.close()
    return 0


if __name__ == "__main__":
    # As kg.serve.storage, not __main__, so that the exceptions it sends back unpickle in the server.
    from kg.serve.storage import main as write_main

    sys.exit(write_main())
