"""A paper's own triples, from its document. No NLP here (the entity level is :mod:`kg.build.consolidate`).

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

import re
from datetime import date, datetime
from typing import TYPE_CHECKING

from rdflib import Literal
from rdflib.namespace import DCTERMS, RDF, SDO, XSD

from kg.rdf import KG, paper_iri

if TYPE_CHECKING:
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


def _date_literal(value: str) -> Literal:
    """A date as the typed literal of its form (so dates compare and group in SPARQL); one that has a
    form but is no date (month 13) stays a plain literal, as a typed literal must be valid.

    >>> [_date_literal(v).datatype.split("#")[1] for v in ("2021", "2021-06", "2021-06-17", "2021-06-17T10:00:00Z")]
    ['gYear', 'gYearMonth', 'date', 'dateTime']
    >>> [_date_literal(v).datatype for v in ("2021-13", "2021-02-30", "2021-06-17T25:00:00")]
    [None, None, None]
    """
    for form, datatype in _DATE_FORMS:
        if form.fullmatch(value):
            return Literal(value, datatype=datatype) if _is_date(value) else Literal(value)
    return Literal(value)


def _is_date(value: str) -> bool:
    try:
        if len(value) > 10:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        elif len(value) > 4:
            date.fromisoformat(value if len(value) == 10 else value + "-01")
    except ValueError:
        return False
    return True
