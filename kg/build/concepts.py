"""One node per concept: the entities of every paper's record, merged into the corpus's entities.

Within a paper, extraction has already grouped the surface forms of a concept into one entity
(whose ``id`` is a folded key) and tied each acronym to the long form the paper defines. Across
papers:

- entities with the same key, or whose labels fold alike (:func:`kg.normalize.fold`), are one
  concept, so no two concepts share a folded label; so are labels that differ only in where words are
  split ("CIFAR-10" and "CIFAR10", "ResNet-50" and "ResNet50", "Tiny ImageNet" and "TinyImageNet",
  "trade-off" and "tradeoff"), which folding keeps apart so that keys stay readable;
- an acronym the corpus defines for one concept only ("LoRA", an alias of "Low-Rank Adaptation")
  joins that concept wherever a paper uses it alone; an acronym defined for two concepts ("SAM":
  Segment Anything Model, Sharpness-Aware Minimization) joins neither, so a paper that uses it
  undefined keeps a node of its own for it; two long forms that spell one name ("large language models"
  and "large pre-trained language models" for LLMs, "test-time adaptation" and "test-time adaption" for
  TTA) are one concept, not two;
- a name with an acronym in it joins the name spelled out where the corpus has it ("CoT prompting" is
  "chain-of-thought prompting");
- a name that defines an acronym inside it is the name without the definition, spelled out or short
  ("holistic robust (HR) training" is "holistic robust training" and, where the corpus has it, "HR
  training");
- a name that only adds a trailing category word to another name of the same type joins it ("GLUE
  benchmark" is GLUE, "regularization techniques" regularization, "domain shift problem" domain shift),
  as the guidelines cut names; of another type it stays apart ("retrieval models", a Method, is not the
  task "retrieval");
- a concept's type is the majority over its mentions in every paper, its label the name most papers
  give it (with TeX markup read as the text it typesets: "Poincar\\'e" is "Poincaré"), its aliases one
  spelling of each other name, its key (the IRI) the key most papers give it; each tie is broken by a
  fixed order.

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
>>> found.key_of["low-rank-adaptation"]
'lora'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kg.extract.acronyms import find_definitions
from kg.extract.records import Entity
from kg.namespace import ENTITY_TYPES
from kg.normalize import entity_key, fold, plain_name

# Names in one partition: an entity key, a folded surface form, or one with no spaces or quotes left.
_KEY, _FORM, _UNSPLIT = "key\u001f", "form\u001f", "unsplit\u001f"
_SPLITS = str.maketrans("", "", " '\"")

CATEGORY_WORDS = frozenset(
    {
        *("method", "technique", "framework", "algorithm", "approach", "strategy", "scheme"),
        *("architecture", "model", "network", "module"),
        *("dataset", "benchmark", "corpus"),
        *("task", "problem", "phenomenon", "metric", "score", "measure"),
    }
)
"""Trailing words (folded: singular, lower case) that say what kind of thing a name is: "X benchmark" is
the concept X where the corpus names X so and with the same type. Not "loss", "learning" or "prompting",
which make a name of their own ("CLIP loss", "supervised learning")."""


@dataclass(frozen=True)
class Concept:
    """One entity of the corpus."""

    key: str
    label: str
    type: str
    aliases: tuple[str, ...]  # one spelling of every other name (names that fold alike are one), sorted


@dataclass(frozen=True)
class Concepts:
    """The corpus's concepts by key, and the concept each entity (by its ``id`` in the records) belongs to."""

    concepts: dict[str, Concept]  # by key, in order of key
    key_of: dict[str, str]  # an entity's id in the records -> its concept's key


class ConceptVotes:
    """What the papers said about each entity id, added paper by paper: all :func:`find_concepts` needs.

    Memory grows with the number of distinct entity ids (and of their names), not with the number
    of papers, so that the records of a large corpus can stream past: ``votes.add(record.entities)``
    for each, then :meth:`concepts`.
    """

    def __init__(self) -> None:
        self._votes: dict[str, _Votes] = {}

    def add(self, entities: Iterable[Entity]) -> None:
        """Count the entities of one paper."""
        for entity in entities:
            votes = self._votes.get(entity.id)
            if votes is None:
                votes = self._votes[entity.id] = _Votes()
            votes.papers += 1
            votes.labels[plain_name(entity.label)] += 1
            votes.aliases.update(map(plain_name, entity.aliases))
            votes.mentions[entity.type] += max(1, len(entity.mentions))
            votes.typed[entity.type] += 1

    def concepts(self) -> Concepts:
        """The concepts of every entity counted so far."""
        votes = self._votes
        names = _Partition()
        for key in sorted(votes):
            for folded in {fold(label) for label in votes[key].labels}:
                names.union(_KEY + key, _FORM + folded)
                names.union(_KEY + key, _UNSPLIT + folded.translate(_SPLITS))
        definitions = _definitions(votes)
        spelling = _with_inline_definitions(votes, definitions, names)
        for name, concept in (*_spelled_out_joins(votes, spelling, names), *_category_joins(votes)):
            names.union(name, concept)
        # Each round of joins may merge two concepts that define the same acronym, which can make
        # another acronym unambiguous: repeat until nothing changes (joins only ever merge).
        while True:
            if not any([names.union(short, concept) for short, concept in _acronym_joins(definitions, names)]):
                break
        groups: dict[str, list[str]] = {}
        for key in sorted(votes):
            groups.setdefault(names.find(_KEY + key), []).append(key)
        concept_of_root = {root: _concept({key: votes[key] for key in keys}) for root, keys in groups.items()}
        key_of = {key: concept_of_root[names.find(_KEY + key)].key for key in votes}
        concepts = {concept.key: concept for concept in sorted(concept_of_root.values(), key=lambda c: c.key)}
        return Concepts(concepts=concepts, key_of=key_of)


