"""The one result type: what every SPARQL query and every shell command returns.

Every query (``kg query``, the shell, the Python API) and every shell command returns a
:class:`Result`; :func:`kg.query.render` turns it into text (see :mod:`kg.query.table` and
:mod:`kg.query.formats`). Its conversions from pyoxigraph and rdflib answers, and to records,
pandas and rdflib, are in :mod:`kg.query.conversions`.

Kinds of result
---------------
``select``
    ``columns`` (variable names, without ``?``) and ``rows`` (tuples of rdflib terms,
    ``None`` where a variable is unbound).
``ask``
    ``boolean``.
``graph``
    CONSTRUCT and DESCRIBE: ``triples``; ``columns`` is ``("subject", "predicate", "object")``
    and ``rows`` holds the same triples, so a graph result is also a three-column table.
    :meth:`Result.from_rdflib` and :meth:`Result.from_triples` sort the triples by subject,
    predicate, object so that the output is stable; :meth:`Result.from_oxigraph` keeps
    Oxigraph's order.
``message``
    ``message``: a command that only says something.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kg.errors import UsageError, check_whole_number
from kg.query.conversions import Conversions, with_article
from kg.query.terms import Term, from_python, sort_key

__all__ = ["GRAPH_COLUMNS", "KINDS", "Result"]

KINDS = ("select", "ask", "graph", "message")
"""The values of :attr:`Result.kind`."""

GRAPH_COLUMNS = ("subject", "predicate", "object")
"""The columns of a graph (CONSTRUCT or DESCRIBE) result."""


@dataclass
class Result(Conversions):
    """The result of a query or a command: a table, a boolean, triples or a message.

    Build one with a constructor (:meth:`from_oxigraph`, :meth:`from_rdflib`,
    :meth:`from_rows`, :meth:`from_triples`, :meth:`from_boolean`, :meth:`text`) rather than
    field by field; render it with :func:`kg.query.render` and :func:`kg.query.summary_line`.

    Attributes
    ----------
    columns : tuple of str
        The variable names, without ``?``, in the order of the query's projection.
        For a graph result, :data:`GRAPH_COLUMNS`.
    rows : list of tuple
        One tuple per solution, one rdflib term per column, ``None`` where unbound.
        For a graph result, the triples.
    kind : str
        One of :data:`KINDS`: ``"select"``, ``"ask"``, ``"graph"`` (CONSTRUCT or
        DESCRIBE) or ``"message"``.
    boolean : bool or None
        The answer of an ASK query.
    triples : list of tuple
        The ``(subject, predicate, object)`` triples of a graph result.
    truncated : bool
        True when rows (or triples) were cut at a limit.
    elapsed : float or None
        Seconds taken, where measured.
    message : str or None
        What a command says (``kind == "message"``).
    limit : int or None
        The limit the rows were cut at, where known (shown by :func:`summary_line`).

    Examples
    --------
    >>> r = Result.from_rows(["?x", "n"], [("a", 1), ("b", None)])
    >>> r.kind, r.columns, r.count
    ('select', ('x', 'n'), 2)
    >>> r.rows[1]
    (rdflib.term.Literal('b'), None)
    >>> Result.from_boolean(True).boolean
    True
    """

    columns: tuple[str, ...] = ()
    rows: list[tuple[Term | None, ...]] = field(default_factory=list)
    kind: str = "select"
    boolean: bool | None = None
    triples: list[tuple[Term, Term, Term]] = field(default_factory=list)
    truncated: bool = False
    elapsed: float | None = None
    message: str | None = None
    limit: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        self.columns = tuple(_variable_name(c) for c in self.columns)
        if not isinstance(self.rows, list):
            self.rows = [tuple(row) for row in self.rows]
        if not isinstance(self.triples, list):
            self.triples = [tuple(t) for t in self.triples]  # type: ignore[misc]
        if self.kind == "graph":
            if not self.columns:
                self.columns = GRAPH_COLUMNS
            if not self.rows and self.triples:
                self.rows = list(self.triples)
            elif self.rows and not self.triples:
                self.triples = list(self.rows)  # type: ignore[arg-type]
        elif self.kind == "ask":
            if self.boolean is None:
                raise ValueError("an ask result needs a boolean")
            self.boolean = bool(self.boolean)

    # ------------------------------------------------------------ constructors

    @classmethod
    def from_rows(
        cls,
        columns: Iterable[str],
        rows: Iterable[Sequence[Any] | Mapping[str, Any]],
        *,
        elapsed: float | None = None,
        limit: int | None = None,
        truncated: bool = False,
    ) -> Result:
        """A SELECT-style result from plain Python values.

        Parameters
        ----------
        columns : iterable of str
            Column (variable) names; a leading ``?`` or ``$`` is dropped.
        rows : iterable of sequences or mappings
            Each row is a sequence with one value per column, or a mapping from column
            name to value (a missing name is unbound). A value is an rdflib term (kept),
            ``None`` (unbound), or a Python value that :func:`kg.query.terms.from_python`
            makes a literal (``str`` a simple literal, ``int`` an ``xsd:integer``...).
        elapsed : float, optional
            Seconds taken.
        limit : int, optional
            Keep at most this many rows; if there were more, mark the result truncated.
        truncated : bool, default False
            Mark the result as cut at a limit (when the caller did the cutting).

        Returns
        -------
        Result

        Raises
        ------
        ValueError
            If a row does not have one value per column.
        TypeError
            If a value cannot be made an RDF term.

        Examples
        --------
        >>> r = Result.from_rows(["name", "n"], [{"name": "CLIP", "n": 2}, {"name": "ViT"}])
        >>> [[None if t is None else t.n3() for t in row] for row in r.rows]
        [['"CLIP"', '"2"^^<http://www.w3.org/2001/XMLSchema#integer>'], ['"ViT"', None]]
        >>> Result.from_rows(["x"], [(1,), (2,), (3,)], limit=2).truncated
        True
        """
        names = tuple(_variable_name(c) for c in columns)
        converted: list[tuple[Term | None, ...]] = []
        for i, row in enumerate(rows):
            if isinstance(row, Mapping):
                values: Sequence[Any] = [row.get(name) for name in names]
            else:
                values = tuple(row)
                if len(values) != len(names):
                    raise ValueError(f"row {i} has {len(values)} values for {len(names)} columns")
            converted.append(tuple(from_python(v) for v in values))
        converted, cut = _cut(converted, limit)
        return cls(
            columns=names, rows=converted, kind="select", truncated=truncated or cut, elapsed=elapsed, limit=limit
        )

    @classmethod
    def from_triples(
        cls,
        triples: Iterable[tuple[Term, Term, Term]],
        *,
        elapsed: float | None = None,
        limit: int | None = None,
        sort: bool = True,
    ) -> Result:
        """A graph result from triples (an rdflib ``Graph`` is an iterable of triples).

        Parameters
        ----------
        triples : iterable of (subject, predicate, object)
            rdflib terms.
        elapsed : float, optional
            Seconds taken.
        limit : int, optional
            Keep at most this many triples (after sorting); mark truncated if cut.
        sort : bool, default True
            Sort by subject, predicate, object (IRIs, then blank nodes, then literals),
            which groups the triples by subject and makes the output stable.

        Returns
        -------
        Result

        Examples
        --------
        >>> from rdflib import Literal, URIRef
        >>> from kg.rdf import KG, KGR
        >>> r = Result.from_triples([(KGR["entity/clip"], KG.label, Literal("CLIP"))])
        >>> r.kind, r.columns, len(r.triples)
        ('graph', ('subject', 'predicate', 'object'), 1)
        """
        items = [tuple(t) for t in triples]
        if sort:
            items.sort(key=_triple_key)
        items, cut = _cut(items, limit)
        return cls(
            columns=GRAPH_COLUMNS,
            rows=list(items),
            kind="graph",
            triples=items,  # type: ignore[arg-type]
            truncated=cut,
            elapsed=elapsed,
            limit=limit,
        )

    @classmethod
    def from_boolean(cls, value: bool, *, elapsed: float | None = None) -> Result:
        """The result of an ASK query.

        Examples
        --------
        >>> Result.from_boolean(False).boolean
        False
        """
        return cls(kind="ask", boolean=bool(value), elapsed=elapsed)

    @classmethod
    def text(cls, message: str, *, elapsed: float | None = None) -> Result:
        """A result that only says something (a shell command's answer).

        Examples
        --------
        >>> r = Result.text("prefix ex: bound")
        >>> r.kind, r.message
        ('message', 'prefix ex: bound')
        """
        return cls(kind="message", message=str(message), elapsed=elapsed)

    # ------------------------------------------------------------ accessors

    @property
    def count(self) -> int:
        """The number of rows (or triples); 0 for ASK and message results.

        Examples
        --------
        >>> Result.from_rows(["x"], [(1,), (2,)]).count
        2
        """
        if self.kind == "graph":
            return len(self.triples)
        if self.kind == "select":
            return len(self.rows)
        return 0

    def tabular(self) -> tuple[tuple[str, ...], list[tuple[Term | None, ...]]]:
        """The columns and rows of a SELECT result, or the triples of a graph result.

        Raises
        ------
        kg.errors.UsageError
            For an ASK or message result, which has no table.

        Examples
        --------
        >>> columns, rows = Result.from_triples([]).tabular()
        >>> columns, rows
        (('subject', 'predicate', 'object'), [])
        """
        if self.kind == "graph":
            return GRAPH_COLUMNS, self.triples  # type: ignore[return-value]
        if self.kind == "select":
            return self.columns, self.rows
        hint = "; use result.boolean" if self.kind == "ask" else ""
        raise UsageError(f"{with_article(self.kind)} result has no rows{hint}")


def _variable_name(name: str) -> str:
    name = str(name)
    return name[1:] if name[:1] in ("?", "$") else name


def _cut(items: list, limit: int | None) -> tuple[list, bool]:
    if limit is None:
        return items, False
    check_whole_number("limit", limit, minimum=0)
    if len(items) <= limit:
        return items, False
    return items[:limit], True


def _triple_key(triple: tuple[Any, ...]) -> tuple[tuple[int, str, str], ...]:
    return tuple(sort_key(t) for t in triple)
