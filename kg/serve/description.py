"""The service description (SPARQL 1.1 Service Description) that ``GET /sparql`` without a query returns.

It names the endpoint, the languages it takes (SPARQL 1.1 Query, and Update when the server takes
updates), the result formats it writes, and its dataset: the store's default graph, with the
store's named graphs available to ``GRAPH``.

Examples
--------
>>> result = description("http://127.0.0.1:7878/sparql", updates=False)
>>> [str(o).rsplit("#", 1)[1] for _, p, o in result.triples if p.endswith("supportedLanguage")]
['SPARQL11Query']
"""

from __future__ import annotations

from rdflib import BNode, URIRef
from rdflib.namespace import RDF

from kg.namespace import ENTAILMENT_IRI, FORMATS_IRI, SD_IRI
from kg.query import Result

RESULT_FORMATS = (
    "SPARQL_Results_JSON",
    "SPARQL_Results_XML",
    "SPARQL_Results_CSV",
    "SPARQL_Results_TSV",
    "Turtle",
    "N-Triples",
    "JSON-LD",
    "RDF_XML",
)
"""The formats of :mod:`kg.serve.negotiation`, by their names in the W3C's formats namespace."""


def description(endpoint: str, *, updates: bool) -> Result:
    """The service description of the endpoint at the URL ``endpoint``, as a graph result."""

    def sd(name: str) -> URIRef:
        return URIRef(SD_IRI + name)

    service, dataset, graph = BNode("service"), BNode("dataset"), BNode("defaultGraph")
    languages = ["SPARQL11Query"] + (["SPARQL11Update"] if updates else [])
    return Result.from_triples(
        [
            (service, RDF.type, sd("Service")),
            (service, sd("endpoint"), URIRef(endpoint)),
            *((service, sd("supportedLanguage"), sd(language)) for language in languages),
            *((service, sd("resultFormat"), URIRef(FORMATS_IRI + name)) for name in RESULT_FORMATS),
            (service, sd("defaultEntailmentRegime"), URIRef(ENTAILMENT_IRI + "Simple")),
            (service, sd("defaultDataset"), dataset),
            (dataset, RDF.type, sd("Dataset")),
            (dataset, sd("defaultGraph"), graph),
            (graph, RDF.type, sd("Graph")),
        ]
    )
