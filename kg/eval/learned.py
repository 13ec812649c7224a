"""The learned profile's figures on the annotated dev abstracts: the annotation scorer's own figures
(``../shared/gold/score.py``: typed and proposed entity F1, relation F1, per type and per predicate),
an ablation of the parts on top of the model, and the reliability of the relation confidences.

    python -m kg.eval.learned [--ablation] [--reliability] [--json]

Each variant is ``kg extract --profile learned`` with some decoding settings changed; the scorer is
run on its output as ``score.py PRED.jsonl`` would be.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

from kg.eval.gold import DEFAULT_GOLD
from kg.metrics import Prf

SCORER = DEFAULT_GOLD.parent / "score.py"
RESAMPLINGS = 1000  # of the annotated abstracts, for the intervals of the figures
_NO_FALLBACK = {"fallback_threshold": 1.0}
_NOTHING = {
    "skip_urls": False,
    "skip_non_names": False,
    "acronyms": False,
    "references": False,
    "vocabulary": False,
    **_NO_FALLBACK,
}
_SKIPS = {**_NOTHING, "skip_urls": True, "skip_non_names": True}
# No fallback threshold given: the model's own applies.
_ALL = {"skip_urls": True, "skip_non_names": True, "acronyms": True, "references": True}
ABLATIONS = (
    ("model alone", _NOTHING),
    ("+ no span holding a web address", {**_NOTHING, "skip_urls": True}),
    ("+ no citation key, venue or lone letter", _SKIPS),
    ("+ acronyms (Schwartz-Hearst)", {**_SKIPS, "acronyms": True}),
    ("+ coreference to the proposed entity", {**_SKIPS, "acronyms": True, "references": True}),
    ("+ a contribution in every abstract", {**_ALL, "vocabulary": False}),
    ("+ vocabulary types (SKOS)", {**_ALL, "vocabulary": True}),
)


def scorer():
    """The annotation's scorer, imported from beside the annotations."""
    spec = importlib.util.spec_from_file_location("gold_score", SCORER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def extract(gold: Path = DEFAULT_GOLD, *, profile: str = "learned", settings: dict | None = None) -> list[dict]:
    """``kg extract`` output (as dicts) for the annotated abstracts."""
    from kg.extract.pipeline import Extractor
    from kg.ingest import Document

    records = json.loads(Path(gold).read_text(encoding="utf-8"))
    documents = [Document(id=r["sha1"], text=r["text"], source=f"gold:{r['sha1']}") for r in records]
    extractor = Extractor(profile=profile, settings=settings)
    return [record.to_json() for record in extractor.extract(documents)]


def score(predictions: list[dict], gold: Path = DEFAULT_GOLD) -> dict:
    """What ``score.py PRED.jsonl`` prints (its JSON), with P/R/F1 added per type and predicate."""
    module = scorer()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pred.jsonl"
        path.write_text("".join(json.dumps(p) + "\n" for p in predictions), encoding="utf-8")
        gold_entities, gold_relations = module.load_gold([str(gold)])
        pred = {p["id"]: p["entities"] for p in predictions}
        pred_relations = {p["id"]: p["relations"] for p in predictions}
        out = {
            "typed": module.score(pred, gold_entities, True),
            "untyped": module.score(pred, gold_entities, False),
            "proposed": module.score_proposed(pred, gold_entities),
            "relations": module.score_relations(pred, pred_relations, gold_entities, gold_relations, False),
            "pairs": module.score_relations(pred, pred_relations, gold_entities, gold_relations, True),
        }
    for key, table in (("typed", "per_type"), ("relations", "per_predicate")):
        for row in out[key][table].values():
            row.update(Prf(row["tp"], row["fp"], row["fn"]).as_dict(3, short=True))
    return out


def annotations_as_predictions(records: list[dict]) -> list[dict]:
    """Annotated abstracts in the shape of ``kg extract`` output lines (what a perfect extractor prints)."""
    return [
        {
            "id": r["sha1"],
            "entities": [
                {
                    "id": e["name"],
                    "label": e["name"],
                    "type": e["type"],
                    "aliases": e.get("aliases", []),
                    "proposed": e.get("proposed", False),
                }
                for e in r["entities"]
            ],
            "relations": [
                {"subject": x["subject"], "predicate": x["predicate"], "object": x["object"], "confidence": 1.0}
                for x in r.get("relations", [])
            ],
        }
        for r in records
    ]


def bootstrap_intervals(
    predictions: list[dict],
    gold: Path = DEFAULT_GOLD,
    *,
    samples: int = RESAMPLINGS,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """How far the typed, proposed and relation F1 would move with other abstracts of the same kind: the
    central ``level`` interval of each over ``samples`` resamplings of the annotated abstracts with
    replacement (each scored as ``score.py`` scores).

    Examples
    --------
    Predictions that are the annotations themselves score 1.0 in every resampling:

    >>> perfect = annotations_as_predictions(json.loads(DEFAULT_GOLD.read_text(encoding="utf-8")))
    >>> bootstrap_intervals(perfect, samples=20)
    {'typed': (1.0, 1.0), 'proposed': (1.0, 1.0), 'relations': (1.0, 1.0)}
    """
    import random

    import numpy as np

    module = scorer()
    gold_entities, gold_relations = module.load_gold([str(gold)])
    pred = {p["id"]: p["entities"] for p in predictions}
    pred_relations = {p["id"]: p["relations"] for p in predictions}
    ids = sorted(gold_entities)
    rng = random.Random(seed)
    figures: dict[str, list[float]] = {"typed": [], "proposed": [], "relations": []}
    for _ in range(samples):
        # An abstract drawn twice is two abstracts to the scorer.
        drawn = {f"{k}:{i}": i for k, i in enumerate(rng.choice(ids) for _ in ids)}
        entities = {key: gold_entities[i] for key, i in drawn.items()}
        relations = {key: gold_relations[i] for key, i in drawn.items() if i in gold_relations}
        found = {key: pred.get(i, []) for key, i in drawn.items()}
        found_relations = {key: pred_relations.get(i, []) for key, i in drawn.items()}
        figures["typed"].append(module.score(found, entities, True)["F1"])
        figures["proposed"].append(module.score_proposed(found, entities)["F1"])
        figures["relations"].append(module.score_relations(found, found_relations, entities, relations, False)["F1"])
    tail = 100 * (1 - level) / 2
    return {
        key: tuple(round(float(v), 3) for v in np.percentile(values, [tail, 100 - tail]))
        for key, values in figures.items()
    }


def relation_outcomes(predictions: list[dict], gold: Path = DEFAULT_GOLD) -> list[tuple[float, int]]:
    """``(confidence, right)`` for each predicted relation of a scored predicate: right when it matches an
    annotated relation as ``score.py`` matches them."""
    module = scorer()
    gold_entities, gold_relations = module.load_gold([str(gold)])
    out = []
    for p in predictions:
        if p["id"] not in gold_relations:
            continue
        wanted = module.relation_names(gold_entities[p["id"]], "name", gold_relations[p["id"]], "name")
        by_id = {e["id"]: module.names(e, "label") for e in p["entities"]}
        for r in p["relations"]:
            if r["predicate"] not in module.SCORED or r["subject"] not in by_id or r["object"] not in by_id:
                continue
            found = (by_id[r["subject"]], r["predicate"], by_id[r["object"]])
            out.append((r["confidence"], int(any(module.rel_match(found, g, False) for g in wanted))))
    return out


def _row(name: str, s: dict) -> str:
    return (
        f"| {name} | {s['typed']['P']:.3f} | {s['typed']['R']:.3f} | {s['typed']['F1']:.3f} | "
        f"{s['proposed']['F1']:.3f} | {s['relations']['P']:.3f} | {s['relations']['R']:.3f} | "
        f"{s['relations']['F1']:.3f} |"
    )


def report(*, ablation: bool = True, reliability_table: bool = True) -> str:
    from kg.extract.learned.calibration import reliability

    lines = []
    predictions = extract()
    scores = score(predictions)
    lines += [
        "dev (../shared/gold/dev.json), kg extract --profile learned, scored as score.py scores",
        "",
        "| entities | P | R | F1 | tp | fp | fn |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in scores["typed"]["per_type"].items():
        lines.append(
            f"| {name} | {row['P']:.3f} | {row['R']:.3f} | {row['F1']:.3f} | {row['tp']} | {row['fp']} | {row['fn']} |"
        )
    for name in ("typed", "untyped", "proposed"):
        s = scores[name]
        lines.append(
            f"| **{name}** | {s['P']:.3f} | {s['R']:.3f} | {s['F1']:.3f} | {s.get('tp', '')} | "
            f"{s.get('fp', '')} | {s.get('fn', '')} |"
        )
    lines += ["", "| relations | P | R | F1 | tp | fp | fn |", "|---|---|---|---|---|---|---|"]
    for name, row in scores["relations"]["per_predicate"].items():
        lines.append(
            f"| {name} | {row['P']:.3f} | {row['R']:.3f} | {row['F1']:.3f} | {row['tp']} | {row['fp']} | {row['fn']} |"
        )
    for name in ("relations", "pairs"):
        s = scores[name]
        lines.append(
            f"| **{name}** | {s['P']:.3f} | {s['R']:.3f} | {s['F1']:.3f} | {s['tp']} | {s['fp']} | {s['fn']} |"
        )
    intervals = bootstrap_intervals(predictions)
    lines += [
        "",
        f"95% intervals over {RESAMPLINGS} resamplings of the abstracts: "
        + ", ".join(f"{name} F1 {low:.3f} to {high:.3f}" for name, (low, high) in intervals.items()),
    ]
    if ablation:
        lines += [
            "",
            "| variant | typed P | typed R | typed F1 | proposed F1 | relation P | relation R | relation F1 |",
            "|---|---|---|---|---|---|---|---|",
        ]
        rules = score(extract(profile="rules"))
        lines.append(_row("rules profile (before)", rules))
        for name, settings in ABLATIONS:
            lines.append(_row(name, score(extract(settings=settings))))
    if reliability_table:
        outcomes = relation_outcomes(predictions)
        rows, ece = reliability([c for c, _ in outcomes], [r for _, r in outcomes])
        lines += ["", "| confidence | relations | mean confidence | fraction right |", "|---|---|---|---|"]
        lines += [
            f"| {low:.1f}-{high:.1f} | {count} | {mean:.3f} | {right:.3f} |" for low, high, count, mean, right in rows
        ]
        lines.append(f"\nexpected calibration error: {ece:.3f} over {len(outcomes)} relations")
    return "\n".join(lines)


def regression_figures(scores: dict) -> dict:
    """The figures a regression test holds: P, R and F1 of typed entities, proposed and relations, and F1 per
    type, each rounded down to 0.01 (the numpy and onnxruntime encoders differ in the last digits)."""
    import math

    def down(value: float) -> float:
        return math.floor(value * 100) / 100

    out = {"command": "python -m kg.eval.learned --json", "gold": "../shared/gold/dev.json"}
    for key in ("typed", "proposed", "relations"):
        out[key] = {m: down(scores[key][m]) for m in ("P", "R", "F1")}
    out["per_type"] = {name: {"F1": down(row["F1"])} for name, row in scores["typed"]["per_type"].items()}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.eval.learned")
    parser.add_argument("--no-ablation", action="store_true")
    parser.add_argument("--no-reliability", action="store_true")
    parser.add_argument("--json", action="store_true", help="the scores of the learned profile as JSON")
    parser.add_argument(
        "--regression",
        metavar="FILE",
        help="write the figures tests/extract/test_learned.py holds (each rounded down to 0.01)",
    )
    args = parser.parse_args(argv)
    if args.regression:
        Path(args.regression).write_text(json.dumps(regression_figures(score(extract())), indent=2) + "\n")
        return 0
    if args.json:
        print(json.dumps(score(extract()), indent=1))
        return 0
    print(report(ablation=not args.no_ablation, reliability_table=not args.no_reliability))
    return 0


if __name__ == "__main__":
    sys.exit(main())
