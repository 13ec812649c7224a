"""``kg_candidates``: noun phrases and name-like words that may be entities, trimmed and typed.

Three sources, in order of priority where they overlap: examples listed after a class noun
("tasks such as segmentation"), runs of capitalised words ("Abstraction and Reasoning Corpus"),
and the parser's noun chunks, typed by head word and context cues (:mod:`kg.extract.cues`); then
name-like words that none of them covers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from kg.extract import cues
from kg.extract.components.spans import by_priority, word_units


@Language.factory("kg_candidates", requires=["token.dep", "token.pos"], assigns=["doc.spans"])
def make_candidate_finder(nlp: Language, name: str) -> CandidateFinder:
    return CandidateFinder(name=name)


class CandidateFinder:
    """Noun phrases and name-like tokens, trimmed and typed by head word and context cues."""

    def __init__(self, *, name: str = "kg_candidates") -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations(doc, self.find(doc))
        return doc

    def find(self, doc: Doc) -> list[Span]:
        units = word_units(doc)
        # Priority on overlaps: listed examples, then capitalised names, then noun phrases.
        spans = list(_listed_examples(doc, units))
        spans += [Span(doc, start, end, label=_type_of_title(doc[start:end])) for start, end in title_runs(doc, units)]
        for chunk in doc.noun_chunks:
            for span in _typed_phrases(chunk):
                start, end = units[span.start][0], units[span.end - 1][1]
                spans.append(Span(doc, start, end, label=span.label_))
        spans = by_priority(spans)
        covered = {i for span in spans for i in range(span.start, span.end)}
        for start, end in sorted(set(units.values())):
            if covered.intersection(range(start, end)):
                continue
            name = doc[start:end]
            if cues.looks_like_name(name.text) and not cues.is_bare_acronym(name.text) and not cues.is_adjectival(name):
                spans.append(Span(doc, start, end, label=cues.type_of_name(doc[end - 1])))
        return sorted(spans, key=lambda s: (s.start, s.end))

    @staticmethod
    def set_annotations(doc: Doc, spans: list[Span]) -> None:
        doc.spans["kg_candidates"] = spans


def title_runs(doc: Doc, units: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    """Runs of two or more capitalised words inside a sentence: "Foundational Reasoning Enhancement",
    "Medical SAM 2", "Abstraction and Reasoning Corpus". Abstracts capitalise what they name."""
    runs: list[tuple[int, int]] = []
    for sentence in doc.sents:
        run: list[tuple[int, int, bool]] = []  # (start, end, is a connector word)
        for start, end in sorted({units[i] for i in range(sentence.start, sentence.end)}):
            word = doc[start:end]
            if run and not doc[run[-1][1] - 1].whitespace_:
                run = _close(doc, run, runs)
            if start != sentence.start and _titled(word, following_a_name=bool(run)):
                run.append((start, end, False))
            elif run and word.text in _CONNECTORS:
                run.append((start, end, True))
            else:
                run = _close(doc, run, runs)
        _close(doc, run, runs)
    return runs


_CONNECTORS = frozenset({"of", "for", "with", "in", "on", "to"})
_YEAR = re.compile(r"^(?:19|20)\d\d$")


def _titled(word: Span, *, following_a_name: bool) -> bool:
    text = word.text
    if text in cues.NOT_ENTITY_NAMES or word[0].is_stop:
        return False
    if text.isdigit():
        return following_a_name and not _YEAR.match(text)  # "SAM 2", not "Bengio 2017"
    return word[0].is_title or cues.looks_like_name(text)


def _close(doc: Doc, run: list[tuple[int, int, bool]], runs: list[tuple[int, int]]) -> list:
    """Record ``run`` if it is a name (two or more words, not ending in a connector, not an
    author list such as "Jo and Bengio (2017)", not only symbols such as "2D and 3D"); start afresh."""
    while run and run[-1][2]:
        run.pop()
    wordy = any(sum(ch.isalpha() for ch in doc[start:end].text) >= 3 for start, end, connector in run if not connector)
    if len(run) >= 2 and wordy and not _cited(doc, run[-1][1]):
        runs.append((run[0][0], run[-1][1]))
    return []


def _cited(doc: Doc, end: int) -> bool:
    after = doc[end : end + 3].text
    return bool(re.match(r"^(?:\(\s*(?:19|20)\d\d|et al)", after))


def _type_of_title(name: Span) -> str:
    # "Flow of Reasoning", "Neural Common Neighbor with Completion": a name built with a
    # connector is what the paper made, a method, whatever its last word.
    if any(t.text in _CONNECTORS for t in name):
        return "Dataset" if cues.type_of_head(name[-1], name) == "Dataset" else "Method"
    return cues.type_of_head(name[-1], name) or "Method"


def _listed_examples(doc: Doc, units: dict[int, tuple[int, int]]) -> Iterable[Span]:
    """Hearst patterns: "tasks such as segmentation, reconstruction and registration", "two datasets,
    Wilds and Breeds": each example listed after a class noun takes the class's type."""
    for token in doc:
        entity_type = cues.type_of_class_noun(token)
        if entity_type is None:
            continue
        firsts = [child for child in token.children if child.dep_ == "appos"]
        for prep in token.children:
            if prep.dep_ == "prep" and (
                prep.lower_ in ("including", "like")
                or (prep.lower_ == "as" and prep.i > 0 and doc[prep.i - 1].lower_ == "such")
            ):
                firsts += [child for child in prep.children if child.dep_ == "pobj"]
        for first in firsts:
            for example in (first, *first.conjuncts):
                start, end = _example_extent(example)
                start, end = units[start][0], units[end - 1][1]
                span = doc[start:end]
                if _plausible_example(span):
                    yield Span(doc, start, end, label=entity_type)


