"""Each paper's extraction record, kept in the store beside the paper's triples.

What extraction said about a paper (its entities with every surface form, its relations with
evidence and confidence) cannot be derived from anything else in the store, and the
entity-level triples of the whole corpus are derived from it (:mod:`kg.build.consolidate`).
So it is written in the same transaction as the paper's triples, as a JSON literal in a named
graph of its own (:data:`kg.namespace.EXTRACTION_GRAPH`) that exports and queries over the
default graph do not see, together with a flag saying that consolidation has not seen it yet.

Examples
--------
>>> from kg.extract.records import DocumentRecord, Entity
>>> record = DocumentRecord("p1", "a.txt:1", entities=(Entity("lora", "LoRA", "Method"),))
>>> quads = record_quads(record)
>>> [str(predicate).rsplit("#", 1)[1] for _, predicate, _, _ in quads]
['record', 'pending']
>>> read_record(quads[0][2]) == DocumentRecord("p1", "", entities=record.entities)
True
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rdflib import Literal, URIRef

from kg.extract.records import DocumentRecord
from kg.namespace import AWAITS_CONSOLIDATION, EXTRACTION_GRAPH, EXTRACTION_RECORD, PREFIXES
from kg.rdf import paper_iri
from kg.store.queries import AWAITING_CONSOLIDATION, EXTRACTION_RECORDS

if TYPE_CHECKING:
    from kg.store import Quad, Store

# Where the document was first read, and its title, are the paper's own triples; left out here,
# the record depends on the text alone, whichever source or build read it first.
_NOT_STORED = ("source", "title")


def record_quads(record: DocumentRecord) -> list[Quad]:
    """The record of one paper, and its flag for consolidation, as quads of the extraction graph."""
    paper, graph = paper_iri(record.id), URIRef(EXTRACTION_GRAPH)
    data = {name: value for name, value in record.to_json().items() if name not in _NOT_STORED}
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return [
        (paper, URIRef(EXTRACTION_RECORD), Literal(text), graph),
        (paper, URIRef(AWAITS_CONSOLIDATION), Literal(True), graph),
    ]


def read_record(literal: object) -> DocumentRecord:
    """The record stored as ``literal`` by :func:`record_quads`."""
    return DocumentRecord.from_json(json.loads(str(literal)))


def stored_records(store: Store) -> Iterator[tuple[str, DocumentRecord]]:
    """Every stored paper's IRI with its record, in no particular order, one at a time (read from the
    store as they are asked for, so that a large corpus streams past)."""
    from kg.store import EmbeddedStore

    if isinstance(store, EmbeddedStore):
        for paper, text in store.ox.query(EXTRACTION_RECORDS, prefixes=dict(PREFIXES)):
            yield paper.value, read_record(text.value)
        return
    from kg.store.select import select_strings

    for paper, text in select_strings(store, EXTRACTION_RECORDS):
        yield str(paper), read_record(text)


def awaiting_consolidation(store: Store) -> bool:
    """Whether some record is not yet reflected in the entity-level triples (a build added papers,
    or was stopped before it consolidated them)."""
    return bool(store.query(AWAITING_CONSOLIDATION).boolean)
