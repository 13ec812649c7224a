"""Training examples from the annotations: per-sentence token spans with our five types, the
``proposed`` flag of each, and directed relation pairs with our seven predicates.

Annotations give names, not character spans (``GUIDELINES.md``): an entity's mentions are the
whole-word occurrences of its name and aliases in the text (case-sensitive; case-insensitive for a
form that is not found so), mapped to spaCy tokens, longer occurrences first where two overlap. A
relation's evidence sentence locates it: its pairs are the mentions of its subject and object inside
that sentence. When the proposed entity has no mention there, a referring phrase of the sentence
("our method", "it": :mod:`kg.extract.learned.coref`) stands for it, with the kind ``REFERENCE``.

The tokenizer and the sentence boundaries are those of the run-time pipeline
(:func:`segmenter`): spaCy's tokenizer and the statistical sentence recognizer, no parser.
A fixed tenth of the abstracts (by abstract, seed :data:`HOLDOUT_SEED`) is held out for calibration.

Examples
--------
>>> find_forms("CLIP and clip-based CLIP models (CLIPs)", ["CLIP"])
[(0, 4), (20, 24)]
>>> find_forms("we use Clip here", ["CLIP"])
[(7, 11)]
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kg.extract.learned.coref import find_references
from kg.normalize import fold
from kg.resources import REPO_DIR

TYPES = ("Method", "Dataset", "Task", "Metric", "Phenomenon")
PREDICATES = ("usedFor", "evaluatedOn", "outperforms", "comparedWith", "addresses", "partOf", "hyponymOf")
SYMMETRIC = frozenset({"comparedWith"})
REFERENCE = len(TYPES) + 1  # the kind of a referring phrase ("our method"); types are 1..5
ANNOTATIONS = REPO_DIR / "data" / "annotations" / "train.json"
# Abstracts from outside the seeds (SciERC's train and dev texts) annotated under the same guidelines:
# training data only, never part of the held-out tenth.
OTHER_ANNOTATIONS = REPO_DIR / "data" / "annotations" / "scierc.json"
# Abstracts written for training, not taken from papers (data/annotations/README.md says how), annotated under
# the same guidelines: training data only, never part of the held-out tenth.
WRITTEN_ANNOTATIONS = REPO_DIR / "data" / "annotations" / "written.json"
# A second annotation, independent of the first, of the first 600 written abstracts.
WRITTEN_SECOND_ANNOTATIONS = REPO_DIR / "data" / "annotations" / "written-second.json"
# More annotations, each independent of the others, of the seed abstracts outside the held-out tenth.
REPEATED_ANNOTATIONS = (
    REPO_DIR / "data" / "annotations" / "train-second.json",
    REPO_DIR / "data" / "annotations" / "train-third.json",
)
HOLDOUT_SEED = 11
HOLDOUT_FRACTION = 0.1
# spaCy components the default profile does not run: the model needs tokens and sentences only.
UNUSED_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner")
# A longer sentence is read as several of at most this many words: the encoder reads 510 pieces at once,
# and pairs are made within a sentence. No sentence of the seeds has more than 150 words.
MAX_SENTENCE_WORDS = 256


@dataclass(frozen=True)
class Example:
    """One annotated abstract over its words (spaCy tokens, whitespace tokens left out).

    ``mentions`` are ``(start, end, kind, proposed, entity)`` word spans (end exclusive), each inside
    one sentence; ``kind`` is a type index (1..5) or :data:`REFERENCE`. ``relations`` are
    ``(subject mention, object mention, predicate index 1..7)``.
    """

    sha1: str
    text: str
    words: tuple[str, ...]
    offsets: tuple[tuple[int, int], ...]
    sentences: tuple[tuple[int, int], ...]
    mentions: tuple[tuple[int, int, int, int, int], ...]
    relations: tuple[tuple[int, int, int], ...]


def segmenter(model: str | None = None):
    """spaCy's tokenizer and sentence recognizer (``senter``) of the English pipeline, nothing else."""
    from kg.extract.model import load_pipeline

    nlp = load_pipeline(model, exclude=tuple(UNUSED_COMPONENTS))
    if "senter" in nlp.disabled:
        nlp.enable_pipe("senter")
    return nlp


