r"""Query results: the one type every query or command returns, and the one formatter.

- :mod:`kg.query.result`: :class:`Result` (SELECT, ASK, graph or message) and its constructors
  from plain rows or triples.
- :mod:`kg.query.conversions`: a Result from Oxigraph's or rdflib's answers; its rows as records,
  a DataFrame or a Graph.
- :mod:`kg.query.terms`: rdflib terms to and from pyoxigraph terms and Python values.
- :mod:`kg.query.table`: the table for people, and :func:`summary_line`.
- :mod:`kg.query.formats`: :func:`render` in one of :data:`FORMATS`; the W3C formats by pyoxigraph.
- :mod:`kg.query.sparql`: a light reading of SPARQL text: the operation a request is (updates are
  refused), and the variables of a ``SELECT *`` in the order the query names them.

Examples
--------
>>> result = Result.from_rows(["label", "papers"], [("CLIP", 12)], elapsed=0.0123)
>>> print(render(result), end="")
 label | papers
-------+--------
 CLIP  |     12
>>> render(result, "csv")
'label,papers\r\nCLIP,12\r\n'
>>> summary_line(result)
'1 row in 0.012 s'
"""

from kg.query.formats import FORMATS, render
from kg.query.result import GRAPH_COLUMNS, KINDS, Result
from kg.query.table import summary_line
from kg.query.terms import Term

__all__ = ["FORMATS", "GRAPH_COLUMNS", "KINDS", "Result", "Term", "render", "summary_line"]
