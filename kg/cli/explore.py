"""`kg describe` and `kg paper`, and exploring connections: `kg path`, `neighbors`, `related`, `central`,
`communities` and `viz` (kg.explore's reports, printed as text or JSON).

A name is resolved by the one lookup (:mod:`kg.explore.lookup`); when it was ambiguous, the
report's notes say on stderr which entity was taken."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from kg.cli.common import _count, _open_for_reading, _positive_int, _write_text, add_format_option, command, options


@command(
    "describe",
    "an entity: type, aliases, papers, and its relations with support and evidence (or a paper)",
    at_once=True,
)
def cmd_describe(args: argparse.Namespace) -> int:
    from kg.explore.describe import Description
    from kg.explore.reports import describe_report
    from kg.explore.text import render_description, render_paper

    with _open_for_reading(args) as store:
        report = describe_report(store, args.entity)
    _write_report(report, render_description if isinstance(report, Description) else render_paper, args.format)
    return 0


@options("describe", parents=("reading",))
def _describe_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("entity", metavar="X", help="a label, alias or IRI; or a paper (paper:ID, its id)")
    add_format_option(parser)


@command(
    "paper", "a paper: title, abstract, sources, the entities it proposes and mentions, its relations", at_once=True
)
def cmd_paper(args: argparse.Namespace) -> int:
    from kg.explore.reports import paper_report
    from kg.explore.text import render_paper

    with _open_for_reading(args) as store:
        report = paper_report(store, args.paper)
    _write_report(report, render_paper, args.format)
    return 0


@options("paper", parents=("reading",))
def _paper_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paper", metavar="ID", help="paper:ID, the paper's id or IRI, or the start of its id")
    add_format_option(parser)


# --- exploring connections -------------------------------------------------------------------


@command("path", "the shortest chains of links between two concepts, each hop with its evidence", at_once=True)
def cmd_path(args: argparse.Namespace) -> int:
    from kg.explore.reports import path_report
    from kg.explore.text import render_path

    with _open_for_reading(args) as store:
        report = path_report(
            _projection(store),
            store,
            args.source,
            args.target,
            max_hops=args.max_hops,
            limit=args.limit,
            via=_names(args.via),
            through_papers=args.papers,
        )
    _write_report(report, render_path, args.format)
    return 0


@command("neighbors", "the concepts within N links of a concept, nearest and best-linked first", at_once=True)
def cmd_neighbors(args: argparse.Namespace) -> int:
    from kg.explore.reports import neighbors_report
    from kg.explore.text import render_neighbors

    with _open_for_reading(args) as store:
        report = neighbors_report(
            _projection(store),
            args.concept,
            hops=args.hops,
            limit=args.limit or None,
            via=_names(args.via),
            through_papers=args.papers,
        )
    _write_report(report, render_neighbors, args.format)
    return 0


@command("related", "the concepts most associated with a concept, and likely links not made yet", at_once=True)
def cmd_related(args: argparse.Namespace) -> int:
    from kg.explore.reports import related_report
    from kg.explore.text import render_related

    with _open_for_reading(args) as store:
        report = related_report(
            _projection(store),
            args.concept,
            measure=args.measure,
            types=_names(args.type),
            limit=args.limit,
            predictions=args.predict,
        )
    _write_report(report, render_related, args.format)
    return 0


@command("central", "the most central concepts of each type, by degree or PageRank", at_once=True)
def cmd_central(args: argparse.Namespace) -> int:
    from kg.explore.reports import central_report
    from kg.explore.text import render_central

    with _open_for_reading(args) as store:
        report = central_report(_projection(store), store, by=args.by, types=_names(args.type), limit=args.limit)
    _write_report(report, render_central, args.format)
    return 0


@command("communities", "clusters of concepts that occur together (Louvain), named by their top concepts", at_once=True)
def cmd_communities(args: argparse.Namespace) -> int:
    from kg.explore.reports import communities_report
    from kg.explore.text import render_communities

    with _open_for_reading(args) as store:
        report = communities_report(
            _projection(store), store, resolution=args.resolution, min_size=args.min_size, limit=args.limit or None
        )
    _write_report(report, render_communities, args.format)
    return 0


@command("viz", "write an interactive HTML view of a concept's neighbourhood", at_once=True)
def cmd_viz(args: argparse.Namespace) -> int:
    from kg.explore.lookup import notes_of
    from kg.explore.viz import neighbors_view, render_html
    from kg.export import write_atomically

    with _open_for_reading(args) as store:
        graph = _projection(store)
        choice = graph.lookup(args.concept)
        _write_notes(notes_of(choice))
        view = neighbors_view(
            graph,
            store,
            choice.iri,
            hops=args.hops,
            limit=args.limit,
            via=_names(args.via),
            through_papers=args.papers,
            co_mentions=args.co_mentions,
        )
    html = render_html(view).encode("utf-8")
    if args.output in (None, "-"):
        sys.stdout.buffer.write(html)
        sys.stdout.buffer.flush()
    else:
        write_atomically(Path(args.output), lambda stream: stream.write(html))
    return 0


def _projection(store):
    from kg.explore.projection import load_projection

    return load_projection(store)


def _names(values: list[str] | None) -> list[str] | None:
    """Option values given repeatedly or comma-separated, as one list (None when not given)."""
    if not values:
        return None
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def _write_report(report: Any, render_text: Callable[[Any], str], output_format: str) -> None:
    """The report's notes on stderr, then ``report.to_json()`` as JSON, or ``render_text(report)``."""
    _write_notes(getattr(report, "notes", ()))
    _write_text(
        json.dumps(report.to_json(), ensure_ascii=False, indent=2) if output_format == "json" else render_text(report)
    )


