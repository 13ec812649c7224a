"""Training the default profile's joint model (:mod:`kg.extract.learned.model`) on the project's own
annotations (``kg train extraction``).

Needs torch and the all-MiniLM-L6-v2 weights, neither of which run time needs (``make train``
installs both). The encoder starts from all-MiniLM-L6-v2 and is fine-tuned with the heads; the loss
is the span classifier's cross-entropy over every candidate span of every sentence, the ``proposed``
head's binary cross-entropy over the annotated mentions, and the pair classifier's cross-entropy over
every ordered pair of annotated mentions (and referring phrases) of a sentence. Whole abstracts are
encoded at once, as at run time.

A fixed tenth of the annotated abstracts is held out (:func:`kg.extract.learned.data.split_holdout`).
After each epoch the model is exported and run on it by the numpy code that runs it in the product;
the epoch with the best mean of entity and relation F1 there is kept. The decoding thresholds are then
chosen on the held-out tenth, and the relation confidences calibrated on it. Dev is never read here.
The seed, the schedule and the epochs are fixed; torch's sums on the CPU are not bit-identical from
run to run, so a rerun lands near, not on, the same figures.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from kg.errors import UsageError
from kg.extract.bert_torch import bert_module, encoder_arrays
from kg.extract.encoder import WordPiece, load_safetensors
from kg.extract.learned.calibration import Calibration
from kg.extract.learned.data import (
    PREDICATES,
    REFERENCE,
    TYPES,
    Example,
    examples_of,
    load_annotations,
    segmenter,
    split_holdout,
)
from kg.extract.learned.model import (
    MODEL_FILE,
    LearnedModel,
    decode_document,
    document_chunks,
)
from kg.extract.learned.model import (
    Settings as DecodeSettings,
)
from kg.extract.scierc.model import candidate_spans, distance_bucket, pack_weights
from kg.extract.scierc.training import minilm_dir, save
from kg.normalize import fold

MAX_WIDTH, FEATURE, EMBEDDING, PROPOSED_HIDDEN = 10, 300, 32, 150


@dataclass(frozen=True)
class Settings:
    epochs: int = 4
    batch_size: int = 4  # abstracts per step
    encoder_learning_rate: float = 1e-4
    head_learning_rate: float = 1e-3
    warmup: float = 0.1
    seed: int = 1
    layers: int = 6  # encoder layers kept (all-MiniLM-L6-v2 has six)
    # The encoder starts from all-MiniLM-L6-v2 ("minilm") or from the SciERC model's fine-tuned copy of it
    # ("scierc": kg/models/scierc_joint.npz), which has already learnt scientific mentions and relations.
    start: str = "scierc"


def train(
    output: Path | None = None,
    *,
    settings: Settings = Settings(),
    minutes: float | None = None,
    annotations: Path | None = None,
    log=sys.stderr,
) -> Path:
    """Train, export the best epoch with its thresholds and calibration to ``output``, and return it."""
    try:
        import torch
    except ImportError:
        raise UsageError("training needs torch: pip install -e '.[train]' (or: make train)") from None
    output = Path(output or MODEL_FILE)
    random.seed(settings.seed)
    np.random.seed(settings.seed)
    torch.manual_seed(settings.seed)
    records = load_annotations(annotations) if annotations else load_annotations()
    train_records, held_records = split_holdout(records)
    nlp = segmenter()
    train_examples, lost = examples_of(train_records, nlp)
    held_examples, _ = examples_of(held_records, nlp)
    print(
        f"{len(train_examples)} abstracts to train on, {len(held_examples)} held out; not placed: {lost}",
        file=log,
        flush=True,
    )
    source = minilm_dir()
    vocab = WordPiece.from_file(source / "vocab.txt")
    config = json.loads((source / "config.json").read_text())
    net = _network(torch, starting_weights(source, settings.start), config, settings.layers)
    chunks = [document_chunks(vocab, e.words, e.sentences) for e in train_examples]
    model_config = {
        "max_width": MAX_WIDTH,
        "layers": settings.layers,
        "heads": config["num_attention_heads"],
        "layer_norm_eps": config["layer_norm_eps"],
        "training": asdict(settings),
    }
    encoder_params = list(net.bert.parameters())
    head_params = [p for name, p in net.named_parameters() if not name.startswith("bert.")]
    optimizer = torch.optim.AdamW(
        [
            {"params": encoder_params, "lr": settings.encoder_learning_rate},
            {"params": head_params, "lr": settings.head_learning_rate},
        ],
        weight_decay=0.01,
    )
    steps = settings.epochs * math.ceil(len(train_examples) / settings.batch_size)
    warm = max(1, int(settings.warmup * steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warm if step < warm else max(0.0, (steps - step) / (steps - warm))
    )
    deadline = time.monotonic() + 60 * minutes if minutes else None
    best, best_arrays = -1.0, None
    for epoch in range(settings.epochs):
        began = time.monotonic()
        net.train()
        order = list(range(len(train_examples)))
        random.shuffle(order)
        total = 0.0
        for begin in range(0, len(order), settings.batch_size):
            rows = order[begin : begin + settings.batch_size]
            loss = net.loss([chunks[i] for i in rows], [train_examples[i] for i in rows])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            total += float(loss.detach())
        arrays = export_arrays(net, settings.layers)
        model = LearnedModel(arrays, model_config, vocab)
        scores = evaluate(model, held_examples, held_records)
        print(
            f"epoch {epoch + 1}/{settings.epochs}: loss {total:.1f}, {time.monotonic() - began:.0f} s; held out: "
            + ", ".join(f"{k} {v:.3f}" for k, v in scores.items() if k != "pairs"),
            file=log,
            flush=True,
        )
        measure = (scores["entities"] + scores["relations"]) / 2
        if measure > best:
            best, best_arrays = measure, arrays
        if deadline is not None and time.monotonic() > deadline:
            print(f"time is up after epoch {epoch + 1}; keeping the best so far", file=log)
            break
    model = LearnedModel(best_arrays, model_config, vocab)
    decode = choose_thresholds(model, held_examples, held_records, log=log)
    model.settings = decode
    calibration = fit_calibration(model, held_examples, held_records)
    arrays = {**best_arrays, **calibration.to_arrays()}
    save(output, arrays, {**model_config, "settings": asdict(decode)}, vocab_source=source / "vocab.txt")
    export_encoder(torch, best_arrays, model_config, output, log=log)
    return output


def export_encoder(torch, arrays, config: dict, output: Path, *, log=sys.stderr) -> Path | None:
    """The encoder as an int8 ONNX graph beside ``output``, for onnxruntime (needs onnx and onnxruntime)."""
    import importlib.util

    from kg.extract.learned import onnx_encoder
    from kg.extract.learned.model import ENCODER_FILE

    if importlib.util.find_spec("onnx") is None or importlib.util.find_spec("onnxruntime") is None:
        print("onnx or onnxruntime is not installed: no ONNX graph written (run time uses numpy)", file=log)
        return None
    return onnx_encoder.export(network_from_arrays(torch, arrays, config).bert, output.with_name(ENCODER_FILE.name))


def starting_weights(source: Path, start: str) -> dict[str, np.ndarray]:
    """The encoder's weights to start from (Hugging Face names)."""
    if start == "minilm":
        return load_safetensors(source / "model.safetensors")
    if start == "scierc":
        from kg.extract.scierc.model import MODEL_FILE as SCIERC_FILE
        from kg.extract.scierc.model import unpack_weights

        with np.load(SCIERC_FILE) as npz:
            arrays, _ = unpack_weights({name: npz[name] for name in npz.files})
        return {k[len("encoder/") :]: v for k, v in arrays.items() if k.startswith("encoder/")}
    raise UsageError(f"unknown starting point {start!r}: minilm or scierc")


