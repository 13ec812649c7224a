"""Naming concepts: the one lookup of an entity by IRI, label or alias, with "did you mean" for near misses.

Every command (``kg describe``, ``kg path``, ``kg neighbors``, ..., the shell's dot-commands and the
Python API) resolves a name through :meth:`LabelIndex.lookup`, with one rule: an IRI (``entity:clip``,
``kgr:entity/clip``, ``<...>``) names its entity; otherwise an exact label comes before an exact
alias, which comes before a folded form (case, hyphens, plural and a leading article ignored,
:func:`kg.normalize.fold`). Among the entities that match at the first of these levels that has
any, the one more papers mention wins; when there were several, the :class:`NameChoice` says which
was taken and which were not (:meth:`NameChoice.note`), and the front end shows it.

Examples
--------
>>> from kg.rdf import entity_iri
>>> clip, arp = str(entity_iri("clip")), str(entity_iri("adaptive-return-conditioned-policy"))
>>> index = LabelIndex([(clip, "CLIP", (), 17), (arp, "Adaptive Return-conditioned Policy", ("ARP",), 1)])
>>> index.resolve("arp") == arp
True
>>> index.resolve("entity:clip") == index.resolve("kgr:entity/clip") == index.resolve("clip") == clip
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
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.errors import EntityNotFoundError, UsageError
from kg.explore.phrases import plural
from kg.namespace import expand_name, prefixed_name
from kg.normalize import contains_words, fold
from kg.store.queries import ENTITIES, MENTION_COUNTS, one_per_entity
from kg.store.select import select_strings

if TYPE_CHECKING:
    from kg.store import Store

OTHERS_NAMED = 3
"""The entities not taken that a note names; the rest are counted."""

LEVELS = ("iri", "label", "alias", "folded")
"""How a name can match an entity, best first."""


@dataclass(frozen=True)
class Candidate:
    """An entity a name matches: its IRI, label and the number of papers that mention it."""

    iri: str
    label: str
    papers: int

    def __str__(self) -> str:
        return f"{self.label} ({prefixed_name(self.iri)}, {plural(self.papers, 'paper')})"


@dataclass(frozen=True)
class NameChoice:
    """The entity a name was taken to mean (``chosen``), how it matched (one of :data:`LEVELS`),
    and the ``others`` it matches as well at that level, best first."""

    name: str
    chosen: Candidate
    match: str
    others: tuple[Candidate, ...] = ()

    @property
    def iri(self) -> str:
        return self.chosen.iri

    def note(self) -> str | None:
        """What to tell the user when the name was ambiguous; None when it was not.

        Examples
        --------
        >>> a, b = Candidate("e:nsl", "Scaling Law", 22), Candidate("e:sl", "scaling-law", 1)
        >>> print(NameChoice("scaling law", a, "folded", (b,)).note())
        'scaling law' names 2 entities; using Scaling Law (<e:nsl>, 22 papers); others: scaling-law (<e:sl>, 1 paper)
        >>> NameChoice("CLIP", a, "label").note() is None
        True
        """
        if not self.others:
            return None
        named = ", ".join(str(other) for other in self.others[:OTHERS_NAMED])
        if len(self.others) > OTHERS_NAMED:
            named += f" and {len(self.others) - OTHERS_NAMED} more"
        return f"{self.name!r} names {len(self.others) + 1} entities; using {self.chosen}; others: {named}"


def notes_of(*choices: NameChoice) -> tuple[str, ...]:
    """The notes of the ambiguous ones among ``choices``, for a report to carry."""
    return tuple(note for choice in choices if (note := choice.note()))


class LabelIndex:
    """Entities by IRI, label and alias: the one place a name becomes an entity (see the module's rule).

    Parameters
    ----------
    entries : iterable of tuple
        ``(iri, label, aliases, papers)`` for each entity, ``papers`` the number of papers that
        mention it.
    """

    def __init__(self, entries: Iterable[tuple[str, str, Iterable[str], int]]) -> None:
        self.labels: dict[str, str] = {}  # IRI -> label
        self.papers: dict[str, int] = {}
        self._aliases: dict[str, tuple[str, ...]] = {}
        self._by_label: dict[str, list[str]] = {}
        self._by_alias: dict[str, list[str]] = {}
        self._folded: tuple[dict[str, list[str]], dict[str, list[str]], dict[str, str]] | None = None
        for iri, label, aliases, papers in entries:
            self.labels[iri] = label
            self.papers[iri] = int(papers)
            self._aliases[iri] = tuple(aliases)
            self._by_label.setdefault(label, []).append(iri)
            for alias in self._aliases[iri]:
                self._by_alias.setdefault(alias, []).append(iri)

    @classmethod
    def from_store(cls, store: Store) -> LabelIndex:
        """The entities of ``store`` (as a projection lists them: :mod:`kg.explore.projection`), with
        the number of papers that mention each."""
        papers = {iri: int(count) for iri, count in select_strings(store, MENTION_COUNTS)}
        return cls(
            (iri, label, aliases, papers.get(iri, 0))
            for iri, label, _, aliases in one_per_entity(select_strings(store, ENTITIES))
        )

    def lookup(self, name: str) -> NameChoice:
        """The entity ``name`` names, by the module's rule, and the others it could name.

        Raises
        ------
        EntityNotFoundError
            When no entity has that name; the message suggests near misses.
        UsageError
            When ``name`` is blank.

        Examples
        --------
        >>> index = LabelIndex([("e:sl", "scaling-law", (), 1), ("e:nsl", "Scaling Law", ("scaling laws",), 22)])
        >>> [(index.lookup(n).iri, index.lookup(n).match) for n in ("scaling-law", "Scaling Law", "scaling laws")]
        [('e:sl', 'label'), ('e:nsl', 'label'), ('e:nsl', 'alias')]
        >>> choice = index.lookup("scaling law")
        >>> choice.iri, choice.match, [other.iri for other in choice.others]
        ('e:nsl', 'folded', ['e:sl'])
        """
        if not name.strip():
            raise UsageError("name an entity: its label, an alias or its IRI (entity:...)")
        found = self._match(name)
        if found is None:
            raise EntityNotFoundError(name.strip(), suggestions=self.suggest(name))
        level, (best, *others) = found
        return NameChoice(name.strip(), self._candidate(best), level, tuple(self._candidate(o) for o in others))

    def resolve(self, name: str) -> str:
        """The IRI of the entity ``name`` names (:meth:`lookup`)."""
        return self.lookup(name).iri

    def candidates(self, name: str) -> list[str]:
        """The entities ``name`` matches at its best level, best first (empty when none)."""
        found = self._match(name)
        return [] if found is None else found[1]

    def suggest(self, name: str, *, limit: int = 3) -> list[str]:
        """Names close to ``name``, for "did you mean": near spellings, then the labels that contain
        it as whole words (most papers first), else labels that begin with it or have a word that does.

        Examples
        --------
        >>> index = LabelIndex([("e:gm", "goal misgeneralization", (), 3), ("e:m", "misgeneralization", (), 1)])
        >>> index.suggest("goal misgeneralisation")[0], index.suggest("misgen")
        ('goal misgeneralization', ['misgeneralization', 'goal misgeneralization'])
        >>> index = LabelIndex([("e:cf", "catastrophic forgetting", (), 12), ("e:fi", "forgetting issue", (), 1)])
        >>> index.suggest("forgetting")
        ['forgetting issue', 'catastrophic forgetting']
        """
        labels, aliases, alias_text = self._fold_tables()
        key = fold(name)
        close = difflib.get_close_matches(key, list(labels) + list(aliases), n=limit, cutoff=0.75)
        names = [self.labels[self._ranked(labels[f])[0]] if f in labels else alias_text[f] for f in close]
        containing = self._ranked(iri for iri, label in self.labels.items() if contains_words(label, name))
        names += [self.labels[iri] for iri in containing]
        return list(dict.fromkeys(names))[:limit] or _labels_starting(self.labels.values(), name, limit)

    # ---- helpers

    def _match(self, name: str) -> tuple[str, list[str]] | None:
        text = name.strip()
        iri = expand_name(text)
        if iri is not None and iri in self.labels:
            return "iri", [iri]
        if text in self._by_label:
            return "label", self._ranked(self._by_label[text])
        if text in self._by_alias:
            return "alias", self._ranked(self._by_alias[text])
        labels, aliases, _ = self._fold_tables()
        key = fold(text)
        found = labels.get(key, []) + aliases.get(key, [])
        return ("folded", self._ranked(found)) if found else None

    def _ranked(self, iris: Iterable[str]) -> list[str]:
        return sorted(set(iris), key=lambda iri: (-self.papers[iri], len(iri), iri))

    def _candidate(self, iri: str) -> Candidate:
        return Candidate(iri, self.labels[iri], self.papers[iri])

    def _fold_tables(self) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, str]]:
        # Folding every label takes a tenth of a second at 50k entities: done once, and only when
        # a name is not a label as written.
        if self._folded is None:
            labels: dict[str, list[str]] = {}
            aliases: dict[str, list[str]] = {}
            alias_text: dict[str, str] = {}  # folded alias -> the alias as written
            for iri, label in self.labels.items():
                labels.setdefault(fold(label), []).append(iri)
                for alias in self._aliases[iri]:
                    aliases.setdefault(fold(alias), []).append(iri)
                    alias_text.setdefault(fold(alias), alias)
            self._folded = (labels, aliases, alias_text)
        return self._folded


def _labels_starting(labels: Iterable[str], name: str, limit: int = 3) -> list[str]:
    """Labels that begin with ``name`` or have a word that does, shortest first.

    Examples
    --------
    >>> _labels_starting(["goal misgeneralization", "CLIP", "misgeneralization"], "misgen")
    ['misgeneralization', 'goal misgeneralization']
    """
    key = " ".join(name.lower().split())
    if not key:
        return []
    starts, words = [], []
    for label in dict.fromkeys(labels):
        folded = label.lower()
        if folded.startswith(key):
            starts.append(label)
        elif f" {key}" in f" {folded.replace('-', ' ')}":
            words.append(label)
    return sorted(starts, key=len)[:limit] + sorted(words, key=len)[: max(0, limit - len(starts))]
