"""Paths between concepts, and the neighbors of one, over a :class:`kg.explore.projection.Projection`.

Two concepts are *linked* when a stored relation joins them (``kg:usedFor``, ...,
followed in either direction) or when a paper mentions both (the link ``mentions``). A
path is a chain of such links, each one a :class:`Hop`; its length is the number of hops.

The functions here take the graph as their first argument and name concepts by IRI;
:meth:`kg.explore.projection.Projection.resolve` turns labels and aliases into IRIs.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:clip", "CLIP", "Method"), ("e:zsc", "zero-shot classification", "Task"),
...               ("e:gm", "goal misgeneralization", "Phenomenon")],
...     mentions=[("p:1", "e:zsc"), ("p:1", "e:gm")],
...     relations=[("e:clip", "usedFor", "e:zsc", ["p:2"], "CLIP is used for zero-shot classification.", 0.9)])
>>> [(hop.predicate, hop.target) for hop in shortest_paths(graph, "e:clip", "e:gm")[0]]
[('usedFor', 'e:zsc'), ('mentions', 'e:gm')]
>>> shortest_paths(graph, "e:clip", "e:gm", predicates=["usedFor"])
[]
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass

from kg.errors import UsageError, check_whole_number
from kg.explore.links import Hop, LinkTable, allowed_links, entity_number
from kg.explore.projection import Projection


@dataclass(frozen=True)
class Neighbor:
    """A concept near another: how many hops away, and through which link.

    Attributes
    ----------
    node : str
        The concept's IRI.
    hops : int
        Its distance from the centre.
    via : str
        The concept one hop nearer the centre that links to it best.
    link : Hop
        The link from ``via`` to ``node``.
    weight : int
        Papers mentioning this concept with one of the previous ring, plus the support of
        relations from it: the ranking within a ring.
    """

    node: str
    hops: int
    via: str
    link: Hop
    weight: int


def shortest_paths(
    graph: Projection,
    source: str,
    target: str,
    *,
    max_hops: int = 4,
    limit: int = 3,
    predicates: Iterable[str] | None = None,
) -> list[list[Hop]]:
    """The ``limit`` shortest simple paths from ``source`` to ``target``.

    Paths are ordered by length; paths of the same length by how strongly their hops
    are attested: a stored relation beats a co-mention, and two concepts that share
    most of their papers beat two that share one of many (the cost of a hop is
    ``1 - ochiai``, halved for a relation). A path never visits a concept twice, nor
    takes two co-mention hops in a row from the same abstract (a detour: that abstract
    mentions both ends already).

    Parameters
    ----------
    graph : Projection
    source, target : str
        Entity IRIs.
    max_hops : int
        The longest path to look for.
    limit : int
        How many paths to return at most.
    predicates : iterable of str, optional
        The kinds of link a path may use, from :data:`kg.explore.links.LINKS` (default: all of them).
        Leave out ``"mentions"`` to keep to stored relations, not passing through papers.

    Returns
    -------
    list of list of Hop
        Each path as its hops, from ``source`` to ``target``; empty when there is none.

    Raises
    ------
    EntityNotFoundError
        If ``source`` or ``target`` is not an entity of ``graph``.
    UnknownPredicateError
        If ``predicates`` names a link that does not exist.
    UsageError
        If ``source == target``, or ``max_hops`` or ``limit`` is less than 1.

    Examples
    --------
    >>> graph = Projection.from_records(
    ...     entities=[("e:a", "A", "Method"), ("e:b", "B", "Method"), ("e:c", "C", "Task"), ("e:d", "D", "Task")],
    ...     mentions=[("p:1", "e:a"), ("p:1", "e:b"), ("p:2", "e:b"), ("p:2", "e:d"),
    ...               ("p:3", "e:a"), ("p:3", "e:c"), ("p:4", "e:c"), ("p:4", "e:d")])
    >>> paths = shortest_paths(graph, "e:a", "e:d", limit=5)
    >>> [[hop.target for hop in path] for path in paths]
    [['e:b', 'e:d'], ['e:c', 'e:d']]
    >>> shortest_paths(graph, "e:a", "e:d", max_hops=1)
    []
    >>> shortest_paths(graph, "e:a", "e:a")
    Traceback (most recent call last):
    ...
    kg.errors.UsageError: a path needs two different concepts
    """
    start, goal = entity_number(graph, source), entity_number(graph, target)
    if start == goal:
        raise UsageError("a path needs two different concepts")
    check_whole_number("max_hops", max_hops)
    check_whole_number("limit", limit)
    links = LinkTable(graph, allowed_links(predicates))
    # Search from the end with fewer neighbors: its neighbors are the ones expanded.
    reverse = len(links.around(start)) > len(links.around(goal))
    if reverse:
        start, goal = goal, start
    found = _k_shortest(links, start, goal, max_hops=max_hops, limit=limit)
    if reverse:
        found = [tuple(reversed(path)) for path in found]
    return [[links.hop(u, v) for u, v in zip(path, path[1:])] for path in found]


def neighbors(
    graph: Projection,
    center: str,
    *,
    hops: int = 1,
    limit: int | None = None,
    predicates: Iterable[str] | None = None,
) -> tuple[list[Neighbor], list[int]]:
    """The concepts within ``hops`` links of ``center``, nearest first.

    Within one ring (one distance), concepts are ranked by how many papers mention them
    together with a concept of the ring before (for the first ring: the papers they share
    with the centre), plus the support of relations from that ring.

    Parameters
    ----------
    graph : Projection
    center : str
        An entity IRI.
    hops : int
        The farthest ring.
    limit : int, optional
        Keep at most this many concepts per ring (default: all).
    predicates : iterable of str, optional
        The kinds of link to follow, as in :func:`shortest_paths`.

    Returns
    -------
    neighbors : list of Neighbor
        Ring by ring, best first within a ring.
    sizes : list of int
        The number of concepts in each ring, before ``limit``.

    Raises
    ------
    EntityNotFoundError, UnknownPredicateError, UsageError
        As :func:`shortest_paths`.

    Examples
    --------
    >>> graph = Projection.from_records(
    ...     entities=[("e:a", "A", "Method"), ("e:b", "B", "Task"), ("e:c", "C", "Dataset")],
    ...     mentions=[("p:1", "e:a"), ("p:1", "e:b"), ("p:2", "e:a"), ("p:2", "e:b"), ("p:3", "e:b"), ("p:3", "e:c")])
    >>> near, sizes = neighbors(graph, "e:a", hops=2)
    >>> [(n.node, n.hops, n.via, n.link.support) for n in near], sizes
    ([('e:b', 1, 'e:a', 2), ('e:c', 2, 'e:b', 1)], [1, 1])
    """
    origin = entity_number(graph, center)
    check_whole_number("hops", hops)
    if limit is not None:
        check_whole_number("limit", limit)
    links = LinkTable(graph, allowed_links(predicates))
    return _rings(links, origin, hops=hops, limit=limit)


# ---------------------------------------------------------------------- helpers


def _k_shortest(links: LinkTable, start: int, goal: int, *, max_hops: int, limit: int) -> list[tuple[int, ...]]:
    """Simple paths by length, then cost: exact lengths in turn, pruned by distance to ``goal``."""
    distance = {goal: 0}
    rings = [{goal}]
    found: list[tuple[int, ...]] = []
    for length in range(1, max_hops + 1):
        # Distances to the goal are needed up to length - 1 (the first hop leaves `start`).
        while len(rings) < length and rings[-1]:
            ring = links.ring(rings[-1]) - distance.keys()
            for node in ring:
                distance[node] = len(rings)
            rings.append(ring)
        found += _cheapest_of_length(links, start, goal, length, distance, limit - len(found))
        if len(found) >= limit or (not rings[-1] and start not in distance):
            break
    return found


def _cheapest_of_length(
    links: LinkTable, start: int, goal: int, length: int, distance: dict[int, int], wanted: int
) -> list[tuple[int, ...]]:
    """The ``wanted`` cheapest paths of exactly ``length`` hops (best-first search).

    A path visits no concept twice, and never takes two co-mention hops in a row from one
    abstract (A and B, then B and C, all mentioned by one paper): that abstract already
    links A and C, so the middle concept is a detour.
    """
    into_goal = links.around(goal)  # costs are symmetric: the last hop's cost, without expanding its start
    queue: list[tuple[float, tuple[int, ...]]] = [(0.0, (start,))]
    found: list[tuple[int, ...]] = []
    while queue and len(found) < wanted:
        cost, path = heapq.heappop(queue)
        node = path[-1]
        if node == goal:
            found.append(path)
            continue
        left = length - (len(path) - 1)
        detours = _detours(links, path)
        if left == 1:
            last = into_goal.get(node)
            if last is not None and not (goal in detours and not links.has_relation(node, goal)):
                heapq.heappush(queue, (cost + last, path + (goal,)))
            continue
        for other, step in links.around(node).items():
            reach = distance.get(other)
            if reach is None or reach > left - 1 or other == goal or other in path:
                continue
            if other in detours and not links.has_relation(node, other):
                continue
            heapq.heappush(queue, (cost + step, path + (other,)))
    return found


def _detours(links: LinkTable, path: tuple[int, ...]) -> set[int] | frozenset[int]:
    """Concepts that would make the next hop a second co-mention from the abstract of the last one."""
    if len(path) < 2 or not links.co_mentions or links.has_relation(path[-2], path[-1]):
        return frozenset()
    return links.same_abstract(path[-2], path[-1])


def _rings(links: LinkTable, origin: int, *, hops: int, limit: int | None) -> tuple[list[Neighbor], list[int]]:
    graph = links.graph
    seen = {origin}
    frontier = {origin}
    neighbors: list[Neighbor] = []
    sizes: list[int] = []
    for distance in range(1, hops + 1):
        weights = links.weights(frontier)
        ring = {node: weight for node, weight in weights.items() if node not in seen and weight > 0}
        sizes.append(len(ring))
        if not ring:
            break

        def rank(node: int) -> tuple:
            return -ring[node], graph.labels[node], node

        for node in heapq.nsmallest(limit, ring, key=rank) if limit else sorted(ring, key=rank):
            via = origin if distance == 1 else _nearest(links, node, frontier)
            neighbors.append(
                Neighbor(graph.entities[node], distance, graph.entities[via], links.hop(via, node), ring[node])
            )
        seen.update(ring)
        frontier = set(ring)
    return neighbors, sizes


def _nearest(links: LinkTable, node: int, frontier: set[int]) -> int:
    """The concept of ``frontier`` with the cheapest link to ``node``.

    Expanding ``node`` costs about eight steps per paper of it; comparing it with each
    concept of ``frontier`` costs about one per paper of those: the cheaper way is taken.
    """
    papers_of = links.graph.papers_of
    if 8 * len(papers_of[node]) <= sum(len(papers_of[other]) for other in frontier):
        costs = links.around(node)
        return min((costs[other], other) for other in frontier if other in costs)[1]
    found = ((links.cost(other, node), other) for other in frontier)
    return min((cost, other) for cost, other in found if cost is not None)[1]