# --- scoring on the held-out tenth ----------------------------------------------------------------


def _names(entity: dict) -> set[str]:
    return {fold(n) for n in (entity["name"], *(entity.get("aliases") or ()))} - {""}


def run(model: LearnedModel, examples: Sequence[Example], cache: dict | None = None):
    """Entities and relations of each example, as the extractor decodes them."""
    inputs = [(e.words, e.sentences, reference_spans(e)) for e in examples]
    predictions = model.predict(inputs, cache=cache)
    return [
        decode_document(p, e.words, e.offsets, e.text, e.sentences, model.settings, model.calibration)
        for p, e in zip(predictions, examples)
    ]


def reference_spans(example: Example) -> list[tuple[int, int]]:
    from kg.extract.learned.model import _word_references

    return _word_references(example.text, example.offsets)


def score_run(found, records: Sequence[dict]) -> tuple[dict[str, float], list[tuple[float, int]]]:
    """Entity (typed), proposed and relation F1 against the annotations, matched as ``score.py`` matches
    (names folded; one to one), and ``(probability, right)`` for each predicted relation."""
    counts = {"entities": [0, 0, 0], "proposed": [0, 0, 0], "relations": [0, 0, 0]}
    outcomes = []
    for (entities, relations), record in zip(found, records):
        gold = record["entities"]
        used: set[int] = set()
        names_of = {}
        for key, label, _type, aliases, _proposed, _ in entities:
            names_of[key] = {fold(n) for n in (label, *aliases)} - {""}
        for g in gold:
            hit = next(
                (
                    key
                    for key, label, t, *_ in entities
                    if key not in used and t == g["type"] and names_of[key] & _names(g)
                ),
                None,
            )
            if hit is None:
                counts["entities"][2] += 1
            else:
                used.add(hit)
                counts["entities"][0] += 1
        counts["entities"][1] += len(entities) - len(used)
        gold_proposed = [_names(g) for g in gold if g.get("proposed")]
        for key, *_, proposed, _ in entities:
            if proposed:
                right = any(names_of[key] & names for names in gold_proposed)
                counts["proposed"][0 if right else 1] += 1
        counts["proposed"][2] += sum(
            not any(names & names_of[k] for k, *_, p, _ in entities if p) for names in gold_proposed
        )
        by_name = {g["name"]: _names(g) for g in gold}
        gold_relations = [
            (by_name[r["subject"]], r["predicate"], by_name[r["object"]])
            for r in record["relations"]
            if r["subject"] in by_name and r["object"] in by_name
        ]
        taken: set[int] = set()
        for subject, predicate, obj, *_, probability, _ in relations:
            s, o = names_of[subject], names_of[obj]
            hit = next(
                (
                    i
                    for i, (gs, gp, go) in enumerate(gold_relations)
                    if i not in taken
                    and (
                        (gp == predicate and s & gs and o & go)
                        or (
                            gp == "comparedWith"
                            and predicate in ("comparedWith", "outperforms")
                            and ((s & gs and o & go) or (s & go and o & gs))
                        )
                    )
                ),
                None,
            )
            outcomes.append((probability, int(hit is not None)))
            if hit is None:
                counts["relations"][1] += 1
            else:
                taken.add(hit)
                counts["relations"][0] += 1
        counts["relations"][2] += len(gold_relations) - len(taken)

    def f1(tp, fp, fn):
        return 2 * tp / (2 * tp + fp + fn) if tp else 0.0

    return {k: f1(*v) for k, v in counts.items()}, outcomes


