"""Ctrl-C ends a command that reads the graph at once, even while the main thread waits on an Oxigraph
query (kg.cli.interrupts), and lets it unwind as usual when it can."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import CARTESIAN

from kg.cli.common import COMMANDS


def _interrupted(script: str, *, after: float = 1.0) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run ``script``, send it SIGINT ``after`` seconds past its "ready" line; what it did, and how
    long it took to end after the signal."""
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    process = subprocess.Popen([sys.executable, "-c", script], **pipes)
    try:
        assert process.stdout.readline() == "ready\n"
        time.sleep(after)
        assert process.poll() is None
        process.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        out, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err), time.monotonic() - signalled


def test_ctrl_c_ends_a_query_in_the_main_thread_at_once(busy_store: Path) -> None:
    done, took = _interrupted(
        "from kg.cli.interrupts import stop_at_once\n"
        "from kg.store import open_store\n"
        f"store = open_store({str(busy_store)!r})\n"
        "print('ready', flush=True)\n"
        "with stop_at_once():\n"
        f"    store.query({CARTESIAN!r})\n"
        "print('the query ended', flush=True)\n"
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "kg: interrupted\n")
    assert took < 3


def test_python_code_handles_ctrl_c_itself() -> None:
    done, took = _interrupted(
        "import sys, time\n"
        "from kg.cli.interrupts import stop_at_once\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    with stop_at_once():\n"
        "        try:\n"
        "            while True:\n"
        "                time.sleep(0.01)\n"
        "        finally:\n"
        "            print('cleaned up', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('handled', flush=True)\n"
        "    time.sleep(1)\n"  # past the grace: the watcher must not end the process meanwhile
        "    sys.exit(7)\n"
    )
    assert (done.returncode, done.stdout, done.stderr) == (7, "cleaned up\nhandled\n", "")
    assert took < 3


def test_the_commands_that_read_the_graph_stop_at_once() -> None:
    reading = {"query", "stats", "validate", "describe", "paper", "path", "neighbors", "related", "central"}
    # not build, extract, train (they write the store or a model) nor export (a long write); not the shell,
    # whose prompt handles Ctrl-C itself
    assert {name for name, spec in COMMANDS.items() if spec.at_once} == reading | {"communities", "viz"}


def test_ctrl_c_stops_a_build_with_one_line_and_the_next_build_completes_it(
    tmp_path: Path, seeds_build: tuple[Path, str]
) -> None:
    from conftest import KG_SCRIPT, SEEDS, run_kg, sorted_ntriples

    store = tmp_path / "store"
    process = subprocess.Popen(
        [str(KG_SCRIPT), "build", str(SEEDS), "--store", str(store), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not (store / "oxigraph").exists() and process.poll() is None:  # the build has started writing
            time.sleep(0.05)
        time.sleep(1)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert (process.returncode, out, err) == (130, "", "kg: interrupted\n")
    done = run_kg("build", str(SEEDS), "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert sorted_ntriples(store) == sorted_ntriples(seeds_build[0])
