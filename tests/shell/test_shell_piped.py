"""``kg shell`` with piped input, run as a user would (a subprocess), on a store and on an endpoint."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from conftest import run_kg
from test_shell import write_graph

from kg.namespace import RESOURCE_IRI
from kg.store import open_store


@pytest.fixture(scope="module")
def graph_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_graph(tmp_path_factory.mktemp("piped") / "store")


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """A private HOME and XDG data directory, so that history and saved queries stay in the test."""
    (tmp_path / "home").mkdir()
    return {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "xdg"), "PAGER": "cat"}


def shell(store: Path, text: str, env: dict[str, str], *args: str):
    return run_kg("shell", "--store", str(store), *args, input=text, env=env, timeout=120)


def test_a_query_from_echo(graph_store, home):
    done = shell(graph_store, "SELECT ?l WHERE { ?e a kg:Dataset ; rdfs:label ?l };\n", home)
    assert done.returncode == 0, done.stderr
    assert done.stdout == " l\n----------\n CIFAR-10\n"
    assert done.stderr.startswith("1 row in ")


def test_statements_commands_and_formats(graph_store, home):
    script = """# counts by type
SELECT ?t (COUNT(?e) AS ?n) WHERE {
  ?e a ?t ;
     rdfs:label ?l .
} GROUP BY ?t ORDER BY ?t;
.format csv
SELECT ?l WHERE { kgr:entity/clip rdfs:label ?l }
;
.timing off
.describe ARP
ASK { ?s kg:proposes ?o }"""
    done = shell(graph_store, script, home)
    assert done.returncode == 0, done.stderr
    table, csv = done.stdout.split("\nl\n", 1)  # (text mode reads CSV's CRLF as LF)
    assert table.splitlines() == [
        " t             | n",
        "---------------+---",
        " kg:Dataset    | 1",
        " kg:Method     | 3",
        " kg:Metric     | 1",
        " kg:Phenomenon | 2",
        " kg:Task       | 1",
    ]
    assert csv.startswith("CLIP\nfield,value,note,papers,evidence\nentity,") and csv.endswith("\ntrue\n")
    assert "format: csv" in done.stderr and "timing: off" in done.stderr
    assert done.stderr.splitlines()[-1] == "answer: true"  # no time once timing is off


def test_a_failing_statement_is_reported_and_the_rest_still_runs(graph_store, home):
    script = "ASK { ?s ?p ?o };\n\nSELECT * WHERE {\n  ?s ?p }\n;\n.describe CLIPP\nASK { ?s a kg:Paper };\n"
    done = shell(graph_store, script, home)
    assert done.returncode == 2
    assert done.stdout == "true\ntrue\n"
    errors = [line for line in done.stderr.splitlines() if not line.startswith("answer:")]
    assert errors[0].startswith("stdin:4: SPARQL syntax error at line 2, column ")
    assert errors[1] == "LINE 2:   ?s ?p }" and errors[2].endswith("^")
    assert errors[3] == "stdin:6: error: no entity named 'CLIPP'; did you mean: CLIP?"
    assert "Traceback" not in done.stderr


def test_quit_stops_reading(graph_store, home):
    done = shell(graph_store, "ASK { ?s ?p ?o };\n.quit\nASK { ?s ?p ?o };\n", home)
    assert (done.returncode, done.stdout) == (0, "true\n")


def test_no_store(tmp_path, home):
    done = shell(tmp_path / "nothing", "ASK {};\n", home)
    assert done.returncode == 2  # naming a store that is not there is the user's mistake
    assert done.stderr.startswith("kg: error: ") and "no graph store here" in done.stderr


def test_saved_queries_persist_between_sessions(graph_store, home):
    first = shell(graph_store, "SELECT ?l WHERE { ?e a kg:Metric ; rdfs:label ?l };\n.save metrics\n", home)
    assert first.returncode == 0, first.stderr
    saved = json.loads((Path(home["XDG_DATA_HOME"]) / "abstract-kg" / "queries.json").read_text())
    assert saved == {"metrics": "SELECT ?l WHERE { ?e a kg:Metric ; rdfs:label ?l }"}
    second = shell(graph_store, ".run metrics\n", home)
    assert second.returncode == 0 and second.stdout == first.stdout


# ---------------------------------------------------------------- a SPARQL endpoint


class _Endpoint(BaseHTTPRequestHandler):
    """A minimal read-only SPARQL 1.1 Protocol endpoint over a pyoxigraph store (SELECT and ASK)."""

    store = None  # set by the fixture

    def do_GET(self) -> None:
        self._answer(parse_qs(urlparse(self.path).query).get("query", [""])[0])

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        kind = self.headers.get("Content-Type", "")
        self._answer(body if kind.startswith("application/sparql-query") else parse_qs(body).get("query", [""])[0])

    def _answer(self, query: str) -> None:
        import pyoxigraph as ox

        try:
            payload = self.store.ox.query(query).serialize(format=ox.QueryResultsFormat.JSON)
        except SyntaxError as err:
            self.send_response(400)
            self.end_headers()
            self.wfile.write(str(err).encode())
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint(graph_store):
    with open_store(graph_store) as store:
        store.query("ASK {}")  # load pyoxigraph's modules in this thread first
        _Endpoint.store = store
        server = HTTPServer(("127.0.0.1", 0), _Endpoint)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_port}/sparql"
        finally:
            server.shutdown()
            server.server_close()


def test_on_a_remote_endpoint(endpoint, home):
    script = (
        f"SELECT ?l WHERE {{ <{RESOURCE_IRI}entity/clip> rdfs:label ?l }};\n"
        ".describe clip\n.neighbors CIFAR-10\n.export nt graph.nt\nSELECT * WHERE { ?s ?p };\n"
        "SELECT ?l WHERE { entity:clip rdfs:label ?l . paper:p1 kg:mentions entity:clip };\n.paper p1\n"
    )
    done = run_kg("shell", "--endpoint", endpoint, input=script, env=home, timeout=120)
    assert done.returncode == 2  # the export (the endpoint is read-only here) and the syntax error
    assert done.stdout.startswith(" l\n------\n CLIP\n")
    assert "entity:clip" in done.stdout and "adversarial training" in done.stdout
    # paper: and entity: are declared for the endpoint too, and a paper is found there
    assert done.stdout.count(" l\n------\n CLIP\n") == 2
    assert re.search(r"\n paper +\| paper:p1 +\| This work presents", done.stdout)
    assert "stdin:4: error: export reads a local --store" in done.stderr
    assert "stdin:5: error: " in done.stderr and "Traceback" not in done.stderr
