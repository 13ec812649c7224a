"""A BERT encoder's forward pass in numpy, and its uncased WordPiece tokenizer.

Run time needs neither torch nor transformers: the SciERC model (:mod:`kg.extract.scierc.model`)
ships its fine-tuned weights as arrays named as in Hugging Face's ``BertModel``
(``encoder.layer.0.attention.self.query.weight`` ...), and this module computes what
``BertModel`` computes (post-LayerNorm, exact GELU) in float32.

Examples
--------
>>> pieces = WordPiece({"[UNK]": 0, "un": 1, "##able": 2, "-": 3, "x": 4})
>>> pieces("Unable"), pieces("x-x"), pieces("zzz")
([1, 2], [4, 3, 4], [0])
"""

from __future__ import annotations

import json
import math
import struct
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

__all__ = ["BertEncoder", "WordPiece", "load_safetensors"]


class WordPiece:
    """BERT's uncased WordPiece: lower-case, strip accents, split off punctuation, then greedy
    longest-match pieces (``##`` marks a continuation). ``vocab`` maps piece to id."""

    def __init__(self, vocab: Mapping[str, int], *, max_pieces: int = 8) -> None:
        self.ids = dict(vocab)
        self.unk = self.ids["[UNK]"]
        self.max_pieces = max_pieces

    @classmethod
    def from_file(cls, path: Path) -> WordPiece:
        with Path(path).open(encoding="utf-8") as handle:
            return cls({line.rstrip("\n"): i for i, line in enumerate(handle)})

    def __call__(self, word: str) -> list[int]:
        """The piece ids of one word (at most ``max_pieces``; never empty)."""
        word = "".join(ch for ch in unicodedata.normalize("NFD", word.lower()) if unicodedata.category(ch) != "Mn")
        pieces: list[int] = []
        for part in _split_punctuation(word):
            pieces.extend(self._greedy(part))
        return pieces[: self.max_pieces] or [self.unk]

    def _greedy(self, part: str) -> list[int]:
        start, ids = 0, []
        while start < len(part):
            end = len(part)
            while end > start:
                piece = part[start:end] if start == 0 else "##" + part[start:end]
                if piece in self.ids:
                    ids.append(self.ids[piece])
                    break
                end -= 1
            if end == start:
                return [self.unk]
            start = end
        return ids


def _split_punctuation(word: str) -> list[str]:
    parts, current = [], ""
    for ch in word:
        if ch.isalnum():
            current += ch
        else:
            if current:
                parts.append(current)
            if not ch.isspace():
                parts.append(ch)
            current = ""
    if current:
        parts.append(current)
    return parts


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The float32/int64 tensors of a ``.safetensors`` file (the format is a json header and raw arrays)."""
    with Path(path).open("rb") as handle:
        size = struct.unpack("<Q", handle.read(8))[0]
        header = json.loads(handle.read(size))
        data = handle.read()
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[begin:end], dtype=dtypes[info["dtype"]]).reshape(info["shape"]).copy()
    return tensors


class BertEncoder:
    """``BertModel``'s forward pass over weights named as Hugging Face names them (no pooler).

    Parameters
    ----------
    weights : mapping of str to ndarray
        ``embeddings.*`` and ``encoder.layer.{i}.*`` arrays (any float dtype; computed in float32).
    layers, heads : int
        The number of layers and attention heads.
    eps : float
        LayerNorm's epsilon.
    """

    def __init__(self, weights: Mapping[str, np.ndarray], *, layers: int, heads: int, eps: float = 1e-12) -> None:
        self.w = {name: np.asarray(array, dtype=np.float32) for name, array in weights.items()}
        for name in list(self.w):  # a contiguous (in, out) matrix is what BLAS multiplies fastest
            if name.endswith(".weight") and self.w[name].ndim == 2 and not name.startswith("embeddings."):
                self.w[name] = np.ascontiguousarray(self.w[name].T)
        self.layers, self.heads, self.eps = layers, heads, eps

    def __call__(self, ids: Sequence[Sequence[int]]) -> np.ndarray:
        """Hidden states of the last layer, ``(len(ids), longest, hidden)``; padding rows are garbage."""
        length = max(len(seq) for seq in ids)
        batch = np.zeros((len(ids), length), dtype=np.int64)
        mask = np.zeros((len(ids), length), dtype=np.float32)
        for row, seq in enumerate(ids):
            batch[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][batch]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._layer_norm(x, "embeddings.LayerNorm")
        n, t, d = x.shape
        h = self.heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}"

            def heads_of(name: str) -> np.ndarray:
                return self._dense(x, f"{p}.attention.self.{name}").reshape(n, t, h, d // h).transpose(0, 2, 1, 3)

            q, k, v = heads_of("query"), heads_of("key"), heads_of("value")
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d // h) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, t, d)
            x = self._layer_norm(
                x + self._dense(context, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm"
            )
            inner = gelu(self._dense(x, f"{p}.intermediate.dense"))
            x = self._layer_norm(x + self._dense(inner, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        return x

    def _layer_norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        flat = np.ascontiguousarray(x.reshape(-1, x.shape[-1])) @ self.w[f"{name}.weight"]
        return flat.reshape(*x.shape[:-1], -1) + self.w[f"{name}.bias"]


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU, ``x * Phi(x)``, with erf by Abramowitz and Stegun 7.1.26 (error below 1.5e-7).

    >>> [round(float(v), 4) for v in gelu(np.array([-1.0, 0.0, 1.0]))]
    [-0.1587, 0.0, 0.8413]
    """
    z = np.abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return 0.5 * x * (1.0 + erf)