def evaluate(model: LearnedModel, examples, records, cache: dict | None = None) -> dict[str, float]:
    return score_run(run(model, examples, cache), records)[0]


def choose_thresholds(model: LearnedModel, examples, records, *, log=sys.stderr) -> DecodeSettings:
    """The span, proposed and relation thresholds with the best held-out F1 (each in turn)."""
    settings, cache = model.settings, {}
    for name, key in (
        ("span_threshold", "entities"),
        ("proposed_threshold", "proposed"),
        ("relation_threshold", "relations"),
    ):
        results = {}
        for value in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
            model.settings = replace(settings, **{name: value})
            scores = evaluate(model, examples, records, cache)
            results[value] = scores[key] + (0.5 * scores["relations"] if key == "entities" else 0.0)
        chosen = max(results, key=lambda v: (round(results[v], 4), -abs(v - 0.5)))
        settings = replace(settings, **{name: chosen})
        print(
            f"{name}: {chosen} (held out: " + ", ".join(f"{v}: {s:.3f}" for v, s in results.items()) + ")",
            file=log,
            flush=True,
        )
    model.settings = settings
    return settings


CALIBRATION = "platt"  # or "isotonic"


def fit_calibration(model: LearnedModel, examples, records, method: str = CALIBRATION) -> Calibration:
    """The map from the pair classifier's probability to the fraction of held-out relations found right."""
    model.calibration = Calibration()
    _, outcomes = score_run(run(model, examples), records)
    fit = Calibration.platt if method == "platt" else Calibration.fit
    calibration = fit([p for p, _ in outcomes], [r for _, r in outcomes])
    model.calibration = calibration
    return calibration


def recalibrate(path: Path, method: str = CALIBRATION, *, thresholds: bool = False, log=sys.stderr) -> Path:
    """Refit the calibration (and with ``thresholds``, the decoding thresholds) of a trained model on the
    held-out tenth, without retraining."""
    from kg.extract.scierc.model import unpack_weights

    with np.load(path) as npz:
        arrays, config = unpack_weights({name: npz[name] for name in npz.files})
    _, held_records = split_holdout(load_annotations())
    held_examples, _ = examples_of(held_records)
    model = LearnedModel.load(path)
    if thresholds:
        model.settings = choose_thresholds(model, held_examples, held_records, log=log)
    calibration = fit_calibration(model, held_examples, held_records, method)
    arrays = {k: v for k, v in arrays.items() if not k.startswith("calibration.")}
    config = {**config, "settings": asdict(model.settings)}
    from kg.extract.scierc.model import VOCAB_FILE

    save(Path(path), {**arrays, **calibration.to_arrays()}, config, vocab_source=VOCAB_FILE)
    return Path(path)


