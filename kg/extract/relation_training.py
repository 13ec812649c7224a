"""Training and measuring the relation classifier on SciERC (``kg train relations``).

Pairs of annotated mentions within a SciERC sentence are the examples; their class is the
annotated relation, in the direction of the pair, or NONE. Every choice is measured on dev.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kg.extract.relation_model import CLASSES, FEATURE_TYPE, MAX_GAP, MODEL_FILE, RelationModel, pair_features, train
from kg.extract.scierc.corpus import SciercDoc, read_split
from kg.metrics import Prf

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span


def parse(nlp: Language, docs: Sequence[SciercDoc]) -> list[Doc]:
    return list(nlp.pipe((d.text for d in docs), batch_size=32))


def labelled_pairs(doc: Doc, source: SciercDoc) -> Iterator[tuple[Span, str, Span, str, str]]:
    """Every ordered pair of annotated mentions in one SciERC sentence, with its class."""
    gold = {(r[0], r[1], r[2], r[3]): r[4] for r in source.relations}
    bounds = [source.token_starts[i] for i in source.sentence_starts] + [len(source.text) + 1]
    for sentence_start, sentence_end in zip(bounds, bounds[1:]):
        mentions = []
        for start, end, label in sorted(source.entities):
            if sentence_start <= start < sentence_end:
                span = doc.char_span(start, end, alignment_mode="expand")
                if span is not None:
                    mentions.append((start, end, span, FEATURE_TYPE[label]))
        for i, (s0, s1, first, first_type) in enumerate(mentions):
            for t0, t1, second, second_type in mentions[i + 1 :]:
                if second.start - first.end > MAX_GAP or first.end > second.start:
                    continue
                if (s0, s1, t0, t1) in gold:
                    label = f"{gold[(s0, s1, t0, t1)]}>"
                elif (t0, t1, s0, s1) in gold:
                    label = f"{gold[(t0, t1, s0, s1)]}<"
                else:
                    label = "NONE"
                yield first, first_type, second, second_type, label


def train_relations(output: Path = MODEL_FILE, *, epochs: int = 4) -> RelationModel:
    """Fit on SciERC train and write the weights."""
    import spacy

    from kg.extract.model import resolve_model

    nlp = spacy.load(resolve_model(), exclude=["ner"])
    docs = read_split("train")
    examples = [
        (pair_features(a, at, b, bt), label)
        for doc, source in zip(parse(nlp, docs), docs)
        for a, at, b, bt, label in labelled_pairs(doc, source)
    ]
    model = train(examples, epochs=epochs)
    output.parent.mkdir(parents=True, exist_ok=True)
    model.save(output)
    return model


def gold_entity_scores(model: RelationModel, split: str = "dev", *, threshold: float = 0.5) -> Prf:
    """Relation P/R/F1 on ``split`` given the annotated mentions (isolates relations from spans)."""
    import spacy

    from kg.extract.model import resolve_model

    nlp = spacy.load(resolve_model(), exclude=["ner"])
    docs = read_split(split)
    tp = fp = fn = 0
    for doc, source in zip(parse(nlp, docs), docs):
        for first, first_type, second, second_type, label in labelled_pairs(doc, source):
            predicted, probability = model.predict(pair_features(first, first_type, second, second_type))
            if probability < threshold:
                predicted = "NONE"
            if predicted != "NONE" and predicted == label:
                tp += 1
            else:
                fp += predicted != "NONE"
                fn += label != "NONE"
    return Prf(tp, fp, fn)


__all__ = ["CLASSES", "gold_entity_scores", "labelled_pairs", "train_relations"]
