"""`kg serve`: the store as a SPARQL 1.1 endpoint (kg.serve), until Ctrl-C."""

from __future__ import annotations

import argparse
import sys

from kg.cli.common import _positive_int, _seconds, command, options


@command("serve", "serve the graph over HTTP: SPARQL 1.1 Protocol, Graph Store reads, a query page")
def cmd_serve(args: argparse.Namespace) -> int:
    from kg.serve.server import serve
    from kg.serve.settings import Settings, read_token
    from kg.store import default_store_path

    token = read_token(allow_update=args.allow_update, token_file=args.token_file)
    settings = Settings(
        store=args.store or default_store_path(),
        host=args.host,
        port=args.port,
        timeout=args.timeout,
        max_rows=args.max_rows,
        max_body=args.max_body,
        max_queries=args.max_queries,
        allow_update=args.allow_update,
        token=token,
        access_log=args.access_log,
        allowed_hosts=tuple(args.allow_host),
    )
    try:
        serve(settings)
    except KeyboardInterrupt:  # Ctrl-C is how a server is stopped: not an error
        pass
    print("kg serve: stopped", file=sys.stderr)
    return 0


@options("serve")
def _serve_options(parser: argparse.ArgumentParser) -> None:
    from kg.serve import settings

    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument(
        "--port", type=_port, default=settings.DEFAULT_PORT, help=f"default {settings.DEFAULT_PORT}; 0 takes a free one"
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=_seconds,
        default=settings.DEFAULT_TIMEOUT,
        help=f"abandon a query or an update after SECONDS and answer 503 (default {settings.DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-rows",
        metavar="N",
        type=_positive_int,
        default=settings.DEFAULT_MAX_ROWS,
        help=f"refuse (422) an answer of more than N rows or triples (default {settings.DEFAULT_MAX_ROWS})",
    )
    parser.add_argument(
        "--max-body",
        metavar="BYTES",
        type=_positive_int,
        default=settings.DEFAULT_MAX_BODY,
        help=f"refuse (413) a request body over BYTES (default {settings.DEFAULT_MAX_BODY})",
    )
    parser.add_argument(
        "--max-queries",
        metavar="N",
        type=_positive_int,
        default=settings.DEFAULT_MAX_QUERIES,
        help=f"queries run at once, each in its own process; more wait a second, then get 503 "
        f"(default {settings.DEFAULT_MAX_QUERIES})",
    )
    parser.add_argument(
        "--allow-update",
        action="store_true",
        help="take SPARQL Update and Graph Store PUT/POST/DELETE from clients with the token",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        default=None,
        help=f"with --allow-update: the bearer token, the file's first line (or ${settings.TOKEN_VARIABLE})",
    )
    parser.add_argument(
        "--allow-host",
        metavar="NAME",
        action="append",
        default=[],
        help="a name clients may reach the server by (a Host header) besides localhost, 127.0.0.1 and [::1]; "
        "repeatable. Without it a server on the loopback interface answers those names only, one elsewhere any",
    )
    parser.add_argument("--access-log", action="store_true", help="print a line on stderr for each request")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("must be from 0 to 65535")
    return port
