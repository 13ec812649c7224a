"""Where the graph lives: a small store interface and its backends, looked up by name.

``embedded`` (:mod:`kg.store.embedded`) is an on-disk Oxigraph store read through rdflib
(``oxrdflib``), so SPARQL runs in Oxigraph's engine; ``endpoint`` (:mod:`kg.store.endpoint`)
is a remote SPARQL 1.1 endpoint (read-only here). :mod:`kg.store.base` holds the interface
and the layout of a store directory, :mod:`kg.store.directory` its marker and the build's lock,
:mod:`kg.store.snapshots` the snapshots readers read, :mod:`kg.store.queries` every SPARQL
query the project runs, :mod:`kg.store.cache` derived data kept beside a store.

Examples
--------
>>> import tempfile, os
>>> from rdflib import Literal
>>> from kg.rdf import KG, paper_iri
>>> with tempfile.TemporaryDirectory() as tmp:
...     with open_store(os.path.join(tmp, "s"), create=True) as store:
...         store.write([(paper_iri("p1"), KG.sourceLocation, Literal("a.txt:1"))])
...         len(store)
1
"""

from __future__ import annotations

from kg.store.base import BACKENDS, Bindings, Quad, Store, Triple, default_store_path, open_store
from kg.store.embedded import EmbeddedStore
from kg.store.endpoint import EndpointStore

__all__ = [
    "BACKENDS",
    "Bindings",
    "EmbeddedStore",
    "EndpointStore",
    "Quad",
    "Store",
    "Triple",
    "default_store_path",
    "open_store",
]
