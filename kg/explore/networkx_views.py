"""The NetworkX views of a projection: the whole graph for export, the concept graph for centrality and communities.

:class:`NetworkXViews` gives :class:`kg.explore.projection.Projection` its methods
:meth:`~NetworkXViews.to_networkx` and :meth:`~NetworkXViews.concept_graph`; it reads the
projection's lists and imports NetworkX only when a view is made.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from kg.explore.assembly import CO_MENTION

if TYPE_CHECKING:
    import networkx as nx


class NetworkXViews:
    """The NetworkX views of a :class:`~kg.explore.projection.Projection`, which inherits them.

    They read the projection's lists (``entities``, ``labels``, ``types``, ``aliases``, ``papers``,
    ``paper_labels``, ``papers_of``, ``entities_of``, ``roles``, ``relations``) and its
    :meth:`~kg.explore.projection.Projection.shared_papers`.
    """

    def to_networkx(self) -> nx.MultiDiGraph:
        """Entities and papers as nodes (IRIs), paper links and relations as edges.

        Node attributes: ``kind`` (``entity`` or ``paper``), ``type`` (``Paper`` for papers),
        ``label``, and for entities ``aliases`` (joined by ``"; "``) and ``papers``.
        Edges are keyed by predicate and carry ``predicate`` and ``support``; relations also
        ``evidence``, ``paper`` (the IRI of the evidence's paper) and ``confidence``. Every
        attribute is a string or a number, so the graph writes to GraphML and GEXF as is.

        Examples
        --------
        >>> from kg.explore.projection import Projection
        >>> view = Projection.from_records(entities=[("e:a", "A", "Method")], mentions=[("p:1", "e:a")])
        >>> graph = view.to_networkx()
        >>> sorted(graph.nodes(data="kind")), list(graph.edges(keys=True))
        ([('e:a', 'entity'), ('p:1', 'paper')], [('p:1', 'e:a', 'mentions')])
        """
        import networkx as nx

        graph = nx.MultiDiGraph()
        for entity, iri in enumerate(self.entities):
            graph.add_node(
                iri,
                kind="entity",
                type=self.types[entity],
                label=self.labels[entity],
                aliases="; ".join(self.aliases.get(entity, ())),
                papers=len(self.papers_of[entity]),
            )
        for paper, iri in enumerate(self.papers):
            graph.add_node(iri, kind="paper", type="Paper", label=self.paper_labels[paper])
        for paper, members in enumerate(self.entities_of):
            for entity in members:
                graph.add_edge(
                    self.papers[paper], self.entities[entity], key=CO_MENTION, predicate=CO_MENTION, support=1
                )
        for paper, entity, predicate in self.roles:
            graph.add_edge(self.papers[paper], self.entities[entity], key=predicate, predicate=predicate, support=1)
        for relation in self.relations:
            attributes = {
                "predicate": relation.predicate,
                "support": relation.support,
                "evidence": relation.evidence or "",
                "paper": "" if relation.evidence_paper is None else self.papers[relation.evidence_paper],
            }
            if relation.confidence is not None:
                attributes["confidence"] = relation.confidence
            graph.add_edge(
                self.entities[relation.subject], self.entities[relation.object], key=relation.predicate, **attributes
            )
        return graph

    def concept_graph(self) -> nx.Graph:
        """Entities only, joined where some paper links them, weighted by the number of such papers.

        Two entities are joined when a paper mentions both or a relation joins them;
        ``weight`` is the number of distinct papers doing either, ``predicates`` the
        relations (joined by ``"; "``). Nodes carry ``label``, ``type`` and ``papers``.

        Examples
        --------
        >>> from kg.explore.projection import Projection
        >>> view = Projection.from_records(
        ...     entities=[("e:a", "A", "Method"), ("e:b", "B", "Task")],
        ...     mentions=[("p:1", "e:a"), ("p:1", "e:b"), ("p:2", "e:a"), ("p:2", "e:b")])
        >>> view.concept_graph().edges(data="weight")
        EdgeDataView([('e:a', 'e:b', 2)])
        """
        import networkx as nx

        pairs: Counter[tuple[int, int]] = Counter()
        for members in self.entities_of:
            for i, first in enumerate(members):
                for second in members[i + 1 :]:
                    pairs[(first, second)] += 1
        predicates: dict[tuple[int, int], set[str]] = {}
        for relation in self.relations:
            if relation.subject == relation.object:
                continue
            pair = (min(relation.subject, relation.object), max(relation.subject, relation.object))
            predicates.setdefault(pair, set()).add(relation.predicate)
            extra = set(relation.papers) - set(self.shared_papers(*pair))
            pairs[pair] += len(extra) if pair in pairs else max(1, len(extra))
        graph = nx.Graph()
        for entity, iri in enumerate(self.entities):
            graph.add_node(iri, label=self.labels[entity], type=self.types[entity], papers=len(self.papers_of[entity]))
        for (first, second), weight in pairs.items():
            graph.add_edge(
                self.entities[first],
                self.entities[second],
                weight=weight,
                predicates="; ".join(sorted(predicates.get((first, second), ()))),
            )
        return graph
