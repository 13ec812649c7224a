"""Real SPARQL clients against `kg serve`: SPARQLWrapper, rdflib's SPARQLStore, and `kg query --endpoint` and
`kg shell --endpoint`, each getting what the local store answers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import run_kg
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDFS
from serve_helpers import kg_server

from kg.namespace import ENTITY_NAMESPACE, PREFIXES

LABELS = "SELECT ?e ?l WHERE { ?e a kg:Method ; rdfs:label ?l } ORDER BY ?l"
METHODS = ["Adaptive Return-conditioned Policy", "CLIP", "adversarial training", "quantum annealing"]
PROLOGUE = "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in PREFIXES.items())
CLIP = URIRef(ENTITY_NAMESPACE + "clip")


@pytest.fixture(scope="module")
def store(relations_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("clients") / "store"
    shutil.copytree(relations_store, copy)
    return copy


@pytest.fixture(scope="module")
def server(store: Path, tmp_path_factory: pytest.TempPathFactory):
    with kg_server(store, tmp_path_factory.mktemp("clients-log") / "stderr.txt") as running:
        yield running


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "xdg"), "PAGER": "cat"}


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("return_format", ["json", "xml", "csv"])
def test_sparqlwrapper_select(server, method: str, return_format: str) -> None:
    import SPARQLWrapper as sw

    client = sw.SPARQLWrapper(server.sparql)
    client.setMethod(getattr(sw, method))
    client.setReturnFormat(return_format)
    client.setQuery(PROLOGUE + LABELS)
    answer = client.query().convert()
    if return_format == "json":
        labels = [row["l"]["value"] for row in answer["results"]["bindings"]]
    elif return_format == "xml":
        labels = [node.firstChild.data for node in answer.getElementsByTagName("literal")]
    else:
        labels = [line.split(",", 1)[1] for line in answer.decode().splitlines()[1:]]
    assert labels == METHODS


def test_sparqlwrapper_ask_and_construct(server) -> None:
    import SPARQLWrapper as sw

    client = sw.SPARQLWrapper(server.sparql)
    client.setReturnFormat(sw.JSON)
    client.setQuery(PROLOGUE + "ASK { entity:arp kg:addresses entity:gm }")
    assert client.query().convert()["boolean"] is True
    for return_format in (sw.TURTLE, sw.XML, sw.JSONLD, sw.N3):
        client.setReturnFormat(return_format)
        client.setQuery(PROLOGUE + "CONSTRUCT WHERE { entity:clip ?p ?o }")
        graph = client.queryAndConvert()
        if not isinstance(graph, Graph):  # Turtle and N3 come back as bytes
            graph = Graph().parse(data=graph, format="turtle")
        assert (CLIP, RDFS.label, Literal("CLIP")) in graph and len(graph) == 6, return_format


def test_a_bad_query_through_sparqlwrapper(server) -> None:
    import SPARQLWrapper as sw
    from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

    client = sw.SPARQLWrapper(server.sparql)
    client.setQuery("SELECT ?x WHERE { ?x ?y }")
    with pytest.raises(QueryBadFormed, match="SPARQL syntax error"):
        client.query()


def test_rdflib_sparqlstore(server) -> None:
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    for return_format in ("xml", "json"):
        graph = Graph(store=SPARQLStore(server.sparql, returnFormat=return_format))
        rows = graph.query(PROLOGUE + LABELS)
        assert [str(row.l) for row in rows] == METHODS
        assert set(graph.objects(CLIP, RDFS.label)) == {Literal("CLIP")}
        assert len(list(graph.triples((CLIP, None, None)))) == 6
        assert graph.query("ASK { ?s ?p ?o }").askAnswer is True


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_kg_query_endpoint_answers_as_the_store_does(server, store: Path, fmt: str) -> None:
    local = run_kg("query", LABELS, "--format", fmt, "--store", str(store))
    remote = run_kg("query", LABELS, "--format", fmt, "--endpoint", server.sparql)
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout
    graph = "CONSTRUCT WHERE { entity:clip ?p ?o }"
    assert (
        run_kg("query", graph, "--format", "tsv", "--endpoint", server.sparql).stdout.count("\n")
        == run_kg("query", graph, "--format", "tsv", "--store", str(store)).stdout.count("\n")
        == 7
    )


def test_kg_query_endpoint_reports_the_servers_refusals(server) -> None:
    bad = run_kg("query", "SELECT ?x WHERE { ?x ?y }", "--endpoint", server.sparql)
    assert bad.returncode == 1
    assert "HTTP 400 Bad Request: SPARQL syntax error" in bad.stderr and "Traceback" not in bad.stderr
    too_many = run_kg("query", "SELECT * WHERE { ?s ?p ?o . ?a ?b ?c }", "--endpoint", server.sparql)
    assert too_many.returncode == 1 and "HTTP 422" in too_many.stderr and "--max-rows" in too_many.stderr


def test_kg_shell_endpoint(server, store: Path, home: dict[str, str]) -> None:
    script = "SELECT ?l WHERE { entity:clip rdfs:label ?l };\n.describe CLIP\n.neighbors ImageNet\n"
    remote = run_kg("shell", "--endpoint", server.sparql, input=script, env=home, timeout=120)
    local = run_kg("shell", "--store", str(store), input=script, env=home, timeout=120)
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout.startswith(" l\n------\n CLIP\n")
    assert "zero-shot classification" in remote.stdout
    assert remote.stdout == local.stdout
