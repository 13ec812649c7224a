"""SPARQL in a child process, so that Ctrl-C and a time limit really stop a query.

Oxigraph evaluates a query in Rust. pyoxigraph (0.5) lets other threads run meanwhile, but it
has no way to cancel a query or give it a time limit, and the thread that waits on it handles
no signal until it returns: a thread running a runaway query cannot be stopped, and Ctrl-C waits
for the query. So ``kg query`` and the shell run a local store's queries in a
:class:`QueryWorker`: one child process (``python -m kg.store.worker``), started on the first
query, that opens the store read-only with :func:`kg.store.open_store` and answers the queries
sent over a pipe, one at a time. A query interrupted by Ctrl-C, or past its time limit, is
stopped by ending the child (SIGTERM, then SIGKILL after a short grace); the next query starts a
fresh one.

An answer crosses the pipe in a W3C format that pyoxigraph writes and reads back: the SPARQL
results TSV format for SELECT and ASK, N-Triples for CONSTRUCT and DESCRIBE (both keep every
term as it was). The parent makes its :class:`~kg.query.result.Result` with
:meth:`~kg.query.result.Result.from_oxigraph`, as :meth:`kg.store.EmbeddedStore.query` does, so
an answer is the same either way. Errors come back as they were raised (a
:class:`kg.errors.KGError` pickles with its attributes). Requests and replies are framed by
:mod:`multiprocessing.connection`; :func:`start_child` and :func:`connect_to_parent` set up the two
pipes, for these query processes and for ``kg serve``'s update process (:mod:`kg.serve.storage`).

A remote endpoint needs no child: :meth:`kg.store.EndpointStore.query` gives its request the time
limit, and Ctrl-C interrupts it. :func:`query_runner` picks what runs a store's queries.

Examples
--------
>>> import tempfile, os
>>> from rdflib import Literal
>>> from kg.rdf import KG, paper_iri
>>> from kg.store import open_store
>>> with tempfile.TemporaryDirectory() as tmp:
...     with open_store(os.path.join(tmp, "s"), create=True) as store:
...         store.write([(paper_iri("p1"), KG.sourceLocation, Literal("a.txt:1"))])
...     with QueryWorker(os.path.join(tmp, "s")) as worker:
...         result = worker.query("SELECT ?where WHERE { ?p kg:sourceLocation ?where }", timeout=30)
...         pid = worker.pid
...     stopped = worker.pid is None and not os.path.exists(f"/proc/{pid}")
>>> [str(row[0]) for row in result.rows], stopped
(['a.txt:1'], True)
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kg.errors import KGError, QueryCancelled, QueryError, QueryTimeoutError, ResultTooLargeError

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from kg.query.result import Result
    from kg.store.base import QueryDataset, Store

__all__ = ["QueryRunner", "QueryWorker", "connect_to_parent", "query_runner", "start_child"]

GRACE = 0.2
"""Seconds a child is given to end after SIGTERM before it is killed."""

_PARENT_CHECK = 0.5
"""How often (seconds) a child checks that the process that started it is still there."""


class QueryRunner(Protocol):
    """What runs a store's queries so that they can be stopped: a :class:`QueryWorker`, or a
    remote endpoint's :class:`~kg.store.EndpointStore` itself."""

    def query(self, sparql: str, *, timeout: float | None = None) -> Result: ...

    def close(self) -> None: ...


def query_runner(store: Store, *, start: bool = False) -> QueryRunner:
    """What runs ``store``'s queries: a :class:`QueryWorker` on a local store's directory (the
    child opens the store read-only itself), the endpoint store itself for a remote endpoint.

    ``start``: start the child now (it opens the store while the caller goes on), rather than
    on the first query.
    """
    path = getattr(store, "path", None)
    if store.name != "embedded" or path is None:
        return store  # type: ignore[return-value]  # EndpointStore.query takes a timeout, and stops on Ctrl-C
    worker = QueryWorker(path)
    if start:
        worker.start()
    return worker