def words_of(doc) -> tuple[list, list[tuple[int, int]]]:
    """The non-space tokens of a Doc and the word spans of its sentences (empty sentences left out; one
    longer than :data:`MAX_SENTENCE_WORDS` cut into pieces of that many words)."""
    from bisect import bisect_left

    tokens = [t for t in doc if not t.is_space]
    positions = [t.i for t in tokens]
    sentences = []
    for sentence in doc.sents:
        a, b = bisect_left(positions, sentence.start), bisect_left(positions, sentence.end)
        sentences.extend((k, min(k + MAX_SENTENCE_WORDS, b)) for k in range(a, b, MAX_SENTENCE_WORDS))
    return tokens, sentences


def find_forms(text: str, forms: Iterable[str]) -> list[tuple[int, int]]:
    """Character spans of the whole-word occurrences of ``forms`` (case-insensitive for a form
    with no case-sensitive occurrence), sorted."""
    found: set[tuple[int, int]] = set()
    for form in forms:
        form = form.strip()
        if not form:
            continue
        pattern = r"(?<![\w])" + re.escape(form) + r"(?![\w])"
        hits = [(m.start(), m.end()) for m in re.finditer(pattern, text)]
        if not hits:
            hits = [(m.start(), m.end()) for m in re.finditer(pattern, text, re.IGNORECASE)]
        found.update(hits)
    return sorted(found)


def _word_span(offsets: Sequence[tuple[int, int]], start: int, end: int) -> tuple[int, int] | None:
    inside = [k for k, (a, b) in enumerate(offsets) if a < end and b > start]
    return (inside[0], inside[-1] + 1) if inside else None


def example_of(record: dict, nlp) -> tuple[Example, dict[str, int]]:
    """The example of one annotated abstract, and counts of what could not be placed."""
    text = record["text"]
    doc = nlp(text)
    tokens, sentences = words_of(doc)
    offsets = [(t.idx, t.idx + len(t.text)) for t in tokens]
    sentence_of = {}
    for s, (a, b) in enumerate(sentences):
        for k in range(a, b):
            sentence_of[k] = s
    lost = {"entities": 0, "relations": 0, "relations_by_reference": 0}
    entities = record["entities"]
    proposed_entities = [i for i, e in enumerate(entities) if e.get("proposed")]
    candidates = []  # (start, end, entity index)
    for i, entity in enumerate(entities):
        spans = set()
        for a, b in find_forms(text, [entity["name"], *(entity.get("aliases") or [])]):
            span = _word_span(offsets, a, b)
            if span and sentence_of[span[0]] == sentence_of[span[1] - 1]:
                spans.add(span)
        candidates.extend((a, b, i) for a, b in spans)
        lost["entities"] += not spans
    # Where two occurrences overlap the longer one wins ("Vision Transformer" over "Transformer").
    candidates.sort(key=lambda c: (-(c[1] - c[0]), c[0]))
    taken: set[int] = set()
    mentions = []
    for a, b, i in candidates:
        if taken.isdisjoint(range(a, b)):
            taken.update(range(a, b))
            entity = entities[i]
            mentions.append((a, b, TYPES.index(entity["type"]) + 1, int(bool(entity.get("proposed"))), i))
    # Referring phrases stand for the proposed entity (the first one listed, where there are several).
    owner = proposed_entities[0] if proposed_entities else -1
    for a, b in find_references(text):
        span = _word_span(offsets, a, b)
        if span and taken.isdisjoint(range(*span)) and sentence_of[span[0]] == sentence_of[span[1] - 1]:
            taken.update(range(*span))
            mentions.append((span[0], span[1], REFERENCE, 0, owner))
    mentions.sort()
    name_index = {e["name"]: i for i, e in enumerate(entities)}
    relations = set()
    for relation in record.get("relations", []):
        subject, obj = name_index.get(relation["subject"]), name_index.get(relation["object"])
        if subject is None or obj is None or relation["predicate"] not in PREDICATES:
            lost["relations"] += 1
            continue
        span = _evidence_span(text, relation.get("evidence", ""))
        pairs = _pairs(mentions, sentence_of, offsets, span, subject, obj, entities)
        if not pairs:
            lost["relations"] += 1
            continue
        if any(mentions[x][2] == REFERENCE or mentions[y][2] == REFERENCE for x, y in pairs):
            lost["relations_by_reference"] += 1  # not lost: placed on a referring phrase (counted apart)
        label = PREDICATES.index(relation["predicate"]) + 1
        for x, y in pairs:
            relations.add((x, y, label))
            if relation["predicate"] in SYMMETRIC:
                relations.add((y, x, label))
    example = Example(
        record["sha1"],
        text,
        tuple(t.text for t in tokens),
        tuple(offsets),
        tuple(sentences),
        tuple(mentions),
        tuple(sorted(relations)),
    )
    return example, lost


