"""Running the server: the store checked, the address bound, then uvicorn serving the application until
Ctrl-C (or SIGTERM) stops it.

The socket is bound here rather than by uvicorn, so that an address in use is a usage error like any
other, and port 0 gives a free port, which the start-up line names.
"""

from __future__ import annotations

import errno
import socket
import sys
from collections.abc import Callable

import uvicorn

from kg.errors import StoreError, UsageError
from kg.serve.settings import CONNECTIONS, Settings

__all__ = ["bind", "check_store", "serve", "url_of"]

GRACEFUL_STOP = 3.0
"""Seconds the requests under way get to finish once the server is told to stop."""


def check_store(location: str) -> None:
    """Open the store as a query process will, and close it: so that a store that is missing, damaged or
    held by a build is reported before the server starts, naming the store.

    Raises
    ------
    kg.errors.StoreNotFoundError, kg.errors.StoreError
        What :func:`kg.store.open_store` raises.
    """
    from kg.store import open_store

    try:
        with open_store(location):
            pass
    except StoreError as err:
        raise type(err)(f"{err} (kg serve reads the store as a query does)") from None


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host`` and ``port`` (0: a free port).

    Raises
    ------
    kg.errors.UsageError
        The address is in use, or cannot be bound here.
    """
    try:
        family, kind, protocol, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as err:
        raise UsageError(f"--host {host}: {err.strerror}") from None
    sock = socket.socket(family, kind, protocol)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(CONNECTIONS)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise UsageError(f"{host}:{port} is in use by another program: choose another --port") from None
        raise UsageError(f"cannot listen on {host}:{port}: {err.strerror}") from None
    sock.set_inheritable(False)
    return sock


def url_of(sock: socket.socket) -> str:
    """The base URL of the server listening on ``sock``.

    Examples
    --------
    >>> sock = bind("127.0.0.1", 0)
    >>> url_of(sock).startswith("http://127.0.0.1:")
    True
    >>> sock.close()
    """
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(settings: Settings, *, announce: Callable[[str], None] | None = None) -> None:
    """Serve the store of ``settings`` until the process is told to stop.

    ``announce`` is given the start-up line once the address is bound (by default it goes to stderr);
    requests that arrive before the application is ready wait in the socket's queue.

    Raises
    ------
    kg.errors.UsageError, kg.errors.StoreError
        The store, the address or a setting cannot serve.
    """
    from kg.serve.app import create_app

    check_store(settings.store)
    sock = bind(settings.host, settings.port)
    url = url_of(sock)
    mode = "updates with the token" if settings.allow_update else "read-only"
    line = (
        f"kg serve: {url}/sparql ({mode}), query page {url}/, store {settings.store}; "
        f"limits: {settings.timeout:g} s, {settings.max_rows} rows, {settings.max_body} bytes a request, "
        f"{settings.max_queries} queries at once; Ctrl-C stops it"
    )
    (announce or _to_stderr)(line)
    config = uvicorn.Config(
        create_app(settings),
        limit_concurrency=CONNECTIONS,
        timeout_graceful_shutdown=GRACEFUL_STOP,
        log_config=_log_config(settings.access_log),
        server_header=False,
    )
    try:
        _Server(config).run(sockets=[sock])
    finally:
        sock.close()


class _Server(uvicorn.Server):
    """uvicorn's server, which ends the query processes as it starts to stop: the queries under way are
    then answered at once (503, the server is stopping) rather than cut off when the grace runs out."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        import anyio

        await anyio.to_thread.run_sync(self.config.app.state.pool.close)
        await super().shutdown(sockets=sockets)


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _log_config(access_log: bool) -> dict:
    """uvicorn's logging: its warnings and errors, and with ``access_log`` a line per request."""
    from copy import deepcopy

    from uvicorn.config import LOGGING_CONFIG

    config = deepcopy(LOGGING_CONFIG)
    config["loggers"]["uvicorn"]["level"] = "WARNING"
    config["loggers"]["uvicorn.error"]["level"] = "WARNING"
    config["loggers"]["uvicorn.access"]["level"] = "INFO" if access_log else "WARNING"
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"  # stdout is for data, as in every kg command
    return config
