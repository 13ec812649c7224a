"""`kg validate`: SHACL validation of the graph against ontology/shapes.ttl (pySHACL)."""

from __future__ import annotations

from dataclasses import dataclass

from kg.resources import ONTOLOGY_FILE, SHAPES_FILE
from kg.store import Store


@dataclass(frozen=True)
class ValidationReport:
    conforms: bool
    text: str


def validate(store: Store) -> ValidationReport:
    """Validate the store's default graph, with the ontology for class hierarchy."""
    import pyshacl
    from rdflib import Graph

    shapes = Graph().parse(SHAPES_FILE)
    ontology = Graph().parse(ONTOLOGY_FILE)
    data = Graph()
    data += store.graph  # pySHACL walks the graph many times; an in-memory copy keeps that fast
    conforms, _, text = pyshacl.validate(
        data, shacl_graph=shapes, ont_graph=ontology, inference="none", allow_warnings=True
    )
    summary = "the graph conforms to ontology/shapes.ttl" if conforms else text.strip()
    return ValidationReport(conforms=bool(conforms), text=summary)
