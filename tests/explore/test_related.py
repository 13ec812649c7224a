"""`kg related`, `kg central`, `kg communities` and the projection's exports (graphml, gexf, csv)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import run_kg


def report(store: Path, *args: str) -> dict:
    done = run_kg(*args, "--format", "json", "--store", str(store))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# --- related ---------------------------------------------------------------------------------


def test_related_json_has_exactly_the_documented_shape(relations_store: Path) -> None:
    found = report(relations_store, "related", "CLIP")
    assert list(found) == ["related"]
    assert found["related"] and all(list(row) == ["label", "type", "score", "reason"] for row in found["related"])


def test_related_scores_co_occurrence_then_predicts_missing_links(relations_store: Path) -> None:
    rows = {row["label"]: row for row in report(relations_store, "related", "CLIP")["related"]}
    # CLIP is in p1, p2, p4; zero-shot classification in p1, p4: Jaccard 2 / (3 + 2 - 2)
    assert rows["zero-shot classification"]["score"] == pytest.approx(2 / 3, abs=1e-4)
    assert "mentioned with CLIP in 2 of its 2 papers" in rows["zero-shot classification"]["reason"]
    assert "usedFor (2 papers)" in rows["zero-shot classification"]["reason"]
    assert rows["ImageNet"]["score"] == pytest.approx(1 / 3, abs=1e-4)
    # accuracy is linked to CLIP (p1); robust overfitting is not, but shares accuracy with it
    prediction = rows["robust overfitting"]
    assert prediction["reason"].startswith("not linked to CLIP yet; both linked to accuracy")
    degree_of_accuracy = 5  # CLIP, zero-shot classification, ImageNet, adversarial training, robust overfitting
    assert prediction["score"] == pytest.approx(1 / math.log(degree_of_accuracy), abs=1e-4)
    labels = [row["label"] for row in report(relations_store, "related", "CLIP", "--predict", "0")["related"]]
    assert "robust overfitting" not in labels and labels[0] == "zero-shot classification"


def test_related_pmi_and_type_filter(relations_store: Path) -> None:
    rows = report(relations_store, "related", "CLIP", "--measure", "pmi", "--type", "Dataset", "--predict", "0")[
        "related"
    ]
    assert [(r["label"], r["type"]) for r in rows] == [("ImageNet", "Dataset")]
    assert rows[0]["score"] == pytest.approx(math.log2(1 * 5 / (3 * 1)), abs=1e-4)  # 5 papers in all
    done = run_kg("related", "CLIP", "--type", "Gadget", "--store", str(relations_store))
    assert done.returncode == 2 and "unknown type 'Gadget'" in done.stderr


# --- central and communities -----------------------------------------------------------------


def test_central_by_degree_per_type(relations_store: Path) -> None:
    found = report(relations_store, "central", "--limit", "1")
    assert found["by"] == "degree"
    top = {row["type"]: (row["label"], row["score"], row["papers"]) for row in found["central"]}
    assert top["Method"] == ("CLIP", 5, 3)  # zero-shot classification, ImageNet, accuracy, ARP, goal misgeneralization
    assert top["Metric"][0] == "accuracy"
    assert set(top) == {"Method", "Task", "Dataset", "Metric", "Phenomenon"}


def test_central_by_pagerank_sums_to_at_most_one(relations_store: Path) -> None:
    rows = report(relations_store, "central", "--by", "pagerank", "--limit", "20")["central"]
    assert sum(row["score"] for row in rows) == pytest.approx(1.0, abs=1e-4)
    methods = [row["label"] for row in rows if row["type"] == "Method"]
    assert methods[0] == "CLIP" and methods[-1] == "quantum annealing"


def test_communities_are_named_by_their_top_concepts(relations_store: Path) -> None:
    found = report(relations_store, "communities", "--min-size", "2")["communities"]
    assert all(list(c) == ["name", "size", "top", "members"] for c in found)
    members = [set(c["members"]) for c in found]
    assert {"adversarial training", "robust overfitting"} <= set().union(*members)
    assert not any("quantum annealing" in group for group in members)  # a community of one
    assert all(c["name"] == " / ".join(c["top"][:3]) and c["size"] == len(c["members"]) for c in found)


# --- exports of the projection ---------------------------------------------------------------

# --- the seeds graph -------------------------------------------------------------------------


def test_seeds_related_central_and_communities(seeds_store: Path) -> None:
    related = report(seeds_store, "related", "CLIP", "--predict", "0")["related"]
    assert len(related) == 10 and {"zero-shot classification", "ImageNet"} <= {r["label"] for r in related}
    central = report(seeds_store, "central", "--limit", "3")["central"]
    assert ("accuracy", "Metric") in {(r["label"], r["type"]) for r in central}
    communities = report(seeds_store, "communities")["communities"]
    assert len(communities) == 10 and communities[0]["size"] >= communities[-1]["size"] >= 3


# --- the text reports name their columns -----------------------------------------------------------


def text(store: Path, *args: str) -> list[str]:
    done = run_kg(*args, "--store", str(store))
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_central_text_names_the_score_and_the_papers(relations_store: Path) -> None:
    lines = text(relations_store, "central", "--type", "Method", "--by", "pagerank")
    assert lines[2].split() == ["Method", "pagerank", "papers"]
    first = lines[3].split()
    assert first[:2] == ["1.", "CLIP"] and first[-1] == "3"  # three papers mention CLIP
    assert len(lines[3]) == len(lines[2])  # numbers are right-aligned under their names


def test_related_text_names_the_measure(relations_store: Path) -> None:
    lines = text(relations_store, "related", "CLIP", "--measure", "npmi")
    assert lines[0].split() == ["concept", "type", "npmi", "why"]
    assert ["not", "linked", "yet", "type", "Adamic-Adar", "why"] in [line.split() for line in lines]


def test_neighbors_text_names_its_columns(relations_store: Path) -> None:
    lines = text(relations_store, "neighbors", "CLIP", "--hops", "2")
    assert lines[3].split() == ["concept", "type", "link", "papers"]
    assert ["concept", "type", "link", "papers", "via"] in [line.split() for line in lines]
    row = next(line.split() for line in lines if line.split()[:3] == ["zero-shot", "classification", "Task"])
    assert row[3:] == ["usedFor", "2"]
