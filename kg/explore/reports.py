"""The exploration service: one function per question, each returning a typed report.

Each ``*_report`` function resolves the concepts named by the user (label, alias or IRI,
with "did you mean"), runs an algorithm over the projection, and returns a frozen
dataclass. The front ends only render it: ``kg ... --format json`` prints ``to_json()``,
:mod:`kg.explore.text` writes it as text, :mod:`kg.api` returns ``to_json()``, and the
shell turns it into a :class:`kg.query.result.Result`. The JSON shapes::

    path        {"source", "target", "paths": [{"length", "hops": [{"from", "predicate", "to",
                                                                    "support", "evidence", "paper"}]}]}
    neighbors   {"center", "type", "counts": [per ring], "neighbors": [{"label", "type", "hops",
                                                                       "predicate", "support", "via"}]}
    related     {"related": [{"label", "type", "score", "reason"}]}
    central     {"by", "central": [{"label", "type", "score", "papers"}]}
    communities {"communities": [{"name", "size", "top", "members"}]}
    describe    see :meth:`kg.explore.describe.Description.to_json`

Concepts appear by label, papers by IRI; a report's entries also carry the concept's IRI
(``iri``), which the JSON leaves out. A predicate is a relation's local name, the same
with ``^`` when the hop runs against the relation's direction, or ``mentions`` for two
concepts that a paper mentions both.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:clip", "CLIP", "Method"), ("e:zsc", "zero-shot classification", "Task")],
...     relations=[("e:clip", "usedFor", "e:zsc", ["p:1"], "CLIP is used for zero-shot classification.", 0.9)])
>>> report = path_report(graph, None, "clip", "Zero-shot classification")
>>> hop = report.paths[0].hops[0]
>>> hop.source, hop.predicate, hop.target, hop.support, hop.paper
('CLIP', 'usedFor', 'zero-shot classification', 1, 'p:1')
>>> report.to_json()["paths"][0]["hops"][0] == {"from": "CLIP", "predicate": "usedFor", "to": hop.target,
...                                             "support": 1, "evidence": hop.evidence, "paper": "p:1"}
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.explore.links import LINKS, Hop, allowed_links
from kg.explore.projection import CO_MENTION, Projection
from kg.namespace import ENTITY_RELATIONS

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from kg.explore.describe import Description
    from kg.explore.lookup import LabelIndex
    from kg.store import Store

SCORE_DIGITS = 4
COMMON_SHOWN = 3
"""The concepts a predicted link rests on that its reason names; the rest are counted."""


# ---------------------------------------------------------------------- the reports


@dataclass(frozen=True)
class LabelledHop:
    """One hop of a path: the labels of the concepts it joins, the link (``usedFor``, ``^usedFor``
    or ``mentions``), its support (distinct papers), a sentence stating it (``evidence``) and the IRI
    of the ``paper`` that sentence comes from (else of one paper behind the link)."""

    source: str
    predicate: str
    target: str
    support: int
    evidence: str | None
    paper: str | None

    def to_json(self) -> dict:
        return {
            "from": self.source,
            "predicate": self.predicate,
            "to": self.target,
            "support": self.support,
            "evidence": self.evidence,
            "paper": self.paper,
        }


@dataclass(frozen=True)
class LabelledPath:
    """A chain of hops from one concept to another."""

    hops: tuple[LabelledHop, ...]

    @property
    def length(self) -> int:
        return len(self.hops)

    def to_json(self) -> dict:
        return {"length": self.length, "hops": [hop.to_json() for hop in self.hops]}


@dataclass(frozen=True)
class PathReport:
    """The shortest paths between two concepts (``source``, ``target``: their labels), shortest first."""

    source: str
    target: str
    paths: tuple[LabelledPath, ...]

    def to_json(self) -> dict:
        return {"source": self.source, "target": self.target, "paths": [path.to_json() for path in self.paths]}


@dataclass(frozen=True)
class NearConcept:
    """A concept near the centre: ``hops`` away, reached from the concept ``via`` (a label) by ``predicate``."""

    iri: str
    label: str
    type: str
    hops: int
    predicate: str
    support: int
    via: str

    def to_json(self) -> dict:
        return {
            "label": self.label,
            "type": self.type,
            "hops": self.hops,
            "predicate": self.predicate,
            "support": self.support,
            "via": self.via,
        }


@dataclass(frozen=True)
class NeighborsReport:
    """The concepts near ``center``, ring by ring; ``counts`` holds each ring's size before the limit."""

    center: str
    type: str
    counts: tuple[int, ...]
    neighbors: tuple[NearConcept, ...]

    @property
    def truncated(self) -> bool:
        """Whether the limit left some concepts out."""
        return len(self.neighbors) < sum(self.counts)

    def to_json(self) -> dict:
        return {
            "center": self.center,
            "type": self.type,
            "counts": list(self.counts),
            "neighbors": [near.to_json() for near in self.neighbors],
        }


