"""The HTTP application of `kg serve` (Starlette): the SPARQL 1.1 Protocol, the Graph Store Protocol, the
service description and the query page.

==========================  ===========================================================================
``GET /``                   the query page (:mod:`kg.serve.page`)
``GET /sparql?query=Q``     a query; ``POST /sparql`` takes it as a form (``query=Q``) or as the body
                            (``application/sparql-query``); ``default-graph-uri`` and ``named-graph-uri``
                            (repeatable) name the graphs it reads, in place of its ``FROM`` and ``FROM NAMED``
``GET /sparql``             without a query: the service description (:mod:`kg.serve.description`)
``POST /sparql``            an update, as a form (``update=U``) or as the body
                            (``application/sparql-update``); ``POST /update`` too
``GET /store?default``      the default graph (``?graph=IRI``: a named graph), by the Graph Store Protocol;
                            ``PUT``, ``POST`` and ``DELETE`` write it, with ``--allow-update``
==========================  ===========================================================================

A query runs in one of the server's query processes (:mod:`kg.serve.pool`) with the server's time and
row limits; its answer is written in the format the ``Accept`` header prefers
(:mod:`kg.serve.negotiation`). What the server refuses, it answers with a status and one line of text
saying why:

===  ======================================================================================
400  a request the protocol does not allow (no query, two queries, an update sent as a query, a
     graph named by a relative IRI), ``using-graph-uri`` or ``using-named-graph-uri`` (an update names
     its graphs itself), a query or update that does not parse, or an update that cannot apply
     (``DROP GRAPH`` of a graph that is not there)
401  an update without ``Authorization: Bearer TOKEN``, or with a token that is not the server's
403  an update to a read-only server; ``SERVICE`` (the server queries no other server) or
     ``LOAD`` (it reads no file or URL a client names)
404  a Graph Store read or delete of a named graph the store does not have
409  an update while another process (a ``kg build``) holds the store
413  a request body over ``--max-body`` (Starlette's limit)
415  a POST body of a type the protocol does not define, or an upload in no RDF syntax known
422  an answer of more than ``--max-rows`` rows
503  a query or an update past ``--timeout`` (abandoned, its process ended; nothing of the update is
     written); with ``Retry-After``: every query slot busy, another update still being written after
     ``--timeout``, or more requests under way than the server takes (:data:`kg.serve.settings.REQUESTS`)
===  ======================================================================================
"""

from __future__ import annotations

import hmac
import os
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TypeVar
from urllib.parse import parse_qsl

import anyio
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from kg.errors import (
    KGError,
    QueryCancelled,
    QuerySyntaxError,
    QueryTimeoutError,
    ResultTooLargeError,
    StoreBusyError,
    StoreError,
    UsageError,
)
from kg.namespace import FORMATS_IRI, SD_IRI
from kg.query import Result, render
from kg.query.formats import render_graph
from kg.query.sparql import UPDATE_OPERATIONS, keywords, operation
from kg.serve.description import description
from kg.serve.negotiation import GRAPHS, RESULTS, choose
from kg.serve.page import render_page, security_policy
from kg.serve.pool import Busy, WorkerPool
from kg.serve.settings import QUEUE_WAIT, REQUESTS, Settings
from kg.serve.storage import UpdateTimeout, dump_graph, parse_graph, upload_update, write_in_child
from kg.store.base import QueryDataset
from kg.store.queries import drop_graph

__all__ = ["Refusal", "create_app"]

T = TypeVar("T")

FORM = "application/x-www-form-urlencoded"
QUERY_BODY = "application/sparql-query"
UPDATE_BODY = "application/sparql-update"
QUERY_DATASET = ("default-graph-uri", "named-graph-uri")
UPDATE_DATASET = ("using-graph-uri", "using-named-graph-uri")
DISCONNECT_CHECK = 0.25
"""Seconds between two checks that the client of a running query is still there."""


class Refusal(Exception):
    """A request the server answers with ``status`` and one line of text."""

    def __init__(self, status: int, message: str, *, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.message = message
        self.headers = headers or {}
        super().__init__(message)


def create_app(settings: Settings) -> Starlette:
    """The application serving the store of ``settings`` with its limits."""
    service = _Service(settings)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        service.pool.start()
        try:
            yield
        finally:
            await run_in_threadpool(service.pool.close)

    routes = [
        Route("/", service.page, methods=["GET"]),
        Route("/sparql", service.sparql, methods=["GET", "POST"]),
        Route("/update", service.update_endpoint, methods=["POST"]),
        Route("/store", service.graph_store, methods=["GET", "PUT", "POST", "DELETE"]),
    ]

    async def refused(request: Request, refusal: Refusal) -> Response:
        return PlainTextResponse(refusal.message + "\n", status_code=refusal.status, headers=refusal.headers)

    async def http_error(request: Request, error: HTTPException) -> Response:
        message = error.detail
        if error.status_code == 413:  # raised by Starlette's limit on request bodies
            message = f"the request body is too large: at most {settings.max_body} bytes (--max-body)"
        return PlainTextResponse(f"{message}\n", status_code=error.status_code, headers=error.headers)

    handlers = {Refusal: refused, HTTPException: http_error}
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers=handlers,  # type: ignore[arg-type]
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=settings.trusted_hosts(), www_redirect=False),
            Middleware(RequestLimit, limit=REQUESTS),
        ],
        max_body_size=settings.max_body,
    )
    app.state.pool = service.pool  # for the server, which ends the query processes first when it stops
    return app


