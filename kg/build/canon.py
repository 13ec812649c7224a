"""Corpus-level merging: one concept, one entity, across papers and across builds.

Within a document, extraction has already folded case, hyphens, plurals and articles
and tied each acronym to its long form (the entity's ``id`` is that folded key). Here
the per-document entities meet the corpus: an entity whose key is known keeps the
known type and label; an undefined acronym ("ARP" alone) joins the one entity that
defined it elsewhere, and stays separate when two papers defined it differently.

Examples
--------
>>> from kg.extract.records import Entity
>>> registry = Registry()
>>> first = registry.resolve(Entity(id="adaptive-return-conditioned-policy",
...     label="Adaptive Return-conditioned Policy", type="Method", aliases=("ARP",)))
>>> first.key, first.is_new
('adaptive-return-conditioned-policy', True)
>>> later = registry.resolve(Entity(id="arp", label="ARP", type="Task"))
>>> later.key, later.type, later.is_new
('adaptive-return-conditioned-policy', 'Method', False)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kg.extract.records import Entity
from kg.normalize import entity_key, fold


@dataclass(frozen=True)
class Resolved:
    """Where one document's entity lands in the corpus."""

    key: str
    type: str
    label: str
    is_new: bool
    aliases: tuple[str, ...]  # surface forms to record as alternative labels


@dataclass
class _Known:
    type: str
    label: str


@dataclass
class Registry:
    """The corpus's entities by key, and which keys each short form (acronym) points to."""

    entities: dict[str, _Known] = field(default_factory=dict)
    short_forms: dict[str, set[str]] = field(default_factory=dict)

    def add_known(self, key: str, entity_type: str, label: str, aliases: tuple[str, ...] = ()) -> None:
        """Register an entity already in the store."""
        self.entities.setdefault(key, _Known(entity_type, label))
        for alias in aliases:
            self._note_short_form(alias, key)

    def resolve(self, entity: Entity) -> Resolved:
        """Map a document's entity to its corpus entity, registering it when new."""
        key = self._key_for(entity)
        known = self.entities.get(key)
        is_new = known is None
        if is_new:
            known = self.entities[key] = _Known(entity.type, entity.label)
        for alias in entity.aliases:
            self._note_short_form(alias, key)
        label_fold = fold(known.label)
        forms = {fold(text): text for text in (entity.label, *entity.aliases) if fold(text) != label_fold}
        return Resolved(
            key=key, type=known.type, label=known.label, is_new=is_new, aliases=tuple(sorted(forms.values()))
        )

    def _key_for(self, entity: Entity) -> str:
        key = entity.id or entity_key(entity.label)
        if key in self.entities or entity.aliases:
            return key
        # An acronym used without its definition joins the one entity that defined it.
        targets = self.short_forms.get(fold(entity.label), set())
        if len(targets) == 1:
            return next(iter(targets))
        return key

    def _note_short_form(self, alias: str, key: str) -> None:
        if _is_acronym(alias):
            self.short_forms.setdefault(fold(alias), set()).add(key)


def _is_acronym(text: str) -> bool:
    return " " not in text and sum(ch.isupper() for ch in text) >= 2
