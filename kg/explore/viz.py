"""`kg viz`: a concept and its neighbors as one self-contained, interactive HTML file.

:func:`neighbors_view` gathers the data (plain JSON-ready dicts): the concept, its
best-linked neighbors ring by ring (:func:`kg.explore.paths.neighbors`), every link among
them with its support and one evidence sentence. :func:`render_html` puts it into the
template ``kg/assets/viz.html``, whose inline script lays the graph out with a small
force simulation and draws it as SVG: a colour per type, edge labels, evidence on hover,
drag, pan and zoom. The file loads nothing from the network.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:clip", "CLIP", "Method"), ("e:zsc", "zero-shot classification", "Task")],
...     relations=[("e:clip", "usedFor", "e:zsc", ["p:1"], "CLIP is used for zero-shot classification.", 0.9)])
>>> view = neighbors_view(graph, None, "CLIP")
>>> [(n["label"], n["hops"]) for n in view["nodes"]], [e["predicate"] for e in view["edges"]]
([('CLIP', 0), ('zero-shot classification', 1)], ['usedFor'])
>>> html = render_html(view)
>>> html.startswith("<!DOCTYPE html>") and "CLIP is used for zero-shot classification." in html
True
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from importlib import resources
from typing import TYPE_CHECKING

from kg.explore.links import LinkTable, allowed_links
from kg.explore.projection import Projection

if TYPE_CHECKING:
    from kg.store import Store

TEMPLATE = "assets/viz.html"
COLOURS = {"Method": "#4e79a7", "Dataset": "#f28e2b", "Task": "#59a14f", "Metric": "#b07aa1", "Phenomenon": "#e15759"}
"""The colour of each entity type (Tableau 10)."""
EDGES_PER_NODE = 2
"""Besides the links that reach each concept, at most this many links per concept are drawn (the strongest)."""
CO_MENTIONS = 6
"""Besides the co-mentions that reach each concept, at most this many co-mention links are drawn (most papers first)."""


def neighbors_view(
    graph: Projection,
    store: Store | None,
    name: str,
    *,
    hops: int = 1,
    limit: int = 25,
    via: Iterable[str] | None = None,
    through_papers: bool | None = None,
    co_mentions: int = CO_MENTIONS,
) -> dict:
    """The data of the picture: nodes, edges with evidence, and the colours.

    Parameters
    ----------
    graph : Projection
    store : Store or None
        Read for the abstracts that give co-mentions their evidence (None: no sentences).
    name : str
        The concept at the centre: label, alias or IRI.
    hops : int
        How far from the centre.
    limit : int
        The most concepts drawn besides the centre, nearest and best linked first.
    via, through_papers
        The kinds of link to follow, as in :func:`kg.explore.reports.link_kinds`.
    co_mentions : int
        The most co-mention links drawn besides those that reach each concept, the ones with most papers
        kept: co-mentions are many, and relations say more.
    """
    from kg.explore.paths import neighbors
    from kg.explore.reports import link_kinds

    center = graph.resolve(name)
    kinds = link_kinds(via, through_papers)
    near, _ = neighbors(graph, center, hops=hops, limit=limit, predicates=kinds)
    near = near[:limit]
    chosen = [center] + [n.node for n in near]
    hops_of = {center: 0, **{n.node: n.hops for n in near}}
    tree = {tuple(sorted((n.via, n.node))) for n in near}
    hops_list = _links_among(LinkTable(graph, allowed_links(kinds)), graph, chosen, tree)
    hops_list = _strongest_co_mentions(hops_list, tree, co_mentions)
    if store is not None:
        from kg.explore.evidence import with_evidence

        hops_list = with_evidence(graph, store, hops_list)
    titles = _paper_titles(graph, {hop.evidence_paper or hop.papers[0] for hop in hops_list if hop.papers})
    nodes = []
    for iri in chosen:
        number = graph.entity_id(iri)
        nodes.append(
            {
                "id": iri,
                "label": graph.labels[number],
                "type": graph.types[number],
                "papers": len(graph.papers_of[number]),
                "hops": hops_of[iri],
                "center": iri == center,
                "aliases": list(graph.aliases.get(number, ())),
            }
        )
    edges = []
    for hop in hops_list:
        paper = hop.evidence_paper or (hop.papers[0] if hop.papers else None)
        edges.append(
            {
                "source": hop.source,
                "target": hop.target,
                "predicate": hop.predicate,
                "support": hop.support,
                "evidence": hop.evidence,
                "paper": paper,
                "paper_title": titles.get(paper),
                "tree": tuple(sorted((hop.source, hop.target))) in tree,
            }
        )
    return {
        "title": f"{graph.label(center)} and its neighbourhood",
        "center": center,
        "nodes": nodes,
        "edges": edges,
        "colours": COLOURS,
    }


def render_html(view: dict) -> str:
    """The self-contained HTML page showing ``view`` (see :func:`neighbors_view`)."""
    template = resources.files("kg").joinpath(TEMPLATE).read_text(encoding="utf-8")
    # Inside <script>, "</" could end the element early: JSON allows it escaped.
    payload = json.dumps(view, ensure_ascii=False).replace("</", "<\\/")
    return template.replace("{{TITLE}}", html.escape(view["title"])).replace("{{DATA}}", payload)


def _links_among(links: LinkTable, graph: Projection, chosen: list[str], tree: set[tuple[str, str]]) -> list:
    """The links that reach each concept, and the strongest others among ``chosen``."""
    numbers = [graph.entity_id(iri) for iri in chosen]
    inside = set(numbers)
    kept = {tuple(sorted((graph.entity_id(a), graph.entity_id(b)))) for a, b in tree}
    extra: dict[int, list[tuple[float, int]]] = {}
    for node in numbers:
        for other, cost in links.around(node).items():
            if other in inside and other > node and (node, other) not in kept:
                extra.setdefault(node, []).append((cost, other))
    for node, candidates in extra.items():
        for _, other in sorted(candidates)[:EDGES_PER_NODE]:
            kept.add((node, other))
    return [links.hop(a, b) for a, b in sorted(kept)]


def _strongest_co_mentions(hops: list, tree: set[tuple[str, str]], keep: int) -> list:
    """Every relation and every link that reaches a concept, and the ``keep`` other co-mentions with most papers."""
    others = [
        hop for hop in hops if hop.predicate == "mentions" and tuple(sorted((hop.source, hop.target))) not in tree
    ]
    dropped = {id(hop) for hop in sorted(others, key=lambda hop: (-hop.support, hop.source, hop.target))[keep:]}
    return [hop for hop in hops if id(hop) not in dropped]


def _paper_titles(graph: Projection, papers: set[str]) -> dict[str, str]:
    if not papers:
        return {}
    return {iri: title for iri, title in zip(graph.papers, graph.paper_labels) if iri in papers}
