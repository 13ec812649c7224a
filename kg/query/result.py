r"""Query results: the one type every query or command returns, and its one formatter.

Every SPARQL query (``kg query``, the shell, the Python API) and every shell command
returns a :class:`Result`; :func:`render` turns any :class:`Result` into text in one of
:data:`FORMATS`, and :func:`summary_line` gives the one-line footer ("3 rows in 0.012 s")
that the shell and the command line print after it, in the manner of pgcli and litecli.

Kinds of result
---------------
``select``
    ``columns`` (variable names, without ``?``) and ``rows`` (tuples of rdflib terms,
    ``None`` where a variable is unbound).
``ask``
    ``boolean``.
``graph``
    CONSTRUCT and DESCRIBE: ``triples``, sorted by subject, predicate, object so that the
    output is stable. ``columns`` is ``("subject", "predicate", "object")`` and ``rows``
    holds the same triples, so a graph result is also a three-column table.
``message``
    ``message``: a command that only says something.

Formats
-------
``table``
    For people: aligned columns, a header and a separator line, in the style of psql.
    IRIs are shown as prefixed names with the longest matching namespace
    (``kgr:entity/clip``, even where the local part would not be a legal SPARQL prefixed
    name) or as ``<iri>`` where no prefix matches; blank nodes as ``_:label``; literals
    as their lexical form, without quotes, language or datatype; unbound values are
    empty; a column whose values are all numbers is right-aligned. Line breaks in a
    value are shown as ``↵``, tabs as a space and other control characters as ``\xNN``,
    so that a row stays on one line. With ``max_width`` a cell wider than that many
    terminal columns is cut and ends in ``…`` (widths from ``wcwidth`` when installed,
    else ``len``). An empty result prints its header followed by ``(no rows)``
    (``(no triples)`` for a graph).
    ASK prints ``true`` or ``false``.
``csv``, ``tsv``
    *SPARQL 1.1 Query Results CSV and TSV Formats*. CSV: a header of variable names;
    IRIs as they are, literals as their lexical form, blank nodes as ``_:label``, unbound
    as an empty field; RFC 4180 quoting and CRLF line ends. TSV: a header ``?x<TAB>?y``;
    terms in Turtle syntax (``<iri>``, ``"lit"@en``, ``"lit"^^<datatype>``, ``_:label``),
    with ``\t \n \r \b \f \" \\`` escaped in strings; integers in canonical form and
    booleans are written bare (``42``, ``true``) as the specification allows; LF line
    ends. The specification defines neither format for ASK; like Oxigraph, the answer is
    written as ``true`` or ``false`` alone on a line.
``json``
    *SPARQL 1.1 Query Results JSON Format*: ``head.vars`` and ``results.bindings`` with
    ``type`` ``uri``, ``literal`` (with ``xml:lang`` or ``datatype``) or ``bnode``;
    unbound variables are left out of their binding; ASK is
    ``{"head":{},"boolean":true}``. Compact and stable: keys in a fixed order, the head
    on the first line and one solution per line, UTF-8 text (not ``\u`` escapes).
``xml``
    *SPARQL Query Results XML Format*, namespace
    ``http://www.w3.org/2005/sparql-results#``, indented by two spaces with one binding
    per line. ``& < > "`` are escaped, a carriage return is written ``&#13;`` so that XML
    parsers keep it, and characters that XML 1.0 cannot carry at all (the C0 controls
    other than tab, LF, CR) are replaced by U+FFFD.

In all four W3C formats a literal of datatype ``xsd:string`` is written as a simple
literal (no ``datatype``), as RDF 1.1 makes them the same term and as Oxigraph does.
A graph result is written in every format as the SELECT-style table of the variables
``subject``, ``predicate``, ``object``, so that any SPARQL results parser reads it back;
use ``kg export`` for RDF syntaxes. A message result renders as its text in every format.

:func:`render` returns the whole document, ending with a line break (CRLF for CSV); write
it out as is.

Examples
--------
>>> from kg.rdf import KGR
>>> result = Result.from_rows(
...     ["entity", "label", "papers"],
...     [(KGR["entity/clip"], "CLIP", 12), (KGR["entity/lora"], "LoRA", 3)],
...     elapsed=0.0123,
... )
>>> print(render(result), end="")
 entity          | label | papers
-----------------+-------+--------
 kgr:entity/clip | CLIP  |     12
 kgr:entity/lora | LoRA  |      3
>>> summary_line(result)
'2 rows in 0.012 s'
>>> print(render(result, "tsv"), end="")  # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
?entity  ?label  ?papers
<...entity/clip>  "CLIP"  12
<...entity/lora>  "LoRA"  3
"""
from __future__ import annotations

