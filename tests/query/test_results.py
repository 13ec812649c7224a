"""Tests of kg.query: the Result type, term conversion, the table formatter and the W3C result formats.

The W3C serialisations are checked by reading them back with rdflib's own SPARQL
result parsers and with Oxigraph's (pyoxigraph), and against what Oxigraph itself
writes for the same query over the same data.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import subprocess
import sys
from decimal import Decimal
from xml.etree import ElementTree

import pyoxigraph as ox
import pytest
from rdflib import BNode, Graph, Literal, URIRef

# (rdflib's ClosedNamespace objects at module level make doctest collection warn.)
from rdflib import namespace as ns
from rdflib.query import Result as RdflibResult

from kg.errors import UsageError
from kg.namespace import ONTOLOGY_IRI, RESOURCE_IRI
from kg.query import FORMATS, GRAPH_COLUMNS, Result, render, summary_line
from kg.query.terms import from_oxigraph, to_oxigraph
from kg.rdf import KG

EX = "http://example.org/"
CLIP = f"{RESOURCE_IRI}entity/clip"

# Values chosen to break naive writers: quotes, commas, line breaks (LF, CRLF, CR),
# tabs, backslashes, XML metacharacters, non-ASCII, an empty string, a U+2028.
DATA_NT = f"""\
<{CLIP}> <{ns.RDF.type}> <{ONTOLOGY_IRI}Method> .
<{CLIP}> <{ONTOLOGY_IRI}label> "CLIP" .
<{CLIP}> <{ns.RDFS.label}> "Contrastive, \\"Language\\"\\nImage"@en-gb .
<{CLIP}> <{ns.RDFS.label}> "Modèle CLIP"@fr .
<{CLIP}> <{ONTOLOGY_IRI}note> "tab\\there\\r\\nCRLF and lone\\rCR" .
<{CLIP}> <{ONTOLOGY_IRI}note> "日本語 ünïcödé 👍 line\u2028sep" .
<{CLIP}> <{ONTOLOGY_IRI}note> "back\\\\slash, 'single' <tag> & amp ]]> end" .
<{CLIP}> <{ONTOLOGY_IRI}note> "" .
<{CLIP}> <{ONTOLOGY_IRI}year> "2021"^^<{ns.XSD.integer}> .
<{CLIP}> <{ONTOLOGY_IRI}delta> "-3"^^<{ns.XSD.integer}> .
<{CLIP}> <{ONTOLOGY_IRI}score> "0.5"^^<{ns.XSD.double}> .
<{CLIP}> <{ONTOLOGY_IRI}ratio> "1.25"^^<{ns.XSD.decimal}> .
<{CLIP}> <{ONTOLOGY_IRI}date> "2021-02-26"^^<{ns.XSD.date}> .
<{CLIP}> <{ONTOLOGY_IRI}open> "true"^^<{ns.XSD.boolean}> .
<{CLIP}> <{ONTOLOGY_IRI}custom> "x y"^^<{EX}dt> .
<{CLIP}> <{ONTOLOGY_IRI}explicit> "typed string"^^<{ns.XSD.string}> .
<{CLIP}> <{ONTOLOGY_IRI}link> <{EX}\u00fc?q=a&b=c> .
<{CLIP}> <{ONTOLOGY_IRI}part> _:b1 .
_:b1 <{ONTOLOGY_IRI}label> "in a blank node" .
"""

N_TRIPLES = DATA_NT.count(" .\n")

QUERY = f"""
SELECT ?s ?p ?o ?missing WHERE {{
  ?s ?p ?o
  OPTIONAL {{ ?o <{EX}nope> ?missing }}
}} ORDER BY ?s ?p ?o
"""

OX_FORMATS = {
    "json": ox.QueryResultsFormat.JSON,
    "xml": ox.QueryResultsFormat.XML,
    "tsv": ox.QueryResultsFormat.TSV,
    "csv": ox.QueryResultsFormat.CSV,
}


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def oxrdflib_graph() -> Graph:
    graph = Graph(store="Oxigraph")
    graph.parse(data=DATA_NT, format="nt")
    return graph


@pytest.fixture(scope="module")
def ox_store():
    store = ox.Store()
    store.load(DATA_NT.encode("utf-8"), format=ox.RdfFormat.N_TRIPLES)
    return store


@pytest.fixture(scope="module")
def rich(oxrdflib_graph: Graph) -> Result:
    """A real SELECT result: Oxigraph's engine, reached through rdflib and oxrdflib."""
    return Result.from_rdflib(oxrdflib_graph.query(QUERY), elapsed=0.01)


