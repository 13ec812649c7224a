"""`kg eval scierc`: extraction scored against SciERC (Luan et al., 2018).

The documents are read by :mod:`kg.extract.scierc.corpus` (text with character offsets) and
run through ``kg extract --profile scierc``. Scoring is exact span + type, over the four types
the benchmark reports (Material is scored as our ``Dataset``); Generic and
OtherScientificTerm are left out on both sides.

Examples
--------
>>> from kg.extract.scierc.corpus import SciercDoc
>>> doc = SciercDoc.from_json({"doc_key": "d", "sentences": [["We", "use", "CRFs", "."], ["Good", "."]],
...                            "ner": [[[2, 2, "Method"]], [[4, 4, "Generic"]]],
...                            "relations": [[], []]})
>>> score_entity_spans([{(7, 11, 'Method'), (0, 2, 'Task')}], [doc.gold_entities()]).micro.f1
0.6666666666666666
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.extract.pipeline import Extractor
from kg.extract.scierc.corpus import EntitySpan, RelationTuple, SciercDoc, read_split
from kg.extract.scierc.schema import INVERTED_PREDICATES, RELATION_LABELS, SCORED_AS, SCORED_TYPES
from kg.ingest import Document
from kg.metrics import Prf, Scores

__all__ = ["Evaluation", "evaluate", "predictions_from_record", "score_entity_spans", "score_relation_spans"]


def score_entity_spans(
    predicted: Iterable[set[EntitySpan]], gold: Iterable[set[EntitySpan]], types: Sequence[str] = SCORED_TYPES
) -> Scores:
    """Exact-span, exact-type scores over paired documents; spans of other types are ignored on both sides.

    >>> s = score_entity_spans([{(0, 5, "Task"), (9, 12, "Dataset")}], [{(0, 5, "Method"), (9, 12, "Dataset")}])
    >>> s.micro.tp, s.micro.fp, s.micro.fn, s.per_label["Method"].fn, s.per_label["Task"].fp
    (1, 1, 1, 1, 1)
    """
    return _score_by_label(predicted, gold, types, label_of=lambda span: span[2])


def score_relation_spans(
    predicted: Iterable[set[RelationTuple]], gold: Iterable[set[RelationTuple]], labels: Sequence[str] = RELATION_LABELS
) -> Scores:
    """A relation counts when both argument spans (exact characters, in order) and the label match.

    >>> predicted = [{(0, 3, 8, 12, "USED-FOR"), (8, 12, 0, 3, "COMPARE")}]
    >>> score_relation_spans(predicted, [{(0, 3, 8, 12, "USED-FOR")}]).micro.f1
    0.6666666666666666
    """
    return _score_by_label(predicted, gold, labels, label_of=lambda relation: relation[4])


def _score_by_label(
    predicted: Iterable[set], gold: Iterable[set], labels: Sequence[str], label_of: Callable[[Any], str]
) -> Scores:
    per_label = dict.fromkeys(labels, Prf())
    for predicted_set, gold_set in zip(predicted, gold, strict=True):
        for label in labels:
            per_label[label] += Prf.of(
                {item for item in predicted_set if label_of(item) == label},
                {item for item in gold_set if label_of(item) == label},
            )
    return Scores.from_labels(per_label)


def predictions_from_record(record: Mapping[str, Any]) -> tuple[set[EntitySpan], set[RelationTuple]]:
    """The scored spans of one ``kg extract`` JSON object: every mention with its entity's SciERC
    type as ours (or, without one, its entity's type), and every relation that carries a ``scierc`` label."""
    entities = {
        (m["start"], m["end"], SCORED_AS.get(e["scierc"], "") if "scierc" in e else e["type"])
        for e in record.get("entities", ())
        for m in e["mentions"]
    }
    relations = set()
    for r in record.get("relations", ()):
        if r.get("scierc"):
            first, second = r["subject_span"], r["object_span"]
            if r["predicate"] in INVERTED_PREDICATES:
                first, second = second, first  # e.g. "X evaluatedOn Y" is SciERC's "Y EVALUATE-FOR X"
            relations.add((*first, *second, r["scierc"]))
    return entities, relations


@dataclass
class Evaluation:
    split: str
    documents: int
    entities: Scores
    relations: Scores

    def to_json(self) -> dict[str, Any]:
        return {
            "split": self.split,
            "documents": self.documents,
            "entities": self.entities.as_dict(),
            "relations": self.relations.as_dict(),
        }

    def to_text(self) -> str:
        lines = [f"SciERC {self.split}: {self.documents} documents; exact character span + type"]
        for title, scores in (("entities", self.entities), ("relations", self.relations)):
            lines.append("")
            lines.append(f"{title:<14}{'P':>7}{'R':>7}{'F1':>7}{'gold':>7}{'pred':>7}")
            rows = [*scores.per_label.items(), ("micro", scores.micro)]
            for label, prf in rows:
                lines.append(
                    f"  {label:<12}{prf.precision:7.3f}{prf.recall:7.3f}{prf.f1:7.3f}{prf.gold:7d}{prf.predicted:7d}"
                )
        return "\n".join(lines)


def iter_predictions(
    docs: Sequence[SciercDoc], extractor: Extractor | None = None, model: str | None = None
) -> Iterator[dict[str, Any]]:
    """``kg extract --profile scierc`` JSON objects for ``docs``, through the same :class:`Extractor`."""
    extractor = extractor or Extractor(model=model, profile="scierc")
    documents = [Document(id=d.doc_key, text=d.text, source=f"scierc:{i + 1}") for i, d in enumerate(docs)]
    for record in extractor.extract(documents):
        yield record.to_json()


def evaluate(
    split: str = "dev", *, model: str | None = None, extractor: Extractor | None = None, directory: Path | None = None
) -> Evaluation:
    """Run ``kg extract --profile scierc`` (spaCy pipeline ``model``, or a given ``extractor``)
    over a SciERC split and score it."""
    docs = read_split(split, directory)
    predicted_entities, predicted_relations = [], []
    for record in iter_predictions(docs, extractor, model):
        entities, relations = predictions_from_record(record)
        predicted_entities.append(entities)
        predicted_relations.append(relations)
    return Evaluation(
        split=str(split),
        documents=len(docs),
        entities=score_entity_spans(predicted_entities, [d.gold_entities() for d in docs]),
        relations=score_relation_spans(predicted_relations, [d.gold_relations() for d in docs]),
    )
