"""A relation classifier trained on SciERC: softmax regression over hashed features of an
entity pair (their types, the words between them, the dependency path joining them).

It complements the rules of :mod:`kg.extract.relations`; the weights ship in
``kg/models/relations.npz`` and are rebuilt with ``kg train relations``.

Examples
--------
>>> import spacy
>>> nlp = spacy.blank("en")
>>> doc = nlp("We use CRFs for tagging .")
>>> features = pair_features(doc[2:3], "Method", doc[4:5], "Task")
>>> "types=Method>Task" in features and "between=for" in features
True
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kg.extract.scierc.schema import PREDICATE_OF_LABEL, RELATION_LABELS, SCORED_AS
from kg.resources import MODELS_DIR

if TYPE_CHECKING:
    from spacy.tokens import Span

MODEL_FILE = MODELS_DIR / "relations.npz"
# Class 0 is "no relation"; then each label from the first mention to the second, then reversed.
CLASSES = ("NONE", *(f"{label}>" for label in RELATION_LABELS), *(f"{label}<" for label in RELATION_LABELS))
DIMENSIONS = 1 << 18
MAX_GAP = 30  # tokens between two mentions beyond which no pair is considered
# SciERC's entity types (it learns from) and ours (it runs on) as the classifier sees them: the
# scored SciERC types as ours, our Phenomenon as SciERC's OtherScientificTerm, both as "Other".
FEATURE_TYPE = {
    **SCORED_AS,
    **{ours: ours for ours in SCORED_AS.values()},
    "OtherScientificTerm": "Other",
    "Phenomenon": "Other",
    "Generic": "Generic",
}


def pair_features(first: Span, first_type: str, second: Span, second_type: str) -> list[str]:
    """Features of an ordered pair of mentions of one sentence (``first`` precedes ``second``)."""
    doc = first.doc
    between = doc[first.end : second.start]
    words = [t.lower_ for t in between]
    features = [
        f"types={first_type}>{second_type}",
        f"gap={min(len(between), 10)}",
        f"head1={first.root.lower_}",
        f"head2={second.root.lower_}",
        f"first_word={words[0] if words else '-'}",
        f"last_word={words[-1] if words else '-'}",
        f"before={doc[first.start - 1].lower_ if first.start > 0 else '-'}",
        f"after={doc[second.end].lower_ if second.end < len(doc) else '-'}",
    ]
    features += [f"between={w}" for w in set(words)]
    if len(words) <= 4:
        features.append("between_seq=" + " ".join(words))
    features += [f"{f}&{first_type}>{second_type}" for f in list(features[4:6])]
    path = _dependency_path(first.root, second.root)
    if path is not None:
        features.append("path=" + path)
        features.append(f"path={path}&{first_type}>{second_type}")
        features.append(f"path_len={min(path.count(' '), 6)}")
    else:
        features.append("path=none")
    return features


def _dependency_path(a, b) -> str | None:
    up_a = [a, *a.ancestors]
    up_b = [b, *b.ancestors]
    indices_b = {t.i: n for n, t in enumerate(up_b)}
    for n, token in enumerate(up_a):
        if token.i in indices_b:
            m = indices_b[token.i]
            left = [f"{t.dep_}^" for t in up_a[:n]]
            right = [f"v{t.dep_}" for t in reversed(up_b[:m])]
            middle = token.lemma_.lower() if token not in (a, b) else "="
            return " ".join([*left, middle, *right])
    return None


def _hash(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8")) % DIMENSIONS


@dataclass
class RelationModel:
    """Weights of the softmax regression, one column per class."""

    weights: np.ndarray  # (DIMENSIONS, len(CLASSES)), float32
    bias: np.ndarray  # (len(CLASSES),)

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> RelationModel:
        with np.load(path) as stored:
            return cls(weights=stored["weights"].astype(np.float32), bias=stored["bias"].astype(np.float32))

    def save(self, path: Path = MODEL_FILE) -> None:
        # float16 keeps the shipped file small; predictions do not change at this precision.
        np.savez_compressed(path, weights=self.weights.astype(np.float16), bias=self.bias.astype(np.float16))

    def probabilities(self, features: Sequence[str]) -> np.ndarray:
        indices = np.fromiter((_hash(f) for f in features), dtype=np.int64)
        scores = self.weights[indices].sum(axis=0) + self.bias
        scores = np.exp(scores - scores.max())
        return scores / scores.sum()

    def predict(self, features: Sequence[str]) -> tuple[str, float]:
        """The best class and its probability."""
        probabilities = self.probabilities(features)
        best = int(probabilities.argmax())
        return CLASSES[best], float(probabilities[best])

    def relate(self, first: Span, second: Span, *, threshold: float) -> tuple[Span, str, Span, str, float] | None:
        """The relation between two mentions of a sentence (``first`` precedes ``second``) as
        ``(subject, predicate, object, SciERC label, probability)``, or None when the best class
        is "no relation" or less probable than ``threshold``."""
        if second.start - first.end > MAX_GAP:
            return None
        label, probability = self.predict(
            pair_features(first, FEATURE_TYPE[first.label_], second, FEATURE_TYPE[second.label_])
        )
        if label == "NONE" or probability < threshold:
            return None
        scierc, forward = label[:-1], label.endswith(">")
        subject, obj = (first, second) if forward else (second, first)
        predicate, inverted = PREDICATE_OF_LABEL[scierc]
        if inverted:
            subject, obj = obj, subject
        return subject, predicate, obj, scierc, round(probability, 3)


def train(
    examples: Iterable[tuple[list[str], str]], *, epochs: int = 4, rate: float = 0.2, l2: float = 1e-6, seed: int = 0
) -> RelationModel:
    """Fit by AdaGrad on (features, class) pairs; deterministic for a given seed and order."""
    data = [
        (np.fromiter((_hash(f) for f in features), dtype=np.int64), CLASSES.index(label))
        for features, label in examples
    ]
    weights = np.zeros((DIMENSIONS, len(CLASSES)), dtype=np.float32)
    bias = np.zeros(len(CLASSES), dtype=np.float32)
    squares = np.full((DIMENSIONS, len(CLASSES)), 1e-6, dtype=np.float32)
    bias_squares = np.full(len(CLASSES), 1e-6, dtype=np.float32)
    order = np.random.default_rng(seed)
    for _ in range(epochs):
        for n in order.permutation(len(data)):
            indices, gold = data[n]
            scores = weights[indices].sum(axis=0) + bias
            probabilities = np.exp(scores - scores.max())
            probabilities /= probabilities.sum()
            gradient = probabilities
            gradient[gold] -= 1.0
            step = gradient[None, :] + l2 * weights[indices]
            squares[indices] += step * step
            np.subtract.at(weights, indices, rate * step / np.sqrt(squares[indices]))
            bias_squares += gradient * gradient
            bias -= rate * gradient / np.sqrt(bias_squares)
    return RelationModel(weights=weights, bias=bias)
