"""The reports that follow links from concept to concept: paths between two, the neighbours of one.

See :mod:`kg.explore.reports` for the exploration service and the JSON shapes.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:a", "A", "Method"), ("e:b", "B", "Task")], mentions=[("p:1", "e:a"), ("p:1", "e:b")])
>>> report = neighbors_report(graph, "A")
>>> report.center, [(near.label, near.predicate, near.via) for near in report.neighbors]
('A', [('B', 'mentions', 'A')])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.explore.links import LINKS, Hop, allowed_links
from kg.explore.lookup import notes_of
from kg.explore.projection import CO_MENTION, Projection
from kg.namespace import ENTITY_RELATIONS

if TYPE_CHECKING:
    from collections.abc import Iterable

    from kg.store import Store


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
    """The shortest paths between two concepts (``source``, ``target``: their labels), shortest first;
    ``notes`` say which entity an ambiguous name was taken for (not part of the JSON)."""

    source: str
    target: str
    paths: tuple[LabelledPath, ...]
    notes: tuple[str, ...] = ()

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
    """The concepts near ``center``, ring by ring; ``counts`` holds each ring's size before the limit;
    ``notes`` as in :class:`PathReport`."""

    center: str
    type: str
    counts: tuple[int, ...]
    neighbors: tuple[NearConcept, ...]
    notes: tuple[str, ...] = ()

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

    first, second = graph.lookup(source), graph.lookup(target)
    start, goal = first.iri, second.iri
    paths = shortest_paths(
        graph, start, goal, max_hops=max_hops, limit=limit, predicates=link_kinds(via, through_papers)
    )
    hops = _with_evidence(graph, store, [hop for path in paths for hop in path])
    labelled, at = [], 0
    for path in paths:
        labelled.append(LabelledPath(tuple(_labelled(graph, hop) for hop in hops[at : at + len(path)])))
        at += len(path)
    return PathReport(graph.label(start), graph.label(goal), tuple(labelled), notes_of(first, second))


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

    choice = graph.lookup(name)
    center = choice.iri
    near, sizes = neighbors(graph, center, hops=hops, limit=limit, predicates=link_kinds(via, through_papers))
    return NeighborsReport(
        center=graph.label(center),
        type=graph.entity_type(center),
        counts=tuple(sizes),
        neighbors=tuple(
            NearConcept(
                n.node,
                graph.label(n.node),
                graph.entity_type(n.node),
                n.hops,
                n.link.predicate,
                n.link.support,
                graph.label(n.via),
            )
            for n in near
        ),
        notes=notes_of(choice),
    )


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
