"""The OWL ontology (ontology/kg.ttl) and the SHACL shapes (ontology/shapes.ttl)."""

from __future__ import annotations

from decimal import Decimal

import pyshacl
import pytest
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib import namespace as _rdflib_namespace
from rdflib.namespace import DCTERMS, OWL, PROV, RDF, RDFS, SKOS

from kg.namespace import DEFAULT_ONTOLOGY_IRI, ENTITY_RELATIONS, ENTITY_TYPES, ONTOLOGY_IRI, PAPER_LINKS
from kg.rdf import KG, entity_iri, paper_iri, statement_iri
from kg.resources import ONTOLOGY_DIR

KG_TTL = ONTOLOGY_DIR / "kg.ttl"
SHAPES_TTL = ONTOLOGY_DIR / "shapes.ttl"

# Open namespaces: the closed rdflib ones warn when pytest's doctest collector probes module globals.
SDO = Namespace(str(_rdflib_namespace.SDO))
XSD = Namespace(str(_rdflib_namespace.XSD))

# The ontology file spells the default IRIs; checks on the file use them.
ONTO = Namespace(DEFAULT_ONTOLOGY_IRI)
ONTOLOGY = URIRef(DEFAULT_ONTOLOGY_IRI.rstrip("#/"))

CLASSES = ("Paper", "Entity", "Statement", *ENTITY_TYPES)
OBJECT_PROPERTIES = (*PAPER_LINKS, *ENTITY_RELATIONS)
DATATYPE_PROPERTIES = ("sourceLocation", "evidence", "confidence", "sciercLabel", "support")
ALL_TERMS = (*CLASSES, *OBJECT_PROPERTIES, *DATATYPE_PROPERTIES)

# Data built with kg.namespace.KG only meets the shapes when the ontology IRI is the default.
needs_default_iri = pytest.mark.skipif(
    ONTOLOGY_IRI != DEFAULT_ONTOLOGY_IRI, reason="KG_ONTOLOGY_IRI overrides the ontology IRI"
)


@pytest.fixture(scope="module")
def onto() -> Graph:
    return Graph().parse(KG_TTL, format="turtle")


@pytest.fixture(scope="module")
def shapes() -> Graph:
    return Graph().parse(SHAPES_TTL, format="turtle")


# --------------------------------------------------------------------------- ontology


def test_ontology_parses_and_has_a_header(onto: Graph) -> None:
    assert len(onto) > 100
    assert (ONTOLOGY, RDF.type, OWL.Ontology) in onto
    assert onto.value(ONTOLOGY, OWL.versionInfo) == Literal("0.1.0")
    for p in (DCTERMS.title, DCTERMS.description, RDFS.comment):
        value = onto.value(ONTOLOGY, p)
        assert isinstance(value, Literal) and str(value).strip(), p


def test_prefix_is_the_ontology_iri(onto: Graph) -> None:
    assert dict(onto.namespaces())["kg"] == URIRef(DEFAULT_ONTOLOGY_IRI)


@pytest.mark.parametrize("name", ALL_TERMS)
def test_term_is_declared_with_one_english_label_and_comment(onto: Graph, name: str) -> None:
    term = ONTO[name]
    if name in CLASSES:
        expected = OWL.Class
    elif name in OBJECT_PROPERTIES:
        expected = OWL.ObjectProperty
    else:
        expected = OWL.DatatypeProperty
    assert (term, RDF.type, expected) in onto
    for p in (RDFS.label, RDFS.comment):
        values = list(onto.objects(term, p))
        assert len(values) == 1, (name, p, values)
        assert isinstance(values[0], Literal) and values[0].language == "en", (name, p)
        assert str(values[0]).strip()
    assert (term, RDFS.isDefinedBy, ONTOLOGY) in onto


def test_every_kg_term_used_is_declared(onto: Graph) -> None:
    used = {t for triple in onto for t in triple if isinstance(t, URIRef) and str(t).startswith(str(ONTO))}
    assert used == {ONTO[n] for n in ALL_TERMS}