def find_concepts(records: Mapping[str, Sequence[Entity]]) -> Concepts:
    """The concepts of the entities of ``records`` (each paper's entities, by paper)."""
    votes = ConceptVotes()
    for paper in records:
        votes.add(records[paper])
    return votes.concepts()


def is_acronym(text: str) -> bool:
    """Whether ``text`` reads as an acronym: one word with at least two capitals.

    Examples
    --------
    >>> is_acronym("LoRA"), is_acronym("ViT"), is_acronym("Transformer"), is_acronym("SAM 2")
    (True, True, False, False)
    """
    return " " not in text and sum(ch.isupper() for ch in text) >= 2


@dataclass
class _Votes:
    """What the papers naming one entity id said about it."""

    papers: int = 0  # papers whose record has an entity with this id
    labels: Counter[str] = field(default_factory=Counter)  # the label each paper gives it
    aliases: set[str] = field(default_factory=set)  # every other surface form
    mentions: Counter[str] = field(default_factory=Counter)  # mentions by type
    typed: Counter[str] = field(default_factory=Counter)  # papers by type


def _definitions(votes: Mapping[str, _Votes]) -> dict[str, dict[str, set[str]]]:
    """The long forms (folded) of each entity id that defines an acronym, by the acronym (folded)."""
    definitions: dict[str, dict[str, set[str]]] = {}
    for key in sorted(votes):
        for alias in votes[key].aliases:
            if is_acronym(alias):
                definitions.setdefault(fold(alias), {})[key] = {fold(label) for label in votes[key].labels}
    return definitions


def _with_inline_definitions(
    votes: Mapping[str, _Votes], definitions: Mapping[str, Mapping[str, set[str]]], names: _Partition
) -> dict[str, dict[str, set[str]]]:
    """Join each entity id whose label defines an acronym inside it ("holistic robust (HR) training") to the
    label spelled out ("holistic robust training"), and return ``definitions`` with those definitions
    added ("hr": the long form "holistic robust"), for reading a name with the acronym in it ("HR
    training"). They are no definitions of the acronym alone ("HR" is not holistic robust training), so
    :func:`_acronym_joins` does not read them."""
    found = {short: {key: set(forms) for key, forms in by_key.items()} for short, by_key in definitions.items()}
    for key in sorted(votes):
        for label in sorted(votes[key].labels):
            for short_start, short_end, long_start, long_end in find_definitions(label):
                opening, closing = label.rfind("(", 0, short_start), label.find(")", short_end)
                rest = label[closing + 1 :].strip()
                if not rest:  # "Low-Rank Adaptation (LoRA)" is the acronym's own definition
                    continue
                names.union(_KEY + key, _FORM + fold(f"{label[:opening].rstrip()} {rest}"))
                found.setdefault(fold(label[short_start:short_end]), {}).setdefault(key, set()).add(
                    fold(label[long_start:long_end])
                )
    return found


def _acronym_joins(definitions: Mapping[str, Mapping[str, set[str]]], names: _Partition) -> list[tuple[str, str]]:
    """(acronym, a concept defining it) for each acronym that only one concept defines, or several whose
    long forms are spellings of one name (see :func:`_spell_one_name`): those concepts are one."""
    joins = []
    for short, defined_by in sorted(definitions.items()):
        long_forms: dict[str, set[str]] = {}  # concept -> its long forms
        for key, forms in defined_by.items():
            long_forms.setdefault(names.find(_KEY + key), set()).update(forms)
        if len(long_forms) == 1 or _spell_one_name(short, list(long_forms.values())):
            joins.extend((_FORM + short, root) for root in sorted(long_forms))
    return joins


def _spelled_out_joins(
    votes: Mapping[str, _Votes], definitions: Mapping[str, Mapping[str, set[str]]], names: _Partition
) -> list[tuple[str, str]]:
    """(a name with an acronym in it, the name spelled out) wherever the corpus has the spelled-out name:
    "CoT prompting" is "chain-of-thought prompting", "offline RL" is "offline reinforcement learning".
    Among an acronym's long forms, the one name it spells out that the corpus knows decides what it
    stands for, so "LR annealing" is "learning rate annealing" though LR also stands for low resolution."""
    joins = []
    for key in sorted(votes):
        for label in sorted(votes[key].labels):
            words = label.split()
            if len(words) < 2:
                continue
            for at, word in enumerate(words):
                if not is_acronym(word):
                    continue
                forms = set().union(*definitions.get(fold(word), {}).values())
                spelled = {fold(" ".join([*words[:at], form, *words[at + 1 :]])) for form in forms}
                known = [name for name in sorted(spelled) if names.known(_FORM + name)]
                if len(known) == 1:
                    joins.append((_KEY + key, _FORM + known[0]))
    return joins


