"""`kg query` on a runaway query: ``--timeout`` abandons it, Ctrl-C cancels it at once, and the
process that ran it is gone either way."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import CARTESIAN, KG_SCRIPT, child_pids, gone, run_kg


def test_timeout_abandons_a_runaway_query(busy_store: Path) -> None:
    started = time.monotonic()
    done = run_kg("query", CARTESIAN, "--timeout", "1.5", "--store", str(busy_store), timeout=60)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "kg: error: query abandoned after 1.5 s (--timeout)\n"
    assert time.monotonic() - started < 15  # the limit, and starting two Python processes on a busy machine


def test_a_query_within_its_time_limit_answers(busy_store: Path) -> None:
    done = run_kg("query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "--timeout", "60", "--store", str(busy_store))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "2000"


def test_ctrl_c_cancels_a_running_query_at_once(busy_store: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "KG_STORE"}
    kg = subprocess.Popen(
        [str(KG_SCRIPT), "query", CARTESIAN, "--store", str(busy_store)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not child_pids(kg.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        (worker,) = child_pids(kg.pid)
        time.sleep(1.5)  # the query is running
        assert kg.poll() is None
        kg.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        out, err = kg.communicate(timeout=10)
    finally:
        if kg.poll() is None:
            kg.kill()
    assert time.monotonic() - signalled < 3
    assert (kg.returncode, out, err) == (130, "", "kg: query cancelled\n")
    assert gone(worker, within=1)


@pytest.mark.parametrize("value", ["0", "-2", "soon", "inf", "nan"])
def test_a_timeout_that_is_not_a_positive_number_is_a_usage_error(busy_store: Path, value: str) -> None:
    done = run_kg("query", "ASK {}", f"--timeout={value}", "--store", str(busy_store))
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"kg query: error: argument --timeout: takes a number of seconds greater than 0, not {value!r}"
    )


def test_an_endpoint_past_the_timeout_is_abandoned(slow_endpoint: str) -> None:
    done = run_kg("query", "ASK {}", "--endpoint", f"{slow_endpoint}/silent", "--timeout", "1", timeout=60)
    assert (done.returncode, done.stderr) == (1, "kg: error: query abandoned after 1 s (--timeout)\n")
