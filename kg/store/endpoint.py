"""The endpoint store: a remote SPARQL 1.1 endpoint (Fuseki, GraphDB, Virtuoso, QLever, Oxigraph
server), read-only. The URL may carry protocol parameters (``?default-graph-uri=IRI``: the graph a
query reads), which go with every query.

A query is one HTTP GET of the SPARQL 1.1 Protocol, sent with :mod:`urllib` and read back with
rdflib's result parsers; it carries the project's prefixes as the embedded store declares them,
and no others. A time limit bounds connecting, each wait for data, and the whole answer (so an
answer that stops arriving just before the limit is abandoned at most that long after it); Ctrl-C
interrupts the request and closes the connection. :attr:`EndpointStore.graph`
(rdflib's ``SPARQLStore``) serves the code that reads the graph triple by triple.

Bound values travel as a ``VALUES`` row that opens the query's ``WHERE`` group, each term written
by rdflib. rdflib's own ``initBindings`` puts that row after the whole query instead, where it
restricts the answer only after any ``GROUP BY`` and leaves a variable used in a ``FILTER``
unbound there: the answers would differ from the embedded store's.

Examples
--------
>>> from rdflib import Literal, URIRef
>>> print(with_values("SELECT ?e ?n WHERE { ?e ?p ?n }", {"e": URIRef("http://example.org/a"), "n": Literal("x")}))
SELECT ?e ?n WHERE { VALUES (?e ?n) { (<http://example.org/a> "x") } ?e ?p ?n }
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from kg.errors import QueryCancelled, QueryError, QueryTimeoutError, UsageError
from kg.namespace import PREFIXES
from kg.store.base import Bindings, Store, refuse_update
from kg.store.queries import TRIPLE_COUNT

if TYPE_CHECKING:
    from rdflib import Graph
    from rdflib.query import Result as Answer

    from kg.query.result import Result

RESULTS_ACCEPT = "application/sparql-results+json, application/sparql-results+xml;q=0.9"
GRAPH_ACCEPT = "application/n-triples, text/turtle;q=0.9"
"""What a query asks the endpoint for: SPARQL results for SELECT and ASK, RDF for CONSTRUCT and DESCRIBE
(one header for both would not do: Virtuoso answers a CONSTRUCT asked for JSON results first with a table
of ?s ?p ?o instead of a graph)."""

_READ_SIZE = 1 << 16
_WHERE = re.compile(r"\bWHERE\s*\{", re.IGNORECASE)


class EndpointStore(Store):
    """A remote SPARQL 1.1 endpoint, read-only."""

    name = "endpoint"

    def __init__(self, url: str, *, create: bool = False, write: bool = False) -> None:
        if create or write:
            raise UsageError("a remote endpoint is read-only here; build into a local --store")
        if not url.startswith(("http://", "https://")):
            raise UsageError(f"--endpoint must be an http(s) URL, not {url!r}")
        self.url = url
        self.endpoint, self.parameters = split_parameters(url)
        self._graph: Graph | None = None

    @property
    def graph(self) -> Graph:
        if self._graph is None:
            from rdflib import Graph
            from rdflib.plugins.stores.sparqlstore import SPARQLStore

            # The URL's own parameters (default-graph-uri, ...) go with every query: rdflib would append
            # "?query=..." to a URL that has a "?" already, which no server reads.
            store = SPARQLStore(query_endpoint=self.endpoint, returnFormat="json", params=dict(self.parameters))
            self._graph = Graph(store=store)
        return self._graph

    def query(
        self,
        sparql: str,
        *,
        bindings: Bindings | None = None,
        prefixes: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> Result:
        """Run ``sparql`` at the endpoint (see :meth:`kg.store.Store.query`).

        ``timeout`` (seconds, None for no limit) bounds the request; past it, or on Ctrl-C, the
        connection is closed.

        Raises
        ------
        kg.errors.QueryTimeoutError
            The endpoint took longer than ``timeout``.
        kg.errors.QueryCancelled
            Ctrl-C interrupted the request.
        kg.errors.QueryError
            The endpoint refused the query, or could not be reached.
        """
        from kg.namespace import sparql_prologue
        from kg.query.result import Result

        started = time.perf_counter()
        refuse_update(sparql)
        text = sparql_prologue(PREFIXES if prefixes is None else prefixes) + with_values(sparql, bindings)
        try:
            answer = self._request(text, timeout)
            result = Result.from_rdflib(answer, query=sparql)
        except KeyboardInterrupt:
            raise QueryCancelled() from None
        except Exception as err:  # the endpoint's errors come in many library types
            # The cause stays attached, for --debug.
            if timeout is not None and _timed_out(err):
                raise QueryTimeoutError(timeout) from err
            raise QueryError(describe_failure(self.url, err)) from err
        result.elapsed = time.perf_counter() - started
        return result

    def _request(self, text: str, timeout: float | None) -> Answer:
        """The endpoint's answer to the query ``text``, read whole within ``timeout`` seconds."""
        from io import BytesIO
        from urllib.parse import urlencode
        from urllib.request import Request, urlopen

        from rdflib.query import Result as Answer

        deadline = None if timeout is None else time.monotonic() + timeout
        accept = GRAPH_ACCEPT if _makes_graph(text) else RESULTS_ACCEPT
        parameters = urlencode((*self.parameters, ("query", text)))
        request = Request(f"{self.endpoint}?{parameters}", headers={"Accept": accept})
        chunks = []
        with urlopen(request, timeout=timeout) as response:
            while chunk := response.read1(_READ_SIZE):  # what has come, not a full buffer
                chunks.append(chunk)
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError("the answer took too long to arrive")
            kind = response.headers.get_content_type()
        return Answer.parse(BytesIO(b"".join(chunks)), content_type=kind)

    def __len__(self) -> int:
        result = self.query(TRIPLE_COUNT)
        return int(result.rows[0][0].toPython())


