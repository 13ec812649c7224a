"""``kg_learned``: the learned model as a spaCy component, and a document's record from its predictions."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch

from kg.extract.acronyms import find_definitions
from kg.extract.learned.calibration import Calibration
from kg.extract.learned.coref import find_references
from kg.extract.learned.data import PREDICATES, SYMMETRIC, TYPES, words_of
from kg.extract.learned.model import SCIERC_OF, USER_DATA_KEY, DocumentPrediction, LearnedModel, Settings
from kg.extract.records import DocumentRecord, Entity, Mention, Relation
from kg.normalize import entity_key, fold


@dataclass
class _Group:
    label: str
    forms: dict[str, str]
    mentions: list[tuple[int, int]]  # word spans
    types: np.ndarray
    proposed: float


def decode_document(
    prediction: DocumentPrediction,
    words: Sequence[str],
    offsets: Sequence[tuple[int, int]],
    text: str,
    sentences: Sequence[tuple[int, int]],
    settings: Settings,
    calibration: Calibration | None = None,
    vocabulary: dict[str, str] | None = None,
):
    """Entities ``(key, label, type, aliases, proposed, mentions as char spans)`` and relations
    ``(subject key, predicate, object key, subject chars, object chars, evidence chars, probability,
    confidence)`` of one abstract."""

    def chars(a: int, b: int) -> tuple[int, int]:
        return offsets[a][0], offsets[b - 1][1]

    def name_chars(a: int, b: int) -> tuple[int, int]:
        # The tokenizer leaves a sentence's full stop on a word ending in a capital or a digit ("EL2N.",
        # "LLaMA-7B."); a name keeps its dots only where it has others ("U.S.").
        c0, c1 = chars(a, b)
        if c1 - c0 > 1 and text[c1 - 1] == "." and "." not in text[c0 : c1 - 1]:
            c1 -= 1
        return c0, c1

    # Acronyms: a short form joins the group of its long form.
    long_of_short: dict[str, tuple[int, int]] = {}
    if settings.acronyms:
        for begin, end in sentences:
            a, b = chars(begin, end)
            for s0, s1, l0, l1 in find_definitions(text, start=a, end=b):
                long_of_short.setdefault(fold(text[s0:s1]), (l0, l1))
    groups: dict[str, _Group] = {}
    key_of_span: dict[int, str] = {}
    for index, (a, b, probabilities, proposed) in enumerate(prediction.spans):
        c0, c1 = name_chars(a, b)
        surface = text[c0:c1]
        folded = fold(surface)
        label = surface
        if folded in long_of_short:
            l0, l1 = long_of_short[folded]
            label = text[l0:l1]
        key = entity_key(label)
        group = groups.setdefault(key, _Group(label, {}, [], np.zeros(len(TYPES)), 0.0))
        group.forms.setdefault(folded, surface)
        group.mentions.append((c0, c1))
        group.types = group.types + probabilities[1:]
        group.proposed = max(group.proposed, proposed)
        key_of_span[index] = key
    # A defined acronym: the long form is a name of the entity even where only the short form was found.
    for l0, l1 in long_of_short.values():
        key = entity_key(text[l0:l1])
        if key in groups:
            group = groups[key]
            group.forms.setdefault(fold(text[l0:l1]), text[l0:l1])
    # With no entity at the proposed threshold, the likeliest contribution, if it reaches the fallback's.
    likeliest = max(groups, key=lambda k: groups[k].proposed, default=None)
    if likeliest is not None and (
        groups[likeliest].proposed >= settings.proposed_threshold
        or groups[likeliest].proposed < settings.fallback_threshold
    ):
        likeliest = None
    entities = {}
    for key, group in groups.items():
        entity_type = TYPES[int(group.types.argmax())]
        if vocabulary is not None:
            entity_type = vocabulary.get(fold(group.label), entity_type)
        label_fold = fold(group.label)
        aliases = tuple(text for folded, text in group.forms.items() if folded != label_fold)
        entities[key] = (
            key,
            group.label,
            entity_type,
            aliases,
            bool(group.proposed >= settings.proposed_threshold or key == likeliest),
            tuple(sorted(set(group.mentions))),
        )
    # The contribution a referring phrase stands for: the most confidently proposed entity, if any is proposed.
    owner = max(groups, key=lambda k: (entities[k][4], groups[k].proposed), default=None)
    if owner is not None and groups[owner].proposed < min(settings.owner_threshold, settings.proposed_threshold):
        owner = None
    sentence_of = {}
    for s, (begin, end) in enumerate(sentences):
        for k in range(begin, end):
            sentence_of[k] = s
    best: dict[tuple[str, str], tuple[float, int, tuple, tuple]] = {}
    for (kind_x, x), (kind_y, y), probabilities in prediction.pairs:
        subject = key_of_span[x] if kind_x == "span" else owner
        obj = key_of_span[y] if kind_y == "span" else owner
        if subject is None or obj is None or subject == obj:
            continue
        if probabilities[0] >= settings.relation_threshold:
            continue
        label = int(probabilities[1:].argmax()) + 1
        score = float(probabilities[label])
        span_x = prediction.spans[x][:2] if kind_x == "span" else prediction.references[x]
        span_y = prediction.spans[y][:2] if kind_y == "span" else prediction.references[y]
        pair = (subject, obj) if PREDICATES[label - 1] not in SYMMETRIC else tuple(sorted((subject, obj)))
        ordered = (span_x, span_y) if pair == (subject, obj) else (span_y, span_x)
        if pair not in best or best[pair][0] < score:
            best[pair] = (score, label, ordered[0], ordered[1])
    relations = []
    for (subject, obj), (score, label, span_s, span_o) in sorted(best.items()):
        reverse = best.get((obj, subject))
        if reverse is not None and (reverse[0] > score or (reverse[0] == score and obj < subject)):
            continue  # one direction of a pair: the more confident
        sentence = sentences[sentence_of[span_s[0]]]
        evidence = chars(*sentence)
        confidence = calibration(score) if calibration is not None else score
        relations.append(
            (subject, PREDICATES[label - 1], obj, name_chars(*span_s), name_chars(*span_o), evidence, score, confidence)
        )
    return list(entities.values()), relations


# --- the pipeline component -------------------------------------------------------------------


@Language.factory(
    "kg_learned",
    requires=["token.is_sent_start"],
    assigns=["doc.user_data"],
    default_config={"model_path": None, "settings": None},
)
def make_learned_extractor(nlp: Language, name: str, model_path: str | None, settings: dict | None) -> LearnedExtractor:
    model = LearnedModel.load(model_path)
    if settings:
        from dataclasses import replace

        model.settings = replace(model.settings, **settings)
    return LearnedExtractor(model, name=name)


class LearnedExtractor:
    """Runs :class:`LearnedModel` over each Doc and decodes its entities and relations."""

    def __init__(self, model: LearnedModel, *, name: str = "kg_learned") -> None:
        self.model = model
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        return next(self._annotate([doc]))

    def pipe(self, docs: Iterable[Doc], *, batch_size: int = 16) -> Iterator[Doc]:
        for batch in minibatch(docs, size=batch_size):
            yield from self._annotate(batch)

    def vocabulary(self) -> dict[str, str] | None:
        return vocabulary_types() if self.model.settings.vocabulary else None

    def _annotate(self, docs: list[Doc]) -> Iterator[Doc]:
        if not docs:
            return
        inputs = []
        for doc in docs:
            tokens, sentences = words_of(doc)
            offsets = [(t.idx, t.idx + len(t.text)) for t in tokens]
            references = _word_references(doc.text, offsets)
            inputs.append(([t.text for t in tokens], sentences, references, offsets))
        predictions = self.model.predict([(w, s, r) for w, s, r, _ in inputs])
        for doc, (words, sentences, _, offsets), prediction in zip(docs, inputs, predictions):
            entities, relations = decode_document(
                prediction,
                words,
                offsets,
                doc.text,
                sentences,
                self.model.settings,
                self.model.calibration,
                self.vocabulary(),
            )
            doc.user_data[USER_DATA_KEY] = {"entities": entities, "relations": relations}
            yield doc


@lru_cache(maxsize=1)
def vocabulary_types() -> dict[str, str]:
    """The type of each curated SKOS label (ontology/vocab/), by folded label."""
    from kg.extract.vocabulary import load_vocabulary

    return {fold(t.text): t.type for t in load_vocabulary()}


def _word_references(text: str, offsets: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The referring phrases as word spans: the words that overlap each (found by bisection, as words are
    in text order and do not overlap)."""
    starts = [s for s, _ in offsets]
    ends = [e for _, e in offsets]
    out = []
    for a, b in find_references(text):
        first, stop = bisect_right(ends, a), bisect_left(starts, b)
        if first < stop:
            out.append((first, stop))
    return out


def record_of(doc: Doc, document) -> DocumentRecord:
    """The record of a Doc that :class:`LearnedExtractor` processed."""
    found = doc.user_data[USER_DATA_KEY]
    text = doc.text
    entities = tuple(
        Entity(
            id=key,
            label=label,
            type=entity_type,
            aliases=aliases,
            proposed=bool(proposed),
            mentions=tuple(Mention(a, b, text[a:b]) for a, b in mentions),
        )
        for key, label, entity_type, aliases, proposed, mentions in found["entities"]
    )
    relations = tuple(
        Relation(
            subject=subject,
            predicate=predicate,
            object=obj,
            subject_span=tuple(s),
            object_span=tuple(o),
            evidence=text[e[0] : e[1]],
            confidence=float(confidence),
            scierc=SCIERC_OF[predicate],
        )
        for subject, predicate, obj, s, o, e, _, confidence in found["relations"]
    )
    return DocumentRecord(
        id=document.id, source=document.source, title=document.title, entities=entities, relations=relations
    )
