"""The schema that goes with the data, for ``kg export --with-ontology`` and ``kg push --with-ontology``:
the OWL ontology (``ontology/kg.ttl``) and the curated SKOS vocabularies (``ontology/vocab/*.ttl``).

Each is one graph, named by the IRI of its ``owl:Ontology`` or ``skos:ConceptScheme``; in N-Quads and
TriG each goes to a named graph of that name, in the triple formats into the same graph as the data.
Blank nodes, should a file ever have any, are named by the file and their order of appearance, so the
same files give the same output.

Examples
--------
>>> [graph.name for graph in schema_graphs()]  # doctest: +NORMALIZE_WHITESPACE
['https://w3id.org/abstract-kg/ontology', 'https://w3id.org/abstract-kg/vocab/datasets',
 'https://w3id.org/abstract-kg/vocab/methods', 'https://w3id.org/abstract-kg/vocab/metrics',
 'https://w3id.org/abstract-kg/vocab/phenomena', 'https://w3id.org/abstract-kg/vocab/tasks']
>>> len(schema_graphs()[0].triples()) > 100
True
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from kg.namespace import OWL_IRI, RDF_IRI, SKOS_IRI
from kg.resources import ONTOLOGY_FILE, VOCABULARY_DIR

if TYPE_CHECKING:
    import pyoxigraph

_NAMING_CLASSES = (OWL_IRI + "Ontology", SKOS_IRI + "ConceptScheme")


@dataclass(frozen=True)
class SchemaGraph:
    """One schema file: the ontology or a vocabulary, with the IRI that names its graph."""

    name: str
    path: Path

    def triples(self) -> tuple[pyoxigraph.Triple, ...]:
        """The file's triples, in the order of the file."""
        return _read(self.path)

    def quads(self) -> Iterator[pyoxigraph.Quad]:
        """The file's triples in the named graph :attr:`name`."""
        import pyoxigraph as ox

        graph = ox.NamedNode(self.name)
        for triple in self.triples():
            yield ox.Quad(triple.subject, triple.predicate, triple.object, graph)


@cache
def schema_graphs() -> tuple[SchemaGraph, ...]:
    """The ontology, then each vocabulary in order of file name."""
    return tuple(
        SchemaGraph(_graph_name(path), path) for path in (ONTOLOGY_FILE, *sorted(VOCABULARY_DIR.glob("*.ttl")))
    )


def schema_triples() -> Iterator[pyoxigraph.Triple]:
    """Every triple of the schema, graph after graph."""
    for graph in schema_graphs():
        yield from graph.triples()


def schema_quads() -> Iterator[pyoxigraph.Quad]:
    """Every triple of the schema in the named graph of its file."""
    for graph in schema_graphs():
        yield from graph.quads()


@cache
def _read(path: Path) -> tuple[pyoxigraph.Triple, ...]:
    return tuple(_parse(path))


def _parse(path: Path) -> Iterator[pyoxigraph.Triple]:
    """The triples of the Turtle file ``path``, its blank nodes named ``{file}{n}`` by first appearance."""
    import pyoxigraph as ox

    names: dict[str, ox.BlankNode] = {}

    def stable(term):
        if isinstance(term, ox.BlankNode):
            return names.setdefault(term.value, ox.BlankNode(f"{path.stem}{len(names)}"))
        return term

    for quad in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
        yield ox.Triple(stable(quad.subject), quad.predicate, stable(quad.object))


def _graph_name(path: Path) -> str:
    """The IRI of the one ``owl:Ontology`` or ``skos:ConceptScheme`` that ``path`` describes."""
    named = {
        triple.subject.value
        for triple in _read(path)
        if triple.predicate.value == RDF_IRI + "type" and triple.object.value in _NAMING_CLASSES
    }
    if len(named) != 1:
        raise ValueError(f"{path}: describes {len(named)} ontologies or concept schemes, not one")
    return named.pop()
