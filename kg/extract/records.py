"""What extraction produces: plain, immutable records with no RDF in them.

They are the contract between extraction (which may run in worker processes) and the
single writer that turns them into triples, and they serialise to the ``kg extract``
JSON lines of DESIGN.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kg.normalize import fold

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


def merge_records(parts: Sequence[tuple[int, DocumentRecord]]) -> DocumentRecord:
    """One document's record from the records of its passages, each given with the offset at which its
    passage starts in the document's text (see :func:`kg.extract.pipeline.passages`).

    An entity of several passages (the same id) is one entity: its mentions from all of them, the type
    most of its mentions have (the first passage's on a tie), the first passage's label, every other
    form as an alias, proposed if any passage proposes it. Offsets are moved to the whole text.

    Examples
    --------
    >>> a = DocumentRecord("p", "a.txt:1", entities=(Entity("clip", "CLIP", "Method", mentions=(Mention(0, 4, "C"),)),))
    >>> clip = Entity("clip", "Clip", "Dataset", proposed=True, mentions=(Mention(2, 6, "C"), Mention(9, 13, "C")))
    >>> b = DocumentRecord("p", "a.txt:1", entities=(clip,),
    ...                    relations=(Relation("clip", "usedFor", "x", (2, 6), (9, 13), "Clip for x.", 0.7),))
    >>> merged = merge_records([(0, a), (100, b)])
    >>> entity = merged.entities[0]
    >>> entity.type, entity.proposed, [m.start for m in entity.mentions]
    ('Dataset', True, [0, 102, 109])
    >>> merged.relations[0].subject_span
    (102, 106)
    """
    first = parts[0][1]
    order: list[str] = []
    found: dict[str, list[Entity]] = {}
    mentions: dict[str, list[Mention]] = {}
    relations: list[Relation] = []
    for offset, record in parts:
        for entity in record.entities:
            if entity.id not in found:
                order.append(entity.id)
            found.setdefault(entity.id, []).append(entity)
            mentions.setdefault(entity.id, []).extend(
                Mention(m.start + offset, m.end + offset, m.text) for m in entity.mentions
            )
        relations += [
            Relation(
                subject=r.subject,
                predicate=r.predicate,
                object=r.object,
                subject_span=(r.subject_span[0] + offset, r.subject_span[1] + offset),
                object_span=(r.object_span[0] + offset, r.object_span[1] + offset),
                evidence=r.evidence,
                confidence=r.confidence,
                scierc=r.scierc,
            )
            for r in record.relations
        ]
    entities = []
    for key in order:
        versions = found[key]
        votes = Counter()
        for version in versions:
            votes[version.type] += max(1, len(version.mentions))
        entity_type = max(votes, key=lambda t: (votes[t], -[v.type for v in versions].index(t)))
        label = versions[0].label
        aliases = {}
        for form in (alias for version in versions for alias in (version.label, *version.aliases)):
            if fold(form) != fold(label):
                aliases.setdefault(fold(form), form)
        entities.append(
            Entity(
                id=key,
                label=label,
                type=entity_type,
                aliases=tuple(aliases.values()),
                proposed=any(version.proposed for version in versions),
                mentions=tuple(mentions[key]),
                scierc=versions[0].scierc,
            )
        )
    return DocumentRecord(
        id=first.id, source=first.source, title=first.title, entities=tuple(entities), relations=tuple(relations)
    )
