"""`kg eval gold`: extraction scored against abstracts annotated for the entities that deserve a node.

The annotation format and the matching rules are those of ``gold/score.py`` beside the
annotated files (``GUIDELINES.md``): per abstract, predicted entities are matched one to one
with annotated ones when a name or alias coincides after folding case, hyphens, leading
articles and a plural "s"; the typed score also needs the same type. A relation matches when its
subject's and object's names so match the annotated relation's and the predicate is the same
(``comparedWith`` in either order, and a predicted ``outperforms`` matches it too).

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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kg.errors import InputError
from kg.extract.pipeline import Extractor
from kg.ingest import Document
from kg.metrics import Prf, Scores
from kg.namespace import ENTITY_RELATIONS
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
    for doc, gold_entities in gold.items():
        wanted = [(_names(g, "name"), g["type"]) for g in gold_entities]
        found = [(_names(p, "label"), p.get("type", "?")) for p in predicted.get(doc, [])]
        _match_one_to_one(wanted, found, lambda p, g: (not typed or p[1] == g[1]) and bool(p[0] & g[0]), per_type)
    return Scores.from_labels(per_type)


SCORED_PREDICATES = frozenset(ENTITY_RELATIONS) - {"conjunction", "featureOf"}
"""The predicates of the guidelines' table: SciERC's conjunction and featureOf are not scored."""


def score_relations(
    predicted: Mapping[str, list],
    predicted_relations: Mapping[str, list],
    gold: Mapping[str, list],
    gold_relations: Mapping[str, list],
    *,
    pairs_only: bool = False,
) -> Scores:
    """Predicted relations (between entity ids) against annotated ones (between entity names), one to
    one in annotation order, per predicate; ``pairs_only`` scores the entity pairs, in either order.

    Examples
    --------
    >>> gold = {"d": [{"name": "A", "type": "Method"}, {"name": "B", "type": "Method"}]}
    >>> gold_relations = {"d": [{"subject": "A", "predicate": "comparedWith", "object": "B"}]}
    >>> pred = {"d": [{"id": "e1", "label": "a"}, {"id": "e2", "label": "b"}]}
    >>> beats = {"d": [{"subject": "e2", "predicate": "outperforms", "object": "e1"}]}
    >>> score_relations(pred, beats, gold, gold_relations).micro
    Prf(tp=1, fp=0, fn=0)
    """
    per_predicate: dict[str, Prf] = {}
    for doc, annotated in gold_relations.items():
        wanted = _relation_names(gold.get(doc, []), annotated, name="name", ref="name")
        found = _relation_names(predicted.get(doc, []), predicted_relations.get(doc, []), name="label", ref="id")
        _match_one_to_one(wanted, found, lambda p, g: _relation_match(p, g, pairs_only), per_predicate)
    return Scores.from_labels(per_predicate)


def _match_one_to_one(
    wanted: list[tuple], found: list[tuple], matches: Callable[[tuple, tuple], bool], counts: dict[str, Prf]
) -> None:
    """Greedy one-to-one matching of one abstract, in annotation order, added to ``counts`` by label (the
    second field of each item): a match and a miss count for the annotated item's label, a spurious item
    for its own."""
    used: set[int] = set()
    for item in wanted:
        hit = next((i for i, other in enumerate(found) if i not in used and matches(other, item)), None)
        if hit is not None:
            used.add(hit)
        counts[item[1]] = counts.get(item[1], Prf()) + (Prf(fn=1) if hit is None else Prf(tp=1))
    for i, other in enumerate(found):
        if i not in used:
            counts[other[1]] = counts.get(other[1], Prf()) + Prf(fp=1)


def _relation_names(entities: list, relations: list, *, name: str, ref: str) -> list[tuple[set, str, set]]:
    by_ref = {e[ref]: _names(e, name) for e in entities}
    return [
        (by_ref[r["subject"]], r["predicate"], by_ref[r["object"]])
        for r in relations
        if r.get("predicate") in SCORED_PREDICATES and r.get("subject") in by_ref and r.get("object") in by_ref
    ]


def _relation_match(predicted: tuple, annotated: tuple, pairs_only: bool) -> bool:
    (ps, pp, po), (gs, gp, go) = predicted, annotated
    forward, backward = bool(ps & gs and po & go), bool(ps & go and po & gs)
    if pairs_only:
        return forward or backward
    if gp == "comparedWith":
        return pp in ("comparedWith", "outperforms") and (forward or backward)
    return pp == gp and forward


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


def load_gold(paths: Iterable[str | Path]) -> tuple[dict[str, str], dict[str, list], dict[str, list]]:
    """Texts, annotated entities and annotated relations by abstract id, from one or more annotation
    files (relations of the abstracts that carry them)."""
    texts: dict[str, str] = {}
    entities: dict[str, list] = {}
    relations: dict[str, list] = {}
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
            if "relations" in record:
                relations[record["sha1"]] = record["relations"]
    return texts, entities, relations


@dataclass(frozen=True)
class GoldEvaluation:
    """Typed, untyped and contribution scores of an extraction on annotated abstracts, and its relations'
    (``None`` when no abstract carries relations)."""

    documents: int
    typed: Scores
    untyped: Scores
    proposed: Scores
    relations: Scores | None = None
    pairs: Scores | None = None

    def to_json(self) -> dict:
        out = {
            "docs": self.documents,
            "typed": _as_json(self.typed),
            "untyped": _as_json(self.untyped),
            "proposed": _as_json(self.proposed),
        }
        if self.relations is not None and self.pairs is not None:
            out["relations"] = _as_json(self.relations, "per_predicate")
            out["pairs"] = self.pairs.micro.as_dict(3, short=True)
        return out

    def to_text(self) -> str:
        lines = [
            f"gold: {self.documents} annotated abstracts; entities that deserve a node",
            "",
            f"{'typed':<14}{'P':>7}{'R':>7}{'F1':>7}{'tp':>6}{'fp':>6}{'fn':>6}",
        ]
        lines += [_row(name, prf) for name, prf in sorted(self.typed.per_label.items())]
        totals = [("typed", self.typed), ("untyped", self.untyped), ("proposed", self.proposed)]
        lines += [_row(name, scores.micro) for name, scores in totals]
        if self.relations is not None and self.pairs is not None:
            lines += ["", f"{'relations':<14}{'P':>7}{'R':>7}{'F1':>7}{'tp':>6}{'fp':>6}{'fn':>6}"]
            lines += [_row(name, prf) for name, prf in sorted(self.relations.per_label.items())]
            lines += [_row("relations", self.relations.micro), _row("pairs", self.pairs.micro)]
        return "\n".join(lines)


def evaluate_gold(
    paths: Iterable[str | Path] = (DEFAULT_GOLD,), *, model: str | None = None, profile: str = "default"
) -> GoldEvaluation:
    """Run the extraction ``profile`` over the annotated abstracts and score it."""
    texts, gold, gold_relations = load_gold(paths)
    extractor = Extractor(model=model, profile=profile)
    documents = [Document(id=doc_id, text=text, source=f"gold:{doc_id}") for doc_id, text in texts.items()]
    predicted, predicted_relations = {}, {}
    for record in extractor.extract(documents):
        line = record.to_json()
        predicted[record.id], predicted_relations[record.id] = line["entities"], line["relations"]
    relations = pairs = None
    if gold_relations:
        relations = score_relations(predicted, predicted_relations, gold, gold_relations)
        pairs = score_relations(predicted, predicted_relations, gold, gold_relations, pairs_only=True)
    return GoldEvaluation(
        documents=len(gold),
        typed=score_named_entities(predicted, gold, typed=True),
        untyped=score_named_entities(predicted, gold, typed=False),
        proposed=score_proposed(predicted, gold),
        relations=relations,
        pairs=pairs,
    )


def _row(name: str, prf: Prf) -> str:
    return f"  {name:<12}{prf.precision:7.3f}{prf.recall:7.3f}{prf.f1:7.3f}{prf.tp:6d}{prf.fp:6d}{prf.fn:6d}"


def _as_json(scores: Scores, table: str = "per_type") -> dict:
    """The annotation scorer's layout: the figures to 3 places, then the types (or predicates) in name order."""
    return {
        **scores.micro.as_dict(3, short=True),
        table: {name: prf.as_dict(3, short=True) for name, prf in sorted(scores.per_label.items())},
    }
