"""SciERC (Luan et al., 2018) as this project reads and scores it.

A SciERC document is json lines of pre-tokenised sentences with entity and relation
annotations over token indices (document-wide, end inclusive). Here a document becomes
plain text, its tokens joined by single spaces and its sentences joined by single spaces
(Penn Treebank escapes such as ``-LRB-`` read as the brackets and quotes they stand for),
and every annotation becomes character offsets into that text (end exclusive), the same
offsets ``kg extract`` reports. Scoring is exact span + type, over the four types the
benchmark reports (Material is scored as our ``Dataset``); Generic and
OtherScientificTerm are left out on both sides.

Examples
--------
>>> doc = SciercDoc.from_json({"doc_key": "d", "sentences": [["We", "use", "CRFs", "."], ["Good", "."]],
...                            "ner": [[[2, 2, "Method"]], [[4, 4, "Generic"]]],
...                            "relations": [[], []]})
>>> doc.text
'We use CRFs . Good .'
>>> doc.gold_entities()
{(7, 11, 'Method')}
>>> score_entities([doc.gold_entities()], [{(7, 11, 'Method'), (0, 2, 'Task')}]).micro.f1
0.6666666666666666
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import UsageError
from kg.resources import SHARED_DIR

__all__ = [
    "ENTITY_TYPES", "RELATION_LABELS", "SPLITS", "TYPE_MAP", "Prf", "Scores", "SciercDoc",
    "data_dir", "evaluate", "predictions_from_record", "read_split", "score_entities", "score_relations",
]

SPLITS = ("train", "dev", "test")
# SciERC type -> our type; the other two SciERC types (Generic, OtherScientificTerm) are not scored.
TYPE_MAP: Mapping[str, str] = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}
ENTITY_TYPES = ("Method", "Task", "Metric", "Dataset")
RELATION_LABELS = ("USED-FOR", "EVALUATE-FOR", "COMPARE", "PART-OF", "HYPONYM-OF", "FEATURE-OF", "CONJUNCTION")

# SciERC writes brackets and quotes as the Penn Treebank does; the text reads them as written.
PTB_ESCAPES: Mapping[str, str] = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{",
                                  "-RCB-": "}", "``": '"', "''": '"'}

EntitySpan = tuple[int, int, str]                   # (start, end, type), end exclusive
RelationTuple = tuple[int, int, int, int, str]      # (s_start, s_end, o_start, o_end, label)


# --- reading -----------------------------------------------------------------------------------

def data_dir() -> Path:
    """Where SciERC's ``{train,dev,test}.json`` are: ``$KG_SCIERC_DIR``, else ``../shared/scierc`` beside the repo."""
    env = os.environ.get("KG_SCIERC_DIR")
    if env:
        return Path(env)
    return SHARED_DIR / "scierc"


@dataclass(frozen=True)
class SciercDoc:
    """One SciERC abstract as text with character-offset annotations.

    ``token_starts[i]``/``token_ends[i]`` are the character offsets of SciERC token ``i``;
    ``entities`` keeps every annotated span with its SciERC label (all six types);
    ``relations`` keeps ``(s_start, s_end, o_start, o_end, label)`` in SciERC's direction.
    """

    doc_key: str
    text: str
    tokens: tuple[str, ...]
    token_starts: tuple[int, ...]
    token_ends: tuple[int, ...]
    sentence_starts: tuple[int, ...] = ()          # first token index of each sentence
    entities: tuple[tuple[int, int, str], ...] = ()
    relations: tuple[RelationTuple, ...] = field(default=())

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> SciercDoc:
        tokens: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        sentence_starts: list[int] = []
        offset = 0
        for sentence in obj["sentences"]:
            sentence_starts.append(len(tokens))
            for token in sentence:
                token = PTB_ESCAPES.get(token, token)
                if tokens:
                    offset += 1  # the single space before every token but the first
                starts.append(offset)
                offset += len(token)
                ends.append(offset)
                tokens.append(token)
        text = " ".join(tokens)
        assert len(text) == offset

        def chars(first: int, last: int) -> tuple[int, int]:
            return starts[first], ends[last]

        entities = tuple((*chars(s, e), label) for sentence in obj.get("ner", []) for s, e, label in sentence)
        relations = tuple((*chars(s1, e1), *chars(s2, e2), label)
                          for sentence in obj.get("relations", []) for s1, e1, s2, e2, label in sentence)
        return cls(doc_key=str(obj.get("doc_key", "")), text=text, tokens=tuple(tokens),
                   token_starts=tuple(starts), token_ends=tuple(ends),
                   sentence_starts=tuple(sentence_starts), entities=entities, relations=relations)

    def gold_entities(self) -> set[EntitySpan]:
        """The scored gold mentions: ``(start, end, our type)`` for Method, Task, Metric, Material."""
        return {(s, e, TYPE_MAP[label]) for s, e, label in self.entities if label in TYPE_MAP}

    def gold_relations(self) -> set[RelationTuple]:
        return set(self.relations)


def read_split(split: str | os.PathLike[str], directory: Path | None = None) -> list[SciercDoc]:
    """The documents of ``split`` (``train``, ``dev``, ``test``, or a path to a SciERC json-lines file)."""
    path = Path(split) if str(split) not in SPLITS else (directory or data_dir()) / f"{split}.json"
    if not path.is_file():
        raise UsageError(f"{path}: no such SciERC file (set $KG_SCIERC_DIR to the folder of train/dev/test.json)")
    with path.open(encoding="utf-8") as handle:
        return [SciercDoc.from_json(json.loads(line)) for line in handle if line.strip()]


# --- scoring ----------------------------------------------------------------------------------