import csv
import datetime
import io
import json
import numbers
import re
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from itertools import islice
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence, Union

from rdflib import namespace as rdfns
from rdflib.term import BNode, Identifier, Literal, URIRef

from kg.errors import UsageError, check_whole_number
from kg.namespace import PREFIXES

if TYPE_CHECKING:  # pragma: no cover - imported for annotations only
    import pandas
    from rdflib import Graph
    from rdflib.query import Result as RdflibResult

__all__ = [
    "FORMATS",
    "GRAPH_COLUMNS",
    "KINDS",
    "MEDIA_TYPES",
    "Result",
    "Term",
    "render",
    "summary_line",
]

Term = Union[URIRef, BNode, Literal]
"""An RDF term as rdflib represents it."""

KINDS = ("select", "ask", "graph", "message")
"""The values of :attr:`Result.kind`."""

FORMATS = ("table", "csv", "tsv", "json", "xml")
"""The formats :func:`render` writes."""

GRAPH_COLUMNS = ("subject", "predicate", "object")
"""The columns of a graph (CONSTRUCT or DESCRIBE) result."""

MEDIA_TYPES: dict[str, str] = {
    "table": "text/plain; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
    "tsv": "text/tab-separated-values; charset=utf-8",
    "json": "application/sparql-results+json",
    "xml": "application/sparql-results+xml",
}
"""The media type of each format, for HTTP (``kg serve``)."""

SPARQL_RESULTS_NS = "http://www.w3.org/2005/sparql-results#"

_XSD_STRING = str(rdfns.XSD.string)
_RDF_LANGSTRING = str(rdfns.RDF.langString)
_XSD_INTEGER = str(rdfns.XSD.integer)
_XSD_BOOLEAN = str(rdfns.XSD.boolean)
_NUMERIC_DATATYPES = frozenset(
    str(rdfns.XSD[name])
    for name in (
        "integer", "decimal", "double", "float", "long", "int", "short", "byte",
        "nonNegativeInteger", "positiveInteger", "nonPositiveInteger", "negativeInteger",
        "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte",
    )
)


# --------------------------------------------------------------------------- the type