# --------------------------------------------------------------------------- helpers


def term_key(term, bnodes: dict) -> tuple | None:
    """A comparable form of an rdflib or pyoxigraph term.

    Blank nodes are numbered by first appearance (labels are not kept across stores);
    ``xsd:string`` and ``rdf:langString`` datatypes are dropped (RDF 1.1 simple literals).
    """
    if term is None:
        return None
    if isinstance(term, (URIRef, ox.NamedNode)):
        return ("uri", str(term.value if isinstance(term, ox.NamedNode) else term))
    if isinstance(term, (BNode, ox.BlankNode)):
        label = term.value if isinstance(term, ox.BlankNode) else str(term)
        return ("bnode", bnodes.setdefault(label, len(bnodes)))
    if isinstance(term, Literal):
        datatype = None if term.datatype is None else str(term.datatype)
        lexical, language = str(term), term.language
    elif isinstance(term, ox.Literal):
        datatype, lexical, language = term.datatype.value, term.value, term.language
    else:
        raise TypeError(term)
    if language:
        return ("literal", lexical, language.lower(), None)
    if datatype in (str(ns.XSD.string), str(ns.RDF.langString)):
        datatype = None
    return ("literal", lexical, None, datatype)


def keyed_rows(rows) -> list[tuple]:
    bnodes: dict = {}
    return [tuple(term_key(t, bnodes) for t in row) for row in rows]


def rdflib_rows(parsed: RdflibResult) -> list[tuple]:
    variables = list(parsed.vars)
    return [tuple(b.get(v) for v in variables) for b in parsed.bindings]


def ox_rows(solutions) -> list[tuple]:
    names = [v.value for v in solutions.variables]
    return [tuple(solution[name] for name in names) for solution in solutions]


def parse_with_rdflib(text: str, fmt: str) -> RdflibResult:
    return RdflibResult.parse(io.StringIO(text, newline=""), format=fmt)


def canonical_bnodes_json(document: dict) -> dict:
    """Renumber blank node labels in a SPARQL JSON document by first appearance."""
    labels: dict = {}
    for binding in document.get("results", {}).get("bindings", []):
        for value in binding.values():
            if value["type"] == "bnode":
                value["value"] = str(labels.setdefault(value["value"], len(labels)))
    return document


# --------------------------------------------------------------------------- the type


def test_from_rows_converts_plain_python_values():
    r = Result.from_rows(
        ["?name", "$n", "x", "ok", "price", "day", "term", "none"],
        [("CLIP", 3, 0.5, True, Decimal("1.50"), datetime.date(2021, 2, 26), URIRef(EX), None)],
    )
    assert r.kind == "select"
    assert r.columns == ("name", "n", "x", "ok", "price", "day", "term", "none")
    name, n, x, ok, price, day, term, none = r.rows[0]
    assert name == Literal("CLIP") and name.datatype is None and name.language is None
    assert n == Literal(3) and n.datatype == ns.XSD.integer
    assert x.datatype == ns.XSD.double
    assert ok.datatype == ns.XSD.boolean and str(ok) == "true"
    assert price.datatype == ns.XSD.decimal
    assert day.datatype == ns.XSD.date and str(day) == "2021-02-26"
    assert term == URIRef(EX)
    assert none is None


def test_from_rows_accepts_mappings_and_checks_lengths():
    r = Result.from_rows(["a", "b"], [{"a": 1}, {"b": "x", "ignored": 2}])
    assert r.rows == [(Literal(1), None), (None, Literal("x"))]
    with pytest.raises(ValueError, match="row 1 has 1 values for 2 columns"):
        Result.from_rows(["a", "b"], [(1, 2), (3,)])
    with pytest.raises(TypeError, match="cannot make an RDF term"):
        Result.from_rows(["a"], [(object(),)])


def test_from_rows_limit_and_truncated():
    r = Result.from_rows(["x"], [(i,) for i in range(5)], limit=2)
    assert r.count == 2 and r.truncated and r.limit == 2
    r = Result.from_rows(["x"], [(i,) for i in range(2)], limit=2)
    assert not r.truncated
    assert Result.from_rows(["x"], [], truncated=True).truncated
    with pytest.raises(ValueError):
        Result.from_rows(["x"], [], limit=-1)