def test_class_hierarchy(onto: Graph) -> None:
    assert (ONTO.Paper, RDFS.subClassOf, SDO.ScholarlyArticle) in onto
    assert (ONTO.Paper, RDFS.subClassOf, PROV.Entity) in onto
    assert (ONTO.Entity, RDFS.subClassOf, SKOS.Concept) in onto
    assert (ONTO.Statement, RDFS.subClassOf, RDF.Statement) in onto
    assert (ONTO.Statement, RDFS.subClassOf, PROV.Entity) in onto
    for a in ENTITY_TYPES:
        assert (ONTO[a], RDFS.subClassOf, ONTO.Entity) in onto
        for b in ENTITY_TYPES:
            if a != b:
                assert (ONTO[a], OWL.disjointWith, ONTO[b]) in onto, (a, b)


def test_property_axioms(onto: Graph) -> None:
    for name in PAPER_LINKS:
        assert onto.value(ONTO[name], RDFS.domain) == ONTO.Paper
        if name != "mentions":
            assert (ONTO[name], RDFS.subPropertyOf, ONTO.mentions) in onto
    assert onto.value(ONTO.evaluatesOn, RDFS.range) == ONTO.Dataset
    for name in ENTITY_RELATIONS:
        # Ranges stay broad: a narrower range would assert types under RDFS inference.
        assert onto.value(ONTO[name], RDFS.domain) == ONTO.Entity
        assert onto.value(ONTO[name], RDFS.range) == ONTO.Entity
    assert (ONTO.comparedWith, RDF.type, OWL.SymmetricProperty) in onto
    assert (ONTO.conjunction, RDF.type, OWL.SymmetricProperty) in onto
    assert (ONTO.outperforms, RDFS.subPropertyOf, ONTO.comparedWith) in onto
    assert (ONTO.hyponymOf, RDFS.subPropertyOf, SKOS.broader) in onto
    assert onto.value(ONTO.confidence, RDFS.range) == XSD.decimal
    assert onto.value(ONTO.support, RDFS.range) == XSD.integer
    assert onto.value(ONTO.sourceLocation, RDFS.domain) == ONTO.Paper
    assert onto.value(ONTO.evidence, RDFS.domain) == ONTO.Statement


@pytest.mark.parametrize(
    "name, label",
    [
        ("usedFor", "USED-FOR"),
        ("evaluatedOn", "EVALUATE-FOR"),
        ("comparedWith", "COMPARE"),
        ("outperforms", "COMPARE"),
        ("partOf", "PART-OF"),
        ("hyponymOf", "HYPONYM-OF"),
        ("featureOf", "FEATURE-OF"),
        ("conjunction", "CONJUNCTION"),
    ],
)
def test_relation_comment_names_its_scierc_label(onto: Graph, name: str, label: str) -> None:
    assert label in str(onto.value(ONTO[name], RDFS.comment))


# --------------------------------------------------------------------------- shapes


def test_shapes_parse(shapes: Graph) -> None:
    SH = Namespace("http://www.w3.org/ns/shacl#")
    targets = set(shapes.objects(None, SH.targetClass))
    assert {ONTO.Paper, ONTO.Statement, *(ONTO[t] for t in ENTITY_TYPES)} <= targets


def test_shapes_use_only_declared_terms(onto: Graph, shapes: Graph) -> None:
    used = {t for triple in shapes for t in triple if isinstance(t, URIRef) and str(t).startswith(str(ONTO))}
    assert used <= {ONTO[n] for n in ALL_TERMS}


