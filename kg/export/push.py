"""`kg push`: the graph into a triple store, through the SPARQL 1.1 Graph Store Protocol.

The store's triples are sent in batches of N-Triples, each an HTTP POST that adds them to the target
graph (a named graph, or the server's default graph). A batch that fails in a way that may pass (no
answer, a timeout, a 5xx) is sent again (:mod:`kg.export.gsp`); one that still fails stops the push,
and the error says which triples were sent and which were not. Pushing again sends them all: adding
triples a graph has already leaves it as it was. Triples with a blank node go last, in one batch, so
that a blank node stays one node on the server.

With ``replace``, the batches go to a staging graph, and one SPARQL update then moves it onto the
target (``MOVE``): the target holds either its old triples or all the new ones, never half of them. That
needs the server's SPARQL Update endpoint, which is found from the Graph Store endpoint's URL for the
servers whose layout is known (:func:`update_endpoint_for`) or named with ``update_url``. Before
anything is sent, the staging graph left by an earlier push that failed is dropped; a server that
does not accept that update is said not to take updates, and ``replace`` is refused.

Examples
--------
>>> update_endpoint_for("http://localhost:8890/sparql-graph-crud-auth")
'http://localhost:8890/sparql-auth'
>>> update_endpoint_for("http://localhost:7878/store")
'http://localhost:7878/update'
>>> update_endpoint_for("http://localhost:7200/repositories/kg/rdf-graphs/service")
'http://localhost:7200/repositories/kg/statements'
>>> update_endpoint_for("http://localhost:9999/somewhere") is None
True
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from kg.errors import CredentialsError, PushError, RemoteError, UsageError, check_whole_number
from kg.export.gsp import Credentials, GraphStoreClient
from kg.namespace import graph_iri
from kg.store import EmbeddedStore, Store
from kg.store.queries import PUSH_COUNTS, drop_graph, move_graph

if TYPE_CHECKING:
    import pyoxigraph

    from kg.progress import Progress

DEFAULT_BATCH = 10_000
"""Triples a batch (a few MB of N-Triples: small enough for any server's request limit)."""

# Graph Store endpoint -> SPARQL Update endpoint, by the end of the URL's path, for the servers whose
# layout is known: Virtuoso (authenticated and not), Oxigraph server, Fuseki, GraphDB and RDF4J.
UPDATE_ENDPOINTS = (
    ("/sparql-graph-crud-auth", "/sparql-auth"),
    ("/sparql-graph-crud", "/sparql"),
    ("/store", "/update"),
    ("/data", "/update"),
    ("/rdf-graphs/service", "/statements"),
)


@dataclass(frozen=True)
class PushReport:
    """What a push did."""

    url: str
    graph: str | None
    triples: int
    batches: int
    seconds: float
    replaced: bool = False

    def summary(self) -> str:
        """One line for stderr.

        Examples
        --------
        >>> print(PushReport("http://h/store", None, 35221, 4, 2.51).summary())
        pushed 35221 triples in 4 batches to the default graph at http://h/store in 2.5 s
        >>> PushReport("http://h/store", "http://g", 5, 1, 0.1, replaced=True).summary()  # doctest: +ELLIPSIS
        'pushed 5 triples in 1 batch to graph <http://g> at ... (it replaced what the graph held)'
        """
        where = "the default graph" if self.graph is None else f"graph <{self.graph}>"
        batches = f"{self.batches} batch" + ("" if self.batches == 1 else "es")
        replaced = " (it replaced what the graph held)" if self.replaced else ""
        return f"pushed {self.triples} triples in {batches} to {where} at {self.url} in {self.seconds:.1f} s{replaced}"


def update_endpoint_for(url: str) -> str | None:
    """The SPARQL Update endpoint beside the Graph Store endpoint ``url``, for the servers whose layout is
    known (None for others)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    for graph_store, update in UPDATE_ENDPOINTS:
        if path.endswith(graph_store):
            return urlunsplit(parts._replace(path=path[: -len(graph_store)] + update, query=""))
    return None


def staging_graph(graph: str | None) -> str:
    """The graph a push with ``replace`` uploads into before the swap: one per target, so that the next
    push to the same target drops what a failed one left.

    Examples
    --------
    >>> staging_graph(None)  # doctest: +ELLIPSIS
    'https://w3id.org/abstract-kg/resource/graph/push-staging-7505...'
    >>> staging_graph("http://example.org/kg") == staging_graph("http://example.org/kg") != staging_graph(None)
    True
    """
    digest = hashlib.sha1((graph or "default").encode()).hexdigest()[:16]
    return graph_iri(f"push-staging-{digest}")


def check_graph_iri(graph: str) -> str:
    """``graph`` if it is an absolute IRI, as a graph name must be.

    Examples
    --------
    >>> check_graph_iri("not an iri")
    Traceback (most recent call last):
    ...
    kg.errors.UsageError: --graph must be an absolute IRI (http://example.org/kg), not 'not an iri'
    """
    import pyoxigraph as ox

    try:
        ox.NamedNode(graph)
    except ValueError:
        raise UsageError(f"--graph must be an absolute IRI (http://example.org/kg), not {graph!r}") from None
    if ":" not in graph:
        raise UsageError(f"--graph must be an absolute IRI (http://example.org/kg), not {graph!r}")
    return graph


def push(
    store: Store,
    url: str,
    *,
    graph: str | None = None,
    batch: int = DEFAULT_BATCH,
    credentials: Credentials | None = None,
    replace: bool = False,
    update_url: str | None = None,
    with_ontology: bool = False,
    progress: Progress | None = None,
    client: GraphStoreClient | None = None,
) -> PushReport:
    """Upload the default graph of ``store`` to the Graph Store endpoint ``url``.

    Parameters
    ----------
    store
        A local store (:class:`kg.store.EmbeddedStore`).
    url
        The server's Graph Store Protocol endpoint (``http://localhost:7878/store``).
    graph
        The IRI of the graph to write to; None for the server's default graph.
    batch
        Triples a request.
    credentials
        A user and password (basic or digest), or a token.
    replace
        Make the graph hold exactly these triples, swapped in at once; otherwise they are added to it.
    update_url
        The SPARQL Update endpoint ``replace`` uses (default: found from ``url``).
    with_ontology
        Send the ontology and the vocabularies (:mod:`kg.export.schema`) too, into the same graph.
    progress
        Called as ``progress(sent, total)`` after each batch.
    client
        The HTTP client (default: one with ``credentials`` and three attempts a request).

    Raises
    ------
    kg.errors.UsageError
        A bad option, or ``replace`` where the server takes no updates (nothing sent).
    kg.errors.CredentialsError
        The server wants other credentials (nothing sent).
    kg.errors.RemoteError
        The server cannot be reached (nothing sent).
    kg.errors.PushError
        A batch or the swap failed: what was sent and what was not.
    """
    if not isinstance(store, EmbeddedStore):
        raise UsageError("push reads a local --store")
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"the Graph Store endpoint must be an http(s) URL, not {url!r}")
    check_whole_number("--batch", batch)
    if graph is not None:
        check_graph_iri(graph)
    if replace:
        update_url = update_url or update_endpoint_for(url)
        if update_url is None:
            raise UsageError(
                f"cannot tell where {url} takes SPARQL updates, which --replace needs to swap the graph in: "
                "name that endpoint with --update-url URL, or push without --replace (which adds to the graph)"
            )
    started = time.perf_counter()
    owned = client is None
    client = client or GraphStoreClient(credentials=credentials)
    try:
        upload = Upload(store, url, graph, batch=batch, with_ontology=with_ontology)
        target = graph
        if replace:
            assert update_url is not None
            target = staging_graph(graph)
            _prepare_staging(client, update_url, target)
        # An empty request first: the credentials are settled, and the server shown to take writes,
        # before any triple is sent.
        client.add(url, target, b"")
        upload.send(client, target, progress=progress, staging=target if replace else None, update_url=update_url)
        if replace:
            assert update_url is not None
            swap = move_graph(target, graph) if upload.total else drop_graph(graph)
            try:
                client.update(update_url, swap)
            except RemoteError as err:
                _drop_quietly(client, update_url, target)
                raise PushError(
                    f"all {upload.total} triples were sent to the staging graph <{target}>, but moving them onto "
                    f"{_graph_words(graph)} failed: {err}; {_graph_words(graph)} is as it was"
                ) from err
    finally:
        if owned:
            client.close()
    return PushReport(url, graph, upload.total, upload.batches, time.perf_counter() - started, replaced=replace)


def _prepare_staging(client: GraphStoreClient, update_url: str, staging: str) -> None:
    """Drop what a failed push left in the staging graph, which also shows that updates are accepted."""
    try:
        client.update(update_url, drop_graph(staging))
    except CredentialsError:
        raise
    except RemoteError as err:
        if err.status is None:
            raise  # no answer: the server is down, not refusing
        raise UsageError(
            f"{update_url} takes no SPARQL updates ({err}), and --replace needs one to swap the graph in: "
            "push without --replace (which adds to the graph), or name the update endpoint with --update-url"
        ) from err


def _drop_quietly(client: GraphStoreClient, update_url: str, staging: str) -> bool:
    """Drop the staging graph after a failure, if the server lets us; whether it did."""
    try:
        client.update(update_url, drop_graph(staging))
    except RemoteError:
        return False
    return True


def _graph_words(graph: str | None) -> str:
    return "the default graph" if graph is None else f"graph <{graph}>"


class Upload:
    """The batches of one push: the store's triples in order, then the ontology's, then those with a blank node."""

    def __init__(self, store: EmbeddedStore, url: str, graph: str | None, *, batch: int, with_ontology: bool) -> None:
        (row,) = store.query(PUSH_COUNTS).rows
        self.store, self.url, self.graph, self.size = store, url, graph, batch
        self.with_ontology = with_ontology
        blank = int(row[1].toPython())
        schema = sum(len(g.triples()) for g in _schema()) if with_ontology else 0
        ground = int(row[0].toPython()) - blank + schema
        self.total = ground + blank
        self.batches = -(-ground // batch) + (1 if blank else 0)

    def triples(self) -> Iterator[list[pyoxigraph.Triple]]:
        """The batches, as lists of triples."""
        import pyoxigraph as ox

        held: list[ox.Triple] = []
        current: list[ox.Triple] = []
        data = (quad.triple for quad in self.store.ox.quads_for_pattern(None, None, None, ox.DefaultGraph()))
        schema: Iterable[ox.Triple] = (t for g in _schema() for t in g.triples()) if self.with_ontology else ()
        for triple in chain(data, schema):
            if isinstance(triple.subject, ox.BlankNode) or isinstance(triple.object, ox.BlankNode):
                held.append(triple)
                continue
            current.append(triple)
            if len(current) == self.size:
                yield current
                current = []
        if current:
            yield current
        if held:
            yield held

    def send(
        self,
        client: GraphStoreClient,
        target: str | None,
        *,
        progress: Progress | None,
        staging: str | None,
        update_url: str | None,
    ) -> None:
        """POST each batch to ``target``; on a failure, raise :class:`PushError` saying what was sent."""
        import pyoxigraph as ox

        sent = 0
        if progress is not None:
            progress(0, self.total)
        for number, triples in enumerate(self.triples(), start=1):
            body = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES)
            try:
                client.add(self.url, target, body)
            except RemoteError as err:
                raise PushError(self._failure(number, len(triples), sent, err, staging, client, update_url)) from err
            sent += len(triples)
            if progress is not None:
                progress(sent, self.total)

    def _failure(
        self,
        number: int,
        size: int,
        sent: int,
        err: RemoteError,
        staging: str | None,
        client: GraphStoreClient,
        update_url: str | None,
    ) -> str:
        """What failed, what was sent and what was not, and what became of the target."""
        first = f"batch {number} of {self.batches} (triples {sent + 1}-{sent + size}) failed: {err}"
        done = "batch 1" if number == 2 else f"batches 1-{number - 1}"
        left = f"batch {number}" if number == self.batches else f"batches {number}-{self.batches}"
        if staging is None:
            where = _graph_words(self.graph)
            sent_words = f"sent {sent} of {self.total} triples ({done}) to {where}" if sent else "sent nothing"
            return (
                f"{first}. {sent_words}; not sent: {self.total - sent} triples ({left}). "
                "Pushing again sends them all (triples the graph has already are not doubled)"
            )
        assert update_url is not None
        dropped = _drop_quietly(client, update_url, staging)
        what = "dropped" if dropped else f"left in <{staging}> (the next push drops it)"
        return (
            f"{first}. {sent} of {self.total} triples had been sent to the staging graph, now {what}; "
            f"not sent: {self.total - sent} triples ({left}); {_graph_words(self.graph)} is as it was"
        )


def _schema():
    from kg.export.schema import schema_graphs

    return schema_graphs()