def test_result_validates_kind_and_boolean():
    with pytest.raises(ValueError, match="kind"):
        Result(kind="table")
    with pytest.raises(ValueError, match="boolean"):
        Result(kind="ask")
    assert Result(columns=["?x"]).columns == ("x",)


def test_graph_result_fills_columns_rows_and_triples():
    triple = (URIRef(CLIP), KG.label, Literal("CLIP"))
    r = Result(kind="graph", triples=[triple])
    assert r.columns == GRAPH_COLUMNS and r.rows == [triple] and r.count == 1
    r = Result(kind="graph", rows=[triple])
    assert r.triples == [triple]


def test_from_oxigraph_select_ask_construct(ox_store):
    r = Result.from_oxigraph(ox_store.query(QUERY))
    assert r.kind == "select" and r.columns == ("s", "p", "o", "missing")
    assert keyed_rows(r.rows) == keyed_rows(ox_rows(ox_store.query(QUERY)))
    assert Result.from_oxigraph(ox_store.query("ASK { ?s ?p ?o }")).boolean is True
    assert Result.from_oxigraph(ox_store.query(f"ASK {{ <{EX}none> ?p ?o }}")).boolean is False
    graph = Result.from_oxigraph(ox_store.query("CONSTRUCT WHERE { ?s ?p ?o }"))
    assert graph.kind == "graph" and graph.columns == GRAPH_COLUMNS and graph.count == N_TRIPLES
    assert graph.rows == graph.triples


def test_terms_convert_between_oxigraph_and_rdflib_unchanged(ox_store):
    terms = {term for solution in ox_store.query("SELECT * WHERE { ?s ?p ?o }") for term in solution}
    assert len(terms) > 20
    for term in terms:
        assert to_oxigraph(from_oxigraph(term)) == term
    assert from_oxigraph(None) is None
    assert from_oxigraph(ox.Literal("x", language="en")) == Literal("x", lang="en")
    with pytest.raises(TypeError):
        to_oxigraph("not a term")


def test_from_rdflib_select_over_oxigraph(rich: Result):
    assert rich.kind == "select"
    assert rich.columns == ("s", "p", "o", "missing")
    assert rich.count == N_TRIPLES
    assert all(row[3] is None for row in rich.rows)
    assert all(len(row) == 4 for row in rich.rows)
    assert rich.elapsed == 0.01 and not rich.truncated
    objects = [row[2] for row in rich.rows]
    assert Literal("Modèle CLIP", lang="fr") in objects
    assert any(isinstance(o, BNode) for o in objects)


def test_from_rdflib_keeps_solutions_with_nothing_bound():
    # rdflib's own iteration drops an all-unbound solution; a Result keeps it.
    g = Graph()
    r = Result.from_rdflib(g.query(f"SELECT ?x WHERE {{ OPTIONAL {{ <{EX}a> <{EX}b> ?x }} }}"))
    assert r.rows == [(None,)]
    r = Result.from_rdflib(g.query("SELECT * WHERE { }"))
    assert r.columns == () and r.rows == [()]


def test_from_rdflib_limit(oxrdflib_graph: Graph):
    r = Result.from_rdflib(oxrdflib_graph.query(QUERY), limit=3)
    assert r.count == 3 and r.truncated and r.limit == 3
    assert summary_line(r) == "3 rows (cut at limit 3)"
    r = Result.from_rdflib(oxrdflib_graph.query(QUERY), limit=1000)
    assert not r.truncated


def test_from_rdflib_ask_construct_describe(oxrdflib_graph: Graph):
    assert Result.from_rdflib(oxrdflib_graph.query("ASK { ?s ?p ?o }")).boolean is True
    assert Result.from_rdflib(oxrdflib_graph.query(f"ASK {{ <{EX}none> ?p ?o }}")).boolean is False
    r = Result.from_rdflib(oxrdflib_graph.query("CONSTRUCT WHERE { ?s ?p ?o }"), elapsed=0.5)
    assert r.kind == "graph" and r.columns == GRAPH_COLUMNS
    assert r.count == N_TRIPLES
    assert [t[0] for t in r.triples] == sorted((t[0] for t in r.triples), key=lambda t: (isinstance(t, BNode), str(t)))
    assert summary_line(r) == f"{r.count} triples in 0.500 s"
    r = Result.from_rdflib(oxrdflib_graph.query(f"DESCRIBE <{CLIP}>"))
    assert r.kind == "graph" and r.count >= 1