@dataclass(frozen=True)
class RelatedConcept:
    """A concept associated with the centre, or (``predicted``) a link not made yet, and why (``reason``).

    ``score`` is the co-occurrence measure, or a prediction's Adamic-Adar index; ``shared``
    counts the papers mentioning both (0 for a prediction), ``papers`` those mentioning the
    concept; ``relations`` are the relations joining the two with their support
    (:func:`relation_notes`); ``common`` are the labels of the concepts a prediction rests
    on, the most telling first (:func:`common_note`).
    """

    iri: str
    label: str
    type: str
    score: float
    shared: int
    papers: int
    relations: tuple[tuple[str, int], ...]
    common: tuple[str, ...]
    predicted: bool
    reason: str

    def to_json(self) -> dict:
        return {"label": self.label, "type": self.type, "score": self.score, "reason": self.reason}


@dataclass(frozen=True)
class RelatedReport:
    """The concepts associated with one, best first, then the predicted links."""

    related: tuple[RelatedConcept, ...]

    def to_json(self) -> dict:
        return {"related": [concept.to_json() for concept in self.related]}


@dataclass(frozen=True)
class CentralConcept:
    """A concept with its centrality ``score`` (an int for degree) and number of papers."""

    iri: str
    label: str
    type: str
    score: int | float
    papers: int

    def to_json(self) -> dict:
        return {"label": self.label, "type": self.type, "score": self.score, "papers": self.papers}


@dataclass(frozen=True)
class CentralReport:
    """The most central concepts of each type, ranked within the type, ``by`` degree or PageRank."""

    by: str
    central: tuple[CentralConcept, ...]

    def to_json(self) -> dict:
        return {"by": self.by, "central": [concept.to_json() for concept in self.central]}


@dataclass(frozen=True)
class NamedCommunity:
    """A community: named by its first three ``members`` (labels, best connected first), ``top`` shown."""

    name: str
    size: int
    top: tuple[str, ...]
    members: tuple[str, ...]

    def to_json(self) -> dict:
        return {"name": self.name, "size": self.size, "top": list(self.top), "members": list(self.members)}


@dataclass(frozen=True)
class CommunitiesReport:
    """Communities of concepts, largest first."""

    communities: tuple[NamedCommunity, ...]

    def to_json(self) -> dict:
        return {"communities": [community.to_json() for community in self.communities]}


# ---------------------------------------------------------------------- the questions


def link_kinds(via: Iterable[str] | None = None, through_papers: bool | None = None) -> list[str]:
    """The kinds of link to follow, from ``--via`` and ``--papers/--no-papers``.

    Without ``via`` every relation is followed; with it, only those named (each item may
    be a comma-separated list, as ``--via`` takes them). Paths pass through papers
    (co-mentions) when ``through_papers`` says so; when it is None, they do unless ``via``
    is given without ``mentions``.

    Examples
    --------
    >>> link_kinds() == list(LINKS)
    True
    >>> link_kinds(["usedFor"]), link_kinds(["usedFor"], True), link_kinds(None, False) == list(ENTITY_RELATIONS)
    (['usedFor'], ['usedFor', 'mentions'], True)
    >>> link_kinds(["usedFor, evaluatedOn", "mentions"])
    ['usedFor', 'evaluatedOn', 'mentions']
    """
    names = [name.strip() for value in via or () for name in value.split(",") if name.strip()]
    chosen = allowed_links(names) if names else frozenset(LINKS)
    if through_papers is None:
        through_papers = not names or CO_MENTION in chosen
    kinds = [name for name in ENTITY_RELATIONS if name in chosen]
    return kinds + [CO_MENTION] if through_papers else kinds


