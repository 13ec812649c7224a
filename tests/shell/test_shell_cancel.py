"""Stopping a runaway statement in the shell, without a terminal: Ctrl-C and ``.timeout`` stop a
query and the process running it, a cancelled dot-command's thread stops too, and the session
carries on. (tests/shell/test_shell_pty.py does the same at a real terminal.)"""

from __future__ import annotations

import io
import signal
import threading
import time
from pathlib import Path

import pytest
from conftest import CARTESIAN, gone

from kg.errors import UsageError
from kg.store import open_store
from kg.store.worker import QueryWorker
from shell import app
from shell.commands import COMMANDS, execute
from shell.completion.suggest import Suggestion, suggest
from shell.input.statements import Statement
from shell.output import Console
from shell.session import SavedQueries, Session


@pytest.fixture
def session(busy_store: Path, tmp_path: Path):
    with open_store(busy_store) as store, QueryWorker(busy_store) as worker:
        worker.start()
        yield Session(store, location=str(busy_store), saved=SavedQueries(tmp_path / "q.json"), queries=worker)


def ctrl_c_in(seconds: float) -> threading.Timer:
    """Ctrl-C as a terminal sends it (SIGINT, handled by the main thread), ``seconds`` from now."""
    timer = threading.Timer(seconds, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
    timer.start()
    return timer


def run(session: Session, text: str, *, cancellable: bool = True) -> tuple[int, str]:
    out = io.StringIO()
    status = app.run_statement(session, Console(out, out, interactive=True), Statement(text), cancellable=cancellable)
    return status, out.getvalue()


def wait_until(condition, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


# ---------------------------------------------------------------- .timeout


def test_timeout_setting(session: Session) -> None:
    assert execute(session, ".timeout").message == "timeout: off" and session.timeout is None
    assert execute(session, ".timeout 2.5").message == "timeout: 2.5 s" and session.timeout == 2.5
    assert execute(session, ".timeout 30").message == "timeout: 30 s"
    assert execute(session, ".timeout").message == "timeout: 30 s"
    assert execute(session, ".timeout OFF").message == "timeout: off" and session.timeout is None
    for bad in ("0", "-1", "soon", "inf", "1 2"):
        with pytest.raises(UsageError, match=f"^.timeout takes a number of seconds greater than 0, not '{bad}'$"):
            execute(session, f".timeout {bad}")
    assert session.timeout is None


def test_timeout_is_in_help_and_completion(session: Session) -> None:
    assert ".timeout [SECONDS|off]" in execute(session, ".help").message
    assert "abandon a query that runs longer than SECONDS" in execute(session, ".help timeout").message
    assert COMMANDS[".timeout"].arguments == ("seconds",)
    assert suggest(".timeout o") == [Suggestion("value", "o", choices=("off",))]
    assert suggest(".time") == [Suggestion("command", ".time")]


# ---------------------------------------------------------------- Ctrl-C and the time limit


@pytest.mark.parametrize("cancellable", [True, False], ids=["interactive", "piped"])
def test_ctrl_c_stops_a_query_and_its_process(session: Session, cancellable: bool) -> None:
    pid = session.queries.pid  # type: ignore[union-attr]
    timer = ctrl_c_in(1.0)
    started = time.monotonic()
    try:
        status, shown = run(session, CARTESIAN, cancellable=cancellable)
    finally:
        timer.cancel()
    assert (status, shown) == (app.CANCELLED, "cancelled\n")
    assert time.monotonic() - started < 5
    assert gone(pid, within=1)  # no process left counting
    status, shown = run(session, "ASK { ?s ?p ?o }")  # the shell carries on, with a new query process
    assert status == 0 and "true" in shown
    assert session.queries.pid not in (None, pid)  # type: ignore[union-attr]


def test_a_query_past_the_timeout_is_abandoned(session: Session) -> None:
    execute(session, ".timeout 1")
    run(session, "ASK {}")  # the query process has the store open
    pid = session.queries.pid  # type: ignore[union-attr]
    started = time.monotonic()
    status, shown = run(session, CARTESIAN)
    assert status == 1 and "query abandoned after 1 s (.timeout)" in shown
    assert 1 <= time.monotonic() - started < 5
    assert gone(pid, within=1)
    status, shown = run(session, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert status == 0 and "2000" in shown


def test_ctrl_c_stops_a_saved_query_run_by_a_command(session: Session) -> None:
    session.saved.save("forever", CARTESIAN)
    wait_until(lambda: session.queries._child is not None)  # type: ignore[union-attr]
    pid = session.queries.pid  # type: ignore[union-attr]
    timer = ctrl_c_in(1.5)
    try:
        status, shown = run(session, ".run forever")
    finally:
        timer.cancel()
    assert (status, shown) == (app.CANCELLED, "cancelled\n")
    assert gone(pid, within=2)
    assert wait_until(lambda: not [t for t in threading.enumerate() if t.name == "kg-shell-query"])


def test_a_cancelled_command_stops_running(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    spinning = threading.Event()

    def spin(session, statement):  # a dot-command that would run for ever, in Python
        spinning.set()
        while True:
            pass

    monkeypatch.setattr(app, "execute", spin)
    timer = ctrl_c_in(1.0)
    try:
        status, shown = run(session, ".stats")
    finally:
        timer.cancel()
    assert spinning.is_set() and (status, shown) == (app.CANCELLED, "cancelled\n")
    assert wait_until(lambda: not [t for t in threading.enumerate() if t.name == "kg-shell-query"], within=2)


def test_the_timeout_bounds_an_endpoint_request(slow_endpoint: str, tmp_path: Path) -> None:
    remote = open_store(endpoint=f"{slow_endpoint}/silent")
    session = Session(remote, location=slow_endpoint, saved=SavedQueries(tmp_path / "q.json"), queries=remote)
    execute(session, ".timeout 1")
    started = time.monotonic()
    status, shown = run(session, "ASK { ?s ?p ?o }")
    assert status == 1 and "query abandoned after 1 s (.timeout)" in shown
    assert time.monotonic() - started < 4