def test_from_rdflib_results_read_by_rdflib_parsers(ox_store):
    text = ox_store.query(QUERY).serialize(format=ox.QueryResultsFormat.JSON).decode()
    r = Result.from_rdflib(RdflibResult.parse(io.StringIO(text), format="json"))
    assert keyed_rows(r.rows) == keyed_rows(ox_rows(ox_store.query(QUERY)))


def test_from_rdflib_rejects_other_objects():
    with pytest.raises(TypeError, match="not an rdflib query result"):
        Result.from_rdflib([1, 2])


# --------------------------------------------------------------------------- table


def test_table_prefixed_names_longest_namespace_and_lexical_forms():
    prefixes = {"ex": EX, "exa": EX + "a/", "kgr": RESOURCE_IRI}
    r = Result.from_rows(
        ["s", "o"],
        [
            (URIRef(EX + "a/b"), Literal("x", lang="en")),
            (URIRef(EX + "thing"), Literal("2", datatype=ns.XSD.integer)),
            (URIRef(CLIP), Literal("y", datatype=EX + "dt")),
            (URIRef("urn:x:y"), BNode("b7")),
            (URIRef(RESOURCE_IRI + "paper/2301.00001?v=2"), None),
        ],
    )
    # A name is legal SPARQL: the characters SPARQL reserves in a local name are escaped.
    assert render(r, prefixes=prefixes).splitlines() == [
        " s                           | o",
        "-----------------------------+------",
        " exa:b                       | x",
        " ex:thing                    | 2",
        r" kgr:entity\/clip            | y",
        " <urn:x:y>                   | _:b7",
        r" kgr:paper\/2301.00001\?v\=2 |",
    ]
    assert render(r).splitlines()[-1].split("|")[0].strip() == r"paper:2301.00001\?v\=2"


def test_table_default_prefixes_and_no_prefixes():
    r = Result.from_rows(["t"], [(KG.Method,), (URIRef(CLIP),), (ns.RDF.type,)])
    assert render(r).splitlines()[2:] == [" kg:Method", " entity:clip", " rdf:type"]
    assert render(r, prefixes=None).splitlines()[2] == f" <{ONTOLOGY_IRI}Method>"
    assert render(r, prefixes={}).splitlines()[2] == f" <{ONTOLOGY_IRI}Method>"


def test_table_numbers_right_aligned_and_unicode_width():
    r = Result.from_rows(["name", "n"], [("日本語", 7), ("ab", 1234), ("e\u0301", None)])
    assert render(r).splitlines() == [
        " name   | n",
        "--------+------",
        " 日本語 |    7",
        " ab     | 1234",
        " e\u0301      |",
    ]


def test_table_without_wcwidth_counts_characters(monkeypatch):
    import kg.query.table

    monkeypatch.setattr(kg.query.table, "_wcswidth", lambda: None)
    r = Result.from_rows(["name"], [("日本語",), ("abcd",)])
    assert render(r).splitlines() == [" name", "------", " 日本語", " abcd"]


def test_table_max_width_cuts_with_ellipsis():
    r = Result.from_rows(["long_header", "w"], [("abcdefghij", "日本語日本語"), ("abc", "x")])
    lines = render(r, max_width=5).splitlines()
    assert lines == [
        " long… | w",
        "-------+-------",
        " abcd… | 日本…",
        " abc   | x",
    ]
    assert render(r, max_width=1).splitlines()[2] == " … | …"
    for bad in (0, -3, 2.5):
        with pytest.raises(UsageError, match="max_width"):
            render(r, max_width=bad)


def test_table_keeps_each_row_on_one_line():
    r = Result.from_rows(["v"], [("a\nb\r\nc\rd\te\x07f\u2028g",)])
    assert render(r).splitlines() == [" v", "-" * 18, " a↵b↵c↵d e\\x07f↵g"]


def test_table_empty_ask_graph_message_and_no_columns():
    assert render(Result.from_rows(["a", "bb"], [])) == " a | bb\n---+----\n(no rows)\n"
    assert render(Result.from_boolean(True)) == "true\n"
    assert render(Result.from_boolean(False)) == "false\n"
    graph = Result.from_triples([(URIRef(CLIP), ns.RDFS.label, Literal("CLIP"))])
    assert render(graph).splitlines() == [
        " subject     | predicate  | object",
        "-------------+------------+--------",
        " entity:clip | rdfs:label | CLIP",
    ]
    assert render(Result.from_triples([])).endswith("(no triples)\n")
    assert render(Result.text("bound ex:")) == "bound ex:\n"
    assert render(Result.text("two\nlines\n")) == "two\nlines\n"
    assert render(Result.text("")) == ""
    assert render(Result(columns=(), rows=[()])) == "(1 row with no variables)\n"
    assert render(Result(columns=(), rows=[])) == "(no rows)\n"