@dataclass
class Result:
    """The result of a query or a command: a table, a boolean, triples or a message.

    Build one with a constructor (:meth:`from_rdflib`, :meth:`from_rows`,
    :meth:`from_triples`, :meth:`from_boolean`, :meth:`text`) rather than field by field;
    render it with :func:`render` and :func:`summary_line`.

    Attributes
    ----------
    columns : tuple of str
        The variable names, without ``?``, in the order of the query's projection.
        For a graph result, :data:`GRAPH_COLUMNS`.
    rows : list of tuple
        One tuple per solution, one rdflib term per column, ``None`` where unbound.
        For a graph result, the triples.
    kind : str
        One of :data:`KINDS`: ``"select"``, ``"ask"``, ``"graph"`` (CONSTRUCT or
        DESCRIBE) or ``"message"``.
    boolean : bool or None
        The answer of an ASK query.
    triples : list of tuple
        The ``(subject, predicate, object)`` triples of a graph result.
    truncated : bool
        True when rows (or triples) were cut at a limit.
    elapsed : float or None
        Seconds taken, where measured.
    message : str or None
        What a command says (``kind == "message"``).
    limit : int or None
        The limit the rows were cut at, where known (shown by :func:`summary_line`).

    Examples
    --------
    >>> r = Result.from_rows(["?x", "n"], [("a", 1), ("b", None)])
    >>> r.kind, r.columns, r.count
    ('select', ('x', 'n'), 2)
    >>> r.rows[1]
    (rdflib.term.Literal('b'), None)
    >>> Result.from_boolean(True).boolean
    True
    """

    columns: tuple[str, ...] = ()
    rows: list[tuple[Term | None, ...]] = field(default_factory=list)
    kind: str = "select"
    boolean: bool | None = None
    triples: list[tuple[Term, Term, Term]] = field(default_factory=list)
    truncated: bool = False
    elapsed: float | None = None
    message: str | None = None
    limit: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        self.columns = tuple(_variable_name(c) for c in self.columns)
        if not isinstance(self.rows, list):
            self.rows = [tuple(row) for row in self.rows]
        if not isinstance(self.triples, list):
            self.triples = [tuple(t) for t in self.triples]  # type: ignore[misc]
        if self.kind == "graph":
            if not self.columns:
                self.columns = GRAPH_COLUMNS
            if not self.rows and self.triples:
                self.rows = list(self.triples)
            elif self.rows and not self.triples:
                self.triples = list(self.rows)  # type: ignore[arg-type]
        elif self.kind == "ask":
            if self.boolean is None:
                raise ValueError("an ask result needs a boolean")
            self.boolean = bool(self.boolean)

    # ------------------------------------------------------------ constructors

    @classmethod
    def from_rdflib(
        cls,
        result: RdflibResult,
        *,
        elapsed: float | None = None,
        limit: int | None = None,
    ) -> Result:
        """Convert an rdflib query result (SELECT, ASK, CONSTRUCT or DESCRIBE).

        Works for the results of ``Graph.query`` on any store (Oxigraph through
        ``oxrdflib``, rdflib's memory store, a SPARQL endpoint) and for results read
        with ``rdflib.query.Result.parse``.

        Parameters
        ----------
        result : rdflib.query.Result
            The query result.
        elapsed : float, optional
            Seconds the query took. Measure it around this call too: a store may
            compute the solutions only as they are read.
        limit : int, optional
            Keep at most this many rows (or triples); if there were more, the result is
            marked :attr:`truncated`.

        Returns
        -------
        Result

        Raises
        ------
        TypeError
            If ``result`` is not an rdflib query result.

        Notes
        -----
        Every solution is kept, including one in which no variable is bound (rdflib's
        own iteration drops those). The triples of a graph result are sorted.

        Examples
        --------
        >>> from rdflib import Graph, Literal, URIRef
        >>> g = Graph()
        >>> a, p = URIRef("http://example.org/a"), URIRef("http://example.org/p")
        >>> _ = g.add((a, p, Literal("x", lang="en")))
        >>> r = Result.from_rdflib(g.query("SELECT ?s ?o ?none WHERE { ?s ?p ?o }"))
        >>> r.columns
        ('s', 'o', 'none')
        >>> r.rows == [(a, Literal("x", lang="en"), None)]
        True
        >>> Result.from_rdflib(g.query("ASK { ?s ?p ?o }")).boolean
        True
        >>> Result.from_rdflib(g.query("CONSTRUCT WHERE { ?s ?p ?o }")).kind
        'graph'
        """
        kind = getattr(result, "type", None)
        if kind == "ASK":
            return cls(kind="ask", boolean=bool(result.askAnswer), elapsed=elapsed)
        if kind in ("CONSTRUCT", "DESCRIBE"):
            graph = result.graph
            return cls.from_triples(
                graph if graph is not None else (), elapsed=elapsed, limit=limit
            )
        if kind == "SELECT":
            variables = list(result.vars or ())
            bindings = result.bindings
            keep = len(bindings) if limit is None else check_whole_number("limit", limit, minimum=0) + 1
            rows = [
                tuple(binding.get(v) for v in variables)
                for binding in islice(bindings, keep)
            ]
            rows, cut = _cut(rows, limit)
            return cls(
                columns=tuple(str(v) for v in variables),
                rows=rows,
                kind="select",
                truncated=cut,
                elapsed=elapsed,
                limit=limit,
            )
        raise TypeError(f"not an rdflib query result: {type(result).__name__}")

    @classmethod
    def from_rows(
        cls,
        columns: Iterable[str],
        rows: Iterable[Sequence[Any] | Mapping[str, Any]],
        *,
        elapsed: float | None = None,
        limit: int | None = None,
        truncated: bool = False,
    ) -> Result:
        """A SELECT-style result from plain Python values.

        Parameters
        ----------
        columns : iterable of str
            Column (variable) names; a leading ``?`` or ``$`` is dropped.
        rows : iterable of sequences or mappings
            Each row is a sequence with one value per column, or a mapping from column
            name to value (a missing name is unbound). A value is an rdflib term (kept),
            ``None`` (unbound), or a ``str``, ``int``, ``float``, ``bool``, ``Decimal``,
            ``date``, ``datetime`` or ``time``, which becomes an rdflib ``Literal``
            (``str`` a simple literal, ``int`` an ``xsd:integer`` and so on).
        elapsed : float, optional
            Seconds taken.
        limit : int, optional
            Keep at most this many rows; if there were more, mark the result truncated.
        truncated : bool, default False
            Mark the result as cut at a limit (when the caller did the cutting).

        Returns
        -------
        Result

        Raises
        ------
        ValueError
            If a row does not have one value per column.
        TypeError
            If a value cannot be made an RDF term.

        Examples
        --------
        >>> r = Result.from_rows(["name", "n"], [{"name": "CLIP", "n": 2}, {"name": "ViT"}])
        >>> [[None if t is None else t.n3() for t in row] for row in r.rows]
        [['"CLIP"', '"2"^^<http://www.w3.org/2001/XMLSchema#integer>'], ['"ViT"', None]]
        >>> Result.from_rows(["x"], [(1,), (2,), (3,)], limit=2).truncated
        True
        """
        names = tuple(_variable_name(c) for c in columns)
        converted: list[tuple[Term | None, ...]] = []
        for i, row in enumerate(rows):
            if isinstance(row, Mapping):
                values: Sequence[Any] = [row.get(name) for name in names]
            else:
                values = tuple(row)
                if len(values) != len(names):
                    raise ValueError(
                        f"row {i} has {len(values)} values for {len(names)} columns"
                    )
            converted.append(tuple(_to_term(v) for v in values))
        converted, cut = _cut(converted, limit)
        return cls(
            columns=names,
            rows=converted,
            kind="select",
            truncated=truncated or cut,
            elapsed=elapsed,
            limit=limit,
        )

    @classmethod
    def from_triples(
        cls,
        triples: Iterable[tuple[Term, Term, Term]],
        *,
        elapsed: float | None = None,
        limit: int | None = None,
        sort: bool = True,
    ) -> Result:
        """A graph result from triples (an rdflib ``Graph`` is an iterable of triples).

        Parameters
        ----------
        triples : iterable of (subject, predicate, object)
            rdflib terms.
        elapsed : float, optional
            Seconds taken.
        limit : int, optional
            Keep at most this many triples (after sorting); mark truncated if cut.
        sort : bool, default True
            Sort by subject, predicate, object (IRIs, then blank nodes, then literals),
            which groups the triples by subject and makes the output stable.

        Returns
        -------
        Result

        Examples
        --------
        >>> from rdflib import Literal, URIRef
        >>> from kg.rdf import KG, KGR
        >>> r = Result.from_triples([(KGR["entity/clip"], KG.label, Literal("CLIP"))])
        >>> r.kind, r.columns, len(r.triples)
        ('graph', ('subject', 'predicate', 'object'), 1)
        """
        items = [tuple(t) for t in triples]
        if sort:
            items.sort(key=_triple_key)
        items, cut = _cut(items, limit)
        return cls(
            columns=GRAPH_COLUMNS,
            rows=list(items),
            kind="graph",
            triples=items,  # type: ignore[arg-type]
            truncated=cut,
            elapsed=elapsed,
            limit=limit,
        )

    @classmethod
    def from_boolean(cls, value: bool, *, elapsed: float | None = None) -> Result:
        """The result of an ASK query.

        Examples
        --------
        >>> print(render(Result.from_boolean(False)), end="")
        false
        """
        return cls(kind="ask", boolean=bool(value), elapsed=elapsed)

    @classmethod
    def text(cls, message: str, *, elapsed: float | None = None) -> Result:
        """A result that only says something (a shell command's answer).

        Examples
        --------
        >>> r = Result.text("prefix ex: bound")
        >>> r.kind, render(r), render(r, "json")
        ('message', 'prefix ex: bound\\n', 'prefix ex: bound\\n')
        """
        return cls(kind="message", message=str(message), elapsed=elapsed)

    # ------------------------------------------------------------ accessors

    @property
    def count(self) -> int:
        """The number of rows (or triples); 0 for ASK and message results.

        Examples
        --------
        >>> Result.from_rows(["x"], [(1,), (2,)]).count
        2
        """
        if self.kind == "graph":
            return len(self.triples)
        if self.kind == "select":
            return len(self.rows)
        return 0

    def to_records(self) -> list[dict[str, Any]]:
        """The rows as dictionaries of Python values (see :meth:`to_dataframe`).

        Unbound variables map to ``None``.

        Examples
        --------
        >>> from rdflib import URIRef
        >>> r = Result.from_rows(["s", "n", "u"], [(URIRef("http://example.org/a"), 3, None)])
        >>> r.to_records()
        [{'s': 'http://example.org/a', 'n': 3, 'u': None}]
        """
        columns, rows = _tabular(self)
        return [{c: _python_value(t) for c, t in zip(columns, row)} for row in rows]

    def to_dataframe(self) -> pandas.DataFrame:
        """The rows as a pandas DataFrame of Python values.

        IRIs become ``str``; blank nodes ``"_:label"``; literals their Python value
        (``Literal.toPython()``: ``int``, ``float``, ``Decimal``, ``bool``, ``date``,
        ``datetime``, ``str``...), or their lexical form where rdflib has no Python
        value for the datatype; unbound values are missing. A graph result gives the
        columns ``subject``, ``predicate``, ``object``. pandas is imported here, not
        when this module is.

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        kg.errors.UsageError
            If pandas is not installed, or the result is an ASK or message result,
            which has no table.

        Examples
        --------
        >>> df = Result.from_rows(["label", "n"], [("CLIP", 12), ("LoRA", 3)]).to_dataframe()
        >>> list(df.columns), df["n"].tolist()
        (['label', 'n'], [12, 3])
        """
        try:
            import pandas as pd
        except ImportError:
            raise UsageError("pandas is not installed: pip install pandas") from None
        columns, rows = _tabular(self)
        data = [tuple(_python_value(t) for t in row) for row in rows]
        if not columns:
            return pd.DataFrame(index=range(len(data)))
        return pd.DataFrame.from_records(data, columns=list(columns))

    def to_graph(self) -> Graph:
        """The triples of a graph result as an rdflib ``Graph`` with the project's prefixes bound.

        Raises
        ------
        kg.errors.UsageError
            If this is not a graph result.

        Examples
        --------
        >>> from rdflib import Literal
        >>> from kg.rdf import KG, KGR
        >>> g = Result.from_triples([(KGR["entity/clip"], KG.label, Literal("CLIP"))]).to_graph()
        >>> len(g)
        1
        """
        if self.kind != "graph":
            raise UsageError(f"{_a(self.kind)} result has no triples")
        from rdflib import Graph

        graph = Graph()
        for prefix, namespace in PREFIXES.items():
            graph.bind(prefix, namespace, override=True, replace=True)
        for triple in self.triples:
            graph.add(triple)
        return graph


