r"""The table for people, and the one-line summary printed after a result.

:func:`render_table` is what :func:`kg.query.render` writes for the format ``table``:
aligned columns, a header and a separator line, in the style of psql. IRIs are shown as
prefixed names with the longest matching namespace (``entity:clip``, ``paper:b4b800``), with
SPARQL's reserved characters escaped so that a name can be pasted into a query (see
:func:`kg.namespace.name_compactor`), or as ``<iri>`` where no prefix can name them; blank
nodes as ``_:label``; literals as their lexical form, without quotes, language or datatype;
unbound values are empty; a column whose values are all numbers is right-aligned. Line
breaks in a value are shown as ``↵``, tabs as a space and other control characters as
``\xNN``, so that a row stays on one line. With ``max_width`` a cell wider than
that many terminal columns is cut and ends in ``…`` (widths from ``wcwidth`` when installed,
else ``len``); with ``width`` (a terminal's) the widest cells are cut just enough for rows to
fit it, though never below :data:`MIN_CELL` columns. An empty result prints its header followed
by ``(no rows)`` (``(no triples)`` for a graph). ASK prints ``true`` or ``false``.

:func:`summary_line` gives the footer ("3 rows in 0.012 s") that the shell and the command
line print after a result, in the manner of pgcli and litecli.

Examples
--------
>>> from kg.query.result import Result
>>> from kg.rdf import entity_iri
>>> result = Result.from_rows(
...     ["entity", "label", "papers"],
...     [(entity_iri("clip"), "CLIP", 12), (entity_iri("lora"), "LoRA", 3)],
...     elapsed=0.0123,
... )
>>> print(render_table(result), end="")
 entity      | label | papers
-------------+-------+--------
 entity:clip | CLIP  |     12
 entity:lora | LoRA  |      3
>>> summary_line(result)
'2 rows in 0.012 s'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from rdflib import namespace as rdfns
from rdflib.term import BNode, Literal, URIRef

from kg.namespace import PREFIXES, name_compactor
from kg.query.result import Result

__all__ = ["MIN_CELL", "render_table", "summary_line"]

MIN_CELL = 12
"""The narrowest a cell is cut to when a table is fitted to a terminal's width."""

_NUMERIC_DATATYPES = frozenset(
    str(rdfns.XSD[name])
    for name in (
        "integer",
        "decimal",
        "double",
        "float",
        "long",
        "int",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
    )
)


def render_table(
    result: Result,
    *,
    prefixes: Mapping[str, str] | None = PREFIXES,
    max_width: int | None = None,
    width: int | None = None,
) -> str:
    """The table of a SELECT or graph result, or the answer of an ASK, ending with a line break.

    Parameters
    ----------
    result : Result
        A select, graph or ask result.
    prefixes : mapping of str to str, optional
        Prefix to namespace IRI, for showing IRIs as prefixed names; ``None`` or ``{}``
        shows every IRI in full.
    max_width : int, optional
        The widest a cell may be, in terminal columns (at least 1).
    width : int, optional
        The terminal's width: when rows are wider, the widest cells are cut (to no less than
        :data:`MIN_CELL` columns, nor more than ``max_width``) so that they fit where they can.

    Raises
    ------
    kg.errors.UsageError
        For a message result, which has no table.

    Examples
    --------
    >>> from rdflib import BNode, Literal, URIRef
    >>> from kg.rdf import KG
    >>> r = Result.from_rows(
    ...     ["s", "p", "o"],
    ...     [(BNode("b0"), KG.name, Literal('café, "au lait" froid', lang="fr")),
    ...      (URIRef("http://example.org/x"), KG.year, None)],
    ... )
    >>> print(render_table(r), end="")
     s                      | p       | o
    ------------------------+---------+-----------------------
     _:b0                   | kg:name | café, "au lait" froid
     <http://example.org/x> | kg:year |
    >>> print(render_table(r, max_width=10), end="")
     s          | p       | o
    ------------+---------+------------
     _:b0       | kg:name | café, "au…
     <http://e… | kg:year |
    >>> wide = Result.from_rows(["id", "abstract"], [(1, "We study robust overfitting in adversarial training.")])
    >>> print(render_table(wide, width=36), end="")
     id | abstract
    ----+-------------------------------
      1 | We study robust overfitting …
    >>> print(render_table(Result.from_rows(["x"], [])), end="")
     x
    ---
    (no rows)
    >>> print(render_table(Result.from_boolean(False)), end="")
    false
    """
    if result.kind == "ask":
        return ("true" if result.boolean else "false") + "\n"
    columns, rows = result.tabular()
    empty = "(no triples)" if result.kind == "graph" else "(no rows)"
    text = _table(columns, rows, prefixes, max_width, empty)
    widest = _widest_line(text)
    if width is None or widest <= width:
        return text
    low, high = MIN_CELL, widest if max_width is None else min(widest, max_width)
    while low < high:  # the widest cell width at which the table still fits
        middle = (low + high + 1) // 2
        if _widest_line(_table(columns, rows, prefixes, middle, empty)) <= width:
            low = middle
        else:
            high = middle - 1
    return _table(columns, rows, prefixes, low, empty)


