"""The light reading of SPARQL text: which operation a request is, and the variables of a ``SELECT *`` in order."""

from __future__ import annotations

import pytest

from kg.query.sparql import in_query_order, operation, star_variables


@pytest.mark.parametrize(
    "text,expected",
    [
        ("SELECT * WHERE { ?s ?p ?o }", ["s", "p", "o"]),
        ("select distinct * { ?b <urn:x#?a> ?c }", ["b", "c"]),
        ('SELECT REDUCED * { ?b ?p "?a in a string" . FILTER(?z < ?b) }', ["b", "p", "z"]),
        ("# SELECT ?first\nPREFIX ex: <urn:ex#>\nBASE <urn:base>\nSELECT * { $b ex:p ?a } # ?c", ["b", "a"]),
        ("SELECT * { ?b ex:p? ?a ; ex:q* [] }", ["b", "a"]),
        ('SELECT * { ?b ?p """a ""long"" ?x\n string""" }', ["b", "p"]),
        ("SELECT ?a ?b WHERE { ?b ?p ?a }", None),
        ("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", None),
        ("ASK { ?s ?p ?o }", None),
        ("CONSTRUCT WHERE { ?s ?p ?o }", None),
    ],
)
def test_star_variables(text: str, expected: list[str] | None) -> None:
    assert star_variables(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("INSERT DATA { <urn:a> <urn:b> 1 }", "INSERT DATA"),
        ("PREFIX ex: <urn:ex#> # insert\n DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", "DELETE"),
        ("delete where { ?s ?p ?o }", "DELETE WHERE"),
        ("LOAD <http://example.org/g.ttl>", "LOAD"),
        ("WITH <urn:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", "WITH"),
        ("CLEAR ALL", "CLEAR"),
        ('ASK { ?s ?p "INSERT DATA" }', "ASK"),
        ("{ ?s ?p ?o }", None),
        ("", None),
    ],
)
def test_operation(text: str, expected: str | None) -> None:
    assert operation(text) == expected


def test_columns_the_text_does_not_name_keep_their_place() -> None:
    assert in_query_order(["a", "o", "s"], "SELECT * { ?s ?p ?o }") == ["s", "o", "a"]
    assert in_query_order(["o", "s"], "SELECT ?o ?s { ?s ?p ?o }") == ["o", "s"]
