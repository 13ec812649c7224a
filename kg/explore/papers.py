"""`kg paper ID`: one paper with its title (or opening words), abstract, where it was read, the
entities it proposes and mentions, and the relations it states with their sentences.

A paper is named by its IRI (``paper:b4b800…``, ``kgr:paper/…``, ``<https://…>``), its document
id, or the start of its id (:data:`MIN_PREFIX` characters or more, beginning one id only).

Examples
--------
>>> headline(None, "We study grokking in small transformers. It appears late.")
'We study grokking in small transformers.'
>>> headline("Grokking", "We study grokking."), headline(None, "word " * 30, width=24)
('Grokking', 'word word word word…')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import unquote

from kg.errors import PaperNotFoundError, UsageError
from kg.namespace import PAPER_NAMESPACE, expand_name, local_name, ontology_iri
from kg.store.queries import PAPER_ENTITIES, PAPER_FIELDS, PAPER_STATEMENTS, PAPERS_BY_ID_START

if TYPE_CHECKING:
    from kg.store import Store

MIN_PREFIX = 6
"""The fewest characters of an id that name a paper by its start (an id itself may be shorter)."""

HEADLINE = 100
"""The longest headline (title or opening words) in characters."""

LISTED = 10
"""The papers an ambiguous start of an id is said to begin; :data:`~kg.store.queries.PAPERS_BY_ID_START`
returns one more, to tell that there are more."""


@dataclass(frozen=True)
class PaperEntity:
    """An entity the paper mentions, and how the paper links to it: ``proposes``, ``uses``,
    ``evaluatesOn``, ``studies`` or (no more than that) ``mentions``."""

    iri: str
    label: str
    type: str
    link: str

    def to_json(self) -> dict[str, object]:
        return {"label": self.label, "type": self.type, "iri": self.iri, "link": self.link}


@dataclass(frozen=True)
class PaperRelation:
    """A relation the paper states: the labels and IRIs of its ends, the sentence and its confidence."""

    subject: str
    predicate: str
    object: str
    subject_iri: str
    object_iri: str
    evidence: str | None
    confidence: float | None

    def to_json(self) -> dict[str, object]:
        return {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "evidence": self.evidence,
            "confidence": self.confidence,
        }


@dataclass(frozen=True)
class PaperReport:
    """One paper: what it records of itself, its entities (proposed ones first) and its relations,
    in the order the abstract states them."""

    iri: str
    id: str | None
    title: str | None
    abstract: str
    sources: tuple[str, ...] = ()
    date: str | None = None
    authors: tuple[str, ...] = ()
    url: str | None = None
    entities: tuple[PaperEntity, ...] = field(default=())
    relations: tuple[PaperRelation, ...] = field(default=())

    @property
    def headline(self) -> str:
        """The title, else the opening words of the abstract."""
        return headline(self.title, self.abstract)

    @property
    def proposes(self) -> tuple[PaperEntity, ...]:
        return tuple(e for e in self.entities if e.link == "proposes")

    @property
    def mentions(self) -> tuple[PaperEntity, ...]:
        """The entities it mentions without proposing them."""
        return tuple(e for e in self.entities if e.link != "proposes")

    def to_json(self) -> dict[str, object]:
        return {
            "iri": self.iri,
            "id": self.id,
            "title": self.title,
            "headline": self.headline,
            "date": self.date,
            "authors": list(self.authors),
            "url": self.url,
            "sources": list(self.sources),
            "abstract": self.abstract,
            "proposes": [entity.to_json() for entity in self.proposes],
            "mentions": [entity.to_json() for entity in self.mentions],
            "relations": [relation.to_json() for relation in self.relations],
        }


def headline(title: str | None, abstract: str | None, *, width: int = HEADLINE) -> str:
    """A paper's title, else the first sentence of its abstract, cut at a word to ``width`` characters."""
    text = " ".join(str(title or "").split())
    if not text:
        from kg.explore.evidence import sentences

        opening = sentences(str(abstract or ""))
        text = opening[0] if opening else ""
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"


def names_paper(name: str) -> bool:
    """Whether ``name`` is written as a paper's IRI (``paper:…``, ``kgr:paper/…``, ``<…/paper/…>``)."""
    iri = expand_name(name.strip().rstrip("…"))
    return iri is not None and iri.startswith(PAPER_NAMESPACE)