class RequestLimit:
    """At most ``limit`` requests under way at once; past them, 503 with ``Retry-After`` at once (ASGI
    middleware). With the limit on a request's body, this bounds the memory requests take."""

    def __init__(self, app: ASGIApp, *, limit: int) -> None:
        self.app = app
        self.limit = limit
        self.active = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.active >= self.limit:
            message = f"the server is busy: {self.limit} requests under way; try again shortly\n"
            busy = PlainTextResponse(message, status_code=503, headers={"Retry-After": "1"})
            await busy(scope, receive, send)
            return
        self.active += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.active -= 1


class _Service:
    """The handlers, over one store and pool of query processes."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.pool = WorkerPool(settings.store, size=settings.max_queries)
        self.writer = anyio.Lock()  # one write at a time

    # ---- the query page and the service description

    async def page(self, request: Request) -> Response:
        page = render_page(
            endpoint=str(request.url.replace(path="/sparql", query="", fragment="")),
            updates=self.settings.allow_update,
            timeout=self.settings.timeout,
            max_rows=self.settings.max_rows,
        )
        return HTMLResponse(page, headers={"Content-Security-Policy": security_policy(page)})

    def describe(self, request: Request) -> Response:
        endpoint = str(request.url.replace(query="", fragment=""))
        result = description(endpoint, updates=self.settings.allow_update)
        chosen = choose(GRAPHS, request.headers.get("accept"))
        body = render_graph(result, chosen.key, prefixes={"sd": SD_IRI, "formats": FORMATS_IRI})
        return Response(body, media_type=chosen.media_type, headers={"Vary": "Accept"})

    # ---- the SPARQL 1.1 Protocol

    async def sparql(self, request: Request) -> Response:
        if request.method == "GET":
            parameters = request.query_params
            if "update" in parameters:
                raise Refusal(400, "an update is sent with POST (update=..., or an application/sparql-update body)")
            if "query" not in parameters:
                return self.describe(request)
            return await self.query(request, _one(parameters, "query"), _query_dataset(parameters))
        kind = _media_type(request)
        if kind == FORM:
            form = await _form(request)
            if "query" in form and "update" in form:
                raise Refusal(400, "give query= or update=, not both")
            if "query" in form:
                return await self.query(request, _one(form, "query"), _query_dataset(form, request.query_params))
            if "update" in form:
                _refuse_update_dataset(form, request.query_params)
                return await self.update(request, _one(form, "update"))
            raise Refusal(400, "the form has no query= or update= field")
        if kind == QUERY_BODY:
            return await self.query(request, await _text(request), _query_dataset(request.query_params))
        if kind == UPDATE_BODY:
            self.authorize(request)
            _refuse_update_dataset(request.query_params)
            return await self.update(request, await _text(request))
        raise Refusal(415, f"POST a form ({FORM}), or a body of type {QUERY_BODY} or {UPDATE_BODY}, not {kind!r}")

    async def query(self, request: Request, sparql: str, dataset: QueryDataset | None) -> Response:
        _refuse_keywords(sparql)
        found = operation(sparql)
        if found is not None and found.split()[0] in UPDATE_OPERATIONS:
            raise Refusal(400, f"{found} is an update: POST it as update=... (a server started with --allow-update)")
        settings = self.settings
        try:
            async with self.pool.worker(wait=QUEUE_WAIT) as worker:
                result = await _watching(
                    request,
                    lambda: worker.query(sparql, timeout=settings.timeout, max_rows=settings.max_rows, dataset=dataset),
                    worker.cancel,
                )
        except Busy as busy:
            raise Refusal(503, f"{busy}: try again shortly", headers={"Retry-After": "1"}) from None
        except QueryTimeoutError:
            raise Refusal(503, f"query abandoned after {settings.timeout:g} s (the server's --timeout)") from None
        except ResultTooLargeError as err:
            raise Refusal(422, str(err)) from None
        except (QuerySyntaxError, UsageError) as err:
            raise Refusal(400, str(err)) from None
        except _Cancelled:
            raise Refusal(503, "query cancelled (the client went away, or the server is stopping)") from None
        except StoreError:
            raise Refusal(
                503,
                "the store cannot be read now (a build holding it?): try again shortly",
                headers={"Retry-After": "5"},
            ) from None
        except KGError as err:
            raise Refusal(500, str(err)) from None
        return await run_in_threadpool(_answer, result, request.headers.get("accept"))

    # ---- SPARQL 1.1 Update, and the Graph Store Protocol

    def authorize(self, request: Request) -> None:
        """Refuse a write unless the server takes them and the request carries the server's token."""
        if not self.settings.allow_update:
            raise Refusal(403, "this server is read-only: it takes no updates (kg serve --allow-update takes them)")
        challenge = 'Bearer realm="kg serve"'
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise Refusal(401, "an update needs Authorization: Bearer TOKEN", headers={"WWW-Authenticate": challenge})
        token = self.settings.token or ""
        if not hmac.compare_digest(given.strip().encode("utf-8"), token.encode("utf-8")):
            raise Refusal(
                401, "the token was refused", headers={"WWW-Authenticate": challenge + ', error="invalid_token"'}
            )

    async def update_endpoint(self, request: Request) -> Response:
        self.authorize(request)
        kind = _media_type(request)
        _refuse_update_dataset(request.query_params)
        if kind == FORM:
            form = await _form(request)
            _refuse_update_dataset(form)
            if "update" not in form:
                raise Refusal(400, "the form has no update= field")
            return await self.update(request, _one(form, "update"))
        if kind == UPDATE_BODY:
            return await self.update(request, await _text(request))
        raise Refusal(415, f"POST a form ({FORM}) or a body of type {UPDATE_BODY}, not {kind!r}")

    async def update(self, request: Request, sparql: str) -> Response:
        self.authorize(request)
        _refuse_keywords(sparql)
        found = operation(sparql)
        if found in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"):
            raise Refusal(400, f"a {found} query is sent as query=..., not as an update")
        await self.write(sparql)
        return Response(status_code=204)

    async def graph_store(self, request: Request) -> Response:
        graph = _target_graph(request.query_params)
        if request.method == "GET":
            return await self.read_graph(request, graph)
        self.authorize(request)
        if request.method == "DELETE":
            if not await self.write(drop_graph(graph), graph=graph):
                raise Refusal(404, f"the store has no graph <{graph}>")
            return Response(status_code=204)
        import pyoxigraph as ox

        kind = _media_type(request)
        rdf_format = ox.RdfFormat.from_media_type(kind) if kind else None
        if rdf_format is None:
            raise Refusal(415, f"upload a graph in an RDF syntax (Turtle, N-Triples, RDF/XML, JSON-LD), not {kind!r}")
        body = await request.body()
        try:
            ntriples = await run_in_threadpool(parse_graph, body, rdf_format, base=graph)
        except SyntaxError as err:
            raise Refusal(400, f"the {rdf_format.name} upload does not parse: {_first_line(err)}") from None
        await self.write(upload_update(ntriples, graph, replace=request.method == "PUT"))
        return Response(status_code=204)

    async def read_graph(self, request: Request, graph: str | None) -> Response:
        chosen = choose(GRAPHS, request.headers.get("accept"))
        output = tempfile.NamedTemporaryFile(prefix="kg-serve-", delete=False)
        try:
            with output:
                try:
                    async with self.pool.worker(wait=QUEUE_WAIT):  # a query slot, for as long as the read takes
                        found = await run_in_threadpool(dump_graph, self.settings.store, graph, chosen.key, output)
                except Busy as busy:
                    raise Refusal(503, f"{busy}: try again shortly", headers={"Retry-After": "1"}) from None
                except StoreError:
                    raise Refusal(503, "the store cannot be read now: try again shortly") from None
            if not found:
                raise Refusal(404, f"the store has no graph <{graph}>")
        except BaseException:
            os.unlink(output.name)
            raise
        return FileResponse(
            output.name,
            media_type=chosen.media_type,
            headers={"Vary": "Accept"},
            background=BackgroundTask(os.unlink, output.name),
        )

    async def write(self, update: str, *, graph: str | None = None) -> bool:
        """Run ``update`` (with ``graph``, only if the store has that named graph: see
        :func:`kg.serve.storage.write_in_child`) in its own process, within the server's time limit, one at
        a time; queries go on meanwhile, reading the graph published last."""
        timeout = self.settings.timeout
        with anyio.move_on_after(timeout) as waiting:
            await self.writer.acquire()
        if waiting.cancelled_caught:
            raise Refusal(
                503, f"another update was still being written after {timeout:g} s", headers={"Retry-After": "5"}
            )
        try:
            return await run_in_threadpool(write_in_child, self.settings.store, update, graph=graph, timeout=timeout)
        except UpdateTimeout:
            raise Refusal(
                503, f"update abandoned after {timeout:g} s (the server's --timeout): nothing of it was written"
            ) from None
        except StoreBusyError:
            raise Refusal(
                409, "the store is held by another process (a kg build?): try the update again when it ends"
            ) from None
        except SyntaxError as err:
            raise Refusal(400, f"SPARQL syntax error: {_first_line(err)}") from None
        except RuntimeError as err:  # Oxigraph's word for an update that cannot apply ("graph ... does not exist")
            raise Refusal(400, f"the update cannot be applied: {_first_line(err)}") from None
        except (OSError, StoreError) as err:
            raise Refusal(500, f"the store could not be written: {_first_line(err)}") from None
        finally:
            self.writer.release()


