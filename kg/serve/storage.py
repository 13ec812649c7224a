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

import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from kg.namespace import PREFIXES
from kg.store import EmbeddedStore, open_store
from kg.store.queries import drop_graph, insert_data
from kg.store.worker import connect_to_parent, start_child

if TYPE_CHECKING:
    import pyoxigraph

__all__ = [
    "UpdateTimeout",
    "dump_graph",
    "parse_graph",
    "run_update",
    "upload_update",
    "write_in_child",
]


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
    kg.errors.StoreBusyError
        The store's lock is held by another process (a build).
    kg.errors.StoreError
        The store cannot be opened for writing.
    SyntaxError, RuntimeError, OSError
        As :func:`run_update` raises them.
    """
    process, requests, answers = start_child("kg.serve.storage", location)
    try:
        try:
            requests.send((update, graph))
            if not answers.poll(timeout):
                raise UpdateTimeout(timeout)
            outcome, value = answers.recv()
            if outcome == "committed":  # closing the store publishes the write: it is waited for to its end
                outcome, value = answers.recv()
        except (EOFError, OSError):
            process.wait()
            raise OSError(f"the update's process ended unexpectedly (exit status {process.returncode})") from None
        process.wait()
    except BaseException:
        process.kill()
        process.wait()
        raise
    finally:
        requests.close()
        answers.close()
    if outcome == "error":
        raise value
    return value


def _write(location: str, update: str, graph: str | None, committed: Callable[[], None]) -> bool:
    """The child's write; ``committed`` is called once the update has committed."""
    with open_store(location, write=True) as store:
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
    """``python -m kg.serve.storage REQUESTS_FD ANSWERS_FD STORE``, started by :func:`write_in_child`: one
    write, received as ``(update, graph that must exist)``; answered with ``("committed", None)`` once the
    update commits, then ``("ok", value)`` or ``("error", exception)``."""
    requests, answers, (location,) = connect_to_parent(argv if argv is not None else sys.argv[1:])
    update, graph = requests.recv()
    try:
        reply: tuple = ("ok", _write(location, update, graph, lambda: answers.send(("committed", None))))
    except Exception as err:  # every error goes back to the server, which answers for it
        reply = ("error", err)
    try:
        answers.send(reply)
    except Exception:  # an exception that does not pickle (send pickles before it writes)
        answers.send(("error", OSError(f"{type(reply[1]).__name__}: {reply[1]}")))
    return 0


if __name__ == "__main__":
    # As kg.serve.storage, not __main__, so that the exceptions it sends back unpickle in the server.
    from kg.serve.storage import main as write_main

    sys.exit(write_main())