def with_values(sparql: str, bindings: Bindings | None) -> str:
    """``sparql`` with ``bindings`` as a ``VALUES`` row at the start of its ``WHERE`` group."""
    if not bindings:
        return sparql
    from rdflib import BNode

    if any(isinstance(term, BNode) for term in bindings.values()):
        raise QueryError("a blank node cannot be sent to a remote endpoint")
    found = _WHERE.search(sparql)
    if found is None:
        raise QueryError("values can be bound only in a query with a WHERE clause")
    names = " ".join(f"?{name}" for name in bindings)
    terms = " ".join(term.n3() for term in bindings.values())
    return f"{sparql[: found.end()]} VALUES ({names}) {{ ({terms}) }}{sparql[found.end() :]}"


def describe_failure(url: str, err: BaseException) -> str:
    """One line for a failed request to the endpoint ``url``: the network or HTTP failure behind
    ``err`` where there is one (rdflib hides it behind a generic message), else ``err`` itself.

    Examples
    --------
    >>> from urllib.error import URLError
    >>> try:
    ...     try:
    ...         raise URLError(ConnectionRefusedError(111, "Connection refused"))
    ...     except URLError:
    ...         raise ValueError("You did something wrong formulating either the URI or your SPARQL query")
    ... except ValueError as err:
    ...     describe_failure("http://127.0.0.1:9/sparql", err)
    'cannot connect to http://127.0.0.1:9/sparql: connection refused'
    """
    import socket
    from urllib.error import HTTPError, URLError

    cause: BaseException | None = err
    while cause is not None:
        if isinstance(cause, HTTPError):
            return f"{url}: the endpoint answered HTTP {cause.code} {cause.reason}{_body_line(cause)}"
        if isinstance(cause, URLError):
            reason = cause.reason
            if isinstance(reason, ConnectionRefusedError):
                why = "connection refused"
            elif isinstance(reason, socket.gaierror):
                why = "unknown host"
            elif isinstance(reason, (TimeoutError, socket.timeout)):
                why = "timed out"
            else:
                why = getattr(reason, "strerror", None) or str(reason)
            return f"cannot connect to {url}: {why}"
        cause = cause.__cause__ or cause.__context__
    text = str(err).strip() or type(err).__name__
    return f"{url}: {text.splitlines()[0]}"


def _timed_out(err: BaseException) -> bool:
    """Whether ``err``, or what caused it, is a socket's time limit running out."""
    from urllib.error import URLError

    cause: BaseException | None = err
    while cause is not None:
        if isinstance(cause, TimeoutError) or (isinstance(cause, URLError) and isinstance(cause.reason, TimeoutError)):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _body_line(err: BaseException) -> str:
    """``": "`` and the first line of an HTTP error's body (an endpoint's own message), if any."""
    try:
        body = err.read().decode("utf-8", "replace").strip()  # type: ignore[attr-defined]
    except Exception:  # the body may be gone already
        return ""
    return f": {body.splitlines()[0][:200]}" if body else ""


def _makes_graph(sparql: str) -> bool:
    from kg.query.sparql import operation

    return operation(sparql) in ("CONSTRUCT", "DESCRIBE")


def split_parameters(url: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The endpoint ``url`` without its query string, and the parameters of that query string
    (``default-graph-uri`` says which graph a query reads, in the SPARQL 1.1 Protocol).

    Examples
    --------
    >>> split_parameters("http://localhost:8890/sparql?default-graph-uri=http%3A%2F%2Fexample.org%2Fkg")
    ('http://localhost:8890/sparql', (('default-graph-uri', 'http://example.org/kg'),))
    >>> split_parameters("http://localhost:7878/query")
    ('http://localhost:7878/query', ())
    >>> split_parameters("http://h/q?default-graph-uri=a&default-graph-uri=b")
    Traceback (most recent call last):
    ...
    kg.errors.UsageError: --endpoint http://h/q?default-graph-uri=a&default-graph-uri=b: give default-graph-uri once
    """
    from urllib.parse import parse_qsl, urlsplit, urlunsplit

    parts = urlsplit(url)
    pairs = tuple(parse_qsl(parts.query, keep_blank_values=True))
    names = [name for name, _ in pairs]
    for name in names:
        if names.count(name) > 1:
            raise UsageError(f"--endpoint {url}: give {name} once")
    return urlunsplit(parts._replace(query="")), pairs
