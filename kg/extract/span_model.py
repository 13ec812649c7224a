"""``kg_scierc``: the statistical span detector trained on SciERC.

A span categorizer (spaCy's ``SpanCategorizer``, one label per span, overlaps resolved by
score). Its candidates come from :func:`build_tag_suggester` (stretches of up to ten tokens
that start and end on tags a mention can start and end on), each represented by the first,
last, mean and max of its token vectors, and classified as one of SciERC's six types or as
no mention. Only our four types are written: Method, Task, Metric and Dataset (SciERC's
Material); Generic and OtherScientificTerm are learned only to be told apart from them. The
token vectors are the component's own: hashed lexical features (norm, prefix, suffix, shape)
mixed with fixed word vectors distilled from all-MiniLM-L6-v2 (:mod:`kg.models.word_vectors`),
and one CNN layer for context.

==================  ===============================================  ==========================
component           requires                                         assigns
==================  ===============================================  ==========================
``kg_scierc``       ``token.tag`` (en_core_web_sm's tagger)          ``doc.spans["kg_scierc"]``
==================  ===============================================  ==========================

The trained weights ship in ``kg/models/scierc_ner/``; :func:`add_scierc_pipe` adds them to
a loaded en_core_web_sm pipeline. ``kg train scierc`` (:mod:`kg.train`) retrains them from
``kg/models/scierc_ner.cfg``.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from spacy.language import Language
from spacy.pipeline.spancat import SpanCategorizer
from spacy.tokens import Doc, Span
from spacy.util import registry
from thinc.api import Model, concatenate

SPANS_KEY = "kg_scierc"
MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "scierc_ner"
# SciERC label -> our type; SciERC's Generic and OtherScientificTerm are not ours.
LABEL_MAP = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}
OUTPUT_TYPES = frozenset(LABEL_MAP.values())


@Language.factory(
    "kg_scierc",
    requires=["token.tag"],
    assigns=["doc.spans"],
    default_config={
        "spans_key": SPANS_KEY,
        "suggester": {"@misc": "kg.tag_suggester.v1", "max_size": 10},
        "train_key": None,
        "negative_weight": 1.0,
        "allow_overlap": False,
        "scorer": {"@scorers": "spacy.spancat_scorer.v1"},
    },
    default_score_weights={f"spans_{SPANS_KEY}_f": 1.0, f"spans_{SPANS_KEY}_p": 0.0,
                           f"spans_{SPANS_KEY}_r": 0.0, f"spans_{SPANS_KEY}_per_type": None},
)
def make_scierc_detector(nlp: Language, name: str, suggester: Callable, model: Model, spans_key: str,
                         train_key: str | None, negative_weight: float, allow_overlap: bool,
                         scorer: Callable | None) -> SciercSpanDetector:
    """A single-label span categorizer writing to ``doc.spans[spans_key]`` (``model`` comes from the config)."""
    return SciercSpanDetector(nlp.vocab, model=model, suggester=suggester, name=name, spans_key=spans_key,
                              train_key=train_key, negative_weight=negative_weight, allow_overlap=allow_overlap,
                              max_positive=1, add_negative_label=True, threshold=None, scorer=scorer)


class SciercSpanDetector(SpanCategorizer):
    """spaCy's single-label span categorizer that may learn from another span group of the
    reference docs (``train_key``) than the one it writes (``spans_key``), one with more labels:
    SciERC's Generic and OtherScientificTerm are learned as classes of their own (so that a
    generic "method" or a "feature" is told apart from a Method), but only our four types are
    written to ``doc.spans[spans_key]``.
    """

    def __init__(self, *args, train_key: str | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.cfg["train_key"] = train_key

    @property
    def _train_key(self) -> str:
        return self.cfg.get("train_key") or self.key

    def initialize(self, get_examples, *, nlp=None, labels=None) -> None:
        if labels is None:
            labels = sorted({span.label_ for eg in get_examples()
                             for span in eg.reference.spans.get(self._train_key, [])})
        super().initialize(get_examples, nlp=nlp, labels=labels)

    def _get_aligned_spans(self, eg):
        return eg.get_aligned_spans_y2x(eg.reference.spans.get(self._train_key, []), allow_overlap=True)

    def set_annotations(self, docs: Iterable[Doc], indices_scores) -> None:
        docs = list(docs)
        super().set_annotations(docs, indices_scores)
        for doc in docs:
            group = doc.spans[self.key]
            if any(span.label_ not in OUTPUT_TYPES for span in group):
                # SciERC's OtherScientificTerm is where it files phenomena; Generic ("the method") is not ours.
                doc.spans[self.key] = [span if span.label_ in OUTPUT_TYPES
                                       else Span(doc, span.start, span.end, label="Phenomenon")
                                       for span in group if span.label_ in OUTPUT_TYPES or span.label_ == "OtherScientificTerm"]


# --- the model's parts and training hooks --------------------------------------------------

@registry.architectures("kg.EmbedWithWordVectors.v1")
def embed_with_word_vectors(embed: Model, width: int, vectors: str | None = None) -> Model:
    """``embed``'s vectors concatenated with fixed pretrained word vectors (looked up by lower-case
    form; unknown words get zeros), mixed by a Maxout layer to ``width``.

    ``vectors`` is an ``.npz`` of ``keys`` (sorted spaCy hashes) and ``vectors``, read when the model
    is initialised for training (:mod:`kg.models.word_vectors` builds it); the table is then part of
    the model's weights, so a trained model needs no file.
    """
    from thinc.api import Maxout, chain, with_array

    table = Model("kg_word_vectors", _word_vectors_forward, init=partial(_word_vectors_init, path=vectors),
                  params={"keys": None, "table": None}, dims={"nO": None})
    return chain(concatenate(embed, table), with_array(Maxout(width, nP=3, normalize=True, dropout=0.0)))


def _word_vectors_init(model: Model, X=None, Y=None, *, path: str | None = None) -> None:
    import numpy

    if model.has_param("table") and model.get_param("table") is not None:
        return
    if path is None:
        raise ValueError("kg.EmbedWithWordVectors.v1 needs `vectors` (an .npz) to initialise")
    data = numpy.load(path)
    vectors = data["vectors"].astype("float32")
    # The last row, all zeros, is for unknown words. float16 halves the package size; the table is
    # fixed, so no update needs the precision.
    table = numpy.vstack([vectors, numpy.zeros((1, vectors.shape[1]), dtype="float32")]).astype("float16")
    model.set_param("table", table)
    model.set_param("keys", data["keys"].astype("uint64"))
    model.set_dim("nO", vectors.shape[1])


def _word_vectors_forward(model: Model, docs: list[Doc], is_train: bool):
    import numpy
    from spacy.attrs import LOWER

    keys = model.ops.to_numpy(model.get_param("keys"))
    table = model.get_param("table")
    outputs = []
    for doc in docs:
        wanted = doc.to_array(LOWER).astype("uint64")
        rows = numpy.searchsorted(keys, wanted).clip(0, len(keys) - 1)
        rows[keys[rows] != wanted] = len(keys)
        outputs.append(model.ops.asarray2f(table[rows], dtype="float32"))

    def backprop(d_outputs):
        return []  # the table is fixed

    return outputs, backprop


def word_vectors_of(nlp: Language, name: str = SPANS_KEY) -> tuple | None:
    """The ``(keys, vectors)`` table inside a trained ``kg_scierc`` component, or None if it has none."""
    for node in nlp.get_pipe(name).model.walk():
        if node.name == "kg_word_vectors" and node.has_param("table"):
            table = node.ops.to_numpy(node.get_param("table"))
            return node.ops.to_numpy(node.get_param("keys")), table[:-1].astype("float32")
    return None


# Penn tags a SciERC mention starts or ends with; a mention never spans a finite verb or a clause
# boundary. With en_core_web_sm's tags, 97.5% of SciERC train's Method, Task, Metric and Material
# mentions are among the candidates (plain n-grams up to ten tokens: 99.0%), at 2 candidates per token.
_FIRST_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "JJ", "JJR", "JJS", "VBG", "VBN", "VBD", "VBP", "VB", "RB",
                         "RBR", "CD", "FW", "SYM", "LS", "XX", "ADD", "AFX", "NFP", "``"})
_LAST_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "-RRB-", "VBG", "VBZ", "VBP", "VB", "JJ", "CD", "FW", "SYM",
                        "XX", "ADD"})
_BREAK_TAGS = frozenset({"VBZ", "VBP", "MD", ".", ":", "WDT", "WP", "WP$", "WRB", "EX"})


@registry.misc("kg.tag_suggester.v1")
def build_tag_suggester(max_size: int) -> Callable:
    """Span candidates for the span categorizer: every stretch of at most ``max_size`` tokens that
    starts and ends on a tag a mention can start and end on, and crosses no finite verb or clause
    boundary. About a fifth of all n-grams up to that size, so the classifier runs that much less."""

    def suggest(docs: Iterable[Doc], *, ops=None):
        from thinc.api import get_current_ops
        from thinc.types import Ragged

        ops = ops or get_current_ops()
        spans: list[tuple[int, int]] = []
        lengths: list[int] = []
        for doc in docs:
            before = len(spans)
            tags = [t.tag_ for t in doc]
            for start, tag in enumerate(tags):
                if tag not in _FIRST_TAGS:
                    continue
                for end in range(start + 1, min(start + max_size, len(tags)) + 1):
                    last = tags[end - 1]
                    if end - 1 > start and last in _BREAK_TAGS:
                        break
                    if last in _LAST_TAGS:
                        spans.append((start, end))
            lengths.append(len(spans) - before)
        data = ops.asarray2i(spans) if spans else ops.xp.zeros((0, 2), dtype="i")
        return Ragged(data, ops.asarray1i(lengths))

    return suggest


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
    """Add the shipped ``kg_scierc`` component (or ``model_dir``'s, or ``$KG_SCIERC_MODEL``'s) at the end of ``nlp``.

    ``nlp`` must tag (en_core_web_sm's ``tagger``): the candidates are chosen by ``token.tag_``.
    """
    import spacy

    source = spacy.load(Path(model_dir or os.environ.get("KG_SCIERC_MODEL") or MODEL_DIR))
    nlp.add_pipe("kg_scierc", name=name, source=source)


@Language.factory("kg_scierc_entities", requires=["doc.spans"], assigns=["doc.spans"])
def make_scierc_entities(nlp: Language, name: str) -> SciercEntities:
    return SciercEntities(name=name)


class SciercEntities:
    """The ``scierc`` profile's resolver: the detector's spans are the entities, nothing is proposed.

    SciERC types every mention on its own. Mentions are grouped into entities by name, and an
    entity has one type, so a mention whose type differs from the type its name first had gets
    a ``kb_id`` (which names its entity) carrying its type: it becomes an entity of its own and
    keeps the type the detector gave it.
    """

    def __init__(self, *, name: str = "kg_scierc_entities") -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        from kg.normalize import fold

        first_type: dict[str, str] = {}
        entities = []
        for span in doc.spans.get(SPANS_KEY, []):
            key = fold(span.text)
            label = first_type.setdefault(key, span.label_)
            kb_id = "" if label == span.label_ else f"{span.text} {span.label_}"
            entities.append(Span(doc, span.start, span.end, label=span.label_, kb_id=kb_id))
        doc.spans["kg_entities"] = entities
        doc.spans["kg_proposed"] = []
        return doc
