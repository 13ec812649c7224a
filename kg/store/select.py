"""SELECT results as plain strings, straight from Oxigraph when the store is local.

``Store.query`` returns rdflib terms, which means importing rdflib's SPARQL machinery
(about a quarter of a second); commands that answer in well under a second and only need
IRIs and lexical forms read rows with :func:`select_strings` instead.

Examples
--------
>>> import tempfile, os
>>> from rdflib import Literal
>>> from kg.rdf import KG, paper_iri
>>> from kg.store import open_store
>>> with tempfile.TemporaryDirectory() as tmp:
...     with open_store(os.path.join(tmp, "s"), create=True) as store:
...         store.write([(paper_iri("p1"), KG.sourceLocation, Literal("a.txt:1"))])
...         rows = select_strings(store, "SELECT ?loc ?none WHERE { ?p kg:sourceLocation ?loc }")
>>> rows
[('a.txt:1', None)]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from kg.namespace import PREFIXES

if TYPE_CHECKING:
    from kg.store import Store


def select_strings(store: Store, sparql: str) -> list[tuple[str | None, ...]]:
    """The rows of a SELECT query, each term as its IRI or lexical form (None where unbound).

    The project's prefixes are declared, as for :meth:`kg.store.Store.query`.
    """
    from kg.store import EmbeddedStore

    if isinstance(store, EmbeddedStore):
        return [tuple(None if term is None else term.value for term in solution)
                for solution in store.ox.query(sparql, prefixes=dict(PREFIXES))]
    return [tuple(None if term is None else str(term) for term in row) for row in store.query(sparql).rows]
