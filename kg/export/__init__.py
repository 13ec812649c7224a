"""`kg export`: the graph in a triple-store format, by name. Each format is a small exporter.

RDF formats are written by Oxigraph's serialisers straight from the store, streaming,
so exports scale with the store rather than with memory; ``with_ontology`` adds the ontology and the
vocabularies (:mod:`kg.export.schema`), in named graphs of their own where the format has them.
:mod:`kg.export.push` sends the graph to a triple store instead. ``graphml``, ``gexf`` and ``csv``
write the projection (:mod:`kg.explore.projection`: entities and papers as nodes, paper links and
relations as edges with predicate, support and evidence) for Gephi, Cytoscape and pandas.

Writing to a file, :func:`export_target` picks the format from the file's suffix (``.ttl``,
``.nt``, ``.json`` for JSON-LD, ...) unless one is named; a further ``.gz`` compresses whatever
format it follows (``graph.nt.gz``). A suffix that names no format is refused, rather than
guessed.

Examples
--------
>>> target = export_target("graph.nt.gz")
>>> target.exporter.name, target.compressed
('nt', True)
>>> export_target("graph.json").exporter.name
'jsonld'
>>> export_target("graph.parquet")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kg.errors.UsageError: cannot tell the export format of 'graph.parquet' from its suffix: use .ttl, .nt, ...
"""

from __future__ import annotations

import csv
import gzip
import io
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import IO, TYPE_CHECKING

from kg.errors import UsageError
from kg.files import write_atomically  # noqa: F401  (re-exported: exports are written with it)
from kg.store import EmbeddedStore, Store

if TYPE_CHECKING:
    from kg.explore.projection import Projection


class Exporter(ABC):
    """Writes a store to a binary stream in one format; ``suffixes`` are the file suffixes that
    name the format, the usual one first."""

    name: str
    suffixes: tuple[str, ...]
    description: str

    @property
    def suffix(self) -> str:
        """The usual file suffix of the format."""
        return self.suffixes[0]

    @abstractmethod
    def write(self, store: Store, stream: IO[bytes], *, with_ontology: bool = False) -> None:
        """Serialise ``store`` to ``stream``; with ``with_ontology``, the ontology and vocabularies too
        (:mod:`kg.export.schema`)."""


class RdfExporter(Exporter):
    """One of Oxigraph's RDF serialisations, dumped straight from the store."""

    def __init__(self, name: str, suffixes: tuple[str, ...], format_name: str, description: str) -> None:
        self.name, self.suffixes, self.format_name, self.description = name, suffixes, format_name, description

    def write(self, store: Store, stream: IO[bytes], *, with_ontology: bool = False) -> None:
        import pyoxigraph as ox

        if not isinstance(store, EmbeddedStore):
            raise UsageError("export reads a local --store; a remote endpoint has its own export")
        rdf_format = getattr(ox.RdfFormat, self.format_name)
        if not with_ontology:
            store.dump(stream, rdf_format)
            return
        from itertools import chain

        from kg.export.schema import schema_quads, schema_triples
        from kg.namespace import PREFIXES

        data = store.ox.quads_for_pattern(None, None, None, ox.DefaultGraph())
        if rdf_format.supports_datasets:
            items = chain(data, schema_quads())  # the schema in named graphs of its own
        else:
            items = chain((quad.triple for quad in data), schema_triples())
        prefixes = dict(PREFIXES) if rdf_format.name in ("Turtle", "TriG", "RDF/XML") else None  # as dump() binds them
        ox.serialize(items, stream, rdf_format, prefixes=prefixes)


class ProjectionExporter(Exporter):
    """The projection of the store (cached beside it), written by a function of the projection."""

    def __init__(
        self,
        name: str,
        suffixes: tuple[str, ...],
        description: str,
        write_projection: Callable[[Projection, IO[bytes]], None],
    ) -> None:
        self.name, self.suffixes, self.description = name, suffixes, description
        self._write_projection = write_projection

    def write(self, store: Store, stream: IO[bytes], *, with_ontology: bool = False) -> None:
        from kg.explore.projection import load_projection

        if with_ontology:
            raise UsageError(f"--with-ontology goes with an RDF format, not {self.name}")

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
    ("ttl", (".ttl",), "TURTLE", "Turtle"),
    ("nt", (".nt",), "N_TRIPLES", "N-Triples, one triple a line (what bulk loaders like best)"),
    ("nq", (".nq",), "N_QUADS", "N-Quads"),
    ("trig", (".trig",), "TRIG", "TriG"),
    ("jsonld", (".jsonld", ".json"), "JSON_LD", "JSON-LD"),
    ("xml", (".rdf", ".xml"), "RDF_XML", "RDF/XML"),
):
    register(RdfExporter(*_args))
register(ProjectionExporter("graphml", (".graphml",), "GraphML of the projection (Gephi, Cytoscape)", write_graphml))
register(ProjectionExporter("gexf", (".gexf",), "GEXF of the projection (Gephi)", write_gexf))
register(ProjectionExporter("csv", (".csv",), "the projection's edges, one a row (pandas)", write_csv))

COMPRESSED = ".gz"
"""The suffix, after a format's, of a gzip-compressed export."""


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


@dataclass(frozen=True)
class ExportTarget:
    """How to write an export file: in which format, and whether gzip-compressed."""

    exporter: Exporter
    compressed: bool = False

    def write(self, store: Store, stream: IO[bytes], *, with_ontology: bool = False) -> None:
        """Serialise ``store`` to ``stream``, through gzip if :attr:`compressed`."""
        if not self.compressed:
            self.exporter.write(store, stream, with_ontology=with_ontology)
            return
        # No name and no time in the gzip header: the same graph gives the same bytes.
        with gzip.GzipFile(filename="", mode="wb", fileobj=stream, mtime=0) as packed:
            self.exporter.write(store, packed, with_ontology=with_ontology)  # type: ignore[arg-type]


def export_target(path: str | os.PathLike[str], format: str | None = None) -> ExportTarget:
    """How to export to the file ``path``: in ``format`` if given, else in the format its suffix names;
    gzip-compressed when its name ends in ``.gz``.

    Raises
    ------
    kg.errors.UsageError
        For an unknown ``format``, or (without one) a suffix that names no format.
    """
    name = PurePath(path).name
    compressed = name.lower().endswith(COMPRESSED)
    if format is not None:
        return ExportTarget(get_exporter(format.lower()), compressed)
    inner = PurePath(name[: -len(COMPRESSED)] if compressed else name).suffix.lower()
    for exporter in EXPORTERS.values():
        if inner in exporter.suffixes:
            return ExportTarget(exporter, compressed)
    known = ", ".join(suffix for exporter in EXPORTERS.values() for suffix in exporter.suffixes)
    raise UsageError(
        f"cannot tell the export format of {str(path)!r} from its suffix: use {known}, each optionally "
        f"followed by {COMPRESSED} to compress; or name the format ({', '.join(EXPORTERS)})"
    )
