"""The IRIs of :mod:`kg.namespace` as rdflib terms, for the layers that make or read RDF.

Examples
--------
>>> from kg.namespace import ONTOLOGY_IRI, RESOURCE_IRI
>>> str(KG.Method) == ONTOLOGY_IRI + "Method"
True
>>> paper_iri("2301.00001") == URIRef(RESOURCE_IRI + "paper/2301.00001")
True
"""

from __future__ import annotations

from rdflib import Namespace, URIRef

from kg import namespace

KG = Namespace(namespace.ONTOLOGY_IRI)
KGR = Namespace(namespace.RESOURCE_IRI)


def paper_iri(doc_id: str) -> URIRef:
    """The IRI of the paper whose document id is ``doc_id``."""
    return URIRef(namespace.paper_iri(doc_id))


def entity_iri(key: str) -> URIRef:
    """The IRI of the entity whose canonical key is ``key``."""
    return URIRef(namespace.entity_iri(key))


def statement_iri(key: str) -> URIRef:
    """The IRI of one relation statement (evidence and provenance of a triple)."""
    return URIRef(namespace.statement_iri(key))
