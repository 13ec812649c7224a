"""Shared fixtures: running the real `kg` command, a small corpus, the seeds graph, and a small graph of
relations written straight into a store (no NLP)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from rdflib import Dataset, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SKOS

from kg.rdf import KG, entity_iri, paper_iri, statement_iri
from kg.store import Store, open_store

# A suite started in the background by a shell without job control inherits SIGINT ignored, and so
# would every `kg` it starts; the tests of Ctrl-C need the interrupt delivered as a terminal delivers it.
signal.signal(signal.SIGINT, signal.default_int_handler)

REPO = Path(__file__).resolve().parent.parent

# Headless Chromium, for the tests that render a page (kg viz, kg serve's query page).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install -y chromium)"
)


def chromium_flags(tmp_path: Path) -> list[str]:
    """Headless Chromium with a fresh profile and none of its background requests (this machine's
    network is closed)."""
    return [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]


SEEDS = REPO / "seeds"
KG_SCRIPT = Path(sys.executable).parent / "kg"

SMALL_CORPUS = """Daily Papers

This work presents Adaptive Return-conditioned Policy (ARP), an efficient framework designed to enhance the agent's generalization ability using pre-trained multimodal encoders such as CLIP. Our ARP effectively mitigates the goal misgeneralization.

Adversarial training suffers from robust overfitting. We propose a new regularizer that mitigates robust overfitting and improves robust accuracy on CIFAR-10.

Adversarial training suffers from robust overfitting. We propose a new regularizer that mitigates robust overfitting and improves robust accuracy on CIFAR-10.
"""


def run_kg(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """Run the installed `kg` console script, as a user would."""
    environment = {k: v for k, v in os.environ.items() if k != "KG_STORE"}
    environment.update(env or {})
    return subprocess.run(
        [str(KG_SCRIPT), *args], cwd=cwd, env=environment, input=input, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    path = tmp_path / "papers.txt"
    path.write_text(SMALL_CORPUS)
    return path


@pytest.fixture(scope="session")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store built once from the small corpus (3 abstracts, 2 distinct)."""
    folder = tmp_path_factory.mktemp("small")
    (folder / "papers.txt").write_text(SMALL_CORPUS)
    store = folder / "store"
    done = run_kg("build", str(folder / "papers.txt"), "--store", str(store))
    assert done.returncode == 0, done.stderr
    return store


