"""`kg serve`'s limits on time and on queries at once: a runaway query is abandoned with its process (503),
a query that finds every slot busy gets 503 with Retry-After, and a client that goes away frees its slot."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest
import requests
from conftest import CARTESIAN, gone
from serve_helpers import kg_server

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
