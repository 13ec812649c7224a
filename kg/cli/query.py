"""`kg query`, `kg stats`, `kg validate` and `kg shell`: reading the graph as it is stored."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from kg.cli.common import _open_for_reading, _seconds, _write_text, add_format_option, command, options
from kg.errors import UsageError

QUERY_FORMATS = ("table", "csv", "tsv", "json", "xml")


@command(
    "query", "run a SPARQL query (prefixes kg:, paper:, entity:, rdf:, rdfs:, skos:, ... are declared)", at_once=True
)
def cmd_query(args: argparse.Namespace) -> int:
    """The answer on stdout; its row count and time on stderr, so that stdout holds only data. A table
    on a terminal is fitted to its width (a pipe gets every cell whole).

    A local store's query runs in a child process (:class:`kg.store.worker.QueryWorker`), which
    Ctrl-C and ``--timeout`` end at once; an endpoint's request is bounded by ``--timeout`` too.
    """
    if args.file:
        sparql = _read_query_file(args.file)
    elif args.sparql:
        sparql = args.sparql
    else:
        raise UsageError("give a SPARQL query, or -f FILE")
    if args.endpoint:
        with _open_for_reading(args) as store:
            result = store.query(sparql, timeout=args.timeout)
    else:
        from kg.store.worker import QueryWorker

        with QueryWorker(args.store) as worker:
            result = worker.query(sparql, timeout=args.timeout)
    from kg.query import render, summary_line

    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    _write_text(render(result, args.format, width=width))
    footer = summary_line(result)
    if footer:
        print(footer, file=sys.stderr)
    return 0


@options("query", parents=("reading",))
def _query_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sparql", nargs="?", help="the query text")
    parser.add_argument("-f", "--file", help="read the query from FILE ('-' for stdin)")
    parser.add_argument("--format", choices=QUERY_FORMATS, default="table")
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=_seconds,
        default=None,
        help="abandon the query after SECONDS (default: no limit; Ctrl-C stops it at any time)",
    )


def _read_query_file(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{name}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"{name}: cannot read the query: {err}") from None


@command("stats", "count papers, entities per type, relations and triples", at_once=True)
def cmd_stats(args: argparse.Namespace) -> int:
    from kg.explore.stats import collect_stats

    with _open_for_reading(args) as store:
        stats = collect_stats(store)
    _write_text(json.dumps(stats.to_json(), indent=2) if args.format == "json" else stats.to_text())
    return 0


@options("stats", parents=("reading",))
def _stats_options(parser: argparse.ArgumentParser) -> None:
    add_format_option(parser)


@command("validate", "check the graph against the SHACL shapes in ontology/shapes.ttl", at_once=True)
def cmd_validate(args: argparse.Namespace) -> int:
    from kg.progress import terminal_progress
    from kg.store.validate import validate

    with _open_for_reading(args) as store:
        report = validate(store, progress=terminal_progress("validating", "node"))
    _write_text(report.text)
    return 0 if report.conforms else 1


@command("shell", "open the interactive query shell")
def cmd_shell(args: argparse.Namespace) -> int:
    from shell.app import run_shell

    return run_shell(store=args.store, endpoint=args.endpoint)


@options("shell", parents=("reading",))
def _shell_options(parser: argparse.ArgumentParser) -> None:
    """Only the shared ones: --store, or --endpoint."""
