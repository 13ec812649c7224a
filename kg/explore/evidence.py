"""Evidence for a link between two concepts: the sentences of an abstract that name them.

A relation carries the sentence it was read from; two concepts linked only because a
paper mentions both get theirs here, from the paper's ``dcterms:abstract``: the first
sentence naming both, else the first sentence naming each (joined by " … "), else the
first naming either. Names are matched by label and alias, ignoring case, hyphens and a
plural ending.

Examples
--------
>>> abstract = ("Pre-trained encoders such as CLIP help agents generalize. "
...             "Our ARP mitigates goal misgeneralization with CLIP features.")
>>> sentence_naming(abstract, ["CLIP"], ["goal misgeneralization"])
'Our ARP mitigates goal misgeneralization with CLIP features.'
>>> print(sentence_naming(abstract, ["pre-trained encoder"], ["ARP"]))  # doctest: +NORMALIZE_WHITESPACE
Pre-trained encoders such as CLIP help agents generalize. …
Our ARP mitigates goal misgeneralization with CLIP features.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

from kg.explore.projection import CO_MENTION
from kg.store.queries import PAPER_ABSTRACT
from kg.store.select import select_strings

if TYPE_CHECKING:
    from kg.explore.paths import Hop
    from kg.explore.projection import Projection
    from kg.store import Store

CANDIDATE_PAPERS = 5
"""How many of the papers behind a co-mention are read to find a sentence naming both concepts."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z0-9])")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Eq|Sec|resp|approx|no)\.|\b[A-Z]\.)$")
_SEPARATOR = r"[\s\-\u2010-\u2015/]*"


def sentences(text: str) -> list[str]:
    """Split an abstract into sentences (without a language model: punctuation and capitals).

    Examples
    --------
    >>> sentences("We use CLIP, e.g. for retrieval. It works (see Fig. 2). 3D models too!")
    ['We use CLIP, e.g. for retrieval.', 'It works (see Fig. 2).', '3D models too!']
    """
    pieces = _SENTENCE_END.split(" ".join(text.split()))
    merged: list[str] = []
    for piece in pieces:
        if merged and _ABBREVIATION.search(merged[-1]):
            merged[-1] += " " + piece
        else:
            merged.append(piece)
    return [s for s in merged if s]


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> str:
    words = [re.escape(w) for w in re.split(r"[\s\-\u2010-\u2015/]+", name.strip()) if w]
    if not words:
        return ""
    return r"(?<!\w)" + _SEPARATOR.join(words) + r"(?:s|es|')?(?!\w)"


def names_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """One case-insensitive pattern matching any of ``names`` (None when there are none).

    Examples
    --------
    >>> bool(names_pattern(["over-fitting"]).search("robust overfitting occurs"))
    True
    >>> bool(names_pattern(["ARP"]).search("sharp"))
    False
    """
    parts = sorted({_name_pattern(n) for n in names} - {""}, key=len, reverse=True)
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def sentence_naming(abstract: str, first: Sequence[str], second: Sequence[str]) -> str | None:
    """The evidence in ``abstract`` that it names a concept of ``first`` and one of ``second``.

    ``first`` and ``second`` are the names (label and aliases) of the two concepts.
    Returns None when the abstract names neither.
    """
    return _graded_evidence(abstract, first, second)[1]


def _graded_evidence(abstract: str, first: Sequence[str], second: Sequence[str]) -> tuple[int, str | None]:
    """``(grade, text)``: grade 3 for one sentence naming both, 2 for one sentence each, 1 for either, 0 for none."""
    one, other = names_pattern(first), names_pattern(second)
    found_one = found_other = None
    for sentence in sentences(abstract):
        has_one = bool(one and one.search(sentence))
        has_other = bool(other and other.search(sentence))
        if has_one and has_other:
            return 3, sentence
        if has_one and found_one is None:
            found_one = sentence
        if has_other and found_other is None:
            found_other = sentence
    if found_one and found_other:
        return 2, " … ".join(sorted((found_one, found_other), key=abstract.find))
    if found_one or found_other:
        return 1, found_one or found_other
    return 0, None


def fetch_abstracts(store: Store, papers: Iterable[str]) -> dict[str, str]:
    """The ``dcterms:abstract`` of each paper (IRIs) that has one."""
    return dict(
        row for paper in sorted(set(papers)) for row in select_strings(store, PAPER_ABSTRACT, bindings={"paper": paper})
    )


def with_evidence(graph: Projection, store: Store, hops: Sequence[Hop]) -> list[Hop]:
    """``hops`` with an evidence sentence and its paper for every co-mention, read from the abstracts.

    A relation keeps its own evidence. For a co-mention, up to :data:`CANDIDATE_PAPERS` of
    the papers behind it are read, and the first with a sentence naming both concepts is
    kept (else the first naming either). All abstracts are fetched in one query.
    """
    candidates = {
        hop: hop.papers[:CANDIDATE_PAPERS]
        for hop in hops
        if hop.predicate == CO_MENTION and hop.evidence is None and hop.papers
    }
    abstracts = fetch_abstracts(store, (p for papers in candidates.values() for p in papers))
    done = []
    for hop in hops:
        if hop not in candidates:
            done.append(hop)
            continue
        first, second = graph.names(graph.entity_id(hop.source)), graph.names(graph.entity_id(hop.target))
        best: tuple[int, str | None, str] = (0, None, hop.papers[0])
        for paper in candidates[hop]:
            grade, sentence = _graded_evidence(abstracts.get(paper, ""), first, second)
            if grade > best[0]:
                best = (grade, sentence, paper)
            if grade == 3:
                break
        _, sentence, paper = best
        done.append(replace(hop, evidence=sentence, evidence_paper=paper))
    return done
