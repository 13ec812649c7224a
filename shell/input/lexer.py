"""A small, forgiving SPARQL tokenizer for the shell's own analysis.

The statement splitter (:mod:`shell.input.statements`) and the completion context
(:mod:`shell.completion.suggest`) both need to know where strings, IRIs, comments and brackets
are, also in half-typed text. This tokenizer never fails: text it does not recognise
becomes ``other`` tokens, and an unterminated string runs to the end of its line
(``'`` and ``"``) or of the text (``'''`` and ``\"\"\"``) as an ``open_string`` token.

The shell accepts one extension of SPARQL's prefixed names: a ``kgr:`` name may contain
``/`` and ``~`` (``kgr:entity/clip``), as the table output shows IRIs; see
:func:`shell.input.statements.to_sparql`.

Token kinds
-----------
``ws``, ``comment``, ``iri`` (``<...>``), ``string``, ``open_string``, ``var``
(``?x``, ``$x``, also a bare ``?``), ``pname`` (``kg:Method``, ``kg:``, ``kgr:entity/clip``),
``bnode`` (``_:b0``), ``number``, ``word`` (keywords, function names, ``a``, ``true``),
``langtag`` (``@en``), ``punct`` (``{ } ( ) [ ] ; , .``), ``op`` and ``other``.

Examples
--------
>>> [(t.kind, t.text) for t in tokenize('?e a kg:Method ; rdfs:label "x;y"@en .') if t.kind != "ws"]
... # doctest: +NORMALIZE_WHITESPACE
[('var', '?e'), ('word', 'a'), ('pname', 'kg:Method'), ('punct', ';'), ('pname', 'rdfs:label'),
 ('string', '"x;y"'), ('langtag', '@en'), ('punct', '.')]
>>> [t.text for t in tokenize("kgr:entity/clip kg:mentions/rdfs:label") if t.kind == "pname"]
['kgr:entity/clip', 'kg:mentions', 'rdfs:label']
>>> tokenize('FILTER(?x < 3) # done')[-1].kind
'comment'
>>> tokenize('"unterminated ; string')[-1].kind
'open_string'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CLOSERS", "OPENERS", "Token", "tokenize"]

OPENERS = "{(["
"""Brackets that open a nested group."""
CLOSERS = "})]"
"""Brackets that close one, in the same order as :data:`OPENERS`."""

_ESCAPE = r"\\[_~.\-!$&'()*+,;=/?#@%]"
_HEX = r"%[0-9A-Fa-f]{2}"
_PREFIX = r"(?:[^\W\d_](?:[\w.\-]*[\w\-])?)?"
_LOCAL_CHAR = rf"(?:[\w:\-]|{_HEX}|{_ESCAPE})"
_LOCAL = rf"(?:{_LOCAL_CHAR}(?:(?:{_LOCAL_CHAR}|\.)*{_LOCAL_CHAR})?)?"
# The shell's extension: kgr: local names may hold '/' and '~' unescaped.
_KGR_CHAR = rf"(?:[\w:\-/~]|{_HEX}|{_ESCAPE})"
_KGR_LOCAL = rf"(?:{_KGR_CHAR}(?:(?:{_KGR_CHAR}|\.)*{_KGR_CHAR})?)?"

_RULES: list[tuple[str, str]] = [
    ("ws", r"\s+"),
    ("comment", r"#[^\r\n]*"),
    ("iri", r"<[^<>\"{}|^`\\\x00-\x20]*>"),
    ("string", r'"""(?:[^"\\]|\\.|"(?!""))*"""' + r"|'''(?:[^'\\]|\\.|'(?!''))*'''"),
    ("open_string", r'"""(?:[^"\\]|\\.|"(?!""))*\\?\Z' + r"|'''(?:[^'\\]|\\.|'(?!''))*\\?\Z"),
    ("string", r'"(?:[^"\\\r\n]|\\.)*"' + r"|'(?:[^'\\\r\n]|\\.)*'"),
    ("open_string", r'"(?:[^"\\\r\n]|\\.)*\\?' + r"|'(?:[^'\\\r\n]|\\.)*\\?"),
    ("var", r"[?$][\w\u00b7\u0300-\u036f\u203f-\u2040]*"),
    ("pname", rf"kgr:{_KGR_LOCAL}"),
    ("pname", rf"{_PREFIX}:{_LOCAL}"),
    ("bnode", r"_:[\w\-.]*"),
    ("number", r"(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?"),
    ("langtag", r"@[A-Za-z]+(?:-[A-Za-z0-9]+)*"),
    ("word", r"[^\W\d]\w*"),
    ("punct", r"[{}()\[\];,.]"),
    ("op", r"\^\^|\|\||&&|!=|<=|>=|[<>=!+\-*/|^]"),
    ("other", r"."),
]
_PATTERN = re.compile("|".join(f"(?P<{kind}{i}>{rx})" for i, (kind, rx) in enumerate(_RULES)), re.S)
_KINDS = {f"{kind}{i}": kind for i, (kind, _) in enumerate(_RULES)}


@dataclass(frozen=True)
class Token:
    """One token: its kind, its text and where it starts in the text.

    Attributes
    ----------
    kind : str
        See the module documentation.
    text : str
        The token as written.
    start : int
        Offset of its first character in the tokenized text.
    """

    kind: str
    text: str
    start: int

    @property
    def end(self) -> int:
        """Offset just after the token."""
        return self.start + len(self.text)

    @property
    def significant(self) -> bool:
        """False for white space and comments."""
        return self.kind not in ("ws", "comment")

    def is_word(self, *words: str) -> bool:
        """True if this is a bare word equal, ignoring case, to one of ``words``.

        Examples
        --------
        >>> tokenize("select")[0].is_word("SELECT", "ASK")
        True
        """
        return self.kind == "word" and self.text.upper() in {w.upper() for w in words}


def tokenize(text: str, start: int = 0) -> list[Token]:
    """Split ``text`` (from offset ``start``) into tokens covering every character.

    Parameters
    ----------
    text : str
        SPARQL, complete or not.
    start : int, default 0
        Where to begin; offsets in the tokens are offsets into ``text``.

    Returns
    -------
    list of Token
        The tokens in order; joined, their texts give ``text[start:]``.

    Examples
    --------
    >>> "".join(t.text for t in tokenize("SELECT * { ?s ?p 'it''s' }")) == "SELECT * { ?s ?p 'it''s' }"
    True
    """
    tokens = []
    for match in _PATTERN.finditer(text, start):
        tokens.append(Token(_KINDS[match.lastgroup or ""], match.group(), match.start()))
    return tokens
