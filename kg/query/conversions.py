"""A :class:`~kg.query.result.Result` to and from other libraries.

:class:`Conversions` gives :class:`~kg.query.result.Result` its constructors from the answers
of pyoxigraph and rdflib (:meth:`~Conversions.from_oxigraph`, :meth:`~Conversions.from_rdflib`)
and its conversions to records, a pandas DataFrame and an rdflib ``Graph``
(:meth:`~Conversions.to_records`, :meth:`~Conversions.to_dataframe`, :meth:`~Conversions.to_graph`);
pandas and rdflib's ``Graph`` are imported only when a conversion needs them.
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from kg.errors import UsageError, check_whole_number
from kg.namespace import PREFIXES
from kg.query.sparql import in_query_order
from kg.query.terms import from_oxigraph, to_python

if TYPE_CHECKING:  # pragma: no cover - imported for annotations only
    import pandas
    import pyoxigraph
    from rdflib import Graph
    from rdflib.query import Result as RdflibResult

__all__ = ["Conversions", "with_article"]

_Self = TypeVar("_Self", bound="Conversions")


class Conversions:
    """The conversions of a :class:`~kg.query.result.Result`, which inherits them.

    They build results with the constructors :meth:`~kg.query.result.Result.from_rows` and
    :meth:`~kg.query.result.Result.from_triples` and read them with
    :meth:`~kg.query.result.Result.tabular`.
    """

    @classmethod
    def from_oxigraph(
        cls: type[_Self],
        answer: pyoxigraph.QuerySolutions | pyoxigraph.QueryBoolean | pyoxigraph.QueryTriples,
        *,
        query: str | None = None,
    ) -> _Self:
        """Read a pyoxigraph query answer (``Store.query``) to its end.

        SELECT solutions keep the query's variables and their order, ASK gives its boolean,
        CONSTRUCT and DESCRIBE their triples in the order Oxigraph gives them. Terms become
        rdflib terms (:func:`kg.query.terms.from_oxigraph`). The caller sets :attr:`elapsed`.

        Given the ``query`` text, the columns of a ``SELECT *`` follow the order in which it names
        its variables (:func:`kg.query.sparql.in_query_order`), not Oxigraph's (sorted by name).

        Examples
        --------
        >>> from kg.query.result import Result
        >>> import pyoxigraph as ox
        >>> store = ox.Store()
        >>> r = Result.from_oxigraph(store.query('SELECT ?x ?y WHERE { VALUES ?x { <urn:a> } }'))
        >>> r.columns, r.rows
        (('x', 'y'), [(rdflib.term.URIRef('urn:a'), None)])
        >>> Result.from_oxigraph(store.query("ASK {}")).boolean
        True
        >>> Result.from_oxigraph(store.query("CONSTRUCT { <urn:a> <urn:b> 1 } WHERE {}")).count
        1
        >>> star = "SELECT * WHERE { VALUES (?s ?p ?o) { (1 2 3) } }"
        >>> Result.from_oxigraph(store.query(star)).columns, Result.from_oxigraph(store.query(star), query=star).columns
        (('o', 'p', 's'), ('s', 'p', 'o'))
        """
        import pyoxigraph as ox

        if isinstance(answer, ox.QueryBoolean):
            return cls(kind="ask", boolean=bool(answer))
        if isinstance(answer, ox.QuerySolutions):
            given = [v.value for v in answer.variables]
            columns = given if query is None else in_query_order(given, query)
            reordered = columns != given
            rows = []
            for solution in answer:
                if not reordered:
                    rows.append(tuple(from_oxigraph(value) for value in solution))
                else:  # a solution is indexed by variable name too
                    rows.append(tuple(from_oxigraph(solution[name]) for name in columns))
            return cls(columns=tuple(columns), rows=rows, kind="select")
        triples = []
        for triple in answer:
            triples.append(
                (from_oxigraph(triple.subject), from_oxigraph(triple.predicate), from_oxigraph(triple.object))
            )
        return cls.from_triples(triples, sort=False)

    @classmethod
    def from_rdflib(
        cls: type[_Self],
        result: RdflibResult,
        *,
        elapsed: float | None = None,
        limit: int | None = None,
        query: str | None = None,
    ) -> _Self:
        """Convert an rdflib query result (SELECT, ASK, CONSTRUCT or DESCRIBE).

        Works for the results of ``Graph.query`` on any store (Oxigraph through
        ``oxrdflib``, rdflib's memory store, a SPARQL endpoint) and for results read
        with ``rdflib.query.Result.parse``.

        Parameters
        ----------
        result : rdflib.query.Result
            The query result.
        elapsed : float, optional
            Seconds the query took. Measure it around this call too: a store may
            compute the solutions only as they are read.
        limit : int, optional
            Keep at most this many rows (or triples); if there were more, the result is
            marked :attr:`truncated`.
        query : str, optional
            The query's text: the columns of a ``SELECT *`` then follow the order in which it
            names its variables, whatever order the store gave.

        Returns
        -------
        Result

        Raises
        ------
        TypeError
            If ``result`` is not an rdflib query result.

        Notes
        -----
        Every solution is kept, including one in which no variable is bound (rdflib's
        own iteration drops those). The triples of a graph result are sorted.

        Examples
        --------
        >>> from kg.query.result import Result
        >>> from rdflib import Graph, Literal, URIRef
        >>> g = Graph()
        >>> a, p = URIRef("http://example.org/a"), URIRef("http://example.org/p")
        >>> _ = g.add((a, p, Literal("x", lang="en")))
        >>> r = Result.from_rdflib(g.query("SELECT ?s ?o ?none WHERE { ?s ?p ?o }"))
        >>> r.columns
        ('s', 'o', 'none')
        >>> r.rows == [(a, Literal("x", lang="en"), None)]
        True
        >>> Result.from_rdflib(g.query("ASK { ?s ?p ?o }")).boolean
        True
        >>> Result.from_rdflib(g.query("CONSTRUCT WHERE { ?s ?p ?o }")).kind
        'graph'
        """
        kind = getattr(result, "type", None)
        if kind == "ASK":
            return cls(kind="ask", boolean=bool(result.askAnswer), elapsed=elapsed)
        if kind in ("CONSTRUCT", "DESCRIBE"):
            graph = result.graph
            return cls.from_triples(graph if graph is not None else (), elapsed=elapsed, limit=limit)
        if kind == "SELECT":
            variables = list(result.vars or ())
            if query is not None:
                by_name = {str(v): v for v in variables}
                variables = [by_name[name] for name in in_query_order(list(by_name), query)]
            bindings = result.bindings
            # Only one row past the limit is read: enough to know the result was cut.
            keep = len(bindings) if limit is None else check_whole_number("limit", limit, minimum=0) + 1
            rows = [tuple(binding.get(v) for v in variables) for binding in islice(bindings, keep)]
            return cls.from_rows([str(v) for v in variables], rows, elapsed=elapsed, limit=limit)
        raise TypeError(f"not an rdflib query result: {type(result).__name__}")

    def to_records(self) -> list[dict[str, Any]]:
        """The rows as dictionaries of Python values (see :meth:`to_dataframe`).

        Unbound variables map to ``None``.

        Examples
        --------
        >>> from kg.query.result import Result
        >>> from rdflib import URIRef
        >>> r = Result.from_rows(["s", "n", "u"], [(URIRef("http://example.org/a"), 3, None)])
        >>> r.to_records()
        [{'s': 'http://example.org/a', 'n': 3, 'u': None}]
        """
        columns, rows = self.tabular()
        return [{c: to_python(t) for c, t in zip(columns, row)} for row in rows]

    def to_dataframe(self) -> pandas.DataFrame:
        """The rows as a pandas DataFrame of Python values.

        IRIs become ``str``; blank nodes ``"_:label"``; literals their Python value
        (``Literal.toPython()``: ``int``, ``float``, ``Decimal``, ``bool``, ``date``,
        ``datetime``, ``str``...), or their lexical form where rdflib has no Python
        value for the datatype; unbound values are missing. A graph result gives the
        columns ``subject``, ``predicate``, ``object``. pandas is imported here, not
        when this module is.

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        kg.errors.UsageError
            If pandas is not installed, or the result is an ASK or message result,
            which has no table.

        Examples
        --------
        >>> from kg.query.result import Result
        >>> df = Result.from_rows(["label", "n"], [("CLIP", 12), ("LoRA", 3)]).to_dataframe()
        >>> list(df.columns), df["n"].tolist()
        (['label', 'n'], [12, 3])
        """
        try:
            import pandas as pd
        except ImportError:
            raise UsageError("pandas is not installed: pip install pandas") from None
        columns, rows = self.tabular()
        data = [tuple(to_python(t) for t in row) for row in rows]
        if not columns:
            return pd.DataFrame(index=range(len(data)))
        return pd.DataFrame.from_records(data, columns=list(columns))

    def to_graph(self) -> Graph:
        """The triples of a graph result as an rdflib ``Graph`` with the project's prefixes bound.

        Raises
        ------
        kg.errors.UsageError
            If this is not a graph result.

        Examples
        --------
        >>> from kg.query.result import Result
        >>> from rdflib import Literal
        >>> from kg.rdf import KG, KGR
        >>> g = Result.from_triples([(KGR["entity/clip"], KG.label, Literal("CLIP"))]).to_graph()
        >>> len(g)
        1
        """
        if self.kind != "graph":
            raise UsageError(f"{with_article(self.kind)} result has no triples")
        from rdflib import Graph

        graph = Graph()
        for prefix, namespace in PREFIXES.items():
            graph.bind(prefix, namespace, override=True, replace=True)
        for triple in self.triples:
            graph.add(triple)
        return graph


def with_article(word: str) -> str:
    """``word`` after its indefinite article, as error messages name a kind of result.

    Examples
    --------
    >>> with_article("select"), with_article("ask")
    ('a select', 'an ask')
    """
    return ("an " if word[:1] in "aeiou" else "a ") + word