def _write_notes(notes: Iterable[str]) -> None:
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


# --- their options -----------------------------------------------------------------------------


def _add_links(parser: argparse.ArgumentParser) -> None:
    """Which links a walk through the graph may follow."""
    parser.add_argument(
        "--via",
        action="append",
        metavar="LINK",
        help="follow only these relations (comma-separated or repeated: usedFor, evaluatedOn, "
        "comparedWith, outperforms, addresses, partOf, hyponymOf, featureOf, conjunction; "
        "mentions = through papers)",
    )
    parser.add_argument(
        "--papers",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="may links pass through papers (two concepts mentioned by one paper)? "
        "(default: yes, unless --via leaves out mentions)",
    )


def _add_types(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--type",
        action="append",
        metavar="TYPE",
        help="only concepts of this type (Method, Dataset, Task, Metric, Phenomenon; repeatable)",
    )


@options("path", parents=("reading",))
def _path_options(parser: argparse.ArgumentParser) -> None:
    add_format_option(parser)
    _add_links(parser)
    parser.add_argument("source", metavar="A", help="a concept: label, alias or IRI")
    parser.add_argument("target", metavar="B", help="another concept")
    parser.add_argument("--max-hops", type=_positive_int, default=4, help="longest path to look for (default 4)")
    parser.add_argument("--limit", type=_positive_int, default=3, help="how many paths (default 3)")


@options("neighbors", parents=("reading",))
def _neighbors_options(parser: argparse.ArgumentParser) -> None:
    add_format_option(parser)
    _add_links(parser)
    parser.add_argument("concept", metavar="X", help="a concept: label, alias or IRI")
    parser.add_argument("--hops", type=_positive_int, default=1, help="how far to look (default 1)")
    parser.add_argument("--limit", type=_count, default=20, help="concepts shown per ring (default 20; 0: all)")


@options("related", parents=("reading",))
def _related_options(parser: argparse.ArgumentParser) -> None:
    add_format_option(parser)
    _add_types(parser)
    parser.add_argument("concept", metavar="X", help="a concept: label, alias or IRI")
    parser.add_argument(
        "--measure",
        choices=("jaccard", "pmi", "npmi"),
        default="jaccard",
        help="co-occurrence score over papers (default jaccard)",
    )
    parser.add_argument("--limit", type=_positive_int, default=10, help="associated concepts shown (default 10)")
    parser.add_argument(
        "--predict",
        type=_count,
        default=5,
        metavar="K",
        help="also K concepts not linked yet, by Adamic-Adar (default 5; 0: none)",
    )


@options("central", parents=("reading",))
def _central_options(parser: argparse.ArgumentParser) -> None:
    add_format_option(parser)
    _add_types(parser)
    parser.add_argument("--by", choices=("degree", "pagerank"), default="degree")
    parser.add_argument("--limit", type=_positive_int, default=10, help="concepts per type (default 10)")


@options("communities", parents=("reading",))
def _communities_options(parser: argparse.ArgumentParser) -> None:
    add_format_option(parser)
    parser.add_argument(
        "--resolution",
        type=float,
        default=1.0,
        help="Louvain resolution: above 1 gives smaller communities (default 1)",
    )
    parser.add_argument("--min-size", type=_positive_int, default=3, help="smallest community shown (default 3)")
    parser.add_argument("--limit", type=_count, default=10, help="communities shown (default 10; 0: all)")


@options("viz", parents=("reading",))
def _viz_options(parser: argparse.ArgumentParser) -> None:
    _add_links(parser)
    parser.add_argument("concept", metavar="X", help="a concept: label, alias or IRI")
    parser.add_argument("--hops", type=_positive_int, default=1, help="how far from X (default 1)")
    parser.add_argument("--limit", type=_positive_int, default=25, help="most concepts drawn (default 25)")
    parser.add_argument(
        "--co-mentions",
        type=_count,
        default=6,
        metavar="N",
        help="co-mention links drawn besides those that reach each concept, most papers first (default 6)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")