def test_table_of_real_results_is_aligned(rich: Result):
    lines = render(rich).splitlines()
    assert len(lines) == rich.count + 2
    bars = {line.index("|") for line in lines if "|" in line}
    assert len(bars) == 1  # the first column separator lines up on every row
    assert any(line.startswith(" entity:clip ") for line in lines)
    assert any('Contrastive, "Language"↵Image' in line for line in lines)


def test_render_rejects_unknown_format_and_accepts_any_case(rich: Result):
    with pytest.raises(UsageError, match="unknown format 'yaml'"):
        render(rich, "yaml")
    assert render(rich, "JSON") == render(rich, "json")


def test_render_is_deterministic(rich: Result):
    for fmt in FORMATS:
        assert render(rich, fmt) == render(rich, fmt)


# --------------------------------------------------------------------------- CSV


def test_csv_text_quoting_and_line_ends():
    r = Result.from_rows(
        ["s", "v"],
        [
            (URIRef(CLIP), Literal('a, "b"\nc', lang="en")),
            (BNode("b1"), Literal("2", datatype=ns.XSD.integer)),
            (None, Literal("")),
        ],
    )
    text = render(r, "csv")
    assert text == (f's,v\r\n{CLIP},"a, ""b""\nc"\r\n_:b1,2\r\n,\r\n')
    assert list(csv.reader(io.StringIO(text, newline=""))) == [
        ["s", "v"],
        [CLIP, 'a, "b"\nc'],
        ["_:b1", "2"],
        ["", ""],
    ]


def test_csv_round_trip_through_rdflib(rich: Result):
    parsed = parse_with_rdflib(render(rich, "csv"), "csv")
    assert [str(v) for v in parsed.vars] == list(rich.columns)

    def as_csv_parser_reads(term):
        # CSV is lossy: rdflib reads http(s) strings as IRIs, _: as blank nodes,
        # and the rest as strings.
        if term is None or str(term) == "":
            return None
        if isinstance(term, BNode):
            return BNode("_:" + str(term))
        if isinstance(term, URIRef):
            return term
        return Literal(str(term))

    expected = [tuple(as_csv_parser_reads(t) for t in row) for row in rich.rows]
    assert rdflib_rows(parsed) == expected


def test_csv_matches_oxigraph(ox_store):
    ours = Result.from_rdflib(
        RdflibResult.parse(
            io.BytesIO(ox_store.query(QUERY).serialize(format=ox.QueryResultsFormat.JSON)),
            format="json",
        )
    )
    theirs = ox_store.query(QUERY).serialize(format=ox.QueryResultsFormat.CSV).decode()
    assert list(csv.reader(io.StringIO(render(ours, "csv"), newline=""))) == list(
        csv.reader(io.StringIO(theirs, newline=""))
    )


def test_csv_single_column_unbound_keeps_the_row():
    text = render(Result.from_rows(["x"], [(None,), ("a",)]), "csv")
    assert len(list(csv.reader(io.StringIO(text, newline="")))) == 3
    assert rdflib_rows(parse_with_rdflib(text, "csv")) == [(None,), (Literal("a"),)]


# --------------------------------------------------------------------------- TSV


def test_tsv_terms_in_turtle_syntax():
    r = Result.from_rows(
        ["a", "b", "c", "d", "e"],
        [
            (URIRef(CLIP), Literal('say "hi"\tnow\n', lang="en-GB"), Literal(42), Literal(True), None),
            (BNode("b1"), Literal("plain"), Literal("007", datatype=ns.XSD.token), Literal(1.5), Literal("x\\y")),
        ],
    )
    text = render(r, "tsv")
    # language tags in lower case, as Oxigraph keeps them (RDF compares them without case)
    assert text == (
        "?a\t?b\t?c\t?d\t?e\n"
        f'<{CLIP}>\t"say \\"hi\\"\\tnow\\n"@en-gb\t42\ttrue\t\n'
        f'_:b1\t"plain"\t"007"^^<{ns.XSD.token}>\t"1.5"^^<{ns.XSD.double}>\t"x\\\\y"\n'
    )
    assert rdflib_rows(parse_with_rdflib(text, "tsv")) == r.rows


