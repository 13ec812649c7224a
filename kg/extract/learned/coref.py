"""Phrases that refer to the abstract's own contribution: "our method", "the proposed framework", "it", "we".

The annotation guidelines resolve them to the named entity the paper proposes ("Our method mitigates
goal misgeneralization", with ARP proposed: ARP addresses goal misgeneralization). The joint model
classifies relations with these phrases as arguments like any other mention; the extractor then puts
such a relation on the proposed entity, so that it lands on the named node.

Examples
--------
>>> text = "Our method mitigates goal misgeneralization, and it is fast; we show it."
>>> [text[a:b] for a, b in find_references(text)]
['Our method', 'it', 'we', 'it']
>>> text = "The proposed dual-stream framework wins. This approach works."
>>> [text[a:b] for a, b in find_references(text)]
['The proposed dual-stream framework', 'This approach']
>>> find_references("This paper studies the model.")
[]
"""

from __future__ import annotations

import re

# Head nouns a paper calls its own contribution by.
HEADS = (
    "method",
    "approach",
    "framework",
    "model",
    "algorithm",
    "technique",
    "system",
    "architecture",
    "network",
    "pipeline",
    "strategy",
    "scheme",
    "module",
    "paradigm",
    "benchmark",
    "dataset",
    "loss",
    "procedure",
    "agent",
    "policy",
    "solution",
    "tool",
    "toolkit",
    "metric",
    "objective",
    "mechanism",
    "estimator",
    "optimizer",
    "formulation",
    "variant",
    "recipe",
    "protocol",
    "suite",
    "corpus",
    "attack",
    "defense",
    "method",
    "library",
    "platform",
    "classifier",
    "detector",
    "encoder",
    "regularizer",
    "learner",
    "planner",
    "controller",
    "methodology",
    "design",
    "scheme",
    "family",
    "models",
    "methods",
)
_DETERMINER = (
    r"(?:our(?:\s+(?:proposed|new|novel))?"
    r"|the\s+(?:proposed|presented|introduced|resulting|new|novel|developed)|this|these)"
)
_REFERENCE = re.compile(
    rf"\b{_DETERMINER}\s+(?:[\w-]+\s+){{0,2}}?(?:{'|'.join(sorted(set(HEADS), key=len, reverse=True))})s?\b"
    r"|\b[Ww]e\b|\b[Ii]t\b(?!['’]s\s+(?:worth|known|possible|unclear|important|hard|difficult|challenging|crucial|essential))",
    re.IGNORECASE,
)


def find_references(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Character spans of the referring phrases in ``text[start:end]`` (offsets into ``text``)."""
    return [(m.start(), m.end()) for m in _REFERENCE.finditer(text, start, len(text) if end is None else end)]