# --------------------------------------------------------------------------- rendering


def render(
    result: Result,
    fmt: str = "table",
    *,
    prefixes: Mapping[str, str] | None = PREFIXES,
    max_width: int | None = None,
) -> str:
    r"""Render a result as text in one of :data:`FORMATS`.

    Parameters
    ----------
    result : Result
        What to render.
    fmt : {"table", "csv", "tsv", "json", "xml"}
        ``table`` is for people; the others are the W3C SPARQL results formats (see the
        module documentation for the details of each).
    prefixes : mapping of str to str, optional
        Prefix to namespace IRI, used by ``table`` to show IRIs as prefixed names
        (the longest matching namespace wins). Defaults to the project's
        :data:`kg.namespace.PREFIXES`; ``None`` or ``{}`` shows every IRI in full.
    max_width : int, optional
        ``table`` only: the widest a cell may be, in terminal columns; longer values are
        cut and end in ``…``.

    Returns
    -------
    str
        The whole document, ending with a line break (an empty message renders as "").

    Raises
    ------
    kg.errors.UsageError
        For an unknown format or a ``max_width`` below 1.
    TypeError
        For a W3C format, if a row holds something other than an rdflib term or None
        (build results with the constructors, which convert plain values).

    Examples
    --------
    >>> from rdflib import BNode, Literal, URIRef
    >>> from kg.rdf import KG
    >>> r = Result.from_rows(
    ...     ["s", "p", "o"],
    ...     [(BNode("b0"), KG.name, Literal('café, "au lait" froid', lang="fr")),
    ...      (URIRef("http://example.org/x"), KG.year, None)],
    ... )
    >>> print(render(r), end="")
     s                      | p       | o
    ------------------------+---------+-----------------------
     _:b0                   | kg:name | café, "au lait" froid
     <http://example.org/x> | kg:year |
    >>> print(render(r, max_width=10), end="")
     s          | p       | o
    ------------+---------+------------
     _:b0       | kg:name | café, "au…
     <http://e… | kg:year |
    >>> print(render(r, "csv").replace("\r\n", "\n"), end="")  # doctest: +ELLIPSIS
    s,p,o
    _:b0,...#name,"café, ""au lait"" froid"
    http://example.org/x,...#year,
    >>> render(r, "csv").count("\r\n")
    3
    >>> print(render(r, "json"), end="")  # doctest: +ELLIPSIS
    {"head":{"vars":["s","p","o"]},"results":{"bindings":[
    {"s":{"type":"bnode","value":"b0"},"p":{...},"o":{"type":"literal","value":"café, \"au lait\" froid","xml:lang":"fr"}},
    {"s":{"type":"uri","value":"http://example.org/x"},"p":{"type":"uri","value":"...#year"}}
    ]}}
    >>> print(render(Result.from_rows(["x"], []), "xml"), end="")
    <?xml version="1.0" encoding="UTF-8"?>
    <sparql xmlns="http://www.w3.org/2005/sparql-results#">
      <head>
        <variable name="x"/>
      </head>
      <results>
      </results>
    </sparql>
    >>> print(render(Result.from_rows(["x"], [])), end="")
     x
    ---
    (no rows)
    """
    key = fmt.lower() if isinstance(fmt, str) else fmt
    if key not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    if max_width is not None and (not isinstance(max_width, int) or max_width < 1):
        raise UsageError(f"max_width must be a positive integer, not {max_width!r}")
    if result.kind == "message":
        text = result.message or ""
        return text if not text or text.endswith("\n") else text + "\n"
    if result.kind == "ask":
        answer = "true" if result.boolean else "false"
        if key == "json":
            return '{"head":{},"boolean":%s}\n' % answer
        if key == "xml":
            return "\n".join(
                [
                    '<?xml version="1.0" encoding="UTF-8"?>',
                    f'<sparql xmlns="{SPARQL_RESULTS_NS}">',
                    "  <head/>",
                    f"  <boolean>{answer}</boolean>",
                    "</sparql>",
                    "",
                ]
            )
        return answer + ("\r\n" if key == "csv" else "\n")
    columns, rows = _tabular(result)
    if key == "table":
        empty = "(no triples)" if result.kind == "graph" else "(no rows)"
        return _render_table(columns, rows, prefixes, max_width, empty)
    if key == "csv":
        return _render_csv(columns, rows)
    if key == "tsv":
        return _render_tsv(columns, rows)
    if key == "json":
        return _render_json(columns, rows)
    return _render_xml(columns, rows)


