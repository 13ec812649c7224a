"""Acronym definitions found with the Schwartz-Hearst algorithm (PSB 2003).

``long form (SHORT)``: the short form is 2-10 characters with a letter, at most two
words; the long form is the shortest stretch of the preceding words whose characters
cover the short form's letters right to left, its first letter starting a word that is
not a function word ("and", "of", ...).

Examples
--------
>>> text = "This work presents Adaptive Return-conditioned Policy (ARP), an efficient framework."
>>> [(text[a:b], text[c:d]) for a, b, c, d in find_definitions(text)]
[('ARP', 'Adaptive Return-conditioned Policy')]
>>> text = "Large language models (LLMs) have shown promise."
>>> [(text[a:b], text[c:d]) for a, b, c, d in find_definitions(text)]
[('LLMs', 'Large language models')]
>>> find_definitions("We report accuracy (see Table 2).")
[]
>>> find_definitions("It can be applied to efficiently train multiple PTLMs (BERT, BioBERT, GPT-2).")
[]
>>> find_definitions("for discriminators (e.g.~RoBERTa) and generation models (e.g.~BART)")
[]
>>> text = "using the Abstraction and Reasoning Corpus (ARC) as a benchmark"
>>> [(text[a:b], text[c:d]) for a, b, c, d in find_definitions(text)]
[('ARC', 'Abstraction and Reasoning Corpus')]
"""

from __future__ import annotations

import re

_PAREN = re.compile(r"\(([^()]{1,40})\)")
_CLOSING_QUOTES = "'\"\u2019\u201d"
# Words a long form does not start with, though they may start with the short form's first letter: the
# shortest match for "Abstraction and Reasoning Corpus (ARC)" would otherwise be "and Reasoning Corpus".
_FUNCTION_WORDS = frozenset(("a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"))


def find_definitions(text: str, *, start: int = 0, end: int | None = None) -> list[tuple[int, int, int, int]]:
    """Every ``(short_start, short_end, long_start, long_end)`` definition in ``text[start:end]``.

    Offsets are into ``text``; callers pass one sentence at a time as ``start``/``end``.
    """
    end = len(text) if end is None else end
    found = []
    for paren in _PAREN.finditer(text, start, end):
        inside = paren.group(1)
        # "(ARP; Smith et al.)" or "(ARP, for short)": the short form is the first part; "(BERT, BioBERT,
        # GPT-2)" lists names and defines none.
        parts = [part.strip() for part in re.split(r"[;,]", inside)]
        short = parts[0]
        if not _is_short_form(short) or sum(map(_is_short_form, parts)) > 1:
            continue
        short_start = paren.start(1) + inside.index(short)
        # A long form does not reach into another bracket: "(e.g.~RoBERTa) and generation models (e.g.~BART)".
        floor = max(start, *(text.rfind(bracket, start, paren.start()) + 1 for bracket in "()[]"))
        window = _words_before(text, floor, paren.start(), limit=min(len(short) + 5, len(short) * 2))
        if not window:
            continue
        window_start = window[0][0]
        # A closing quote is not part of the name: "'robust mean teacher' (RMT)".
        before = text[window_start : paren.start()].rstrip().rstrip(_CLOSING_QUOTES).rstrip()
        long_form = _best_long_form(short, before)
        if long_form is None:
            continue
        long_end = window_start + len(before)
        long_start = long_end - len(long_form)
        found.append((short_start, short_start + len(short), long_start, long_end))
    return found


def _is_short_form(candidate: str) -> bool:
    return (
        2 <= len(candidate) <= 10
        and len(candidate.split()) <= 2
        and any(ch.isalpha() for ch in candidate)
        and candidate[0].isalnum()
        and any(ch.isupper() for ch in candidate)
    )


def _words_before(text: str, floor: int, stop: int, *, limit: int) -> list[tuple[int, int]]:
    """The last ``limit`` whitespace-separated words of ``text[floor:stop]``, read backwards from ``stop``
    so that the cost is that of those words, not of the whole sentence before them.

    >>> _words_before("a bc  def (X)", 0, 10, limit=2)
    [(2, 4), (6, 9)]
    """
    words: list[tuple[int, int]] = []
    end = stop
    while len(words) < limit:
        while end > floor and text[end - 1].isspace():
            end -= 1
        start = end
        while start > floor and not text[start - 1].isspace():
            start -= 1
        if start == end:
            break
        words.append((start, end))
        end = start
    return words[::-1]


def _starts_name(text: str, i: int) -> bool:
    """Whether ``text[i]`` begins a word that is no function word."""
    if i > 0 and text[i - 1].isalnum():
        return False
    end = i
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[i:end] not in _FUNCTION_WORDS


def _best_long_form(short: str, long: str) -> str | None:
    s, i = len(short) - 1, len(long) - 1
    while s >= 0:
        ch = short[s].lower()
        if not ch.isalnum():
            s -= 1
            continue
        # The short form's first character must start a word of the long form, other than a function word.
        while i >= 0 and (long[i].lower() != ch or (s == 0 and not _starts_name(long, i))):
            i -= 1
        if i < 0:
            return None
        i -= 1
        s -= 1
    begin = long.rfind(" ", 0, i + 1) + 1
    while begin < len(long) and not long[begin].isalnum():
        begin += 1  # an opening quote or bracket is not part of the name
    candidate = long[begin:]
    if len(candidate) <= len(short) or short.lower() in candidate.lower().split():
        return None
    return candidate
