"""The entity level derived from every stored record: later papers revise earlier decisions, and the
graph is a function of the set of papers however they were split over builds (no NLP: records by hand)."""

from __future__ import annotations

import io
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib.namespace import RDF

from kg.build.consolidate import consolidate
from kg.build.extraction_graph import awaiting_consolidation, record_quads
from kg.build.triples import paper_triples
from kg.extract.records import DocumentRecord, Entity, Mention, Relation
from kg.ingest import Document
from kg.namespace import EXTRACTION_GRAPH, local_name
from kg.rdf import KG, entity_iri, paper_iri
from kg.store import EmbeddedStore, open_store


def entity(key: str, label: str, kind: str = "Method", aliases: tuple[str, ...] = (), proposed: bool = False):
    return Entity(key, label, kind, aliases, proposed, mentions=(Mention(0, len(label), label),))


def paper(number: int, *entities: Entity, relations: tuple[Relation, ...] = ()) -> tuple[Document, DocumentRecord]:
    doc_id, source = f"p{number}", f"a.txt:{number}"
    text = f"Abstract {number}: " + ", ".join(e.label for e in entities) + "."
    return Document(doc_id, text, source), DocumentRecord(doc_id, source, None, entities, relations)


def write_papers(store: EmbeddedStore, papers: list[tuple[Document, DocumentRecord]]) -> None:
    store.write([item for document, record in papers for item in (*paper_triples(document), *record_quads(record))])


def add_papers(store: EmbeddedStore, papers: list[tuple[Document, DocumentRecord]]) -> None:
    """What one build does: each paper with its record in one write, then one consolidation."""
    write_papers(store, papers)
    consolidate(store)


def sorted_ntriples(store: EmbeddedStore) -> list[str]:
    out = io.BytesIO()
    store.dump(out, ox.RdfFormat.N_TRIPLES)
    return sorted(out.getvalue().decode().splitlines())


def built_at_once(path: Path, papers: list[tuple[Document, DocumentRecord]]) -> list[str]:
    with open_store(path, create=True) as store:
        add_papers(store, papers)
        return sorted_ntriples(store)


def type_of(store: EmbeddedStore, key: str) -> set[str]:
    return {str(o) for o in store.graph.objects(entity_iri(key), RDF.type)}


def links(store: EmbeddedStore, number: int) -> set[tuple[str, str]]:
    return {
        (local_name(p), local_name(o))
        for p, o in store.graph.predicate_objects(paper_iri(f"p{number}"))
        if str(o).startswith(str(entity_iri("")))
    }


def test_a_type_vote_is_revised_when_later_papers_outvote_the_first(tmp_path: Path) -> None:
    first = paper(1, entity("grokking", "grokking", "Method"))
    later = [
        paper(2, entity("grokking", "Grokking", "Phenomenon")),
        paper(3, entity("grokking", "grokking", "Phenomenon")),
    ]
    with open_store(tmp_path / "split", create=True) as store:
        add_papers(store, [first])
        assert type_of(store, "grokking") == {str(KG.Method)}
        assert links(store, 1) == {("mentions", "grokking"), ("uses", "grokking")}
        add_papers(store, later)
        assert type_of(store, "grokking") == {str(KG.Phenomenon)}
        # The first paper's link follows the entity's new type.
        assert links(store, 1) == {("mentions", "grokking"), ("studies", "grokking")}
        assert sorted_ntriples(store) == built_at_once(tmp_path / "once", [first, *later])


def test_a_later_definition_moves_an_undefined_acronym_and_a_second_one_moves_it_back(tmp_path: Path) -> None:
    alone = paper(
        1,
        entity("sam", "SAM"),
        entity("ade20k", "ADE20K", "Dataset"),
        relations=(Relation("sam", "evaluatedOn", "ade20k", (0, 3), (4, 10), "SAM on ADE20K.", 0.9),),
    )
    segment = paper(2, entity("segment-anything-model", "Segment Anything Model", aliases=("SAM",), proposed=True))
    sharpness = paper(3, entity("sharpness-aware-minimization", "Sharpness-Aware Minimization", aliases=("SAM",)))
    with open_store(tmp_path / "split", create=True) as store:
        add_papers(store, [alone])
        assert links(store, 1) >= {("mentions", "sam")}
        add_papers(store, [segment])
        assert links(store, 1) >= {("mentions", "segment-anything-model"), ("uses", "segment-anything-model")}
        assert (entity_iri("segment-anything-model"), KG.evaluatedOn, entity_iri("ade20k")) in store.graph
        assert type_of(store, "sam") == set()  # no node is left behind
        add_papers(store, [sharpness])
        assert links(store, 1) >= {("mentions", "sam")}
        assert (entity_iri("sam"), KG.evaluatedOn, entity_iri("ade20k")) in store.graph
        assert (entity_iri("segment-anything-model"), KG.evaluatedOn, entity_iri("ade20k")) not in store.graph
        assert sorted_ntriples(store) == built_at_once(tmp_path / "once", [alone, segment, sharpness])


