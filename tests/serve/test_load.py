"""A bounded load test of `kg serve` on the seeds graph: rounds of 200 concurrent queries from one client on
127.0.0.1. Every request is answered (200, the same answer as when the server is idle) or refused at once
with 503, a reason and Retry-After; the server stays up, runs no more query processes than its limit, and
its memory (with theirs) stays bounded from round to round."""

from __future__ import annotations

import json
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from serve_helpers import kg_server

CLIENTS = 200
ROUNDS = 3
MAX_QUERIES = 4
QUERIES = [
    "SELECT ?e ?l WHERE { ?e a kg:Dataset ; rdfs:label ?l } ORDER BY ?l LIMIT 20",
    "SELECT ?t (COUNT(?e) AS ?n) WHERE { ?e a ?t } GROUP BY ?t ORDER BY ?t",
    "ASK { ?p kg:proposes ?e }",
    "CONSTRUCT WHERE { ?e rdfs:label 'CLIP' ; ?p ?o }",
]
GROWTH_KB = 30_000
"""How much the server's memory may grow from the first round to the last (allocator slack, not a leak)."""
TOTAL_KB = 600_000
"""The most the server and its query processes may hold: the Python server, and MAX_QUERIES processes of ~40 MB."""


@pytest.fixture(scope="module")
def server(seeds_store: Path, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("load")
    shutil.copytree(seeds_store, folder / "store")
    with kg_server(folder / "store", folder / "stderr.txt", "--max-queries", str(MAX_QUERIES)) as running:
        yield running


def one_round(server, expected: list[bytes]) -> dict[int, int]:
    """CLIENTS requests at once, each on a connection of its own; their statuses counted."""
    ready = threading.Barrier(CLIENTS)

    def ask(number: int) -> int:
        query = number % len(QUERIES)
        ready.wait()
        answer = requests.get(server.sparql, params={"query": QUERIES[query]}, timeout=120)
        if answer.status_code == 200:
            assert answer.content == expected[query]
        else:  # refused at once, saying why and when to come back
            assert answer.status_code == 503 and answer.headers["Retry-After"] == "1", answer.text
            assert answer.text.startswith(("the server is busy", "all 4 query slots are busy")), answer.text
        return answer.status_code

    with ThreadPoolExecutor(CLIENTS) as pool:
        statuses = list(pool.map(ask, range(CLIENTS)))
    return {status: statuses.count(status) for status in set(statuses)}


def test_200_concurrent_queries_are_each_answered_or_refused(server) -> None:
    expected = [requests.get(server.sparql, params={"query": query}).content for query in QUERIES]
    assert len(json.loads(expected[0])["results"]["bindings"]) == 20 and json.loads(expected[2])["boolean"] is True
    memory = []
    for _ in range(ROUNDS):
        counts = one_round(server, expected)
        assert sum(counts.values()) == CLIENTS and set(counts) <= {200, 503}, counts
        assert counts.get(200, 0) >= MAX_QUERIES  # the slots were used, not all refused
        assert server.process.poll() is None
        assert len(server.workers()) <= MAX_QUERIES
        memory.append(server.rss_kb())
    assert requests.get(server.sparql, params={"query": "ASK {}"}, timeout=10).status_code == 200
    assert memory[-1] - memory[0] < GROWTH_KB, memory
    assert max(memory) < TOTAL_KB, memory
    assert "Traceback" not in server.stderr()