def find_paper(store: Store, name: str) -> str:
    """The IRI of the paper ``name`` names: its IRI, its id, or the start of its id.

    Raises
    ------
    PaperNotFoundError
        When no paper has that IRI or id, when the start of an id is shorter than
        :data:`MIN_PREFIX`, or when it begins several ids.
    """
    from rdflib import Literal

    given = name.strip()
    text = given.rstrip("…").strip()  # a cited id may be cut short with an ellipsis
    if not text:
        raise UsageError("name a paper: paper:ID, its id, or the start of its id")
    iri = expand_name(text)
    if iri is not None:
        if not iri.startswith(PAPER_NAMESPACE):
            raise PaperNotFoundError(given, reason="a paper's IRI begins with paper:")
        if _fields(store, iri):
            return iri
        text = unquote(iri[len(PAPER_NAMESPACE) :])
    rows = store.query(PAPERS_BY_ID_START, bindings={"start": Literal(text)}).rows
    found = [(str(paper), str(ident)) for paper, ident, _ in rows]
    exact = [paper for paper, ident in found if ident == text]
    if exact:
        return exact[0]
    if not found:
        raise PaperNotFoundError(given)
    if len(text) < MIN_PREFIX:
        raise PaperNotFoundError(given, reason=f"give {MIN_PREFIX} characters or more of an id")
    if len(found) > 1:
        shown = [ident for _, ident in found[:LISTED]]
        raise PaperNotFoundError(given, matches=shown, more=len(found) > LISTED)
    return found[0][0]


def paper_report(store: Store, name: str) -> PaperReport:
    """The paper ``name`` names (see :func:`find_paper`), with its entities and relations."""
    from rdflib import URIRef

    iri = find_paper(store, name)
    fields = _fields(store, iri)
    bound = {"paper": URIRef(iri)}
    links: dict[str, list] = {}
    for _, link, entity, label, entity_type in store.query(PAPER_ENTITIES, bindings=bound).rows:
        entry = links.setdefault(str(entity), [str(label), local_name(entity_type), set()])
        entry[2].add(local_name(link))
    entities = sorted(
        (PaperEntity(iri_, label, kind, _strongest(found)) for iri_, (label, kind, found) in links.items()),
        key=lambda e: (e.link != "proposes", e.label.lower(), e.iri),
    )
    abstract = _first(fields, "abstract") or ""
    relations = sorted(
        {
            PaperRelation(
                str(s_label),
                local_name(predicate),
                str(o_label),
                str(s),
                str(o),
                None if evidence is None else str(evidence),
                None if confidence is None else float(confidence.toPython()),
            )
            for _, s, s_label, predicate, o, o_label, evidence, confidence in store.query(
                PAPER_STATEMENTS, bindings=bound
            ).rows
        },
        key=lambda r: (_position(abstract, r.evidence), r.subject.lower(), r.predicate, r.object.lower()),
    )
    return PaperReport(
        iri=iri,
        id=_first(fields, "identifier"),
        title=_first(fields, "title"),
        abstract=abstract,
        sources=tuple(fields.get("sourceLocation", ())),
        date=_first(fields, "date"),
        authors=tuple(fields.get("creator", ())),
        url=_first(fields, "url"),
        entities=tuple(entities),
        relations=tuple(relations),
    )


# ---- helpers

_LINK_ORDER = ("proposes", "uses", "evaluatesOn", "studies", "mentions")


def _strongest(links: set[str]) -> str:
    return next((link for link in _LINK_ORDER if link in links), "mentions")


def _fields(store: Store, iri: str) -> dict[str, list[str]]:
    """The paper's fields by local name (empty when ``iri`` is not a paper)."""
    from rdflib import URIRef

    fields: dict[str, list[str]] = {}
    for _, name, value in store.query(PAPER_FIELDS, bindings={"paper": URIRef(iri)}).rows:
        fields.setdefault(local_name(name), []).append(str(value))
    return fields if ontology_iri("Paper") in fields.get("type", ()) else {}


def _first(fields: dict[str, list[str]], name: str) -> str | None:
    values = fields.get(name)
    return values[0] if values else None


def _position(abstract: str, sentence: str | None) -> int:
    at = abstract.find(sentence) if sentence else -1
    return at if at >= 0 else len(abstract)