def _widest_line(text: str) -> int:
    return max((_width(line) for line in text.splitlines()), default=0)


def summary_line(result: Result) -> str:
    """The one-line footer printed after a result, like pgcli's.

    ``"3 rows in 0.012 s"``, ``"1 row"``, ``"7 triples in 0.004 s"``,
    ``"answer: true in 0.002 s"``, with ``" (cut at limit 100)"`` when the rows were cut.
    A message result has no count: ``"done in 0.100 s"``, or ``""`` without a time.

    Examples
    --------
    >>> summary_line(Result.from_rows(["x"], [(1,)]))
    '1 row'
    >>> summary_line(Result.from_rows(["x"], [(i,) for i in range(5)], limit=3, elapsed=0.0121))
    '3 rows in 0.012 s (cut at limit 3)'
    >>> summary_line(Result.from_boolean(True, elapsed=0.002))
    'answer: true in 0.002 s'
    >>> summary_line(Result.text("ok"))
    ''
    """
    if result.kind == "select":
        text = _plural(len(result.rows), "row")
    elif result.kind == "graph":
        text = _plural(len(result.triples), "triple")
    elif result.kind == "ask":
        text = "answer: " + ("true" if result.boolean else "false")
    else:
        text = ""
    if result.elapsed is not None:
        text = f"{text} in {result.elapsed:.3f} s" if text else f"done in {result.elapsed:.3f} s"
    if result.truncated:
        note = f"(cut at limit {result.limit})" if result.limit is not None else "(cut at a limit)"
        text = f"{text} {note}" if text else note
    return text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# Line breaks become a visible mark, tabs a space, other control characters \xNN.
_LINE_MARK = "\u21b5"  # ↵
_CLEAN_TABLE: dict[int, str] = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))}
_CLEAN_TABLE.update({c: _LINE_MARK for c in (0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029)})
_CLEAN_TABLE[0x09] = " "


def _clean(text: str) -> str:
    if text.isprintable():
        return text
    return text.replace("\r\n", "\n").translate(_CLEAN_TABLE)


@lru_cache(maxsize=1)
def _wcswidth() -> Callable[[str], int] | None:
    try:
        from wcwidth import wcswidth
    except ImportError:  # pragma: no cover - wcwidth is normally installed with prompt-toolkit
        return None
    return wcswidth


def _width(text: str) -> int:
    """Terminal columns taken by ``text`` (already cleaned of control characters)."""
    if text.isascii():
        return len(text)
    measure = _wcswidth()
    if measure is None:
        return len(text)
    width = measure(text)
    return len(text) if width < 0 else width


def _clip(text: str, max_width: int | None) -> str:
    if max_width is None or _width(text) <= max_width:
        return text
    room = max_width - 1  # the ellipsis takes one column
    lo, hi = 0, min(len(text), room)  # no more characters than columns are needed
    while lo < hi:  # the longest prefix that fits
        mid = (lo + hi + 1) // 2
        if _width(text[:mid]) <= room:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "…"


def _compactor(prefixes: Mapping[str, str] | None) -> Callable[[str], str]:
    compact = name_compactor(prefixes or {})
    return lru_cache(maxsize=4096)(compact)


def _table_cell(term: Any, compact: Callable[[str], str]) -> tuple[str, bool | None]:
    """The text of a cell and whether it is a number (``None`` when unbound)."""
    if term is None:
        return "", None
    if isinstance(term, URIRef):
        return compact(term), False
    if isinstance(term, BNode):
        return "_:" + str(term), False
    if isinstance(term, Literal):
        numeric = term.datatype is not None and str(term.datatype) in _NUMERIC_DATATYPES
        return str(term), numeric
    return str(term), False


def _table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    prefixes: Mapping[str, str] | None,
    max_width: int | None,
    empty: str,
) -> str:
    if not columns:
        if not rows:
            return empty + "\n"
        return f"({_plural(len(rows), 'row')} with no variables)\n"
    compact = _compactor(prefixes)
    header = [_clip(_clean(str(c)), max_width) for c in columns]
    widths = [_width(h) for h in header]
    # A column is right-aligned when every value bound in it is a number.
    numeric: list[bool | None] = [None] * len(columns)
    body: list[list[tuple[str, int]]] = []
    for row in rows:
        cells = []
        for i, term in enumerate(row[: len(columns)]):
            text, is_number = _table_cell(term, compact)
            text = _clip(_clean(text), max_width)
            width = _width(text)
            widths[i] = max(widths[i], width)
            if is_number is not None:
                numeric[i] = is_number if numeric[i] is None else numeric[i] and is_number
            cells.append((text, width))
        body.append(cells)

    def line(cells: Iterable[tuple[str, int]], align: Sequence[bool | None]) -> str:
        parts = []
        for (text, width), room, right in zip(cells, widths, align):
            pad = " " * (room - width)
            parts.append(pad + text if right else text + pad)
        return (" " + " | ".join(parts)).rstrip()

    lines = [line(((h, _width(h)) for h in header), [False] * len(columns))]
    lines.append("+".join("-" * (w + 2) for w in widths))
    lines.extend(line(cells, numeric) for cells in body)
    if not rows:
        lines.append(empty)
    return "\n".join(lines) + "\n"
