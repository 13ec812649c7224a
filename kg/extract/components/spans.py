"""What the components share: the runs of tokens written together, and choosing among overlapping spans."""

from __future__ import annotations

from spacy.tokens import Doc, Span, Token


def word_units(doc: Doc) -> dict[int, tuple[int, int]]:
    """For each token, the run of tokens written together with it ("Qwen2.5-VL-Instruct-3B", "fine-tuning").

    spaCy splits hyphenated and dotted names; a mention must not start or end inside one.
    """
    units: dict[int, tuple[int, int]] = {}
    start = 0
    for token in doc:
        nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if nxt is None or not _glued(token, nxt):
            for i in range(start, token.i + 1):
                units[i] = (start, token.i + 1)
            start = token.i + 1
    return units


_JOINERS = frozenset("-./+_")


def _glued(left: Token, right: Token) -> bool:
    if left.whitespace_ or right.tag_ == "POS":
        return False
    if right.text == "." and (right.whitespace_ or right.i + 1 == len(right.doc)):
        return False  # a full stop, not a dot inside a name
    return all(
        t.text.isalnum() or t.text in _JOINERS or (t.text[0].isalnum() and t.text[-1].isalnum()) for t in (left, right)
    )


def by_priority(spans: list[Span]) -> list[Span]:
    """The spans in order, each kept unless it overlaps one kept before it: earlier spans win."""
    taken: set[int] = set()
    chosen = []
    for span in spans:
        if not taken.intersection(range(span.start, span.end)):
            chosen.append(span)
            taken.update(range(span.start, span.end))
    return chosen
