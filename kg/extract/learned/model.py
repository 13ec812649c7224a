"""``kg_learned``: the entities, the contribution and the relations of an abstract, from one
MiniLM encoder fine-tuned on the project's own annotations (:mod:`kg.extract.learned.data`).

A span-based joint model in the manner of the SciERC one (:mod:`kg.extract.scierc.model`, whose
pieces it reuses), but reading the whole abstract at once: the abstract's words (spaCy tokens) are
split into WordPiece pieces and encoded once by all-MiniLM-L6-v2 fine-tuned with the heads (in
chunks of whole sentences when it passes 510 pieces). Every stretch of up to ``max_width`` words of
a sentence, unless it holds a web address, is a candidate span, represented by its first and last
pieces and a width embedding; one head classifies it into our five types or none, a second scores
whether the paper proposes it.
Every ordered pair of the kept spans of a sentence, and of the phrases that refer to the paper's
own contribution ("our method", "it", "we": :mod:`kg.extract.learned.coref`), is classified into
the seven predicates or none, from the two span representations, their product, the mean of the
pieces between them, their distance and their kinds.

The extractor then makes entities (mentions folded alike, and an acronym with its Schwartz-Hearst
long form, are one entity; its type is the one its mentions' probabilities favour together), puts
relations of referring phrases on the proposed entity, and keeps for each entity pair the best
predicate. A relation's confidence is the pair classifier's probability mapped through the isotonic
calibration fitted on the held-out tenth of the annotations (:mod:`kg.extract.learned.calibration`).

==================  ==========================  ============================================
component           requires                    assigns
==================  ==========================  ============================================
``kg_learned``      ``token.is_sent_start``     ``doc.user_data["kg_learned"]`` (entities and
                                                relations, read by :func:`record_of`)
==================  ==========================  ============================================

The weights ship as ``kg/models/learned_joint.npz`` (the encoder's matrices in int8) with the
encoder's vocabulary ``kg/models/minilm_vocab.txt``; ``kg train extraction`` retrains them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kg.errors import ModelNotFoundError
from kg.extract.encoder import BertEncoder, WordPiece
from kg.extract.learned.calibration import Calibration
from kg.extract.learned.data import REFERENCE
from kg.extract.scierc.model import (
    VOCAB_FILE,
    _relu,
    _softmax,
    candidate_spans,
    decode_spans,
    distance_bucket,
    mean_between,
    unpack_weights,
)
from kg.resources import MODELS_DIR

MODEL_FILE = MODELS_DIR / "learned_joint.npz"
ENCODER_FILE = MODELS_DIR / "learned_encoder.onnx"  # the same encoder, int8, for onnxruntime
USER_DATA_KEY = "kg_learned"
MAX_PIECES = 510  # MiniLM reads 512 positions, two of them [CLS] and [SEP]
# SciERC's label for each predicate, and whether its arguments run the other way (DESIGN.md).
SCIERC_OF = {
    "usedFor": "USED-FOR",
    "evaluatedOn": "EVALUATE-FOR",
    "outperforms": "COMPARE",
    "comparedWith": "COMPARE",
    "partOf": "PART-OF",
    "hyponymOf": "HYPONYM-OF",
    "addresses": None,
}


@dataclass(frozen=True)
class Settings:
    """Decoding thresholds (chosen on the held-out tenth, see :mod:`kg.extract.learned.training`)."""

    span_threshold: float = 0.5  # a span is kept when "none" has less than this probability
    proposed_threshold: float = 0.5
    # A referring phrase ("our method") stands for the entity most confidently proposed, when its proposed
    # score reaches this (lower than the flag's threshold: the phrase itself says there is a contribution).
    owner_threshold: float = 0.3
    # An abstract with no entity proposed at ``proposed_threshold`` has its most confidently proposed
    # entity proposed when its score reaches this (most papers propose something; 1.0: never). The
    # default is the shipped model's, chosen on the held-out tenth as the others were (proposed F1 0.606
    # without it, 0.625 from 0.2 to 0.4); a model trained since carries its own.
    fallback_threshold: float = 0.4
    relation_threshold: float = 0.5  # a relation is kept when "none" has less than this probability
    acronyms: bool = True  # join an acronym to its Schwartz-Hearst long form
    references: bool = True  # relations of "our method" / "it" / "we" land on the proposed entity
    vocabulary: bool = False  # curated SKOS labels decide the type of a known name
    skip_urls: bool = True  # no span holding a web address is a candidate (GUIDELINES.md: skip URLs)
    # Nor one holding a citation key, nor one that is only a venue and its year or a lone character (a
    # variable): references, events and symbols, never annotated as names.
    skip_non_names: bool = True


@dataclass
class DocumentPrediction:
    """What the model reads off one abstract, over its words (end-exclusive word spans)."""

    spans: list[tuple[int, int, np.ndarray, float]] = field(default_factory=list)  # start, end, type probs, proposed
    references: list[tuple[int, int]] = field(default_factory=list)
    # (first argument, second argument, probabilities over none + predicates); an argument is
    # ("span", index into spans) or ("ref", index into references)
    pairs: list[tuple[tuple[str, int], tuple[str, int], np.ndarray]] = field(default_factory=list)


class LearnedModel:
    """The joint model (numpy inference); ``arrays`` as :mod:`kg.extract.learned.training` exports them."""

    def __init__(
        self,
        arrays: dict[str, np.ndarray],
        config: dict,
        vocab: WordPiece,
        settings: Settings = Settings(),
        *,
        encoder=None,
    ) -> None:
        self.config = config
        self.max_width = int(config["max_width"])
        self.encoder = encoder or BertEncoder(
            {k[len("encoder/") :]: v for k, v in arrays.items() if k.startswith("encoder/")},
            layers=config["layers"],
            heads=config["heads"],
            eps=config["layer_norm_eps"],
        )
        self.h = {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items() if not k.startswith("encoder/")}
        hidden = self.h["span.weight"].shape[1] - self.h["width_embedding"].shape[1]
        hidden //= 2
        weight = self.h["span.weight"]
        # The span layer's input is [first piece, last piece, width]: three products added.
        self._span_first = np.ascontiguousarray(weight[:, :hidden].T)
        self._span_last = np.ascontiguousarray(weight[:, hidden : 2 * hidden].T)
        self._span_width = self.h["width_embedding"] @ weight[:, 2 * hidden :].T + self.h["span.bias"]
        for name in ("ner.0", "ner.1", "proposed.0", "proposed.1", "rel.0", "rel.1"):
            self.h[f"{name}.weight.T"] = np.ascontiguousarray(self.h[f"{name}.weight"].T)
        self.vocab = vocab
        self.settings = settings
        self.calibration = Calibration.from_arrays(self.h.get("calibration.x"), self.h.get("calibration.y"))

    @classmethod
    def load(
        cls, path: Path | str | None = None, settings: Settings | None = None, *, runtime: str | None = None
    ) -> LearnedModel:
        """The shipped model (or ``path``, or ``$KG_LEARNED_MODEL``). Its encoder runs in onnxruntime
        where that is installed and the ONNX graph is beside the weights, else in numpy; ``runtime``
        (or ``$KG_ENCODER_RUNTIME``), ``"numpy"`` or ``"onnx"``, chooses."""
        path = Path(path or os.environ.get("KG_LEARNED_MODEL") or MODEL_FILE)
        if not path.is_file():
            raise ModelNotFoundError(f"{path}: the extraction model is missing (retrain it with: kg train extraction)")
        with np.load(path) as npz:
            arrays, config = unpack_weights({name: npz[name] for name in npz.files})
        vocab_file = path.with_name(VOCAB_FILE.name) if path.with_name(VOCAB_FILE.name).is_file() else VOCAB_FILE
        if settings is None:
            settings = Settings(**config.get("settings", {}))
        from kg.extract.learned import onnx_encoder

        graph = path.with_name(ENCODER_FILE.name)
        runtime = (
            runtime or os.environ.get("KG_ENCODER_RUNTIME") or ("onnx" if onnx_encoder.available(graph) else "numpy")
        )
        encoder = onnx_encoder.OnnxEncoder(graph) if runtime == "onnx" else None
        return cls(arrays, config, WordPiece.from_file(vocab_file), settings, encoder=encoder)

    # --- computing -------------------------------------------------------------------------

    def predict(
        self,
        documents: Sequence[tuple[Sequence[str], Sequence[tuple[int, int]], Sequence[tuple[int, int]]]],
        *,
        cache: dict | None = None,
    ) -> list[DocumentPrediction]:
        """For each ``(words, sentences, references)`` (word spans), the spans, their proposed
        scores and the relation probabilities of every ordered pair of arguments in a sentence.
        ``cache`` keeps the encoder's output per document between calls (threshold search)."""
        encoded = [None if cache is None else cache.get(tuple(words)) for words, _, _ in documents]
        missing = [d for d, e in enumerate(encoded) if e is None]
        for d, state in zip(missing, self.encode([documents[d][:2] for d in missing])):
            encoded[d] = state
            if cache is not None:
                cache[tuple(documents[d][0])] = state
        return [
            self._document(
                *state,
                sentences,
                references,
                *self._left_out(words),
                bracket_depths(words),
            )
            for state, (words, sentences, references) in zip(encoded, documents)
        ]

    def encode(
        self, documents: Sequence[tuple[Sequence[str], Sequence[tuple[int, int]]]]
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Each abstract's piece states, and the first and last piece of each word among them.

        Each chunk is encoded alone: the int8 encoder quantizes its activations with one scale per
        input batch, so a chunk batched with others would depend on them (and the graph on how
        documents fall into batches); with no padding, this is also faster on the CPU."""
        chunks = []  # (document, (ids, firsts, lasts, first word))
        for d, (words, sentences) in enumerate(documents):
            chunks.extend((d, chunk) for chunk in document_chunks(self.vocab, words, sentences))
        states = {k: self.encoder([chunk[0]])[0] for k, (_, chunk) in enumerate(chunks)}
        out = []
        k = 0
        for d, (words, _) in enumerate(documents):
            pieces, firsts, lasts = [], np.zeros(len(words), dtype=np.int64), np.zeros(len(words), dtype=np.int64)
            offset = 0
            while k < len(chunks) and chunks[k][0] == d:
                ids, chunk_firsts, chunk_lasts, first_word = chunks[k][1]
                pieces.append(states[k])
                span = slice(first_word, first_word + len(chunk_firsts))
                firsts[span] = np.asarray(chunk_firsts) + offset
                lasts[span] = np.asarray(chunk_lasts) + offset
                offset += len(ids)
                k += 1
            hidden = np.concatenate(pieces) if pieces else np.zeros((0, self._span_first.shape[0]), np.float32)
            out.append((hidden, firsts, lasts))
        return out

    def projections(self, hidden: np.ndarray, firsts: np.ndarray, lasts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each word's first piece and last piece through the span layer (computed once per abstract)."""
        return hidden[firsts] @ self._span_first, hidden[lasts] @ self._span_last

    def span_scores(
        self,
        hidden: np.ndarray,
        firsts: np.ndarray,
        lasts: np.ndarray,
        candidates: Sequence[tuple[int, int]],
        projections=None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The span features and the type probabilities (none + 5) of candidate word spans."""
        h = self.h
        first, last = projections or self.projections(hidden, firsts, lasts)
        a = np.array([c[0] for c in candidates])
        b = np.array([c[1] for c in candidates])
        features = _relu(first[a] + last[b - 1] + self._span_width[np.minimum(b - a, self.max_width) - 1])
        probabilities = _softmax(
            _relu(features @ h["ner.0.weight.T"] + h["ner.0.bias"]) @ h["ner.1.weight.T"] + h["ner.1.bias"]
        )
        return features, probabilities

    def proposed_scores(self, features: np.ndarray) -> np.ndarray:
        h = self.h
        logits = (
            _relu(features @ h["proposed.0.weight.T"] + h["proposed.0.bias"]) @ h["proposed.1.weight.T"]
            + h["proposed.1.bias"]
        )[:, 0]
        return 1.0 / (1.0 + np.exp(-logits))

    def pair_scores(
        self,
        hidden: np.ndarray,
        firsts: np.ndarray,
        lasts: np.ndarray,
        features: np.ndarray,
        arguments: Sequence[tuple[int, int, int]],
        pairs: Sequence[tuple[int, int]],
    ) -> np.ndarray:
        """Probabilities (none + 7 predicates) of ordered ``pairs`` of ``arguments`` ``(start, end, kind)``
        whose span features are the rows of ``features``."""
        h = self.h
        x = np.array([p[0] for p in pairs])
        y = np.array([p[1] for p in pairs])
        between = np.stack([mean_between(hidden, firsts, lasts, arguments[i][:2], arguments[j][:2]) for i, j in pairs])
        distance = np.array([distance_bucket(arguments[j][0] - arguments[i][0]) for i, j in pairs])
        kinds = np.array([a[2] for a in arguments])
        representation = np.concatenate(
            [
                features[x],
                features[y],
                features[x] * features[y],
                between,
                h["distance_embedding"][distance],
                h["kind_embedding"][kinds[x]],
                h["kind_embedding"][kinds[y]],
            ],
            -1,
        )
        return _softmax(
            _relu(representation @ h["rel.0.weight.T"] + h["rel.0.bias"]) @ h["rel.1.weight.T"] + h["rel.1.bias"]
        )

    def _left_out(self, words: Sequence[str]) -> tuple[frozenset[int], frozenset[tuple[int, int]]]:
        """The words no candidate span may hold, and the spans that are no candidates, as the settings ask."""
        words_left_out = url_words(words) if self.settings.skip_urls else frozenset()
        if not self.settings.skip_non_names:
            return words_left_out, frozenset()
        return words_left_out | citation_words(words), non_name_spans(words)

    def _document(
        self, hidden, firsts, lasts, sentences, references, excluded, excluded_spans, depths
    ) -> DocumentPrediction:
        prediction = DocumentPrediction()
        if not len(firsts):
            return prediction
        projections = self.projections(hidden, firsts, lasts)
        candidates, bounds = [], []
        for begin, end in sentences:
            start = len(candidates)
            candidates.extend(
                (begin + a, begin + b)
                for a, b in candidate_spans(end - begin, self.max_width)
                if excluded.isdisjoint(range(begin + a, begin + b))
                and depths[begin + a] == depths[begin + b]
                and (begin + a, begin + b) not in excluded_spans
            )
            bounds.append((start, len(candidates)))
        if not candidates:
            return prediction
        features, probabilities = self.span_scores(hidden, firsts, lasts, candidates, projections)
        arguments, argument_rows, numbering, pairs = [], [], [], []
        ref_spans = []
        ordered_references = sorted(references)
        next_reference = 0
        for (begin, end), (low, high) in zip(sentences, bounds):
            chosen = decode_spans(probabilities[low:high], candidates[low:high], threshold=self.settings.span_threshold)
            taken = {w for _, (a, b), _ in chosen for w in range(a, b)}
            # The references of this sentence, walking both in text order (not all of them per sentence).
            while next_reference < len(ordered_references) and ordered_references[next_reference][0] < begin:
                next_reference += 1
            here = next_reference
            while here < len(ordered_references) and ordered_references[here][0] < end:
                here += 1
            refs = [
                (a, b) for a, b in ordered_references[next_reference:here] if b <= end and taken.isdisjoint(range(a, b))
            ]
            if not self.settings.references:
                refs = []
            first = len(arguments)
            for k, (a, b), label in chosen:
                numbering.append(("span", len(prediction.spans)))
                prediction.spans.append((a, b, probabilities[low + k], 0.0))
                arguments.append((a, b, int(label)))
                argument_rows.append(low + k)
            for a, b in refs:
                numbering.append(("ref", len(prediction.references)))
                prediction.references.append((a, b))
                arguments.append((a, b, REFERENCE))
                argument_rows.append(-1 - len(ref_spans))
                ref_spans.append((a, b))
            pairs.extend(
                (i, j)
                for i in range(first, len(arguments))
                for j in range(first, len(arguments))
                if i != j and (arguments[i][2] != REFERENCE or arguments[j][2] != REFERENCE)
            )
        if not arguments:
            return prediction
        span_rows = [r for r in argument_rows if r >= 0]
        argument_features = np.zeros((len(arguments), features.shape[1]), dtype=features.dtype)
        is_span = np.array([r >= 0 for r in argument_rows])
        if span_rows:
            argument_features[is_span] = features[span_rows]
            proposed = self.proposed_scores(features[span_rows])
            prediction.spans = [(a, b, p, float(q)) for (a, b, p, _), q in zip(prediction.spans, proposed)]
        if ref_spans:
            argument_features[~is_span] = self.span_scores(hidden, firsts, lasts, ref_spans, projections)[0]
        if pairs:
            scores = self.pair_scores(hidden, firsts, lasts, argument_features, arguments, pairs)
            prediction.pairs = [(numbering[i], numbering[j], row) for (i, j), row in zip(pairs, scores)]
        return prediction


_BRACKET = re.compile(r"[][(){}]")


def bracket_depths(words: Sequence[str]) -> list[int]:
    """How many brackets are open before each word (and after the last): a span whose brackets do not
    close within it ("OOD) generalization") names nothing, as no annotated name has such brackets.

    >>> depths = bracket_depths(["Out-of-Distribution", "(", "OOD", ")", "generalization"])
    >>> depths, depths[0] == depths[5], depths[3] == depths[5]
    ([0, 0, 1, 1, 0, 0], True, False)
    """
    depths = [0]
    for word in words:
        change = 0
        if _BRACKET.search(word):  # few words hold one
            change = sum(map(word.count, "([{")) - sum(map(word.count, ")]}"))
        depths.append(depths[-1] + change)
    return depths


def url_words(words: Sequence[str]) -> frozenset[int]:
    """The words that are web addresses: no span holding one is an entity (``GUIDELINES.md``: skip URLs).

    >>> sorted(url_words(["code", "at", "https://github.com/a/b", "and", "www.x.org", "Node.js"]))
    [2, 4]
    """
    from spacy.lang.lex_attrs import like_url

    return frozenset(
        k for k, word in enumerate(words) if ("/" in word or word[:4].lower() == "www.") and like_url(word)
    )


# BibTeX keys ("ostapenko2024towards": a name, a year, a word) and, in square brackets, alphabetic
# citation labels ("[ZRKB21]").
_CITATION_KEY = re.compile(r"[a-z]{2,}(?:19|20)\d\d[a-z]{3,}")
_CITATION_LABEL = re.compile(r"[A-Z][A-Za-z+]{1,6}\d\d[a-z]?")
_YEAR = re.compile(r"(?:19|20)\d\d")
_VENUES = frozenset(
    ("AAAI", "ACL", "AISTATS", "COLING", "COLT", "CVPR", "CoRL", "EACL", "ECCV", "EMNLP", "ICASSP", "ICCV", "ICLR")
    + ("ICML", "ICRA", "IJCAI", "IROS", "Interspeech", "KDD", "NAACL", "NIPS", "NeurIPS", "RSS", "SIGIR", "UAI")
    + ("WACV", "WWW")
)


def citation_words(words: Sequence[str]) -> frozenset[int]:
    """The words that are citation keys: a BibTeX key, or an alphabetic label in square brackets.

    >>> sorted(citation_words(["see", "ostapenko2024towards", "and", "[", "ZRKB21", "]", "or", "word2vec"]))
    [1, 4]
    """
    bracketed = {k for k in range(1, len(words) - 1) if words[k - 1] == "[" and words[k + 1] == "]"}
    return frozenset(
        k
        for k, word in enumerate(words)
        if _CITATION_KEY.fullmatch(word) or (k in bracketed and _CITATION_LABEL.fullmatch(word))
    )


def non_name_spans(words: Sequence[str]) -> frozenset[tuple[int, int]]:
    """Word spans that name no entity whatever their context: a lone character ("a dataset D") and a
    venue with its year ("ACL 2025"; "NeurIPS 2022 cell segmentation challenge" is still a candidate).

    >>> sorted(non_name_spans(["on", "D", "at", "ACL", "2025", "and", "COCO", "2017", "than", "G."]))
    [(1, 2), (3, 5), (9, 10)]
    """
    # The tokenizer leaves a sentence's full stop on a capital ("G."), which a name does not keep.
    spans = {(k, k + 1) for k, word in enumerate(words) if len(word.removesuffix(".")) == 1}
    spans.update((k, k + 2) for k in range(len(words) - 1) if words[k] in _VENUES and _YEAR.fullmatch(words[k + 1]))
    return frozenset(spans)


def document_chunks(
    vocab: WordPiece, words: Sequence[str], sentences: Sequence[tuple[int, int]], limit: int = MAX_PIECES
) -> list[tuple[list[int], list[int], list[int], int]]:
    """The abstract as encoder inputs: ``(ids, firsts, lasts, first word)`` per chunk of whole sentences
    of at most ``limit`` pieces (one chunk for nearly every abstract); ``firsts``/``lasts`` give each
    word's first and last piece in its chunk. A sentence longer than ``limit`` is cut.

    >>> vocab = WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3, "##b": 4})
    >>> document_chunks(vocab, ["ab", "a", "a"], [(0, 2), (2, 3)])
    [([1, 3, 4, 3, 3, 2], [1, 3, 4], [2, 3, 4], 0)]
    >>> [c[0] for c in document_chunks(vocab, ["ab", "a", "a"], [(0, 2), (2, 3)], limit=3)]
    [[1, 3, 4, 3, 2], [1, 3, 2]]
    """
    pieces = [vocab(w) for w in words]
    chunks = []
    current: list[int] = []
    start = 0
    for begin, end in sentences:
        size = sum(len(pieces[k]) for k in range(begin, end))
        if current and sum(len(pieces[k]) for k in current) + size > limit:
            chunks.append(current)
            current = []
        current.extend(range(begin, end))
    if current:
        chunks.append(current)
    out = []
    for chunk in chunks:
        ids, firsts, lasts = [vocab.ids["[CLS]"]], [], []
        start = chunk[0]
        for k in chunk:
            firsts.append(len(ids))
            room = limit + 1 - len(ids)
            ids.extend(pieces[k][: max(room, 0)] if room > 0 else [])
            if len(ids) == firsts[-1]:  # no room left: the word shares the last piece
                firsts[-1] = len(ids) - 1
            lasts.append(len(ids) - 1)
        ids.append(vocab.ids["[SEP]"])
        out.append((ids, firsts, lasts, start))
    return out


# --- from predictions to entities and relations ------------------------------------------------