def test_statements_point_at_the_merged_entities_with_rounded_confidence(tmp_path: Path) -> None:
    relation = Relation("lora", "evaluatedOn", "glue", (0, 4), (8, 12), "LoRA on GLUE.", 0.87654)
    papers = [
        paper(
            1,
            entity("low-rank-adaptation", "Low-Rank Adaptation", aliases=("LoRA",)),
            entity("glue", "GLUE", "Dataset"),
            relations=(Relation("low-rank-adaptation", "evaluatedOn", "glue", (0, 4), (8, 12), "It on GLUE.", 0.5),),
        ),
        paper(2, entity("lora", "LoRA"), entity("glue", "GLUE", "Dataset"), relations=(relation,)),
    ]
    with open_store(tmp_path / "s", create=True) as store:
        add_papers(store, papers)
        rows = store.query(
            "SELECT ?s ?o ?paper ?c WHERE { ?st rdf:subject ?s ; rdf:object ?o ; prov:wasDerivedFrom ?paper ;"
            " kg:confidence ?c } ORDER BY ?paper"
        ).rows
    assert [(local_name(s), local_name(o), local_name(p), str(c)) for s, o, p, c in rows] == [
        ("low-rank-adaptation", "glue", "p1", "0.5"),
        ("low-rank-adaptation", "glue", "p2", "0.877"),
    ]


def test_records_live_in_a_named_graph_that_exports_do_not_see(tmp_path: Path) -> None:
    with open_store(tmp_path / "s", create=True) as store:
        add_papers(store, [paper(1, entity("lora", "LoRA"))])
        assert list(store.ox.named_graphs()) == [ox.NamedNode(EXTRACTION_GRAPH)]
        for rdf_format in (ox.RdfFormat.N_QUADS, ox.RdfFormat.TRIG, ox.RdfFormat.N_TRIPLES):
            out = io.BytesIO()
            store.dump(out, rdf_format)
            assert b"graph/extraction" not in out.getvalue() and b"LoRA" in out.getvalue()
        assert not awaiting_consolidation(store)


def test_papers_written_without_consolidation_are_consolidated_by_the_next_pass(tmp_path: Path) -> None:
    papers = [
        paper(1, entity("vit", "ViT")),
        paper(2, entity("vision-transformer", "Vision Transformer", aliases=("ViT",))),
    ]
    with open_store(tmp_path / "s", create=True) as store:
        add_papers(store, papers[:1])
        # A build stopped after writing its papers: the records are there, the entity level is stale.
        write_papers(store, papers[1:])
        assert awaiting_consolidation(store)
        consolidate(store)
        assert not awaiting_consolidation(store)
        assert sorted_ntriples(store) == built_at_once(tmp_path / "once", papers)


@pytest.mark.parametrize("consolidated", [0, 1], ids=["first-build", "later-build"])
def test_a_consolidation_stopped_before_its_last_step_is_completed_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, consolidated: int
) -> None:
    papers = [
        paper(1, entity("vit", "ViT")),
        paper(2, entity("vision-transformer", "Vision Transformer", aliases=("ViT",))),
    ]
    with open_store(tmp_path / "s", create=True) as store:
        add_papers(store, papers[:consolidated])
        write_papers(store, papers[consolidated:])
        before = sorted_ntriples(store)

        class Stopped(Exception):
            """The process dies before the SPARQL update that ends a consolidation."""

        def stop(*_: object, **__: object) -> None:
            raise Stopped

        with monkeypatch.context() as patch:
            patch.setattr(store, "_ox", _Replacing(store.ox, update=stop))
            with pytest.raises(Stopped):
                consolidate(store)
        assert awaiting_consolidation(store)
        if consolidated:  # the staged change was not applied
            assert sorted_ntriples(store) == before
        consolidate(store)
        assert not awaiting_consolidation(store)
        assert sorted_ntriples(store) == built_at_once(tmp_path / "once", papers)
        assert list(store.ox.named_graphs()) == [ox.NamedNode(EXTRACTION_GRAPH)]


class _Replacing:
    """A pyoxigraph Store with some of its methods replaced."""

    def __init__(self, target: object, **replaced: object) -> None:
        self._target, self._replaced = target, replaced

    def __getattr__(self, name: str) -> object:
        return self._replaced.get(name) or getattr(self._target, name)