class QueryWorker:
    """A child process that answers the SPARQL queries of one store, and can be stopped.

    Parameters
    ----------
    location : path, optional
        The store directory; defaults to ``$KG_STORE`` or ``./.kg``.

    Notes
    -----
    :meth:`query` runs in one thread at a time; :meth:`cancel` (or :meth:`stop`) may be called
    from another thread meanwhile (the shell's main thread, on Ctrl-C), and the query then raises
    :class:`kg.errors.QueryCancelled`. A child that has died while idle is replaced by the next
    query; one that dies during a query makes it fail with :class:`kg.errors.QueryError`.
    """

    def __init__(self, location: str | os.PathLike[str] | None = None) -> None:
        from kg.store.base import default_store_path

        self.location = str(location or default_store_path())
        self._child: _Child | None = None
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        """The child's process id, or None when there is no child."""
        child = self._child
        return None if child is None else child.process.pid

    def start(self) -> None:
        """Start the child, unless it is running; return at once (it opens the store meanwhile)."""
        with self._lock:
            if self._child is None:
                self._child = _Child.start(self.location)

    def query(
        self,
        sparql: str,
        *,
        timeout: float | None = None,
        max_rows: int | None = None,
        dataset: QueryDataset | None = None,
    ) -> Result:
        """Run ``sparql`` in the child (started if need be) and return its Result.

        Parameters
        ----------
        sparql : str
            The query; the project's prefixes are declared, as for :meth:`kg.store.Store.query`.
        timeout : float, optional
            Seconds the query may run (counted once the child has the store open); past them
            the child is stopped. None: no limit.
        max_rows : int, optional
            The most rows (or triples) the answer may have; the child reads no further than one
            past them, so a larger answer costs neither process its size. None: no limit.
        dataset : kg.store.base.QueryDataset, optional
            The graphs the query reads, in place of its own ``FROM`` and ``FROM NAMED``.

        Raises
        ------
        kg.errors.QueryTimeoutError
            The query ran past ``timeout``; the child was stopped.
        kg.errors.QueryCancelled
            Ctrl-C (or :meth:`stop`) stopped it; the child was stopped.
        kg.errors.ResultTooLargeError
            The answer has more than ``max_rows`` rows.
        kg.errors.KGError
            What the query raised in the child: a syntax error, a refused update, a store that
            cannot be opened.
        """
        idle = self._child
        if idle is not None and idle.process.poll() is not None:  # it died since the last query
            self._forget(idle)
        self.start()  # the child opens the store while this process imports rdflib's terms
        from kg.query.result import Result

        with self._lock:
            child = self._child
            if child is None:  # stopped from another thread already
                raise QueryCancelled()
            child.busy = True
        try:
            if not child.ready:
                child.receive()  # ("ready",), or the error that kept the store from opening
                child.ready = True
            started = time.perf_counter()
            child.send((sparql, max_rows, dataset))
            if not child.answers.poll(timeout):
                self.stop()
                raise QueryTimeoutError(timeout)  # type: ignore[arg-type]  # poll(None) waits for ever
            kind, payload = child.receive()
            result = Result.from_oxigraph(_read_answer(kind, payload), query=sparql)
        except KeyboardInterrupt:
            self.stop()
            raise QueryCancelled() from None
        except _Ended as ended:
            self._forget(child)
            if child.stopped:
                raise QueryCancelled() from None
            raise QueryError(f"the query process ended unexpectedly ({ended})") from None
        except KGError:
            if not child.ready:  # the store cannot be opened; the child has ended, and the next query tries again
                self._forget(child)
            raise
        finally:
            with self._lock:
                child.busy = False
                if child.stopped:
                    child.close()
        result.elapsed = time.perf_counter() - started
        return result

    def stop(self) -> None:
        """End the child, if there is one (SIGTERM, then SIGKILL after :data:`GRACE` seconds);
        the next query starts a new one."""
        with self._lock:
            child, self._child = self._child, None
            if child is None:
                return
            child.stopped = True
            child.end()
            if not child.busy:  # else the query waiting on it closes its pipes
                child.close()

    def cancel(self) -> None:
        """Stop the query running now in another thread, if there is one (its child ends; it raises
        :class:`kg.errors.QueryCancelled`); an idle child is kept."""
        child = self._child
        if child is not None and child.busy:
            self.stop()

    def close(self) -> None:
        """Stop the child; the same as :meth:`stop`."""
        self.stop()

    def _forget(self, child: _Child) -> None:
        """Reap ``child``, which has ended, and let the next query start another."""
        with self._lock:
            if self._child is child:
                self._child = None
            child.end()

    def __enter__(self) -> QueryWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        child = getattr(self, "_child", None)
        if child is not None and child.process.poll() is None:
            child.process.kill()


