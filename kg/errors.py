"""Every error the project raises on purpose, in one place.

The command line turns a :class:`KGError` into one line on stderr and its
``exit_status``; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from pathlib import Path


class KGError(Exception):
    """Base class: a failure the user can act on, reported without a traceback.

    An error pickles with its attributes, whatever its constructor takes, so that a query's
    error crosses from the process that ran it (:mod:`kg.store.worker`) as it was raised.

    Examples
    --------
    >>> import pickle
    >>> err = pickle.loads(pickle.dumps(QuerySyntaxError("expected WHERE", line=2, column=7)))
    >>> str(err), err.line, err.column
    ('SPARQL syntax error: line 2, column 7: expected WHERE', 2, 7)
    """

    exit_status = 1

    def __reduce__(self) -> tuple:
        # Exception pickles as cls(*args), which a constructor with keyword-only options cannot take.
        return _rebuild, (type(self), self.args, self.__dict__)


def _rebuild(cls: type[KGError], args: tuple, state: dict) -> KGError:
    err = cls.__new__(cls, *args)
    err.args = args
    err.__dict__.update(state)
    return err


class UsageError(KGError):
    """The command was called wrongly (bad option value, missing argument)."""

    exit_status = 2


class ArgumentValueError(UsageError, ValueError):
    """An argument of a library function has a value it cannot take: bad usage to the command
    line and the shell, a ValueError to Python callers."""


def check_whole_number(name: str, value: object, *, minimum: int = 1) -> int:
    """Return ``value`` if it is a whole number of at least ``minimum``; the one check of counts and limits.

    Examples
    --------
    >>> check_whole_number("limit", 3)
    3
    >>> check_whole_number("hops", 0)
    Traceback (most recent call last):
    ...
    kg.errors.ArgumentValueError: hops must be a whole number of at least 1, not 0
    """
    if not isinstance(value, int) or value < minimum:
        raise ArgumentValueError(f"{name} must be a whole number of at least {minimum}, not {value!r}")
    return value


class InputError(KGError):
    """A source file or one of its records cannot be read.

    The message names the file and, where there is one, the line.

    Examples
    --------
    >>> str(InputError("seeds/a.jsonl", "malformed JSON: Expecting value", line=3))
    'seeds/a.jsonl:3: malformed JSON: Expecting value'
    >>> str(InputError("missing.txt", "no such file or directory"))
    'missing.txt: no such file or directory'
    """

    exit_status = 2

    def __init__(self, path: str | Path, message: str, *, line: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {message}")


class ModelNotFoundError(KGError):
    """No usable spaCy pipeline is installed."""


class UnknownModelError(ModelNotFoundError):
    """The spaCy pipeline named (``--model``, ``$KG_SPACY_MODEL``) is not installed: bad input."""

    exit_status = 2


class WorkerError(KGError):
    """Extraction in other processes failed: a worker process stopped, or the Dask scheduler given to
    ``kg build --scheduler`` cannot be reached, or its workers failed."""


class StoreError(KGError):
    """The store cannot be opened, is locked, or is damaged."""


class StoreBusyError(StoreError):
    """Another process holds the store: a build writes it (``kg build --wait`` waits instead).

    Examples
    --------
    >>> str(StoreBusyError(".kg", 4242))
    'store .kg is being built by process 4242'
    >>> str(StoreBusyError(".kg", None))
    'store .kg is being built by another process'
    """

    def __init__(self, path: str | Path, pid: int | None) -> None:
        self.path = str(path)
        self.pid = pid
        self.who = "another process" if pid is None else f"process {pid}"
        super().__init__(f"store {self.path} is being built by {self.who}")


class StoreNotFoundError(StoreError):
    """The store path names no store (nothing there, or not a store of this project): bad input."""

    exit_status = 2


class QuerySyntaxError(KGError):
    """A SPARQL query does not parse; carries the line and column where known."""

    exit_status = 2

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None) -> None:
        self.line = line
        self.column = column
        self.message = message
        where = "" if line is None else f"line {line}, column {column}: "
        super().__init__(f"SPARQL syntax error: {where}{message}")


class QueryError(KGError):
    """A query parsed but could not be evaluated (or the endpoint refused it, or could not be reached)."""


class QueryTimeoutError(QueryError):
    """A query ran past its time limit and was abandoned (the process evaluating it ended).

    ``setting`` names what set the limit: the ``--timeout`` option or the shell's ``.timeout``.

    Examples
    --------
    >>> str(QueryTimeoutError(2.5))
    'query abandoned after 2.5 s (--timeout)'
    >>> str(QueryTimeoutError(30, setting=".timeout"))
    'query abandoned after 30 s (.timeout)'
    """

    def __init__(self, seconds: float, *, setting: str = "--timeout") -> None:
        self.seconds = seconds
        self.setting = setting
        super().__init__(f"query abandoned after {seconds:g} s ({setting})")


class ResultTooLargeError(QueryError):
    """A query's answer has more rows (or triples) than the limit it ran with; nothing of it was sent.

    ``setting`` names what set the limit.

    Examples
    --------
    >>> str(ResultTooLargeError(10000))
    'the answer has more than 10000 rows (--max-rows): add a LIMIT, or page with LIMIT and OFFSET'
    """

    def __init__(self, rows: int, *, setting: str = "--max-rows") -> None:
        self.rows = rows
        self.setting = setting
        super().__init__(
            f"the answer has more than {rows} rows ({setting}): add a LIMIT, or page with LIMIT and OFFSET"
        )


class QueryCancelled(KeyboardInterrupt):
    """Ctrl-C stopped a running query, and the process evaluating it: a KeyboardInterrupt, so that
    whatever handles Ctrl-C handles it, with the one line to show.

    Examples
    --------
    >>> str(QueryCancelled())
    'query cancelled'
    """

    exit_status = 130

    def __init__(self, message: str = "query cancelled") -> None:
        super().__init__(message)


def check_seconds(name: str, text: str) -> float:
    """``text`` as a number of seconds greater than 0 (a time limit); the one check of durations.

    Examples
    --------
    >>> check_seconds("--timeout", "2.5")
    2.5
    >>> check_seconds(".timeout", "soon")
    Traceback (most recent call last):
    ...
    kg.errors.ArgumentValueError: .timeout takes a number of seconds greater than 0, not 'soon'
    """
    try:
        seconds = float(text)
    except (TypeError, ValueError):
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise ArgumentValueError(f"{name} takes a number of seconds greater than 0, not {text!r}")
    return seconds


class UpdateRefusedError(UsageError):
    """A SPARQL update (INSERT, DELETE, LOAD, ...) was given where only queries are run.

    Examples
    --------
    >>> print(UpdateRefusedError("INSERT DATA"))  # doctest: +ELLIPSIS
    INSERT DATA is a SPARQL update, and updates are not accepted: queries are read-only, and the graph is built by ...
    """

    def __init__(self, operation: str) -> None:
        self.operation = operation
        super().__init__(
            f"{operation} is a SPARQL update, and updates are not accepted: queries are read-only, "
            "and the graph is built by `kg build`"
        )


class EntityNotFoundError(KGError):
    """A concept named on the command line is not in the graph.

    Examples
    --------
    >>> str(EntityNotFoundError("CLIPP", suggestions=["CLIP", "BLIP"]))
    "no entity named 'CLIPP'; did you mean: CLIP, BLIP?"
    """

    exit_status = 2

    def __init__(self, name: str, *, suggestions: list[str] | tuple[str, ...] = ()) -> None:
        self.name = name
        self.suggestions = tuple(suggestions)
        hint = f"; did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"no entity named {name!r}{hint}")


class PaperNotFoundError(KGError):
    """A paper named on the command line (by IRI, id or the start of its id) is not in the graph,
    or the start of an id given begins several (``matches``, more of them when ``more``).

    Examples
    --------
    >>> str(PaperNotFoundError("b4b8x0"))
    "no paper named 'b4b8x0'"
    >>> str(PaperNotFoundError("b4b", reason="give 6 characters or more of an id"))
    "no paper named 'b4b': give 6 characters or more of an id"
    >>> str(PaperNotFoundError("b4b800", matches=["b4b800aa", "b4b800bb"]))
    "'b4b800' begins the ids of 2 papers (b4b800aa, b4b800bb): give more of it"
    >>> str(PaperNotFoundError("b4", matches=["b4a", "b4b", "b4c", "b4d"], more=True))
    "'b4' begins the ids of more than 4 papers (b4a, b4b, b4c, ...): give more of it"
    """

    exit_status = 2
    SHOWN = 3

    def __init__(
        self, name: str, *, matches: list[str] | tuple[str, ...] = (), more: bool = False, reason: str = ""
    ) -> None:
        self.name = name
        self.matches = tuple(matches)
        if len(self.matches) > 1:
            count = f"more than {len(self.matches)}" if more else str(len(self.matches))
            shown = ", ".join(self.matches[: self.SHOWN]) + (", ..." if len(self.matches) > self.SHOWN else "")
            super().__init__(f"{name!r} begins the ids of {count} papers ({shown}): give more of it")
        else:
            super().__init__(f"no paper named {name!r}" + (f": {reason}" if reason else ""))


class UnknownPredicateError(UsageError):
    """A kind of link (``--via``) that the graph does not have.

    Examples
    --------
    >>> str(UnknownPredicateError("usedfr", suggestions=["usedFor"]))
    "unknown link 'usedfr'; did you mean: usedFor?"
    >>> str(UnknownPredicateError("x", known=["usedFor", "mentions"]))
    "unknown link 'x'; choose from: usedFor, mentions"
    """

    def __init__(
        self, name: str, *, suggestions: list[str] | tuple[str, ...] = (), known: list[str] | tuple[str, ...] = ()
    ) -> None:
        self.name = name
        self.suggestions = tuple(suggestions)
        if self.suggestions:
            hint = f"; did you mean: {', '.join(self.suggestions)}?"
        else:
            hint = f"; choose from: {', '.join(known)}" if known else ""
        super().__init__(f"unknown link {name!r}{hint}")


class RemoteError(KGError):
    """A request to a remote server failed: it could not be reached, or answered with an HTTP error.

    ``status`` is the HTTP status (None when there was no answer); ``retryable`` says whether the
    same request may succeed if sent again (no answer, a timeout, a 5xx, 408 or 429).

    Examples
    --------
    >>> err = RemoteError("http://localhost:7878/store: HTTP 503 Service Unavailable", status=503, retryable=True)
    >>> err.exit_status, err.retryable
    (1, True)
    """

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        self.status = status
        self.retryable = retryable
        super().__init__(message)


class CredentialsError(RemoteError):
    """A server asked for credentials that were not given, or refused those given: the user's to fix."""

    exit_status = 2


class PushError(KGError):
    """An upload to a triple store stopped part way; the message says what was and was not sent."""
