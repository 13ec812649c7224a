"""What to complete at the cursor: a pure function of the text, tested without a terminal.

:func:`suggest` looks at the text before the cursor (and, for variables, after it) and
says which *kinds* of things fit there, as :class:`Suggestion` objects; it knows SPARQL's
shape (where the cursor stands: :mod:`shell.completion.position`; the fixed words:
:mod:`shell.completion.sparql_words`) and the dot-commands' arguments, but nothing about the
store. :class:`shell.completion.completer.ShellCompleter` turns each suggestion into
prompt-toolkit completions from the catalog of names.

Kinds
-----
``keyword``, ``function``, ``value``, ``variable``, ``prefix_declaration``
    Fixed words, listed in :attr:`Suggestion.choices`.
``prefix``
    A declared prefix (``rdfs:``); ``choices`` holds prefixes the query declares itself.
``class``, ``property``, ``datatype``, ``term``
    A term of the ontology or a standard vocabulary, in :attr:`Suggestion.namespace`
    if one was typed (``kg:Me`` after ``a`` is a ``class`` in ``kg``), else in any.
``entity``
    An entity of the graph, by label, alias or ``entity:...`` name (or ``kgr:entity/...``).
``command``, ``saved_query``, ``file``
    A dot-command, a saved query's name, a file name.

Examples
--------
>>> [s.kind for s in suggest(".pa")]
['command']
>>> suggest("SELECT ?e WHERE { ?e a kg:Me")
[Suggestion(kind='class', word='kg:Me', namespace='kg', choices=(), form='iri')]
>>> suggest("SELECT ?e WHERE { ?e kg:")[0].kind
'property'
>>> suggest("SELECT * WHERE { ?p kg:mentions entity:cl")[0].kind
'entity'
>>> suggest("SELECT ?label WHERE { ?e rdfs:label ?label } ORDER BY ?l")[0].choices
('?label', '?e')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shell.completion.position import declared_prefixes, position, variables
from shell.completion.sparql_words import (
    COMMON_PREFIXES,
    EXPRESSION_KEYWORDS,
    FUNCTIONS,
    GROUP_KEYWORDS,
    KEYWORDS,
    MODIFIER_KEYWORDS,
    PROJECTION_KEYWORDS,
    TOP_KEYWORDS,
)
from shell.input.lexer import tokenize
from shell.input.statements import split

__all__ = ["COMMON_PREFIXES", "ENTITY_NAMESPACES", "FUNCTIONS", "KEYWORDS", "Suggestion", "suggest"]

ENTITY_NAMESPACES = ("entity", "kgr")
"""Prefixes after which an entity's name completes (``entity:cl``, ``kgr:entity/cl``)."""


@dataclass(frozen=True)
class Suggestion:
    """One kind of completion that fits at the cursor.

    Attributes
    ----------
    kind : str
        See the module documentation.
    word : str
        The text just before the cursor that a completion replaces.
    namespace : str or None
        For terms and entities: the prefix typed (``"kg"`` in ``kg:Me``).
    choices : tuple of str
        For fixed words: the candidates (filtering by ``word`` is the completer's job).
    form : str
        For entities, what to insert: ``"iri"`` (``entity:clip``, in SPARQL), ``"label"``
        (the label, as the whole argument of a dot-command) or ``"word"`` (the label, quoted
        if it holds spaces, as one of several arguments).
    """

    kind: str
    word: str = ""
    namespace: str | None = None
    choices: tuple[str, ...] = ()
    form: str = "iri"


