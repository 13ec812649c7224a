"""Clusters of concepts that occur together: Louvain communities of the concept graph.

:func:`concept_communities` runs NetworkX's Louvain method (Blondel et al., 2008) over
:meth:`kg.explore.projection.Projection.concept_graph`, with a fixed seed so that the same graph
always gives the same clusters, and names each cluster by its most connected members.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:a", "A", "Method"), ("e:b", "B", "Task"), ("e:c", "C", "Method"), ("e:d", "D", "Task")],
...     mentions=[("p:1", "e:a"), ("p:1", "e:b"), ("p:2", "e:a"), ("p:2", "e:b"),
...               ("p:3", "e:c"), ("p:3", "e:d")])
>>> [c.members for c in concept_communities(graph)]
[('e:a', 'e:b'), ('e:c', 'e:d')]
"""

from __future__ import annotations

from dataclasses import dataclass

from kg.errors import UsageError, check_whole_number
from kg.explore.projection import Projection


@dataclass(frozen=True)
class Community:
    """A cluster of concepts.

    Attributes
    ----------
    members : tuple of str
        Entity IRIs, the most connected inside the cluster first (by the total weight of
        their links to other members), so the first few name the cluster.
    internal_weight : int
        The total weight of the links inside the cluster.
    """

    members: tuple[str, ...]
    internal_weight: int


def concept_communities(
    graph: Projection,
    *,
    resolution: float = 1.0,
    min_size: int = 2,
    seed: int = 0,
) -> list[Community]:
    """Louvain communities of the concept graph, largest first.

    Parameters
    ----------
    graph : Projection
    resolution : float
        Above 1 favours smaller communities, below 1 larger ones.
    min_size : int
        Leave out communities with fewer members (concepts never mentioned with another
        are communities of one).
    seed : int
        The random seed of the Louvain method.

    Raises
    ------
    UsageError
        If ``resolution`` is not positive or ``min_size`` is below 1.
    """
    if not resolution > 0:
        raise UsageError(f"resolution must be positive, not {resolution!r}")
    check_whole_number("min_size", min_size)
    return _louvain(graph, resolution=resolution, min_size=min_size, seed=seed)


def _louvain(graph: Projection, *, resolution: float, min_size: int, seed: int) -> list[Community]:
    import networkx as nx

    concepts = graph.concept_graph()
    found = []
    for members in nx.community.louvain_communities(concepts, weight="weight", resolution=resolution, seed=seed):
        if len(members) < min_size:
            continue
        inside = {
            node: sum(w for _, other, w in concepts.edges(node, data="weight") if other in members) for node in members
        }
        ordered = sorted(members, key=lambda node: (-inside[node], node))
        found.append(Community(tuple(ordered), sum(inside.values()) // 2))
    found.sort(key=lambda c: (-len(c.members), -c.internal_weight, c.members[0]))
    return found