def valid_graph() -> Graph:
    """Two papers, three entities, one relation with its statement."""
    g = Graph()
    p1, p2 = paper_iri("2301.00001"), paper_iri("abc123")
    lora, glue, acc = entity_iri("lora"), entity_iri("glue"), entity_iri("accuracy")
    st = statement_iri("lora-evaluatedOn-glue")

    g.add((p1, RDF.type, KG.Paper))
    g.add((p1, DCTERMS.identifier, Literal("2301.00001")))
    g.add((p1, DCTERMS.title, Literal("Low-Rank Adaptation of Large Language Models")))
    g.add((p1, DCTERMS.abstract, Literal("We propose LoRA. We evaluate LoRA on GLUE.")))
    g.add((p1, DCTERMS.creator, Literal("Edward J. Hu")))
    g.add((p1, DCTERMS.creator, Literal("Yelong Shen")))
    g.add((p1, DCTERMS.date, Literal("2021-06-17", datatype=XSD.date)))
    g.add((p1, DCTERMS.subject, Literal("cs.CL")))
    g.add((p1, SDO.url, URIRef("https://arxiv.org/abs/2106.09685")))
    g.add((p1, KG.sourceLocation, Literal("seeds/papers.jsonl:1")))
    g.add((p1, KG.sourceLocation, Literal("seeds/daily.txt:42")))
    g.add((p1, KG.mentions, lora))
    g.add((p1, KG.proposes, lora))
    g.add((p1, KG.mentions, glue))
    g.add((p1, KG.evaluatesOn, glue))
    g.add((p1, KG.mentions, acc))

    g.add((p2, RDF.type, KG.Paper))
    g.add((p2, DCTERMS.identifier, Literal("abc123")))
    g.add((p2, DCTERMS.abstract, Literal("LoRA is evaluated on GLUE with accuracy.")))
    g.add((p2, DCTERMS.date, Literal("2023", datatype=XSD.gYear)))
    g.add((p2, KG.sourceLocation, Literal("seeds/other.txt:7")))
    g.add((p2, KG.uses, lora))
    g.add((p2, KG.mentions, acc))

    for node, cls, name, aliases in (
        (lora, KG.Method, "Low-Rank Adaptation", ["LoRA"]),
        (glue, KG.Dataset, "GLUE", []),
        (acc, KG.Metric, "accuracy", []),
    ):
        g.add((node, RDF.type, cls))
        g.add((node, RDFS.label, Literal(name)))
        g.add((node, SKOS.prefLabel, Literal(name)))
        for a in aliases:
            g.add((node, SKOS.altLabel, Literal(a)))
    g.add((lora, RDF.type, KG.Entity))  # an extra explicit kg:Entity type is allowed
    g.add((lora, KG.support, Literal(2)))

    g.add((lora, KG.evaluatedOn, glue))
    g.add((lora, KG.comparedWith, acc))  # no statement needed for a bare triple
    g.add((st, RDF.type, KG.Statement))
    g.add((st, RDF.subject, lora))
    g.add((st, RDF.predicate, KG.evaluatedOn))
    g.add((st, RDF.object, glue))
    g.add((st, PROV.wasDerivedFrom, p1))
    g.add((st, PROV.wasDerivedFrom, p2))
    g.add((st, KG.evidence, Literal("We evaluate LoRA on GLUE.")))
    g.add((st, KG.confidence, Literal(Decimal("0.8"))))
    g.add((st, KG.sciercLabel, Literal("EVALUATE-FOR")))
    g.add((st, KG.support, Literal(2)))
    return g


def validate(data: Graph, shapes: Graph, **kw) -> tuple[bool, str]:
    conforms, _report, text = pyshacl.validate(data, shacl_graph=shapes, advanced=True, **kw)
    return conforms, text


@needs_default_iri
def test_valid_graph_conforms(shapes: Graph) -> None:
    conforms, text = validate(valid_graph(), shapes)
    assert conforms, text


@needs_default_iri
def test_valid_graph_conforms_with_ontology_and_rdfs_inference(onto: Graph, shapes: Graph) -> None:
    conforms, text = validate(valid_graph(), shapes, ont_graph=onto, inference="rdfs")
    assert conforms, text


@needs_default_iri
def test_typed_string_literals_are_accepted(shapes: Graph) -> None:
    g = valid_graph()
    for s, p, o in list(g):
        if isinstance(o, Literal) and o.datatype is None and o.language is None:
            g.remove((s, p, o))
            g.add((s, p, Literal(str(o), datatype=XSD.string)))
    conforms, text = validate(g, shapes)
    assert conforms, text


P1 = paper_iri("2301.00001")
LORA = entity_iri("lora")
GLUE = entity_iri("glue")
ST = statement_iri("lora-evaluatedOn-glue")


def _drop(*pattern):
    return lambda g: g.remove(pattern)


def _add(*triples):
    def mutate(g: Graph) -> None:
        for t in triples:
            g.add(t)

    return mutate


def _replace(s, p, o):
    def mutate(g: Graph) -> None:
        g.remove((s, p, None))
        g.add((s, p, o))

    return mutate


