"""What `kg serve` is told: where the store is, where to listen, its limits, and whether it takes updates.

Every limit has a default that suits a graph of abstracts on a small machine; see :class:`Settings`.

Examples
--------
>>> settings = Settings(store="graph")
>>> settings.host, settings.port, settings.allow_update
('127.0.0.1', 7878, False)
>>> settings.trusted_hosts(), Settings(store="graph", host="0.0.0.0").trusted_hosts()
(('localhost', '127.0.0.1', '[::1]'), ('*',))
>>> Settings(store="graph", host="0.0.0.0", allowed_hosts=("kg.example.org",)).trusted_hosts()
('localhost', '127.0.0.1', '[::1]', 'kg.example.org')
>>> Settings(store="graph", max_queries=0)
Traceback (most recent call last):
...
kg.errors.ArgumentValueError: --max-queries must be a whole number of at least 1, not 0
>>> Settings(store="graph", allow_update=True)
Traceback (most recent call last):
...
kg.errors.UsageError: --allow-update needs a token: set $KG_TOKEN, or give --token-file FILE
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from kg.errors import ArgumentValueError, UsageError, check_whole_number

TOKEN_VARIABLE = "KG_TOKEN"
MIN_TOKEN_LENGTH = 16
"""Characters a token must have at least: a short one can be guessed."""

DEFAULT_PORT = 7878
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_ROWS = 10_000
DEFAULT_MAX_BODY = 4 * 1024 * 1024
"""Bytes: a query is a few kB; a `kg push` batch (10,000 triples) of the seeds graph is about 2 MB."""
DEFAULT_MAX_QUERIES = 4
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
"""The names this machine goes by in a request's Host header (an IPv6 address is written in brackets)."""

QUEUE_WAIT = 1.0
"""Seconds a query waits for one of the ``max_queries`` slots before it is refused (503)."""
REQUESTS = 100
"""Requests under way at once; past them the server answers 503 at once. With the limit on a request's
body, this bounds the memory that requests take."""
CONNECTIONS = 4 * REQUESTS
"""Connections the server holds, idle ones included (uvicorn counts a request's task beside its
connection); past them uvicorn answers 503 itself."""


@dataclass(frozen=True)
class Settings:
    """The settings of one server.

    Parameters
    ----------
    store : str
        The store directory.
    host, port : str, int
        Where to listen: the loopback interface by default, so that only this machine reaches it.
        Port 0 takes a free port (the server says which).
    timeout : float
        Seconds a query or an update may run; past them it is abandoned (its process ended; nothing of
        the update is written) and 503 is answered.
    max_rows : int
        The most rows (SELECT) or triples (CONSTRUCT, DESCRIBE) an answer may have; a query with more
        is refused with 422, and no more than one row past the limit is read.
    max_body : int
        The largest request body taken, in bytes (a POSTed query or update, a Graph Store upload); 413 past it.
    max_queries : int
        Queries run at once, each in a query process of its own; a query that finds them all busy waits up
        to :data:`QUEUE_WAIT` seconds, then gets 503 with ``Retry-After``.
    allow_update : bool
        Take SPARQL Update and the Graph Store Protocol's PUT, POST and DELETE, from clients that send
        ``Authorization: Bearer TOKEN``.
    token : str, optional
        The token, read by :func:`read_token`; needed with ``allow_update``, and only then.
    access_log : bool
        Print a line on stderr for each request.
    allowed_hosts : tuple of str
        Names a request's Host header may give besides this machine's own (:meth:`trusted_hosts`): the
        name a reverse proxy or a DNS record gives the server.
    """

    store: str
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS
    max_body: int = DEFAULT_MAX_BODY
    max_queries: int = DEFAULT_MAX_QUERIES
    allow_update: bool = False
    token: str | None = field(default=None, repr=False)
    access_log: bool = False
    allowed_hosts: tuple[str, ...] = ()

    def trusted_hosts(self) -> tuple[str, ...]:
        """The Host header values the server answers (any other gets 400). Listening on the loopback
        interface, or given ``allowed_hosts``: this machine's names and those. So a web page cannot
        reach a server on this machine through a name of its own that it points at 127.0.0.1 (DNS
        rebinding), and read the graph or, with a token it cannot have, still try updates. Listening
        elsewhere with no ``allowed_hosts``: any (``"*"``)."""
        if self.allowed_hosts or _is_loopback(self.host):
            return (*LOOPBACK_NAMES, *self.allowed_hosts)
        return ("*",)

    def __post_init__(self) -> None:
        check_whole_number("--port", self.port, minimum=0)
        if self.port > 65535:
            raise ArgumentValueError(f"--port must be at most 65535, not {self.port}")
        if not (isinstance(self.timeout, (int, float)) and 0 < self.timeout < float("inf")):
            raise ArgumentValueError(f"--timeout takes a number of seconds greater than 0, not {self.timeout!r}")
        check_whole_number("--max-rows", self.max_rows)
        check_whole_number("--max-body", self.max_body)
        check_whole_number("--max-queries", self.max_queries)
        if self.allow_update and not self.token:
            raise UsageError(f"--allow-update needs a token: set ${TOKEN_VARIABLE}, or give --token-file FILE")
        if self.token is not None and len(self.token) < MIN_TOKEN_LENGTH:
            raise UsageError(
                f"the token has {len(self.token)} characters; give one of {MIN_TOKEN_LENGTH} or more "
                "(python3 -c 'import secrets; print(secrets.token_urlsafe())' makes one)"
            )


def _is_loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name
        return False


def read_token(
    *, allow_update: bool, token_file: str | os.PathLike[str] | None = None, environ: Mapping[str, str] = os.environ
) -> str | None:
    """The token updates need: the first line of ``token_file``, or else ``$KG_TOKEN``; None without
    ``allow_update`` (a token is never read from the command line itself).

    Raises
    ------
    kg.errors.UsageError
        ``token_file`` without ``allow_update``, or a file that cannot be read or is empty.

    Examples
    --------
    >>> read_token(allow_update=True, environ={"KG_TOKEN": "s3cret-s3cret-s3cret"})
    's3cret-s3cret-s3cret'
    >>> read_token(allow_update=False, environ={"KG_TOKEN": "s3cret-s3cret-s3cret"}) is None
    True
    """
    if not allow_update:
        if token_file is not None:
            raise UsageError("--token-file goes with --allow-update: a read-only server takes no token")
        return None
    if token_file is not None:
        from kg.export.gsp import read_secret

        return read_secret(token_file, "--token-file")
    return environ.get(TOKEN_VARIABLE) or None
