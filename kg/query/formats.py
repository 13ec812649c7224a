"""The formats a result is written in: the table for people and the four W3C formats, by pyoxigraph.

:func:`render` is the one formatter: every caller (``kg query``, the shell, the Python API)
turns a :class:`~kg.query.result.Result` into text with it.

``table``
    For people; see :mod:`kg.query.table`.
``csv``, ``tsv``, ``json``, ``xml``
    The *SPARQL 1.1 Query Results* CSV, TSV and JSON formats and the *SPARQL Query Results
    XML Format*, written by pyoxigraph's ``QuerySolutions.serialize`` and
    ``QueryBoolean.serialize``, so as Oxigraph writes them. CSV: IRIs as they are,
    literals as their lexical form, blank nodes as ``_:label``, unbound as an empty field,
    RFC 4180 quoting and CRLF line ends. TSV: terms in Turtle syntax, numbers and booleans
    in Turtle's short form where their lexical form allows (``42``, ``1.25``, ``true``). JSON
    and XML: compact, on one line; in XML every carriage return is written ``&#13;`` so that
    XML parsers keep it (pyoxigraph leaves some raw). A literal of datatype ``xsd:string`` is written as a
    simple literal, as RDF 1.1 makes them the same term. CSV and TSV do not define ASK; as
    Oxigraph does, the answer is written as ``true`` or ``false`` alone on a line.

A graph result is written in the W3C formats as the SELECT-style table of the variables
``subject``, ``predicate``, ``object``, so that any SPARQL results parser reads it back;
:func:`render_graph` writes it in an RDF syntax instead (:data:`GRAPH_FORMATS`, named as
``kg export`` names them), and ``kg export`` writes the whole store. A message result renders as
its text in every format.

A result reaches pyoxigraph the same way wherever its rows came from (Oxigraph, an endpoint,
a shell command): each term in the N-Triples form that pyoxigraph writes (``str(term)``), one
TSV line per row, read back with ``parse_query_results``. (A ``VALUES`` block, the other
way in, cannot carry blank nodes.) Because pyoxigraph checks what it is given, a few
values are made writable first: a blank node label outside Turtle's syntax becomes ``x``
followed by the label's UTF-8 bytes in hex; an IRI with spaces or other characters that IRIs
may not hold has them percent-encoded; in XML, characters that XML 1.0 cannot carry (the C0
controls other than tab, LF and CR) become U+FFFD. Language tags come out in lower case, as
Oxigraph keeps them.

Examples
--------
>>> from kg.query.result import Result
>>> r = Result.from_rows(["entity", "papers"], [("CLIP", 12), ("LoRA", None)])
>>> print(render(r), end="")
 entity | papers
--------+--------
 CLIP   |     12
 LoRA   |
>>> print(render(r, "tsv"), end="")  # doctest: +NORMALIZE_WHITESPACE
?entity ?papers
"CLIP"  12
"LoRA"
>>> import json
>>> json.loads(render(r, "json"))["results"]["bindings"][1]
{'entity': {'type': 'literal', 'value': 'LoRA'}}
>>> render(Result.from_boolean(True), "csv")
'true\\r\\n'
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote

from rdflib.term import BNode, Literal, URIRef

from kg.errors import UsageError
from kg.namespace import PREFIXES
from kg.query.result import Result
from kg.query.table import render_table
from kg.query.terms import Term, to_oxigraph

if TYPE_CHECKING:  # pragma: no cover - imported for annotations only
    import pyoxigraph

__all__ = ["FORMATS", "GRAPH_FORMATS", "render", "render_graph"]

FORMATS = ("table", "csv", "tsv", "json", "xml")
"""The formats :func:`render` writes."""

GRAPH_FORMATS = {"ttl": "TURTLE", "nt": "N_TRIPLES", "jsonld": "JSON_LD", "xml": "RDF_XML"}
"""The RDF syntaxes :func:`render_graph` writes, by the names ``kg export`` gives them, to pyoxigraph's
``RdfFormat`` names."""

_LINE_END = {"csv": "\r\n"}  # and "\n" for the others


def render(
    result: Result,
    fmt: str = "table",
    *,
    prefixes: Mapping[str, str] | None = PREFIXES,
    max_width: int | None = None,
    width: int | None = None,
) -> str:
    """Render a result as text in one of :data:`FORMATS`.

    Parameters
    ----------
    result : Result
        What to render.
    fmt : {"table", "csv", "tsv", "json", "xml"}
        ``table`` is for people; the others are the W3C SPARQL results formats (see the
        module documentation). Any case.
    prefixes : mapping of str to str, optional
        ``table`` only: prefix to namespace IRI, to show IRIs as prefixed names (the longest
        matching namespace wins). Defaults to the project's :data:`kg.namespace.PREFIXES`;
        ``None`` or ``{}`` shows every IRI in full.
    max_width : int, optional
        ``table`` only: the widest a cell may be, in terminal columns; longer values are
        cut and end in ``…``.
    width : int, optional
        ``table`` only: the terminal's width, which rows are fitted to by cutting the widest
        cells (see :func:`kg.query.table.render_table`).

    Returns
    -------
    str
        The whole document, ending with a line break (CRLF for CSV); an empty message
        renders as "".

    Raises
    ------
    kg.errors.UsageError
        For an unknown format or a ``max_width`` below 1.
    TypeError
        For a W3C format, if a row holds something other than an rdflib term or None
        (build results with the constructors, which convert plain values).
    ValueError
        For a W3C format, if a column name is not a SPARQL variable name, or a term is one
        that pyoxigraph refuses even after the repairs described in the module
        documentation (a relative IRI, say).

    Examples
    --------
    >>> from rdflib import BNode, Literal
    >>> r = Result.from_rows(["s", "o"], [(BNode("b0"), Literal('café, "au lait" froid', lang="fr"))])
    >>> print(render(r, "csv").replace("\\r\\n", "\\n"), end="")
    s,o
    _:b0,"café, ""au lait"" froid"
    >>> print(render(r, "xml"), end="")  # doctest: +ELLIPSIS
    <?xml version="1.0"?><sparql ...><literal xml:lang="fr">café, &quot;au lait&quot; froid</literal>...
    >>> render(Result.text("bound ex:"), "json")
    'bound ex:\\n'
    """
    key = fmt.lower() if isinstance(fmt, str) else fmt
    if key not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    if max_width is not None and (not isinstance(max_width, int) or max_width < 1):
        raise UsageError(f"max_width must be a positive integer, not {max_width!r}")
    if result.kind == "message":
        text = result.message or ""
        return text if not text or text.endswith("\n") else text + "\n"
    if key == "table":
        return render_table(result, prefixes=prefixes, max_width=max_width, width=width)
    output = io.BytesIO()
    _oxigraph_answer(result, xml=key == "xml").serialize(output, _oxigraph_format(key))
    text = output.getvalue().decode("utf-8")
    if key == "xml":
        # pyoxigraph leaves a carriage return raw in text that needs no other escape, and XML
        # parsers read a raw one as a line feed; markup holds none, so escaping all of them is safe.
        text = text.replace("\r", "&#13;")
    return text if text.endswith("\n") else text + _LINE_END.get(key, "\n")


def render_graph(result: Result, fmt: str = "ttl", *, prefixes: Mapping[str, str] | None = PREFIXES) -> bytes:
    """The triples of a graph result (CONSTRUCT, DESCRIBE) in one of the RDF syntaxes of :data:`GRAPH_FORMATS`,
    written by pyoxigraph, in the result's order.

    ``prefixes`` are declared in Turtle and RDF/XML, as ``kg export`` declares them.

    Raises
    ------
    kg.errors.UsageError
        For an unknown format, or a result that is not a graph.

    Examples
    --------
    >>> from rdflib import Literal, URIRef
    >>> from kg.namespace import ENTITY_NAMESPACE, RDFS_IRI
    >>> r = Result.from_triples([(URIRef(ENTITY_NAMESPACE + "clip"), URIRef(RDFS_IRI + "label"), Literal("CLIP"))])
    >>> print(render_graph(r, "ttl", prefixes={"entity": ENTITY_NAMESPACE, "rdfs": RDFS_IRI}).decode(), end="")
    @prefix entity: <https://w3id.org/abstract-kg/resource/entity/> .
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    entity:clip rdfs:label "CLIP" .
    >>> render_graph(r, "nt").decode()
    '<https://w3id.org/abstract-kg/resource/entity/clip> <http://www.w3.org/2000/01/rdf-schema#label> "CLIP" .\\n'
    """
    import pyoxigraph as ox

    if fmt not in GRAPH_FORMATS:
        raise UsageError(f"unknown RDF format {fmt!r}: use one of {', '.join(GRAPH_FORMATS)}")
    if result.kind != "graph":
        raise UsageError(f"a {result.kind} result is not a graph")
    rdf_format = getattr(ox.RdfFormat, GRAPH_FORMATS[fmt])
    triples = [ox.Triple(*(to_oxigraph(term) for term in triple)) for triple in result.triples]
    declared = dict(prefixes) if prefixes and rdf_format.name in ("Turtle", "RDF/XML") else None
    return ox.serialize(triples, format=rdf_format, prefixes=declared)


def _oxigraph_format(key: str) -> pyoxigraph.QueryResultsFormat:
    import pyoxigraph as ox

    return {
        "csv": ox.QueryResultsFormat.CSV,
        "tsv": ox.QueryResultsFormat.TSV,
        "json": ox.QueryResultsFormat.JSON,
        "xml": ox.QueryResultsFormat.XML,
    }[key]


def _oxigraph_answer(result: Result, *, xml: bool) -> pyoxigraph.QuerySolutions | pyoxigraph.QueryBoolean:
    """The result as pyoxigraph's own answer, by way of TSV (see the module documentation)."""
    import pyoxigraph as ox

    if result.kind == "ask":
        text = "true" if result.boolean else "false"
    else:
        columns, rows = result.tabular()
        for name in columns:
            try:
                ox.Variable(name)
            except ValueError:
                raise ValueError(
                    f"column {name!r} is not a SPARQL variable name, which the W3C result formats need"
                ) from None
        lines = ["\t".join("?" + name for name in columns)]
        lines.extend("\t".join("" if t is None else _ntriples(t, xml=xml) for t in row) for row in rows)
        text = "\n".join(lines) + "\n"
    return ox.parse_query_results(text, ox.QueryResultsFormat.TSV)


