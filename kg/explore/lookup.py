"""Naming concepts: find an entity by label, alias or IRI, with "did you mean" for near misses.

Examples
--------
>>> from kg.rdf import entity_iri
>>> clip, arp = str(entity_iri("clip")), str(entity_iri("adaptive-return-conditioned-policy"))
>>> index = LabelIndex([(clip, "CLIP", ()), (arp, "Adaptive Return-conditioned Policy", ("ARP",))])
>>> index.resolve("arp") == arp
True
>>> index.resolve("kgr:entity/clip") == index.resolve("clip") == clip
True
>>> index.resolve("CLIPP")
Traceback (most recent call last):
...
kg.errors.EntityNotFoundError: no entity named 'CLIPP'; did you mean: CLIP?
>>> index.suggest("ARPP")
['ARP']
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from kg.errors import EntityNotFoundError
from kg.namespace import PREFIXES
from kg.normalize import fold
from kg.store.queries import ENTITIES, one_per_entity
from kg.store.select import select_strings

if TYPE_CHECKING:
    from kg.store import Store


class LabelIndex:
    """Entities by folded label and alias; labels win over aliases, then the shorter IRI."""

    def __init__(self, entries: Iterable[tuple[str, str, Iterable[str]]]) -> None:
        self.labels: dict[str, str] = {}  # IRI -> label
        self._by_label: dict[str, list[str]] = {}
        self._by_alias: dict[str, list[str]] = {}
        self._alias_text: dict[str, str] = {}  # folded alias -> the alias as written
        for iri, label, aliases in entries:
            self.labels[iri] = label
            self._by_label.setdefault(fold(label), []).append(iri)
            for alias in aliases:
                self._by_alias.setdefault(fold(alias), []).append(iri)
                self._alias_text.setdefault(fold(alias), alias)
        for table in (self._by_label, self._by_alias):
            for iris in table.values():
                iris.sort(key=lambda iri: (len(iri), iri))

    @classmethod
    def from_store(cls, store: Store) -> LabelIndex:
        # Entities as a projection lists them (kg.explore.projection), so that where aliases of
        # two entities fold together, the one suggested is the same whichever index answers.
        return cls((iri, label, aliases) for iri, label, _, aliases in one_per_entity(select_strings(store, ENTITIES)))

    def candidates(self, name: str) -> list[str]:
        """Every entity ``name`` may denote, best first (empty when none)."""
        iri = _expand(name.strip())
        if iri in self.labels:
            return [iri]
        key = fold(name)
        found = self._by_label.get(key, []) + self._by_alias.get(key, [])
        return list(dict.fromkeys(found))

    def resolve(self, name: str) -> str:
        """The best entity for ``name``, or :class:`EntityNotFoundError` with suggestions."""
        found = self.candidates(name)
        if found:
            return found[0]
        raise EntityNotFoundError(name, suggestions=self.suggest(name))

    def suggest(self, name: str, *, limit: int = 3) -> list[str]:
        """Labels close to ``name``, for "did you mean"."""
        key = fold(name)
        close = difflib.get_close_matches(key, list(self._by_label) + list(self._by_alias), n=limit, cutoff=0.75)
        names = (self.labels[self._by_label[f][0]] if f in self._by_label else self._alias_text[f] for f in close)
        return list(dict.fromkeys(names))


def _expand(name: str) -> str:
    if name.startswith("<") and name.endswith(">"):
        return name[1:-1]
    prefix, sep, local = name.partition(":")
    if sep and prefix in PREFIXES and not local.startswith("//"):
        return PREFIXES[prefix] + local
    return name
