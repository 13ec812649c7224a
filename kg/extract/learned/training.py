"""Training the default profile's joint model (:mod:`kg.extract.learned.model`) on the project's own
annotations (``kg train extraction``).

Needs torch and the all-MiniLM-L6-v2 weights, neither of which run time needs (``make train``
installs both). The encoder starts from all-MiniLM-L6-v2 and is fine-tuned with the heads; the loss
is the span classifier's cross-entropy over every candidate span of every sentence, the ``proposed``
head's binary cross-entropy over the annotated mentions, and the pair classifier's cross-entropy over
every ordered pair of annotated mentions (and referring phrases) of a sentence. Whole abstracts are
encoded at once, as at run time.

A fixed tenth of the annotated abstracts is held out (:func:`kg.extract.learned.data.split_holdout`);
the others are trained on with their independent annotations, each an example, and so are the abstracts
written for training (:func:`training_records`).
After each epoch the model is exported and run on the held-out tenth by the numpy code of the product;
the epoch with the best mean of entity and relation F1 there is kept. The decoding thresholds are then
chosen on the held-out tenth, and the relation confidences calibrated on it, with the encoder that will
run (the int8 ONNX graph written beside the weights, where onnx is installed). Dev is never read here.
The seed, the schedule and the epochs are fixed; torch's sums on the CPU are not bit-identical from
run to run, so a rerun lands near, not on, the same figures.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from kg.errors import UsageError
from kg.extract.bert_torch import one_pass, optimizer_and_schedule, seeded_torch
from kg.extract.encoder import WordPiece, load_safetensors
from kg.extract.learned import onnx_encoder
from kg.extract.learned.calibration import Calibration
from kg.extract.learned.component import _word_references, decode_document, vocabulary_types
from kg.extract.learned.data import (
    ANNOTATIONS,
    OTHER_ANNOTATIONS,
    REPEATED_ANNOTATIONS,
    WRITTEN_ANNOTATIONS,
    WRITTEN_SECOND_ANNOTATIONS,
    Example,
    examples_of,
    load_annotations,
    majority_annotation,
    segmenter,
    split_holdout,
)
from kg.extract.learned.model import (
    MODEL_FILE,
    LearnedModel,
    document_chunks,
)
from kg.extract.learned.model import (
    Settings as DecodeSettings,
)
from kg.extract.learned.network import MAX_WIDTH, _network, export_arrays, network_from_arrays
from kg.extract.scierc.training import minilm_dir, save
from kg.normalize import fold


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
    # The abstracts from outside the seeds (data/annotations/scierc.json): "none"; "mixed" into every epoch;
    # "first": one pass over them alone before the epochs over the seeds.
    other_abstracts: str = "none"
    # How many independent annotations of each training abstract to train on (1 to 3): train.json, then
    # train-second.json and train-third.json; each is one more example of the abstract.
    annotations_per_abstract: int = 2
    # Train on one annotation of each training abstract, what most of its ``annotations_per_abstract``
    # annotations marked (:func:`kg.extract.learned.data.majority_annotation`), instead of on each.
    majority: bool = False
    relation_weight: float = 1.0  # the pair classifier's loss against the span classifier's
    # How many of the abstracts written for training (data/annotations/written.json, in its order) to mix into
    # every epoch, each once (0: none).
    written_abstracts: int = 1200
    # Train on the second annotation of those written abstracts that have one too, each one more example.
    written_second: bool = False
    # The mean of the weights of the last this many epochs is one more candidate for the model kept (1: none).
    average_epochs: int = 1


def train(
    output: Path | None = None,
    *,
    settings: Settings = Settings(),
    minutes: float | None = None,
    annotations: Path | None = None,
    log=sys.stderr,
) -> Path:
    """Train, export the best epoch with its thresholds and calibration to ``output``, and return it."""
    if settings.other_abstracts not in ("none", "mixed", "first"):
        raise UsageError(f"unknown use of the other abstracts {settings.other_abstracts!r}: none, mixed or first")
    if settings.average_epochs < 1:  # a slice from -0 would silently average every epoch
        raise UsageError(f"epochs to average: at least 1, not {settings.average_epochs}")
    torch = seeded_torch(settings.seed)
    output = Path(output or MODEL_FILE)
    train_records, held_records = training_records(
        annotations,
        other_abstracts=settings.other_abstracts == "mixed",
        annotations_per_abstract=settings.annotations_per_abstract,
        majority=settings.majority,
        written_abstracts=settings.written_abstracts,
        written_second=settings.written_second,
    )
    nlp = segmenter()
    train_examples, lost = examples_of(train_records, nlp)
    held_examples, _ = examples_of(held_records, nlp)
    first_examples, _ = examples_of(
        load_annotations(OTHER_ANNOTATIONS) if settings.other_abstracts == "first" else [], nlp
    )
    print(
        f"{len(train_examples)} abstracts to train on, {len(held_examples)} held out; not placed: {lost}",
        file=log,
        flush=True,
    )
    source = minilm_dir()
    vocab = WordPiece.from_file(source / "vocab.txt")
    config = json.loads((source / "config.json").read_text())
    net = _network(
        torch,
        starting_weights(source, settings.start),
        config,
        settings.layers,
        relation_weight=settings.relation_weight,
    )
    chunks = [document_chunks(vocab, e.words, e.sentences) for e in train_examples]
    first_chunks = [document_chunks(vocab, e.words, e.sentences) for e in first_examples]
    model_config = {
        "max_width": MAX_WIDTH,
        "layers": settings.layers,
        "heads": config["num_attention_heads"],
        "layer_norm_eps": config["layer_norm_eps"],
        "training": asdict(settings),
    }
    steps = settings.epochs * math.ceil(len(train_examples) / settings.batch_size)
    steps += math.ceil(len(first_examples) / settings.batch_size)
    optimizer, schedule = optimizer_and_schedule(torch, net, settings, steps=steps)
    step = partial(one_pass, torch, net, optimizer, schedule, batch_size=settings.batch_size)
    if first_examples:
        began = time.monotonic()
        total = step(first_chunks, first_examples)
        print(
            f"first, {len(first_examples)} other abstracts: loss {total:.1f}, {time.monotonic() - began:.0f} s",
            file=log,
            flush=True,
        )
    deadline = time.monotonic() + 60 * minutes if minutes else None
    best, best_arrays, history = -1.0, None, []

    def consider(arrays: dict[str, np.ndarray], what: str) -> None:
        """Score ``arrays`` on the held-out tenth, and keep them if the best so far."""
        nonlocal best, best_arrays
        scores = evaluate(LearnedModel(arrays, model_config, vocab), held_examples, held_records)
        print(
            f"{what}; held out: " + ", ".join(f"{k} {v:.3f}" for k, v in scores.items() if k != "pairs"),
            file=log,
            flush=True,
        )
        measure = (scores["entities"] + scores["relations"]) / 2
        if measure > best:
            best, best_arrays = measure, arrays

    for epoch in range(settings.epochs):
        began = time.monotonic()
        total = step(chunks, train_examples)
        arrays = export_arrays(net, settings.layers)
        history = [*history, arrays][-settings.average_epochs :]
        consider(arrays, f"epoch {epoch + 1}/{settings.epochs}: loss {total:.1f}, {time.monotonic() - began:.0f} s")
        if deadline is not None and time.monotonic() > deadline:
            print(f"time is up after epoch {epoch + 1}; keeping the best so far", file=log)
            break
    if len(history) > 1:
        averaged = {name: np.mean([arrays[name] for arrays in history], axis=0) for name in history[0]}
        consider(averaged, f"mean of the last {len(history)} epochs")
    graph = export_encoder(torch, best_arrays, model_config, output, log=log)
    # The thresholds and the calibration are chosen with the encoder that will run: the int8 graph where
    # there is one (its scores differ a little from the float32 pass's).
    encoder = onnx_encoder.OnnxEncoder(graph) if graph else None
    model = LearnedModel(best_arrays, model_config, vocab, encoder=encoder)
    decode = choose_thresholds(model, held_examples, held_records, log=log)
    model.settings = decode
    calibration = fit_calibration(model, held_examples, held_records)
    arrays = {**best_arrays, **calibration.to_arrays()}
    save(output, arrays, {**model_config, "settings": asdict(decode)}, vocab_source=source / "vocab.txt")
    return output


def training_records(
    annotations: Path | None = None,
    *,
    other_abstracts: bool = False,
    annotations_per_abstract: int = 1,
    majority: bool = False,
    written_abstracts: int = 0,
    written_second: bool = False,
) -> tuple[list[dict], list[dict]]:
    """(training, held out): the seed annotations split as :func:`split_holdout` splits them; each training
    abstract's further independent annotations, up to ``annotations_per_abstract`` in all, are more
    training examples (with ``majority``, they make one example: what most of them marked); so are the first
    ``written_abstracts`` of the abstracts written for training (with ``written_second``, those of them with a
    second annotation once more, in it), and with ``other_abstracts`` the abstracts
    from outside the seeds. The held-out tenth, with its first annotation only, is the same whatever else is
    trained on."""
    if not 1 <= annotations_per_abstract <= 1 + len(REPEATED_ANNOTATIONS):
        raise UsageError(
            f"annotations per abstract: 1 to {1 + len(REPEATED_ANNOTATIONS)}, not {annotations_per_abstract}"
        )
    train_records, held_records = split_holdout(load_annotations(annotations or ANNOTATIONS))
    training = {r["sha1"] for r in train_records}
    for path in REPEATED_ANNOTATIONS[: annotations_per_abstract - 1]:
        train_records += [r for r in load_annotations(path) if r["sha1"] in training]
    if majority:
        by_abstract: dict[str, list[dict]] = {}
        for record in train_records:
            by_abstract.setdefault(record["sha1"], []).append(record)
        train_records = [majority_annotation(records) for records in by_abstract.values()]
    if written_abstracts:
        written = load_annotations(WRITTEN_ANNOTATIONS)
        if not 0 <= written_abstracts <= len(written):
            raise UsageError(f"written abstracts: 0 to {len(written)}, not {written_abstracts}")
        train_records += written[:written_abstracts]
        if written_second:
            chosen = {r["sha1"] for r in written[:written_abstracts]}
            train_records += [r for r in load_annotations(WRITTEN_SECOND_ANNOTATIONS) if r["sha1"] in chosen]
    if other_abstracts:
        train_records += load_annotations(OTHER_ANNOTATIONS)
    return train_records, held_records


def export_encoder(torch, arrays, config: dict, output: Path, *, log=sys.stderr) -> Path | None:
    """The encoder as an int8 ONNX graph beside ``output``, for onnxruntime (needs onnx and onnxruntime)."""
    import importlib.util

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
    vocabulary = vocabulary_types() if model.settings.vocabulary else None
    return [
        decode_document(p, e.words, e.offsets, e.text, e.sentences, model.settings, model.calibration, vocabulary)
        for p, e in zip(predictions, examples)
    ]


def reference_spans(example: Example) -> list[tuple[int, int]]:

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
        ("fallback_threshold", "proposed"),
        ("owner_threshold", "relations"),
        ("relation_threshold", "relations"),
    ):
        results = {}
        values = {
            "owner_threshold": (0.05, 0.1, 0.2, 0.3, 0.5),
            "fallback_threshold": (0.1, 0.2, 0.3, 0.4, 1.0),
        }.get(name, (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9))
        for value in values:
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
    """Refit the calibration (and with ``thresholds``, choose the decoding thresholds again, from the
    defaults, as :func:`train` does) of a trained model on the held-out tenth, without retraining; with
    the encoder that runs (:meth:`LearnedModel.load`)."""
    from kg.extract.scierc.model import unpack_weights

    with np.load(path) as npz:
        arrays, config = unpack_weights({name: npz[name] for name in npz.files})
    _, held_records = training_records()
    held_examples, _ = examples_of(held_records)
    model = LearnedModel.load(path, DecodeSettings() if thresholds else None)
    if thresholds:
        model.settings = choose_thresholds(model, held_examples, held_records, log=log)
    calibration = fit_calibration(model, held_examples, held_records, method)
    arrays = {k: v for k, v in arrays.items() if not k.startswith("calibration.")}
    config = {**config, "settings": asdict(model.settings)}
    from kg.extract.scierc.model import VOCAB_FILE

    save(Path(path), {**arrays, **calibration.to_arrays()}, config, vocab_source=VOCAB_FILE)
    return Path(path)


# --- the torch network --------------------------------------------------------------------------


__all__ = ["Settings", "train"]
