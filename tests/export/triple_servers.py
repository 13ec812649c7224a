"""Third-party triple stores started on this machine for the push tests, and a small reverse proxy.

- OpenLink Virtuoso 7 (Debian's ``virtuoso-opensource``): a database in a temporary folder, from a copy of
  the packaged ``virtuoso.ini`` with its files and ports moved; digest authentication (user ``dba``).
- Oxigraph's own server (the ``oxigraph`` package on PyPI): ``oxigraph serve``.
- :class:`Proxy`: a reverse proxy in front of one of them, for what they cannot be made to do here: ask
  for basic or bearer credentials (as a proxy in front of a lab's store does), and fail chosen requests.

Ports are chosen free at run time.
"""

from __future__ import annotations

import base64
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

VIRTUOSO_INI = Path("/etc/virtuoso-opensource-7/virtuoso.ini")
VIRTUOSO_FILES = ("DatabaseFile", "ErrorLogFile", "LockFile", "TransactionFile", "xa_persistent_file")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def oxigraph_binary() -> str | None:
    """The `oxigraph` server's executable: beside this Python (a venv), else on the PATH."""
    beside = Path(sys.executable).parent / "oxigraph"
    return str(beside) if beside.exists() else shutil.which("oxigraph")


@dataclass
class Server:
    """A server process started for the tests."""

    name: str
    process: subprocess.Popen
    base: str
    log: Path
    extra: dict[str, str] = field(default_factory=dict)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _wait_until_answering(server: Server, url: str, *, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            break
        try:
            if requests.get(url, params={"query": "ASK {}"}, timeout=2).ok:
                return
        except requests.RequestException:
            pass
        time.sleep(0.25)
    tail = server.log.read_text(errors="replace")[-2000:] if server.log.exists() else ""
    server.stop()
    raise RuntimeError(f"{server.name} did not start within {seconds:g} s; its log ends:\n{tail}")


def virtuoso_ini(source: str, folder: Path, *, sql_port: int, http_port: int) -> str:
    """The packaged virtuoso.ini with its database files in ``folder`` and the two ports given."""
    lines, section = [], ""
    for line in source.splitlines():
        header = re.match(r"\s*\[(\w+)\]", line)
        if header:
            section = header.group(1)
        setting = re.match(r"\s*(\w+)\s*=\s*(.*?)\s*$", line)
        if setting and setting.group(1) in VIRTUOSO_FILES:
            line = f"{setting.group(1)} = {folder / Path(setting.group(2)).name}"
        elif setting and setting.group(1) == "ServerPort" and section in ("Parameters", "HTTPServer"):
            line = f"ServerPort = {sql_port if section == 'Parameters' else http_port}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def start_virtuoso(folder: Path) -> Server:
    """Virtuoso with a new database in ``folder`` (user ``dba``, password ``dba``): about ten seconds."""
    folder.mkdir(parents=True, exist_ok=True)
    http_port = free_port()
    ini = folder / "virtuoso.ini"
    ini.write_text(virtuoso_ini(VIRTUOSO_INI.read_text(), folder, sql_port=free_port(), http_port=http_port))
    log = folder / "stdout.log"
    process = subprocess.Popen(
        ["virtuoso-t", "+foreground", "+configfile", str(ini)],
        cwd=folder,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{http_port}"
    server = Server("Virtuoso", process, base, folder / "virtuoso.log")
    _wait_until_answering(server, f"{base}/sparql", seconds=120)
    return server


def start_oxigraph(folder: Path) -> Server:
    """`oxigraph serve` on a new database in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = folder / "oxigraph.log"
    process = subprocess.Popen(
        [oxigraph_binary() or "oxigraph", "serve", "--location", str(folder / "db"), "--bind", f"127.0.0.1:{port}"],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    server = Server("Oxigraph server", process, base, log)
    _wait_until_answering(server, f"{base}/query", seconds=60)
    return server


class Proxy:
    """A reverse proxy to ``upstream`` on a free port.

    ``user``/``password`` or ``token``: requests without those basic or bearer credentials are answered
    401 with a challenge. ``fail(n)``, called with the number of each POST that carries a body (a batch;
    the first is 1), returns an HTTP status to answer instead of forwarding it, or None to forward it.
    """

    def __init__(
        self,
        upstream: str,
        *,
        user: str | None = None,
        password: str | None = None,
        token: str | None = None,
        fail: Callable[[int], int | None] | None = None,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.expected = None
        if user is not None:
            self.expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        elif token is not None:
            self.expected = f"Bearer {token}"
        self.challenge = 'Basic realm="kg-test"' if user is not None else 'Bearer realm="kg-test"'
        self.fail = fail or (lambda number: None)
        self.batches = 0
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Proxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if proxy.expected is not None and self.headers.get("Authorization") != proxy.expected:
                    self._answer(401, b"", {"WWW-Authenticate": proxy.challenge})
                    return
                if self.command == "POST" and body and "update=" not in body[:7].decode(errors="replace"):
                    with proxy.lock:
                        proxy.batches += 1
                        number = proxy.batches
                    status = proxy.fail(number)
                    if status is not None:
                        self._answer(status, f"injected failure of batch {number}".encode(), {})
                        return
                headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "accept")}
                answer = requests.request(
                    self.command, proxy.upstream + self.path, data=body, headers=headers, timeout=120
                )
                kept = {k: v for k, v in answer.headers.items() if k.lower() == "content-type"}
                self._answer(answer.status_code, answer.content, kept)

            def _answer(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = _forward

        return Handler
