"""`kg export`: the graph in a triple-store format, by name. Each format is a small exporter.

RDF formats are written by Oxigraph's serialisers straight from the store, streaming,
so exports scale with the store rather than with memory. ``graphml``, ``gexf`` and ``csv``
write the projection (:mod:`kg.explore.projection`: entities and papers as nodes, paper links and
relations as edges with predicate, support and evidence) for Gephi, Cytoscape and pandas.
"""

from __future__ import annotations

import csv
import io
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from kg.errors import UsageError
from kg.files import write_atomically  # noqa: F401  (re-exported: exports are written with it)
from kg.store import EmbeddedStore, Store

if TYPE_CHECKING:
    from kg.explore.projection import Projection


class Exporter(ABC):
    """Writes a store to a binary stream in one format."""

    name: str
    suffix: str
    description: str

    @abstractmethod
    def write(self, store: Store, stream: IO[bytes]) -> None:
        """Serialise ``store`` to ``stream``."""


class RdfExporter(Exporter):
    """One of Oxigraph's RDF serialisations, dumped straight from the store."""

    def __init__(self, name: str, suffix: str, format_name: str, description: str) -> None:
        self.name, self.suffix, self.format_name, self.description = name, suffix, format_name, description

    def write(self, store: Store, stream: IO[bytes]) -> None:
        import pyoxigraph as ox

        if not isinstance(store, EmbeddedStore):
            raise UsageError("export reads a local --store; a remote endpoint has its own export")
        store.dump(stream, getattr(ox.RdfFormat, self.format_name))


class ProjectionExporter(Exporter):
    """The projection of the store (cached beside it), written by a function of the projection."""

    def __init__(
        self, name: str, suffix: str, description: str, write_projection: Callable[[Projection, IO[bytes]], None]
    ) -> None:
        self.name, self.suffix, self.description = name, suffix, description
        self._write_projection = write_projection

    def write(self, store: Store, stream: IO[bytes]) -> None:
        from kg.explore.projection import load_projection

        self._write_projection(load_projection(store), stream)


def write_graphml(projection: Projection, stream: IO[bytes]) -> None:
    """GraphML (Gephi, Cytoscape, yEd): the NetworkX view with its node and edge attributes."""
    import networkx as nx

    nx.write_graphml(projection.to_networkx(), stream)


def write_gexf(projection: Projection, stream: IO[bytes]) -> None:
    """GEXF 1.2 (Gephi): the NetworkX view with its node and edge attributes."""
    import networkx as nx

    nx.write_gexf(projection.to_networkx(), stream)


CSV_COLUMNS = (
    "source",
    "source_label",
    "source_type",
    "predicate",
    "target",
    "target_label",
    "target_type",
    "support",
    "evidence",
    "paper",
)
"""The columns of the ``csv`` export: one edge a row."""


def write_csv(projection: Projection, stream: IO[bytes]) -> None:
    """One edge a row (paper links, then relations), with both ends' labels and types, for pandas.

    Examples
    --------
    >>> import io
    >>> from kg.explore.projection import Projection
    >>> view = Projection.from_records(entities=[("e:a", "A", "Method")], papers=[("p:1", "A paper")],
    ...                                mentions=[("p:1", "e:a")])
    >>> out = io.BytesIO()
    >>> write_csv(view, out)
    >>> print(out.getvalue().decode(), end="")
    source,source_label,source_type,predicate,target,target_label,target_type,support,evidence,paper
    p:1,A paper,Paper,mentions,e:a,A,Method,1,,
    """
    text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)

    def paper(index: int) -> tuple[str, str, str]:
        return projection.papers[index], projection.paper_labels[index], "Paper"

    def entity(index: int) -> tuple[str, str, str]:
        return projection.entities[index], projection.labels[index], projection.types[index]

    for index, members in enumerate(projection.entities_of):
        for member in members:
            writer.writerow((*paper(index), "mentions", *entity(member), 1, "", ""))
    for index, member, predicate in projection.roles:
        writer.writerow((*paper(index), predicate, *entity(member), 1, "", ""))
    for relation in projection.relations:
        source = "" if relation.evidence_paper is None else projection.papers[relation.evidence_paper]
        writer.writerow(
            (
                *entity(relation.subject),
                relation.predicate,
                *entity(relation.object),
                relation.support,
                relation.evidence or "",
                source,
            )
        )
    text.flush()
    text.detach()


EXPORTERS: dict[str, Exporter] = {}


def register(exporter: Exporter) -> Exporter:
    """Make ``exporter`` available under its ``name``."""
    EXPORTERS[exporter.name] = exporter
    return exporter


for _args in (
    ("ttl", ".ttl", "TURTLE", "Turtle"),
    ("nt", ".nt", "N_TRIPLES", "N-Triples, one triple a line (what bulk loaders like best)"),
    ("nq", ".nq", "N_QUADS", "N-Quads"),
    ("trig", ".trig", "TRIG", "TriG"),
    ("jsonld", ".jsonld", "JSON_LD", "JSON-LD"),
    ("xml", ".rdf", "RDF_XML", "RDF/XML"),
):
    register(RdfExporter(*_args))
register(ProjectionExporter("graphml", ".graphml", "GraphML of the projection (Gephi, Cytoscape)", write_graphml))
register(ProjectionExporter("gexf", ".gexf", "GEXF of the projection (Gephi)", write_gexf))
register(ProjectionExporter("csv", ".csv", "the projection's edges, one a row (pandas)", write_csv))


def get_exporter(name: str) -> Exporter:
    """The exporter called ``name``.

    Examples
    --------
    >>> get_exporter("nt").suffix
    '.nt'
    >>> get_exporter("docx")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kg.errors.UsageError: unknown export format 'docx'; choose one of: ttl, nt, nq, trig, jsonld, xml, graphml, ...
    """
    try:
        return EXPORTERS[name]
    except KeyError:
        raise UsageError(f"unknown export format {name!r}; choose one of: {', '.join(EXPORTERS)}") from None
