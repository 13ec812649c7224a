"""The store layer: backends by name, values bound rather than written into queries, and every query."""

from __future__ import annotations

import json
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SKOS

from kg.errors import (
    QueryCancelled,
    QueryError,
    QueryTimeoutError,
    StoreError,
    StoreNotFoundError,
    UpdateRefusedError,
    UsageError,
)
from kg.query import render
from kg.rdf import KG, entity_iri, paper_iri, statement_iri
from kg.store import BACKENDS, EmbeddedStore, EndpointStore, open_store, queries
from kg.store.endpoint import with_values
from kg.store.select import select_strings

# A label that pasting would have to escape, and one that would end a string literal early.
ODD = 'the "quoted" \\ back-slashed model'


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "s"
    clip, odd, cifar = entity_iri("clip"), entity_iri("odd"), entity_iri("cifar-10")
    paper, statement = paper_iri("p1"), statement_iri("s1")
    triples = [
        (clip, RDF.type, KG.Method),
        (clip, RDFS.label, Literal("CLIP")),
        (clip, SKOS.altLabel, Literal("Contrastive Language-Image Pre-training")),
        (odd, RDF.type, KG.Method),
        (odd, RDFS.label, Literal(ODD)),
        (cifar, RDF.type, KG.Dataset),
        (cifar, RDFS.label, Literal("CIFAR-10")),
        (paper, RDF.type, KG.Paper),
        (paper, DCTERMS.identifier, Literal("p1")),
        (paper, DCTERMS.abstract, Literal("We evaluate CLIP on CIFAR-10.")),
        (paper, KG.mentions, clip),
        (paper, KG.mentions, cifar),
        (paper, KG.proposes, clip),
        (clip, KG.evaluatedOn, cifar),
        (statement, RDF.type, KG.Statement),
        (statement, RDF.subject, clip),
        (statement, RDF.predicate, KG.evaluatedOn),
        (statement, RDF.object, cifar),
        (statement, PROV.wasDerivedFrom, paper),
        (statement, KG.evidence, Literal("We evaluate CLIP on CIFAR-10.")),
    ]
    with open_store(path, create=True) as store:
        store.write(triples)
    return path


@pytest.fixture
def store(store_path: Path):
    with open_store(store_path) as opened:
        yield opened


def test_backends_are_looked_up_by_name(store_path: Path) -> None:
    assert {"embedded": EmbeddedStore, "endpoint": EndpointStore} == BACKENDS
    with open_store(store_path) as opened:
        assert isinstance(opened, EmbeddedStore) and not opened.writable
    assert isinstance(open_store(endpoint="http://127.0.0.1:9/sparql"), EndpointStore)
    with pytest.raises(UsageError, match="read-only"):
        open_store(endpoint="http://127.0.0.1:9/sparql", write=True)
    with pytest.raises(UsageError, match="http"):
        open_store(endpoint="ftp://example.org/sparql")


def test_a_directory_that_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreNotFoundError, match="no graph store here") as missing:
        open_store(tmp_path / "none")
    assert missing.value.exit_status == 2  # the user's mistake
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "file").write_text("x")
    with pytest.raises(StoreNotFoundError, match="not a kg store"):
        open_store(tmp_path / "full", create=True)
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "kg-store.json").write_text("{")
    with pytest.raises(StoreError, match="damaged") as damaged:
        open_store(tmp_path / "damaged")
    assert damaged.value.exit_status == 1


def test_every_query_runs(store) -> None:
    texts = [
        value
        for name, value in vars(queries).items()
        if name.isupper() and isinstance(value, str) and name not in ("ALIAS_SEPARATOR", *queries.UPDATES)
    ]
    assert len(texts) >= 15
    for text in texts:
        store.query(text)


def test_every_update_runs(tmp_path: Path) -> None:
    with open_store(tmp_path / "s", create=True) as scratch:
        for name in queries.UPDATES:
            scratch.ox.update(getattr(queries, name))


