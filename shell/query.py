"""Running SPARQL from the shell, and cutting results at the session's limit.

Examples
--------
>>> from kg.query.result import Result
>>> cut = apply_limit(Result.from_rows(["n"], [(i,) for i in range(5)]), 2)
>>> cut.count, cut.truncated, cut.limit
(2, True, 2)
>>> apply_limit(Result.from_rows(["n"], [(1,)]), 0).truncated  # 0: no limit
False
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from kg.errors import QuerySyntaxError, QueryTimeoutError
from shell.input.statements import to_sparql

if TYPE_CHECKING:
    from kg.query.result import Result
    from shell.session import Session


def run_sparql(session: Session, text: str) -> Result:
    """Run the SPARQL ``text`` on the session's store and remember it as the last query.

    It runs through :attr:`Session.queries <shell.session.Session.queries>` where there is one, with
    the session's time limit: Ctrl-C there stops it (:class:`kg.errors.QueryCancelled`).

    ``kgr:entity/clip``-style names are escaped first (:func:`shell.input.statements.to_sparql`);
    the line and column of a syntax error refer to ``text`` as typed.

    Raises
    ------
    kg.errors.QuerySyntaxError
        If the query does not parse.
    kg.errors.QueryError
        If it cannot be evaluated.
    kg.errors.QueryTimeoutError
        If it ran past the session's ``.timeout``.
    """
    rewritten = to_sparql(text)
    try:
        if session.queries is None:
            result = session.store.query(rewritten.text)
        else:
            result = session.queries.query(rewritten.text, timeout=session.timeout)
    except QueryTimeoutError as err:
        raise QueryTimeoutError(err.seconds, setting=".timeout") from None
    except QuerySyntaxError as err:
        if err.line is None or not rewritten.inserted:
            raise
        line, column = rewritten.original_position(err.line, err.column or 1)
        raise QuerySyntaxError(err.message, line=line, column=column) from None
    session.last_query = text
    return result


def apply_limit(result: Result, limit: int) -> Result:
    """``result`` with at most ``limit`` rows (or triples), marked truncated if cut; 0 keeps all."""
    if limit <= 0 or result.kind not in ("select", "graph") or result.count <= limit:
        return result
    return dataclasses.replace(
        result, rows=result.rows[:limit], triples=result.triples[:limit], truncated=True, limit=limit
    )