_NOT_IN_NAMES = re.compile(r"[\[\]();=<>{}]")


def _plausible_example(span: Span) -> bool:
    return (
        len(span) <= 6
        and not _NOT_IN_NAMES.search(span.text)
        and not cues.is_stopword_entity(span.text)
        and span.root.lemma_.lower() not in cues.GENERIC_HEADS
        and span.root.pos_ in ("NOUN", "PROPN", "X")
    )


def _example_extent(token: Token) -> tuple[int, int]:
    # The example's own words: its left modifiers and itself, not the conjuncts or clauses after it.
    start = token.i
    for child in token.lefts:
        if child.dep_ in ("compound", "amod", "nmod", "npadvmod") and child.pos_ != "DET":
            start = min(start, child.left_edge.i)
    return start, token.i + 1


def _of_complement_end(head: Token) -> int:
    for prep in head.rights:
        if prep.dep_ == "prep" and prep.lower_ == "of":
            objects = [c for c in prep.children if c.dep_ == "pobj"]
            if objects:
                return objects[0].i + 1
    return head.i + 1


_ENUMERATOR = re.compile(r"^\(?(?:[ivx]+|[a-h]|\d+)\)$")


def _typed_phrases(chunk: Span) -> Iterable[Span]:
    doc = chunk.doc
    start, end = chunk.start, chunk.end
    # "accurate, proposition segmentation model": the phrase is what follows the last comma or bracket.
    for i in range(start, end):
        if doc[i].text in (",", ")", "(", ";", ":"):
            start = i + 1
    while start < end and (
        doc[start].pos_ in ("DET", "PRON", "NUM", "PUNCT", "SYM", "ADV", "CCONJ", "SCONJ")
        or not doc[start].text[0].isalnum()
        or doc[start].tag_ in ("WDT", "WRB", "WP", "POS", "LS")
        or doc[start].lower_ in cues.WEAK_MODIFIERS
        or _ENUMERATOR.match(doc[start].text)
    ):
        start += 1
    # "the agent's policy": keep what follows the possessive.
    for i in range(start, end):
        if doc[i].tag_ == "POS":
            start = i + 1
    if start >= end:
        return
    span = doc[start:end]
    head = span.root
    if not (span.start <= head.i < span.end):
        return
    entity_type = cues.type_of_head(head, span)
    if entity_type is None and cues.phenomenon_by_context(head):
        # "mitigates the curse of depth": the phenomenon takes its "of" complement along.
        entity_type = "Phenomenon"
        end = max(end, _of_complement_end(head))
        span = doc[start:end]
    if entity_type is None:
        # "the CLIP model": a name in front of a generic head is the entity.
        names = [t for t in span if cues.looks_like_name(t.text)]
        if len(names) == 1 and head.lemma_.lower() in cues.GENERIC_HEADS:
            name = names[0]
            yield Span(doc, name.i, name.i + 1, label=cues.type_of_name(name))
        return
    names = [t for t in span if t.i < head.i and cues.looks_like_name(t.text)]
    if (
        head.lemma_.lower() in cues.GENERIC_HEADS
        and names
        and names[-1].i == head.i - 1
        and not any(t.pos_ == "ADJ" for t in span if names[-1].i < t.i < head.i)
    ):
        # "the LIBERO-90 benchmark", "the UDIM objective": the name is the entity, typed by the head.
        name = names[-1]
        yield Span(doc, name.i, name.i + 1, label=entity_type)
        return
    if cues.is_generic(span):
        # "the retrieval task": the task is "retrieval".
        if (
            head.lemma_.lower() in ("task", "problem")
            and head.i == span.end - 1
            and len(span) == 2
            and span[0].pos_ in ("NOUN", "PROPN")
        ):
            yield Span(doc, span.start, span.start + 1, label="Task")
        return
    yield Span(doc, span.start, span.end, label=entity_type)
