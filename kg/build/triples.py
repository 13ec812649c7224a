"""From extraction records to RDF triples, in ontology terms only. No NLP here.

Examples
--------
>>> from kg.ingest import Document
>>> from kg.rdf import KG
>>> doc = Document("p1", "We propose LoRA.", "a.txt:1", title="LoRA", meta={"year": 2021})
>>> triples = paper_triples(doc)
>>> (paper_iri("p1"), RDF.type, KG.Paper) in triples
True
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING

from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SDO, SKOS, XSD

from kg.build.canon import Registry
from kg.namespace import local_name
from kg.rdf import KG, entity_iri, paper_iri, statement_iri
from kg.store.queries import split_aliases

if TYPE_CHECKING:
    from kg.extract.records import DocumentRecord, Relation
    from kg.ingest import Document
    from kg.store import Triple

# The forms of dcterms:date the shapes accept, by datatype; anything else stays a plain literal.
_DATE_FORMS = (
    (re.compile(r"\d{4}"), XSD.gYear),
    (re.compile(r"\d{4}-\d{2}"), XSD.gYearMonth),
    (re.compile(r"\d{4}-\d{2}-\d{2}"), XSD.date),
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?"), XSD.dateTime),
)


def paper_triples(document: Document) -> list[Triple]:
    """A paper's own description: type, ids, abstract, metadata and where it was read."""
    paper = paper_iri(document.id)
    triples: list[Triple] = [
        (paper, RDF.type, KG.Paper),
        (paper, DCTERMS.identifier, Literal(document.id)),
        (paper, DCTERMS.abstract, Literal(document.text)),
        source_triple(document),
    ]
    if document.title:
        triples.append((paper, DCTERMS.title, Literal(document.title)))
    meta = document.meta
    for author in meta.get("authors", ()):
        triples.append((paper, DCTERMS.creator, Literal(author)))
    for category in meta.get("categories", ()):
        triples.append((paper, DCTERMS.subject, Literal(category)))
    date = meta.get("date") or meta.get("year")
    if date:
        triples.append((paper, DCTERMS.date, _date_literal(str(date))))
    if meta.get("url"):
        triples.append((paper, SDO.url, Literal(str(meta["url"]), datatype=XSD.anyURI)))
    return triples


def source_triple(document: Document) -> Triple:
    """The record that this abstract was read at ``document.source``."""
    return (paper_iri(document.id), KG.sourceLocation, Literal(document.source))


# How a paper relates to an entity it mentions, beyond "mentions", by the entity's type
# (the entities a paper proposes get kg:proposes instead).
_PAPER_LINK_BY_TYPE = {"Method": KG.uses, "Dataset": KG.evaluatesOn, "Task": KG.studies, "Phenomenon": KG.studies}


def record_triples(record: DocumentRecord, registry: Registry) -> list[Triple]:
    """Entities of one document, merged into the corpus through ``registry``, the paper's links to
    them, and each relation as a plain triple plus a statement node with its evidence."""
    paper = paper_iri(record.id)
    triples: list[Triple] = []
    node_of: dict[str, URIRef] = {}
    for entity in record.entities:
        resolved = registry.resolve(entity)
        node = node_of[entity.id] = entity_iri(resolved.key)
        if resolved.is_new:
            triples += [
                (node, RDF.type, KG[resolved.type]),
                (node, RDFS.label, Literal(resolved.label)),
                (node, SKOS.prefLabel, Literal(resolved.label)),
            ]
        triples += [(node, SKOS.altLabel, Literal(alias)) for alias in resolved.aliases]
        triples.append((paper, KG.mentions, node))
        if entity.proposed:
            triples.append((paper, KG.proposes, node))
        elif resolved.type in _PAPER_LINK_BY_TYPE:
            triples.append((paper, _PAPER_LINK_BY_TYPE[resolved.type], node))
    # One statement per paper, triple and sentence: two mention pairs of one sentence that state the
    # same relation make one statement, with the higher confidence.
    strongest: dict[str, tuple[URIRef, URIRef, URIRef, Relation]] = {}
    for relation in record.relations:
        subject, obj = node_of.get(relation.subject), node_of.get(relation.object)
        if subject is None or obj is None or subject == obj:
            continue
        predicate = KG[relation.predicate]
        key = _statement_key(paper, subject, predicate, obj, relation.evidence)
        if key not in strongest or strongest[key][3].confidence < relation.confidence:
            strongest[key] = (subject, predicate, obj, relation)
    for key, (subject, predicate, obj, relation) in sorted(strongest.items()):
        statement = statement_iri(key)
        triples += [
            (subject, predicate, obj),
            (statement, RDF.type, KG.Statement),
            (statement, RDF.subject, subject),
            (statement, RDF.predicate, predicate),
            (statement, RDF.object, obj),
            (statement, PROV.wasDerivedFrom, paper),
            (statement, KG.evidence, Literal(relation.evidence)),
            (statement, KG.confidence, Literal(Decimal(str(round(relation.confidence, 3))))),
        ]
        if relation.scierc:
            triples.append((statement, KG.sciercLabel, Literal(relation.scierc)))
    return triples


def _statement_key(*parts: object) -> str:
    # One statement per paper, triple and sentence: rebuilding gives the same IRI.
    return hashlib.sha1("\u001f".join(str(p) for p in parts).encode()).hexdigest()[:20]


def key_of(node: URIRef) -> str:
    """The canonical key in an entity IRI (inverse of :func:`kg.namespace.entity_iri`)."""
    from urllib.parse import unquote

    prefix = str(entity_iri(""))
    return unquote(str(node)[len(prefix) :])


def load_registry(rows: Iterable[tuple]) -> Registry:
    """A :class:`Registry` of the entities already stored, from the rows of
    :data:`kg.store.queries.ENTITIES`."""
    registry = Registry()
    for node, entity_type, label, aliases in rows:
        registry.add_known(key_of(node), local_name(entity_type), str(label), tuple(split_aliases(aliases)))
    return registry


def _date_literal(value: str) -> Literal:
    """A date as the typed literal of its form (so dates compare and group in SPARQL).

    >>> [_date_literal(v).datatype.split("#")[1] for v in ("2021", "2021-06", "2021-06-17", "2021-06-17T10:00:00Z")]
    ['gYear', 'gYearMonth', 'date', 'dateTime']
    """
    for form, datatype in _DATE_FORMS:
        if form.fullmatch(value):
            return Literal(value, datatype=datatype)
    return Literal(value)
