"""Pure string folding shared by extraction and canonicalisation.

Examples
--------
>>> fold("The Vision-Transformers")
'vision transformer'
>>> fold("LLMs")
'llm'
>>> fold("loss"), fold("social bias"), fold("policies"), fold("losses"), fold("robotics"), fold("biases")
('loss', 'social bias', 'policy', 'loss', 'robotics', 'bias')
>>> entity_key("Adaptive Return-conditioned Policy")
'adaptive-return-conditioned-policy'
>>> entity_key("GPT-4")
'gpt-4'
"""

from __future__ import annotations

import re
import unicodedata

_DASHES = re.compile(r"[\u2010-\u2015\u2212_-]")
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_SPACES = re.compile(r"\s+")
_NOT_KEY = re.compile(r"[^\w+.#'-]")


# "pre-training" and "pretraining", "multi-modal" and "multimodal" are written both ways.
_JOINED_PREFIX = re.compile(
    r"\b(pre|post|re|multi|over|under|non|co|semi|sub|meta|fine)[\u2010-\u2015\u2212_ -](?=[a-z])"
)


def fold(text: str) -> str:
    """Fold case, hyphens, whitespace, a leading article and a final plural 's'.

    Two surface forms that fold alike name the same concept.

    Examples
    --------
    >>> fold("Pre-training") == fold("pretraining"), fold("multi-modal") == fold("multimodal")
    (True, True)
    """
    text = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    text = _JOINED_PREFIX.sub(r"\1", text)
    text = _SPACES.sub(" ", _DASHES.sub(" ", text)).strip()
    text = _LEADING_ARTICLE.sub("", text)
    words = text.split(" ")
    words[-1] = singular(words[-1])
    return " ".join(words)


_INVARIANT_ENDINGS = ("ss", "us", "is", "ics", "ias", "ies", "ous", "ws")
_INVARIANT = frozenset({"series", "species", "news", "lens", "gas", "alias", "atlas", "canvas", "chaos"})


def singular(word: str) -> str:
    """The singular of an English plural noun, conservatively (unknown words stay as they are)."""
    if len(word) <= 3 or not word.endswith("s") or word in _INVARIANT or not word[-2].isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zzes", "iases")):
        return word[:-2]
    if word.endswith(_INVARIANT_ENDINGS):
        return word
    return word[:-1]


def entity_key(label: str) -> str:
    """A readable, IRI-friendly key for the concept a label names (folded, hyphen-joined).

    Hyphens inside a name that carries digits (GPT-4, CIFAR-10) are kept, so that
    "GPT-4" and "GPT 4" still fold together but read naturally.
    """
    folded = fold(label)
    return _NOT_KEY.sub("", folded.replace(" ", "-")).strip("-.") or "_"


def contains_words(text: str, name: str) -> bool:
    """Whether the words of ``name`` occur in ``text`` as whole words, side by side and in order, once both
    are folded and every word is put in the singular: a word-level match of a name inside a longer label.

    Examples
    --------
    >>> contains_words("catastrophic forgetting", "forgetting"), contains_words("Forgetting issues", "forgetting")
    (True, True)
    >>> contains_words("large language models for code", "Language Model"), contains_words("unforgetting", "forgetting")
    (True, False)
    """
    words, inside = _singular_words(name), _singular_words(text)
    if not words:
        return False
    return any(inside[at : at + len(words)] == words for at in range(len(inside) - len(words) + 1))


def _singular_words(text: str) -> list[str]:
    return [singular(word) for word in fold(text).split(" ") if word]
