"""`kg eval gold`: extraction scored against abstracts annotated for the entities that deserve a node.

The annotation format and the matching rules are those of ``gold/score.py`` beside the
annotated files (``GUIDELINES.md``): per abstract, predicted entities are matched one to one
with annotated ones when a name or alias coincides after folding case, hyphens, leading
articles and a plural "s"; the typed score also needs the same type.

Examples
--------
>>> gold = {"d1": [{"name": "Adaptive Return-conditioned Policy", "aliases": ["ARP"], "type": "Method"}]}
>>> pred = {"d1": [{"label": "ARP", "type": "Method", "aliases": []},
...                {"label": "method", "type": "Method", "aliases": []}]}
>>> score = score_named_entities(pred, gold, typed=True).micro
>>> score.tp, score.fp, score.fn, round(score.f1, 3)
(1, 1, 0, 0.667)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kg.errors import InputError
from kg.extract.pipeline import Extractor
from kg.ingest import Document
from kg.metrics import Prf, Scores
from kg.resources import SHARED_DIR

DEFAULT_GOLD = SHARED_DIR / "gold" / "dev.json"


def gold_name(text: str) -> str:
    """The folding the annotation's scorer applies to every name before comparing.

    Examples
    --------
    >>> gold_name("The Vision-Transformers"), gold_name("loss")
    ('vision transformer', 'loss')
    """
    text = text.lower().replace("-", " ").replace("_", " ").replace("\u2019", "'")
    text = re.sub(r"[^\w\s'+.#/]", " ", text)
    text = re.sub(r"^(the|a|an|our|this|these)\s+", "", text.strip())
    text = re.sub(r"\s+", " ", text).strip()
    words = text.split(" ")
    if words and len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]
    return " ".join(words)


def _names(entity: Mapping, key: str) -> set[str]:
    out = {gold_name(entity[key])} | {gold_name(a) for a in entity.get("aliases") or ()}
    out.discard("")
    return out


def score_named_entities(predicted: Mapping[str, list], gold: Mapping[str, list], *, typed: bool) -> Scores:
    """Greedy one-to-one matching per abstract, as the annotation's scorer does; per entity type,
    a match and a miss count for the annotated entity's type, a spurious entity for its own."""
    per_type: dict[str, Prf] = {}

    def count(entity_type: str, outcome: Prf) -> None:
        per_type[entity_type] = per_type.get(entity_type, Prf()) + outcome

    for doc, gold_entities in gold.items():
        candidates = predicted.get(doc, [])
        used: set[int] = set()
        for g in gold_entities:
            wanted = _names(g, "name")
            hit = next(
                (
                    i
                    for i, p in enumerate(candidates)
                    if i not in used and (not typed or p.get("type") == g["type"]) and wanted & _names(p, "label")
                ),
                None,
            )
            if hit is None:
                count(g["type"], Prf(fn=1))
            else:
                used.add(hit)
                count(g["type"], Prf(tp=1))
        for i, p in enumerate(candidates):
            if i not in used:
                count(p.get("type", "?"), Prf(fp=1))
    return Scores.from_labels(per_type)


def score_proposed(predicted: Mapping[str, list], gold: Mapping[str, list]) -> Scores:
    """Which entities the paper introduces: predicted ``proposed`` entities against annotated ones."""
    tp = fp = fn = 0
    for doc, gold_entities in gold.items():
        wanted = [_names(e, "name") for e in gold_entities if e.get("proposed")]
        claimed = [_names(e, "label") for e in predicted.get(doc, []) if e.get("proposed")]
        tp += sum(1 for names in claimed if any(names & w for w in wanted))
        fp += sum(1 for names in claimed if not any(names & w for w in wanted))
        fn += sum(1 for w in wanted if not any(w & names for names in claimed))
    return Scores(micro=Prf(tp, fp, fn))


def load_gold(paths: Iterable[str | Path]) -> tuple[dict[str, str], dict[str, list]]:
    """Texts and annotated entities by abstract id, from one or more annotation files."""
    texts: dict[str, str] = {}
    entities: dict[str, list] = {}
    for path in paths:
        try:
            records = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(path, "no such file or directory") from None
        except (ValueError, UnicodeDecodeError) as err:
            raise InputError(path, f"not an annotation file: {err}") from None
        for record in records:
            texts[record["sha1"]] = record["text"]
            entities[record["sha1"]] = record["entities"]
    return texts, entities


@dataclass(frozen=True)
class GoldEvaluation:
    """Typed, untyped and contribution scores of the default extraction on annotated abstracts."""

    documents: int
    typed: Scores
    untyped: Scores
    proposed: Scores

    def to_json(self) -> dict:
        return {
            "docs": self.documents,
            "typed": _as_json(self.typed),
            "untyped": _as_json(self.untyped),
            "proposed": _as_json(self.proposed),
        }

    def to_text(self) -> str:
        lines = [
            f"gold: {self.documents} annotated abstracts; entities that deserve a node",
            "",
            f"{'typed':<14}{'P':>7}{'R':>7}{'F1':>7}{'tp':>6}{'fp':>6}{'fn':>6}",
        ]
        for name, row in _as_json(self.typed)["per_type"].items():
            lines.append(
                f"  {name:<12}{row['P']:7.3f}{row['R']:7.3f}{row['F1']:7.3f}{row['tp']:6d}{row['fp']:6d}{row['fn']:6d}"
            )
        for name, scores in (("typed", self.typed), ("untyped", self.untyped), ("proposed", self.proposed)):
            score = scores.micro
            lines.append(
                f"  {name:<12}{score.precision:7.3f}{score.recall:7.3f}{score.f1:7.3f}"
                f"{score.tp:6d}{score.fp:6d}{score.fn:6d}"
            )
        return "\n".join(lines)


def evaluate_gold(
    paths: Iterable[str | Path] = (DEFAULT_GOLD,), *, model: str | None = None, profile: str = "default"
) -> GoldEvaluation:
    """Run the extraction ``profile`` over the annotated abstracts and score it."""
    texts, gold = load_gold(paths)
    extractor = Extractor(model=model, profile=profile)
    documents = [Document(id=doc_id, text=text, source=f"gold:{doc_id}") for doc_id, text in texts.items()]
    predicted = {r.id: [e.to_json() for e in r.entities] for r in extractor.extract(documents)}
    return GoldEvaluation(
        documents=len(gold),
        typed=score_named_entities(predicted, gold, typed=True),
        untyped=score_named_entities(predicted, gold, typed=False),
        proposed=score_proposed(predicted, gold),
    )


def _as_json(scores: Scores) -> dict:
    """The annotation scorer's layout: the figures to 3 places, then the types in name order."""
    return {
        **scores.micro.as_dict(3, short=True),
        "per_type": {name: prf.as_dict(3, short=True) for name, prf in sorted(scores.per_label.items())},
    }
