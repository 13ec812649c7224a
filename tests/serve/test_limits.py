"""`kg serve`'s limits on time and on queries at once: a runaway query is abandoned with its process (503),
a query that finds every slot busy gets 503 with Retry-After, a client that goes away frees its slot, and a
runaway update is abandoned with its process, writing nothing, while queries go on."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest
import requests
from conftest import CARTESIAN, gone
from serve_helpers import TOKEN, kg_server

from kg.store import open_store

TIMEOUT = 3


@pytest.fixture(scope="module")
def server(busy_store: Path, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("limits")
    shutil.copytree(busy_store, folder / "store")
    options = ("--timeout", str(TIMEOUT), "--max-queries", "1")
    with kg_server(folder / "store", folder / "stderr.txt", *options) as running:
        yield running


def test_a_query_past_the_time_limit_is_abandoned_with_its_process(server) -> None:
    (before,) = server.workers()
    started = time.monotonic()
    answer = requests.get(server.sparql, params={"query": CARTESIAN}, timeout=60)
    took = time.monotonic() - started
    assert answer.status_code == 503
    assert answer.text == f"query abandoned after {TIMEOUT} s (the server's --timeout)\n"
    assert TIMEOUT <= took < TIMEOUT + 5
    assert gone(before)  # the process that ran it was ended; the next query gets a new one
    assert requests.get(server.sparql, params={"query": "ASK { ?s ?p ?o }"}).json()["boolean"] is True
    assert len(server.workers()) == 1 and server.workers() != [before]


def test_a_query_that_finds_every_slot_busy_gets_503_with_retry_after(server) -> None:
    answers: list[requests.Response] = []
    slow = threading.Thread(
        target=lambda: answers.append(requests.get(server.sparql, params={"query": CARTESIAN}, timeout=60))
    )
    slow.start()
    try:
        time.sleep(0.5)  # the slow query has the only slot
        started = time.monotonic()
        refused = requests.get(server.sparql, params={"query": "ASK {}"}, timeout=60)
        waited = time.monotonic() - started
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "1"
        assert refused.text == "all 1 query slots are busy (--max-queries): try again shortly\n"
        assert 0.9 < waited < TIMEOUT  # it waited a second for the slot, not for the slow query
    finally:
        slow.join()
    assert answers[0].status_code == 503  # the slow one, past its time
    assert requests.get(server.sparql, params={"query": "ASK {}"}).status_code == 200


def test_a_client_that_goes_away_frees_its_slot(server) -> None:
    (before,) = server.workers()
    with pytest.raises(requests.Timeout):
        requests.get(server.sparql, params={"query": CARTESIAN}, timeout=0.5)
    # Without the cancel the slot stays taken until the time limit, and this query waits in vain for a second.
    started = time.monotonic()
    answer = requests.get(server.sparql, params={"query": "ASK {}"}, timeout=60)
    assert answer.status_code == 200, answer.text
    assert time.monotonic() - started < 1.0
    assert gone(before, within=1)


@pytest.fixture(scope="module")
def writable(busy_store: Path, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("update-limits")
    shutil.copytree(busy_store, folder / "store")
    options = ("--timeout", str(TIMEOUT), "--allow-update")
    with kg_server(folder / "store", folder / "stderr.txt", *options, env={"KG_TOKEN": TOKEN}) as running:
        yield running, folder / "store"


def test_an_update_past_the_time_limit_is_abandoned_and_writes_nothing_while_queries_go_on(writable) -> None:
    server, store = writable
    auth = {"Authorization": f"Bearer {TOKEN}"}
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"

    def triples() -> int:
        return int(requests.get(server.sparql, params={"query": count}).json()["results"]["bindings"][0]["n"]["value"])

    before = triples()
    runaway = "INSERT { ?a <urn:kg:runaway> ?g } WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
    answers: list[tuple[requests.Response, float]] = []

    def post() -> None:
        started = time.monotonic()
        answer = requests.post(server.sparql, data={"update": runaway}, headers=auth, timeout=60)
        answers.append((answer, time.monotonic() - started))

    writing = threading.Thread(target=post)
    writing.start()
    try:
        time.sleep(1)  # the update runs
        started = time.monotonic()
        assert triples() == before  # a query answers at once, reading the graph published last
        assert time.monotonic() - started < 1.0
    finally:
        writing.join()
    (answer, took) = answers[0]
    assert answer.status_code == 503
    assert answer.text == f"update abandoned after {TIMEOUT} s (the server's --timeout): nothing of it was written\n"
    assert TIMEOUT <= took < TIMEOUT + 5
    assert triples() == before
    with open_store(store, write=True) as held:  # its process is gone, and with it the store's lock
        assert held.query("ASK { ?a <urn:kg:runaway> ?g }").boolean is False
    done = requests.post(server.sparql, data={"update": "INSERT DATA { <urn:kg:a> <urn:kg:b> 'c' }"}, headers=auth)
    assert done.status_code == 204, done.text
    assert triples() == before + 1
