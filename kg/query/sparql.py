r"""A light reading of SPARQL text, without parsing it: the operation a request starts with, the
variables of a ``SELECT *`` in the order the query names them, and which of some keywords it holds.

Oxigraph answers ``SELECT *`` with its variables sorted by name (``?o ?p ?s``); people expect
the order they wrote them in, as other engines give. The text is split into tokens (comments,
strings and IRIs are skipped whole, so a ``?`` or keyword inside them does not count) and the
variables are taken in order of first appearance after the ``*``.

Examples
--------
>>> operation("PREFIX ex: <http://example.org/#> # a comment\ninsert data { ex:a ex:b 1 }")
'INSERT DATA'
>>> operation("SELECT * WHERE { ?s ?p ?o }")
'SELECT'
>>> star_variables('SELECT * WHERE { ?s ?p ?o . FILTER(?o != "?x") } ORDER BY ?z')
['s', 'p', 'o', 'z']
>>> star_variables("SELECT ?o ?s WHERE { ?s ?p ?o }") is None
True
>>> in_query_order(["o", "p", "s"], "SELECT DISTINCT * { ?s <urn:p#?q> $o ; ?p [] }")
['s', 'o', 'p']
>>> keywords('SELECT * { SERVICE <http://h/sparql> { ?s ?p "load" } } # LOAD', {"SERVICE", "LOAD"})
{'SERVICE'}
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

__all__ = ["UPDATE_OPERATIONS", "in_query_order", "keywords", "operation", "star_variables"]

UPDATE_OPERATIONS = ("INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH")
"""The words a SPARQL 1.1 Update operation starts with."""

_VARNAME = (
    "[A-Za-z0-9_\u00b7\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u037d\u037f-\u1fff\u200c-\u200d\u203f-\u2040\u2070-\uffff]+"
)
_TOKEN = re.compile(
    r"""(?P<comment>\#[^\n]*)
      | (?P<string>\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\" | '''(?:[^'\\]|\\.|'(?!''))*'''
                  | "(?:[^"\\\n]|\\.)*" | '(?:[^'\\\n]|\\.)*')
      | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
      | (?P<variable>[?$]"""
    + _VARNAME
    + r""")
      | (?P<word>[A-Za-z_][\w-]*(?::[\w.%-]*)?)
      | (?P<other>\S)""",
    re.VERBOSE | re.DOTALL,
)
_PROLOGUE = ("PREFIX", "BASE")


def _tokens(sparql: str) -> list[tuple[str, str]]:
    """``(kind, text)`` for each token but comments; an unterminated string or IRI is a run of ``other``."""
    return [(found.lastgroup, found.group()) for found in _TOKEN.finditer(sparql) if found.lastgroup != "comment"]


def _body(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The tokens after the prologue (``PREFIX p: <iri>`` and ``BASE <iri>`` declarations)."""
    at = 0
    while at < len(tokens) and tokens[at][0] == "word" and tokens[at][1].upper() in _PROLOGUE:
        at += 3 if tokens[at][1].upper() == "PREFIX" else 2
    return tokens[at:]


def operation(sparql: str) -> str | None:
    """The keyword a request starts with, after its prologue, in upper case: ``SELECT``, ``ASK``,
    ``CONSTRUCT``, ``DESCRIBE``, or an update's operation with its second word where it has one
    (``INSERT DATA``, ``DELETE WHERE``); None when it starts with something else."""
    body = _body(_tokens(sparql))
    if not body or body[0][0] != "word":
        return None
    first = body[0][1].upper()
    if first in ("INSERT", "DELETE") and len(body) > 1 and body[1][1].upper() in ("DATA", "WHERE"):
        return f"{first} {body[1][1].upper()}"
    return first


def star_variables(sparql: str) -> list[str] | None:
    """For a ``SELECT *`` (or ``SELECT DISTINCT *``, ``SELECT REDUCED *``) query, the names of the
    variables after the ``*`` in order of first appearance; None for any other request."""
    body = _body(_tokens(sparql))
    words = [text.upper() for _, text in body[:3]]
    if not words or words[0] != "SELECT":
        return None
    star = 2 if len(words) > 2 and words[1] in ("DISTINCT", "REDUCED") else 1
    if len(body) <= star or body[star][1] != "*":
        return None
    names = (text[1:] for kind, text in body[star + 1 :] if kind == "variable")
    return list(dict.fromkeys(names))


def in_query_order(columns: Sequence[str], sparql: str) -> list[str]:
    """``columns`` (a ``SELECT *`` answer's variables) in the order the query names them; any the text
    does not name keep their place after those. Other queries' columns are returned as they are."""
    named = star_variables(sparql)
    if not named:
        return list(columns)
    present = set(columns)
    first = [name for name in named if name in present]
    chosen = set(first)
    return first + [name for name in columns if name not in chosen]


def keywords(sparql: str, wanted: Collection[str]) -> set[str]:
    """Which of the keywords ``wanted`` (in upper case) ``sparql`` uses, in any case, as keywords: a word in
    a string, an IRI, a comment or a prefixed name (``ex:service``) does not count."""
    return {text.upper() for kind, text in _tokens(sparql) if kind == "word" and text.upper() in wanted}