def path_report(
    graph: Projection,
    store: Store | None,
    source: str,
    target: str,
    *,
    max_hops: int = 4,
    limit: int = 3,
    via: Iterable[str] | None = None,
    through_papers: bool | None = None,
) -> PathReport:
    """The shortest paths between two named concepts, each hop with its evidence.

    ``store`` is read for the abstracts that give co-mentions their evidence sentence
    (None: co-mentions get no sentence).
    """
    from kg.explore.paths import shortest_paths

    start, goal = graph.resolve(source), graph.resolve(target)
    paths = shortest_paths(
        graph, start, goal, max_hops=max_hops, limit=limit, predicates=link_kinds(via, through_papers)
    )
    hops = _with_evidence(graph, store, [hop for path in paths for hop in path])
    labelled, at = [], 0
    for path in paths:
        labelled.append(LabelledPath(tuple(_labelled(graph, hop) for hop in hops[at : at + len(path)])))
        at += len(path)
    return PathReport(graph.label(start), graph.label(goal), tuple(labelled))


def neighbors_report(
    graph: Projection,
    name: str,
    *,
    hops: int = 1,
    limit: int | None = 20,
    via: Iterable[str] | None = None,
    through_papers: bool | None = None,
) -> NeighborsReport:
    """The concepts within ``hops`` links of a named concept, ring by ring, best first."""
    from kg.explore.paths import neighbors

    center = graph.resolve(name)
    near, sizes = neighbors(graph, center, hops=hops, limit=limit, predicates=link_kinds(via, through_papers))
    return NeighborsReport(
        center=graph.label(center),
        type=_type(graph, center),
        counts=tuple(sizes),
        neighbors=tuple(
            NearConcept(
                n.node,
                graph.label(n.node),
                _type(graph, n.node),
                n.hops,
                n.link.predicate,
                n.link.support,
                graph.label(n.via),
            )
            for n in near
        ),
    )


def related_report(
    graph: Projection,
    name: str,
    *,
    measure: str = "jaccard",
    types: Sequence[str] | None = None,
    limit: int | None = 10,
    predictions: int = 5,
) -> RelatedReport:
    """Concepts associated with a named one (co-occurrence), then likely links not made yet (Adamic-Adar).

    ``limit`` bounds the associated concepts (None: all), ``predictions`` the predicted links (0: none).
    """
    from kg.explore.related import associated_concepts, predicted_links

    center = graph.resolve(name)
    label = graph.label(center)
    related = []
    for found in associated_concepts(graph, center, measure=measure, types=types, limit=limit):
        reason = _association_reason(label, found.shared, found.papers, found.relations, measure)
        related.append(
            RelatedConcept(
                found.node,
                graph.label(found.node),
                _type(graph, found.node),
                round(found.score, SCORE_DIGITS),
                found.shared,
                found.papers,
                found.relations,
                common=(),
                predicted=False,
                reason=reason,
            )
        )
    if predictions:
        for guess in predicted_links(graph, center, types=types, limit=predictions):
            common = tuple(graph.label(n) for n in guess.common)
            related.append(
                RelatedConcept(
                    guess.node,
                    graph.label(guess.node),
                    _type(graph, guess.node),
                    round(guess.score, SCORE_DIGITS),
                    0,
                    graph.paper_count(guess.node),
                    (),
                    common=common,
                    predicted=True,
                    reason=f"not linked to {label} yet; {common_note(common)} (Adamic-Adar)",
                )
            )
    return RelatedReport(tuple(related))


