"""Precision, recall and F1: the one implementation every score in the project uses.

A leaf that any layer may import: the benchmarks (:mod:`kg.eval`) score with it, and so do the
trainers in :mod:`kg.extract`, which choose their best epoch by it and may not import
:mod:`kg.eval` (evaluation runs extraction, not the other way round).

Arguments come in one order everywhere: what was predicted, then the gold standard.

Examples
--------
>>> score = Prf.of({"a", "b", "c"}, {"a", "b", "d"}) + Prf(fn=1)
>>> score, round(score.f1, 3)
(Prf(tp=2, fp=1, fn=2), 0.571)
>>> score.as_dict(digits=3, short=True)
{'P': 0.667, 'R': 0.5, 'F1': 0.571, 'tp': 2, 'fp': 1, 'fn': 2}
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass, field

__all__ = ["Prf", "Scores"]


@dataclass(frozen=True)
class Prf:
    """Counts of true positives, false positives and false negatives, with the figures they give.

    Scores add up: the sum over documents (or labels) is the micro-averaged score.
    """

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @classmethod
    def of(cls, predicted: Set, gold: Set) -> Prf:
        """Exact matching: what is in both sets, only in ``predicted``, only in ``gold``."""
        return cls(len(predicted & gold), len(predicted - gold), len(gold - predicted))

    def __add__(self, other: Prf) -> Prf:
        return Prf(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

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

    def as_dict(self, digits: int = 4, *, short: bool = False) -> dict[str, float | int]:
        """The figures rounded to ``digits``, then the counts: ``precision``, ``recall``, ``f1``,
        ``tp``, ``fp``, ``fn``, ``gold``, ``predicted`` (``kg eval scierc``), or with ``short``
        ``P``, ``R``, ``F1``, ``tp``, ``fp``, ``fn`` (``kg eval gold``, as the annotation's scorer)."""
        p, r, f1 = round(self.precision, digits), round(self.recall, digits), round(self.f1, digits)
        if short:
            return {"P": p, "R": r, "F1": f1, "tp": self.tp, "fp": self.fp, "fn": self.fn}
        return {
            "precision": p,
            "recall": r,
            "f1": f1,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "gold": self.gold,
            "predicted": self.predicted,
        }


@dataclass(frozen=True)
class Scores:
    """A :class:`Prf` per label (an entity type, a relation label), and one over all of them.

    Examples
    --------
    >>> scores = Scores.from_labels({"Method": Prf(tp=1), "Task": Prf(fp=1)})
    >>> scores.micro, scores.as_dict(digits=2)["per_type"]["Task"]["precision"]
    (Prf(tp=1, fp=1, fn=0), 0.0)
    """

    micro: Prf
    per_label: Mapping[str, Prf] = field(default_factory=dict)

    @classmethod
    def from_labels(cls, per_label: Mapping[str, Prf]) -> Scores:
        """Per-label scores, micro-averaged: the labels' counts added up."""
        return cls(micro=sum(per_label.values(), Prf()), per_label=dict(per_label))

    def as_dict(self, digits: int = 4) -> dict[str, dict]:
        """``{"micro": ..., "per_type": {label: ...}}``, each as :meth:`Prf.as_dict`."""
        return {
            "micro": self.micro.as_dict(digits),
            "per_type": {label: prf.as_dict(digits) for label, prf in self.per_label.items()},
        }