@pytest.fixture(scope="session")
def seeds_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The graph of the four seed files, built once through the CLI, and what the build printed."""
    store = tmp_path_factory.mktemp("seeds") / "store"
    done = run_kg("build", str(SEEDS), "--store", str(store))
    assert done.returncode == 0, done.stderr
    return store, done.stderr


@pytest.fixture(scope="session")
def seeds_store(seeds_build: tuple[Path, str]) -> Path:
    """The graph of the four seed files (see ``seeds_build``)."""
    return seeds_build[0]


def stats_of(store: Path) -> dict:
    done = run_kg("stats", "--format", "json", "--store", str(store))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def sorted_ntriples(store: Path) -> list[str]:
    done = run_kg("export", "--format", "nt", "--store", str(store))
    assert done.returncode == 0, done.stderr
    return sorted(line for line in done.stdout.splitlines() if line.strip())


def parsed_triples(path: Path, rdflib_format: str) -> set[tuple]:
    """The triples of an exported file, read back by rdflib (those of every graph, for a quad format)."""
    if rdflib_format in ("nquads", "trig"):
        parsed = Dataset()
        parsed.parse(path, format=rdflib_format)
        return {(s, p, o) for s, p, o, _ in parsed.quads()}
    return set(Graph().parse(path, format=rdflib_format))


def path_json(store: Path, *args: str) -> dict:
    done = run_kg("path", *args, "--format", "json", "--store", str(store))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def hops_of(report: dict, number: int = 0) -> list[tuple[str, str, str]]:
    return [(hop["from"], hop["predicate"], hop["to"]) for hop in report["paths"][number]["hops"]]


# --- a small graph with relations and statements -------------------------------------------
# A small graph with relations and statements, written straight into a store (no NLP).
#
# Shared by the exploration and export tests (the ``relations_store`` fixture). Relations are stored as the
# ontology says: the plain triple, plus one ``kg:Statement`` per paper with its evidence.
#
# The graph::
#
#     p1  "We use CLIP for zero-shot classification on ImageNet. CLIP reaches high accuracy."
#         CLIP usedFor zero-shot classification; zero-shot classification evaluatedOn ImageNet
#     p2  "This work presents Adaptive Return-conditioned Policy (ARP), built on CLIP. ..."
#         CLIP partOf ARP; ARP addresses goal misgeneralization
#     p3  "Adversarial training suffers from robust overfitting. ..."   (mentions only)
#     p4  "CLIP is used for zero-shot classification."                  CLIP usedFor zsc again
#     p5  "We study quantum annealing."                                  (an island)

ENTITIES = {
    "clip": ("CLIP", "Method", ["Contrastive Language-Image Pre-training"]),
    "zsc": ("zero-shot classification", "Task", []),
    "imagenet": ("ImageNet", "Dataset", []),
    "accuracy": ("accuracy", "Metric", []),
    "arp": ("Adaptive Return-conditioned Policy", "Method", ["ARP"]),
    "gm": ("goal misgeneralization", "Phenomenon", []),
    "at": ("adversarial training", "Method", []),
    "ro": ("robust overfitting", "Phenomenon", []),
    "qa": ("quantum annealing", "Method", []),
}
PAPERS = {
    "p1": (
        "We use CLIP for zero-shot classification on ImageNet. CLIP reaches high accuracy.",
        ["clip", "zsc", "imagenet", "accuracy"],
    ),
    "p2": (
        "This work presents Adaptive Return-conditioned Policy (ARP), built on CLIP. "
        "Our ARP effectively mitigates the goal misgeneralization.",
        ["arp", "clip", "gm"],
    ),
    "p3": (
        "Adversarial training suffers from robust overfitting. We also report robust accuracy.",
        ["at", "ro", "accuracy"],
    ),
    "p4": ("CLIP is used for zero-shot classification.", ["clip", "zsc"]),
    "p5": ("We study quantum annealing.", ["qa"]),
}
STATEMENTS = [  # subject, predicate, object, paper, evidence, confidence
    ("clip", "usedFor", "zsc", "p1", "We use CLIP for zero-shot classification on ImageNet.", "0.9"),
    ("zsc", "evaluatedOn", "imagenet", "p1", "We use CLIP for zero-shot classification on ImageNet.", "0.7"),
    (
        "clip",
        "partOf",
        "arp",
        "p2",
        "This work presents Adaptive Return-conditioned Policy (ARP), built on CLIP.",
        "0.6",
    ),
    ("arp", "addresses", "gm", "p2", "Our ARP effectively mitigates the goal misgeneralization.", "0.8"),
    ("clip", "usedFor", "zsc", "p4", "CLIP is used for zero-shot classification.", "0.95"),
]


def entity(key: str) -> URIRef:
    return entity_iri(key)


def graph_triples() -> list[tuple]:
    from rdflib.namespace import XSD  # not at module level: pytest's collection trips over its closed namespace

    triples: list[tuple] = []
    for key, (label, kind, aliases) in ENTITIES.items():
        node = entity(key)
        triples += [
            (node, RDF.type, KG[kind]),
            (node, RDFS.label, Literal(label)),
            (node, SKOS.prefLabel, Literal(label)),
        ]
        triples += [(node, SKOS.altLabel, Literal(alias)) for alias in aliases]
    for key, (abstract, mentioned) in PAPERS.items():
        paper = paper_iri(key)
        triples += [
            (paper, RDF.type, KG.Paper),
            (paper, DCTERMS.identifier, Literal(key)),
            (paper, DCTERMS.title, Literal(f"Paper {key}")),
            (paper, DCTERMS.abstract, Literal(abstract)),
        ]
        triples += [(paper, KG.mentions, entity(e)) for e in mentioned]
    triples.append((paper_iri("p2"), KG.proposes, entity("arp")))
    for number, (subject, predicate, obj, paper, evidence, confidence) in enumerate(STATEMENTS):
        statement = statement_iri(f"s{number}")
        triples += [
            (entity(subject), KG[predicate], entity(obj)),
            (statement, RDF.type, KG.Statement),
            (statement, RDF.subject, entity(subject)),
            (statement, RDF.predicate, KG[predicate]),
            (statement, RDF.object, entity(obj)),
            (statement, PROV.wasDerivedFrom, paper_iri(paper)),
            (statement, KG.evidence, Literal(evidence)),
            (statement, KG.confidence, Literal(confidence, datatype=XSD.decimal)),
            (statement, KG.sciercLabel, Literal("USED-FOR")),
        ]
    return triples


def write_relations_store(path: Path) -> Path:
    with open_store(path, create=True) as store:
        store.write(graph_triples())
    return path


@pytest.fixture(scope="session")
def relations_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The graph above in a store; read-only for the tests (copy it to change it)."""
    return write_relations_store(tmp_path_factory.mktemp("relations") / "store")


# --- two entities that compete for a name ---------------------------------------------------
# "Scaling Law" is the label of neural-scaling-laws (3 papers) and, folded, of scaling-law (1 paper):
# the label as written names the first; "scaling law" folds to both, and the one with more papers wins.
# "transformers" is an alias of vision-transformer (1 paper) and, folded, the label of transformer
# (3 papers): an alias beats a folded form, whatever the papers.

COMPETING = {  # key: (label, type, aliases, papers)
    "neural-scaling-laws": ("Scaling Law", "Phenomenon", ["neural scaling laws"], ["q1", "q2", "q3"]),
    "scaling-law": ("scaling-law", "Phenomenon", [], ["q4"]),
    "transformer": ("Transformer", "Method", [], ["q1", "q2", "q4"]),
    "vision-transformer": ("vision transformer", "Method", ["transformers"], ["q3"]),
    "llm": ("large language model", "Method", [], ["q1", "q2", "q3", "q4"]),
}