def summary_line(result: Result) -> str:
    """The one-line footer printed after a result, like pgcli's.

    ``"3 rows in 0.012 s"``, ``"1 row"``, ``"7 triples in 0.004 s"``,
    ``"answer: true in 0.002 s"``, with ``" (cut at limit 100)"`` when the rows were cut.
    A message result has no count: ``"done in 0.100 s"``, or ``""`` without a time.

    Examples
    --------
    >>> summary_line(Result.from_rows(["x"], [(1,)]))
    '1 row'
    >>> summary_line(Result.from_rows(["x"], [(i,) for i in range(5)], limit=3, elapsed=0.0121))
    '3 rows in 0.012 s (cut at limit 3)'
    >>> summary_line(Result.from_boolean(True, elapsed=0.002))
    'answer: true in 0.002 s'
    >>> summary_line(Result.text("ok"))
    ''
    """
    if result.kind == "select":
        text = _plural(len(result.rows), "row")
    elif result.kind == "graph":
        text = _plural(len(result.triples), "triple")
    elif result.kind == "ask":
        text = "answer: " + ("true" if result.boolean else "false")
    else:
        text = ""
    if result.elapsed is not None:
        text = f"{text} in {result.elapsed:.3f} s" if text else f"done in {result.elapsed:.3f} s"
    if result.truncated:
        note = f"(cut at limit {result.limit})" if result.limit is not None else "(cut at a limit)"
        text = f"{text} {note}" if text else note
    return text


