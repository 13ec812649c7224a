"""The Python API for notebooks and scripts: the CLI's operations on one object.

Examples
--------
>>> import tempfile, pathlib
>>> import kg
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "a.txt").write_text("We study grokking in small transformers.\\n")
>>> graph = kg.open(folder / "store")
>>> graph.build([folder / "a.txt"]).new
1
>>> graph.query("SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }").rows[0][0].toPython()
1
>>> graph.close()
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING

from kg.store import Store, default_store_path, open_store

if TYPE_CHECKING:
    import networkx as nx
    from rdflib import Graph

    from kg.build.builder import BuildReport
    from kg.explore.lookup import NameChoice
    from kg.explore.stats import Stats
    from kg.query.result import Result


class KnowledgeGraph:
    """A graph store opened for reading, with building and exporting on the side.

    Reading reads the graph the last finished build published (a snapshot, see
    :mod:`kg.store.snapshots`); :meth:`build` adds to it, and reading afterwards reads the new one.
    """

    def __init__(self, store: str | os.PathLike[str] | None = None, *, endpoint: str | None = None) -> None:
        self.location = Path(store or default_store_path())
        self.endpoint = endpoint
        self._store: Store | None = None
        self._view: nx.MultiDiGraph | None = None

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = open_store(self.location, endpoint=self.endpoint)
        return self._store

    @property
    def graph(self) -> Graph:
        """The rdflib Graph (SPARQL runs in Oxigraph's engine)."""
        return self.store.graph

    @property
    def nx(self) -> nx.MultiDiGraph:
        """The NetworkX projection: entities and papers as nodes, links as edges."""
        if self._view is None:
            from kg.explore.projection import project

            self._view = project(self.store)
        return self._view

    def query(self, sparql: str) -> Result:
        """Run SPARQL; the Result has ``columns``, ``rows`` and ``to_dataframe()``."""
        return self.store.query(sparql)

    def path(
        self,
        source: str,
        target: str,
        *,
        max_hops: int = 4,
        limit: int = 3,
        via: Iterable[str] | None = None,
        through_papers: bool | None = None,
    ) -> dict:
        """The shortest paths between two concepts, as ``kg path --format json`` gives them.

        The same report as :func:`kg.explore.reports.path_report`, as plain data. Names are
        resolved as every command resolves them (:meth:`lookup`); an ambiguous one gives a
        ``UserWarning`` saying which entity was taken.
        """
        from kg.explore.projection import load_projection
        from kg.explore.reports import path_report

        report = path_report(
            load_projection(self.store),
            self.store,
            source,
            target,
            max_hops=max_hops,
            limit=limit,
            via=via,
            through_papers=through_papers,
        )
        for note in report.notes:
            warnings.warn(note, stacklevel=2)
        return report.to_json()

    def lookup(self, name: str) -> NameChoice:
        """The entity ``name`` names (an IRI, a label, an alias or a folded form of one), by the rule
        every command follows (:mod:`kg.explore.lookup`), with the others it could name."""
        from kg.explore.lookup import LabelIndex

        return LabelIndex.from_store(self.store).lookup(name)

    def paper(self, name: str) -> dict:
        """A paper, named by ``paper:ID``, its id or the start of its id, as ``kg paper --format json`` gives it."""
        from kg.explore.reports import paper_report

        return paper_report(self.store, name).to_json()

    def stats(self) -> Stats:
        from kg.explore.stats import collect_stats

        return collect_stats(self.store)

    def build(self, sources: Iterable[str | os.PathLike[str]], **options: object) -> BuildReport:
        """Add abstracts from ``sources`` (see :func:`kg.build.builder.build` for options)."""
        from kg.build.builder import build

        self.close()
        return build(sources, store=self.location, **options)  # type: ignore[arg-type]

    def export(
        self,
        destination: str | os.PathLike[str] | IO[bytes],
        format: str | None = None,
        *,
        with_ontology: bool = False,
    ) -> None:
        """Write the graph to a file path or binary stream in ``format`` (ttl, nt, nq, trig, jsonld, xml;
        graphml, gexf, csv). For a path the format defaults to the one its suffix names (``.gz`` after it
        compresses, as ``kg export -o`` does), for a stream to ttl. ``with_ontology`` adds the ontology and
        the vocabularies (as ``kg export --with-ontology``)."""
        from kg.export import export_target, get_exporter

        if hasattr(destination, "write"):
            get_exporter(format or "ttl").write(self.store, destination, with_ontology=with_ontology)  # type: ignore[arg-type]
            return
        target = export_target(destination, format)  # type: ignore[arg-type]
        with open(destination, "wb") as stream:  # type: ignore[arg-type]
            target.write(self.store, stream, with_ontology=with_ontology)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
        self._store = None
        self._view = None

    def __enter__(self) -> KnowledgeGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_graph(store: str | os.PathLike[str] | None = None, *, endpoint: str | None = None) -> KnowledgeGraph:
    """Open the graph in ``store`` (default ``$KG_STORE`` or ``./.kg``) or at a SPARQL ``endpoint``."""
    return KnowledgeGraph(store, endpoint=endpoint)
