"""`kg serve` on the command line: what it says, and the status it exits with, when it cannot start; the
loopback address by default; Ctrl-C stopping it with its query processes."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest
import requests
from conftest import gone, run_kg
from serve_helpers import TOKEN, kg_server, stop

from kg.store import open_store


def serve(store: Path, *options: str, env: dict[str, str] | None = None):
    """`kg serve` that is expected to stop at once."""
    return run_kg("serve", "--store", str(store), "--port", "0", *options, env=env, timeout=60)


def test_a_missing_store(tmp_path: Path) -> None:
    done = serve(tmp_path / "none")
    assert done.returncode == 2
    assert done.stderr.startswith(f"kg: error: {tmp_path / 'none'}: no graph store here; run `kg build")
    assert done.stderr.count("\n") == 1


def test_a_store_being_built_for_the_first_time_is_refused_at_start(tmp_path: Path) -> None:
    # A store a build has not published yet has no graph to serve (a published one is served while a
    # build writes: readers read snapshots).
    store = tmp_path / "store"
    with open_store(store, create=True):  # what a first `kg build` holds while it writes
        done = serve(store)
    assert done.returncode == 1
    assert f"{store}: no graph yet; a build is under way (process {os.getpid()})" in done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("options", "env", "message"),
    [
        (("--allow-update",), {}, "--allow-update needs a token: set $KG_TOKEN, or give --token-file FILE"),
        (("--allow-update",), {"KG_TOKEN": "short"}, "the token has 5 characters; give one of 16 or more"),
        (("--allow-update", "--token-file", "/nonexistent/token"), {}, "/nonexistent/token: no such file"),
        (("--token-file", "/nonexistent/token"), {}, "--token-file goes with --allow-update"),
        (("--timeout", "0"), {}, "argument --timeout: takes a number of seconds greater than 0, not '0'"),
        (("--max-rows", "0"), {}, "argument --max-rows: must be 1 or more"),
        (("--port", "70000"), {}, "argument --port: must be from 0 to 65535"),
    ],
)
def test_bad_settings(relations_store: Path, options: tuple[str, ...], env: dict[str, str], message: str) -> None:
    done = serve(relations_store, *options, env=env)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_a_port_in_use(relations_store: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_kg("serve", "--store", str(relations_store), "--port", str(port), timeout=60)
    assert done.returncode == 2
    assert done.stderr == f"kg: error: 127.0.0.1:{port} is in use by another program: choose another --port\n"


def test_loopback_by_default_and_ctrl_c_stops_it(relations_store: Path, tmp_path: Path) -> None:
    import shutil

    store = tmp_path / "store"
    shutil.copytree(relations_store, store)
    with kg_server(store, tmp_path / "stderr.txt", "--access-log") as server:
        assert server.url.startswith("http://127.0.0.1:")
        line = server.stderr().splitlines()[0]
        assert line.startswith(f"kg serve: {server.sparql} (read-only), query page {server.url}/, store {store}; ")
        assert "limits: 30 s, 10000 rows, 4194304 bytes a request, 4 queries at once" in line
        assert requests.get(server.sparql, params={"query": "ASK {}"}).status_code == 200
        workers = server.workers()
        assert len(workers) == 4
        assert stop(server.process) == 0
        assert all(gone(worker) for worker in workers)
        log = server.stderr()
    assert '"GET /sparql?query=ASK+%7B%7D HTTP/1.1" 200' in log  # --access-log
    assert log.rstrip().endswith("kg serve: stopped") and "Traceback" not in log


def test_a_server_answers_the_names_of_this_machine_and_the_allowed_ones_only(
    relations_store: Path, tmp_path: Path
) -> None:
    # Another name (one a web page's author points at 127.0.0.1: DNS rebinding) is refused before anything runs.
    with kg_server(relations_store, tmp_path / "stderr.txt", "--allow-host", "kg.example.org") as server:
        port = server.url.rsplit(":", 1)[1]

        def status(host: str) -> int:
            return requests.get(server.sparql, params={"query": "ASK {}"}, headers={"Host": host}).status_code

        allowed = [f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "kg.example.org", "KG.example.org:443"]
        assert [status(host) for host in allowed] == [200] * 5
        assert [status(host) for host in (f"rebind.example:{port}", "example.org", f"127.0.0.2:{port}")] == [400] * 3
        refused = requests.get(server.url + "/", headers={"Host": "rebind.example"})
        assert (refused.status_code, refused.text) == (400, "Invalid host header")
        assert server.workers()  # the server is up, and serving


def test_updates_need_a_token_of_a_file(relations_store: Path, tmp_path: Path) -> None:
    import shutil

    store = tmp_path / "store"
    shutil.copytree(relations_store, store)
    (tmp_path / "token").write_text(TOKEN + "\n")
    with kg_server(store, tmp_path / "stderr.txt", "--allow-update", "--token-file", str(tmp_path / "token")) as server:
        assert "(updates with the token)" in server.stderr()
        update = {"update": "INSERT DATA { <urn:a> <urn:b> <urn:c> }"}
        assert requests.post(server.sparql, data=update).status_code == 401
        started = time.monotonic()
        answer = requests.post(server.sparql, data=update, headers={"Authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 204 and time.monotonic() - started < 10


def test_ctrl_c_answers_the_queries_under_way(busy_store: Path, tmp_path: Path) -> None:
    import shutil
    import threading

    from conftest import CARTESIAN

    store = tmp_path / "store"
    shutil.copytree(busy_store, store)
    answers: list[requests.Response] = []
    with kg_server(store, tmp_path / "stderr.txt", "--timeout", "60") as server:
        running = threading.Thread(
            target=lambda: answers.append(requests.get(server.sparql, params={"query": CARTESIAN}, timeout=60))
        )
        running.start()
        time.sleep(1)
        started = time.monotonic()
        assert stop(server.process) == 0
        stopped = time.monotonic() - started
        running.join()
        log = server.stderr()
    assert stopped < 10
    assert answers[0].status_code == 503
    assert answers[0].text == "query cancelled (the client went away, or the server is stopping)\n"
    assert "Traceback" not in log and "ERROR" not in log
