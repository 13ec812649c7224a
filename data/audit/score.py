#!/usr/bin/env python3
"""The audit's figures from judged.json: how often two judges find the graph's statements and nodes right.

usage: .venv/bin/python data/audit/score.py [judged.json]   (the reliability table is the project's own:
kg.extract.learned.calibration.reliability, as `python -m kg.eval.learned` prints it on dev)
"""

import json
import os
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))

from kg.extract.learned.calibration import reliability  # noqa: E402


def right(item):
    """The statement's score: the fraction of the two judges who find it right (0, 0.5 or 1)."""
    return sum(v["verdict"] == "right" for v in item["judges"].values()) / len(item["judges"])


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def main(path):
    items = json.load(open(path, encoding="utf-8"))
    statements = [i for i in items if i["kind"] == "statement"]
    entities = [i for i in items if i["kind"] == "entity"]

    print("statements judged right (mean of the two judges; both; either)")
    for source in ("default", "rules", "control-right", "control-direction", "control-predicate"):
        rows = [i for i in statements if i["source"] == source]
        both = mean([right(i) == 1 for i in rows])
        either = mean([right(i) > 0 for i in rows])
        print(f"  {source:18} {len(rows):4}  {mean([right(i) for i in rows]):.3f}  {both:.3f}  {either:.3f}")
        if source in ("default", "rules"):
            unscored = [right(i) for i in rows if i["predicate"] not in ("conjunction", "featureOf")]
            print(f"  {'':18} {len(unscored):4}  {mean(unscored):.3f}  without conjunction and featureOf")
            by = defaultdict(list)
            for i in rows:
                by[i["predicate"]].append(right(i))
                by["split " + i["split"]].append(right(i))
            for key in sorted(by):
                print(f"      {key:14} {len(by[key]):4}  {mean(by[key]):.3f}")
            reasons = Counter()
            for i in rows:
                for verdict in i["judges"].values():
                    if verdict["verdict"] == "wrong":
                        reasons[verdict["reason"]] += 1 / len(i["judges"])
            print("      wrong, first reason:", ", ".join(f"{k} {v:g}" for k, v in reasons.most_common()))
            confident = [(i["confidence"], right(i)) for i in rows if i.get("confidence") is not None]
            if confident:
                report_confidence(confident)

    pairs = [tuple(v["verdict"] == "right" for v in i["judges"].values()) for i in statements]
    observed = mean([a == b for a, b in pairs])
    pa, pb = mean([a for a, _ in pairs]), mean([b for _, b in pairs])
    chance = pa * pb + (1 - pa) * (1 - pb)
    print(f"judges agree on {observed:.3f} of the statements (Cohen's kappa {(observed - chance) / (1 - chance):.3f})")

    print("nodes (mean of the two judges): deserve a node; and typed right")
    for source in ("default", "rules"):
        rows = [i for i in entities if i["source"] == source]
        node = mean([mean([v["node"] == "yes" for v in i["judges"].values()]) for i in rows])
        typed = mean([mean([v["node"] == "yes" and v["type"] == "right" for v in i["judges"].values()]) for i in rows])
        print(f"  {source:18} {len(rows):4}  {node:.3f}  {typed:.3f}")


def report_confidence(confident):
    """Stored confidence against the judges: means, a reliability table and the area under the ROC curve."""
    print(
        f"      mean confidence: judged right by both {mean([c for c, r in confident if r == 1]):.3f}, "
        f"wrong by both {mean([c for c, r in confident if r == 0]):.3f}"
    )
    rows, error = reliability([c for c, _ in confident], [r for _, r in confident])
    for low, high, count, mean_confidence, fraction in rows:
        print(f"      {low:.1f}-{high:.1f} {count:4}  confidence {mean_confidence:.3f}  right {fraction:.3f}")
    positive = [c for c, r in confident if r == 1]
    negative = [c for c, r in confident if r == 0]
    auc = mean([(p > q) + 0.5 * (p == q) for p in positive for q in negative])
    print(f"      calibration error against the judges {error:.3f}; area under the ROC curve {auc:.3f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "judged.json"))