# --------------------------------------------------------------------------- helpers


def _variable_name(name: str) -> str:
    name = str(name)
    return name[1:] if name[:1] in ("?", "$") else name


def _a(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _cut(items: list, limit: int | None) -> tuple[list, bool]:
    if limit is None:
        return items, False
    check_whole_number("limit", limit, minimum=0)
    if len(items) <= limit:
        return items, False
    return items[:limit], True


def _tabular(result: Result) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    if result.kind == "graph":
        return GRAPH_COLUMNS, result.triples  # type: ignore[return-value]
    if result.kind == "select":
        return result.columns, result.rows
    raise UsageError(
        f"{_a(result.kind)} result has no rows"
        + ("; use result.boolean" if result.kind == "ask" else "")
    )


def _to_term(value: Any) -> Term | None:
    if value is None or isinstance(value, Identifier):
        return value
    if isinstance(value, (str, bool, int, float, Decimal, datetime.date, datetime.time)):
        return Literal(value)
    if isinstance(value, numbers.Integral):  # numpy integers and the like
        return Literal(int(value))
    if isinstance(value, numbers.Real):
        return Literal(float(value))
    raise TypeError(f"cannot make an RDF term of {type(value).__name__} {value!r}")


def _python_value(term: Any) -> Any:
    if term is None:
        return None
    if isinstance(term, URIRef):
        return str(term)
    if isinstance(term, BNode):
        return "_:" + str(term)
    if isinstance(term, Literal):
        value = term.toPython()
        return str(term) if isinstance(value, Literal) else value
    return str(term)


def _term_key(term: Any) -> tuple[int, str, str]:
    if isinstance(term, URIRef):
        return (0, str(term), "")
    if isinstance(term, BNode):
        return (1, str(term), "")
    if isinstance(term, Literal):
        return (2, str(term), f"{term.language or ''}|{term.datatype or ''}")
    return (3, "" if term is None else str(term), "")


def _triple_key(triple: tuple[Any, ...]) -> tuple[tuple[int, str, str], ...]:
    return tuple(_term_key(t) for t in triple)


def _is_simple(literal: Literal) -> bool:
    """True for a literal written without a datatype (no datatype, or xsd:string)."""
    return literal.datatype is None or str(literal.datatype) == _XSD_STRING


def _unknown_term(term: Any) -> TypeError:
    return TypeError(f"not an RDF term: {type(term).__name__} {term!r}")


# ---- table

# Line breaks become a visible mark, tabs a space, other control characters \xNN.
_LINE_MARK = "\u21b5"  # ↵
_CLEAN_TABLE: dict[int, str] = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))}
_CLEAN_TABLE.update(
    {c: _LINE_MARK for c in (0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029)}
)
_CLEAN_TABLE[0x09] = " "


