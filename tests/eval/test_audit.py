"""The audit of the graph (data/audit/): what was judged, by whom, and the figures the README cites."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO

from kg.resources import SHARED_DIR

AUDIT = REPO / "data" / "audit"
JUDGED = json.loads((AUDIT / "judged.json").read_text(encoding="utf-8"))
GOLD = SHARED_DIR / "gold"


def test_every_item_has_two_independent_verdicts_of_the_allowed_kinds() -> None:
    assert len({item["id"] for item in JUDGED}) == len(JUDGED)
    for item in JUDGED:
        assert set(item["judges"]) == {"A", "B"}, item["id"]
        for verdict in item["judges"].values():
            if item["kind"] == "statement":
                assert verdict["verdict"] in ("right", "wrong")
                assert (verdict["reason"] is None) == (verdict["verdict"] == "right"), item["id"]
                assert verdict["reason"] in (None, "not-stated", "predicate", "direction", "endpoint")
            else:
                assert verdict["node"] in ("yes", "no")
                assert verdict["type"] in (("right", "wrong") if verdict["node"] == "yes" else ("n/a",)), item["id"]


@pytest.mark.skipif(not GOLD.is_dir(), reason="../shared is not beside the repo")
def test_only_dev_and_training_abstracts_were_read() -> None:
    # Seed abstracts outside train.jsonl and dev.json are held out for an independent check: never judged.
    allowed = {json.loads(line)["sha1"] for line in (GOLD / "train.jsonl").read_text().splitlines() if line.strip()}
    allowed |= {record["sha1"] for record in json.loads((GOLD / "dev.json").read_text())}
    assert {item["paper"] for item in JUDGED} <= allowed


def test_the_scorer_prints_the_figures_the_readme_cites() -> None:
    printed = subprocess.run(
        [sys.executable, str(AUDIT / "score.py")], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert any(line.split()[:3] == ["default", "336", "0.610"] for line in printed)
    assert any(line.split()[:2] == ["113", "0.407"] for line in printed)  # the rules, besides conjunction
    assert "judges agree on 0.954 of the statements (Cohen's kappa 0.904)" in printed
    controls = {line.split()[0]: line.split()[2] for line in printed if line.strip().startswith("control-")}
    assert controls == {"control-right": "0.850", "control-direction": "0.000", "control-predicate": "0.000"}
