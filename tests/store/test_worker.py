"""The query process (kg.store.worker.QueryWorker): the same answers as the store in this process,
errors as they were raised, and a runaway query stopped by a time limit, by Ctrl-C or by a cancel from
another thread, with the process that ran it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import CARTESIAN, gone, write_relations_store

from kg.errors import (
    QueryCancelled,
    QueryError,
    QuerySyntaxError,
    QueryTimeoutError,
    ResultTooLargeError,
    StoreNotFoundError,
    UpdateRefusedError,
)
from kg.store import open_store
from kg.store.worker import QueryWorker, query_runner

# Answers that exercise every kind of result and term: SELECT * (columns in the query's order), unbound
# values, typed and language-tagged literals, blank nodes, ASK, CONSTRUCT and DESCRIBE.
QUERIES = [
    "SELECT * WHERE { ?paper kg:mentions ?entity . ?entity rdfs:label ?label } ORDER BY ?paper ?label",
    "SELECT ?s ?confidence ?none WHERE { ?s kg:confidence ?confidence OPTIONAL { ?s kg:nothing ?none } } ORDER BY ?s",
    'SELECT ?x ?y ?n WHERE { VALUES (?x ?n) { ("a"@en-GB 1.50) ("b\\tc\\nd" "007"^^xsd:integer) } '
    "BIND(BNODE(?x) AS ?y) }",
    "ASK { ?p kg:proposes ?e }",
    "ASK { ?p kg:proposes ?p }",
    "CONSTRUCT { ?e rdfs:label ?l . ?e kg:node [ kg:named ?l ] } WHERE { ?e a kg:Method ; rdfs:label ?l }",
    "DESCRIBE entity:clip",
    "SELECT ?n WHERE { ?s ?p ?o FILTER(false) BIND(1 AS ?n) }",
]


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_relations_store(tmp_path_factory.mktemp("worker") / "store")


@pytest.fixture
def worker(busy_store: Path):
    with QueryWorker(busy_store) as running:
        yield running


def _shape(result) -> tuple:
    """A result's content, with blank node labels replaced by their order of appearance."""
    labels: dict[str, str] = {}

    def term(value):
        if value is not None and type(value).__name__ == "BNode":
            return labels.setdefault(str(value), f"b{len(labels)}")
        return None if value is None else value.n3()

    rows = [tuple(term(value) for value in row) for row in result.rows]
    return result.kind, result.columns, result.boolean, rows if result.kind != "graph" else sorted(rows)


def test_the_worker_answers_as_the_store_does(graph: Path) -> None:
    with open_store(graph) as store, QueryWorker(graph) as worker:
        for sparql in QUERIES:
            here, there = store.query(sparql), worker.query(sparql, timeout=60)
            assert _shape(there) == _shape(here), sparql
            assert there.elapsed is not None and there.elapsed >= 0
        assert worker.query(QUERIES[0]).count == 13  # the child is kept between queries
        pid = worker.pid
        assert worker.query("ASK {}").boolean is True and worker.pid == pid
    assert worker.pid is None and gone(pid)


def test_a_row_limit_gives_the_whole_answer_or_refuses_it(graph: Path) -> None:
    with open_store(graph) as store, QueryWorker(graph) as worker:
        for sparql in QUERIES:
            here = store.query(sparql)
            if here.kind == "ask":
                assert worker.query(sparql, max_rows=1).boolean == here.boolean
                continue
            rows = len(here.rows)
            assert _shape(worker.query(sparql, max_rows=max(rows, 1))) == _shape(here), sparql  # the limit reached
            if rows:
                with pytest.raises(ResultTooLargeError, match=f"^the answer has more than {rows - 1} rows"):
                    worker.query(sparql, max_rows=rows - 1)
        pid = worker.pid
        assert worker.query(QUERIES[0]).count == 13 and worker.pid == pid  # refused, the child carries on


def test_errors_come_back_as_raised_and_the_worker_carries_on(graph: Path, tmp_path: Path) -> None:
    broken = "SELECT * WHERE {\n  ?s ?p }"
    with open_store(graph) as store, pytest.raises(QuerySyntaxError) as here:
        store.query(broken)
    with QueryWorker(graph) as worker:
        with pytest.raises(QuerySyntaxError) as bad:
            worker.query(broken)
        assert (bad.value.line, bad.value.column) == (here.value.line, here.value.column) == (2, here.value.column)
        assert str(bad.value) == str(here.value) and bad.value.exit_status == 2
        pid = worker.pid
        with pytest.raises(UpdateRefusedError, match="^INSERT DATA is a SPARQL update"):
            worker.query("INSERT DATA { <urn:a> <urn:b> 1 }")
        assert worker.query("ASK { ?s ?p ?o }").boolean is True and worker.pid == pid
    missing = QueryWorker(tmp_path / "nothing")
    with pytest.raises(StoreNotFoundError, match="nothing: no graph store here") as err:
        missing.query("ASK {}")
    assert err.value.exit_status == 2 and missing.pid is None  # the child ended; the next query tries again
    write_relations_store(tmp_path / "nothing")
    try:
        assert missing.query("ASK { ?s ?p ?o }").boolean is True
    finally:
        missing.close()