class _Ended(Exception):
    """The child's pipe ended: it has exited (the message says how)."""


class _Child:
    """One child process and the two ends of its pipes."""

    def __init__(self, process: subprocess.Popen[bytes], requests: Connection, answers: Connection) -> None:
        self.process = process
        self.requests = requests
        self.answers = answers
        self.ready = False  # the child has said it has the store open
        self.busy = False  # a query is waiting on it
        self.stopped = False  # stop() ended it

    @classmethod
    def start(cls, location: str) -> _Child:
        return cls(*start_child("kg.store.worker", location))

    def send(self, request: tuple[str, int | None, QueryDataset | None]) -> None:
        """Send the child a query, the most rows its answer may have, and the graphs it reads.

        Raises
        ------
        _Ended
            The child has exited.
        """
        try:
            self.requests.send(request)
        except OSError:  # a broken pipe
            self.end()
            raise _Ended(_describe_status(self.process.returncode)) from None

    def receive(self) -> tuple:
        """The child's next message; the error it sent raised here.

        Raises
        ------
        _Ended
            The child has exited.
        """
        try:
            message = self.answers.recv()
        except (EOFError, OSError):
            self.end()
            raise _Ended(_describe_status(self.process.returncode)) from None
        if message[0] == "error":
            raise message[1]
        if message[0] == "bug":
            raise RuntimeError(f"the query process failed:\n{message[1]}")
        return message

    def end(self) -> None:
        """End the process (SIGTERM, then SIGKILL after :data:`GRACE` seconds) and reap it."""
        process = self.process
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(GRACE)
            except subprocess.TimeoutExpired:
                process.kill()
        process.wait()

    def close(self) -> None:
        self.requests.close()
        self.answers.close()


def start_child(module: str, *args: str) -> tuple[subprocess.Popen[bytes], Connection, Connection]:
    """Start ``python -m module`` with ``args``, talking to it over two pipes: the process, the connection
    that sends it requests and the one its answers arrive on. The child finds its ends of the pipes with
    :func:`connect_to_parent`; it runs the same ``kg`` package as this process, with nothing on its stdin
    or stdout."""
    from multiprocessing.connection import Connection

    here = str(Path(__file__).resolve().parent.parent.parent)
    path = os.environ.get("PYTHONPATH", "")
    environment = {**os.environ, "PYTHONPATH": here + (os.pathsep + path if path else "")}
    down_read, down_write = os.pipe()
    up_read, up_write = os.pipe()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", module, str(down_read), str(up_write), *args],
            pass_fds=(down_read, up_write),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            env=environment,
        )
    except BaseException:
        os.close(down_write)
        os.close(up_read)
        raise
    finally:
        os.close(down_read)
        os.close(up_write)
    return process, Connection(down_write, readable=False), Connection(up_read, writable=False)


def connect_to_parent(argv: list[str]) -> tuple[Connection, Connection, list[str]]:
    """In a child :func:`start_child` started, from its arguments: the connection its requests arrive on,
    the one it answers on, and the arguments it was given. The child then ignores Ctrl-C (it reaches
    the whole process group at a terminal; the parent decides what stops) and ends when the parent does."""
    import signal
    from multiprocessing.connection import Connection

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent()
    requests_fd, answers_fd, *args = argv
    return Connection(int(requests_fd), writable=False), Connection(int(answers_fd), readable=False), args


