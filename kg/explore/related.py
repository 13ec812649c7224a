"""Concepts related to a concept: co-occurrence scores, and link prediction for the unlinked.

:func:`associated_concepts` scores the concepts already linked to X (mentioned in the same
papers, or joined by a relation) by Jaccard, PMI or normalised PMI over papers.
:func:`predicted_links` scores the concepts two links away, not linked to X yet, by the
Adamic-Adar index over their shared neighbors: a shared neighbor counts for more the
fewer links it has itself.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:x", "X", "Method"), ("e:y", "Y", "Task"), ("e:z", "Z", "Task"), ("e:w", "W", "Dataset")],
...     mentions=[("p:1", "e:x"), ("p:1", "e:y"), ("p:2", "e:x"), ("p:2", "e:y"),
...               ("p:3", "e:x"), ("p:3", "e:z"), ("p:4", "e:y"), ("p:4", "e:w")])
>>> [(a.node, round(a.score, 3)) for a in associated_concepts(graph, "e:x")]
[('e:y', 0.5), ('e:z', 0.333)]
>>> [(p.node, p.common) for p in predicted_links(graph, "e:x")]
[('e:w', ('e:y',))]
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from kg.errors import UsageError, check_whole_number
from kg.explore.links import LINKS, LinkTable, entity_number
from kg.explore.projection import Projection
from kg.namespace import ENTITY_TYPES

MEASURES = ("jaccard", "pmi", "npmi")
"""Co-occurrence measures of :func:`associated_concepts`."""


@dataclass(frozen=True)
class Association:
    """A concept linked to the query concept, with its co-occurrence score.

    Attributes
    ----------
    node : str
        The concept's IRI.
    score : float
        The co-occurrence measure.
    shared : int
        Papers mentioning both.
    papers : int
        Papers mentioning this concept.
    relations : tuple of tuple
        ``(predicate, support)`` of the relations joining the two, predicates written as
        in :class:`kg.explore.paths.Hop` (``^`` when the relation points at the query concept).
    """

    node: str
    score: float
    shared: int
    papers: int
    relations: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Prediction:
    """A concept two links away, not linked yet, scored by Adamic-Adar.

    Attributes
    ----------
    node : str
    score : float
    common : tuple of str
        The shared neighbors, the most telling first.
    """

    node: str
    score: float
    common: tuple[str, ...]


def associated_concepts(
    graph: Projection,
    node: str,
    *,
    measure: str = "jaccard",
    types: Iterable[str] | None = None,
    limit: int | None = 10,
) -> list[Association]:
    """The concepts linked to ``node``, best first by a co-occurrence measure over papers.

    With ``a`` papers mentioning ``node``, ``b`` mentioning the other concept, ``c`` both
    and ``n`` in all: Jaccard ``c / (a + b - c)``; PMI ``log2(c n / (a b))``; normalised
    PMI ``PMI / -log2(c / n)`` (1 when the two always occur together). A concept joined
    only by a relation counts the relation's papers as ``c``.

    Parameters
    ----------
    graph : Projection
    node : str
        An entity IRI.
    measure : {"jaccard", "pmi", "npmi"}
    types : iterable of str, optional
        Keep concepts of these types only (``"Method"``, ...).
    limit : int, optional
        Keep the best ``limit`` (None: all).

    Raises
    ------
    EntityNotFoundError
        If ``node`` is not an entity of ``graph``.
    UsageError
        For an unknown measure or type, or a ``limit`` below 1.

    Examples
    --------
    >>> graph = Projection.from_records(
    ...     entities=[("e:x", "X", "Method"), ("e:y", "Y", "Task"), ("e:z", "Z", "Task")],
    ...     mentions=[("p:1", "e:x"), ("p:1", "e:y"), ("p:2", "e:x"), ("p:3", "e:z")])
    >>> [(a.node, a.shared, a.papers, round(a.score, 3)) for a in associated_concepts(graph, "e:x", measure="pmi")]
    [('e:y', 1, 1, 0.585)]
    """
    center = entity_number(graph, node)
    if measure not in MEASURES:
        raise UsageError(f"unknown measure {measure!r}; choose one of: {', '.join(MEASURES)}")
    keep = _type_filter(types)
    if limit is not None:
        check_whole_number("limit", limit)
    return _associations(graph, center, measure, keep, limit)


def predicted_links(
    graph: Projection,
    node: str,
    *,
    types: Iterable[str] | None = None,
    limit: int | None = 10,
) -> list[Prediction]:
    """Concepts not linked to ``node`` yet, best first by the Adamic-Adar index.

    The score of ``y`` is the sum, over the concepts ``z`` linked to both ``node`` and
    ``y``, of ``1 / log(degree(z))`` (Adamic and Adar, 2003; Liben-Nowell and Kleinberg,
    2007), where the degree counts distinct linked concepts.

    Parameters
    ----------
    graph : Projection
    node : str
        An entity IRI.
    types : iterable of str, optional
        Keep concepts of these types only.
    limit : int, optional
        Keep the best ``limit`` (None: all).

    Raises
    ------
    EntityNotFoundError, UsageError
        As :func:`associated_concepts`.

    Examples
    --------
    >>> graph = Projection.from_records(
    ...     entities=[("e:x", "X", "Method"), ("e:y", "Y", "Task"), ("e:w", "W", "Dataset")],
    ...     mentions=[("p:1", "e:x"), ("p:1", "e:y"), ("p:2", "e:y"), ("p:2", "e:w")])
    >>> [(p.node, round(p.score, 3)) for p in predicted_links(graph, "e:x")]
    [('e:w', 1.443)]
    """
    center = entity_number(graph, node)
    keep = _type_filter(types)
    if limit is not None:
        check_whole_number("limit", limit)
    return _adamic_adar(graph, center, keep, limit)


# ---------------------------------------------------------------------- helpers


def _type_filter(types: Iterable[str] | None) -> frozenset[str] | None:
    if types is None:
        return None
    by_folded = {t.lower(): t for t in ENTITY_TYPES}
    chosen = set()
    for name in types:
        if name.lower() not in by_folded:
            raise UsageError(f"unknown type {name!r}; choose from: {', '.join(ENTITY_TYPES)}")
        chosen.add(by_folded[name.lower()])
    return frozenset(chosen)


def _score(measure: str, shared: int, first: int, second: int, total: int) -> float:
    if measure == "jaccard":
        return shared / max(1, first + second - shared)
    pmi = math.log2(shared * total / max(1, first * second))
    if measure == "pmi":
        return pmi
    return 1.0 if shared >= total else pmi / -math.log2(shared / total)


def _associations(
    graph: Projection, center: int, measure: str, keep: frozenset[str] | None, limit: int | None
) -> list[Association]:
    total = max(1, len(graph.papers))
    size = len(graph.papers_of[center])
    shared = dict(graph.co_mentions(center))
    related: dict[int, list[tuple[str, int]]] = {}
    for index in graph.relations_of.get(center, ()):
        relation = graph.relations[index]
        other = relation.object if relation.subject == center else relation.subject
        if other != center:
            name = relation.predicate if relation.subject == center else "^" + relation.predicate
            related.setdefault(other, []).append((name, relation.support))
            shared.setdefault(other, 0)
    found = []
    for other, count in shared.items():
        if keep is not None and graph.types[other] not in keep:
            continue
        both = count or max(1, max(support for _, support in related[other]))
        papers = len(graph.papers_of[other])
        score = _score(measure, both, max(size, both), max(papers, both), total)
        found.append(Association(graph.entities[other], score, count, papers, tuple(sorted(related.get(other, ())))))
    found.sort(key=lambda a: (-a.score, -a.shared, a.node))
    return found[:limit] if limit else found


def _adamic_adar(graph: Projection, center: int, keep: frozenset[str] | None, limit: int | None) -> list[Prediction]:
    links = LinkTable(graph, frozenset(LINKS))
    middles = links.around(center)
    near = {center, *middles}
    scores: dict[int, float] = {}
    shared: dict[int, list[tuple[float, int]]] = {}
    for middle in middles:  # in the order of around(), so that the sums add up alike on every run
        # Only the middle's links and their number count here, not their costs; and of those, only the
        # concepts not linked to the center yet (set differences, not a loop: a concept mentioned in a
        # fifth of the papers has most of the others as neighbors).
        around_middle = links.linked(middle)
        degree = len(around_middle)
        if degree < 2:
            continue
        weight = 1.0 / math.log(degree)
        for other in around_middle - near:
            if keep is not None and graph.types[other] not in keep:
                continue
            scores[other] = scores.get(other, 0.0) + weight
            shared.setdefault(other, []).append((-weight, middle))
    ranked = sorted(scores, key=lambda n: (-scores[n], graph.entities[n]))
    ranked = ranked[:limit] if limit else ranked
    return [
        Prediction(graph.entities[n], scores[n], tuple(graph.entities[m] for _, m in sorted(shared[n]))) for n in ranked
    ]
