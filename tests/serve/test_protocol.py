"""`kg serve` read-only, over HTTP: the SPARQL 1.1 Protocol (GET, POST as a form and as a body), content
negotiation, the service description, Graph Store reads, and each request it refuses, with its status."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest
import requests
from conftest import run_kg, sorted_ntriples
from serve_helpers import kg_server

from kg.namespace import PREFIXES, SD_IRI
from kg.store import open_store

LABELS = "SELECT ?e ?l WHERE { ?e rdfs:label ?l } ORDER BY ?l"
CLIP = "CONSTRUCT WHERE { entity:clip ?p ?o }"
MAX_ROWS = 40
MAX_BODY = 4096
RESULT_TYPES = {
    "json": "application/sparql-results+json",
    "xml": "application/sparql-results+xml",
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
}
GRAPH_TYPES = {
    "ttl": ("text/turtle", ox.RdfFormat.TURTLE),
    "nt": ("application/n-triples", ox.RdfFormat.N_TRIPLES),
    "jsonld": ("application/ld+json", ox.RdfFormat.JSON_LD),
    "xml": ("application/rdf+xml", ox.RdfFormat.RDF_XML),
}


@pytest.fixture(scope="module")
def store(relations_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the relations store, so that the server's readers do not hold the shared one."""
    copy = tmp_path_factory.mktemp("served") / "store"
    shutil.copytree(relations_store, copy)
    return copy


@pytest.fixture(scope="module")
def server(store: Path, tmp_path_factory: pytest.TempPathFactory):
    log = tmp_path_factory.mktemp("serve-log") / "stderr.txt"
    with kg_server(store, log, "--max-rows", str(MAX_ROWS), "--max-body", str(MAX_BODY)) as running:
        yield running


def kg_query(store: Path, sparql: str, fmt: str) -> str:
    done = run_kg("query", sparql, "--format", fmt, "--store", str(store))
    assert done.returncode == 0, done.stderr
    return done.stdout


def triples(body: bytes, rdf_format: ox.RdfFormat) -> set[ox.Triple]:
    return {quad.triple for quad in ox.parse(body, format=rdf_format)}


# ---- queries


def test_get_and_both_posts_answer_as_kg_query_does(server, store: Path) -> None:
    expected = kg_query(store, LABELS, "json")
    by_get = requests.get(server.sparql, params={"query": LABELS})
    by_form = requests.post(server.sparql, data={"query": LABELS})
    by_body = requests.post(
        server.sparql, data=LABELS.encode(), headers={"Content-Type": "application/sparql-query; charset=utf-8"}
    )
    for answer in (by_get, by_form, by_body):
        assert answer.status_code == 200, answer.text
        assert answer.headers["Content-Type"] == "application/sparql-results+json"
        assert answer.text == expected
    assert len(json.loads(expected)["results"]["bindings"]) == 9


@pytest.mark.parametrize("fmt", sorted(RESULT_TYPES))
def test_select_and_ask_in_each_results_format(server, store: Path, fmt: str) -> None:
    for sparql in (LABELS, "ASK { entity:clip kg:usedFor entity:zsc }"):
        answer = requests.get(server.sparql, params={"query": sparql}, headers={"Accept": RESULT_TYPES[fmt]})
        assert answer.status_code == 200
        assert answer.headers["Content-Type"].split(";")[0] == RESULT_TYPES[fmt]
        assert answer.headers["Vary"] == "Accept"
        # (kg query's output is read here in text mode, which turns CSV's CRLF into LF)
        assert answer.content.decode().replace("\r\n", "\n") == kg_query(store, sparql, fmt)
        assert ("\r\n" in answer.text) == (fmt == "csv")


@pytest.mark.parametrize("fmt", sorted(GRAPH_TYPES))
def test_construct_in_each_rdf_syntax(server, store: Path, fmt: str) -> None:
    media_type, rdf_format = GRAPH_TYPES[fmt]
    answer = requests.get(server.sparql, params={"query": CLIP}, headers={"Accept": media_type})
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].split(";")[0] == media_type
    with open_store(store) as direct:
        expected = set(direct.ox.query(CLIP, prefixes=PREFIXES))
    assert len(expected) == 6
    assert triples(answer.content, rdf_format) == expected