def _describe_status(status: int | None) -> str:
    """How a child ended, from its return code (negative: the signal that ended it)."""
    if status is None:
        return "no status"
    if status < 0:
        import signal

        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


def _read_answer(kind: str, payload: bytes | bool):
    """The pyoxigraph answer written by :func:`_write_answer`."""
    import pyoxigraph as ox

    if kind == "ask":
        return ox.parse_query_results(b"true" if payload else b"false", format=ox.QueryResultsFormat.TSV)
    if kind == "select":
        return ox.parse_query_results(payload, format=ox.QueryResultsFormat.TSV)
    return ox.parse(payload, format=ox.RdfFormat.N_TRIPLES)


def _write_answer(answer, max_rows: int | None = None) -> tuple[str, bytes | bool]:
    """A pyoxigraph answer as ``(kind, payload)``, read to its end, or to ``max_rows`` rows (or triples).

    Raises
    ------
    kg.errors.ResultTooLargeError
        The answer has more than ``max_rows`` rows; only one more than that was read.
    """
    import pyoxigraph as ox

    if isinstance(answer, ox.QueryBoolean):
        return "ask", bool(answer)
    if max_rows is None:
        if isinstance(answer, ox.QuerySolutions):
            return "select", answer.serialize(format=ox.QueryResultsFormat.TSV)
        return "graph", answer.serialize(format=ox.RdfFormat.N_TRIPLES)
    from itertools import islice

    head = list(islice(answer, max_rows + 1))
    if len(head) > max_rows:
        raise ResultTooLargeError(max_rows)
    if isinstance(answer, ox.QuerySolutions):
        # TSV as pyoxigraph writes it: each term in its N-Triples form (which escapes tabs and line
        # breaks), an unbound variable as an empty field.
        lines = ["\t".join(str(variable) for variable in answer.variables)]
        lines.extend("\t".join("" if term is None else str(term) for term in solution) for solution in head)
        return "select", ("\n".join(lines) + "\n").encode("utf-8")
    return "graph", ox.serialize(head, format=ox.RdfFormat.N_TRIPLES)


# ---------------------------------------------------------------- the child


def serve(requests: Connection, answers: Connection, location: str) -> None:
    """Open the store at ``location`` read-only and answer each ``(query, max_rows, dataset)`` read from
    ``requests`` on ``answers``, until ``requests`` ends: ``("ready",)`` first, then ``(kind, payload)``
    per query, or ``("error", KGError)``, or ``("bug", traceback text)``."""
    import traceback

    from kg.store.base import open_store

    try:
        store = open_store(location)
    except KGError as err:
        answers.send(("error", err))
        return
    with store:
        answers.send(("ready",))
        while True:
            try:
                sparql, max_rows, dataset = requests.recv()
            except EOFError:
                return
            try:
                store.refresh()  # the graph the last finished build published, as the shell reads it
                answer = store.answer(sparql, dataset=dataset)  # type: ignore[attr-defined]  # an EmbeddedStore
                reply: tuple = _write_answer(answer, max_rows)
                del answer  # released in this thread, which made it
            except KGError as err:
                reply = ("error", err)
            except OSError as err:  # reading the store failed while the answer was read
                reply = ("error", QueryError(f"query failed: {err}"))
            except Exception:
                reply = ("bug", traceback.format_exc())
            answers.send(reply)


def _exit_with_parent() -> None:
    """End this process when the one that started it is gone, even in the middle of a query."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_CHECK)
        os._exit(1)

    threading.Thread(target=watch, name="kg-worker-parent", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    """``python -m kg.store.worker REQUESTS_FD ANSWERS_FD STORE``: the child's entry point."""
    requests, answers, (location,) = connect_to_parent(argv if argv is not None else sys.argv[1:])
    try:
        serve(requests, answers, location)
    except (BrokenPipeError, EOFError):  # the parent went away
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