def _clean(text: str) -> str:
    if text.isprintable():
        return text
    return text.replace("\r\n", "\n").translate(_CLEAN_TABLE)


@lru_cache(maxsize=1)
def _wcswidth() -> Callable[[str], int] | None:
    try:
        from wcwidth import wcswidth
    except ImportError:  # pragma: no cover - wcwidth is normally installed with prompt-toolkit
        return None
    return wcswidth


def _width(text: str) -> int:
    """Terminal columns taken by ``text`` (already cleaned of control characters)."""
    if text.isascii():
        return len(text)
    measure = _wcswidth()
    if measure is None:
        return len(text)
    width = measure(text)
    return len(text) if width < 0 else width


def _clip(text: str, max_width: int | None) -> str:
    if max_width is None or _width(text) <= max_width:
        return text
    room = max_width - 1  # the ellipsis takes one column
    lo, hi = 0, min(len(text), room)  # no more characters than columns are needed
    while lo < hi:  # the longest prefix that fits
        mid = (lo + hi + 1) // 2
        if _width(text[:mid]) <= room:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "…"


def _compactor(prefixes: Mapping[str, str] | None) -> Callable[[str], str]:
    namespaces = sorted(
        ((str(ns), str(p)) for p, ns in (prefixes or {}).items() if ns),
        key=lambda item: (-len(item[0]), item[1]),
    )
    cache: dict[str, str] = {}

    def compact(iri: str) -> str:
        iri = str(iri)
        shown = cache.get(iri)
        if shown is None:
            for namespace, prefix in namespaces:
                if iri.startswith(namespace):
                    shown = f"{prefix}:{iri[len(namespace):]}"
                    break
            else:
                shown = f"<{iri}>"
            cache[iri] = shown
        return shown

    return compact


def _table_cell(term: Any, compact: Callable[[str], str]) -> tuple[str, bool | None]:
    """The text of a cell and whether it is a number (``None`` when unbound)."""
    if term is None:
        return "", None
    if isinstance(term, URIRef):
        return compact(term), False
    if isinstance(term, BNode):
        return "_:" + str(term), False
    if isinstance(term, Literal):
        numeric = term.datatype is not None and str(term.datatype) in _NUMERIC_DATATYPES
        return str(term), numeric
    return str(term), False


def _render_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    prefixes: Mapping[str, str] | None,
    max_width: int | None,
    empty: str,
) -> str:
    if not columns:
        if not rows:
            return empty + "\n"
        return f"({_plural(len(rows), 'row')} with no variables)\n"
    compact = _compactor(prefixes)
    header = [_clip(_clean(str(c)), max_width) for c in columns]
    widths = [_width(h) for h in header]
    # A column is right-aligned when every value bound in it is a number.
    numeric: list[bool | None] = [None] * len(columns)
    body: list[list[tuple[str, int]]] = []
    for row in rows:
        cells = []
        for i, term in enumerate(row[: len(columns)]):
            text, is_number = _table_cell(term, compact)
            text = _clip(_clean(text), max_width)
            width = _width(text)
            widths[i] = max(widths[i], width)
            if is_number is not None:
                numeric[i] = is_number if numeric[i] is None else numeric[i] and is_number
            cells.append((text, width))
        body.append(cells)

    def line(cells: Iterable[tuple[str, int]], align: Sequence[bool | None]) -> str:
        parts = []
        for (text, width), room, right in zip(cells, widths, align):
            pad = " " * (room - width)
            parts.append(pad + text if right else text + pad)
        return (" " + " | ".join(parts)).rstrip()

    lines = [line(((h, _width(h)) for h in header), [False] * len(columns))]
    lines.append("+".join("-" * (w + 2) for w in widths))
    lines.extend(line(cells, numeric) for cells in body)
    if not rows:
        lines.append(empty)
    return "\n".join(lines) + "\n"


# ---- CSV and TSV

# Turtle's BLANK_NODE_LABEL; a label outside it is written in a form that is.
_PN_CHARS_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff"
    "\u200c-\u200d\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd"
    "\U00010000-\U000effff"
)
_PN_CHARS_U = _PN_CHARS_BASE + "_"
_PN_CHARS = _PN_CHARS_U + "\\-0-9\u00b7\u0300-\u036f\u203f-\u2040"
_BNODE_LABEL = re.compile(f"[{_PN_CHARS_U}0-9](?:[{_PN_CHARS}.]*[{_PN_CHARS}])?")


