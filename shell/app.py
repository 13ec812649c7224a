"""``kg shell``: the interactive SPARQL shell, and its piped mode.

Interactive (stdin is a terminal): a prompt-toolkit prompt (see :mod:`shell.prompt`). SPARQL runs
in a child process (:class:`kg.store.worker.QueryWorker`; for an endpoint, an HTTP request), which
Ctrl-C and ``.timeout`` stop at once: the child ends, and the next query starts another. A
dot-command runs in a worker thread, so that Ctrl-C returns to the prompt at once; the thread is
told to stop too (:func:`run_cancellable`), and does at its next Python step.

Piped (stdin is not a terminal): statements are read from stdin as they arrive, their
results written to stdout (summaries, confirmations and errors to stderr), and the shell
exits when the input ends: ``echo 'SELECT ...;' | kg shell``, ``kg shell < queries.rq``.
A failing statement is reported (``stdin:LINE: message``) and the next one still runs;
the exit status is 0 when every statement succeeded, else the status of the first failure
(2 for a SPARQL syntax error, an unknown entity or a bad command, 1 for a failure of the
store or endpoint), as for ``kg query``. The last statement needs no ``;``.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from contextlib import closing
from itertools import chain
from typing import TextIO, TypeVar

from kg.errors import KGError
from kg.store.queries import READY
from shell.commands import execute
from shell.input.statements import Statement, StatementReader, split
from shell.output import Console
from shell.session import Session

T = TypeVar("T")
CANCELLED = 130


def run_shell(
    store: str | None = None,
    endpoint: str | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Open the store (or endpoint) and run the shell, interactively or on piped input.

    Parameters
    ----------
    store : str, optional
        The store directory (default ``$KG_STORE`` or ``./.kg``).
    endpoint : str, optional
        A SPARQL 1.1 endpoint's URL, used instead of a store (read-only).
    stdin, stdout, stderr : text streams, optional
        Default to the process's; the shell is interactive when ``stdin`` is a terminal.

    Returns
    -------
    int
        The exit status: 0, or as described in the module documentation.
    """
    from kg.store import default_store_path, open_store
    from kg.store.worker import query_runner

    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    try:
        graph = open_store(store, endpoint=endpoint)
    except KGError as err:
        print(f"kg: error: {err}", file=stderr)
        return err.exit_status
    # The query process starts now, and opens the store while the shell gets ready.
    with graph, closing(query_runner(graph, start=True)) as queries:
        session = Session(graph, location=endpoint or str(store or default_store_path()), queries=queries)
        if stdin.isatty():
            return interactive(session, Console(stdout, stderr, interactive=True))
        return piped(session, stdin, Console(stdout, stderr, interactive=False))


def interactive(session: Session, console: Console) -> int:
    """The read-run-show loop at a terminal, until Ctrl-D or ``.quit``; returns 0."""
    import gc

    from shell.prompt import make_prompt

    # Queries run in worker threads. The first query imports modules lazily, and what an
    # import leaves in reference cycles can hold that query's frame, with its pyoxigraph
    # iterator, until the garbage collector runs in some other thread, which pyoxigraph
    # reports as an error. So the first query runs here, and its leftovers are collected here.
    session.store.query(READY)
    gc.collect()
    prompt = make_prompt(session)
    console.note(
        f"abstract-kg shell on {session.location} ({session.store.name} store)\n"
        "SPARQL ends with ';'  .help lists the commands  Tab completes  Ctrl-D quits"
    )
    while session.running:
        try:
            text = prompt.prompt()
        except KeyboardInterrupt:
            continue
        except EOFError:
            break
        statements, rest = split(text)
        if rest.strip():  # Alt-Enter runs unfinished input as it is
            statements.append(Statement(rest.strip(), text.count("\n", 0, len(text) - len(rest)) + 1))
        for statement in statements:
            if run_statement(session, console, statement, cancellable=True) == CANCELLED or not session.running:
                break
    return 0


