"""The store layer: backends by name, values bound rather than written into queries, and every query."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SKOS

from kg.errors import StoreError, UsageError
from kg.rdf import KG, entity_iri, paper_iri, statement_iri
from kg.store import BACKENDS, EmbeddedStore, EndpointStore, open_store, queries
from kg.store.endpoint import with_values
from kg.store.select import select_strings

# A label that pasting would have to escape, and one that would end a string literal early.
ODD = 'the "quoted" \\ back-slashed model'


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "s"
    clip, odd, cifar = entity_iri("clip"), entity_iri("odd"), entity_iri("cifar-10")
    paper, statement = paper_iri("p1"), statement_iri("s1")
    triples = [
        (clip, RDF.type, KG.Method),
        (clip, RDFS.label, Literal("CLIP")),
        (clip, SKOS.altLabel, Literal("Contrastive Language-Image Pre-training")),
        (odd, RDF.type, KG.Method),
        (odd, RDFS.label, Literal(ODD)),
        (cifar, RDF.type, KG.Dataset),
        (cifar, RDFS.label, Literal("CIFAR-10")),
        (paper, RDF.type, KG.Paper),
        (paper, DCTERMS.identifier, Literal("p1")),
        (paper, DCTERMS.abstract, Literal("We evaluate CLIP on CIFAR-10.")),
        (paper, KG.mentions, clip),
        (paper, KG.mentions, cifar),
        (paper, KG.proposes, clip),
        (clip, KG.evaluatedOn, cifar),
        (statement, RDF.type, KG.Statement),
        (statement, RDF.subject, clip),
        (statement, RDF.predicate, KG.evaluatedOn),
        (statement, RDF.object, cifar),
        (statement, PROV.wasDerivedFrom, paper),
        (statement, KG.evidence, Literal("We evaluate CLIP on CIFAR-10.")),
    ]
    with open_store(path, create=True) as store:
        store.write(triples)
    return path


@pytest.fixture
def store(store_path: Path):
    with open_store(store_path) as opened:
        yield opened


def test_backends_are_looked_up_by_name(store_path: Path) -> None:
    assert {"embedded": EmbeddedStore, "endpoint": EndpointStore} == BACKENDS
    with open_store(store_path) as opened:
        assert isinstance(opened, EmbeddedStore) and not opened.writable
    assert isinstance(open_store(endpoint="http://127.0.0.1:9/sparql"), EndpointStore)
    with pytest.raises(UsageError, match="read-only"):
        open_store(endpoint="http://127.0.0.1:9/sparql", write=True)
    with pytest.raises(UsageError, match="http"):
        open_store(endpoint="ftp://example.org/sparql")


def test_a_directory_that_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no graph store here"):
        open_store(tmp_path / "none")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "file").write_text("x")
    with pytest.raises(StoreError, match="not a kg store"):
        open_store(tmp_path / "full", create=True)


def test_every_query_runs(store) -> None:
    texts = [
        value
        for name, value in vars(queries).items()
        if name.isupper() and isinstance(value, str) and name not in ("ALIAS_SEPARATOR", *queries.UPDATES)
    ]
    assert len(texts) >= 15
    for text in texts:
        store.query(text)


def test_every_update_runs(tmp_path: Path) -> None:
    with open_store(tmp_path / "s", create=True) as scratch:
        for name in queries.UPDATES:
            scratch.ox.update(getattr(queries, name))


def test_text_is_bound_not_pasted(store) -> None:
    for needle in ('"quoted" \\', "}"):
        rows = store.query(queries.FIND_ENTITIES, bindings={"needle": Literal(needle)}).rows
        assert [str(row[1]) for row in rows] == ([ODD] if needle != "}" else [])


def test_an_entity_bound_by_iri(store) -> None:
    clip = {"entity": URIRef(entity_iri("clip"))}
    (row,) = store.query(queries.ENTITIES, bindings=clip).rows
    assert (str(row[2]), queries.split_aliases(row[3])) == ("CLIP", ["Contrastive Language-Image Pre-training"])
    (paper,) = store.query(queries.ENTITY_PAPERS, bindings=clip).rows
    assert paper[1] == paper_iri("p1") and paper[2].toPython() is True
    (link,) = store.query(queries.ENTITY_LINKS, bindings=clip).rows
    assert (str(link[2]), str(link[4]), int(link[6])) == ("out", "CIFAR-10", 1)


def test_select_strings_binds_iris(store) -> None:
    paper = str(paper_iri("p1"))
    assert select_strings(store, queries.PAPER_ABSTRACT, bindings={"paper": paper}) == [
        (paper, "We evaluate CLIP on CIFAR-10.")
    ]
    assert select_strings(store, queries.PAPER_ABSTRACT, bindings={"paper": paper + "-none"}) == []


@pytest.mark.parametrize(
    ("query", "bindings"),
    [
        (queries.FIND_ENTITIES, {"needle": Literal('"quoted" \\')}),
        (queries.FIND_ENTITIES, {"needle": Literal("c")}),
        (queries.ENTITIES, {"entity": URIRef(entity_iri("clip"))}),
        (queries.ENTITY_PAPERS, {"entity": URIRef(entity_iri("cifar-10"))}),
        (queries.ENTITY_LINKS, {"entity": URIRef(entity_iri("cifar-10"))}),
    ],
)
def test_an_endpoint_binds_as_the_embedded_store_does(store, query, bindings) -> None:
    # What an endpoint is sent, run here: the same answer as Oxigraph's substitution.
    sent = with_values(query, bindings)
    assert "VALUES" in sent and store.query(sent).rows == store.query(query, bindings=bindings).rows
    assert store.query(query, bindings=bindings).rows
