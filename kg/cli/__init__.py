"""The `kg` command line. Each subcommand is one small function over the library.

Errors the user can act on (:class:`kg.errors.KGError`) print one line on stderr and
exit with their status (2 for bad usage or input, 1 otherwise); ``--debug`` shows the
traceback instead.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from kg.errors import KGError, UsageError

QUERY_FORMATS = ("table", "csv", "tsv", "json", "xml")
Command = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, tuple[Command, str]] = {}


def command(name: str, help: str) -> Callable[[Command], Command]:
    """Register a subcommand handler under ``name``."""

    def register(handler: Command) -> Command:
        COMMANDS[name] = (handler, help)
        return handler

    return register


# --- build and extract ---------------------------------------------------------------------

@command("build", "build or extend the graph from abstracts (default source: seeds/)")
def cmd_build(args: argparse.Namespace) -> int:
    from kg.build.builder import build, print_progress

    sources = args.sources or _default_sources()
    report = build(sources, store=args.store, model=args.model, workers=args.workers,
                   skip_bad=args.skip_bad, progress=print_progress)
    _report_skipped(report.bad)
    print(report.summary(), file=sys.stderr)
    return 0


@command("extract", "print the entities and relations of each abstract as JSON lines (no store)")
def cmd_extract(args: argparse.Namespace) -> int:
    from kg.extract.pipeline import Extractor
    from kg.ingest import iter_source_files, read_documents

    if args.format != "jsonl":
        raise UsageError(f"unknown extract format {args.format!r}; the only one is jsonl")
    files = list(iter_source_files(args.sources))
    bad: list[KGError] = []
    # Validate everything first so that bad input stops before any output is written.
    for _ in read_documents(files, on_error=bad.append if args.skip_bad else None):
        pass
    extractor = Extractor(model=args.model, profile=args.profile, workers=args.workers)
    out = sys.stdout
    for record in extractor.extract(read_documents(files, on_error=lambda _: None)):
        out.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
    out.flush()
    _report_skipped(bad)
    return 0


@command("eval", "score extraction: gold (annotated seed abstracts) or scierc (the SciERC benchmark)")
def cmd_eval(args: argparse.Namespace) -> int:
    if args.benchmark == "gold":
        from kg.eval.gold import DEFAULT_GOLD, evaluate_gold

        evaluation = evaluate_gold(args.gold or [DEFAULT_GOLD], model=args.model)
    else:
        from kg.eval.scierc import evaluate

        evaluation = evaluate(args.split)
    _write_text(json.dumps(evaluation.to_json(), indent=2) if args.format == "json" else evaluation.to_text())
    return 0


# --- training ----------------------------------------------------------------------------------

@command("train", "train the default extraction model (extraction), the SciERC joint model (scierc) or the rules "
                  "profile's relation classifier (relations)")
def cmd_train(args: argparse.Namespace) -> int:
    if args.target == "extraction":
        from kg.extract.learned.training import train as train_extraction

        output = train_extraction(Path(args.output) if args.output else None, minutes=args.minutes)
    elif args.target == "relations":
        from kg.extract.relation_model import MODEL_FILE
        from kg.extract.relation_training import train_relations

        output = Path(args.output) if args.output else MODEL_FILE
        train_relations(output)
    else:
        from kg.extract.scierc.training import Settings, train

        settings = Settings(**{name: value for name, value in (("epochs", args.epochs), ("context", args.context))
                               if value is not None})
        output = train(Path(args.output) if args.output else None, settings=settings, minutes=args.minutes)
    print(f"kg train: wrote {output}", file=sys.stderr)
    return 0


# --- reading the graph -----------------------------------------------------------------------

@command("query", "run a SPARQL query (prefixes kg:, kgr:, rdf:, rdfs:, skos:, ... are declared)")
def cmd_query(args: argparse.Namespace) -> int:
    from kg.query import render

    if args.file:
        sparql = _read_query_file(args.file)
    elif args.sparql:
        sparql = args.sparql
    else:
        raise UsageError("give a SPARQL query, or -f FILE")
    with _open_for_reading(args) as store:
        result = store.query(sparql)
    _write_text(render(result, args.format))
    return 0


@command("stats", "count papers, entities per type, relations and triples")
def cmd_stats(args: argparse.Namespace) -> int:
    from kg.explore.stats import collect_stats

    with _open_for_reading(args) as store:
        stats = collect_stats(store)
    _write_text(json.dumps(stats.to_json(), indent=2) if args.format == "json" else stats.to_text())
    return 0


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


@command("validate", "check the graph against the SHACL shapes in ontology/shapes.ttl")
def cmd_validate(args: argparse.Namespace) -> int:
    from kg.store.validate import validate

    with _open_for_reading(args) as store:
        report = validate(store)
    _write_text(report.text)
    return 0 if report.conforms else 1


@command("describe", "an entity: type, aliases, papers, and its relations with support and evidence")
def cmd_describe(args: argparse.Namespace) -> int:
    from kg.explore.describe import describe

    with _open_for_reading(args) as store:
        description = describe(store, args.entity)
    _write_text(json.dumps(description.to_json(), indent=2, ensure_ascii=False) if args.format == "json"
                else description.to_text())
    return 0


@command("shell", "open the interactive query shell")
def cmd_shell(args: argparse.Namespace) -> int:
    from shell.app import run_shell

    return run_shell(store=args.store, endpoint=args.endpoint)


# --- exploring connections -------------------------------------------------------------------

@command("path", "the shortest chains of links between two concepts, each hop with its evidence")
def cmd_path(args: argparse.Namespace) -> int:
    from kg.explore.text import render_path
    from kg.explore.reports import path_report

    with _open_for_reading(args) as store:
        report = path_report(_projection(store), store, args.source, args.target, max_hops=args.max_hops,
                             limit=args.limit, via=_names(args.via), through_papers=args.papers)
    _write_report(report, render_path, args.format)
    return 0


@command("neighbors", "the concepts within N links of a concept, nearest and best-linked first")
def cmd_neighbors(args: argparse.Namespace) -> int:
    from kg.explore.text import render_neighbors
    from kg.explore.reports import neighbors_report

    with _open_for_reading(args) as store:
        report = neighbors_report(_projection(store), args.concept, hops=args.hops, limit=args.limit or None,
                                  via=_names(args.via), through_papers=args.papers)
    _write_report(report, render_neighbors, args.format)
    return 0


@command("related", "the concepts most associated with a concept, and likely links not made yet")
def cmd_related(args: argparse.Namespace) -> int:
    from kg.explore.text import render_related
    from kg.explore.reports import related_report

    with _open_for_reading(args) as store:
        report = related_report(_projection(store), args.concept, measure=args.measure, types=_names(args.type),
                                limit=args.limit, predictions=args.predict)
    _write_report(report, render_related, args.format)
    return 0


@command("central", "the most central concepts of each type, by degree or PageRank")
def cmd_central(args: argparse.Namespace) -> int:
    from kg.explore.text import render_central
    from kg.explore.reports import central_report

    with _open_for_reading(args) as store:
        report = central_report(_projection(store), store, by=args.by, types=_names(args.type), limit=args.limit)
    _write_report(report, render_central, args.format)
    return 0


@command("communities", "clusters of concepts that occur together (Louvain), named by their top concepts")
def cmd_communities(args: argparse.Namespace) -> int:
    from kg.explore.text import render_communities
    from kg.explore.reports import communities_report

    with _open_for_reading(args) as store:
        report = communities_report(_projection(store), store, resolution=args.resolution,
                                    min_size=args.min_size, limit=args.limit or None)
    _write_report(report, render_communities, args.format)
    return 0


@command("viz", "write an interactive HTML view of a concept's neighbourhood")
def cmd_viz(args: argparse.Namespace) -> int:
    from kg.export import write_atomically
    from kg.explore.viz import neighbourhood_view, render_html

    with _open_for_reading(args) as store:
        view = neighbourhood_view(_projection(store), store, args.concept, hops=args.hops, limit=args.limit,
                                  via=_names(args.via), through_papers=args.papers)
    html = render_html(view).encode("utf-8")
    if args.output in (None, "-"):
        sys.stdout.buffer.write(html)
        sys.stdout.buffer.flush()
    else:
        write_atomically(Path(args.output), lambda stream: stream.write(html))
    return 0


# --- the parser ------------------------------------------------------------------------------

def make_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", metavar="DIR", default=argparse.SUPPRESS,
                        help="the graph store directory (default: $KG_STORE or ./.kg)")
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks")
    reading = argparse.ArgumentParser(add_help=False)
    reading.add_argument("--endpoint", metavar="URL", default=argparse.SUPPRESS,
                         help="query a SPARQL 1.1 endpoint instead of the local store")
    nlp = argparse.ArgumentParser(add_help=False)
    nlp.add_argument("sources", nargs="*", metavar="SOURCE", help="a .txt, .jsonl, .csv or .tsv file, or a folder")
    nlp.add_argument("--workers", type=_positive_int, default=1, help="extraction processes (default 1)")
    nlp.add_argument("--model", default=None,
                     help="spaCy pipeline (default: $KG_SPACY_MODEL or the installed en_core_web_sm)")
    nlp.add_argument("--skip-bad", action="store_true",
                     help="skip bad records and report them, instead of stopping at the first")

    parser = argparse.ArgumentParser(
        prog="kg", parents=[common],
        description="Build and explore a knowledge graph of machine-learning research from paper abstracts.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    build = sub.add_parser("build", parents=[common, nlp], help=COMMANDS["build"][1])
    extract = sub.add_parser("extract", parents=[common, nlp], help=COMMANDS["extract"][1])
    extract.add_argument("--format", default="jsonl", help="output format (jsonl)")
    extract.add_argument("--profile", choices=("default", "rules", "scierc"), default="default",
                         help="default: the model learned from the project's annotations; rules: vocabularies "
                              "and rules over the parse; scierc: every typed span, as the SciERC benchmark scores them")
    evaluate = sub.add_parser("eval", parents=[common], help=COMMANDS["eval"][1])
    evaluate.add_argument("benchmark", choices=("gold", "scierc"))
    evaluate.add_argument("--gold", action="append", metavar="FILE",
                          help="annotated abstracts (gold: default ../shared/gold/dev.json); repeatable")
    evaluate.add_argument("--split", default="dev", help="scierc: dev or test (default dev)")
    evaluate.add_argument("--format", choices=("text", "json"), default="text")
    evaluate.add_argument("--model", default=None, help="spaCy pipeline (see kg build --model)")
    train = sub.add_parser("train", parents=[common], help=COMMANDS["train"][1])
    train.add_argument("target", choices=("extraction", "scierc", "relations"),
                       help="extraction: the default profile's joint model, on data/annotations/train.json; "
                            "scierc: the SciERC joint model; relations: the rules profile's relation classifier "
                            "(both on SciERC train)")
    train.add_argument("--output", metavar="FILE", default=None,
                       help="where to write the weights (default: the package's own, in kg/models/)")
    train.add_argument("--minutes", type=float, default=None,
                       help="extraction, scierc: stop after the epoch that passes this many minutes, keeping the "
                            "best so far")
    train.add_argument("--epochs", type=int, default=None, help="scierc: epochs (default 10)")
    train.add_argument("--context", type=int, default=None,
                       help="scierc: word pieces of the neighbouring sentences read on each side (default 0)")
    query = sub.add_parser("query", parents=[common, reading], help=COMMANDS["query"][1])
    query.add_argument("sparql", nargs="?", help="the query text")
    query.add_argument("-f", "--file", help="read the query from FILE ('-' for stdin)")
    query.add_argument("--format", choices=QUERY_FORMATS, default="table")
    stats = sub.add_parser("stats", parents=[common, reading], help=COMMANDS["stats"][1])
    stats.add_argument("--format", choices=("text", "json"), default="text")
    export = sub.add_parser("export", parents=[common], help=COMMANDS["export"][1])
    export.add_argument("--format", default=None,
                        help="ttl, nt, nq, trig, jsonld, xml, graphml, gexf, csv (default: from -o, else ttl)")
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")
    sub.add_parser("validate", parents=[common], help=COMMANDS["validate"][1])
    described = sub.add_parser("describe", parents=[common, reading], help=COMMANDS["describe"][1])
    described.add_argument("entity", metavar="X", help="a label, alias or IRI")
    described.add_argument("--format", choices=("text", "json"), default="text")
    _add_exploring(sub, parents=[common, reading])
    sub.add_parser("shell", parents=[common, reading], help=COMMANDS["shell"][1])
    del build  # configured through its parents
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    args.store = getattr(args, "store", None)
    args.endpoint = getattr(args, "endpoint", None)
    debug = getattr(args, "debug", False)
    handler, _ = COMMANDS[args.command]
    try:
        return handler(args)
    except KGError as err:
        if debug:
            raise
        print(f"kg: error: {err}", file=sys.stderr)
        return err.exit_status
    except KeyboardInterrupt:
        print("kg: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (head, less) went away; that is not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _add_exploring(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    from_json = argparse.ArgumentParser(add_help=False)
    from_json.add_argument("--format", choices=("text", "json"), default="text")
    links = argparse.ArgumentParser(add_help=False)
    links.add_argument("--via", action="append", metavar="LINK",
                       help="follow only these relations (comma-separated or repeated: usedFor, evaluatedOn, "
                            "comparedWith, outperforms, addresses, partOf, hyponymOf, featureOf, conjunction; "
                            "mentions = through papers)")
    links.add_argument("--papers", action=argparse.BooleanOptionalAction, default=None,
                       help="may links pass through papers (two concepts mentioned by one paper)? "
                            "(default: yes, unless --via leaves out mentions)")
    types = argparse.ArgumentParser(add_help=False)
    types.add_argument("--type", action="append", metavar="TYPE",
                       help="only concepts of this type (Method, Dataset, Task, Metric, Phenomenon; repeatable)")

    path = sub.add_parser("path", parents=[*parents, from_json, links], help=COMMANDS["path"][1])
    path.add_argument("source", metavar="A", help="a concept: label, alias or IRI")
    path.add_argument("target", metavar="B", help="another concept")
    path.add_argument("--max-hops", type=_positive_int, default=4, help="longest path to look for (default 4)")
    path.add_argument("--limit", type=_positive_int, default=3, help="how many paths (default 3)")
    neighbors = sub.add_parser("neighbors", parents=[*parents, from_json, links], help=COMMANDS["neighbors"][1])
    neighbors.add_argument("concept", metavar="X", help="a concept: label, alias or IRI")
    neighbors.add_argument("--hops", type=_positive_int, default=1, help="how far to look (default 1)")
    neighbors.add_argument("--limit", type=_count, default=20, help="concepts shown per ring (default 20; 0: all)")
    related = sub.add_parser("related", parents=[*parents, from_json, types], help=COMMANDS["related"][1])
    related.add_argument("concept", metavar="X", help="a concept: label, alias or IRI")
    related.add_argument("--measure", choices=("jaccard", "pmi", "npmi"), default="jaccard",
                         help="co-occurrence score over papers (default jaccard)")
    related.add_argument("--limit", type=_positive_int, default=10, help="associated concepts shown (default 10)")
    related.add_argument("--predict", type=_count, default=5, metavar="K",
                         help="also K concepts not linked yet, by Adamic-Adar (default 5; 0: none)")
    central = sub.add_parser("central", parents=[*parents, from_json, types], help=COMMANDS["central"][1])
    central.add_argument("--by", choices=("degree", "pagerank"), default="degree")
    central.add_argument("--limit", type=_positive_int, default=10, help="concepts per type (default 10)")
    communities = sub.add_parser("communities", parents=[*parents, from_json], help=COMMANDS["communities"][1])
    communities.add_argument("--resolution", type=float, default=1.0,
                             help="Louvain resolution: above 1 gives smaller communities (default 1)")
    communities.add_argument("--min-size", type=_positive_int, default=3, help="smallest community shown (default 3)")
    communities.add_argument("--limit", type=_count, default=10, help="communities shown (default 10; 0: all)")
    viz = sub.add_parser("viz", parents=[*parents, links], help=COMMANDS["viz"][1])
    viz.add_argument("concept", metavar="X", help="a concept: label, alias or IRI")
    viz.add_argument("--hops", type=_positive_int, default=1, help="how far from X (default 1)")
    viz.add_argument("--limit", type=_positive_int, default=25, help="most concepts drawn (default 25)")
    viz.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")


# --- helpers ---------------------------------------------------------------------------------

def _projection(store):
    from kg.explore.projection import load_projection

    return load_projection(store)


def _names(values: list[str] | None) -> list[str] | None:
    """Option values given repeatedly or comma-separated, as one list (None when not given)."""
    if not values:
        return None
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def _write_report(report: dict, render_text: Callable[[dict], str], output_format: str) -> None:
    _write_text(json.dumps(report, ensure_ascii=False, indent=2) if output_format == "json" else render_text(report))

def _open_for_reading(args: argparse.Namespace):
    from kg.store import open_store

    return open_store(args.store, endpoint=args.endpoint)


def _default_sources() -> list[str]:
    if Path("seeds").is_dir():
        return ["seeds"]
    raise UsageError("give one or more SOURCE files or folders (there is no ./seeds to default to)")


def _report_skipped(bad: list[KGError]) -> None:
    if bad:
        print(f"kg: skipped {len(bad)} bad record(s):", file=sys.stderr)
        for err in bad:
            print(f"  {err}", file=sys.stderr)


def _read_query_file(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{name}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"{name}: cannot read the query: {err}") from None


def _format_from_suffix(output: str | None, exporters: dict) -> str | None:
    if not output or output == "-":
        return None
    suffix = Path(output).suffix.lower()
    return next((name for name, e in exporters.items() if e.suffix == suffix), None)


def _write_text(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    sys.stdout.flush()


def _whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {value!r}") from None
        if number < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more")
        return number

    return parse


_positive_int = _whole_number(1)
_count = _whole_number(0)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("abstract-kg")
    except PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
