"""`kg export` and `kg push`: the graph in an RDF format, or its projection in a graph format, to a file or
stdout; or the graph into a triple store over HTTP."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kg.cli.common import _open_for_reading, _positive_int, command, options


@command("export", "write the graph as ttl, nt, nq, trig, jsonld or xml; or its projection as graphml, gexf or csv")
def cmd_export(args: argparse.Namespace) -> int:
    from kg.export import export_target, get_exporter, write_atomically

    # The format is settled before the store is opened: a file name that names none is refused at once.
    if args.output in (None, "-"):
        exporter = get_exporter(args.format or "ttl")
        with _open_for_reading(args) as store:
            exporter.write(store, sys.stdout.buffer, with_ontology=args.with_ontology)
            sys.stdout.buffer.flush()
        return 0
    target = export_target(args.output, args.format)
    with _open_for_reading(args) as store:
        write_atomically(
            Path(args.output), lambda stream: target.write(store, stream, with_ontology=args.with_ontology)
        )
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
    parser.add_argument(
        "--with-ontology",
        action="store_true",
        help="add the ontology and the SKOS vocabularies (in nq, trig and jsonld, as named graphs of their own)",
    )


@command("push", "upload the graph to a triple store's SPARQL Graph Store Protocol endpoint")
def cmd_push(args: argparse.Namespace) -> int:
    from kg.export.gsp import read_credentials
    from kg.export.push import push
    from kg.progress import terminal_progress

    credentials = read_credentials(user=args.user, password_file=args.password_file, token_file=args.token_file)
    with _open_for_reading(args) as store:
        report = push(
            store,
            args.url,
            graph=args.graph,
            batch=args.batch,
            credentials=credentials,
            replace=args.replace,
            update_url=args.update_url,
            with_ontology=args.with_ontology,
            progress=terminal_progress("pushing", "triple"),
        )
    print(report.summary(), file=sys.stderr)
    return 0


@options("push")
def _push_options(parser: argparse.ArgumentParser) -> None:
    from kg.export.push import DEFAULT_BATCH

    parser.add_argument(
        "url", metavar="URL", help="the server's Graph Store Protocol endpoint (Oxigraph: http://HOST:7878/store)"
    )
    parser.add_argument("--graph", metavar="IRI", help="the named graph to write to (default: the default graph)")
    parser.add_argument(
        "--batch",
        type=_positive_int,
        default=DEFAULT_BATCH,
        metavar="N",
        help="triples a request (default %(default)s)",
    )
    parser.add_argument("--user", metavar="U", help="user name for basic or digest authentication")
    parser.add_argument(
        "--password-file", metavar="F", help="file whose first line is the password (or set $KG_PUSH_PASSWORD)"
    )
    parser.add_argument(
        "--token-file", metavar="F", help="file whose first line is a bearer token (or set $KG_PUSH_TOKEN)"
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="upload into a staging graph, then swap it for the target in one SPARQL update (MOVE)",
    )
    parser.add_argument(
        "--update-url",
        metavar="URL",
        help="the SPARQL Update endpoint --replace uses (default: found from URL for Virtuoso, Oxigraph, "
        "Fuseki, GraphDB)",
    )
    parser.add_argument(
        "--with-ontology", action="store_true", help="send the ontology and the SKOS vocabularies too, into the graph"
    )
