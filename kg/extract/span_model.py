"""``kg_scierc``: the statistical span detector trained on SciERC.

A transition-based entity recogniser (spaCy's NER model) whose token features come from
the pipeline's own ``tok2vec`` (en_core_web_sm's, frozen: a listener reads ``doc.tensor``),
optionally concatenated with a small embedding of its own. It writes its spans to
``doc.spans["kg_scierc"]`` with SciERC's types mapped to ours (Method, Task, Metric,
Material -> Dataset; Generic and OtherScientificTerm, which it also learns so as to tell
them apart, are dropped). ``doc.ents`` is left as it was.

==================  ==================================  ==============================
component           requires                            assigns
==================  ==================================  ==============================
``kg_scierc``       ``doc.tensor`` (the ``tok2vec``)     ``doc.spans["kg_scierc"]``
==================  ==================================  ==============================

The trained weights ship in ``kg/models/scierc_ner/``; :func:`add_scierc_pipe` adds them to
a loaded en_core_web_sm pipeline. ``kg train scierc`` (:mod:`kg.train`) retrains them.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from spacy.language import Language
from spacy.pipeline.ner import DEFAULT_NER_MODEL, EntityRecognizer
from spacy.scorer import Scorer
from spacy.tokens import Doc, Span
from spacy.util import registry
from thinc.api import Model, concatenate

if TYPE_CHECKING:
    from spacy.training import Example

SPANS_KEY = "kg_scierc"
MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "scierc_ner"
# SciERC label -> our type; labels not here are learned but not output.
LABEL_MAP = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}
_DETERMINERS = {"a", "an", "the", "this", "these", "that", "those", "our", "its", "their"}


@Language.factory(
    "kg_scierc",
    requires=["doc.tensor"],
    assigns=["doc.spans"],
    default_config={
        "model": DEFAULT_NER_MODEL,
        "moves": None,
        "update_with_oracle_cut_size": 100,
        "incorrect_spans_key": None,
        "spans_key": SPANS_KEY,
        "postprocess": True,
        "scorer": {"@scorers": "kg.scierc_spans_scorer.v1"},
    },
    default_score_weights={f"{SPANS_KEY}_f": 1.0, f"{SPANS_KEY}_p": 0.0,
                           f"{SPANS_KEY}_r": 0.0, f"{SPANS_KEY}_per_type": None},
)
def make_scierc_detector(nlp: Language, name: str, model: Model, moves, update_with_oracle_cut_size: int,
                         incorrect_spans_key: str | None, spans_key: str, postprocess: bool,
                         scorer: Callable | None) -> SciercSpanDetector:
    return SciercSpanDetector(nlp.vocab, model, name, moves=moves,
                              update_with_oracle_cut_size=update_with_oracle_cut_size,
                              incorrect_spans_key=incorrect_spans_key, scorer=scorer,
                              spans_key=spans_key, postprocess=postprocess)


class SciercSpanDetector(EntityRecognizer):
    """spaCy's entity recogniser, writing mapped, post-processed spans to a span group."""

    def __init__(self, vocab, model, name: str = "kg_scierc", moves=None, *, spans_key: str = SPANS_KEY,
                 postprocess: bool = True, **kwargs) -> None:
        super().__init__(vocab, model, name, moves, **kwargs)
        self.spans_key = spans_key
        self.postprocess = postprocess

    def set_annotations(self, docs: Iterable[Doc], states_or_beams) -> None:
        docs = list(docs)
        saved = [(doc.ents, doc.has_annotation("ENT_IOB")) for doc in docs]
        for doc in docs:
            doc.ents = []
        super().set_annotations(docs, states_or_beams)
        for doc, (ents, had_ents) in zip(docs, saved):
            predicted = list(doc.ents)
            doc.set_ents(list(ents), default="outside" if had_ents else "missing")
            doc.spans[self.spans_key] = output_spans(predicted, postprocess=self.postprocess)


def output_spans(predicted: list[Span], *, postprocess: bool = True) -> list[Span]:
    """The raw SciERC-labelled spans -> our types, with boundary post-processing."""
    out = []
    for span in predicted:
        label = LABEL_MAP.get(span.label_)
        if label is None:
            continue
        if postprocess:
            out.extend(_fix_span(span, label))
        else:
            out.append(Span(span.doc, span.start, span.end, label=label))
    return out


def _fix_span(span: Span, label: str) -> list[Span]:
    """Boundary fixes: a leading determiner goes; ``long form ( SF )`` becomes two spans."""
    doc = span.doc
    start, end = span.start, span.end
    while start < end - 1 and doc[start].lower_ in _DETERMINERS:
        start += 1
    # "conditional random fields ( CRFs )" -> "conditional random fields", "CRFs"
    if end - start >= 4 and doc[end - 1].text == ")":
        open_i = next((i for i in range(end - 2, start, -1) if doc[i].text == "("), None)
        if open_i is not None and open_i > start and end - open_i <= 4:
            inner = doc[open_i + 1:end - 1]
            if inner and any(ch.isupper() for ch in inner.text):
                return [Span(doc, start, open_i, label=label), Span(doc, inner.start, inner.end, label=label)]
    return [Span(doc, start, end, label=label)]


# --- training support ----------------------------------------------------------------------

@registry.scorers("kg.scierc_spans_scorer.v1")
def make_scierc_spans_scorer() -> Callable:
    return score_scierc_spans


def score_scierc_spans(examples: Iterable[Example], **kwargs) -> dict:
    """Exact span + type over ``doc.spans["kg_scierc"]`` (the reference docs carry the mapped gold there)."""
    return Scorer.score_spans(examples, SPANS_KEY, getter=lambda doc, key: doc.spans.get(key, []),
                              has_annotation=lambda doc: SPANS_KEY in doc.spans, **kwargs)


@registry.architectures("kg.ListenerWithEmbed.v1")
def listener_with_embed(listener: Model, embed: Model) -> Model:
    """The upstream tok2vec's vectors (``listener``) concatenated with a model's own token vectors."""
    return concatenate(listener, embed)


class StopTraining(Exception):
    """Raised by the deadline callback; the best checkpoint is already on disk."""


@registry.callbacks("kg.deadline.v1")
def make_deadline(minutes: float | None = None) -> Callable[[Language, dict], None]:
    """A ``training.before_update`` callback that stops training after ``minutes`` (None: never)."""
    deadline = None if minutes is None else time.monotonic() + 60 * minutes

    def before_update(nlp: Language, args: dict) -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise StopTraining(f"time limit of {minutes} minutes reached")

    return before_update


# --- loading ------------------------------------------------------------------------------------

def add_scierc_pipe(nlp: Language, model_dir: Path | str | None = None, *, name: str = SPANS_KEY) -> None:
    """Add the shipped (or ``model_dir``'s) ``kg_scierc`` component to ``nlp``, after its tagger/parser.

    ``nlp`` must run en_core_web_sm's ``tok2vec``: the component reads its ``doc.tensor``.
    """
    import spacy

    source = spacy.load(Path(model_dir or MODEL_DIR))
    nlp.add_pipe("kg_scierc", name=name, source=source, after="tok2vec")