def test_one_accept_header_for_results_and_graphs_and_the_defaults(server) -> None:
    both = {"Accept": "application/sparql-results+json, text/turtle;q=0.9"}
    select = requests.get(server.sparql, params={"query": LABELS}, headers=both)
    construct = requests.get(server.sparql, params={"query": CLIP}, headers=both)
    assert select.headers["Content-Type"] == "application/sparql-results+json"
    assert construct.headers["Content-Type"].startswith("text/turtle")
    weighted = {"Accept": "application/sparql-results+xml;q=0.5, text/csv;q=0.8, text/html"}
    assert (
        requests.get(server.sparql, params={"query": LABELS}, headers=weighted)
        .headers["Content-Type"]
        .startswith("text/csv")
    )
    for unfit in ({"Accept": "text/html"}, {"Accept": "no/such;;q=x"}, {}):
        assert requests.get(server.sparql, params={"query": LABELS}, headers=unfit).headers["Content-Type"] == (
            "application/sparql-results+json"
        )
        assert (
            requests.get(server.sparql, params={"query": CLIP}, headers=unfit)
            .headers["Content-Type"]
            .startswith("text/turtle")
        )


def test_declared_prefixes_and_other_clients_parameters(server) -> None:
    # SPARQLWrapper adds format=, output= and results=; they are not the protocol's and change nothing
    answer = requests.get(
        server.sparql, params={"query": "SELECT ?l WHERE { entity:clip rdfs:label ?l }", "format": "xml", "output": "x"}
    )
    assert answer.status_code == 200
    assert json.loads(answer.text)["results"]["bindings"] == [{"l": {"type": "literal", "value": "CLIP"}}]


def test_the_service_description(server) -> None:
    answer = requests.get(server.sparql, headers={"Accept": "application/n-triples"})
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "application/n-triples"
    graph = triples(answer.content, ox.RdfFormat.N_TRIPLES)
    by_predicate = {}
    for triple in graph:
        by_predicate.setdefault(triple.predicate.value.removeprefix(SD_IRI), set()).add(triple.object)
    assert by_predicate["endpoint"] == {ox.NamedNode(server.sparql)}
    assert by_predicate["supportedLanguage"] == {ox.NamedNode(SD_IRI + "SPARQL11Query")}  # no updates here
    assert ox.NamedNode("http://www.w3.org/ns/formats/SPARQL_Results_JSON") in by_predicate["resultFormat"]
    assert len(by_predicate["resultFormat"]) == 8
    turtle = requests.get(server.sparql)
    assert turtle.headers["Content-Type"].startswith("text/turtle")
    assert triples(turtle.content, ox.RdfFormat.TURTLE) == graph


# ---- the Graph Store Protocol, reading


def test_graph_store_reads_the_default_graph_as_kg_export_writes_it(server, store: Path) -> None:
    answer = requests.get(server.url + "/store?default", headers={"Accept": "application/n-triples"})
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "application/n-triples"
    assert sorted(line for line in answer.text.splitlines() if line) == sorted_ntriples(store)
    turtle = requests.get(server.url + "/store?default")
    assert turtle.headers["Content-Type"].startswith("text/turtle") and "@prefix kg:" in turtle.text
    assert triples(turtle.content, ox.RdfFormat.TURTLE) == triples(answer.content, ox.RdfFormat.N_TRIPLES)


def test_graph_store_reads_refused(server) -> None:
    missing = requests.get(server.url + "/store", params={"graph": "http://example.org/none"})
    assert missing.status_code == 404 and "no graph <http://example.org/none>" in missing.text
    assert requests.get(server.url + "/store").status_code == 400  # neither ?default nor ?graph=
    assert requests.get(server.url + "/store", params={"graph": "not an iri"}).status_code == 400


# ---- what is refused, and how


def test_updates_are_refused_by_a_read_only_server(server, store: Path) -> None:
    before = sorted_ntriples(store)
    insert = "INSERT DATA { entity:clip rdfs:label 'changed' }"
    refusals = [
        requests.post(server.sparql, data={"update": insert}),
        requests.post(server.sparql, data=insert, headers={"Content-Type": "application/sparql-update"}),
        requests.post(server.url + "/update", data={"update": insert}, headers={"Authorization": "Bearer x" * 20}),
        requests.put(
            server.url + "/store?default", data="<urn:a> <urn:b> <urn:c> .", headers={"Content-Type": "text/turtle"}
        ),
        requests.delete(server.url + "/store?default"),
    ]
    for answer in refusals:
        assert answer.status_code == 403, answer.text
        assert answer.text == "this server is read-only: it takes no updates (kg serve --allow-update takes them)\n"
    sent_as_query = requests.get(server.sparql, params={"query": insert})
    assert sent_as_query.status_code == 400 and sent_as_query.text.startswith("INSERT DATA is an update")
    assert requests.get(server.sparql, params={"update": insert}).status_code == 400
    assert sorted_ntriples(store) == before


