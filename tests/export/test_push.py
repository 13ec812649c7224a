"""`kg push` into real triple stores started here (Virtuoso 7, Oxigraph server), and what they answer
afterwards through `kg query --endpoint`, compared with `kg query` on the local store.

The servers start once per session; a server that is not installed is skipped with the command that
installs it. Where a real server cannot be made to do something (ask for basic or bearer credentials,
fail a chosen batch), a small reverse proxy in front of the real Oxigraph server does it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import requests
from conftest import run_kg, sorted_ntriples
from triple_servers import VIRTUOSO_INI, Proxy, Server, oxigraph_binary, start_oxigraph, start_virtuoso

from kg.errors import RemoteError
from kg.export.gsp import Credentials, GraphStoreClient
from kg.export.push import DEFAULT_BATCH, push, staging_graph
from kg.export.schema import schema_graphs
from kg.store import open_store

GRAPH = "https://example.org/abstract-kg"
VIRTUOSO_PASSWORD = "dba"  # a new Virtuoso database's

QUERIES = {
    "counts by type": "SELECT ?type (COUNT(?s) AS ?n) WHERE { ?s a ?type } GROUP BY ?type",
    "counts by predicate": "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p",
    "ten most mentioned methods": """SELECT ?method ?label (COUNT(DISTINCT ?paper) AS ?papers) WHERE {
        ?method a kg:Method ; rdfs:label ?label . ?paper kg:mentions ?method }
        GROUP BY ?method ?label ORDER BY DESC(?papers) STR(?method) LIMIT 10""",
    "two hops: what addresses a phenomenon, and the sentence that says so": """
        SELECT ?method ?phenomenon ?sentence ?confidence WHERE {
        ?m kg:addresses ?p . ?p a kg:Phenomenon ; rdfs:label ?phenomenon . ?m rdfs:label ?method .
        ?st rdf:subject ?m ; rdf:predicate kg:addresses ; rdf:object ?p ; kg:evidence ?sentence ;
            kg:confidence ?confidence }""",
    "property path": """SELECT ?label (COUNT(DISTINCT ?broader) AS ?n) WHERE {
        ?e rdfs:label ?label ; kg:hyponymOf+ ?broader } GROUP BY ?label""",
}
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


# --- the servers --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def virtuoso(tmp_path_factory: pytest.TempPathFactory):
    if shutil.which("virtuoso-t") is None or not VIRTUOSO_INI.exists():
        pytest.skip("Virtuoso is not installed (Debian: apt-get install virtuoso-opensource; make install does)")
    server = start_virtuoso(tmp_path_factory.mktemp("virtuoso"))
    password = tmp_path_factory.mktemp("secrets") / "dba.txt"
    password.write_text(VIRTUOSO_PASSWORD + "\n")
    server.extra["password_file"] = str(password)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def oxigraph_server(tmp_path_factory: pytest.TempPathFactory):
    if oxigraph_binary() is None:
        pytest.skip("the Oxigraph server is not installed (pip install oxigraph; make install does)")
    server = start_oxigraph(tmp_path_factory.mktemp("oxigraph"))
    yield server
    server.stop()


def virtuoso_push(server: Server, *args: str) -> list[str]:
    """The arguments of `kg push` into Virtuoso's authenticated Graph Store endpoint (digest)."""
    return [
        "push",
        f"{server.base}/sparql-graph-crud-auth",
        "--user",
        "dba",
        "--password-file",
        server.extra["password_file"],
        *args,
    ]


def virtuoso_endpoint(server: Server, graph: str = GRAPH) -> str:
    """Virtuoso's SPARQL endpoint, reading ``graph`` as the default graph (Virtuoso's own default is the
    union of every graph, its system graphs included)."""
    return f"{server.base}/sparql?default-graph-uri={graph}"