def test_tsv_numbers_keep_their_lexical_form():
    r = Result.from_rows(
        ["x"],
        [
            (Literal("-3", datatype=ns.XSD.integer),),
            (Literal("+3", datatype=ns.XSD.integer, normalize=False),),
            (Literal("1.25", datatype=ns.XSD.decimal),),
            (Literal("TRUE", datatype=ns.XSD.boolean, normalize=False),),
        ],
    )
    text = render(r, "tsv")
    # Turtle's short forms where the lexical form is one (+3 reads back as "+3"), quoted otherwise
    assert text.splitlines()[1:] == ["-3", "+3", "1.25", f'"TRUE"^^<{ns.XSD.boolean}>']
    parsed = ox.parse_query_results(text, ox.QueryResultsFormat.TSV)
    assert [(t.value, t.datatype.value) for (t,) in parsed] == [(str(t), str(t.datatype)) for (t,) in r.rows]


def test_w3c_formats_percent_encode_bad_iris_and_make_blank_node_labels_valid():
    r = Result.from_rows(["i", "b"], [(URIRef("http://example.org/a b>c"), BNode("not valid!"))])
    row = render(r, "tsv").splitlines()[1]
    iri, bnode = row.split("\t")
    assert iri == "<http://example.org/a%20b%3Ec>"
    assert bnode.startswith("_:x") and " " not in bnode and "!" not in bnode
    # the label is one Oxigraph's TSV parser accepts
    r = Result.from_rows(["b"], [(BNode("not valid!"),), (BNode("ok"),)])
    parsed = list(ox.parse_query_results(render(r, "tsv"), ox.QueryResultsFormat.TSV))
    assert isinstance(parsed[0]["b"], ox.BlankNode) and parsed[1]["b"].value == "ok"


def test_tsv_round_trip_through_rdflib(rich: Result):
    parsed = parse_with_rdflib(render(rich, "tsv"), "tsv")
    assert [str(v) for v in parsed.vars] == list(rich.columns)
    assert keyed_rows(rdflib_rows(parsed)) == keyed_rows(rich.rows)


# --------------------------------------------------------------------------- JSON


def test_json_document_shape():
    r = Result.from_rows(
        ["s", "o", "u"],
        [
            (URIRef(CLIP), Literal("CLIP", lang="en"), None),
            (BNode("b1"), Literal("3", datatype=ns.XSD.integer), Literal("plain")),
            (URIRef(CLIP), Literal("typed", datatype=ns.XSD.string), None),
        ],
    )
    text = render(r, "json")
    assert text.endswith("\n")
    assert json.loads(text) == {
        "head": {"vars": ["s", "o", "u"]},
        "results": {
            "bindings": [
                {"s": {"type": "uri", "value": CLIP}, "o": {"type": "literal", "value": "CLIP", "xml:lang": "en"}},
                {
                    "s": {"type": "bnode", "value": "b1"},
                    "o": {"type": "literal", "value": "3", "datatype": str(ns.XSD.integer)},
                    "u": {"type": "literal", "value": "plain"},
                },
                {"s": {"type": "uri", "value": CLIP}, "o": {"type": "literal", "value": "typed"}},
            ]
        },
    }
    empty = '{"head":{"vars":["x"]},"results":{"bindings":[]}}\n'
    assert render(Result.from_rows(["x"], []), "json") == empty


def test_json_round_trip_through_rdflib(rich: Result):
    parsed = parse_with_rdflib(render(rich, "json"), "json")
    assert [str(v) for v in parsed.vars] == list(rich.columns)
    assert keyed_rows(rdflib_rows(parsed)) == keyed_rows(rich.rows)


def test_json_is_what_oxigraph_writes(ox_store, rich: Result):
    theirs = json.loads(ox_store.query(QUERY).serialize(format=ox.QueryResultsFormat.JSON))
    assert canonical_bnodes_json(json.loads(render(rich, "json"))) == canonical_bnodes_json(theirs)


# --------------------------------------------------------------------------- XML


