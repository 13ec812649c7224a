"""Running `kg serve` as a user would (the installed `kg` script, a free port), for the tests of tests/serve."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import requests
from conftest import KG_SCRIPT, child_pids

TOKEN = "test-token-0123456789abcdef"
STARTED = re.compile(r"kg serve: (http://\S+)/sparql ")


@dataclass
class Server:
    """A running `kg serve`: its base URL, its process and the file its stderr goes to."""

    url: str
    process: subprocess.Popen
    log: Path

    @property
    def sparql(self) -> str:
        return self.url + "/sparql"

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def workers(self) -> list[int]:
        """The query processes the server runs now."""
        return child_pids(self.process.pid)

    def rss_kb(self) -> int:
        """Resident memory of the server and its query processes, in kB (Linux's /proc)."""
        total = 0
        for pid in [self.process.pid, *self.workers()]:
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except FileNotFoundError:
                continue
            found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
            total += int(found.group(1)) if found else 0
        return total


@contextmanager
def kg_server(store: Path, log: Path, *options: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    """`kg serve --store STORE --port 0 OPTIONS...`, once it answers; stopped with SIGINT (Ctrl-C) after."""
    environment = {k: v for k, v in os.environ.items() if k not in ("KG_STORE", "KG_TOKEN")}
    environment.update(env or {})
    with open(log, "w") as stderr:
        process = subprocess.Popen(
            [str(KG_SCRIPT), "serve", "--store", str(store), "--port", "0", *options],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=environment,
        )
    try:
        server = Server(_wait_for_url(process, log), process, log)
        _wait_until_answering(server)
        yield server
    finally:
        stop(process)


def stop(process: subprocess.Popen, *, within: float = 20) -> int:
    """Ctrl-C the server, as a user stops it, and its exit status."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            return process.wait(within)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait()


def _wait_for_url(process: subprocess.Popen, log: Path, *, within: float = 60) -> str:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = STARTED.search(log.read_text())
        if found:
            return found.group(1)
        if process.poll() is not None:
            raise AssertionError(f"kg serve ended with status {process.returncode}: {log.read_text()}")
        time.sleep(0.05)
    raise AssertionError(f"kg serve did not start within {within} s: {log.read_text()}")


def _wait_until_answering(server: Server, *, within: float = 60) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if requests.get(server.sparql, params={"query": "ASK {}"}, timeout=5).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"kg serve did not answer within {within} s: {server.stderr()}")
