"""What extraction produces: plain, immutable records with no RDF in them.

They are the contract between extraction (which may run in worker processes) and the
single writer that turns them into triples, and they serialise to the ``kg extract``
JSON lines of DESIGN.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Where the relation components (``kg_relations``, ``kg_scierc``) leave a Doc's relations: plain
# tuples (subject start, subject end, predicate, object start, object end, SciERC label, confidence)
# over token offsets, so that they travel with the Doc between worker processes.
RELATIONS_KEY = "kg_relations"


@dataclass(frozen=True)
class Mention:
    """One occurrence of an entity: character offsets into the document text (end exclusive)."""

    start: int
    end: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "text": self.text}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Mention:
        return cls(data["start"], data["end"], data["text"])


@dataclass(frozen=True)
class Entity:
    """One concept of one document, with every surface form it takes there."""

    id: str
    label: str
    type: str
    aliases: tuple[str, ...] = ()
    proposed: bool = False
    mentions: tuple[Mention, ...] = ()
    scierc: str | None = None  # the SciERC type, from the ``scierc`` profile only

    def to_json(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "label": self.label,
            "type": self.type,
            "aliases": list(self.aliases),
            "proposed": self.proposed,
            "mentions": [m.to_json() for m in self.mentions],
        }
        if self.scierc is not None:
            out["scierc"] = self.scierc
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entity:
        return cls(
            id=data["id"],
            label=data["label"],
            type=data["type"],
            aliases=tuple(data.get("aliases", ())),
            proposed=bool(data.get("proposed", False)),
            mentions=tuple(Mention.from_json(m) for m in data.get("mentions", ())),
            scierc=data.get("scierc"),
        )


@dataclass(frozen=True)
class Relation:
    """A typed, directed link between two entities of a document, with the sentence that states it."""

    subject: str
    predicate: str
    object: str
    subject_span: tuple[int, int]
    object_span: tuple[int, int]
    evidence: str
    confidence: float
    scierc: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "subject_span": list(self.subject_span),
            "object_span": list(self.object_span),
            "scierc": self.scierc,
            "evidence": self.evidence,
            "confidence": round(self.confidence, 3),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Relation:
        return cls(
            subject=data["subject"],
            predicate=data["predicate"],
            object=data["object"],
            subject_span=tuple(data["subject_span"]),
            object_span=tuple(data["object_span"]),
            evidence=data["evidence"],
            confidence=data["confidence"],
            scierc=data.get("scierc"),
        )


@dataclass(frozen=True)
class DocumentRecord:
    """Everything extracted from one document."""

    id: str
    source: str
    title: str | None = None
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source": self.source,
            "title": self.title,
            "entities": [e.to_json() for e in self.entities],
            "relations": [r.to_json() for r in self.relations],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DocumentRecord:
        """The record that :meth:`to_json` gave ``data``.

        Examples
        --------
        >>> record = DocumentRecord("p1", "a.txt:1", entities=(Entity("lora", "LoRA", "Method"),))
        >>> DocumentRecord.from_json(record.to_json()) == record
        True
        """
        return cls(
            id=data["id"],
            source=data.get("source", ""),
            title=data.get("title"),
            entities=tuple(Entity.from_json(e) for e in data.get("entities", ())),
            relations=tuple(Relation.from_json(r) for r in data.get("relations", ())),
        )
