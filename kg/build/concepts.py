"""One node per concept: the entities of every paper's record, merged into the corpus's entities.

Within a paper, extraction has already grouped the surface forms of a concept into one entity
(whose ``id`` is a folded key) and tied each acronym to the long form the paper defines. Across
papers:

- entities with the same key, or whose labels fold alike (:func:`kg.normalize.fold`), are one
  concept, so no two concepts share a folded label;
- an acronym the corpus defines for one concept only ("LoRA", an alias of "Low-Rank Adaptation")
  joins that concept wherever a paper uses it alone; an acronym defined for two concepts ("SAM":
  Segment Anything Model, Sharpness-Aware Minimization) joins neither, so a paper that uses it
  undefined keeps a node of its own for it;
- a concept's type is the majority over its mentions in every paper, its label the name most papers
  give it, its key (the IRI) the key most papers give it; each tie is broken by a fixed order.

The result depends on the set of records only, not on their order or on how builds split them.

Examples
--------
>>> from kg.extract.records import Entity, Mention
>>> def entity(key, label, kind, aliases=(), mentions=1):
...     return Entity(key, label, kind, tuple(aliases), mentions=(Mention(0, 1, label),) * mentions)
>>> found = find_concepts({
...     "p1": [entity("low-rank-adaptation", "Low-Rank Adaptation", "Method", ["LoRA"])],
...     "p2": [entity("lora", "LoRA", "Task")],
...     "p3": [entity("lora", "LoRA", "Method", mentions=2)],
... })
>>> [(c.key, c.label, c.type, c.aliases) for c in found.concepts.values()]
[('lora', 'LoRA', 'Method', ('Low-Rank Adaptation',))]
>>> found.key_of["p1", "low-rank-adaptation"]
'lora'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kg.extract.records import Entity
from kg.namespace import ENTITY_TYPES
from kg.normalize import entity_key, fold

# Names in one partition: an entity key, or a folded surface form.
_KEY, _FORM = "key\u001f", "form\u001f"


@dataclass(frozen=True)
class Concept:
    """One entity of the corpus."""

    key: str
    label: str
    type: str
    aliases: tuple[str, ...]  # every other surface form, sorted


@dataclass(frozen=True)
class Concepts:
    """The corpus's concepts by key, and the concept each paper's entity belongs to."""

    concepts: dict[str, Concept]  # by key, in order of key
    key_of: dict[tuple[str, str], str]  # (paper, the entity's id in that paper's record) -> concept key


def find_concepts(records: Mapping[str, Sequence[Entity]]) -> Concepts:
    """The concepts of the entities of ``records`` (each paper's entities, by paper)."""
    members = [(paper, entity) for paper in sorted(records) for entity in records[paper]]
    names = _Partition()
    for _, entity in members:
        names.union(_KEY + entity.id, _FORM + fold(entity.label))
    # Each round of joins may merge two concepts that define the same acronym, which can make
    # another acronym unambiguous: repeat until nothing changes (joins only ever merge).
    while True:
        merged = [names.union(short, concept) for short, concept in _acronym_joins(members, names)]
        if not any(merged):
            break
    groups: dict[str, list[Entity]] = {}
    for _, entity in members:
        groups.setdefault(names.find(_KEY + entity.id), []).append(entity)
    concept_of_root = {root: _concept(entities) for root, entities in groups.items()}
    key_of = {(paper, entity.id): concept_of_root[names.find(_KEY + entity.id)].key for paper, entity in members}
    concepts = {concept.key: concept for concept in sorted(concept_of_root.values(), key=lambda c: c.key)}
    return Concepts(concepts=concepts, key_of=key_of)


def is_acronym(text: str) -> bool:
    """Whether ``text`` reads as an acronym: one word with at least two capitals.

    Examples
    --------
    >>> is_acronym("LoRA"), is_acronym("ViT"), is_acronym("Transformer"), is_acronym("SAM 2")
    (True, True, False, False)
    """
    return " " not in text and sum(ch.isupper() for ch in text) >= 2


def _acronym_joins(members: Iterable[tuple[str, Entity]], names: _Partition) -> list[tuple[str, str]]:
    """(acronym, the one concept defining it) for each acronym that only one concept defines."""
    defined_by: dict[str, set[str]] = {}
    for _, entity in members:
        for alias in entity.aliases:
            if is_acronym(alias):
                defined_by.setdefault(fold(alias), set()).add(names.find(_KEY + entity.id))
    return [(_FORM + short, roots.pop()) for short, roots in sorted(defined_by.items()) if len(roots) == 1]


def _concept(entities: Sequence[Entity]) -> Concept:
    """One concept from the entities of every paper that names it."""
    label = _label(entities)
    label_fold = fold(label)
    forms = {text for entity in entities for text in (entity.label, *entity.aliases) if fold(text) != label_fold}
    return Concept(key=_key(entities, label), label=label, type=_type(entities), aliases=tuple(sorted(forms)))


def _label(entities: Sequence[Entity]) -> str:
    # Each paper's entity votes for the name the paper gives it (a long form where it defines an acronym).
    # Spellings that fold alike pool their votes; a tie goes to the longer, more descriptive name.
    votes = Counter(entity.label for entity in entities)
    by_fold: dict[str, Counter[str]] = {}
    for text, count in votes.items():
        by_fold.setdefault(fold(text), Counter())[text] += count
    best = min(by_fold, key=lambda f: (-sum(by_fold[f].values()), -len(f), f))
    return min(by_fold[best], key=lambda text: (-by_fold[best][text], text))


def _type(entities: Sequence[Entity]) -> str:
    # A vote per mention; ties go to the type more papers gave, then to the order of ENTITY_TYPES.
    mentions, papers = Counter[str](), Counter[str]()
    for entity in entities:
        mentions[entity.type] += max(1, len(entity.mentions))
        papers[entity.type] += 1
    order = {name: index for index, name in enumerate(ENTITY_TYPES)}
    return min(mentions, key=lambda t: (-mentions[t], -papers[t], order.get(t, len(order)), t))


def _key(entities: Sequence[Entity], label: str) -> str:
    # The key most papers gave; on a tie, the one the label reads as, so that the IRI names it.
    counts = Counter(entity.id for entity in entities)
    own = entity_key(label)
    return min(counts, key=lambda key: (-counts[key], key != own, key))


class _Partition:
    """Union-find over names; the root of a set is its smallest name, so merges are order-free."""

    def __init__(self) -> None:
        self._parent: dict[str, str] = {}

    def find(self, name: str) -> str:
        root = self._parent.setdefault(name, name)
        while self._parent[root] != root:
            root = self._parent[root]
        while name != root:  # point the whole path at the root
            self._parent[name], name = root, self._parent[name]
        return root

    def union(self, a: str, b: str) -> bool:
        """Merge the sets of ``a`` and ``b``; whether they were apart."""
        root_a, root_b = self.find(a), self.find(b)
        if root_a == root_b:
            return False
        low, high = sorted((root_a, root_b))
        self._parent[high] = low
        return True
