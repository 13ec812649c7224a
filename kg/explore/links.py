"""What links two concepts: stored relations either way round, and papers that mention both.

:class:`LinkTable` answers, for one query, which concepts are linked to a concept and how
strongly (as the cost of a hop), which concepts a set of concepts reaches, and the best
link between two concepts as a :class:`Hop`. :mod:`kg.explore.paths` and :mod:`kg.explore.related` are
built on it.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:a", "A", "Method"), ("e:b", "B", "Task")],
...     mentions=[("p:1", "e:a"), ("p:1", "e:b"), ("p:2", "e:a")],
...     relations=[("e:b", "usedFor", "e:a", ["p:1"], "B is used for A.", 0.7)])
>>> table = LinkTable(graph, allowed_links(None))
>>> table.hop(0, 1).predicate, table.hop(1, 0).predicate
('^usedFor', 'usedFor')
>>> LinkTable(graph, allowed_links(["mentions"])).hop(0, 1).support
1
"""

from __future__ import annotations

import difflib
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from kg.errors import EntityNotFoundError, UnknownPredicateError
from kg.explore.projection import CO_MENTION, Projection, Relation, ochiai
from kg.namespace import ENTITY_RELATIONS

LINKS = (*ENTITY_RELATIONS, CO_MENTION)
"""The names of every kind of link: the relations, and ``mentions`` (a paper mentions both)."""

INVERSE = "^"
"""Marks a relation followed against its direction, as in SPARQL property paths."""

RELATION_DISCOUNT = 0.5
"""A hop over a stored relation costs this fraction of a co-mention hop of the same strength."""


@dataclass(frozen=True)
class Hop:
    """One link of a path, from ``source`` to ``target`` (entity IRIs).

    Attributes
    ----------
    predicate : str
        A relation (``"usedFor"``), the same followed backwards (``"^usedFor"``: the
        target is used for the source), or ``"mentions"``: some paper mentions both.
    support : int
        The number of distinct papers behind the link.
    papers : tuple of str
        Their IRIs: the papers that mention both, or that the relation was read from.
    evidence : str or None
        The sentence stating the link, where known.
    evidence_paper : str or None
        The IRI of the paper ``evidence`` comes from.
    """

    source: str
    target: str
    predicate: str
    support: int
    papers: tuple[str, ...] = ()
    evidence: str | None = None
    evidence_paper: str | None = None


def entity_number(graph: Projection, iri: str) -> int:
    """The number of the entity ``iri`` in ``graph``; :class:`EntityNotFoundError` if it has none."""
    try:
        return graph.entity_id(iri)
    except EntityNotFoundError:
        raise EntityNotFoundError(iri) from None


def allowed_links(predicates: Iterable[str] | None) -> frozenset[str]:
    """Validate link names (case-insensitively) and return them as a set; ``None`` means all.

    Examples
    --------
    >>> sorted(allowed_links(["UsedFor", "mentions"]))
    ['mentions', 'usedFor']
    >>> allowed_links(["usedfr"])
    Traceback (most recent call last):
    ...
    kg.errors.UnknownPredicateError: unknown link 'usedfr'; did you mean: usedFor?
    """
    if predicates is None:
        return frozenset(LINKS)
    by_folded = {name.lower(): name for name in LINKS}
    chosen = set()
    for name in predicates:
        canonical = by_folded.get(name.strip().lower())
        if canonical is None:
            close = difflib.get_close_matches(name.strip().lower(), list(by_folded), n=3, cutoff=0.6)
            raise UnknownPredicateError(name, suggestions=[by_folded[c] for c in close], known=LINKS)
        chosen.add(canonical)
    return frozenset(chosen)