def test_text_is_bound_not_pasted(store) -> None:
    for needle in ('"quoted" \\', "}"):
        rows = store.query(queries.FIND_ENTITIES, bindings={"needle": Literal(needle)}).rows
        assert [str(row[1]) for row in rows] == ([ODD] if needle != "}" else [])


def test_an_entity_bound_by_iri(store) -> None:
    clip = {"entity": URIRef(entity_iri("clip"))}
    (row,) = store.query(queries.ENTITIES, bindings=clip).rows
    assert (str(row[2]), queries.split_aliases(row[3])) == ("CLIP", ["Contrastive Language-Image Pre-training"])
    (paper,) = store.query(queries.ENTITY_PAPERS, bindings=clip).rows
    (proposer,) = store.query(queries.ENTITY_PROPOSERS, bindings=clip).rows
    assert paper[1] == proposer[1] == paper_iri("p1")
    (link,) = store.query(queries.ENTITY_LINKS, bindings=clip).rows
    assert (str(link[2]), str(link[4]), int(link[6])) == ("out", "CIFAR-10", 1)


def test_select_strings_binds_iris(store) -> None:
    paper = str(paper_iri("p1"))
    assert select_strings(store, queries.PAPER_ABSTRACT, bindings={"paper": paper}) == [
        (paper, "We evaluate CLIP on CIFAR-10.")
    ]
    assert select_strings(store, queries.PAPER_ABSTRACT, bindings={"paper": paper + "-none"}) == []


@pytest.mark.parametrize(
    ("query", "bindings"),
    [
        (queries.FIND_ENTITIES, {"needle": Literal('"quoted" \\')}),
        (queries.FIND_ENTITIES, {"needle": Literal("c")}),
        (queries.ENTITIES, {"entity": URIRef(entity_iri("clip"))}),
        (queries.ENTITY_PAPERS, {"entity": URIRef(entity_iri("cifar-10"))}),
        (queries.ENTITY_PROPOSERS, {"entity": URIRef(entity_iri("clip"))}),
        (queries.ENTITY_LINKS, {"entity": URIRef(entity_iri("cifar-10"))}),
        (queries.PAPERS_BY_ID_START, {"start": Literal("p")}),
        (queries.PAPER_FIELDS, {"paper": URIRef(paper_iri("p1"))}),
        (queries.PAPER_ENTITIES, {"paper": URIRef(paper_iri("p1"))}),
        (queries.PAPER_STATEMENTS, {"paper": URIRef(paper_iri("p1"))}),
    ],
)
def test_an_endpoint_binds_as_the_embedded_store_does(store, query, bindings) -> None:
    # What an endpoint is sent, run here: the same answer as Oxigraph's substitution.
    sent = with_values(query, bindings)
    assert "VALUES" in sent and store.query(sent).rows == store.query(query, bindings=bindings).rows
    assert store.query(query, bindings=bindings).rows


# --- SELECT * in the query's order, updates refused, and what an endpoint's failures say ------------------


def test_select_star_columns_follow_the_query(store) -> None:
    result = store.query("SELECT * WHERE { ?paper kg:mentions ?entity . ?entity rdfs:label ?label }")
    assert result.columns == ("paper", "entity", "label")
    paper = str(paper_iri("p1"))
    assert {(str(row[0]), str(row[2])) for row in result.rows} == {(paper, "CLIP"), (paper, "CIFAR-10")}
    # Variables only a sub-query or a later clause names keep their place after the others.
    nested = store.query("SELECT DISTINCT * { { SELECT ?z ?a WHERE { BIND(1 AS ?a) BIND(2 AS ?z) } } }")
    assert nested.columns == ("z", "a")


def test_an_update_is_refused_by_either_store(store) -> None:
    for backend in (store, open_store(endpoint="http://127.0.0.1:9/sparql")):
        with pytest.raises(UpdateRefusedError, match="INSERT DATA is a SPARQL update, and updates are not accepted"):
            backend.query("# a comment\nINSERT DATA { <urn:a> <urn:b> 1 }")