# --- the torch network --------------------------------------------------------------------------

_HEAD_NAMES = {
    "width_embedding.weight": "width_embedding",
    "distance_embedding.weight": "distance_embedding",
    "kind_embedding.weight": "kind_embedding",
    "span.weight": "span.weight",
    "span.bias": "span.bias",
    **{
        f"{head}{i}.{kind}": f"{head}.{i}.{kind}"
        for head in ("ner", "proposed", "rel")
        for i in (0, 1)
        for kind in ("weight", "bias")
    },
}


def export_arrays(net, layers: int) -> dict[str, np.ndarray]:
    """The network's weights under the names :class:`LearnedModel` reads."""
    state = {name: tensor.detach().cpu().numpy().copy() for name, tensor in net.state_dict().items()}
    arrays = encoder_arrays(state, layers)
    arrays.update({ours: state[theirs] for theirs, ours in _HEAD_NAMES.items()})
    return arrays


def _network(torch, weights: dict[str, np.ndarray], config: dict, layers: int):
    """The encoder with the span, proposed and pair heads, in torch."""
    nn, functional = torch.nn, torch.nn.functional
    hidden = config["hidden_size"]

    class Joint(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert_module(torch, weights, config, layers=layers)
            self.width_embedding = nn.Embedding(MAX_WIDTH, EMBEDDING)
            self.distance_embedding = nn.Embedding(10, EMBEDDING)
            self.kind_embedding = nn.Embedding(REFERENCE + 1, EMBEDDING)
            self.span = nn.Linear(2 * hidden + EMBEDDING, FEATURE)
            self.ner0, self.ner1 = nn.Linear(FEATURE, FEATURE), nn.Linear(FEATURE, len(TYPES) + 1)
            self.proposed0, self.proposed1 = nn.Linear(FEATURE, PROPOSED_HIDDEN), nn.Linear(PROPOSED_HIDDEN, 1)
            self.rel0 = nn.Linear(3 * FEATURE + hidden + 3 * EMBEDDING, FEATURE)
            self.rel1 = nn.Linear(FEATURE, len(PREDICATES) + 1)
            self.dropout, self.head_dropout = nn.Dropout(0.1), nn.Dropout(0.2)

        def loss(self, chunked, examples: Sequence[Example]):
            flat = [c for chunks in chunked for c in chunks]
            length = max(len(ids) for ids, _, _, _ in flat)
            ids = torch.zeros(len(flat), length, dtype=torch.long)
            mask = torch.zeros(len(flat), length)
            for row, (seq, _, _, _) in enumerate(flat):
                ids[row, : len(seq)] = torch.tensor(seq)
                mask[row, : len(seq)] = 1
            states = self.dropout(self.bert(ids, mask))
            total, row = 0, 0
            for chunks, example in zip(chunked, examples):
                pieces, firsts, lasts, offset = [], [0] * len(example.words), [0] * len(example.words), 0
                for seq, chunk_firsts, chunk_lasts, first_word in chunks:
                    pieces.append(states[row, : len(seq)])
                    for k, (f, last) in enumerate(zip(chunk_firsts, chunk_lasts)):
                        firsts[first_word + k], lasts[first_word + k] = f + offset, last + offset
                    offset += len(seq)
                    row += 1
                total = total + self._document_loss(torch.cat(pieces), firsts, lasts, example)
            return total / len(examples)

        def _features(self, h, firsts, lasts, spans):
            starts = torch.tensor([firsts[a] for a, _ in spans])
            ends = torch.tensor([lasts[b - 1] for _, b in spans])
            widths = torch.tensor([min(b - a, MAX_WIDTH) - 1 for a, b in spans])
            return self.head_dropout(
                torch.relu(self.span(torch.cat([h[starts], h[ends], self.width_embedding(widths)], -1)))
            )

        def _document_loss(self, h, firsts, lasts, example: Example):
            candidates = [
                (begin + a, begin + b)
                for begin, end in example.sentences
                for a, b in candidate_spans(end - begin, MAX_WIDTH)
            ]
            gold = {(m[0], m[1]): m[2] for m in example.mentions if m[2] != REFERENCE}
            features = self._features(h, firsts, lasts, candidates)
            logits = self.ner1(self.head_dropout(torch.relu(self.ner0(features))))
            targets = torch.tensor([gold.get(span, 0) for span in candidates])
            loss = functional.cross_entropy(logits, targets, reduction="sum")
            mentions = example.mentions
            if not mentions:
                return loss
            argument_features = self._features(h, firsts, lasts, [(m[0], m[1]) for m in mentions])
            named = [k for k, m in enumerate(mentions) if m[2] != REFERENCE]
            if named:
                proposed_logits = self.proposed1(
                    self.head_dropout(torch.relu(self.proposed0(argument_features[named])))
                )[:, 0]
                loss = loss + functional.binary_cross_entropy_with_logits(
                    proposed_logits, torch.tensor([float(mentions[k][3]) for k in named]), reduction="sum"
                )
            sentence_of = {}
            for s, (begin, end) in enumerate(example.sentences):
                for k in range(begin, end):
                    sentence_of[k] = s
            pairs = [
                (x, y)
                for x in range(len(mentions))
                for y in range(len(mentions))
                if x != y
                and sentence_of[mentions[x][0]] == sentence_of[mentions[y][0]]
                and not (mentions[x][2] == REFERENCE and mentions[y][2] == REFERENCE)
                and not (mentions[x][4] >= 0 and mentions[x][4] == mentions[y][4])
            ]
            if not pairs:
                return loss
            relation_logits = self.pair_logits(
                h, firsts, lasts, argument_features, [(m[0], m[1], m[2]) for m in mentions], pairs
            )
            labelled = {(i, j): label for i, j, label in example.relations}
            relation_targets = torch.tensor([labelled.get(pair, 0) for pair in pairs])
            return loss + functional.cross_entropy(relation_logits, relation_targets, reduction="sum")

        def pair_logits(self, h, firsts, lasts, features, arguments, pairs):
            """Relation logits of ordered ``pairs`` of ``arguments`` ``(start, end, kind)`` with span ``features``."""
            x = [p[0] for p in pairs]
            y = [p[1] for p in pairs]
            between = []
            for i, j in pairs:
                low = min(lasts[arguments[i][1] - 1], lasts[arguments[j][1] - 1]) + 1
                high = max(firsts[arguments[i][0]], firsts[arguments[j][0]])
                between.append(h[low:high].mean(0) if high > low else torch.zeros(hidden))
            distance = torch.tensor([distance_bucket(arguments[j][0] - arguments[i][0]) for i, j in pairs])
            kinds = torch.tensor([a[2] for a in arguments])
            first, second = features[x], features[y]
            representation = torch.cat(
                [
                    first,
                    second,
                    first * second,
                    torch.stack(between),
                    self.distance_embedding(distance),
                    self.kind_embedding(kinds[x]),
                    self.kind_embedding(kinds[y]),
                ],
                -1,
            )
            return self.rel1(self.head_dropout(torch.relu(self.rel0(representation))))

        def scores(self, ids, firsts, lasts, spans, arguments, pairs):
            """For one encoder input: the type probabilities and proposed scores of ``spans``, and the
            relation probabilities of ``pairs`` of ``arguments`` (what the numpy model computes)."""
            h = self.bert(torch.tensor([ids]), torch.ones(1, len(ids)))[0]
            features = self._features(h, firsts, lasts, spans)
            types = torch.softmax(self.ner1(torch.relu(self.ner0(features))), -1)
            proposed = torch.sigmoid(self.proposed1(torch.relu(self.proposed0(features)))[:, 0])
            argument_features = self._features(h, firsts, lasts, [a[:2] for a in arguments])
            relations = torch.softmax(self.pair_logits(h, firsts, lasts, argument_features, arguments, pairs), -1)
            return h, types, proposed, relations

    return Joint()


def network_from_arrays(torch, arrays: dict[str, np.ndarray], config: dict):
    """The torch network holding exported arrays (the reference the numpy forward pass is checked against)."""
    weights = {k[len("encoder/") :]: v for k, v in arrays.items() if k.startswith("encoder/")}
    bert_config = {
        "hidden_size": weights["embeddings.word_embeddings.weight"].shape[1],
        "layer_norm_eps": config["layer_norm_eps"],
        "num_hidden_layers": config["layers"],
        "num_attention_heads": config["heads"],
        "intermediate_size": weights["encoder.layer.0.intermediate.dense.weight"].shape[0],
    }
    net = _network(torch, weights, bert_config, config["layers"])
    state = net.state_dict()
    for theirs, ours in _HEAD_NAMES.items():
        state[theirs] = torch.from_numpy(np.asarray(arrays[ours], dtype=np.float32))
    net.load_state_dict(state)
    return net.eval()


__all__ = ["Settings", "pack_weights", "train"]
