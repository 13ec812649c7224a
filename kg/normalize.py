"""Pure string folding shared by extraction and canonicalisation.

Examples
--------
>>> fold("The Vision-Transformers")
'vision transformer'
>>> fold("LLMs"), fold("PAWS"), fold("scaling laws")
('llm', 'paws', 'scaling law')
>>> fold("loss"), fold("social bias"), fold("policies"), fold("losses"), fold("robotics"), fold("biases")
('loss', 'social bias', 'policy', 'loss', 'robotics', 'bias')
>>> entity_key("Adaptive Return-conditioned Policy")
'adaptive-return-conditioned-policy'
>>> entity_key("GPT-4")
'gpt-4'
>>> plain_name(r"Poincar\\'e embeddings"), fold(r"Tanks \\& Temples") == fold("Tanks & Temples")
('Poincaré embeddings', True)
"""

from __future__ import annotations

import re
import unicodedata

_DASHES = re.compile(r"[\u2010-\u2015\u2212_-]")
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_SPACES = re.compile(r"\s+")
_ACRONYM_ENDING_IN_S = re.compile(r"(?<![^\W\d_])[A-Z][A-Z0-9]*S\W*$")  # the last word, in capitals
_NOT_KEY = re.compile(r"[^\w+.#'-]")


# "pre-training" and "pretraining", "multi-modal" and "multimodal" are written both ways.
_JOINED_PREFIX = re.compile(
    r"\b(pre|post|re|multi|over|under|non|co|semi|sub|meta|fine)[\u2010-\u2015\u2212_ -](?=[a-z])"
)


def fold(text: str) -> str:
    """Fold TeX markup, case, hyphens, whitespace, a leading article and a final plural 's'.

    Two surface forms that fold alike name the same concept.

    Examples
    --------
    >>> fold("Pre-training") == fold("pretraining"), fold("multi-modal") == fold("multimodal")
    (True, True)
    """
    text = unicodedata.normalize("NFKC", plain_name(text))
    # A last word in capitals is an acronym ("PAWS", "HANS"), not an English plural ("LLMs" is one).
    acronym = _ACRONYM_ENDING_IN_S.search(text) is not None
    text = _JOINED_PREFIX.sub(r"\1", text.lower().replace("\u2019", "'"))
    text = _SPACES.sub(" ", _DASHES.sub(" ", text)).strip()
    text = _LEADING_ARTICLE.sub("", text)
    words = text.split(" ")
    if not acronym:
        words[-1] = singular(words[-1])
    return " ".join(words)


# TeX in a name, as abstracts copied from arXiv carry it: accents, escaped characters, Greek letters,
# font commands (sometimes with their backslash lost: "textbf{generalist}"), braces and math dollars.
_TEX_HINT = re.compile(r"[\\{}$]|--")
_ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "c": "\u0327", "v": "\u030c", "u": "\u0306", "H": "\u030b", "k": "\u0328", "r": "\u030a",
}  # fmt: skip
_GREEK_NAMES = (
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu",
    "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
)  # fmt: skip
_GREEK = dict(zip(_GREEK_NAMES, "αβγδεζηθικλμνξοπρστυφχψω", strict=True))
_SYMBOLS = {
    **_GREEK,
    **{name.capitalize(): letter.upper() for name, letter in _GREEK.items()},
    "varepsilon": "ε", "vartheta": "ϑ", "varphi": "φ", "varrho": "ϱ", "varsigma": "ς",
    "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "ss": "ß",
    "l": "ł", "L": "Ł", "i": "i", "j": "j", "ell": "ℓ", "infty": "∞", "times": "×", "cdot": "·",
}  # fmt: skip
_DECLARATIONS = frozenset({"bf", "it", "em", "sc", "tt", "rm", "sf", "sl", "small", "large", "footnotesize"})
_TEX = re.compile(
    r"""\\(?P<accent>['`^"~=.])\s*(?:\{\s*(?P<braced>\\?[A-Za-z])\s*\}|(?P<bare>\\?[A-Za-z]))
    | \\(?P<lettered>[cvuHkr])(?:\s*\{\s*(?P<lbraced>\\?[A-Za-z])\s*\}|\s+(?P<lbare>[A-Za-z]))
    | \\(?P<escaped>[&%$#_{}])
    | (?<![A-Za-z])\\?(?:text(?:bf|it|tt|sc|rm|sf|sl|up|normal)?|emph|math(?:rm|bf|it|cal|bb|tt|sf|frak)
                         |underline|mbox|bm|boldsymbol)\s*\{
    | \\(?P<command>[A-Za-z]+)(?P<space>\s*)
    | (?P<dashes>-{2,3})
    | [{}$]""",
    re.VERBOSE,
)


def plain_name(text: str) -> str:
    """A name with its TeX markup turned into the plain text it typesets.

    Examples
    --------
    >>> plain_name(r"S{\\o}rensen--Dice"), plain_name(r"({\\epsilon}, {\\delta})-approximation")
    ('Sørensen–Dice', '(ε, δ)-approximation')
    >>> plain_name(r"\\textbf{ALPS"), plain_name(r"textbf{generalist}$ models")
    ('ALPS', 'generalist models')
    >>> plain_name(r"Aky\\"urek"), plain_name(r"Mart\\'{\\i}n")
    ('Akyürek', 'Martín')
    >>> plain_name("LoRA")
    'LoRA'
    """
    if not _TEX_HINT.search(text):
        return text
    return unicodedata.normalize("NFC", _TEX.sub(_plain, text))


def _plain(match: re.Match[str]) -> str:
    if match["accent"] or match["lettered"]:
        base = match["braced"] or match["bare"] or match["lbraced"] or match["lbare"]
        letter = _SYMBOLS.get(base[1:], base[1:]) if base.startswith("\\") else base  # \'{\i} is a dotless i
        return letter + _ACCENTS[match["accent"] or match["lettered"]]
    if match["escaped"]:
        return match["escaped"]
    if match["command"]:
        command = match["command"]
        if command in _DECLARATIONS:
            return ""
        return _SYMBOLS.get(command, command) + match["space"]
    if match["dashes"]:
        return "\u2013" if len(match["dashes"]) == 2 else "\u2014"
    return ""


_INVARIANT_ENDINGS = ("ss", "us", "is", "ics", "ias", "ies", "ous")
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
