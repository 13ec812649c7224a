"""Extraction costs time linear in a document's length. Guarded without timing: the Python calls that
extracting n and 4n sentences makes (counted by cProfile) must grow about fourfold, and a document
longer than a passage reaches spaCy in passages whose records are merged at the right offsets."""

from __future__ import annotations

import cProfile
import functools
import pstats
import sys
from bisect import bisect_right
from itertools import accumulate

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.extract.pipeline import PASSAGE_CHARS, Extractor, passages
from kg.ingest import Document
from kg.resources import REPO_DIR

PROJECT = str(REPO_DIR / "kg")

# The case: one sentence repeated, with an acronym definition, a proposal cue, a referring
# phrase and names, so every component has work in every sentence.
SENTENCE = (
    "This work presents Adaptive Return-conditioned Policy (ARP), an efficient framework that our method "
    "trains with CLIP and evaluates on the LIBERO benchmark, and it outperforms GPT-4 on robust overfitting. "
)


@functools.cache
def extractor(profile: str) -> Extractor:
    return Extractor(profile=profile)


def operations(profile: str, sentences: int) -> tuple[int, int]:
    """What extracting ``sentences`` sentences costs, counted: the function calls everywhere (generator steps
    and spaCy's profiled Cython included: cProfile), and the lines the project's own code runs (list
    comprehensions' steps included: a line tracer on the frames of kg/)."""
    document = Document("p", (SENTENCE * sentences).strip(), "a.txt:1")
    profiler = cProfile.Profile()
    profiler.enable()
    list(extractor(profile).extract([document]))
    profiler.disable()
    calls = sum(count for count, *_ in pstats.Stats(profiler).stats.values())
    lines = 0

    def count_lines(frame, event, arg):
        nonlocal lines
        lines += event == "line"
        return count_lines

    def trace(frame, event, arg):
        return count_lines if frame.f_code.co_filename.startswith(PROJECT) else None

    sys.settrace(trace)
    try:
        list(extractor(profile).extract([document]))
    finally:
        sys.settrace(None)
    return calls, lines


@pytest.mark.parametrize("profile", ["rules", "learned"])
def test_four_times_the_sentences_cost_about_four_times_the_calls(profile):
    n = 10
    assert len(SENTENCE) * 4 * n < PASSAGE_CHARS  # one passage: the components themselves are measured
    operations(profile, 1)  # what is done once (loading, caches) is not counted
    small, large = operations(profile, n), operations(profile, 4 * n)
    # Linear work gives ratios of at most 4 (less, with a fixed part); a scan of the document per sentence
    # (doc.text read anew, every entity tried against every sentence) gave more than 5.
    assert all(b / a < 4.6 for a, b in zip(small, large)), (small, large)


@pytest.mark.parametrize("profile", ["rules", "learned"])
def test_a_long_document_is_read_in_passages_and_merged_at_its_offsets(profile):
    text = (SENTENCE * (3 * PASSAGE_CHARS // len(SENTENCE))).strip()
    seen: list[int] = []
    rules = extractor(profile)
    original = rules.nlp.make_doc

    def make_doc(piece: str):
        seen.append(len(piece))
        return original(piece)

    rules.nlp.make_doc = make_doc
    try:
        (record,) = rules.extract([Document("p", text, "a.txt:1")])
    finally:
        del rules.nlp.make_doc
    assert len(seen) >= 3 and max(seen) <= PASSAGE_CHARS and sum(seen) == len(text)
    mentions = [m for entity in record.entities for m in entity.mentions]
    expected = {i + SENTENCE.index("(ARP") + 1 for i in range(0, len(text), len(SENTENCE))}
    found = {m.start for m in mentions if m.text == "ARP"}
    # Found where the acronym is, and in every passage (the model need not find every repetition).
    assert found <= expected
    ends = list(accumulate(seen))
    assert {bisect_right(ends, start) for start in found} == set(range(len(seen)))
    assert all(text[m.start : m.end] == m.text for m in mentions)
    assert len({e.id for e in record.entities}) == len(record.entities)  # one entity across passages
    for relation in record.relations:  # (the rules find none in this sentence, the learned model several)
        (s0, s1), (o0, o1) = relation.subject_span, relation.object_span
        assert (text[s0:s1], text[o0:o1]) in {(m.text, n.text) for m in mentions for n in mentions}
        # Both mentions lie in the sentence given as evidence, where it is in the text.
        at = text.rfind(relation.evidence, 0, min(s0, o0) + len(relation.evidence))
        assert at >= 0 and max(s1, o1) <= at + len(relation.evidence)


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.sampled_from("ab .!?\n"), max_size=400), limit=st.integers(min_value=1, max_value=60))
def test_passages_cover_the_text_end_to_end_within_the_limit(text, limit):
    ranges = passages(text, limit=limit)
    assert ranges[0][0] == 0 and ranges[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    assert all(0 < end - start <= limit for start, end in ranges if text)