def _category_joins(votes: Mapping[str, _Votes]) -> list[tuple[str, str]]:
    """(a name, the same name without its trailing category word) wherever the corpus has the shorter name
    and gives both the same type (each name's type: the majority over the mentions of the entities it
    labels)."""
    labelling: dict[str, list[_Votes]] = {}  # a folded name -> the votes of the entities it labels
    for key in sorted(votes):
        for name in {fold(label) for label in votes[key].labels}:
            labelling.setdefault(name, []).append(votes[key])
    type_of = {name: _type(group) for name, group in labelling.items()}
    joins = []
    for name in sorted(type_of):
        head, _, last = name.rpartition(" ")
        if head and last in CATEGORY_WORDS and head in type_of and type_of[head] == type_of[name]:
            joins.append((_FORM + name, _FORM + head))
    return joins


def _spell_one_name(acronym: str, concepts: Sequence[set[str]]) -> bool:
    """Whether the long forms of every two concepts defining ``acronym`` include two spellings of one name.

    Examples
    --------
    >>> _spell_one_name("llm", [{"large language model"}, {"large pretrained language model"}])
    True
    >>> _spell_one_name("tta", [{"test time adaptation"}, {"test time adaption"}])
    True
    >>> _spell_one_name("sam", [{"segment anything model"}, {"sharpness aware minimization"}])
    False
    >>> _spell_one_name("ssl", [{"self supervised learning"}, {"supervised learning"}])
    False
    """
    return all(
        any(_one_name(acronym, a, b) for a in concepts[i] for b in concepts[j])
        for i in range(len(concepts))
        for j in range(i + 1, len(concepts))
    )


def _one_name(acronym: str, first: str, second: str) -> bool:
    # Two long forms of an acronym name one concept when their words are the same words (spelled
    # alike up to their ending: "adaptation", "adaption"), or when the shorter's initials spell the
    # acronym and the longer only adds words to it ("large [pre-trained] language models").
    short, long = sorted((first.split(" "), second.split(" ")), key=len)
    if len(short) == len(long):
        return all(map(_same_word, short, long))
    if "".join(word[0] for word in short) != acronym:
        return False
    at = 0
    for word in long:
        if at < len(short) and _same_word(short[at], word):
            at += 1
    return at == len(short)


def _same_word(a: str, b: str) -> bool:
    common = next((at for at, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return a == b or (common >= 5 and common >= 0.6 * min(len(a), len(b)))


def _concept(votes: Mapping[str, _Votes]) -> Concept:
    """One concept from the votes of the entity ids that name it."""
    label = _label(votes.values())
    # One spelling of each other name: of those that fold alike ("transformer models", "Transformer
    # models", "transformer model"), the first in sorted order.
    spellings: dict[str, str] = {}
    for text in sorted({text for vote in votes.values() for text in (*vote.labels, *vote.aliases)}):
        spellings.setdefault(fold(text), text)
    spellings.pop(fold(label), None)
    aliases = tuple(sorted(spellings.values()))
    return Concept(key=_key(votes, label), label=label, type=_type(votes.values()), aliases=aliases)


def _label(votes: Iterable[_Votes]) -> str:
    # Each paper's entity votes for the name the paper gives it (a long form where it defines an acronym).
    # Spellings that fold alike pool their votes; a tie goes to the longer, more descriptive name.
    by_fold: dict[str, Counter[str]] = {}
    for vote in votes:
        for text, count in vote.labels.items():
            by_fold.setdefault(fold(text), Counter())[text] += count
    best = min(by_fold, key=lambda f: (-sum(by_fold[f].values()), -len(f), f))
    return min(by_fold[best], key=lambda text: (-by_fold[best][text], text))


def _type(votes: Iterable[_Votes]) -> str:
    # A vote per mention; ties go to the type more papers gave, then to the order of ENTITY_TYPES.
    mentions, papers = Counter[str](), Counter[str]()
    for vote in votes:
        mentions.update(vote.mentions)
        papers.update(vote.typed)
    order = {name: index for index, name in enumerate(ENTITY_TYPES)}
    return min(mentions, key=lambda t: (-mentions[t], -papers[t], order.get(t, len(order)), t))


def _key(votes: Mapping[str, _Votes], label: str) -> str:
    # The key most papers gave; on a tie, the one the label reads as, so that the IRI names it.
    own = entity_key(label)
    return min(votes, key=lambda key: (-votes[key].papers, key != own, key))


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

    def known(self, name: str) -> bool:
        """Whether ``name`` is in any set."""
        return name in self._parent

    def union(self, a: str, b: str) -> bool:
        """Merge the sets of ``a`` and ``b``; whether they were apart."""
        root_a, root_b = self.find(a), self.find(b)
        if root_a == root_b:
            return False
        low, high = sorted((root_a, root_b))
        self._parent[high] = low
        return True
