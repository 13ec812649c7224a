"""`kg eval gold`: the scorer agrees with the annotation's own, and quality does not regress."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, run_kg

from kg.eval.gold import DEFAULT_GOLD, score_named_entities, score_proposed, score_relations

SHARED_SCORER = DEFAULT_GOLD.parent / "score.py"
REGRESSION = json.loads((REPO / "tests" / "data" / "gold_regression.json").read_text())
needs_gold = pytest.mark.skipif(not DEFAULT_GOLD.is_file(), reason="the annotated abstracts are not beside the repo")


def test_matching_folds_case_hyphens_articles_and_plurals() -> None:
    gold = {
        "d": [
            {"name": "vision transformer", "aliases": ["ViT"], "type": "Method", "proposed": True},
            {"name": "CIFAR-10", "aliases": [], "type": "Dataset"},
        ]
    }
    pred = {
        "d": [
            {"label": "The Vision-Transformers", "type": "Method", "proposed": True},
            {"label": "CIFAR 10", "type": "Method"},
        ]
    }
    typed = score_named_entities(pred, gold, typed=True).micro
    untyped = score_named_entities(pred, gold, typed=False).micro
    assert (typed.tp, typed.fp, typed.fn) == (1, 1, 1)
    assert (untyped.tp, untyped.fp, untyped.fn) == (2, 0, 0)
    assert score_proposed(pred, gold).micro.f1 == 1.0


def test_relations_match_by_names_predicate_and_direction() -> None:
    gold = {
        "d": [
            {"name": "Adaptive Return-conditioned Policy", "aliases": ["ARP"], "type": "Method"},
            {"name": "goal misgeneralization", "type": "Phenomenon"},
            {"name": "Procgen", "type": "Dataset"},
        ]
    }
    gold_relations = {
        "d": [
            {
                "subject": "Adaptive Return-conditioned Policy",
                "predicate": "addresses",
                "object": "goal misgeneralization",
            },
            {"subject": "Adaptive Return-conditioned Policy", "predicate": "evaluatedOn", "object": "Procgen"},
        ]
    }
    pred = {
        "d": [
            {"id": "p", "label": "ARP"},
            {"id": "g", "label": "Goal Misgeneralization"},
            {"id": "b", "label": "Procgen"},
        ]
    }
    found = {
        "d": [
            {"subject": "p", "predicate": "addresses", "object": "g"},  # right, through the alias
            {"subject": "b", "predicate": "evaluatedOn", "object": "p"},  # the pair, the wrong way round
            {"subject": "p", "predicate": "conjunction", "object": "b"},  # not a scored predicate
        ]
    }
    scores = score_relations(pred, found, gold, gold_relations)
    assert (scores.micro.tp, scores.micro.fp, scores.micro.fn) == (1, 1, 1)
    assert {name: (prf.tp, prf.fp, prf.fn) for name, prf in scores.per_label.items()} == {
        "addresses": (1, 0, 0),
        "evaluatedOn": (0, 1, 1),
    }
    pairs = score_relations(pred, found, gold, gold_relations, pairs_only=True).micro
    assert (pairs.tp, pairs.fp, pairs.fn) == (2, 0, 0)


@needs_gold
def test_eval_gold_meets_its_recorded_figures(tmp_path: Path) -> None:
    done = run_kg("eval", "gold", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for key in ("P", "R", "F1"):
        assert report["typed"][key] >= REGRESSION["typed"][key]
    assert report["untyped"]["F1"] >= REGRESSION["untyped"]["F1"]
    assert report["proposed"]["F1"] >= REGRESSION["proposed"]["F1"]
    phenomenon = report["typed"]["per_type"]["Phenomenon"]
    assert phenomenon["P"] >= REGRESSION["phenomenon"]["P"] and phenomenon["R"] >= REGRESSION["phenomenon"]["R"]
    for key in ("P", "R", "F1"):
        assert report["relations"][key] >= REGRESSION["relations"][key]


@needs_gold
def test_the_rules_profile_keeps_its_recorded_figures() -> None:
    done = run_kg("eval", "gold", "--profile", "rules", "--format", "json")
    assert done.returncode == 0, done.stderr
    report, recorded = json.loads(done.stdout), REGRESSION["rules"]
    for key in ("P", "R", "F1"):
        assert report["typed"][key] >= recorded["typed"][key]
    assert report["proposed"]["F1"] >= recorded["proposed"]["F1"]


@needs_gold
def test_eval_gold_agrees_with_the_annotation_scorer(tmp_path: Path) -> None:
    inputs = subprocess.run(
        [sys.executable, str(SHARED_SCORER), "input"], capture_output=True, text=True, check=True
    ).stdout
    (tmp_path / "in.jsonl").write_text(inputs)
    extracted = run_kg("extract", str(tmp_path / "in.jsonl"))
    assert extracted.returncode == 0, extracted.stderr
    (tmp_path / "pred.jsonl").write_text(extracted.stdout)
    theirs = subprocess.run(
        [sys.executable, str(SHARED_SCORER), str(tmp_path / "pred.jsonl")], capture_output=True, text=True, check=True
    ).stdout
    expected = json.loads(theirs[: theirs.rindex("}") + 1])
    ours = json.loads(run_kg("eval", "gold", "--format", "json").stdout)
    for what in ("typed", "untyped", "relations"):
        assert {k: ours[what][k] for k in ("tp", "fp", "fn")} == {k: expected[what][k] for k in ("tp", "fp", "fn")}
    assert {
        name: {k: row[k] for k in ("tp", "fp", "fn")} for name, row in ours["relations"]["per_predicate"].items()
    } == expected["relations"]["per_predicate"]
    assert {k: ours["pairs"][k] for k in ("tp", "fp", "fn")} == {k: expected["pairs"][k] for k in ("tp", "fp", "fn")}
    assert ours["proposed"]["F1"] == expected["proposed"]["F1"]


@needs_gold
def test_abstracts_without_relations_give_no_relation_scores(tmp_path: Path) -> None:
    record = dict(json.loads(DEFAULT_GOLD.read_text())[0])
    del record["relations"]
    (tmp_path / "gold.json").write_text(json.dumps([record]))
    done = run_kg("eval", "gold", "--gold", str(tmp_path / "gold.json"), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["docs"] == 1 and "relations" not in report and "pairs" not in report


def test_missing_annotation_file_is_named(tmp_path: Path) -> None:
    done = run_kg("eval", "gold", "--gold", str(tmp_path / "none.json"))
    assert done.returncode == 2
    assert done.stderr.strip() == f"kg: error: {tmp_path / 'none.json'}: no such file or directory"