def test_a_query_past_its_time_limit_is_stopped_with_its_process(worker: QueryWorker) -> None:
    worker.query("ASK {}")  # the child has the store open: the limit counts from the query
    pid = worker.pid
    started = time.monotonic()
    with pytest.raises(QueryTimeoutError, match=r"^query abandoned after 1\.5 s \(--timeout\)$"):
        worker.query(CARTESIAN, timeout=1.5)
    assert 1.5 <= time.monotonic() - started < 6
    assert worker.pid is None and gone(pid, within=1)
    assert worker.query("ASK { ?s ?p ?o }", timeout=30).boolean is True  # a new child
    assert worker.pid not in (None, pid)


def test_ctrl_c_stops_the_query_and_its_process(worker: QueryWorker) -> None:
    worker.start()
    pid = worker.pid
    # Ctrl-C as the terminal sends it: SIGINT, to the main thread (this one), while it waits.
    timer = threading.Timer(1.0, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(QueryCancelled, match="^query cancelled$"):
            worker.query(CARTESIAN)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 5
    assert worker.pid is None and gone(pid, within=1)
    assert worker.query("ASK { ?s ?p ?o }").boolean is True


def test_cancel_from_another_thread_stops_the_query(worker: QueryWorker) -> None:
    outcome: dict[str, BaseException] = {}

    def run() -> None:
        try:
            worker.query(CARTESIAN)
        except BaseException as err:
            outcome["error"] = err

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 10
    while not (worker.pid and worker._child and worker._child.busy) and time.monotonic() < deadline:
        time.sleep(0.05)
    pid = worker.pid
    time.sleep(0.5)  # the query is running now
    worker.cancel()
    thread.join(5)
    assert not thread.is_alive() and isinstance(outcome.get("error"), QueryCancelled)
    assert gone(pid, within=1)
    worker.cancel()  # nothing runs: nothing to do
    assert worker.query("ASK { ?s ?p ?o }").boolean is True
    idle = worker.pid
    worker.cancel()  # an idle child is kept
    assert worker.pid == idle


def test_the_child_ends_with_the_process_that_started_it(busy_store: Path) -> None:
    # A parent killed outright (SIGKILL: no clean-up at all) in the middle of a runaway query.
    script = (
        "import sys, threading\n"
        "from kg.store.worker import QueryWorker\n"
        f"worker = QueryWorker({str(busy_store)!r})\n"
        "worker.start(); print(worker.pid, flush=True)\n"
        f"worker.query({CARTESIAN!r})\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    time.sleep(1.5)
    assert not gone(child, within=0)
    parent.kill()
    parent.wait()
    parent.stdout.close()
    assert gone(child, within=5)


def test_query_runner_picks_the_worker_for_a_local_store(graph: Path) -> None:
    with open_store(graph) as store:
        runner = query_runner(store, start=True)
        try:
            assert isinstance(runner, QueryWorker) and runner.pid is not None
        finally:
            runner.close()
    remote = open_store(endpoint="http://127.0.0.1:9/sparql")
    assert query_runner(remote) is remote


def test_a_child_that_dies_is_replaced_or_reported(graph: Path, busy_store: Path) -> None:
    with QueryWorker(graph) as worker:
        assert worker.query("ASK { ?s ?p ?o }").boolean is True
        dead = worker.pid
        os.kill(dead, signal.SIGKILL)  # while idle: the next query starts another
        assert gone(dead)
        assert worker.query("ASK { ?s ?p ?o }").boolean is True and worker.pid != dead
    with QueryWorker(busy_store) as worker:
        worker.query("ASK {}")
        threading.Timer(1.0, os.kill, (worker.pid, signal.SIGKILL)).start()
        with pytest.raises(QueryError, match=r"^the query process ended unexpectedly \(killed by SIGKILL\)$"):
            worker.query(CARTESIAN)
        assert worker.pid is None and worker.query("ASK { ?s ?p ?o }").boolean is True
