"""The most central concepts, per type: by degree or by PageRank over the concept graph.

Both rank concepts in :meth:`kg.explore.projection.Projection.concept_graph`, where two concepts
are joined when a paper mentions both or a relation links them, weighted by the number
of such papers. *Degree* counts distinct linked concepts; *PageRank* (damping 0.85)
follows the weighted links, so a concept counts for more when central concepts link to it.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:hub", "hub", "Method"), ("e:a", "A", "Method"), ("e:b", "B", "Task"), ("e:c", "C", "Task")],
...     mentions=[("p:1", "e:hub"), ("p:1", "e:a"), ("p:2", "e:hub"), ("p:2", "e:b"), ("p:3", "e:hub"), ("p:3", "e:c")])
>>> ranking = central_concepts(graph, by="degree", limit=1)
>>> {kind: [(node, score) for node, score in ranked] for kind, ranked in ranking.items()}
{'Method': [('e:hub', 3.0)], 'Task': [('e:b', 1.0)]}
>>> top = central_concepts(graph, by="pagerank", types=["Method"], limit=2)["Method"]
>>> [node for node, _ in top], round(sum(score for _, score in top), 3)
(['e:hub', 'e:a'], 0.653)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kg.errors import UsageError, check_whole_number
from kg.explore.projection import Projection
from kg.namespace import ENTITY_TYPES

if TYPE_CHECKING:
    import networkx as nx

MEASURES = ("degree", "pagerank")
"""What :func:`central_concepts` ranks by."""


def central_concepts(
    graph: Projection,
    *,
    by: str = "degree",
    types: Iterable[str] | None = None,
    limit: int = 10,
) -> dict[str, list[tuple[str, float]]]:
    """The ``limit`` most central concepts of each type, best first.

    Parameters
    ----------
    graph : Projection
    by : {"degree", "pagerank"}
    types : iterable of str, optional
        The types to rank (default: all five, in :data:`kg.namespace.ENTITY_TYPES` order).
    limit : int
        Concepts per type.

    Returns
    -------
    dict
        Type name to a list of ``(IRI, score)``; a type with no concepts is left out.

    Raises
    ------
    UsageError
        For an unknown measure or type, or a ``limit`` below 1.
    """
    _check_measure(by)
    wanted = _types(types)
    check_whole_number("limit", limit)
    return top_per_type(graph, centrality(graph, by=by), types=wanted, limit=limit)


def centrality(graph: Projection, *, by: str = "degree") -> dict[str, float]:
    """The score of every concept (IRI): its degree, or its PageRank, in the concept graph.

    Examples
    --------
    >>> graph = Projection.from_records(entities=[("e:a", "A", "Method"), ("e:b", "B", "Task")],
    ...                                 mentions=[("p:1", "e:a"), ("p:1", "e:b")])
    >>> centrality(graph)
    {'e:a': 1.0, 'e:b': 1.0}
    """
    _check_measure(by)
    concepts = graph.concept_graph()
    if by == "degree":
        return {node: float(degree) for node, degree in concepts.degree()}
    return pagerank(concepts)


def top_per_type(
    graph: Projection, scores: dict[str, float], *, types: Iterable[str] | None = None, limit: int = 10
) -> dict[str, list[tuple[str, float]]]:
    """The ``limit`` best-scored concepts of each type (ties by IRI), as ``(IRI, score)``."""
    wanted = _types(types)
    check_whole_number("limit", limit)
    ranked: dict[str, list[tuple[str, float]]] = {}
    for iri, kind in zip(graph.entities, graph.types):
        if kind in wanted:
            ranked.setdefault(kind, []).append((iri, scores.get(iri, 0.0)))
    return {
        kind: sorted(ranked[kind], key=lambda item: (-item[1], item[0]))[:limit] for kind in wanted if kind in ranked
    }


def pagerank(
    graph: nx.Graph, *, alpha: float = 0.85, tolerance: float = 1e-8, max_iterations: int = 200
) -> dict[str, float]:
    """Weighted PageRank by power iteration (``networkx.pagerank`` needs SciPy, which kg does not).

    Edge weights are the ``weight`` attribute (default 1); a node without links spreads
    its rank evenly, as in NetworkX. The scores sum to 1.

    Examples
    --------
    >>> import networkx as nx
    >>> ranks = pagerank(nx.star_graph(3))  # the same as networkx.pagerank
    >>> round(ranks[0], 3), round(ranks[1], 3)
    (0.48, 0.173)
    """
    nodes = list(graph)
    count = len(nodes)
    if not count:
        return {}
    number = {node: i for i, node in enumerate(nodes)}
    links: list[list[tuple[int, float]]] = []
    for node in nodes:
        edges = [(number[other], float(weight)) for _, other, weight in graph.edges(node, data="weight", default=1)]
        total = sum(weight for _, weight in edges)
        links.append([(other, weight / total) for other, weight in edges] if total else [])
    rank = [1.0 / count] * count
    for _ in range(max_iterations):
        spread = alpha * sum(rank[i] for i in range(count) if not links[i]) / count
        updated = [(1.0 - alpha) / count + spread] * count
        for i, edges in enumerate(links):
            share = alpha * rank[i]
            for other, fraction in edges:
                updated[other] += share * fraction
        change = sum(abs(new - old) for new, old in zip(updated, rank))
        rank = updated
        if change < count * tolerance:
            break
    return dict(zip(nodes, rank))


def _check_measure(by: str) -> None:
    if by not in MEASURES:
        raise UsageError(f"unknown centrality {by!r}; choose one of: {', '.join(MEASURES)}")


def _types(types: Iterable[str] | None) -> tuple[str, ...]:
    if types is None:
        return ENTITY_TYPES
    by_folded = {t.lower(): t for t in ENTITY_TYPES}
    chosen = []
    for name in types:
        if name.lower() not in by_folded:
            raise UsageError(f"unknown type {name!r}; choose from: {', '.join(ENTITY_TYPES)}")
        chosen.append(by_folded[name.lower()])
    return tuple(dict.fromkeys(chosen))