def test_xml_document_and_escaping():
    r = Result.from_rows(
        ["s", "o"],
        [
            (URIRef(EX + "?a=1&b='2'"), Literal('x < y & "z"\r\n', lang="en")),
            (BNode("b1"), Literal("3", datatype=ns.XSD.integer)),
            (None, Literal("bell\x07 and a lone\rCR")),
        ],
    )
    text = render(r, "xml")
    assert text.startswith('<?xml version="1.0"?>') and text.endswith("</sparql>\n")
    sparql = "{http://www.w3.org/2005/sparql-results#}"
    root = ElementTree.fromstring(text)
    assert root.tag == sparql + "sparql"
    assert [v.get("name") for v in root.iter(sparql + "variable")] == ["s", "o"]
    results = root.find(sparql + "results")
    assert [[b.get("name") for b in result] for result in results] == [["s", "o"], ["s", "o"], ["o"]]
    literal = results[1][1][0]
    assert literal.tag == sparql + "literal" and literal.get("datatype") == str(ns.XSD.integer)
    assert results[1][0][0].tag == sparql + "bnode" and results[1][0][0].text == "b1"
    # a carriage return survives XML parsing; a character XML cannot carry becomes U+FFFD
    parsed = rdflib_rows(parse_with_rdflib(text, "xml"))
    assert parsed[0] == (URIRef(EX + "?a=1&b='2'"), Literal('x < y & "z"\r\n', lang="en"))
    assert parsed[2] == (None, Literal("bell\ufffd and a lone\rCR"))


def test_xml_round_trip_through_rdflib(rich: Result):
    parsed = parse_with_rdflib(render(rich, "xml"), "xml")
    assert [str(v) for v in parsed.vars] == list(rich.columns)
    assert keyed_rows(rdflib_rows(parsed)) == keyed_rows(rich.rows)


# --------------------------------------------------------------------------- against Oxigraph


@pytest.mark.parametrize("fmt", ["json", "xml", "tsv"])
def test_oxigraph_reads_back_what_it_answered(fmt, ox_store, rich: Result):
    ours = ox.parse_query_results(render(rich, fmt), OX_FORMATS[fmt])
    assert [v.value for v in ours.variables] == list(rich.columns)
    assert keyed_rows(ox_rows(ours)) == keyed_rows(ox_rows(ox_store.query(QUERY)))


@pytest.mark.parametrize("fmt", ["json", "xml", "tsv"])
def test_oxigraph_results_survive_a_trip_through_result(fmt, ox_store):
    # Oxigraph's own serialisation -> rdflib parser -> Result -> our writer -> Oxigraph parser.
    # (Oxigraph's JSON, since its XML writes a CR raw, which XML parsers read as LF.)
    theirs = ox_store.query(QUERY).serialize(format=ox.QueryResultsFormat.JSON)
    parsed = RdflibResult.parse(io.BytesIO(theirs), format="json")
    back = ox.parse_query_results(render(Result.from_rdflib(parsed), fmt), OX_FORMATS[fmt])
    assert keyed_rows(ox_rows(back)) == keyed_rows(ox_rows(ox_store.query(QUERY)))


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json", "xml"])
def test_an_oxigraph_answer_is_written_as_oxigraph_writes_it(fmt, ox_store):
    ours = render(Result.from_oxigraph(ox_store.query(QUERY)), fmt)
    theirs = ox_store.query(QUERY).serialize(format=OX_FORMATS[fmt]).decode()
    if fmt == "xml":  # a carriage return escaped, so that XML parsers keep it
        theirs = theirs.replace("\r", "&#13;")
    assert ours == theirs if theirs.endswith("\n") else ours == theirs + "\n"


# --------------------------------------------------------------------------- ASK and graph


def test_ask_in_every_format(ox_store):
    for value in (True, False):
        r = Result.from_boolean(value)
        word = "true" if value else "false"
        assert render(r, "csv") == word + "\r\n"
        assert render(r, "tsv") == word + "\n"
        assert render(r, "json") == '{"head":{},"boolean":' + word + "}\n"
        for fmt in ("json", "xml"):
            assert parse_with_rdflib(render(r, fmt), fmt).askAnswer is value
            assert bool(ox.parse_query_results(render(r, fmt), OX_FORMATS[fmt])) is value
        assert bool(ox.parse_query_results(render(r, "tsv"), OX_FORMATS["tsv"])) is value
    theirs = ox_store.query("ASK { ?s ?p ?o }").serialize(format=ox.QueryResultsFormat.JSON)
    assert json.loads(render(Result.from_boolean(True), "json")) == json.loads(theirs)


