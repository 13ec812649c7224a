"""`kg export`: the graph in an RDF format, or its projection in a graph format, to a file or stdout."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kg.cli.common import _open_for_reading, command, options


@command("export", "write the graph as ttl, nt, nq, trig, jsonld or xml; or its projection as graphml, gexf or csv")
def cmd_export(args: argparse.Namespace) -> int:
    from kg.export import EXPORTERS, get_exporter, write_atomically

    name = args.format or _format_from_suffix(args.output, EXPORTERS) or "ttl"
    exporter = get_exporter(name)
    with _open_for_reading(args) as store:
        if args.output in (None, "-"):
            exporter.write(store, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        else:
            write_atomically(Path(args.output), lambda stream: exporter.write(store, stream))
    return 0


@options("export")
def _export_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", default=None, help="ttl, nt, nq, trig, jsonld, xml, graphml, gexf, csv (default: from -o, else ttl)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")


def _format_from_suffix(output: str | None, exporters: dict) -> str | None:
    if not output or output == "-":
        return None
    suffix = Path(output).suffix.lower()
    return next((name for name, e in exporters.items() if e.suffix == suffix), None)