def suggest(text_before_cursor: str, text_after_cursor: str = "") -> list[Suggestion]:
    """The kinds of completion that fit at the cursor, most specific first.

    Parameters
    ----------
    text_before_cursor : str
        Everything typed before the cursor (all lines of the input).
    text_after_cursor : str, optional
        Everything after it; only used to find variables used later in the query.

    Returns
    -------
    list of Suggestion
        Empty inside strings, comments and IRIs, and where nothing sensible fits.

    Examples
    --------
    >>> [s.kind for s in suggest("SELECT * WHERE { ?s ?p ?o } ORD")]
    ['keyword', 'variable']
    >>> [s.kind for s in suggest('SELECT * WHERE { ?s rdfs:label "CLIP')]
    []
    >>> [(s.kind, s.word) for s in suggest(".describe goal mis")]
    [('entity', 'goal mis')]
    """
    text = text_before_cursor
    line_start = text.rfind("\n") + 1
    line = text[line_start:].lstrip()
    if line.startswith(".") and not split(text[:line_start])[1]:
        return _command_suggestions(line)
    _, current = split(text)
    return _sparql_suggestions(current, text_after_cursor)


# ---- dot-commands

_OPTION = re.compile(r"--[\w-]+")


def _command_suggestions(line: str) -> list[Suggestion]:
    from shell.commands import COMMANDS

    if " " not in line:
        return [Suggestion("command", line)]
    name, args = line.split(" ", 1)
    entry = COMMANDS.get(name.lower())
    if entry is None or not entry.arguments:
        return []
    words, current = _shell_words(args)
    if current.startswith("-"):
        return [Suggestion("value", current, choices=tuple(_OPTION.findall(entry.usage)))]
    if words and words[-1].startswith("--"):  # the option's value: its choices, if the usage lists them
        listed = re.search(re.escape(words[-1]) + r" ([\w-]+(?:\|[\w-]+)+)", entry.usage)
        return [Suggestion("value", current, choices=tuple(listed.group(1).split("|")))] if listed else []
    positional = [
        w for i, w in enumerate(words) if not w.startswith("--") and not (i > 0 and words[i - 1].startswith("--"))
    ]
    kinds = entry.arguments
    if len(kinds) > 1 and kinds[-1] == "entity" and not any(q in args for q in "\"'"):
        if kinds[min(len(positional), len(kinds) - 1)] == "entity":
            return _entity_tails(args)
    if len(kinds) == 1:
        if kinds[0] == "entity":
            if any(w.startswith("--") for w in words):
                return []
            return [Suggestion("entity", args.lstrip(), form="label")]
        index = 0 if not positional else 1
    else:
        index = len(positional)
    if index >= len(kinds):
        return []
    return _argument_suggestion(kinds[index], current, several=len(kinds) > 1)


def _entity_tails(args: str) -> list[Suggestion]:
    """Entity suggestions for each way the unquoted words typed may end in a name, longest first.

    ``.path CLIP goal misgen``: the name being typed may be "CLIP goal misgen", "goal misgen"
    or "misgen"; the completer keeps the first that matches.

    Examples
    --------
    >>> [s.word for s in _entity_tails("CLIP goal misgen")]
    ['CLIP goal misgen', 'goal misgen', 'misgen']
    >>> [s.word for s in _entity_tails("CLIP ")]
    ['']
    """
    if not args.strip() or args[-1].isspace():
        return [Suggestion("entity", "", form="word")]
    return [Suggestion("entity", args[m.start() :], form="word") for m in re.finditer(r"\S+", args)]


def _argument_suggestion(kind: str, word: str, *, several: bool) -> list[Suggestion]:
    if kind == "entity":
        return [Suggestion("entity", word, form="word" if several else "label")]
    if kind == "format":
        from kg.query import FORMATS

        return [Suggestion("value", word, choices=FORMATS)]
    if kind == "switch":
        return [Suggestion("value", word, choices=("on", "off"))]
    if kind == "seconds":
        return [Suggestion("value", word, choices=("off",))]
    if kind == "export_format":
        from kg.export import EXPORTERS

        return [Suggestion("value", word, choices=tuple(EXPORTERS))]
    if kind == "file":
        return [Suggestion("file", word)]
    if kind == "saved":
        return [Suggestion("saved_query", word)]
    if kind == "command":
        return [Suggestion("command", word)]
    return []


