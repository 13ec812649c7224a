"""Relation confidence that means what it says: isotonic regression of "was the relation right" on the
pair classifier's probability, fitted on the held-out tenth of the training annotations, so that among
relations stored with confidence c about a fraction c is right.

Examples
--------
>>> calibration = Calibration.fit([0.1, 0.2, 0.3, 0.6, 0.7, 0.9], [0, 0, 1, 0, 1, 1])
>>> [round(calibration(p), 3) for p in (0.05, 0.3, 0.65, 0.95)]
[0.0, 0.5, 0.75, 1.0]
>>> Calibration.from_arrays(None, None)(0.7)
0.7
>>> rows, ece = reliability([0.15, 0.15, 0.85, 0.85], [0, 1, 1, 1], bins=2)
>>> rows, round(ece, 3)
([(0.0, 0.5, 2, 0.15, 0.5), (0.5, 1.0, 2, 0.85, 1.0)], 0.25)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class Calibration:
    """A monotone map from a probability to a calibrated confidence (the identity when not fitted)."""

    def __init__(self, x: np.ndarray | None = None, y: np.ndarray | None = None) -> None:
        self.x = None if x is None else np.asarray(x, dtype=np.float64)
        self.y = None if y is None else np.asarray(y, dtype=np.float64)

    @classmethod
    def from_arrays(cls, x, y) -> Calibration:
        return cls(x, y)

    @classmethod
    def fit(cls, scores: Sequence[float], correct: Sequence[int]) -> Calibration:
        """Pool adjacent violators over the scores in increasing order."""
        order = np.argsort(np.asarray(scores, dtype=np.float64), kind="stable")
        xs = np.asarray(scores, dtype=np.float64)[order]
        ys = np.asarray(correct, dtype=np.float64)[order]
        blocks: list[list[float]] = []  # [sum of y, count, lowest x, highest x]
        for x, y in zip(xs, ys):
            blocks.append([y, 1.0, x, x])
            while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
                total, count, _, high = blocks.pop()
                blocks[-1][0] += total
                blocks[-1][1] += count
                blocks[-1][3] = high
        x_points, y_points = [], []
        for total, count, low, high in blocks:
            x_points.extend((low, high))
            y_points.extend((total / count, total / count))
        return cls(np.array(x_points), np.array(y_points))

    @classmethod
    def platt(cls, scores: Sequence[float], correct: Sequence[int], *, iterations: int = 200) -> Calibration:
        """Logistic regression of ``correct`` on the logit of the score (Platt scaling: two parameters, so
        steadier than isotonic regression on a few hundred relations), tabulated at 101 points.

        >>> calibration = Calibration.platt([0.2, 0.4, 0.6, 0.8] * 5, [0, 0, 1, 1] * 5)
        >>> calibration(0.2) < 0.2 and calibration(0.8) > 0.8
        True

        Scores that say little of correctness (plain Newton steps diverge on these) give a flat map:

        >>> weak = Calibration.platt([0.05, 0.5, 0.95, 0.99] * 3, [0, 1, 0, 1] * 3)
        >>> 0.2 < weak(0.05) < weak(0.5) < weak(0.99) < 0.8
        True

        All right or all wrong, or nothing at all, still gives a map:

        >>> Calibration.platt([0.3, 0.6, 0.9], [1, 1, 1])(0.6) > 0.9, Calibration.platt([], [])(0.6)
        (True, 0.6)
        """
        if len(scores) == 0:  # nothing to fit: confidences stay as they are
            return cls()
        p = np.clip(np.asarray(scores, dtype=np.float64), 1e-4, 1 - 1e-4)
        x = np.log(p / (1 - p))
        y = np.asarray(correct, dtype=np.float64)

        def loss(a: float, b: float) -> float:  # the log loss, lightly regularised
            z = a * x + b
            return float((np.logaddexp(0.0, z) - y * z).sum() + 5e-4 * (a * a + b * b))

        a, b = 1.0, 0.0
        for _ in range(iterations):  # Newton's method, each step halved until the loss falls
            q = _sigmoid(a * x + b)
            w = q * (1 - q) + 1e-9
            gradient = np.array([((q - y) * x).sum() + 1e-3 * a, (q - y).sum() + 1e-3 * b])
            hessian = np.array([[(w * x * x).sum() + 1e-3, (w * x).sum()], [(w * x).sum(), w.sum() + 1e-3]])
            step = np.linalg.solve(hessian, gradient)
            before, scale = loss(a, b), 1.0
            while scale > 1e-6 and loss(a - scale * step[0], b - scale * step[1]) > before:
                scale /= 2
            a, b = a - scale * step[0], b - scale * step[1]
            if np.abs(scale * step).max() < 1e-8:
                break
        grid = np.linspace(0.0, 1.0, 101)
        clipped = np.clip(grid, 1e-4, 1 - 1e-4)
        return cls(grid, _sigmoid(a * np.log(clipped / (1 - clipped)) + b))

    def __call__(self, score: float) -> float:
        if self.x is None or self.y is None or len(self.x) == 0:
            return float(score)
        return float(np.interp(score, self.x, self.y))

    def to_arrays(self) -> dict[str, np.ndarray]:
        if self.x is None:
            return {}
        return {"calibration.x": self.x.astype(np.float32), "calibration.y": self.y.astype(np.float32)}


def reliability(confidences: Sequence[float], correct: Sequence[int], *, bins: int = 10):
    """Rows ``(low, high, count, mean confidence, fraction right)`` over equal-width bins, and the
    expected calibration error (the count-weighted mean gap between confidence and fraction right)."""
    confidences = np.asarray(confidences, dtype=np.float64)
    correct = np.asarray(correct, dtype=np.float64)
    rows, gap = [], 0.0
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = (confidences >= low) & ((confidences < high) if b < bins - 1 else (confidences <= high))
        if inside.any():
            mean, right = float(confidences[inside].mean()), float(correct[inside].mean())
            rows.append((low, high, int(inside.sum()), round(mean, 3), round(right, 3)))
            gap += inside.sum() * abs(mean - right)
    return rows, float(gap / max(len(confidences), 1))


def _sigmoid(z):
    return np.exp(-np.logaddexp(0.0, -z))
