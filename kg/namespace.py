"""IRIs of the ontology and of the data, and the prefixes users see.

The two bases are settings: ``KG_ONTOLOGY_IRI`` and ``KG_RESOURCE_IRI`` in the
environment override the defaults. No other module spells an IRI.

Examples
--------
>>> from kg.namespace import KG, paper_iri, entity_iri
>>> str(KG.Method) == ONTOLOGY_IRI + "Method"
True
>>> str(paper_iri("2301.00001")) == RESOURCE_IRI + "paper/2301.00001"
True
>>> str(entity_iri("robust-overfitting")) == RESOURCE_IRI + "entity/robust-overfitting"
True
"""
from __future__ import annotations

import os
from urllib.parse import quote

from rdflib import Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, RDF, RDFS, SDO, SKOS, XSD

DEFAULT_ONTOLOGY_IRI = "https://w3id.org/abstract-kg/ontology#"
DEFAULT_RESOURCE_IRI = "https://w3id.org/abstract-kg/resource/"

ONTOLOGY_IRI = os.environ.get("KG_ONTOLOGY_IRI") or DEFAULT_ONTOLOGY_IRI
RESOURCE_IRI = os.environ.get("KG_RESOURCE_IRI") or DEFAULT_RESOURCE_IRI

KG = Namespace(ONTOLOGY_IRI)
KGR = Namespace(RESOURCE_IRI)

# Prefixes declared for every query, in the shell and in `kg query`, and bound in exports.
PREFIXES: dict[str, str] = {
    "kg": ONTOLOGY_IRI,
    "kgr": RESOURCE_IRI,
    "rdf": str(RDF),
    "rdfs": str(RDFS),
    "owl": str(OWL),
    "xsd": str(XSD),
    "skos": str(SKOS),
    "dcterms": str(DCTERMS),
    "prov": str(PROV),
    "schema": str(SDO),
}

ENTITY_TYPES = ("Method", "Dataset", "Task", "Metric", "Phenomenon")

# Paper-to-entity properties, and entity-to-entity relations, by local name.
PAPER_LINKS = ("mentions", "proposes", "uses", "evaluatesOn", "studies")
ENTITY_RELATIONS = (
    "usedFor",
    "evaluatedOn",
    "comparedWith",
    "outperforms",
    "addresses",
    "partOf",
    "hyponymOf",
    "featureOf",
    "conjunction",
)


def _segment(value: str) -> str:
    # Ids may come from the source (arXiv ids, DOIs); keep them readable but IRI-safe.
    return quote(value, safe="-._~:")


def paper_iri(doc_id: str) -> URIRef:
    """The IRI of the paper whose document id is ``doc_id``."""
    return KGR[f"paper/{_segment(doc_id)}"]


def entity_iri(key: str) -> URIRef:
    """The IRI of the entity whose canonical key is ``key``."""
    return KGR[f"entity/{_segment(key)}"]


def statement_iri(key: str) -> URIRef:
    """The IRI of one relation statement (evidence and provenance of a triple)."""
    return KGR[f"statement/{_segment(key)}"]


def local_name(iri: object) -> str:
    """The last segment of an IRI: the term's name in its namespace.

    Examples
    --------
    >>> local_name(KG.Method), local_name("https://w3id.org/abstract-kg/resource/entity/clip")
    ('Method', 'clip')
    """
    return str(iri).rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def sparql_prologue(prefixes: dict[str, str] | None = None) -> str:
    """``PREFIX`` lines for ``prefixes`` (default: every declared prefix), to put before a query.

    Examples
    --------
    >>> sparql_prologue().splitlines()[0] == f"PREFIX kg: <{ONTOLOGY_IRI}>"
    True
    """
    return "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in (PREFIXES if prefixes is None else prefixes).items())
