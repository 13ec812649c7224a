"""The display form of IRIs: a prefixed name that is legal SPARQL, naming the same IRI, wherever it is printed."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from kg.namespace import (
    ONTOLOGY_IRI,
    PREFIXES,
    RESOURCE_IRI,
    entity_iri,
    expand_name,
    paper_iri,
    prefixed_name,
    sparql_prologue,
    statement_iri,
)

IRIS = [
    paper_iri("b4b800c1d2e3f4"),
    paper_iri("10.1234/abc~x"),  # a DOI: '/' is percent-encoded in the IRI
    paper_iri("2301.00001v2."),  # a dot at the end
    paper_iri("-leading-hyphen"),
    entity_iri("gpt-4"),
    entity_iri("c++"),
    entity_iri("naïve bayes"),
    statement_iri("c9b462ebe3e014a7bdae"),
    RESOURCE_IRI + "other/kind",
    RESOURCE_IRI + "x~y?z=1#frag",
    ONTOLOGY_IRI + "Method",
    "http://www.w3.org/2001/XMLSchema#integer",
    "https://schema.org/ScholarlyArticle",
    "urn:isbn:0451450523",
]


@pytest.mark.parametrize("iri", IRIS)
def test_the_display_form_is_legal_sparql_for_the_same_iri(iri: str) -> None:
    name = prefixed_name(iri)
    answer = list(ox.Store().query(f"SELECT ?x WHERE {{ BIND({name} AS ?x) }}", prefixes=dict(PREFIXES)))
    assert answer[0]["x"] == ox.NamedNode(iri), name
    assert expand_name(name) == iri


def test_papers_entities_and_statements_have_their_own_prefixes() -> None:
    assert prefixed_name(paper_iri("b4b800")) == "paper:b4b800"
    assert prefixed_name(entity_iri("clip")) == "entity:clip"
    assert prefixed_name(statement_iri("c9b4")) == "statement:c9b4"
    assert expand_name("kgr:entity/clip") == expand_name("entity:clip")  # the shell's older form still reads
    assert {"paper", "entity", "statement", "kgr"} <= set(PREFIXES)
    prologue = sparql_prologue()  # what a remote endpoint is sent
    assert f"PREFIX paper: <{RESOURCE_IRI}paper/>\n" in prologue and "PREFIX entity: " in prologue
