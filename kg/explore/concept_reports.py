"""The reports that rank or group concepts: related (and predicted links), central, communities.

See :mod:`kg.explore.reports` for the exploration service and the JSON shapes.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:a", "A", "Method"), ("e:b", "B", "Task")], mentions=[("p:1", "e:a"), ("p:1", "e:b")])
>>> [(c.label, c.score, c.reason) for c in related_report(graph, "A").related]
[('B', 1.0, 'mentioned with A in 1 of its 1 paper (jaccard)')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.explore.lookup import notes_of
from kg.explore.phrases import common_note, plural, relation_notes
from kg.explore.projection import Projection

if TYPE_CHECKING:
    from collections.abc import Sequence

    from kg.store import Store

SCORE_DIGITS = 4


@dataclass(frozen=True)
class RelatedConcept:
    """A concept associated with the centre, or (``predicted``) a link not made yet, and why (``reason``).

    ``score`` is the co-occurrence measure, or a prediction's Adamic-Adar index; ``shared``
    counts the papers mentioning both (0 for a prediction), ``papers`` those mentioning the
    concept; ``relations`` are the relations joining the two with their support
    (:func:`~kg.explore.phrases.relation_notes`); ``common`` are the labels of the concepts a prediction rests
    on, the most telling first (:func:`~kg.explore.phrases.common_note`).
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
    """The concepts associated with one, best first, then the predicted links; the associations are
    scored by ``measure`` (jaccard, pmi or npmi); ``notes`` say which entity an ambiguous name was taken
    for (not part of the JSON)."""

    related: tuple[RelatedConcept, ...]
    measure: str = "jaccard"
    notes: tuple[str, ...] = ()

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

    choice = graph.lookup(name)
    center = choice.iri
    label = graph.label(center)
    related = []
    for found in associated_concepts(graph, center, measure=measure, types=types, limit=limit):
        reason = _association_reason(label, found.shared, found.papers, found.relations, measure)
        related.append(
            RelatedConcept(
                found.node,
                graph.label(found.node),
                graph.entity_type(found.node),
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
                    graph.entity_type(guess.node),
                    round(guess.score, SCORE_DIGITS),
                    0,
                    graph.paper_count(guess.node),
                    (),
                    common=common,
                    predicted=True,
                    reason=f"not linked to {label} yet; {common_note(common)} (Adamic-Adar)",
                )
            )
    return RelatedReport(tuple(related), measure, notes_of(choice))


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


def _association_reason(
    center: str, shared: int, papers: int, relations: Sequence[tuple[str, int]], measure: str
) -> str:
    if shared:
        parts = [f"mentioned with {center} in {shared} of its {plural(papers, 'paper')}"]
    else:
        parts = [f"not mentioned with {center} in any abstract"]
    return "; ".join(parts + relation_notes(relations)) + f" ({measure})"