def _evidence_span(text: str, evidence: str) -> tuple[int, int] | None:
    evidence = evidence.strip()
    if not evidence:
        return None
    at = text.find(evidence)
    if at >= 0:
        return at, at + len(evidence)
    pattern = r"\s+".join(re.escape(w) for w in evidence.split())
    match = re.search(pattern, text)
    return (match.start(), match.end()) if match else None


def _pairs(mentions, sentence_of, offsets, span, subject: int, obj: int, entities) -> list[tuple[int, int]]:
    """Mention pairs (subject, object) in one sentence inside the evidence; a referring phrase stands for
    a proposed entity with no mention there."""

    def inside(m) -> bool:
        return span is None or (offsets[m[0]][0] >= span[0] - 1 and offsets[m[1] - 1][1] <= span[1] + 1)

    def of(entity: int) -> list[int]:
        named = [k for k, m in enumerate(mentions) if m[4] == entity and m[2] != REFERENCE and inside(m)]
        if named or not entities[entity].get("proposed"):
            return named
        return [k for k, m in enumerate(mentions) if m[4] == entity and m[2] == REFERENCE and inside(m)]

    return [
        (x, y)
        for x in of(subject)
        for y in of(obj)
        if x != y and sentence_of[mentions[x][0]] == sentence_of[mentions[y][0]]
    ]


def load_annotations(path: Path | str = ANNOTATIONS) -> list[dict]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def split_holdout(
    records: Sequence[dict], *, seed: int = HOLDOUT_SEED, fraction: float = HOLDOUT_FRACTION
) -> tuple[list[dict], list[dict]]:
    """(training, held out): a fixed tenth of the abstracts, chosen by ``seed`` over their sha1 order.

    >>> train, held = split_holdout([{"sha1": str(i)} for i in range(20)])
    >>> len(train), len(held), sorted(r["sha1"] for r in held) == sorted(r["sha1"] for r in split_holdout(
    ...     [{"sha1": str(i)} for i in reversed(range(20))])[1])
    (18, 2, True)
    """
    ordered = sorted(records, key=lambda r: r["sha1"])
    held = set(random.Random(seed).sample(range(len(ordered)), round(fraction * len(ordered))))
    return [r for i, r in enumerate(ordered) if i not in held], [r for i, r in enumerate(ordered) if i in held]