# ---- reading requests


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


async def _text(request: Request) -> str:
    body = await request.body()
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refusal(400, "the body is not UTF-8") from None


async def _form(request: Request) -> QueryParams:
    """The fields of a form body (``parse_qsl``: Starlette's own form parser needs python-multipart)."""
    text = await _text(request)
    return QueryParams(parse_qsl(text, keep_blank_values=True))


def _one(parameters: QueryParams, name: str) -> str:
    values = parameters.getlist(name)
    if len(values) != 1:
        raise Refusal(400, f"give {name}= once, not {len(values)} times")
    return values[0]


def _query_dataset(*sources: QueryParams) -> QueryDataset | None:
    """The graphs that a query's ``default-graph-uri`` and ``named-graph-uri`` parameters name, in place
    of its own ``FROM`` and ``FROM NAMED`` (the SPARQL 1.1 Protocol); None when no parameter names one."""
    for parameters in sources:
        for name in UPDATE_DATASET:
            if name in parameters:
                raise Refusal(400, f"{name} goes with an update; a query names its graphs with default-graph-uri")
    default, named = (
        [_iri(value, name) for parameters in sources for value in parameters.getlist(name)] for name in QUERY_DATASET
    )
    if not default and not named:
        return None
    return QueryDataset(default=tuple(default), named=tuple(named))


