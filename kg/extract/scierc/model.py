"""``kg_scierc``: SciERC's entities and relations, from one fine-tuned MiniLM encoder.

A span-based joint model in the manner of DyGIE and PURE. Each sentence's words (spaCy
tokens) are split into WordPiece pieces and encoded by all-MiniLM-L6-v2, fine-tuned on
SciERC train (:mod:`kg.extract.encoder` runs it in numpy). Every stretch of up to
``max_width`` words is a candidate span, represented by its first and last pieces and a
width embedding, and classified as one of SciERC's six types or as no mention; the best
non-overlapping spans are kept. Every ordered pair of kept spans in a sentence is then
classified as one of the seven relation labels (in SciERC's direction) or none, from the two
span representations, their product, the mean of the pieces between them, their distance
and their predicted types. Of two directions of one pair, the more confident is kept.

==================  =========================  ==============================================
component           requires                   assigns
==================  =========================  ==============================================
``kg_scierc``       ``token.is_sent_start``    ``doc.spans["kg_scierc"]`` (SciERC types),
                                               ``doc.spans["kg_entities"]`` (our types),
                                               ``doc.user_data["kg_relations"]``
==================  =========================  ==============================================

SciERC's Generic and OtherScientificTerm mentions are kept, because a third of SciERC's
relations have a Generic argument ("this method"): OtherScientificTerm becomes a Phenomenon,
and a Generic mention takes whichever of our types the model scores highest for it. Each
keeps its SciERC type in ``doc.spans["kg_scierc"]``, which ``kg extract`` reports as the
entity's ``scierc``.

The weights ship as ``kg/models/scierc_joint.npz`` with the encoder's vocabulary
``kg/models/minilm_vocab.txt``; ``kg train scierc`` (:mod:`kg.extract.scierc.training`)
retrains them.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kg.errors import ModelNotFoundError
from kg.extract.encoder import BertEncoder, WordPiece
from kg.extract.scierc.schema import ENTITY_TYPES, OUR_TYPE, RELATION_LABELS
from kg.resources import MODELS_DIR

SPANS_KEY = "kg_scierc"
MODELS = MODELS_DIR
MODEL_FILE = MODELS / "scierc_joint.npz"
VOCAB_FILE = MODELS / "minilm_vocab.txt"
# Chosen on SciERC dev (span 0.5 to 0.8, relation 0.5 to 0.7 tried): a mention or a relation is kept
# when "none" has less than this probability.
SPAN_THRESHOLD = RELATION_THRESHOLD = 0.6
# Longest input, in pieces: MiniLM's position table has 512 rows.
MAX_PIECES = 512


@dataclass(frozen=True)
class SpanPrediction:
    """A mention: words ``start`` to ``end`` (exclusive) of its sentence."""

    start: int
    end: int
    scierc: str
    type: str
    score: float


@dataclass(frozen=True)
class RelationPrediction:
    """``first`` and ``second`` index the sentence's spans, in SciERC's direction."""

    first: int
    second: int
    label: str
    score: float


@dataclass(frozen=True)
class SentencePrediction:
    spans: tuple[SpanPrediction, ...]
    relations: tuple[RelationPrediction, ...]


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _softmax(x: np.ndarray) -> np.ndarray:
    x = np.exp(x - x.max(-1, keepdims=True))
    return x / x.sum(-1, keepdims=True)


def distance_bucket(distance: int) -> int:
    """Word distances 0-4 as themselves, then logarithmic buckets up to 9.

    >>> [distance_bucket(d) for d in (0, 4, 5, 8, 16, 100)]
    [0, 4, 5, 6, 7, 9]
    """
    distance = abs(distance)
    return distance if distance < 5 else min(9, 3 + int(math.log2(distance)))


class SciercModel:
    """The joint span and relation model (numpy inference).

    ``arrays`` holds the encoder's weights under ``encoder/`` and the heads' under their own
    names (see :mod:`kg.extract.scierc.training`, which writes them); ``config`` holds
    ``max_width``, ``context``, ``layers``, ``heads`` and ``layer_norm_eps``.
    """

    def __init__(
        self,
        arrays: dict[str, np.ndarray],
        config: dict,
        vocab: WordPiece,
        *,
        span_threshold: float = SPAN_THRESHOLD,
        relation_threshold: float = RELATION_THRESHOLD,
    ) -> None:
        self.config = config
        self.max_width = int(config["max_width"])
        self.encoder = BertEncoder(
            {k[len("encoder/") :]: v for k, v in arrays.items() if k.startswith("encoder/")},
            layers=config["layers"],
            heads=config["heads"],
            eps=config["layer_norm_eps"],
        )
        self.heads = {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items() if not k.startswith("encoder/")}
        self.vocab = vocab
        self.context = int(config.get("context", 0))  # pieces of the neighbouring sentences read
        self.span_threshold = span_threshold
        self.relation_threshold = relation_threshold

    @classmethod
    def load(cls, path: Path | str | None = None, **thresholds: float) -> SciercModel:
        """The shipped model (or ``path``, or ``$KG_SCIERC_MODEL``)."""
        path = Path(path or os.environ.get("KG_SCIERC_MODEL") or MODEL_FILE)
        if not path.is_file():
            raise ModelNotFoundError(f"{path}: the SciERC model is missing (retrain it with: kg train scierc)")
        with np.load(path) as npz:
            arrays, config = unpack_weights({name: npz[name] for name in npz.files})
        vocab_file = path.with_name(VOCAB_FILE.name) if path.with_name(VOCAB_FILE.name).is_file() else VOCAB_FILE
        return cls(arrays, config, WordPiece.from_file(vocab_file), **thresholds)

    # --- computing -------------------------------------------------------------------------

    def predict(
        self,
        sentences: Sequence[Sequence[str]],
        contexts: Sequence[tuple[Sequence[str], Sequence[str]]] = (),
        *,
        mentions: Sequence[Sequence[tuple[int, int, str]]] | None = None,
        batch_size: int = 32,
    ) -> list[SentencePrediction]:
        """Spans and relations of each sentence (a sequence of words), each read with the words
        before and after it in ``contexts`` (when given). With ``mentions`` (``(start, end,
        SciERC type)`` per sentence), those are the spans (but any longer than ``max_width``), and
        only the relations are predicted."""
        context = self.context
        # Sentences of similar length share a batch: less padding.
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        results: dict[int, SentencePrediction] = {}
        for begin in range(0, len(order), batch_size):
            rows = order[begin : begin + batch_size]
            encoded = [
                word_pieces(
                    self.vocab,
                    sentences[i],
                    left=contexts[i][0] if contexts else (),
                    right=contexts[i][1] if contexts else (),
                    context=context,
                )
                for i in rows
            ]
            hidden = self.encoder([ids for ids, _, _ in encoded])
            for row, i in enumerate(rows):
                _, firsts, lasts = encoded[row]
                results[i] = self._sentence(hidden[row], firsts, lasts, None if mentions is None else mentions[i])
        return [results[i] for i in range(len(sentences))]

    def _sentence(
        self, hidden: np.ndarray, firsts: list[int], lasts: list[int], given: Sequence[tuple[int, int, str]] | None
    ) -> SentencePrediction:
        n = len(firsts)
        if n == 0:
            return SentencePrediction((), ())
        candidates = candidate_spans(n, self.max_width)
        starts = np.array([firsts[a] for a, _ in candidates])
        ends = np.array([lasts[b - 1] for _, b in candidates])
        widths = np.array([b - a - 1 for a, b in candidates])
        h = self.heads
        span_repr = _relu(
            np.concatenate([hidden[starts], hidden[ends], h["width_embedding"][widths]], -1) @ h["span.weight"].T
            + h["span.bias"]
        )
        probabilities = _softmax(
            _relu(span_repr @ h["ner.0.weight"].T + h["ner.0.bias"]) @ h["ner.1.weight"].T + h["ner.1.bias"]
        )
        if given is None:
            chosen = decode_spans(probabilities, candidates, threshold=self.span_threshold)
        else:
            row_of = {span: k for k, span in enumerate(candidates)}
            chosen = [(row_of[(a, b)], (a, b), ENTITY_TYPES.index(t) + 1) for a, b, t in given if (a, b) in row_of]
        spans = tuple(
            SpanPrediction(
                a,
                b,
                ENTITY_TYPES[label - 1],
                _our_type(probabilities[k], label),
                round(float(probabilities[k, label]), 4),
            )
            for k, (a, b), label in chosen
        )
        return SentencePrediction(spans, self._relations(hidden, firsts, lasts, span_repr, chosen))

    def _relations(
        self,
        hidden: np.ndarray,
        firsts: list[int],
        lasts: list[int],
        span_repr: np.ndarray,
        chosen: list[tuple[int, tuple[int, int], int]],
    ) -> tuple[RelationPrediction, ...]:
        if len(chosen) < 2:
            return ()
        h = self.heads
        pairs = ordered_pairs(len(chosen))
        index = [k for k, _, _ in chosen]
        first = span_repr[[index[x] for x, _ in pairs]]
        second = span_repr[[index[y] for _, y in pairs]]
        between = np.stack([mean_between(hidden, firsts, lasts, chosen[x][1], chosen[y][1]) for x, y in pairs])
        distance = np.array([distance_bucket(chosen[y][1][0] - chosen[x][1][0]) for x, y in pairs])
        types = np.array([chosen[x][2] for x, _ in pairs]), np.array([chosen[y][2] for _, y in pairs])
        pair_repr = np.concatenate(
            [
                first,
                second,
                first * second,
                between,
                h["distance_embedding"][distance],
                h["type_embedding"][types[0]],
                h["type_embedding"][types[1]],
            ],
            -1,
        )
        relation_probabilities = _softmax(
            _relu(pair_repr @ h["rel.0.weight"].T + h["rel.0.bias"]) @ h["rel.1.weight"].T + h["rel.1.bias"]
        )
        relations = decode_relations(relation_probabilities, pairs, threshold=self.relation_threshold)
        return tuple(
            RelationPrediction(x, y, RELATION_LABELS[label - 1], round(score, 4)) for x, y, label, score in relations
        )


def pack_weights(arrays: dict[str, np.ndarray], config: dict) -> dict[str, np.ndarray]:
    """The arrays as stored: the encoder's matrices in int8 with one float32 scale per row (a
    quarter of their size; SciERC dev F1 moved by less than 0.01), the rest in float32, the
    config as json bytes. :func:`unpack_weights` undoes it.

    >>> packed = pack_weights({"encoder/m": np.array([[1.0, -0.5], [0.0, 0.0]]), "b": np.ones(2)}, {"w": 1})
    >>> sorted(packed), packed["encoder/m.int8"].tolist()
    (['b', 'config', 'encoder/m.int8', 'encoder/m.scale'], [[127, -64], [0, 0]])
    >>> arrays, config = unpack_weights(packed)
    >>> arrays["encoder/m"].round(2).tolist(), config
    ([[1.0, -0.5], [0.0, 0.0]], {'w': 1})
    """
    packed = {}
    for name, array in arrays.items():
        array = np.asarray(array, dtype=np.float32)
        if name.startswith("encoder/") and array.ndim == 2:
            scale = np.abs(array).max(1, keepdims=True) / 127.0
            scale[scale == 0] = 1.0
            packed[f"{name}.int8"] = np.round(array / scale).astype(np.int8)
            packed[f"{name}.scale"] = scale.astype(np.float32)
        else:
            packed[name] = array
    packed["config"] = np.frombuffer(json.dumps(config, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    return packed


def unpack_weights(packed: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict]:
    """The arrays and the config that :func:`pack_weights` stored."""
    arrays = {}
    for name, array in packed.items():
        if name.endswith(".int8"):
            base = name[: -len(".int8")]
            arrays[base] = array.astype(np.float32) * packed[f"{base}.scale"]
        elif not name.endswith(".scale") and name != "config":
            arrays[name] = array
    return arrays, json.loads(bytes(packed["config"]).decode("utf-8"))


def word_pieces(
    vocab: WordPiece, words: Sequence[str], *, left: Sequence[str] = (), right: Sequence[str] = (), context: int = 0
) -> tuple[list[int], list[int], list[int]]:
    """``[CLS] context pieces context [SEP]`` ids, and the positions of each word's first and last
    piece. Up to ``context`` pieces of the words ``left`` and ``right`` of the sentence frame it;
    words past what the encoder's 512 positions hold are left out.

    >>> vocab = WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3, "##b": 4, "c": 5})
    >>> word_pieces(vocab, ["ab", "a"])
    ([1, 3, 4, 3, 2], [1, 3], [2, 3])
    >>> word_pieces(vocab, ["a"], left=["c", "ab"], right=["c"], context=1)
    ([1, 4, 3, 5, 2], [2], [2])
    """
    before = [p for word in left[-context:] for p in vocab(word)][-context:] if context else []
    after = [p for word in right[:context] for p in vocab(word)][:context] if context else []
    ids, firsts, lasts = [vocab.ids["[CLS]"], *before], [], []
    for word in words:
        pieces = vocab(word)
        if len(ids) + len(pieces) >= MAX_PIECES - len(after):
            break
        firsts.append(len(ids))
        ids.extend(pieces)
        lasts.append(len(ids) - 1)
    ids.extend(after)
    ids.append(vocab.ids["[SEP]"])
    return ids, firsts, lasts


def candidate_spans(words: int, max_width: int) -> list[tuple[int, int]]:
    """Every stretch of up to ``max_width`` of ``words`` words, as ``(start, end)``, end exclusive.

    >>> candidate_spans(3, 2)
    [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]
    """
    return [(a, b) for a in range(words) for b in range(a + 1, min(words, a + max_width) + 1)]


def ordered_pairs(count: int) -> list[tuple[int, int]]:
    """Every ordered pair of two different indices below ``count``.

    >>> ordered_pairs(3)
    [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    """
    return [(x, y) for x in range(count) for y in range(count) if x != y]


def neighbour_words(sentences: Sequence[Sequence[str]]) -> list[tuple[list[str], list[str]]]:
    """For each sentence of a document, the words before it and the words after it.

    >>> neighbour_words([["a", "b"], ["c"], ["d"]])
    [([], ['c', 'd']), (['a', 'b'], ['d']), (['a', 'b', 'c'], [])]
    """
    return [
        ([w for s in sentences[:i] for w in s], [w for s in sentences[i + 1 :] for w in s])
        for i in range(len(sentences))
    ]


def _our_type(probabilities: np.ndarray, label: int) -> str:
    if ENTITY_TYPES[label - 1] != "Generic":
        return OUR_TYPE[ENTITY_TYPES[label - 1]]
    best = max(range(1, len(ENTITY_TYPES)), key=lambda k: probabilities[k])  # classes 1..5: all but Generic
    return OUR_TYPE[ENTITY_TYPES[best - 1]]


def mean_between(hidden, firsts, lasts, first: tuple[int, int], second: tuple[int, int]):
    """The mean of the pieces between two word spans (zeros when they touch), for numpy arrays and torch
    tensors alike (training builds the same pair input as the run-time model).

    >>> mean_between(np.arange(8.0).reshape(4, 2), [0, 1, 2, 3], [0, 1, 2, 3], (0, 1), (3, 4))
    array([3., 4.])
    """
    low = min(lasts[first[1] - 1], lasts[second[1] - 1]) + 1
    high = max(firsts[first[0]], firsts[second[0]])
    return hidden[low:high].mean(0) if high > low else hidden[0] * 0


def decode_spans(
    probabilities: np.ndarray, candidates: Sequence[tuple[int, int]], *, threshold: float = 0.5
) -> list[tuple[int, tuple[int, int], int]]:
    """The candidates whose "no mention" probability (column 0) is below ``threshold``, most
    confident first, skipping any that overlaps one already kept; as ``(row, span, label)`` in
    text order.

    >>> p = np.array([[0.1, 0.9, 0.0], [0.2, 0.0, 0.8], [0.9, 0.1, 0.0]])
    >>> decode_spans(p, [(0, 2), (1, 3), (3, 4)])
    [(0, (0, 2), 1)]
    """
    labels = probabilities[:, 1:].argmax(-1) + 1
    ranked = sorted(
        (k for k in range(len(candidates)) if probabilities[k, 0] < threshold),
        key=lambda k: (-probabilities[k, labels[k]], candidates[k]),
    )
    taken: set[int] = set()
    kept = []
    for k in ranked:
        a, b = candidates[k]
        if taken.isdisjoint(range(a, b)):
            taken.update(range(a, b))
            kept.append((k, (a, b), int(labels[k])))
    return sorted(kept, key=lambda item: item[1])


def decode_relations(
    probabilities: np.ndarray, pairs: Sequence[tuple[int, int]], *, threshold: float = 0.5
) -> list[tuple[int, int, int, float]]:
    """Pairs whose "no relation" probability is below ``threshold``, as ``(first, second, label,
    score)``; of the two directions of one pair, only the more confident.

    >>> p = np.array([[0.2, 0.8, 0.0], [0.4, 0.0, 0.6], [0.9, 0.1, 0.0]])
    >>> decode_relations(p, [(0, 1), (1, 0), (0, 2)])
    [(0, 1, 1, 0.8)]
    """
    found: dict[tuple[int, int], tuple[float, int]] = {}
    for k, pair in enumerate(pairs):
        if probabilities[k, 0] < threshold:
            label = int(probabilities[k, 1:].argmax()) + 1
            found[pair] = (float(probabilities[k, label]), label)
    return [
        (x, y, label, score)
        for (x, y), (score, label) in sorted(found.items())
        if (y, x) not in found or found[(y, x)][0] < score or (found[(y, x)][0] == score and x < y)
    ]


# --- the pipeline component -------------------------------------------------------------------