def test_graph_results_in_w3c_formats_are_subject_predicate_object_tables(oxrdflib_graph):
    r = Result.from_rdflib(oxrdflib_graph.query("CONSTRUCT WHERE { ?s ?p ?o }"))
    for fmt in ("json", "xml", "tsv"):
        parsed = parse_with_rdflib(render(r, fmt), fmt)
        assert [str(v) for v in parsed.vars] == ["subject", "predicate", "object"]
        assert keyed_rows(rdflib_rows(parsed)) == keyed_rows(r.triples)
    assert render(r, "csv").startswith("subject,predicate,object\r\n")
    assert sorted(keyed_rows(r.triples)) == sorted(keyed_rows(oxrdflib_graph))


def test_message_renders_as_text_in_every_format():
    for fmt in FORMATS:
        assert render(Result.text("3 prefixes"), fmt) == "3 prefixes\n"


# --------------------------------------------------------------------------- Python values


def test_to_dataframe(rich: Result):
    import pandas as pd

    df = Result.from_rows(
        ["s", "label", "n", "day", "b", "odd"],
        [
            (
                URIRef(CLIP),
                Literal("CLIP", lang="en"),
                3,
                datetime.date(2021, 2, 26),
                BNode("x1"),
                Literal("x y", datatype=EX + "dt"),
            ),
            (URIRef(EX), None, 4, None, None, Literal("abc", datatype=ns.XSD.integer)),
        ],
    ).to_dataframe()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["s", "label", "n", "day", "b", "odd"]
    assert df["s"].tolist() == [CLIP, EX]
    assert df["n"].tolist() == [3, 4]
    assert df["day"][0] == datetime.date(2021, 2, 26)
    assert df["b"][0] == "_:x1"
    assert df["odd"].tolist() == ["x y", "abc"]  # no Python value: the lexical form
    assert df["label"][0] == "CLIP" and pd.isna(df["label"][1])

    assert len(rich.to_dataframe()) == rich.count
    empty = Result.from_rows(["a", "b"], []).to_dataframe()
    assert list(empty.columns) == ["a", "b"] and len(empty) == 0
    graph = Result.from_triples([(URIRef(CLIP), ns.RDFS.label, Literal("CLIP"))]).to_dataframe()
    assert list(graph.columns) == list(GRAPH_COLUMNS)
    assert len(Result(columns=(), rows=[(), ()]).to_dataframe()) == 2
    with pytest.raises(UsageError, match="an ask result has no rows; use result.boolean"):
        Result.from_boolean(True).to_dataframe()
    with pytest.raises(UsageError, match="a message result"):
        Result.text("hi").to_dataframe()


def test_to_dataframe_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # makes `import pandas` fail
    with pytest.raises(UsageError, match=r"pandas is not installed: pip install pandas"):
        Result.from_rows(["x"], [(1,)]).to_dataframe()


def test_to_records():
    records = Result.from_rows(
        ["s", "v", "u"], [(URIRef(CLIP), Literal("1.5", datatype=ns.XSD.decimal), None)]
    ).to_records()
    assert records == [{"s": CLIP, "v": Decimal("1.5"), "u": None}]
    assert type(records[0]["s"]) is str


def test_to_graph():
    triple = (URIRef(CLIP), KG.label, Literal("CLIP"))
    g = Result.from_triples([triple]).to_graph()
    assert set(g) == {triple}
    assert "kgr" in dict(g.namespaces())
    with pytest.raises(UsageError):
        Result.from_rows(["x"], []).to_graph()


# --------------------------------------------------------------------------- summary line


@pytest.mark.parametrize(
    ("result", "line"),
    [
        (Result.from_rows(["x"], [(1,), (2,), (3,)], elapsed=0.0123), "3 rows in 0.012 s"),
        (Result.from_rows(["x"], [(1,)]), "1 row"),
        (Result.from_rows(["x"], []), "0 rows"),
        (
            Result.from_rows(["x"], [(i,) for i in range(200)], limit=100, elapsed=1.5),
            "100 rows in 1.500 s (cut at limit 100)",
        ),
        (Result.from_rows(["x"], [(1,)], truncated=True), "1 row (cut at a limit)"),
        (Result.from_triples([(URIRef(CLIP), KG.label, Literal("CLIP"))]), "1 triple"),
        (Result.from_boolean(False, elapsed=0.002), "answer: false in 0.002 s"),
        (Result.text("ok"), ""),
        (Result.text("ok", elapsed=0.1), "done in 0.100 s"),
    ],
)
def test_summary_line(result, line):
    assert summary_line(result) == line


# --------------------------------------------------------------------------- imports


def test_import_is_light():
    code = (
        "import sys, kg.query.result\n"
        "heavy = {'pandas', 'pyoxigraph', 'oxrdflib', 'wcwidth'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
