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
...         bound = select_strings(store, "SELECT ?p ?loc WHERE { ?p kg:sourceLocation ?loc }",
...                                bindings={"p": paper_iri("p2")})
>>> rows, bound
([('a.txt:1', None)], [])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from kg.namespace import PREFIXES

if TYPE_CHECKING:
    from kg.store import Store


def select_strings(
    store: Store, sparql: str, *, bindings: Mapping[str, str] | None = None
) -> list[tuple[str | None, ...]]:
    """The rows of a SELECT query, each term as its IRI or lexical form (None where unbound).

    The project's prefixes are declared, as for :meth:`kg.store.Store.query`; ``bindings``
    binds variables to IRIs, given as strings.
    """
    from kg.store import EmbeddedStore

    if isinstance(store, EmbeddedStore):
        import pyoxigraph as ox

        substitutions = {ox.Variable(name): ox.NamedNode(iri) for name, iri in (bindings or {}).items()}
        return [
            tuple(None if term is None else term.value for term in solution)
            for solution in store.ox.query(sparql, prefixes=dict(PREFIXES), substitutions=substitutions)
        ]
    from rdflib import URIRef

    terms = {name: URIRef(iri) for name, iri in (bindings or {}).items()}
    rows = store.query(sparql, bindings=terms).rows
    return [tuple(None if term is None else str(term) for term in row) for row in rows]
