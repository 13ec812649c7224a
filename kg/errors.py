"""Every error the project raises on purpose, in one place.

The command line turns a :class:`KGError` into one line on stderr and its
``exit_status``; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from pathlib import Path


class KGError(Exception):
    """Base class: a failure the user can act on, reported without a traceback."""

    exit_status = 1


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
