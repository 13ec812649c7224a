"""`kg export`: the graph in a triple-store format, by name. Each format is a small exporter.

RDF formats are written by Oxigraph's serialisers straight from the store, streaming,
so exports scale with the store rather than with memory.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import IO

from kg.errors import UsageError
from kg.store import EmbeddedStore, Store


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


def get_exporter(name: str) -> Exporter:
    """The exporter called ``name``.

    Examples
    --------
    >>> get_exporter("nt").suffix
    '.nt'
    >>> get_exporter("docx")
    Traceback (most recent call last):
    ...
    kg.errors.UsageError: unknown export format 'docx'; choose one of: ttl, nt, nq, trig, jsonld, xml
    """
    try:
        return EXPORTERS[name]
    except KeyError:
        raise UsageError(f"unknown export format {name!r}; choose one of: {', '.join(EXPORTERS)}") from None