# Turtle's BLANK_NODE_LABEL, and what an IRI may not hold (IRIREF in Turtle and SPARQL).
_PN_CHARS_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff"
    "\u200c-\u200d\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd"
    "\U00010000-\U000effff"
)
_PN_CHARS_U = _PN_CHARS_BASE + "_"
_PN_CHARS = _PN_CHARS_U + "\\-0-9\u00b7\u0300-\u036f\u203f-\u2040"
_BNODE_LABEL = re.compile(f"[{_PN_CHARS_U}0-9](?:[{_PN_CHARS}.]*[{_PN_CHARS}])?")
_IRI_UNSAFE = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _ntriples(term: Term, *, xml: bool) -> str:
    """The N-Triples form of ``term`` as pyoxigraph writes it, repaired where pyoxigraph would refuse it."""
    if isinstance(term, BNode) and not _BNODE_LABEL.fullmatch(term):
        term = BNode("x" + str(term).encode("utf-8").hex())
    elif isinstance(term, URIRef) and _IRI_UNSAFE.search(term):
        term = URIRef(_IRI_UNSAFE.sub(lambda m: quote(m.group(), safe=""), term))
    elif xml and isinstance(term, Literal) and _XML_INVALID.search(term):
        import pyoxigraph as ox

        value = to_oxigraph(term)
        return str(
            ox.Literal(
                _XML_INVALID.sub("\ufffd", value.value),
                language=value.language,
                datatype=None if value.language else value.datatype,
            )
        )
    return str(to_oxigraph(term))