def _refuse_update_dataset(*sources: QueryParams) -> None:
    for parameters in sources:
        for name in QUERY_DATASET:
            if name in parameters:
                raise Refusal(400, f"{name} goes with a query; an update names its graphs with USING or WITH")
        for name in UPDATE_DATASET:
            if name in parameters:
                raise Refusal(400, f"{name} is not supported: name the graphs in the update, with USING or WITH")


def _iri(value: str, name: str) -> str:
    """``value`` if it is an absolute IRI; a 400 naming the parameter ``name`` otherwise."""
    import pyoxigraph as ox

    try:
        ox.NamedNode(value)
    except ValueError:
        raise Refusal(400, f"{name}= must be an absolute IRI, not {value!r}") from None
    return value


def _target_graph(parameters: QueryParams) -> str | None:
    """The graph a Graph Store request names: None for ``?default``, else the IRI of ``?graph=``."""
    if ("default" in parameters) == ("graph" in parameters):
        raise Refusal(400, "name the graph: ?default, or ?graph=IRI")
    if "default" in parameters:
        return None
    return _iri(_one(parameters, "graph"), "graph")


def _refuse_keywords(sparql: str) -> None:
    used = keywords(sparql, ("SERVICE", "LOAD"))
    if "SERVICE" in used:
        raise Refusal(403, "SERVICE is refused: this server sends no request to other servers")
    if "LOAD" in used:
        raise Refusal(403, "LOAD is refused: this server reads no file or URL a client names")


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0]


# ---- running a query and writing its answer


async def _watching(request: Request, run: Callable[[], T], cancel: Callable[[], None]) -> T:
    """``run()`` in a thread; ``cancel()`` if the client goes away meanwhile."""

    async def watch() -> None:
        while not await request.is_disconnected():
            await anyio.sleep(DISCONNECT_CHECK)
        cancel()

    def guarded() -> T:
        # A KeyboardInterrupt (QueryCancelled is one) must not reach the event loop, which would stop.
        try:
            return run()
        except QueryCancelled:
            raise _Cancelled() from None

    outcome: list = []
    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        try:
            outcome.append(await run_in_threadpool(guarded))
        except Exception as err:  # raised here, not as an ExceptionGroup of the task group
            outcome.append(err)
        finally:
            group.cancel_scope.cancel()
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


class _Cancelled(Exception):
    """The query was cancelled (its client went away, or the server is stopping)."""


def _answer(result: Result, accept: str | None) -> Response:
    """The answer to a query, in the format ``accept`` prefers among those that fit it."""
    if result.kind == "graph":
        chosen = choose(GRAPHS, accept)
        body = render_graph(result, chosen.key)
    else:
        chosen = choose(RESULTS, accept)
        body = render(result, chosen.key).encode("utf-8")
    return Response(body, media_type=chosen.media_type, headers={"Vary": "Accept"})
