"""The entity level of the graph, derived from every stored extraction record in one pass.

After a build has written its papers (each with its extraction record,
:mod:`kg.build.extraction_graph`), one consolidation computes from all the records together
every triple above the papers' own: the entities (:mod:`kg.build.concepts`: one node per
concept, its type by majority and its label by vote), each paper's links to them, and each
relation as a plain triple plus a ``kg:Statement`` with its evidence. It then replaces what
the store held of those in one transaction, so a later paper can revise an earlier decision
(a type vote, an acronym's long form), and a build stopped before or during it is completed
by the next one. The result is a function of the set of stored records.

Examples
--------
>>> from kg.extract.records import DocumentRecord, Entity, Relation
>>> from kg.rdf import KG, entity_iri, paper_iri
>>> record = DocumentRecord("p1", "a.txt:1", entities=(
...     Entity("lora", "LoRA", "Method", proposed=True), Entity("glue", "GLUE", "Dataset")),
...     relations=(Relation("lora", "evaluatedOn", "glue", (0, 4), (8, 12), "LoRA on GLUE.", 0.81234),))
>>> triples = derived_triples({paper_iri("p1"): record})
>>> (entity_iri("lora"), KG.evaluatedOn, entity_iri("glue")) in triples
True
>>> sorted(str(o) for _, p, o in triples if p == KG.confidence)
['0.812']
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING

from rdflib import Literal, URIRef
from rdflib.namespace import PROV, RDF, RDFS, SKOS, XSD

from kg.build.concepts import Concept, Concepts, ConceptVotes
from kg.build.extraction_graph import stored_records
from kg.rdf import KG, entity_iri, statement_iri
from kg.store.queries import CLEAR_AWAITING, DERIVED_TRIPLES

if TYPE_CHECKING:
    from kg.extract.records import DocumentRecord, Relation
    from kg.store import Store, Triple

# How a paper relates to an entity it mentions, beyond "mentions", by the entity's type
# (the entities a paper proposes get kg:proposes instead).
_PAPER_LINK_BY_TYPE = {"Method": KG.uses, "Dataset": KG.evaluatesOn, "Task": KG.studies, "Phenomenon": KG.studies}


def consolidate(store: Store) -> tuple[int, int]:
    """Replace the store's entity-level triples by those derived from all its records.

    The records stream past twice, one at a time: once to count the votes that decide the concepts,
    once to derive each paper's triples, which the store compares with what it holds as they come
    (:meth:`kg.store.Store.replace`). So memory grows with the number of distinct entities, not of
    papers. Returns the number of triples removed and added.
    """
    votes = ConceptVotes()
    for _, record in stored_records(store):
        votes.add(record.entities)
    found = votes.concepts()
    return store.replace(DERIVED_TRIPLES, _derived(found, stored_records(store)), then=CLEAR_AWAITING)


def derived_triples(records: Mapping[str, DocumentRecord]) -> list[Triple]:
    """Every entity-level triple of the papers whose records ``records`` holds (by paper IRI)."""
    votes = ConceptVotes()
    for record in records.values():
        votes.add(record.entities)
    return list(_derived(votes.concepts(), ((paper, records[paper]) for paper in sorted(records))))


def _derived(found: Concepts, records: Iterable[tuple[str, DocumentRecord]]) -> Iterator[Triple]:
    for concept in found.concepts.values():
        yield from _entity_triples(concept)
    for paper, record in records:
        key_of = {entity.id: found.key_of[entity.id] for entity in record.entities}
        yield from _paper_links(URIRef(paper), record, key_of, found.concepts)
        yield from _statements(URIRef(paper), record.relations, key_of)


def _entity_triples(concept: Concept) -> list[Triple]:
    node = entity_iri(concept.key)
    return [
        (node, RDF.type, KG[concept.type]),
        (node, RDFS.label, Literal(concept.label)),
        (node, SKOS.prefLabel, Literal(concept.label)),
        *((node, SKOS.altLabel, Literal(alias)) for alias in concept.aliases),
    ]


def _paper_links(
    paper: URIRef, record: DocumentRecord, key_of: dict[str, str], concepts: dict[str, Concept]
) -> list[Triple]:
    # Two entities of one paper may be one concept of the corpus: the paper proposes it if it
    # proposes either, and otherwise relates to it by the concept's type.
    proposed: dict[str, bool] = {}
    for entity in record.entities:
        key = key_of[entity.id]
        proposed[key] = proposed.get(key, False) or entity.proposed
    triples: list[Triple] = []
    for key, proposes in proposed.items():
        node = entity_iri(key)
        triples.append((paper, KG.mentions, node))
        link = KG.proposes if proposes else _PAPER_LINK_BY_TYPE.get(concepts[key].type)
        if link is not None:
            triples.append((paper, link, node))
    return triples


def _statements(paper: URIRef, relations: tuple[Relation, ...], key_of: dict[str, str]) -> list[Triple]:
    # One statement per paper, triple and sentence: two mention pairs of one sentence that state the
    # same relation make one statement, with the higher confidence.
    strongest: dict[str, tuple[URIRef, URIRef, URIRef, Relation]] = {}
    for relation in relations:
        subject_key, object_key = key_of.get(relation.subject), key_of.get(relation.object)
        if subject_key is None or object_key is None or subject_key == object_key:
            continue
        subject, obj = entity_iri(subject_key), entity_iri(object_key)
        predicate = KG[relation.predicate]
        key = _statement_key(paper, subject, predicate, obj, relation.evidence)
        if key not in strongest or strongest[key][3].confidence < relation.confidence:
            strongest[key] = (subject, predicate, obj, relation)
    triples: list[Triple] = []
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
            (statement, KG.confidence, confidence_literal(relation.confidence)),
        ]
        if relation.scierc:
            triples.append((statement, KG.sciercLabel, Literal(relation.scierc)))
    return triples


def confidence_literal(value: float) -> Literal:
    """``value`` rounded to 3 decimals, as an ``xsd:decimal`` in canonical form (as Oxigraph stores it).

    Examples
    --------
    >>> [str(confidence_literal(v)) for v in (0.81234, 1.0, 0.5, 0.0)]
    ['0.812', '1', '0.5', '0']
    """
    text = format(Decimal(str(round(value, 3))).normalize(), "f")
    return Literal(text, datatype=XSD.decimal)


def _statement_key(*parts: object) -> str:
    # One statement per paper, triple and sentence: rebuilding gives the same IRI.
    return hashlib.sha1("\u001f".join(str(p) for p in parts).encode()).hexdigest()[:20]