class LinkTable:
    """The links of a projection restricted to some kinds, with hop costs, computed on demand.

    The cost of a hop is ``1 - ochiai(shared papers, papers of one, papers of the other)``
    for a co-mention, and :data:`RELATION_DISCOUNT` times ``1 - ochiai(relation support, ...)``
    for a relation: between 0 and 1, symmetric, lower for better-attested links. One table
    serves one query and remembers what it computed.

    Parameters
    ----------
    graph : Projection
    allowed : frozenset of str
        Kinds of link to follow (see :func:`allowed_links`).
    """

    def __init__(self, graph: Projection, allowed: frozenset[str]) -> None:
        self.graph = graph
        self.co_mentions = CO_MENTION in allowed
        self.relations = allowed - {CO_MENTION}
        self._around: dict[int, dict[int, float]] = {}

    def around(self, node: int) -> dict[int, float]:
        """Each concept linked to ``node`` (by number), with the cost of the hop to it."""
        known = self._around.get(node)
        if known is not None:
            return known
        graph = self.graph
        size = len(graph.papers_of[node])
        costs: dict[int, float] = {}
        if self.co_mentions:
            # 1 - ochiai(shared, size, papers of other), inlined: this loop runs over every neighbor.
            papers_of, root, sqrt = graph.papers_of, math.sqrt(max(size, 1)), math.sqrt
            for other, shared in graph.co_mentions(node).items():
                strength = shared / (root * sqrt(len(papers_of[other]) or 1))
                costs[other] = 1.0 - strength if strength < 1.0 else 0.0
        for other, support in self._related(node):
            if other == node:
                continue
            cost = RELATION_DISCOUNT * (1.0 - ochiai(support, size, len(graph.papers_of[other])))
            if cost < costs.get(other, 2.0):
                costs[other] = cost
        self._around[node] = costs
        return costs

    def linked(self, node: int) -> set[int]:
        """The concepts linked to ``node``: the keys of :meth:`around`, without working out the costs."""
        graph = self.graph
        found: set[int] = set()
        if self.co_mentions:
            found.update(chain.from_iterable(map(graph.entities_of.__getitem__, graph.papers_of[node])))
        found.update(other for other, _ in self._related(node))
        found.discard(node)
        return found

    def ring(self, frontier: set[int]) -> set[int]:
        """Every concept linked to some concept of ``frontier``."""
        return set(self.weights(frontier))

    def weights(self, frontier: set[int]) -> Counter[int]:
        """For each concept, the number of links from ``frontier``: papers that mention it with a
        concept of ``frontier``, plus the support of relations joining it to one."""
        graph = self.graph
        counts: Counter[int] = Counter()
        if self.co_mentions:
            papers = set(chain.from_iterable(graph.papers_of[node] for node in frontier))
            counts.update(chain.from_iterable(graph.entities_of[paper] for paper in papers))
        for node in frontier:
            for other, support in self._related(node):
                counts[other] += max(1, support)
        return counts

    def cost(self, first: int, second: int) -> float | None:
        """The cost of the hop between two concepts (None if they are not linked), without
        expanding either: cheaper than :meth:`around` when only a few pairs are wanted."""
        graph = self.graph
        size, other = len(graph.papers_of[first]), len(graph.papers_of[second])
        best = None
        if self.co_mentions:
            shared = len(graph.shared_papers(first, second))
            if shared:
                best = 1.0 - ochiai(shared, size, other)
        for relation in graph.relations_between(first, second):
            if relation.predicate in self.relations:
                cost = RELATION_DISCOUNT * (1.0 - ochiai(relation.support, size, other))
                best = cost if best is None else min(best, cost)
        return best

    def has_relation(self, first: int, second: int) -> bool:
        """Whether a relation of an allowed kind joins the two concepts, either way round."""
        return any(r.predicate in self.relations for r in self.graph.relations_between(first, second))

    def same_abstract(self, first: int, second: int) -> set[int]:
        """The concepts mentioned by some paper that mentions both ``first`` and ``second``."""
        graph = self.graph
        return set(chain.from_iterable(graph.entities_of[p] for p in graph.shared_papers(first, second)))

    def hop(self, source: int, target: int) -> Hop:
        """The best link from ``source`` to ``target``: the best-supported relation, else the shared papers."""
        graph = self.graph
        best: tuple | None = None
        for relation in graph.relations_between(source, target):
            if relation.predicate not in self.relations:
                continue
            forward = relation.subject == source
            rank = (-relation.support, not forward, relation.predicate)
            if best is None or rank < best[0]:
                best = (rank, relation, forward)
        if best is not None:
            _, relation, forward = best
            return relation_hop(graph, relation, source, target, forward)
        shared = graph.shared_papers(source, target) if self.co_mentions else []
        return Hop(
            graph.entities[source],
            graph.entities[target],
            CO_MENTION,
            len(shared),
            tuple(graph.papers[p] for p in shared),
        )

    def _related(self, node: int) -> Iterable[tuple[int, int]]:
        """``(other end, support)`` of the allowed relations of ``node``."""
        if not self.relations:
            return ()
        rows, allowed = self.graph.relation_rows, self.relations
        return (
            (row[2] if row[0] == node else row[0], len(row[3]))
            for row in (rows[i] for i in self.graph.relations_of.get(node, ()))
            if row[1] in allowed
        )


def relation_hop(graph: Projection, relation: Relation, source: int, target: int, forward: bool) -> Hop:
    """The hop over ``relation`` from ``source`` to ``target``; ``forward`` when that is its direction."""
    evidence_paper = None if relation.evidence_paper is None else graph.papers[relation.evidence_paper]
    return Hop(
        graph.entities[source],
        graph.entities[target],
        relation.predicate if forward else INVERSE + relation.predicate,
        relation.support,
        tuple(graph.papers[p] for p in relation.papers),
        relation.evidence,
        evidence_paper,
    )
