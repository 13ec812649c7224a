"""The NetworkX view of a store: entities and papers as nodes, links as edges.

Nodes are IRIs (strings) with ``kind`` ("entity" or "paper"), ``label`` and, for
entities, ``type``. Edges carry ``predicate`` (a local name such as ``mentions`` or
``usedFor``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from kg.namespace import ENTITY_RELATIONS, ENTITY_TYPES, PAPER_LINKS

if TYPE_CHECKING:
    import networkx as nx

    from kg.store import Store


def project(store: Store) -> nx.MultiDiGraph:
    """Build the projection with three SPARQL queries.

    Examples
    --------
    >>> import tempfile, os
    >>> from rdflib import Literal
    >>> from rdflib.namespace import RDF, RDFS
    >>> from kg.namespace import KG, entity_iri, paper_iri
    >>> from kg.store import open_store
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with open_store(os.path.join(tmp, "s"), create=True) as store:
    ...         store.write([(entity_iri("clip"), RDF.type, KG.Method),
    ...                      (entity_iri("clip"), RDFS.label, Literal("CLIP")),
    ...                      (paper_iri("p1"), RDF.type, KG.Paper),
    ...                      (paper_iri("p1"), KG.mentions, entity_iri("clip"))])
    ...         view = project(store)
    >>> view.nodes[str(entity_iri("clip"))]["label"], view.number_of_edges()
    ('CLIP', 1)
    """
    import networkx as nx

    view = nx.MultiDiGraph()
    types = " ".join(f"kg:{t}" for t in ENTITY_TYPES)
    for node, entity_type, label in store.query(
        f"SELECT ?e ?t ?l WHERE {{ VALUES ?t {{ {types} }} ?e a ?t ; rdfs:label ?l }}"
    ).rows:
        view.add_node(str(node), kind="entity", type=_local(entity_type), label=str(label))
    for (paper,) in store.query("SELECT ?p WHERE { ?p a kg:Paper }").rows:
        view.add_node(str(paper), kind="paper", label=_local(paper))
    predicates = " ".join(f"kg:{p}" for p in PAPER_LINKS + ENTITY_RELATIONS)
    for subject, predicate, obj in store.query(
        f"SELECT ?s ?p ?o WHERE {{ VALUES ?p {{ {predicates} }} ?s ?p ?o }}"
    ).rows:
        view.add_edge(str(subject), str(obj), key=_local(predicate), predicate=_local(predicate))
    return view


def _local(iri: object) -> str:
    text = str(iri)
    return text.rsplit("#", 1)[-1].rsplit("/", 1)[-1]