def piped(session: Session, stream: TextIO, console: Console) -> int:
    """Run every statement read from ``stream`` as it arrives.

    Returns
    -------
    int
        0 if every statement succeeded, else the exit status of the first that failed;
        130 at once if one was interrupted (Ctrl-C).
    """
    reader, status = StatementReader(), 0
    for chunk in chain(iter(stream.readline, ""), (None,)):
        for statement in reader.feed(chunk) if chunk is not None else reader.finish():
            outcome = run_statement(session, console, statement)
            if outcome == CANCELLED:
                return CANCELLED  # Ctrl-C stops the whole input
            status = status or outcome
            if not session.running:
                return status
    return status


def run_statement(session: Session, console: Console, statement: Statement, *, cancellable: bool = False) -> int:
    """Run one statement and show its result, or its error, on ``console``.

    Parameters
    ----------
    session : Session
    console : Console
    statement : Statement
    cancellable : bool, default False
        Run a dot-command in a worker thread, so that Ctrl-C returns at once (see
        :func:`run_cancellable`). SPARQL runs here all the same when the session has
        :attr:`~shell.session.Session.queries`, which Ctrl-C stops.

    Returns
    -------
    int
        0; the error's exit status (a :class:`kg.errors.KGError`, or 1 for a bug, whose
        traceback is shown); or 130 if interrupted.
    """
    session.notes.clear()
    session.refresh()
    in_thread = cancellable and (statement.is_command or session.queries is None)
    try:
        call = lambda: execute(session, statement)  # noqa: E731
        result = run_cancellable(call, on_cancel=lambda: _stop_queries(session)) if in_thread else call()
    except KeyboardInterrupt:
        console.note("cancelled")
        return CANCELLED
    except KGError as err:
        _show_notes(session, console)
        console.error(err, statement)
        return err.exit_status
    except Exception:  # a bug, not the user's mistake: say so, and keep the shell running
        console.note("internal error (please report it):\n" + traceback.format_exc().rstrip())
        return 1
    _show_notes(session, console)
    console.show(result, session)
    return 0


def _show_notes(session: Session, console: Console) -> None:
    """The statement's notes (which entity an ambiguous name was taken for), before its result."""
    for note in session.notes:
        console.note(f"note: {note}")
    session.notes.clear()


def _stop_queries(session: Session) -> None:
    """Stop the query a cancelled dot-command (``.run``) left running in the session's query process."""
    from kg.store.worker import QueryWorker

    if isinstance(session.queries, QueryWorker):
        session.queries.cancel()


def run_cancellable(call: Callable[[], T], *, on_cancel: Callable[[], object] | None = None) -> T:
    """``call()`` in a worker thread; Ctrl-C in the waiting thread abandons it.

    The abandoned call is told to stop: KeyboardInterrupt is raised in its thread, which it
    sees at its next Python step (a call into native code, such as an Oxigraph query, ends
    first), and ``on_cancel()`` runs (to stop what the call waits on). Its result is dropped;
    the store is only read, so nothing is left half-done.
    """
    box: dict[str, object] = {}

    def target() -> None:
        try:
            try:
                box["result"] = call()
            except BaseException as err:  # handed to the waiting thread
                box["error"] = err
        except KeyboardInterrupt:  # told to stop just as the call ended
            pass

    worker = threading.Thread(target=target, name="kg-shell-query", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
    except KeyboardInterrupt:
        # Not worker.is_alive(): a join that Ctrl-C interrupts can leave the thread marked as stopped
        # while it runs on (CPython 3.11). Raising in a thread that has ended does nothing.
        if worker.ident is not None:
            _raise_in_thread(worker.ident, KeyboardInterrupt)
        if on_cancel is not None:
            on_cancel()
        raise
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["result"]  # type: ignore[return-value]


def _raise_in_thread(ident: int, error: type[BaseException]) -> None:
    """Raise ``error`` in the thread ``ident`` at its next Python step (CPython's
    ``PyThreadState_SetAsyncExc``: a thread cannot be stopped from outside any other way)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(error))