def test_service_and_load_are_refused(server, tmp_path: Path) -> None:
    # SERVICE would make the server send requests for a client; the keyword inside a string does not count
    service = requests.get(server.sparql, params={"query": "SELECT * { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }"})
    assert service.status_code == 403
    assert service.text == "SERVICE is refused: this server sends no request to other servers\n"
    text = requests.get(server.sparql, params={"query": "SELECT ?s { ?s rdfs:label 'SERVICE' }"})
    assert text.status_code == 200
    secret = tmp_path / "secret.ttl"
    secret.write_text("<urn:secret> <urn:is> 'here' .\n")
    # FROM names a graph of the store: no file is read
    read = requests.get(server.sparql, params={"query": f"SELECT * FROM <{secret.as_uri()}> {{ ?s ?p ?o }}"})
    assert read.status_code == 200 and json.loads(read.text)["results"]["bindings"] == []


def test_syntax_errors_and_malformed_requests(server) -> None:
    bad = requests.get(server.sparql, params={"query": "SELECT ?x WHERE { ?x foo:bar ?y }"})
    assert bad.status_code == 400
    assert bad.text.startswith("SPARQL syntax error: line 1, column ") and "unknown prefix 'foo:'" in bad.text
    twice = requests.get(server.sparql, params=[("query", "ASK {}"), ("query", "ASK {}")])
    assert twice.status_code == 400 and twice.text == "give query= once, not 2 times\n"
    both = requests.post(server.sparql, data={"query": "ASK {}", "update": "CLEAR ALL"})
    assert both.status_code == 400
    assert requests.post(server.sparql, data={"nothing": "here"}).status_code == 400
    relative = requests.get(server.sparql, params={"query": "ASK {}", "default-graph-uri": "g"})
    assert relative.status_code == 400 and relative.text == "default-graph-uri= must be an absolute IRI, not 'g'\n"
    no_such_graph = requests.get(
        server.sparql, params={"query": "ASK { ?s ?p ?o }", "default-graph-uri": "http://example.org/g"}
    )
    assert no_such_graph.status_code == 200 and no_such_graph.json()["boolean"] is False
    wrong_type = requests.post(server.sparql, data=b"ASK {}", headers={"Content-Type": "text/plain"})
    assert wrong_type.status_code == 415
    not_utf8 = requests.post(server.sparql, data=b"ASK {\xff}", headers={"Content-Type": "application/sparql-query"})
    assert not_utf8.status_code == 400
    assert requests.get(server.url + "/nowhere").status_code == 404


def test_an_answer_over_the_row_limit_is_refused(server) -> None:
    everything = "SELECT * WHERE { ?s ?p ?o }"
    refused = requests.get(server.sparql, params={"query": everything})
    assert refused.status_code == 422
    assert refused.text == (
        f"the answer has more than {MAX_ROWS} rows (--max-rows): add a LIMIT, or page with LIMIT and OFFSET\n"
    )
    graph = requests.get(server.sparql, params={"query": "CONSTRUCT WHERE { ?s ?p ?o }"})
    assert graph.status_code == 422
    page = requests.get(server.sparql, params={"query": everything + f" LIMIT {MAX_ROWS}"})
    assert page.status_code == 200 and len(json.loads(page.text)["results"]["bindings"]) == MAX_ROWS


def test_a_body_over_the_size_limit_is_refused(server) -> None:
    padding = "#" + "x" * MAX_BODY + "\nASK {}"
    assert requests.get(server.sparql, params={"query": "ASK {}"}).status_code == 200
    for answer in (
        requests.post(server.sparql, data=padding.encode(), headers={"Content-Type": "application/sparql-query"}),
        requests.post(server.sparql, data={"query": padding}),
        # without a Content-Length: the body is counted as it arrives
        requests.post(
            server.sparql,
            data=iter([padding[:100].encode(), padding[100:].encode()]),
            headers={"Content-Type": "application/sparql-query"},
        ),
    ):
        assert answer.status_code == 413
    small = requests.post(
        server.sparql, data=b"#" + b"x" * 3000 + b"\nASK {}", headers={"Content-Type": "application/sparql-query"}
    )
    assert small.status_code == 200