def majority_annotation(records: Sequence[dict], *, quorum: int | None = None) -> dict:
    """One annotation of an abstract from several independent ones: what most annotators marked.

    An entity is one another annotator's when a folded name or alias is shared; it is kept when
    ``quorum`` annotators (default: more than half) marked it, with the earliest annotator's name,
    every other name any of them gave as aliases, the type most of them gave (ties: the earliest's)
    and ``proposed`` when ``quorum`` of all annotators said so. A relation is kept when ``quorum``
    annotators state it between kept entities (``comparedWith`` either way round), with the earliest
    annotator's evidence.

    Examples
    --------
    >>> def entity(name, kind="Method", proposed=False, aliases=()):
    ...     return {"name": name, "aliases": list(aliases), "type": kind, "proposed": proposed}
    >>> first = {"sha1": "s", "text": "t", "entities": [entity("LoRA", proposed=True), entity("GLUE", "Method")],
    ...          "relations": [{"subject": "LoRA", "predicate": "evaluatedOn", "object": "GLUE", "evidence": "e"}]}
    >>> second = {"sha1": "s", "text": "t", "entities": [entity("low-rank adaptation", aliases=["LoRA"]),
    ...           entity("GLUE", "Dataset"), entity("fine-tuning")],
    ...           "relations": [{"subject": "low-rank adaptation", "predicate": "evaluatedOn", "object": "GLUE"}]}
    >>> third = {"sha1": "s", "text": "t", "entities": [entity("LoRA", proposed=True), entity("GLUE", "Dataset")],
    ...          "relations": []}
    >>> merged = majority_annotation([first, second, third])
    >>> [(e["name"], e["aliases"], e["type"], e["proposed"]) for e in merged["entities"]]
    [('LoRA', ['low-rank adaptation'], 'Method', True), ('GLUE', [], 'Dataset', False)]
    >>> [(r["subject"], r["predicate"], r["object"], r["evidence"]) for r in merged["relations"]]
    [('LoRA', 'evaluatedOn', 'GLUE', 'e')]
    """
    quorum = quorum or len(records) // 2 + 1
    groups: list[dict] = []  # {"names": folded names, "members": {annotator: entity}}
    where: list[dict[str, int]] = []  # per annotator: entity name -> group
    for annotator, record in enumerate(records):
        where.append({})
        for entity in record["entities"]:
            names = {fold(n) for n in [entity["name"], *(entity.get("aliases") or [])] if n.strip()}
            group = next(
                (k for k, g in enumerate(groups) if annotator not in g["members"] and g["names"] & names), None
            )
            if group is None:
                group = len(groups)
                groups.append({"names": set(), "members": {}})
            groups[group]["names"] |= names
            groups[group]["members"][annotator] = entity
            where[annotator][entity["name"]] = group
    entities, name_of = [], {}
    for k, group in enumerate(groups):
        members = [group["members"][a] for a in sorted(group["members"])]
        if len(members) < quorum:
            continue
        types = [m["type"] for m in members]
        head = members[0]
        name_of[k] = head["name"]
        names = [n for m in members for n in [m["name"], *(m.get("aliases") or [])]]
        entities.append(
            {
                "name": head["name"],
                "aliases": [n for n in dict.fromkeys(names) if n != head["name"]],
                "type": max(types, key=lambda t: (types.count(t), -types.index(t))),
                "proposed": sum(bool(m.get("proposed")) for m in members) >= quorum,
            }
        )
    stated: dict[tuple[int, str, int], list] = {}
    for annotator, record in enumerate(records):
        for relation in record.get("relations", []):
            subject, obj = where[annotator].get(relation["subject"]), where[annotator].get(relation["object"])
            if subject is None or obj is None:
                continue
            if relation["predicate"] in SYMMETRIC:
                subject, obj = min(subject, obj), max(subject, obj)
            stated.setdefault((subject, relation["predicate"], obj), []).append((annotator, relation))
    relations = []
    for (subject, predicate, obj), statements in stated.items():
        if len({a for a, _ in statements}) >= quorum and subject in name_of and obj in name_of:
            evidence = statements[0][1].get("evidence", "")
            relations.append(
                {"subject": name_of[subject], "predicate": predicate, "object": name_of[obj], "evidence": evidence}
            )
    return {**records[0], "entities": entities, "relations": relations}


def examples_of(records: Sequence[dict], nlp=None) -> tuple[list[Example], dict[str, int]]:
    nlp = nlp or segmenter()
    out, lost = [], {"entities": 0, "relations": 0, "relations_by_reference": 0}
    for record in records:
        example, missing = example_of(record, nlp)
        out.append(example)
        for key, value in missing.items():
            lost[key] += value
    return out, lost


if __name__ == "__main__":  # statistics of the training data
    from collections import Counter

    records = load_annotations()
    train, held = split_holdout(records)
    examples, lost = examples_of(records)
    widths = Counter(min(b - a, 20) for e in examples for a, b, k, _, _ in e.mentions if k != REFERENCE)
    print(f"{len(train)} training abstracts, {len(held)} held out; lost {lost}")
    print("entities", sum(len(r["entities"]) for r in records), "relations", sum(len(r["relations"]) for r in records))
    print("mention widths", sorted(widths.items()))
    print(
        "mentions",
        sum(len(e.mentions) for e in examples),
        "references",
        sum(m[2] == REFERENCE for e in examples for m in e.mentions),
        "relation pairs",
        sum(len(e.relations) for e in examples),
    )