def count(endpoint: str) -> int:
    done = run_kg("query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "--format", "json", "--endpoint", endpoint)
    assert done.returncode == 0, done.stderr
    return int(json.loads(done.stdout)["results"]["bindings"][0]["n"]["value"])


def graphs(server: Server) -> set[str]:
    """The named graphs of the Oxigraph server ``server``."""
    answer = requests.get(
        f"{server.base}/query",
        params={"query": "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"},
        headers={"Accept": "application/sparql-results+json"},
        timeout=30,
    )
    return {row["g"]["value"] for row in answer.json()["results"]["bindings"]}


def rows(*args: str) -> set[tuple]:
    """The rows `kg query --format json` prints, as a set: each value by kind, lexical form, datatype
    (a plain literal is an xsd:string, as RDF 1.1 says) and language."""
    done = run_kg("query", *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    found = set()
    for binding in answer["results"]["bindings"]:
        row = []
        for name, value in sorted(binding.items()):
            kind = "literal" if value["type"] in ("literal", "typed-literal") else value["type"]
            language = value.get("xml:lang")
            datatype = value.get("datatype") or (XSD_STRING if kind == "literal" and not language else None)
            row.append((name, kind, value["value"], datatype, language))
        found.add(tuple(row))
    return found


@pytest.fixture(scope="session")
def local_answers(seeds_store: Path) -> dict[str, set[tuple]]:
    """The five queries' answers from the local store."""
    return {name: rows(query, "--store", str(seeds_store)) for name, query in QUERIES.items()}


def assert_same_answers(endpoint: str, local_answers: dict[str, set[tuple]]) -> None:
    for name, query in QUERIES.items():
        remote = rows(query, "--endpoint", endpoint)
        assert local_answers[name], name  # the query finds something in the seeds graph
        assert remote == local_answers[name], name


# --- Virtuoso ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_push_into_virtuoso_answers_as_the_local_store(
    virtuoso: Server, seeds_store: Path, local_answers: dict[str, set[tuple]]
) -> None:
    with open_store(seeds_store) as store:
        triples = len(store)
    done = run_kg(*virtuoso_push(virtuoso, "--graph", GRAPH, "--store", str(seeds_store)))
    assert done.returncode == 0, done.stderr
    assert f"pushed {triples} triples in {-(-triples // DEFAULT_BATCH)} batches to graph <{GRAPH}>" in done.stderr
    assert count(virtuoso_endpoint(virtuoso)) == triples
    assert_same_answers(virtuoso_endpoint(virtuoso), local_answers)


@pytest.mark.slow
def test_replace_into_virtuoso_swaps_the_graph_in_one_update(
    virtuoso: Server, seeds_store: Path, relations_store: Path
) -> None:
    graph = GRAPH + "/replaced"
    with open_store(relations_store) as store:
        small = len(store)
    with open_store(seeds_store) as store:
        large = len(store)
    assert run_kg(*virtuoso_push(virtuoso, "--graph", graph, "--store", str(seeds_store))).returncode == 0
    done = run_kg(*virtuoso_push(virtuoso, "--graph", graph, "--replace", "--store", str(relations_store)))
    assert done.returncode == 0, done.stderr
    assert "(it replaced what the graph held)" in done.stderr
    assert count(virtuoso_endpoint(virtuoso, graph)) == small < large
    assert count(virtuoso_endpoint(virtuoso, staging_graph(graph))) == 0


@pytest.mark.slow
def test_virtuoso_credentials_are_asked_for_and_checked(
    virtuoso: Server, relations_store: Path, tmp_path: Path
) -> None:
    url = f"{virtuoso.base}/sparql-graph-crud-auth"
    graph = GRAPH + "/refused"
    done = run_kg("push", url, "--graph", graph, "--store", str(relations_store))
    assert done.returncode == 2
    assert "HTTP 401" in done.stderr and "asks for digest credentials" in done.stderr
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("not-the-password\n")
    done = run_kg(
        "push", url, "--graph", graph, "--user", "dba", "--password-file", str(wrong), "--store", str(relations_store)
    )
    assert done.returncode == 2 and "credentials given were refused" in done.stderr
    assert count(virtuoso_endpoint(virtuoso, graph)) == 0


@pytest.mark.slow
def test_replace_is_refused_where_virtuoso_takes_no_updates(virtuoso: Server, relations_store: Path) -> None:
    # The anonymous endpoints: the SPARQL user may not run updates.
    graph = GRAPH + "/anonymous"
    done = run_kg(
        "push", f"{virtuoso.base}/sparql-graph-crud", "--graph", graph, "--replace", "--store", str(relations_store)
    )
    assert done.returncode == 2, done.stderr
    assert f"{virtuoso.base}/sparql takes no SPARQL updates" in done.stderr
    assert "push without --replace" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert count(virtuoso_endpoint(virtuoso, graph)) == 0


# --- Oxigraph server -----------------------------------------------------------------------------


def test_push_into_oxigraph_server_answers_as_the_local_store(
    oxigraph_server: Server, seeds_store: Path, local_answers: dict[str, set[tuple]]
) -> None:
    with open_store(seeds_store) as store:
        triples = len(store)
    done = run_kg("push", f"{oxigraph_server.base}/store", "--replace", "--store", str(seeds_store))
    assert done.returncode == 0, done.stderr
    assert f"pushed {triples} triples in {-(-triples // DEFAULT_BATCH)} batches to the default graph" in done.stderr
    assert count(f"{oxigraph_server.base}/query") == triples
    assert_same_answers(f"{oxigraph_server.base}/query", local_answers)
    assert staging_graph(None) not in graphs(oxigraph_server)


def test_push_adds_and_replace_swaps(oxigraph_server: Server, relations_store: Path, small_store: Path) -> None:
    graph = GRAPH + "/adds"
    endpoint = f"{oxigraph_server.base}/query?default-graph-uri={graph}"
    url = f"{oxigraph_server.base}/store"
    relations, small = len(sorted_ntriples(relations_store)), len(sorted_ntriples(small_store))
    both = len(set(sorted_ntriples(relations_store)) | set(sorted_ntriples(small_store)))
    for _ in range(2):  # pushing the same triples again adds nothing
        done = run_kg("push", url, "--graph", graph, "--batch", "25", "--store", str(relations_store))
        assert done.returncode == 0, done.stderr
        assert count(endpoint) == relations
    assert f"in {-(-relations // 25)} batches" in done.stderr
    assert run_kg("push", url, "--graph", graph, "--store", str(small_store)).returncode == 0
    assert count(endpoint) == both > max(relations, small)
    assert run_kg("push", url, "--graph", graph, "--replace", "--store", str(small_store)).returncode == 0
    assert count(endpoint) == small
    assert staging_graph(graph) not in graphs(oxigraph_server)


def test_push_with_the_ontology_sends_the_schema_too(oxigraph_server: Server, relations_store: Path) -> None:
    graph = GRAPH + "/with-schema"
    done = run_kg(
        "push", f"{oxigraph_server.base}/store", "--graph", graph, "--with-ontology", "--store", str(relations_store)
    )
    assert done.returncode == 0, done.stderr
    with open_store(relations_store) as store:
        expected = len(store) + sum(len(schema.triples()) for schema in schema_graphs())
    assert count(f"{oxigraph_server.base}/query?default-graph-uri={graph}") == expected


def test_a_blank_node_stays_one_node(oxigraph_server: Server, tmp_path: Path) -> None:
    from rdflib import BNode, Literal, URIRef

    p = URIRef("http://example.org/p")
    node = BNode()
    triples = [(URIRef(f"http://example.org/s{n}"), p, Literal(n)) for n in range(5)]
    triples += [(node, p, Literal(f"b{n}")) for n in range(3)] + [(URIRef("http://example.org/s0"), p, node)]
    with open_store(tmp_path / "store", create=True) as store:
        store.write(triples)
    graph = GRAPH + "/blank"
    args = ["push", f"{oxigraph_server.base}/store", "--graph", graph, "--batch", "2"]
    done = run_kg(*args, "--store", str(tmp_path / "store"))
    assert done.returncode == 0, done.stderr
    assert "9 triples in 4 batches" in done.stderr  # 5 without a blank node in 3, the 4 with one in 1
    query = "SELECT (COUNT(DISTINCT ?b) AS ?n) WHERE { ?b ?p ?o FILTER(isBlank(?b)) }"
    endpoint = f"{oxigraph_server.base}/query?default-graph-uri={graph}"
    found = run_kg("query", query, "--format", "csv", "--endpoint", endpoint)
    assert found.stdout.splitlines() == ["n", "1"], found.stderr
    assert count(endpoint) == 9


def test_construct_through_an_endpoint_gives_triples(oxigraph_server: Server, relations_store: Path) -> None:
    # rdflib asked for SPARQL JSON results whatever the query; Oxigraph refuses that for CONSTRUCT (406).
    graph = GRAPH + "/construct"
    assert (
        run_kg("push", f"{oxigraph_server.base}/store", "--graph", graph, "--store", str(relations_store)).returncode
        == 0
    )
    query = "CONSTRUCT { ?e rdfs:label ?l } WHERE { ?e a kg:Method ; rdfs:label ?l }"
    remote = run_kg(
        "query", query, "--format", "csv", "--endpoint", f"{oxigraph_server.base}/query?default-graph-uri={graph}"
    )
    local = run_kg("query", query, "--format", "csv", "--store", str(relations_store))
    assert remote.returncode == 0, remote.stderr
    assert sorted(remote.stdout.splitlines()) == sorted(local.stdout.splitlines())
    assert len(local.stdout.splitlines()) == 1 + 4  # a header, and CLIP, ARP, adversarial training, quantum annealing


# --- credentials and failures, through a proxy in front of the Oxigraph server -----------------------


def test_basic_authentication(oxigraph_server: Server, relations_store: Path, tmp_path: Path) -> None:
    password = tmp_path / "password"
    password.write_text("s3cret\n")
    graph = GRAPH + "/basic"
    with Proxy(oxigraph_server.base, user="lab", password="s3cret") as proxy:
        refused = run_kg("push", f"{proxy.base}/store", "--graph", graph, "--store", str(relations_store))
        assert refused.returncode == 2 and "asks for basic credentials" in refused.stderr
        done = run_kg(
            "push",
            f"{proxy.base}/store",
            "--graph",
            graph,
            "--user",
            "lab",
            "--password-file",
            str(password),
            "--replace",
            "--store",
            str(relations_store),
        )
        assert done.returncode == 0, done.stderr
    with open_store(relations_store) as store:
        assert count(f"{oxigraph_server.base}/query?default-graph-uri={graph}") == len(store)


def test_bearer_token(oxigraph_server: Server, relations_store: Path, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("t0ken\n")
    graph = GRAPH + "/token"
    with Proxy(oxigraph_server.base, token="t0ken") as proxy:
        done = run_kg(
            "push", f"{proxy.base}/store", "--graph", graph, "--token-file", str(token), "--store", str(relations_store)
        )
        assert done.returncode == 0, done.stderr
        from_environment = run_kg(
            "push",
            f"{proxy.base}/store",
            "--graph",
            graph,
            "--store",
            str(relations_store),
            env={"KG_PUSH_TOKEN": "wrong"},
        )
        assert from_environment.returncode == 2 and "credentials given were refused" in from_environment.stderr
    with open_store(relations_store) as store:
        assert count(f"{oxigraph_server.base}/query?default-graph-uri={graph}") == len(store)


def test_a_terminal_shows_a_progress_bar(oxigraph_server: Server, relations_store: Path) -> None:
    import os

    import pexpect
    from conftest import KG_SCRIPT

    env = {k: v for k, v in os.environ.items() if k not in ("KG_STORE", "COLUMNS", "LINES")}
    args = ["push", f"{oxigraph_server.base}/store", "--graph", GRAPH + "/bar", "--batch", "20"]
    child = pexpect.spawn(str(KG_SCRIPT), [*args, "--store", str(relations_store)], env=env, dimensions=(24, 100))
    child.expect(pexpect.EOF, timeout=120)
    screen = child.before.decode()
    with open_store(relations_store) as store:
        total = len(store)
    assert re.search(rf"pushing: 100%\|[^\r\n]*\| {total}/{total}", screen), screen
    assert f"pushed {total} triples" in screen


def fast_client(**options: object) -> GraphStoreClient:
    return GraphStoreClient(backoff=0.01, **options)  # type: ignore[arg-type]


def test_a_batch_that_fails_once_is_sent_again(oxigraph_server: Server, relations_store: Path) -> None:
    graph = GRAPH + "/retried"
    with Proxy(oxigraph_server.base, fail=lambda number: 503 if number == 2 else None) as proxy:
        progress: list[tuple[int, int]] = []
        with open_store(relations_store) as store, fast_client() as client:
            report = push(
                store,
                f"{proxy.base}/store",
                graph=graph,
                batch=20,
                client=client,
                progress=lambda done, total: progress.append((done, total)),
            )
            total = len(store)
        assert proxy.batches == report.batches + 1  # the second batch twice
    assert report.triples == total and progress[-1] == (total, total)
    assert [done for done, _ in progress] == sorted({0, *range(20, total, 20), total})
    assert count(f"{oxigraph_server.base}/query?default-graph-uri={graph}") == total


def test_a_batch_that_keeps_failing_is_reported_with_what_was_sent(
    oxigraph_server: Server, relations_store: Path
) -> None:
    graph = GRAPH + "/failed"
    with open_store(relations_store) as store:
        total = len(store)
    batches = -(-total // 20)
    with Proxy(oxigraph_server.base, fail=lambda number: 500 if number >= 3 else None) as proxy:
        done = run_kg("push", f"{proxy.base}/store", "--graph", graph, "--batch", "20", "--store", str(relations_store))
        assert proxy.batches == 2 + 3  # two batches sent, then three attempts at the third
    assert done.returncode == 1
    message = done.stderr.strip()
    assert "\n" not in message and "Traceback" not in message
    assert f"batch 3 of {batches} (triples 41-60) failed" in message and "injected failure of batch 5" in message
    assert f"sent 40 of {total} triples (batches 1-2) to graph <{graph}>" in message
    assert f"not sent: {total - 40} triples (batches 3-{batches})" in message
    assert count(f"{oxigraph_server.base}/query?default-graph-uri={graph}") == 40


def test_a_failed_replace_leaves_the_target_as_it_was(
    oxigraph_server: Server, relations_store: Path, small_store: Path
) -> None:
    graph = GRAPH + "/kept"
    endpoint = f"{oxigraph_server.base}/query?default-graph-uri={graph}"
    assert (
        run_kg("push", f"{oxigraph_server.base}/store", "--graph", graph, "--store", str(small_store)).returncode == 0
    )
    with open_store(small_store) as store:
        before = len(store)
    with Proxy(oxigraph_server.base, fail=lambda number: 400 if number == 2 else None) as proxy:
        done = run_kg(
            "push",
            f"{proxy.base}/store",
            "--graph",
            graph,
            "--batch",
            "20",
            "--replace",
            "--update-url",
            f"{proxy.base}/update",
            "--store",
            str(relations_store),
        )
    assert done.returncode == 1
    assert "batch 2 of" in done.stderr and "20 of" in done.stderr and "now dropped" in done.stderr
    assert f"graph <{graph}> is as it was" in done.stderr
    assert count(endpoint) == before
    assert staging_graph(graph) not in graphs(oxigraph_server)


def test_replace_needs_an_update_endpoint(oxigraph_server: Server, relations_store: Path) -> None:
    with Proxy(oxigraph_server.base) as proxy:
        done = run_kg(
            "push",
            f"{proxy.base}/store",
            "--replace",
            "--update-url",
            f"{proxy.base}/nothing-here",
            "--store",
            str(relations_store),
        )
        assert proxy.batches == 0
    assert done.returncode == 2 and "takes no SPARQL updates" in done.stderr
    done = run_kg("push", f"{oxigraph_server.base}/elsewhere", "--replace", "--store", str(relations_store))
    assert done.returncode == 2 and "cannot tell where" in done.stderr and "--update-url" in done.stderr


def test_an_unreachable_server_is_reported_after_the_attempts(relations_store: Path) -> None:
    refused = "cannot connect to http://127.0.0.1:9/store.*connection refused"
    with open_store(relations_store) as store, fast_client() as client, pytest.raises(RemoteError, match=refused):
        push(store, "http://127.0.0.1:9/store", client=client)


# --- options -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args,message",
    [
        (["--graph", "not an iri"], "--graph must be an absolute IRI"),
        (["--batch", "0"], "--batch: must be 1 or more"),
        (["--password-file", "pw.txt"], "--password-file needs --user"),
        (["--user", "dba"], "--user dba needs a password"),
        (["--user", "dba", "--password-file", "missing.txt"], "missing.txt: no such file (--password-file)"),
        (["--user", "dba", "--token-file", "t.txt"], "either --user with --password-file, or --token-file"),
    ],
)
def test_bad_options_are_usage_errors(relations_store: Path, args: list[str], message: str) -> None:
    done = run_kg("push", "http://127.0.0.1:9/store", *args, "--store", str(relations_store))
    assert done.returncode == 2 and message in done.stderr
    if args[0] != "--batch":  # argparse's own errors come after the usage
        assert done.stderr.startswith("kg: error: ") and len(done.stderr.strip().splitlines()) == 1


def test_credentials_never_show_in_a_repr() -> None:
    assert "s3cret" not in repr(Credentials(user="u", password="s3cret"))
    assert "t0ken" not in repr(Credentials(token="t0ken"))
