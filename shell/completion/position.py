"""Where the cursor stands in a SPARQL statement, from the tokens before it.

:func:`position` names the place (``subject``, ``predicate``, ``class``, ``expression``...)
from which :func:`shell.completion.suggest.suggest` decides what fits; :func:`variables` and
:func:`declared_prefixes` list what the statement defines. They read tokens of
:func:`shell.input.lexer.tokenize` and know nothing of the store.

Positions
---------
``top``, ``prefix_declaration``, ``projection``, ``modifier``
    Outside the groups: where a clause starts, after ``PREFIX``, between ``SELECT`` and
    ``WHERE``, after the closing ``}``.
``subject``, ``predicate``, ``object``, ``class``, ``after_object``
    In a triple pattern; ``class`` is the object of ``a`` (``rdf:type``), ``after_object``
    follows a complete triple.
``expression``, ``values``, ``datatype``
    Inside ``(...)`` or after ``FILTER``/``BIND``; inside a ``VALUES`` block; after ``^^``.
``none``
    Where nothing sensible fits (after ``LIMIT``, a prefix's name, a ``GRAPH`` keyword).

Examples
--------
>>> from shell.input.lexer import tokenize
>>> def at(text):
...     return position([t for t in tokenize(text) if t.significant])
>>> at("SELECT ?e WHERE { ?e"), at("SELECT ?e WHERE { ?e a"), at("SELECT * WHERE { ?s ?p ?o }")
('predicate', 'class', 'modifier')
>>> variables(tokenize("SELECT ?label WHERE { ?e rdfs:label ?label }"))
('?label', '?e')
"""

from __future__ import annotations

from shell.input.lexer import CLOSERS, OPENERS, Token

__all__ = ["declared_prefixes", "position", "variables"]

_TYPE_IRIS = ("rdf:type", "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>")
_PATTERN_KEYWORDS = (
    "OPTIONAL",
    "MINUS",
    "UNION",
    "GRAPH",
    "SERVICE",
    "SILENT",
    "FILTER",
    "BIND",
    "VALUES",
    "NOT",
    "EXISTS",
    "LATERAL",
)
_TERM_KINDS = ("var", "pname", "iri", "string", "number", "bnode")


def variables(tokens: list[Token]) -> tuple[str, ...]:
    """The variables the tokens use, each once, as ``?name``, in order of first use."""
    names = [t.text for t in tokens if t.kind == "var" and len(t.text) > 1]
    return tuple(dict.fromkeys("?" + n[1:] for n in names))


def declared_prefixes(tokens: list[Token]) -> tuple[str, ...]:
    """The prefixes the statement declares with ``PREFIX name: <...>``."""
    out = []
    for i, token in enumerate(tokens[:-1]):
        if token.is_word("PREFIX") and tokens[i + 1].kind == "pname":
            out.append(tokens[i + 1].text.split(":", 1)[0])
    return tuple(out)


def position(tokens: list[Token]) -> str:
    """Where the cursor is, given the significant tokens before it (the word excluded)."""
    stack: list[int] = []
    for i, token in enumerate(tokens):
        if token.kind == "punct" and token.text in OPENERS:
            stack.append(i)
        elif token.kind == "punct" and token.text in CLOSERS and stack:
            stack.pop()
    if not stack:
        return _top_position(tokens)
    opened = stack[-1]
    bracket = tokens[opened].text
    inner = tokens[opened + 1 :]
    if bracket == "(":
        return "expression"
    if bracket == "[":
        return _pattern_position(inner, "predicate")
    if _is_values_block(tokens[:opened]):
        return "values"
    return _pattern_position(inner, "subject")


def _top_position(tokens: list[Token]) -> str:
    if not tokens:
        return "top"
    last = tokens[-1]
    if last.is_word("PREFIX"):
        return "prefix_declaration"
    if last.is_word("LIMIT", "OFFSET") or (len(tokens) > 1 and tokens[-2].is_word("PREFIX")):
        return "none"
    for token in reversed(tokens):
        if token.is_word("SELECT", "DISTINCT", "REDUCED"):
            return "projection"
        if token.is_word("DESCRIBE"):
            return "object"
        if token.text == "}" or token.is_word("GROUP", "ORDER", "HAVING", "BY"):
            return "modifier"
        if token.is_word("WHERE", "ASK", "CONSTRUCT", "PREFIX", "BASE", "FROM"):
            return "top"
    return "top"


def _is_values_block(before: list[Token]) -> bool:
    i = len(before) - 1
    if i >= 0 and before[i].text == ")":  # VALUES (?a ?b) { ... }
        while i >= 0 and before[i].text != "(":
            i -= 1
        i -= 1
    elif i >= 0 and before[i].kind == "var":
        i -= 1
    return i >= 0 and before[i].is_word("VALUES")


def _pattern_position(tokens: list[Token], state: str) -> str:
    """Walk a group's tokens (nested groups count as one term) to find the triple position."""
    depth = 0
    pending = ""  # a keyword waiting for its group: FILTER (...), OPTIONAL {...}
    for token in tokens:
        text = token.text
        if token.kind == "punct" and text in OPENERS:
            depth += 1
            continue
        if token.kind == "punct" and text in CLOSERS:
            depth -= 1
            if depth == 0:
                if text == "}" or pending:
                    state, pending = "subject", ""
                else:  # a closed [ ... ] or ( ... ) is one term
                    state = _advance(state, token)
            continue
        if depth:
            continue
        if token.kind == "punct":
            state = {".": "subject", ";": "predicate", ",": "object"}.get(text, state)
            pending = ""
        elif token.kind == "word" and text.upper() in _PATTERN_KEYWORDS:
            pending = text.upper()
        elif token.is_word("SELECT"):
            return "projection"
        elif pending in ("GRAPH", "SERVICE", "SILENT"):
            pending = "GRAPH"  # GRAPH ?g / SERVICE <url>: the name, then the group
        elif token.kind == "op":
            if text == "^^":
                state = "datatype"
            elif text in ("/", "|") and state in ("object", "class"):
                state = "predicate"
        elif token.kind in _TERM_KINDS or token.kind == "word":
            state = _advance(state, token)
    if pending in ("FILTER", "BIND", "NOT", "EXISTS"):
        return "expression"
    if pending == "VALUES":
        return "none"
    if pending:
        return "none"
    return state


def _advance(state: str, token: Token) -> str:
    if state == "subject":
        return "predicate"
    if state == "predicate":
        return "class" if token.text == "a" or token.text in _TYPE_IRIS else "object"
    if state in ("object", "class", "datatype", "after_object"):
        return "after_object"
    return state