# case: (mutation of the valid graph, a fragment of the expected violation message)
BROKEN = {
    "paper without abstract": (_drop(P1, DCTERMS.abstract, None), "dcterms:abstract"),
    "paper with empty abstract": (_replace(P1, DCTERMS.abstract, Literal("  ")), "dcterms:abstract"),
    "paper with two abstracts": (_add((P1, DCTERMS.abstract, Literal("Another."))), "dcterms:abstract"),
    "paper without identifier": (_drop(P1, DCTERMS.identifier, None), "dcterms:identifier"),
    "paper with two identifiers": (_add((P1, DCTERMS.identifier, Literal("x"))), "dcterms:identifier"),
    "paper without source location": (_drop(P1, KG.sourceLocation, None), "kg:sourceLocation"),
    "source location without line": (
        _add((P1, KG.sourceLocation, Literal("seeds/a.txt"))),
        "kg:sourceLocation",
    ),
    "paper with two titles": (_add((P1, DCTERMS.title, Literal("Another title"))), "dcterms:title"),
    "paper date as a plain string": (_replace(P1, DCTERMS.date, Literal("2021")), "dcterms:date"),
    "mentions an untyped node": (_add((P1, KG.mentions, entity_iri("untyped"))), "kg:mentions"),
    "proposes a literal": (_add((P1, KG.proposes, Literal("LoRA"))), "kg:proposes"),
    "evaluates on a method": (_add((P1, KG.evaluatesOn, LORA)), "kg:evaluatesOn"),
    "entity with two types": (_add((LORA, RDF.type, KG.Task)), "exactly one of the types"),
    "entity typed only kg:Entity": (_replace(GLUE, RDF.type, KG.Entity), "exactly one of the types"),
    "entity without label": (_drop(LORA, RDFS.label, None), "rdfs:label"),
    "entity with two labels": (_add((LORA, RDFS.label, Literal("LoRA"))), "rdfs:label"),
    "entity without prefLabel": (_drop(GLUE, SKOS.prefLabel, None), "skos:prefLabel"),
    "entity with language-tagged label": (
        _replace(GLUE, RDFS.label, Literal("GLUE", lang="en")),
        "rdfs:label",
    ),
    "prefLabel differs from label": (_replace(GLUE, SKOS.prefLabel, Literal("glue")), "skos:prefLabel"),
    "relation to an untyped node": (_add((LORA, KG.usedFor, entity_iri("untyped"))), "kg:usedFor"),
    "statement without evidence": (_drop(ST, KG.evidence, None), "kg:evidence"),
    "statement with two evidences": (_add((ST, KG.evidence, Literal("Another."))), "kg:evidence"),
    "statement without subject": (_drop(ST, RDF.subject, None), "rdf:subject"),
    "statement with two objects": (_add((ST, RDF.object, entity_iri("accuracy"))), "rdf:object"),
    "statement without predicate": (_drop(ST, RDF.predicate, None), "rdf:predicate"),
    "statement with a foreign predicate": (_replace(ST, RDF.predicate, KG.mentions), "rdf:predicate"),
    "statement without provenance": (_drop(ST, PROV.wasDerivedFrom, None), "prov:wasDerivedFrom"),
    "statement derived from a non-paper": (_add((ST, PROV.wasDerivedFrom, LORA)), "prov:wasDerivedFrom"),
    "confidence above 1": (_replace(ST, KG.confidence, Literal(Decimal("1.5"))), "kg:confidence"),
    "confidence below 0": (_replace(ST, KG.confidence, Literal(Decimal("-0.1"))), "kg:confidence"),
    "confidence as a double": (_replace(ST, KG.confidence, Literal(0.5)), "kg:confidence"),
    "unknown scierc label": (_replace(ST, KG.sciercLabel, Literal("USED_FOR")), "kg:sciercLabel"),
    "support zero": (_replace(ST, KG.support, Literal(0)), "kg:support"),
    "statement of an unasserted triple": (_drop(LORA, KG.evaluatedOn, GLUE), "also asserted"),
    "statement that is a blank node": (
        lambda g: [g.add((BNode("b"), p, o)) for p, o in list(g.predicate_objects(ST))],
        "sh:IRI",
    ),
}


@needs_default_iri
@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_graph_does_not_conform(shapes: Graph, case: str) -> None:
    mutate, expected = BROKEN[case]
    g = valid_graph()
    mutate(g)
    conforms, text = validate(g, shapes)
    assert not conforms, case
    assert expected in text, text
