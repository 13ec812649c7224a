"""`kg serve --allow-update`: SPARQL Update and the Graph Store Protocol's writes with the bearer token,
refused without it, refused while another process holds the store, and `kg push` into it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest
import requests
from conftest import run_kg, sorted_ntriples
from serve_helpers import TOKEN, kg_server

from kg.namespace import SD_IRI
from kg.store import open_store

GRAPH = "http://example.org/uploaded"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@pytest.fixture(scope="module")
def store(relations_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("writable") / "store"
    shutil.copytree(relations_store, copy)
    return copy


@pytest.fixture(scope="module")
def server(store: Path, tmp_path_factory: pytest.TempPathFactory):
    log = tmp_path_factory.mktemp("writable-log") / "stderr.txt"
    with kg_server(store, log, "--allow-update", env={"KG_TOKEN": TOKEN}) as running:
        yield running


def count(server, sparql: str = COUNT) -> int:
    answer = requests.get(server.sparql, params={"query": sparql})
    assert answer.status_code == 200, answer.text
    return int(answer.json()["results"]["bindings"][0]["n"]["value"])


def label_of(server, name: str) -> list[str]:
    answer = requests.get(server.sparql, params={"query": f"SELECT ?l WHERE {{ entity:{name} rdfs:label ?l }}"})
    return sorted(row["l"]["value"] for row in answer.json()["results"]["bindings"])


def test_an_update_without_the_token_is_refused(server, store: Path) -> None:
    before = count(server)
    update = "INSERT DATA { entity:intruder rdfs:label 'intruder' }"
    missing = requests.post(server.sparql, data={"update": update})
    assert missing.status_code == 401 and missing.headers["WWW-Authenticate"] == 'Bearer realm="kg serve"'
    assert missing.text == "an update needs Authorization: Bearer TOKEN\n"
    for header in (f"Bearer {TOKEN}x", f"Basic {TOKEN}", "Bearer", f"bearer {TOKEN[:-1]}"):
        refused = requests.post(server.url + "/update", data={"update": update}, headers={"Authorization": header})
        assert refused.status_code == 401, header
    wrong = requests.post(
        server.url + "/update", data={"update": update}, headers={"Authorization": "Bearer " + "x" * 30}
    )
    assert wrong.headers["WWW-Authenticate"] == 'Bearer realm="kg serve", error="invalid_token"'
    put = requests.put(f"{server.url}/store?default", data=b"", headers={"Content-Type": "application/n-triples"})
    assert put.status_code == 401
    assert requests.delete(f"{server.url}/store?default").status_code == 401
    assert count(server) == before and label_of(server, "intruder") == []


def test_sparql_update_with_the_token(server) -> None:
    form = requests.post(server.sparql, data={"update": "INSERT DATA { entity:new rdfs:label 'new' }"}, headers=AUTH)
    assert form.status_code == 204, form.text
    assert label_of(server, "new") == ["new"]  # the query processes read the store as the update left it
    body = requests.post(
        server.url + "/update",
        data="DELETE { entity:new rdfs:label ?l } INSERT { entity:new rdfs:label 'renamed' } "
        "WHERE { entity:new rdfs:label ?l }",
        headers={**AUTH, "Content-Type": "application/sparql-update"},
    )
    assert body.status_code == 204, body.text
    assert label_of(server, "new") == ["renamed"]
    bad = requests.post(server.sparql, data={"update": "INSERT DATA { entity:x }"}, headers=AUTH)
    assert bad.status_code == 400 and bad.text.startswith("SPARQL syntax error")
    query = requests.post(server.url + "/update", data={"update": "SELECT * { ?s ?p ?o }"}, headers=AUTH)
    assert query.status_code == 400
    missing = requests.post(server.url + "/update", data={"update": "DROP GRAPH <urn:none>"}, headers=AUTH)
    assert missing.status_code == 400
    assert missing.text == "the update cannot be applied: The graph <urn:none> does not exist\n"


def test_load_and_service_are_refused_even_with_the_token(server, tmp_path: Path) -> None:
    source = tmp_path / "other.ttl"
    source.write_text("<urn:loaded> <urn:from> 'a file' .\n")
    before = count(server)
    load = requests.post(server.sparql, data={"update": f"LOAD <{source.as_uri()}>"}, headers=AUTH)
    assert load.status_code == 403
    assert load.text == "LOAD is refused: this server reads no file or URL a client names\n"
    service = requests.post(
        server.sparql,
        data={"update": "INSERT { ?s ?p ?o } WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"},
        headers=AUTH,
    )
    assert service.status_code == 403
    assert count(server) == before


def test_graph_store_writes(server) -> None:
    store_url = f"{server.url}/store"
    named = {"graph": GRAPH}
    put = requests.put(
        store_url, params=named, data="<urn:a> <urn:p> 'one' .", headers={**AUTH, "Content-Type": "text/turtle"}
    )
    assert put.status_code == 204, put.text
    post = requests.post(
        store_url,
        params=named,
        data='<urn:a> <urn:p> "two" .\n',
        headers={**AUTH, "Content-Type": "application/n-triples"},
    )
    assert post.status_code == 204
    read = requests.get(store_url, params=named, headers={"Accept": "application/n-triples"})
    assert sorted(read.text.splitlines()) == ['<urn:a> <urn:p> "one" .', '<urn:a> <urn:p> "two" .']
    replaced = requests.put(
        store_url,
        params=named,
        data=json.dumps({"@id": "urn:b", "urn:p": "three"}),
        headers={**AUTH, "Content-Type": "application/ld+json"},
    )
    assert replaced.status_code == 204
    read = requests.get(store_url, params=named, headers={"Accept": "application/n-triples"})
    assert read.text.splitlines() == ['<urn:b> <urn:p> "three" .']
    in_query = count(server, f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{GRAPH}> {{ ?s ?p ?o }} }}")
    assert in_query == 1
    assert requests.delete(store_url, params=named, headers=AUTH).status_code == 204
    assert requests.get(store_url, params=named).status_code == 404
    assert requests.delete(store_url, params=named, headers=AUTH).status_code == 404

    before = count(server)
    added = requests.post(
        store_url + "?default", data=b"<urn:c> <urn:p> <urn:d> .", headers={**AUTH, "Content-Type": "text/turtle"}
    )
    assert added.status_code == 204 and count(server) == before + 1


def test_the_protocol_names_the_graphs_a_query_reads(server) -> None:
    one, two = "http://example.org/dataset/one", "http://example.org/dataset/two"
    for graph, value in ((one, "one"), (two, "two")):
        put = requests.put(
            f"{server.url}/store",
            params={"graph": graph},
            data=f'<urn:a> <urn:p> "{value}" .',
            headers={**AUTH, "Content-Type": "text/turtle"},
        )
        assert put.status_code == 204, put.text
    every = 'SELECT ?o ?g WHERE { { ?s <urn:p> ?o } UNION { GRAPH ?g { ?s <urn:p> ?o } } FILTER(?o IN ("one", "two")) }'

    def rows(parameters, sparql=every) -> set[tuple[str, str | None]]:
        by_get = requests.get(server.sparql, params=[("query", sparql), *parameters])
        by_form = requests.post(server.sparql, data=[("query", sparql), *parameters])
        by_body = requests.post(
            server.sparql,
            params=parameters,
            data=sparql.encode(),
            headers={"Content-Type": "application/sparql-query"},
        )
        answers = []
        for answer in (by_get, by_form, by_body):
            assert answer.status_code == 200, answer.text
            bindings = answer.json()["results"]["bindings"]
            answers.append({(row["o"]["value"], row.get("g", {}).get("value")) for row in bindings})
        assert answers[0] == answers[1] == answers[2]
        return answers[0]

    try:
        assert rows([]) == {("one", one), ("two", two)}  # the store's default graph has neither
        assert rows([("default-graph-uri", one)]) == {("one", None)}  # and no named graph is open
        assert rows([("default-graph-uri", one), ("default-graph-uri", two)]) == {("one", None), ("two", None)}
        assert rows([("named-graph-uri", two)]) == {("two", two)}  # the default graph is then empty
        assert rows([("default-graph-uri", one), ("named-graph-uri", two)]) == {("one", None), ("two", two)}
        assert rows([("default-graph-uri", "http://example.org/none")]) == set()
        from_two = f"SELECT ?o (?none AS ?g) FROM <{two}> WHERE {{ ?s <urn:p> ?o }}"
        assert rows([], from_two) == {("two", None)}
        assert rows([("default-graph-uri", one)], from_two) == {("one", None)}  # the parameter replaces FROM
    finally:
        for graph in (one, two):
            assert requests.delete(f"{server.url}/store", params={"graph": graph}, headers=AUTH).status_code == 204

    relative = requests.get(server.sparql, params={"query": "ASK {}", "named-graph-uri": "graphs/one"})
    assert (
        relative.status_code == 400 and relative.text == "named-graph-uri= must be an absolute IRI, not 'graphs/one'\n"
    )
    using = requests.get(server.sparql, params={"query": "ASK {}", "using-graph-uri": one})
    assert using.status_code == 400 and using.text.startswith("using-graph-uri goes with an update")
    update = "INSERT DATA { entity:scoped rdfs:label 'scoped' }"
    for name in ("default-graph-uri", "using-graph-uri", "using-named-graph-uri"):
        refused = requests.post(server.url + "/update", data={"update": update, name: one}, headers=AUTH)
        assert refused.status_code == 400 and refused.text.startswith(name), refused.text
        refused = requests.post(
            server.sparql,
            params={name: one},
            data=update.encode(),
            headers={**AUTH, "Content-Type": "application/sparql-update"},
        )
        assert refused.status_code == 400 and refused.text.startswith(name), refused.text
    assert label_of(server, "scoped") == []


def test_graph_store_uploads_refused(server) -> None:
    store_url = f"{server.url}/store?default"
    unknown = requests.post(store_url, data=b"a,b,c", headers={**AUTH, "Content-Type": "text/csv"})
    assert unknown.status_code == 415
    quads = b"<urn:a> <urn:b> <urn:c> <urn:g> .\n"
    dataset = requests.post(store_url, data=quads, headers={**AUTH, "Content-Type": "application/n-quads"})
    assert dataset.status_code == 400 and "puts triples in the named graph <urn:g>; upload one graph" in dataset.text
    broken = requests.post(store_url, data=b"<urn:a> <urn:b> .", headers={**AUTH, "Content-Type": "text/turtle"})
    assert broken.status_code == 400 and broken.text.startswith("the Turtle upload does not parse")


def test_an_update_while_another_process_holds_the_store_is_409(server, store: Path) -> None:
    update = "INSERT DATA { entity:held rdfs:label 'held' }"
    with open_store(store, write=True):  # a build writing the store: the write lock cannot be taken
        held = requests.post(server.sparql, data={"update": update}, headers=AUTH)
        assert held.status_code == 409
        assert held.text.startswith("the store is held by another process")
        assert requests.get(server.sparql, params={"query": "ASK {}"}).status_code == 200  # queries go on
    assert label_of(server, "held") == []
    assert requests.post(server.sparql, data={"update": update}, headers=AUTH).status_code == 204
    assert label_of(server, "held") == ["held"]


def test_the_service_description_names_update(server) -> None:
    answer = requests.get(server.sparql, headers={"Accept": "application/n-triples"})
    languages = {
        quad.object.value
        for quad in ox.parse(answer.content, format=ox.RdfFormat.N_TRIPLES)
        if quad.predicate.value == SD_IRI + "supportedLanguage"
    }
    assert languages == {SD_IRI + "SPARQL11Query", SD_IRI + "SPARQL11Update"}


def test_kg_push_into_kg_serve(server, relations_store: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    expected = len(sorted_ntriples(relations_store))
    target = "http://example.org/pushed"
    in_graph = f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{target}> {{ ?s ?p ?o }} }}"
    push = ("push", f"{server.url}/store", "--graph", target, "--store", str(relations_store), "--batch", "40")
    done = run_kg(*push, "--token-file", str(token_file), "--replace")
    assert done.returncode == 0, done.stderr
    assert count(server, in_graph) == expected
    again = run_kg(*push, "--token-file", str(token_file))
    assert again.returncode == 0, again.stderr
    assert count(server, in_graph) == expected  # adding the same triples again changes nothing
    # the pushed graph read as the default graph, as the README reads one pushed into another store
    done = run_kg("query", COUNT, "--format", "json", "--endpoint", f"{server.sparql}?default-graph-uri={target}")
    assert done.returncode == 0, done.stderr
    assert int(json.loads(done.stdout)["results"]["bindings"][0]["n"]["value"]) == expected
    refused = run_kg(*push)
    assert refused.returncode == 2 and "HTTP 401" in refused.stderr


def test_sparqlwrapper_updates_with_the_token(server) -> None:
    from SPARQLWrapper import POST, SPARQLWrapper

    client = SPARQLWrapper(server.sparql, updateEndpoint=server.url + "/update")
    client.setMethod(POST)
    client.addCustomHttpHeader("Authorization", f"Bearer {TOKEN}")
    client.setQuery("INSERT DATA { entity:wrapped rdfs:label 'from SPARQLWrapper' }")
    assert client.query().response.status == 204
    assert label_of(server, "wrapped") == ["from SPARQLWrapper"]
