"""A small graph with relations and statements, written straight into a store (no NLP).

Shared by the exploration tests (paths, neighbours, related concepts, exports, the
picture): ``from test_paths_graphs import relations_store``. Relations are stored as the
ontology says: the plain triple, plus one ``kg:Statement`` per paper with its evidence.

The graph::

    p1  "We use CLIP for zero-shot classification on ImageNet. CLIP reaches high accuracy."
        CLIP usedFor zero-shot classification; zero-shot classification evaluatedOn ImageNet
    p2  "This work presents Adaptive Return-conditioned Policy (ARP), built on CLIP. ..."
        CLIP partOf ARP; ARP addresses goal misgeneralization
    p3  "Adversarial training suffers from robust overfitting. ..."   (mentions only)
    p4  "CLIP is used for zero-shot classification."                  CLIP usedFor zsc again
    p5  "We study quantum annealing."                                  (an island)
"""
from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SKOS

from kg.rdf import KG, entity_iri, paper_iri, statement_iri
from kg.store import open_store

ENTITIES = {
    "clip": ("CLIP", "Method", ["Contrastive Language-Image Pre-training"]),
    "zsc": ("zero-shot classification", "Task", []),
    "imagenet": ("ImageNet", "Dataset", []),
    "accuracy": ("accuracy", "Metric", []),
    "arp": ("Adaptive Return-conditioned Policy", "Method", ["ARP"]),
    "gm": ("goal misgeneralization", "Phenomenon", []),
    "at": ("adversarial training", "Method", []),
    "ro": ("robust overfitting", "Phenomenon", []),
    "qa": ("quantum annealing", "Method", []),
}
PAPERS = {
    "p1": ("We use CLIP for zero-shot classification on ImageNet. CLIP reaches high accuracy.",
           ["clip", "zsc", "imagenet", "accuracy"]),
    "p2": ("This work presents Adaptive Return-conditioned Policy (ARP), built on CLIP. "
           "Our ARP effectively mitigates the goal misgeneralization.", ["arp", "clip", "gm"]),
    "p3": ("Adversarial training suffers from robust overfitting. We also report robust accuracy.",
           ["at", "ro", "accuracy"]),
    "p4": ("CLIP is used for zero-shot classification.", ["clip", "zsc"]),
    "p5": ("We study quantum annealing.", ["qa"]),
}
STATEMENTS = [  # subject, predicate, object, paper, evidence, confidence
    ("clip", "usedFor", "zsc", "p1", "We use CLIP for zero-shot classification on ImageNet.", "0.9"),
    ("zsc", "evaluatedOn", "imagenet", "p1", "We use CLIP for zero-shot classification on ImageNet.", "0.7"),
    ("clip", "partOf", "arp", "p2", "This work presents Adaptive Return-conditioned Policy (ARP), built on CLIP.", "0.6"),
    ("arp", "addresses", "gm", "p2", "Our ARP effectively mitigates the goal misgeneralization.", "0.8"),
    ("clip", "usedFor", "zsc", "p4", "CLIP is used for zero-shot classification.", "0.95"),
]


def entity(key: str) -> URIRef:
    return entity_iri(key)


def graph_triples() -> list[tuple]:
    from rdflib.namespace import XSD  # not at module level: pytest's collection trips over its closed namespace

    triples: list[tuple] = []
    for key, (label, kind, aliases) in ENTITIES.items():
        node = entity(key)
        triples += [(node, RDF.type, KG[kind]), (node, RDFS.label, Literal(label)), (node, SKOS.prefLabel, Literal(label))]
        triples += [(node, SKOS.altLabel, Literal(alias)) for alias in aliases]
    for key, (abstract, mentioned) in PAPERS.items():
        paper = paper_iri(key)
        triples += [(paper, RDF.type, KG.Paper), (paper, DCTERMS.identifier, Literal(key)),
                    (paper, DCTERMS.title, Literal(f"Paper {key}")), (paper, DCTERMS.abstract, Literal(abstract))]
        triples += [(paper, KG.mentions, entity(e)) for e in mentioned]
    triples.append((paper_iri("p2"), KG.proposes, entity("arp")))
    for number, (subject, predicate, obj, paper, evidence, confidence) in enumerate(STATEMENTS):
        statement = statement_iri(f"s{number}")
        triples += [(entity(subject), KG[predicate], entity(obj)),
                    (statement, RDF.type, KG.Statement), (statement, RDF.subject, entity(subject)),
                    (statement, RDF.predicate, KG[predicate]), (statement, RDF.object, entity(obj)),
                    (statement, PROV.wasDerivedFrom, paper_iri(paper)), (statement, KG.evidence, Literal(evidence)),
                    (statement, KG.confidence, Literal(confidence, datatype=XSD.decimal)),
                    (statement, KG.sciercLabel, Literal("USED-FOR"))]
    return triples


def write_relations_store(path: Path) -> Path:
    with open_store(path, create=True) as store:
        store.write(graph_triples())
    return path


@pytest.fixture(scope="session")
def relations_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The graph above in a store; read-only for the tests (copy it to change it)."""
    return write_relations_store(tmp_path_factory.mktemp("relations") / "store")


def test_the_fixture_holds_what_it_says(relations_store: Path) -> None:
    with open_store(relations_store) as store:
        (count,) = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s a kg:Statement }").rows[0]
        (papers,) = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?p a kg:Paper }").rows[0]
    assert (int(count), int(papers)) == (len(STATEMENTS), len(PAPERS))