def _shell_words(args: str) -> tuple[list[str], str]:
    """Complete words (quotes removed) and the word being typed (as typed, opening quote kept)."""
    words: list[str] = []
    current, quote, started = "", "", False
    raw_start = 0
    for i, ch in enumerate(args):
        if quote:
            if ch == quote:
                quote = ""
            else:
                current += ch
        elif ch in "\"'":
            quote, started = ch, True
            if not current:
                raw_start = i
        elif ch.isspace():
            if started:
                words.append(current)
            current, started = "", False
        else:
            if not started:
                raw_start = i
            current += ch
            started = True
    if not started:
        return words, ""
    return words, args[raw_start:]


# ---- SPARQL

_OPEN_IRI = re.compile(r"<[^<>\"{}|^`\\\x00-\x20]*\Z")


def _sparql_suggestions(statement: str, after: str) -> list[Suggestion]:
    if _OPEN_IRI.search(statement):
        return []  # an IRI being typed
    tokens = tokenize(statement)
    word = ""
    if tokens:
        last = tokens[-1]
        if last.kind in ("comment", "open_string", "string", "iri", "number", "langtag", "bnode"):
            return []
        if last.kind in ("var", "pname", "word"):
            word = last.text
            tokens = tokens[:-1]
    significant = [t for t in tokens if t.significant]
    used = variables(tokens + tokenize(after))
    if word[:1] in ("?", "$"):
        return [Suggestion("variable", word, choices=used)]
    where = position(significant)
    declared = declared_prefixes(significant)
    if ":" in word:
        prefix = word.split(":", 1)[0]
        if prefix in ENTITY_NAMESPACES:
            return [Suggestion("entity", word, namespace=prefix)] if where not in ("predicate",) else []
        role = {"class": "class", "predicate": "property", "datatype": "datatype"}.get(where, "term")
        return [Suggestion(role, word, namespace=prefix)]
    prefixes = Suggestion("prefix", word, choices=declared)
    keyword = _keyword_suggestion
    if where == "prefix_declaration":
        return [
            Suggestion("prefix_declaration", word, choices=tuple(f"{p}: <{iri}>" for p, iri in COMMON_PREFIXES.items()))
        ]
    if where in ("none", "number"):
        return []
    if where == "top":
        return [keyword(word, TOP_KEYWORDS)]
    if where == "projection":
        return [
            Suggestion("variable", word, choices=used),
            keyword(word, PROJECTION_KEYWORDS),
            Suggestion("function", word, choices=FUNCTIONS),
        ]
    if where == "modifier":
        return [keyword(word, MODIFIER_KEYWORDS), Suggestion("variable", word, choices=used)]
    if where == "expression":
        return [
            Suggestion("variable", word, choices=used),
            Suggestion("function", word, choices=FUNCTIONS),
            keyword(word, EXPRESSION_KEYWORDS),
            prefixes,
            Suggestion("entity", word),
        ]
    if where == "subject":
        return [
            Suggestion("variable", word, choices=used),
            Suggestion("entity", word),
            prefixes,
            keyword(word, GROUP_KEYWORDS),
        ]
    if where == "predicate":
        return [
            Suggestion("value", word, choices=("a",)),
            Suggestion("property", word),
            Suggestion("variable", word, choices=used),
            prefixes,
        ]
    if where == "class":
        return [Suggestion("class", word), prefixes, Suggestion("variable", word, choices=used)]
    if where == "datatype":
        return [Suggestion("datatype", word), prefixes]
    if where == "values":
        return [Suggestion("entity", word), Suggestion("term", word), prefixes, keyword(word, ("UNDEF",))]
    if where == "object":
        return [Suggestion("variable", word, choices=used), Suggestion("entity", word), prefixes]
    if where == "after_object":
        return [keyword(word, GROUP_KEYWORDS)]
    return []


def _keyword_suggestion(word: str, choices: tuple[str, ...]) -> Suggestion:
    return Suggestion("keyword", word, choices=choices)
