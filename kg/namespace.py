"""IRIs of the ontology and of the data, and the prefixes users see, as plain strings.

Any layer may import this module: it needs no RDF library. Where RDF terms are made, :mod:`kg.rdf`
wraps these strings as rdflib terms. The two bases are settings: ``KG_ONTOLOGY_IRI`` and
``KG_RESOURCE_IRI`` in the environment override the defaults. No other module spells an IRI.

Examples
--------
>>> ontology_iri("Method") == ONTOLOGY_IRI + "Method"
True
>>> paper_iri("2301.00001") == RESOURCE_IRI + "paper/2301.00001"
True
>>> entity_iri("robust-overfitting") == RESOURCE_IRI + "entity/robust-overfitting"
True
"""

from __future__ import annotations

import os
from urllib.parse import quote

DEFAULT_ONTOLOGY_IRI = "https://w3id.org/abstract-kg/ontology#"
DEFAULT_RESOURCE_IRI = "https://w3id.org/abstract-kg/resource/"

ONTOLOGY_IRI = os.environ.get("KG_ONTOLOGY_IRI") or DEFAULT_ONTOLOGY_IRI
RESOURCE_IRI = os.environ.get("KG_RESOURCE_IRI") or DEFAULT_RESOURCE_IRI

RDF_IRI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS_IRI = "http://www.w3.org/2000/01/rdf-schema#"
OWL_IRI = "http://www.w3.org/2002/07/owl#"
XSD_IRI = "http://www.w3.org/2001/XMLSchema#"
SKOS_IRI = "http://www.w3.org/2004/02/skos/core#"
DCTERMS_IRI = "http://purl.org/dc/terms/"
PROV_IRI = "http://www.w3.org/ns/prov#"
SCHEMA_IRI = "https://schema.org/"

# Prefixes declared for every query, in the shell and in `kg query`, and bound in exports.
PREFIXES: dict[str, str] = {
    "kg": ONTOLOGY_IRI,
    "kgr": RESOURCE_IRI,
    "rdf": RDF_IRI,
    "rdfs": RDFS_IRI,
    "owl": OWL_IRI,
    "xsd": XSD_IRI,
    "skos": SKOS_IRI,
    "dcterms": DCTERMS_IRI,
    "prov": PROV_IRI,
    "schema": SCHEMA_IRI,
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


def ontology_iri(name: str) -> str:
    """The IRI of the ontology term ``name`` (a class or property of ``kg:``)."""
    return ONTOLOGY_IRI + name


def paper_iri(doc_id: str) -> str:
    """The IRI of the paper whose document id is ``doc_id``."""
    return f"{RESOURCE_IRI}paper/{_segment(doc_id)}"


def entity_iri(key: str) -> str:
    """The IRI of the entity whose canonical key is ``key``."""
    return f"{RESOURCE_IRI}entity/{_segment(key)}"


def statement_iri(key: str) -> str:
    """The IRI of one relation statement (evidence and provenance of a triple)."""
    return f"{RESOURCE_IRI}statement/{_segment(key)}"


def graph_iri(name: str) -> str:
    """The IRI of one of the store's named graphs, which hold the build's own bookkeeping.

    The knowledge graph is the default graph; exports and queries over it do not see these.
    """
    return f"{RESOURCE_IRI}graph/{_segment(name)}"


EXTRACTION_GRAPH = graph_iri("extraction")
"""Where `kg build` keeps, for each paper, what extraction said about it: everything the
entity-level triples are derived from (:mod:`kg.build.consolidate`)."""
EXTRACTION_RECORD = EXTRACTION_GRAPH + "#record"
"""Links a paper to its extraction record (a JSON literal), in :data:`EXTRACTION_GRAPH`."""
AWAITS_CONSOLIDATION = EXTRACTION_GRAPH + "#pending"
"""Marks a paper whose record the entity-level triples do not reflect yet, in :data:`EXTRACTION_GRAPH`."""
STAGED_REMOVALS = graph_iri("staged-removals")
STAGED_ADDITIONS = graph_iri("staged-additions")
"""Where a replacement of triples waits for the one update that applies it (:mod:`kg.store.embedded`)."""


def local_name(iri: object) -> str:
    """The last segment of an IRI: the term's name in its namespace.

    Examples
    --------
    >>> local_name(ontology_iri("Method")), local_name("https://w3id.org/abstract-kg/resource/entity/clip")
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