def central_report(
    graph: Projection, store: Store | None, *, by: str = "degree", types: Sequence[str] | None = None, limit: int = 10
) -> CentralReport:
    """The most central concepts of each type; scores are cached beside the store."""
    from kg.explore.centrality import centrality, top_per_type
    from kg.store.cache import cached

    if store is None:
        scores = centrality(graph, by=by)
    else:
        scores = cached(store, f"centrality-{by}", lambda: centrality(graph, by=by))
    ranked = top_per_type(graph, scores, types=types, limit=limit)
    return CentralReport(
        by,
        tuple(
            CentralConcept(
                iri, graph.label(iri), kind, int(score) if by == "degree" else round(score, 6), graph.paper_count(iri)
            )
            for kind, entries in ranked.items()
            for iri, score in entries
        ),
    )


def communities_report(
    graph: Projection,
    store: Store | None,
    *,
    resolution: float = 1.0,
    min_size: int = 3,
    limit: int | None = 10,
    top: int = 5,
    seed: int = 0,
) -> CommunitiesReport:
    """Louvain communities of concepts, largest first, named by their best-connected members (cached)."""
    from kg.explore.communities import concept_communities
    from kg.store.cache import cached

    if not isinstance(min_size, int) or min_size < 1:
        raise UsageError(f"min_size must be a whole number of at least 1, not {min_size!r}")

    def compute() -> list:
        return [
            [list(c.members), c.internal_weight]
            for c in concept_communities(graph, resolution=resolution, min_size=1, seed=seed)
        ]

    if store is None:
        found = compute()
    else:
        found = cached(store, f"communities-{resolution:g}-{seed}", compute)
    kept = [members for members, _ in found if len(members) >= min_size]
    named = []
    for members in kept[:limit] if limit else kept:
        labels = tuple(graph.label(m) for m in members)
        named.append(NamedCommunity(" / ".join(labels[:3]), len(members), labels[:top], labels))
    return CommunitiesReport(tuple(named))


def describe_report(store: Store, name: str, *, index: LabelIndex | None = None) -> Description:
    """One named entity: type, label, aliases, papers, proposers, and its relations with evidence.

    ``index`` names the entities (default: read from ``store``); see :func:`kg.explore.describe.describe`.
    """
    from kg.explore.describe import describe

    return describe(store, name, index=index)


# ---------------------------------------------------------------------- helpers


def plural(number: int, noun: str) -> str:
    """``1 paper``, ``2 papers``.

    Examples
    --------
    >>> plural(1, "hop"), plural(0, "path")
    ('1 hop', '0 paths')
    """
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def relation_notes(relations: Iterable[tuple[str, int]]) -> list[str]:
    """Each relation with its support.

    Examples
    --------
    >>> relation_notes([("usedFor", 2), ("^partOf", 1)])
    ['usedFor (2 papers)', '^partOf (1 paper)']
    """
    return [f"{predicate} ({plural(support, 'paper')})" for predicate, support in relations]


def common_note(common: Sequence[str]) -> str:
    """The concepts a predicted link rests on, the first few by name.

    Examples
    --------
    >>> common_note(["A", "B", "C", "D", "E"])
    'both linked to A, B, C and 2 more'
    """
    shown = ", ".join(common[:COMMON_SHOWN])
    more = f" and {len(common) - COMMON_SHOWN} more" if len(common) > COMMON_SHOWN else ""
    return f"both linked to {shown}{more}"


def _with_evidence(graph: Projection, store: Store | None, hops: list[Hop]) -> list[Hop]:
    if store is None:
        return hops
    from kg.explore.evidence import with_evidence

    return with_evidence(graph, store, hops)


def _labelled(graph: Projection, hop: Hop) -> LabelledHop:
    paper = hop.evidence_paper or (hop.papers[0] if hop.papers else None)
    return LabelledHop(
        graph.label(hop.source), hop.predicate, graph.label(hop.target), hop.support, hop.evidence, paper
    )


def _type(graph: Projection, iri: str) -> str:
    return graph.types[graph.entity_id(iri)]


def _association_reason(
    center: str, shared: int, papers: int, relations: Sequence[tuple[str, int]], measure: str
) -> str:
    if shared:
        parts = [f"mentioned with {center} in {shared} of its {plural(papers, 'paper')}"]
    else:
        parts = [f"not mentioned with {center} in any abstract"]
    return "; ".join(parts + relation_notes(relations)) + f" ({measure})"
