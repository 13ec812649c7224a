"""What the server does with the store outside its query processes: reading a whole graph for the Graph
Store Protocol's GET, and, with ``--allow-update``, writing it for SPARQL Update and the Graph Store
Protocol's PUT, POST and DELETE.

A read opens the store read-only, as a query process does (:func:`kg.store.open_store`), and writes the
graph in the chosen syntax to a file: the default graph by the exporter of ``kg export``, a named graph
by pyoxigraph. A write opens the store for writing as ``kg build`` does (``write=True``, which takes the
store's exclusive lock), runs one SPARQL update (one transaction: a PUT's drop and insert land together
or not at all) and closes the store again. An uploaded graph is parsed by pyoxigraph, then written out
as N-Triples into the update's ``INSERT DATA`` (:func:`kg.store.queries.insert_data`). ``LOAD`` is
refused before any of this (see :mod:`kg.serve.app`): the server reads no file or URL that a client names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING, TypeVar

from kg.errors import StoreError
from kg.namespace import PREFIXES
from kg.store import EmbeddedStore, open_store
from kg.store.queries import drop_graph, insert_data

if TYPE_CHECKING:
    import pyoxigraph

T = TypeVar("T")

__all__ = [
    "StoreBusy",
    "dump_graph",
    "graph_exists",
    "parse_graph",
    "run_update",
    "upload_update",
    "with_store_for_writing",
]


class StoreBusy(Exception):
    """Another process holds the store (a build writing it, or a reader when the store allows no writer beside
    one)."""


def with_store_for_writing(location: str, write: Callable[[EmbeddedStore], T]) -> T:
    """Open the store at ``location`` for writing, run ``write`` on it, and close it.

    Raises
    ------
    StoreBusy
        The store's lock is held by another process.
    """
    try:
        store = open_store(location, write=True)
    except StoreError as err:
        raise StoreBusy(str(err)) from None
    with store:
        return write(store)  # type: ignore[arg-type]  # a directory opens as an EmbeddedStore


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