@dataclass
class Prf:
    """True positives, false positives and false negatives, with precision, recall and F1."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def gold(self) -> int:
        return self.tp + self.fn

    @property
    def predicted(self) -> int:
        return self.tp + self.fp

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def add(self, gold: set, predicted: set) -> None:
        self.tp += len(gold & predicted)
        self.fp += len(predicted - gold)
        self.fn += len(gold - predicted)

    def to_json(self) -> dict[str, float | int]:
        return {"precision": round(self.precision, 4), "recall": round(self.recall, 4), "f1": round(self.f1, 4),
                "tp": self.tp, "fp": self.fp, "fn": self.fn, "gold": self.gold, "predicted": self.predicted}


@dataclass
class Scores:
    """Micro-averaged and per-label :class:`Prf`."""

    micro: Prf
    per_label: dict[str, Prf]

    def to_json(self) -> dict[str, Any]:
        return {"micro": self.micro.to_json(), "per_type": {k: v.to_json() for k, v in self.per_label.items()}}


def score_entities(gold: Iterable[set[EntitySpan]], predicted: Iterable[set[EntitySpan]],
                   types: Sequence[str] = ENTITY_TYPES) -> Scores:
    """Exact-span, exact-type scores over paired documents; spans of other types are ignored on both sides.

    >>> s = score_entities([{(0, 5, "Method"), (9, 12, "Dataset")}], [{(0, 5, "Task"), (9, 12, "Dataset")}])
    >>> s.micro.tp, s.micro.fp, s.micro.fn, s.per_label["Method"].fn, s.per_label["Task"].fp
    (1, 1, 1, 1, 1)
    """
    return _score(gold, predicted, types, key=lambda item: item[2])


def score_relations(gold: Iterable[set[RelationTuple]], predicted: Iterable[set[RelationTuple]],
                    labels: Sequence[str] = RELATION_LABELS) -> Scores:
    """A relation counts when both argument spans (exact characters, in order) and the label match.

    >>> score_relations([{(0, 3, 8, 12, "USED-FOR")}], [{(0, 3, 8, 12, "USED-FOR"), (8, 12, 0, 3, "COMPARE")}]).micro.f1
    0.6666666666666666
    """
    return _score(gold, predicted, labels, key=lambda item: item[4])


def _score(gold: Iterable[set], predicted: Iterable[set], labels: Sequence[str], key) -> Scores:
    micro = Prf()
    per_label = {label: Prf() for label in labels}
    for gold_set, predicted_set in zip(gold, predicted, strict=True):
        for label, prf in per_label.items():
            g = {item for item in gold_set if key(item) == label}
            p = {item for item in predicted_set if key(item) == label}
            prf.add(g, p)
            micro.add(g, p)
    return Scores(micro=micro, per_label=per_label)


def predictions_from_record(record: Mapping[str, Any]) -> tuple[set[EntitySpan], set[RelationTuple]]:
    """The scored spans of one ``kg extract`` JSON object: every mention with its entity's SciERC
    type as ours (or, without one, its entity's type), and every relation that carries a ``scierc`` label."""
    entities = {(m["start"], m["end"], TYPE_MAP.get(e["scierc"], "") if "scierc" in e else e["type"])
                for e in record.get("entities", ()) for m in e["mentions"]}
    from kg.extract.relations import SCIERC_INVERTED

    relations = set()
    for r in record.get("relations", ()):
        if r.get("scierc"):
            first, second = r["subject_span"], r["object_span"]
            if r["predicate"] in SCIERC_INVERTED:
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
        return {"split": self.split, "documents": self.documents,
                "entities": self.entities.to_json(), "relations": self.relations.to_json()}

    def to_text(self) -> str:
        lines = [f"SciERC {self.split}: {self.documents} documents; exact character span + type"]
        for title, scores in (("entities", self.entities), ("relations", self.relations)):
            lines.append("")
            lines.append(f"{title:<14}{'P':>7}{'R':>7}{'F1':>7}{'gold':>7}{'pred':>7}")
            rows = [*scores.per_label.items(), ("micro", scores.micro)]
            for label, prf in rows:
                lines.append(f"  {label:<12}{prf.precision:7.3f}{prf.recall:7.3f}{prf.f1:7.3f}"
                             f"{prf.gold:7d}{prf.predicted:7d}")
        return "\n".join(lines)


def iter_predictions(docs: Sequence[SciercDoc], extractor=None, model: str | None = None) -> Iterator[dict[str, Any]]:
    """``kg extract --profile scierc`` JSON objects for ``docs``, through the same :class:`Extractor`."""
    from kg.extract.pipeline import Extractor
    from kg.ingest import Document

    extractor = extractor or Extractor(model=model, profile="scierc")
    documents = [Document(id=d.doc_key, text=d.text, source=f"scierc:{i + 1}") for i, d in enumerate(docs)]
    for record in extractor.extract(documents):
        yield record.to_json()


def evaluate(split: str = "dev", *, model: str | None = None, extractor=None,
             directory: Path | None = None) -> Evaluation:
    """Run ``kg extract --profile scierc`` (spaCy pipeline ``model``, or a given ``extractor``)
    over a SciERC split and score it."""
    docs = read_split(split, directory)
    predicted_entities, predicted_relations = [], []
    for record in iter_predictions(docs, extractor, model):
        entities, relations = predictions_from_record(record)
        predicted_entities.append(entities)
        predicted_relations.append(relations)
    return Evaluation(
        split=str(split), documents=len(docs),
        entities=score_entities([d.gold_entities() for d in docs], predicted_entities),
        relations=score_relations([d.gold_relations() for d in docs], predicted_relations),
    )
