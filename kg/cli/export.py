"""`kg export`: the graph in an RDF format, or its projection in a graph format, to a file or stdout."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kg.cli.common import _open_for_reading, command, options


@command("export", "write the graph as ttl, nt, nq, trig, jsonld or xml; or its projection as graphml, gexf or csv")
def cmd_export(args: argparse.Namespace) -> int:
    from kg.export import export_target, get_exporter, write_atomically

    # The format is settled before the store is opened: a file name that names none is refused at once.
    if args.output in (None, "-"):
        exporter = get_exporter(args.format or "ttl")
        with _open_for_reading(args) as store:
            exporter.write(store, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        return 0
    target = export_target(args.output, args.format)
    with _open_for_reading(args) as store:
        write_atomically(Path(args.output), lambda stream: target.write(store, stream))
    return 0


@options("export")
def _export_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        default=None,
        help="ttl, nt, nq, trig, jsonld, xml, graphml, gexf, csv (default: from the suffix of -o, else ttl)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE (default: stdout); its suffix names the format (.ttl, .nt, .json, ...), "
        "and a further .gz compresses it",
    )