def _bnode_label(node: BNode) -> str:
    label = str(node)
    if _BNODE_LABEL.fullmatch(label):
        return label
    return "x" + label.encode("utf-8").hex()


def _csv_field(term: Any) -> str:
    if term is None:
        return ""
    if isinstance(term, BNode):
        return "_:" + _bnode_label(term)
    if isinstance(term, (URIRef, Literal)):
        return str(term)
    raise _unknown_term(term)


def _render_csv(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180: minimal quoting, "" for "
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_field(t) for t in row])
    return out.getvalue()


_STRING_ESCAPES = str.maketrans(
    {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
)
_IRI_UNSAFE = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_CANONICAL_INTEGER = re.compile(r"0|-?[1-9][0-9]*")


def _turtle_iri(iri: str) -> str:
    return "<" + _IRI_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04X}", str(iri)) + ">"


def _turtle_string(text: str) -> str:
    return '"' + text.translate(_STRING_ESCAPES) + '"'


def _tsv_field(term: Any) -> str:
    if term is None:
        return ""
    if isinstance(term, URIRef):
        return _turtle_iri(term)
    if isinstance(term, BNode):
        return "_:" + _bnode_label(term)
    if isinstance(term, Literal):
        lexical = str(term)
        if term.language:
            return _turtle_string(lexical) + "@" + term.language
        if _is_simple(term):
            return _turtle_string(lexical)
        datatype = str(term.datatype)
        if datatype == _XSD_INTEGER and _CANONICAL_INTEGER.fullmatch(lexical):
            return lexical
        if datatype == _XSD_BOOLEAN and lexical in ("true", "false"):
            return lexical
        return _turtle_string(lexical) + "^^" + _turtle_iri(datatype)
    raise _unknown_term(term)


def _render_tsv(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["\t".join("?" + c for c in columns)]
    lines.extend("\t".join(_tsv_field(t) for t in row) for row in rows)
    return "\n".join(lines) + "\n"


# ---- JSON


def _json_term(term: Any) -> dict[str, str]:
    if isinstance(term, URIRef):
        return {"type": "uri", "value": str(term)}
    if isinstance(term, BNode):
        return {"type": "bnode", "value": str(term)}
    if isinstance(term, Literal):
        value = {"type": "literal", "value": str(term)}
        if term.language:
            value["xml:lang"] = term.language
        elif not _is_simple(term) and str(term.datatype) != _RDF_LANGSTRING:
            value["datatype"] = str(term.datatype)
        return value
    raise _unknown_term(term)


def _json_dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _render_json(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = '{"head":' + _json_dumps({"vars": list(columns)}) + ',"results":{"bindings":['
    if not rows:
        return head + "]}}\n"
    bindings = [
        _json_dumps({c: _json_term(t) for c, t in zip(columns, row) if t is not None})
        for row in rows
    ]
    return head + "\n" + ",\n".join(bindings) + "\n]}}\n"


# ---- XML

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    text = _XML_INVALID.sub("\ufffd", str(text))
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\r", "&#13;")
    )


def _xml_attr(text: str) -> str:
    return _xml_text(text).replace('"', "&quot;").replace("\t", "&#9;").replace("\n", "&#10;")


def _xml_term(term: Any) -> str:
    if isinstance(term, URIRef):
        return f"<uri>{_xml_text(term)}</uri>"
    if isinstance(term, BNode):
        return f"<bnode>{_xml_text(term)}</bnode>"
    if isinstance(term, Literal):
        if term.language:
            attr = f' xml:lang="{_xml_attr(term.language)}"'
        elif not _is_simple(term) and str(term.datatype) != _RDF_LANGSTRING:
            attr = f' datatype="{_xml_attr(term.datatype)}"'
        else:
            attr = ""
        return f"<literal{attr}>{_xml_text(term)}</literal>"
    raise _unknown_term(term)


def _render_xml(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<sparql xmlns="{SPARQL_RESULTS_NS}">',
        "  <head>",
    ]
    out.extend(f'    <variable name="{_xml_attr(c)}"/>' for c in columns)
    out.append("  </head>")
    out.append("  <results>")
    names = [_xml_attr(c) for c in columns]
    for row in rows:
        out.append("    <result>")
        out.extend(
            f'      <binding name="{name}">{_xml_term(t)}</binding>'
            for name, t in zip(names, row)
            if t is not None
        )
        out.append("    </result>")
    out.append("  </results>")
    out.append("</sparql>")
    return "\n".join(out) + "\n"
