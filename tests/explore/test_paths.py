"""`kg path` and `kg neighbors` end to end, the projection cache, and the seeds graph (mentions only)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import entity, hops_of, path_json, run_kg

from kg.rdf import paper_iri

HOP_KEYS = ["from", "predicate", "to", "support", "evidence", "paper"]


# --- paths over relations -------------------------------------------------------------------


def test_path_json_has_exactly_the_documented_shape(relations_store: Path) -> None:
    report = path_json(relations_store, "CLIP", "goal misgeneralization")
    assert list(report) == ["source", "target", "paths"]
    assert (report["source"], report["target"]) == ("CLIP", "goal misgeneralization")
    for path in report["paths"]:
        assert list(path) == ["length", "hops"]
        assert path["length"] == len(path["hops"])
        for hop in path["hops"]:
            assert list(hop) == HOP_KEYS


def test_relations_only_path_carries_support_and_statement_evidence(relations_store: Path) -> None:
    report = path_json(relations_store, "CLIP", "goal misgeneralization", "--no-papers")
    assert hops_of(report) == [
        ("CLIP", "partOf", "Adaptive Return-conditioned Policy"),
        ("Adaptive Return-conditioned Policy", "addresses", "goal misgeneralization"),
    ]
    first, second = report["paths"][0]["hops"]
    assert first["evidence"] == "This work presents Adaptive Return-conditioned Policy (ARP), built on CLIP."
    assert first["paper"] == str(paper_iri("p2")) and first["support"] == 1
    assert second["evidence"] == "Our ARP effectively mitigates the goal misgeneralization."


def test_a_relation_followed_backwards_is_marked_with_a_caret(relations_store: Path) -> None:
    report = path_json(relations_store, "goal misgeneralization", "CLIP", "--no-papers")
    assert hops_of(report) == [
        ("goal misgeneralization", "^addresses", "Adaptive Return-conditioned Policy"),
        ("Adaptive Return-conditioned Policy", "^partOf", "CLIP"),
    ]


def test_support_counts_distinct_papers_and_evidence_is_the_most_confident(relations_store: Path) -> None:
    report = path_json(relations_store, "CLIP", "zero-shot classification", "--no-papers")
    (hop,) = report["paths"][0]["hops"]
    assert (hop["predicate"], hop["support"]) == ("usedFor", 2)
    assert hop["evidence"] == "CLIP is used for zero-shot classification."  # confidence 0.95 beats 0.9
    assert hop["paper"] == str(paper_iri("p4"))


def test_via_keeps_only_the_named_relations(relations_store: Path) -> None:
    report = path_json(relations_store, "CLIP", "ImageNet", "--via", "usedFor,evaluatedOn")
    assert hops_of(report) == [
        ("CLIP", "usedFor", "zero-shot classification"),
        ("zero-shot classification", "evaluatedOn", "ImageNet"),
    ]
    assert len(report["paths"]) == 1
    # with papers allowed again, the direct co-mention (p1) is the shortest
    direct = path_json(relations_store, "CLIP", "ImageNet", "--via", "usedFor", "--via", "mentions")
    assert hops_of(direct) == [("CLIP", "mentions", "ImageNet")]


def test_paths_through_papers_cite_a_sentence_naming_both_concepts(relations_store: Path) -> None:
    report = path_json(relations_store, "ImageNet", "robust overfitting")
    assert hops_of(report) == [("ImageNet", "mentions", "accuracy"), ("accuracy", "mentions", "robust overfitting")]
    first, second = report["paths"][0]["hops"]
    assert first["paper"] == str(paper_iri("p1"))
    assert first["evidence"] == (
        "We use CLIP for zero-shot classification on ImageNet. … CLIP reaches high accuracy."
    )  # no one sentence names both
    assert (
        second["evidence"] == "Adversarial training suffers from robust overfitting. … We also report robust accuracy."
    )
    assert path_json(relations_store, "ImageNet", "robust overfitting", "--no-papers")["paths"] == []


def test_shortest_paths_come_first_and_limit_and_max_hops_apply(relations_store: Path) -> None:
    report = path_json(
        relations_store, "zero-shot classification", "Adaptive Return-conditioned Policy", "--limit", "5"
    )
    lengths = [path["length"] for path in report["paths"]]
    assert lengths == sorted(lengths) and lengths[0] == 2 and len(lengths) >= 2
    assert hops_of(report)[0] == ("zero-shot classification", "^usedFor", "CLIP")  # a relation beats a co-mention
    assert len(path_json(relations_store, "zero-shot classification", "ARP", "--limit", "1")["paths"]) == 1
    assert path_json(relations_store, "ImageNet", "robust overfitting", "--max-hops", "1")["paths"] == []


def test_no_path_to_an_island_is_an_empty_answer(relations_store: Path) -> None:
    assert path_json(relations_store, "CLIP", "quantum annealing")["paths"] == []
    done = run_kg("path", "CLIP", "quantum annealing", "--store", str(relations_store))
    assert done.returncode == 0 and "no path found" in done.stdout


def test_concepts_are_named_by_label_alias_or_iri(relations_store: Path) -> None:
    by_alias = path_json(relations_store, "ARP", "Contrastive Language-Image Pre-training", "--no-papers")
    by_iri = path_json(relations_store, "kgr:entity/arp", f"<{entity('clip')}>", "--no-papers")
    assert by_alias == by_iri
    assert (by_alias["source"], by_alias["target"]) == ("Adaptive Return-conditioned Policy", "CLIP")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["CLIPP", "ImageNet"], "no entity named 'CLIPP'; did you mean: CLIP?"),
        (["CLIP", "imagenett"], "did you mean: ImageNet?"),
        (["CLIP", "ImageNet", "--via", "usedFr"], "unknown link 'usedFr'; did you mean: usedFor?"),
        (["CLIP", "CLIP"], "a path needs two different concepts"),
    ],
)
def test_bad_names_exit_2_with_one_line(relations_store: Path, args: list[str], message: str) -> None:
    done = run_kg("path", *args, "--store", str(relations_store))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr and done.stderr.startswith("kg: error: ")


def test_text_output_shows_direction_support_and_evidence(relations_store: Path) -> None:
    done = run_kg("path", "goal misgeneralization", "CLIP", "--no-papers", "--store", str(relations_store))
    assert done.returncode == 0, done.stderr
    assert "goal misgeneralization ←addresses— Adaptive Return-conditioned Policy  (1 paper)" in done.stdout
    assert "“Our ARP effectively mitigates the goal misgeneralization.”" in done.stdout
    assert "paper:p2" in done.stdout  # as kg paper and kg query take it


# --- neighbors ------------------------------------------------------------------------------


def test_neighbors_ring_by_ring(relations_store: Path) -> None:
    done = run_kg("neighbors", "ImageNet", "--hops", "2", "--format", "json", "--store", str(relations_store))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert list(report) == ["center", "type", "counts", "neighbors"]
    assert (report["center"], report["type"]) == ("ImageNet", "Dataset")
    ring1 = {n["label"]: n for n in report["neighbors"] if n["hops"] == 1}
    ring2 = {n["label"]: n for n in report["neighbors"] if n["hops"] == 2}
    assert set(ring1) == {"CLIP", "zero-shot classification", "accuracy"}
    assert ring1["zero-shot classification"]["predicate"] == "^evaluatedOn"
    assert {
        "robust overfitting",
        "adversarial training",
        "Adaptive Return-conditioned Policy",
        "goal misgeneralization",
    } == set(ring2)
    assert ring2["robust overfitting"]["via"] == "accuracy"
    assert ring2["Adaptive Return-conditioned Policy"] == {
        "label": "Adaptive Return-conditioned Policy",
        "type": "Method",
        "hops": 2,
        "predicate": "partOf",
        "support": 1,
        "via": "CLIP",
    }
    assert report["counts"] == [3, 4]


def test_neighbors_limit_and_relations_only(relations_store: Path) -> None:
    done = run_kg("neighbors", "CLIP", "--limit", "1", "--no-papers", "--store", str(relations_store))
    assert done.returncode == 0, done.stderr
    assert "1 hop: 2 concepts, showing the first 1" in done.stdout
    assert "zero-shot classification" in done.stdout and "usedFor" in done.stdout


# --- the cache --------------------------------------------------------------------------------


def test_path_imports_neither_spacy_nor_networkx(relations_store: Path) -> None:
    code = (
        "import sys; from kg.cli import main; main(['path', 'CLIP', 'ImageNet', '--store', sys.argv[1]]); "
        "print(sorted(m for m in ('spacy', 'networkx', 'rdflib.plugins.sparql') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(relations_store)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


# --- the seeds graph: mentions only ---------------------------------------------------------


def test_seeds_path_between_two_concepts_of_one_abstract(seeds_store: Path) -> None:
    report = path_json(seeds_store, "CLIP", "goal misgeneralization")
    assert hops_of(report)[0] == ("CLIP", "mentions", "goal misgeneralization")
    hop = report["paths"][0]["hops"][0]
    assert "CLIP" in hop["evidence"] and "goal misgeneralization" in hop["evidence"]
    assert hop["paper"].startswith(str(paper_iri("")))
    for path in report["paths"]:
        concepts = [path["hops"][0]["from"]] + [h["to"] for h in path["hops"]]
        assert len(concepts) == len(set(concepts))  # simple paths
        assert all(h["evidence"] for h in path["hops"])


def test_seeds_neighbors_of_a_well_known_concept(seeds_store: Path) -> None:
    done = run_kg("neighbors", "ImageNet", "--format", "json", "--store", str(seeds_store))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["counts"][0] >= 20 and len(report["neighbors"]) == 20
    # Co-mentioned concepts come in order of support (relations, better attested, may come first).
    supports = [n["support"] for n in report["neighbors"] if n["predicate"] == "mentions"]
    assert len(supports) >= 10 and supports == sorted(supports, reverse=True)
    assert all(n["via"] == "ImageNet" for n in report["neighbors"])