class _Answers(BaseHTTPRequestHandler):
    """An endpoint that answers any SELECT with the variables in Oxigraph's order (sorted), and
    anything else with HTTP 400 and a message."""

    def do_GET(self) -> None:
        query = parse_qs(urlparse(self.path).query).get("query", [""])[0]
        if "SELECT" not in query:
            self.send_response(400)
            self.end_headers()
            self.wfile.write(b"Parse error: expected SELECT\nmore detail")
            return
        body = json.dumps(
            {
                "head": {"vars": ["o", "p", "s"]},
                "results": {
                    "bindings": [{"s": {"type": "uri", "value": "urn:s"}, "o": {"type": "literal", "value": "1"}}]
                },
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def answering_endpoint():
    server = HTTPServer(("127.0.0.1", 0), _Answers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/sparql"
    finally:
        server.shutdown()
        server.server_close()


def test_an_endpoint_answer_follows_the_query_and_its_refusal_is_quoted(answering_endpoint: str) -> None:
    with open_store(endpoint=answering_endpoint) as remote:
        result = remote.query("SELECT * WHERE { ?s ?p ?o }")
        assert result.columns == ("s", "p", "o") and result.rows == [(URIRef("urn:s"), None, Literal("1"))]
        with pytest.raises(QueryError) as refused:
            remote.query("ASK {}")
    assert (
        str(refused.value)
        == f"{answering_endpoint}: the endpoint answered HTTP 400 Bad Request: Parse error: expected SELECT"
    )
    with pytest.raises(QueryError, match=r"^cannot connect to http://127\.0\.0\.1:9/sparql: connection refused$"):
        open_store(endpoint="http://127.0.0.1:9/sparql").query("ASK {}")


# --- an endpoint's answers, its time limit and Ctrl-C -----------------------------------------------------


def test_an_endpoint_answers_as_the_embedded_store_does(relations_store: Path, oxigraph_endpoint: str) -> None:
    remote = open_store(endpoint=f"{oxigraph_endpoint}/query")
    with open_store(relations_store) as local:
        for sparql in (
            "SELECT * WHERE { ?paper kg:mentions ?entity . ?entity rdfs:label ?label } ORDER BY ?paper ?label",
            "ASK { ?p kg:proposes ?e }",
            "CONSTRUCT { ?e rdfs:label ?l } WHERE { ?e a kg:Method ; rdfs:label ?l }",
        ):
            here, there = local.query(sparql), remote.query(sparql, timeout=30)
            assert (there.kind, there.columns, there.boolean) == (here.kind, here.columns, here.boolean)
            # as written (rdflib reads a plain string literal without the xsd:string Oxigraph gives it)
            assert sorted(render(there, "tsv").splitlines()) == sorted(render(here, "tsv").splitlines())
            assert there.count > 0 or there.boolean is True
    # the project's prefixes, and no others (as the embedded store)
    with pytest.raises(QueryError, match="HTTP 400"):
        remote.query("SELECT ?n WHERE { ?p foaf:name ?n }")


@pytest.mark.parametrize("kind", ["silent", "trickle"])
def test_an_endpoint_past_its_time_limit_is_abandoned(slow_endpoint: str, kind: str) -> None:
    remote = open_store(endpoint=f"{slow_endpoint}/{kind}")
    started = time.monotonic()
    with pytest.raises(QueryTimeoutError, match=r"^query abandoned after 1 s \(--timeout\)$"):
        remote.query("SELECT ?n WHERE { ?s ?p ?n }", timeout=1)
    assert time.monotonic() - started < 4


def test_ctrl_c_interrupts_an_endpoint_request(slow_endpoint: str) -> None:
    remote = open_store(endpoint=f"{slow_endpoint}/silent")
    timer = threading.Timer(0.5, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(QueryCancelled):
            remote.query("SELECT ?n WHERE { ?s ?p ?n }")
    finally:
        timer.cancel()
    assert time.monotonic() - started < 3
