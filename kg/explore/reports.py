"""The answers of the exploration commands as plain data (dicts, lists, strings, numbers).

Each function resolves the concepts named by the user (label, alias or IRI, with "did
you mean"), runs an algorithm over the projection, and returns what ``--format json``
prints; :mod:`kg.explore.text` renders the same data as text. The shapes::

    path        {"source", "target", "paths": [{"length", "hops": [{"from", "predicate", "to",
                                                                    "support", "evidence", "paper"}]}]}
    neighbors   {"center", "type", "counts": [per ring], "neighbors": [{"label", "type", "hops",
                                                                       "predicate", "support", "via"}]}
    related     {"related": [{"label", "type", "score", "reason"}]}
    central     {"by", "central": [{"label", "type", "score", "papers"}]}
    communities {"communities": [{"name", "size", "top", "members"}]}

Concepts appear by label, papers by IRI. A predicate is a relation's local name, the same
with ``^`` when the hop runs against the relation's direction, or ``mentions`` for two
concepts that a paper mentions both.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:clip", "CLIP", "Method"), ("e:zsc", "zero-shot classification", "Task")],
...     relations=[("e:clip", "usedFor", "e:zsc", ["p:1"], "CLIP is used for zero-shot classification.", 0.9)])
>>> report = path_report(graph, None, "clip", "Zero-shot classification")
>>> report["paths"][0]["hops"][0]
{'from': 'CLIP', 'predicate': 'usedFor', 'to': 'zero-shot classification', 'support': 1, 'evidence': 'CLIP is used for zero-shot classification.', 'paper': 'p:1'}
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.explore.links import LINKS, Hop, allowed_links
from kg.namespace import ENTITY_RELATIONS
from kg.explore.projection import CO_MENTION, Projection

if TYPE_CHECKING:
    from kg.store import Store

SCORE_DIGITS = 4


def link_kinds(via: Iterable[str] | None = None, through_papers: bool | None = None) -> list[str]:
    """The kinds of link to follow, from ``--via`` and ``--papers/--no-papers``.

    Without ``via`` every relation is followed; with it, only those named. Paths pass
    through papers (co-mentions) when ``through_papers`` says so; when it is None, they do
    unless ``via`` is given without ``mentions``.

    Examples
    --------
    >>> link_kinds() == list(LINKS)
    True
    >>> link_kinds(["usedFor"]), link_kinds(["usedFor"], True), link_kinds(None, False) == list(ENTITY_RELATIONS)
    (['usedFor'], ['usedFor', 'mentions'], True)
    """
    chosen = allowed_links(via) if via else frozenset(LINKS)
    if through_papers is None:
        through_papers = not via or CO_MENTION in chosen
    kinds = [name for name in ENTITY_RELATIONS if name in chosen]
    return kinds + [CO_MENTION] if through_papers else kinds


def path_report(graph: Projection, store: Store | None, source: str, target: str, *, max_hops: int = 4,
                limit: int = 3, via: Iterable[str] | None = None, through_papers: bool | None = None) -> dict:
    """The shortest paths between two named concepts, each hop with its evidence.

    ``store`` is read for the abstracts that give co-mentions their evidence sentence
    (None: co-mentions get no sentence).
    """
    from kg.explore.paths import shortest_paths

    start, goal = graph.resolve(source), graph.resolve(target)
    paths = shortest_paths(graph, start, goal, max_hops=max_hops, limit=limit,
                           predicates=link_kinds(via, through_papers))
    hops = _with_evidence(graph, store, [hop for path in paths for hop in path])
    out, at = [], 0
    for path in paths:
        out.append({"length": len(path), "hops": [_hop_data(graph, hop) for hop in hops[at:at + len(path)]]})
        at += len(path)
    return {"source": graph.label(start), "target": graph.label(goal), "paths": out}


def neighbors_report(graph: Projection, name: str, *, hops: int = 1, limit: int | None = 20,
                     via: Iterable[str] | None = None, through_papers: bool | None = None) -> dict:
    """The concepts within ``hops`` links of a named concept, ring by ring, best first."""
    from kg.explore.paths import neighborhood

    center = graph.resolve(name)
    near, sizes = neighborhood(graph, center, hops=hops, limit=limit, predicates=link_kinds(via, through_papers))
    return {
        "center": graph.label(center),
        "type": graph.types[graph.entity_id(center)],
        "counts": sizes,
        "neighbors": [{"label": graph.label(n.node), "type": _type(graph, n.node), "hops": n.hops,
                       "predicate": n.link.predicate, "support": n.link.support, "via": graph.label(n.via)}
                      for n in near],
    }


def related_report(graph: Projection, name: str, *, measure: str = "jaccard", types: Sequence[str] | None = None,
                   limit: int = 10, predictions: int = 5) -> dict:
    """Concepts associated with a named one (co-occurrence), then likely links not made yet (Adamic-Adar)."""
    from kg.explore.related import associated_concepts, predicted_links

    center = graph.resolve(name)
    label = graph.label(center)
    related = []
    for found in associated_concepts(graph, center, measure=measure, types=types, limit=limit):
        related.append({"label": graph.label(found.node), "type": _type(graph, found.node),
                        "score": round(found.score, SCORE_DIGITS),
                        "reason": _association_reason(label, found.shared, found.papers, found.relations, measure)})
    if predictions:
        for guess in predicted_links(graph, center, types=types, limit=predictions):
            shown = ", ".join(graph.label(n) for n in guess.common[:3])
            more = f" and {len(guess.common) - 3} more" if len(guess.common) > 3 else ""
            related.append({"label": graph.label(guess.node), "type": _type(graph, guess.node),
                            "score": round(guess.score, SCORE_DIGITS),
                            "reason": f"not linked to {label} yet; both linked to {shown}{more} (Adamic-Adar)"})
    return {"related": related}


def central_report(graph: Projection, store: Store | None, *, by: str = "degree",
                   types: Sequence[str] | None = None, limit: int = 10) -> dict:
    """The most central concepts of each type; scores are cached beside the store."""
    from kg.store.cache import cached
    from kg.explore.centrality import centrality, top_per_type

    if store is None:
        scores = centrality(graph, by=by)
    else:
        scores = cached(store, f"centrality-{by}", lambda: centrality(graph, by=by))
    ranked = top_per_type(graph, scores, types=types, limit=limit)
    rows = []
    for kind, entries in ranked.items():
        for iri, score in entries:
            papers = graph.paper_count(iri)
            rows.append({"label": graph.label(iri), "type": kind,
                         "score": int(score) if by == "degree" else round(score, 6), "papers": papers})
    return {"by": by, "central": rows}


def communities_report(graph: Projection, store: Store | None, *, resolution: float = 1.0, min_size: int = 3,
                       limit: int | None = 10, top: int = 5, seed: int = 0) -> dict:
    """Louvain communities of concepts, largest first, named by their best-connected members (cached)."""
    from kg.store.cache import cached
    from kg.explore.communities import concept_communities

    if not isinstance(min_size, int) or min_size < 1:
        raise UsageError(f"min_size must be a whole number of at least 1, not {min_size!r}")

    def compute() -> list:
        return [[list(c.members), c.internal_weight]
                for c in concept_communities(graph, resolution=resolution, min_size=1, seed=seed)]

    if store is None:
        found = compute()
    else:
        found = cached(store, f"communities-{resolution:g}-{seed}", compute)
    kept = [members for members, _ in found if len(members) >= min_size]
    out = []
    for members in kept[:limit] if limit else kept:
        labels = [graph.label(m) for m in members]
        out.append({"name": " / ".join(labels[:3]), "size": len(members), "top": labels[:top], "members": labels})
    return {"communities": out}


# ---------------------------------------------------------------------- helpers


def _with_evidence(graph: Projection, store: Store | None, hops: list[Hop]) -> list[Hop]:
    if store is None:
        return hops
    from kg.explore.evidence import with_evidence

    return with_evidence(graph, store, hops)


def _hop_data(graph: Projection, hop: Hop) -> dict:
    paper = hop.evidence_paper or (hop.papers[0] if hop.papers else None)
    return {"from": graph.label(hop.source), "predicate": hop.predicate, "to": graph.label(hop.target),
            "support": hop.support, "evidence": hop.evidence, "paper": paper}


def _type(graph: Projection, iri: str) -> str:
    return graph.types[graph.entity_id(iri)]


def _association_reason(center: str, shared: int, papers: int, relations: Sequence[tuple[str, int]],
                        measure: str) -> str:
    parts = []
    if shared:
        parts.append(f"mentioned with {center} in {shared} of its {papers} paper{'s' if papers != 1 else ''}")
    else:
        parts.append(f"not mentioned with {center} in any abstract")
    for predicate, support in relations:
        parts.append(f"{predicate} ({support} paper{'s' if support != 1 else ''})")
    return "; ".join(parts) + f" ({measure})"