def write_competing_store(path: Path) -> Path:
    triples: list[tuple] = []
    for key, (label, kind, aliases, papers) in COMPETING.items():
        node = entity(key)
        triples += [(node, RDF.type, KG[kind]), (node, RDFS.label, Literal(label))]
        triples += [(node, SKOS.altLabel, Literal(alias)) for alias in aliases]
        for paper in papers:
            triples += [
                (paper_iri(paper), RDF.type, KG.Paper),
                (paper_iri(paper), DCTERMS.identifier, Literal(paper)),
                (paper_iri(paper), DCTERMS.abstract, Literal(f"Abstract {paper}.")),
                (paper_iri(paper), KG.mentions, node),
            ]
    with open_store(path, create=True) as store:
        store.write(triples)
    return path


@pytest.fixture(scope="session")
def competing_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The graph above in a store; read-only for the tests."""
    return write_competing_store(tmp_path_factory.mktemp("competing") / "store")


# --- a store where a cartesian product runs for ever ------------------------------------------
# 2,000 triples: the product of three patterns has 8e9 solutions, which takes Oxigraph minutes to
# count; the tests that stop a runaway query start it and stop it long before then.

CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
BUSY_TRIPLES = 2000


def write_busy_store(path: Path) -> Path:
    with open_store(path, create=True) as store:
        store.write(
            (URIRef(f"urn:kg-test:s{i}"), URIRef(f"urn:kg-test:p{i % 7}"), Literal(i)) for i in range(BUSY_TRIPLES)
        )
    return path


@pytest.fixture(scope="session")
def busy_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store above; read-only for the tests."""
    return write_busy_store(tmp_path_factory.mktemp("busy") / "store")


def child_pids(pid: int) -> list[int]:
    """The processes ``pid`` started, from any of its threads, that are still running (Linux's /proc)."""
    children = []
    for path in sorted(Path(f"/proc/{pid}/task").glob("*/children")):
        try:
            children.extend(int(child) for child in path.read_text().split())
        except FileNotFoundError:  # the thread ended
            pass
    return sorted(children)


def gone(pid: int, *, within: float = 5.0) -> bool:
    """Whether the process ``pid`` has ended (or is a zombie waiting to be reaped), waiting up to ``within`` seconds.

    A killed process's first thread is a zombie before its other threads have ended, and its parent
    cannot reap it until they have: it has ended once it is a zombie with no thread but that one."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            threads = len(os.listdir(f"/proc/{pid}/task"))
        except FileNotFoundError:
            return True
        if state in ("Z", "X") and threads <= 1:
            return True
        time.sleep(0.05)
    return False


# --- SPARQL endpoints: one over a store, one that never answers in time -------------------------


class _OxigraphEndpoint(BaseHTTPRequestHandler):
    """A read-only SPARQL 1.1 Protocol endpoint (GET) over a store: SPARQL results as JSON, graphs as N-Triples."""

    store: Store | None = None  # set by oxigraph_endpoint

    def do_GET(self) -> None:
        import pyoxigraph as ox

        query = parse_qs(urlparse(self.path).query).get("query", [""])[0]
        try:
            answer = self.store.ox.query(query)  # type: ignore[union-attr]
        except SyntaxError as err:
            return self._send(400, "text/plain", str(err).encode())
        if isinstance(answer, ox.QueryTriples):
            return self._send(200, "application/n-triples", answer.serialize(format=ox.RdfFormat.N_TRIPLES))
        return self._send(200, "application/sparql-results+json", answer.serialize(format=ox.QueryResultsFormat.JSON))

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class _SlowEndpoint(BaseHTTPRequestHandler):
    """An endpoint that takes 20 s to answer: ``/silent`` says nothing meanwhile, ``/trickle`` sends
    its answer a few bytes at a time."""

    def do_GET(self) -> None:
        body = json.dumps({"head": {"vars": ["n"]}, "results": {"bindings": []}}).encode()
        try:
            if self.path.startswith("/silent"):
                time.sleep(20)
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for at in range(0, len(body), 2):
                self.wfile.write(body[at : at + 2])
                self.wfile.flush()
                time.sleep(20 / len(body))
        except OSError:  # the client went away
            pass

    def log_message(self, *args: object) -> None:
        pass


def _serve(handler: type[BaseHTTPRequestHandler]):
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    server.block_on_close = False
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def oxigraph_endpoint(relations_store: Path):
    """The URL of an endpoint over the relations store."""
    with open_store(relations_store) as store:
        store.query("ASK {}")  # pyoxigraph's modules loaded in this thread first
        _OxigraphEndpoint.store = store
        server = _serve(_OxigraphEndpoint)
        try:
            yield f"http://127.0.0.1:{server.server_port}"
        finally:
            server.shutdown()
            server.server_close()


@pytest.fixture
def slow_endpoint():
    """The base URL of :class:`_SlowEndpoint`: add ``/silent`` or ``/trickle``."""
    server = _serve(_SlowEndpoint)
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
