"""``kg_scierc``: the SciERC joint model as a spaCy component."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import minibatch

from kg.extract.records import RELATIONS_KEY
from kg.extract.scierc.model import (
    RELATION_THRESHOLD,
    SPAN_THRESHOLD,
    SPANS_KEY,
    SciercModel,
    SentencePrediction,
    neighbour_words,
)
from kg.extract.scierc.schema import PREDICATE_OF_LABEL
from kg.normalize import entity_key


@Language.factory(
    "kg_scierc",
    requires=["token.is_sent_start"],
    assigns=["doc.spans", "doc.user_data"],
    default_config={"span_threshold": SPAN_THRESHOLD, "relation_threshold": RELATION_THRESHOLD, "model_path": None},
)
def make_scierc_extractor(
    nlp: Language, name: str, span_threshold: float, relation_threshold: float, model_path: str | None
) -> SciercExtractor:
    model = SciercModel.load(model_path, span_threshold=span_threshold, relation_threshold=relation_threshold)
    return SciercExtractor(model, name=name)


class SciercExtractor:
    """Runs :class:`SciercModel` over each sentence of a Doc (see the module docstring)."""

    def __init__(self, model: SciercModel, *, name: str = "kg_scierc") -> None:
        self.model = model
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations(doc, self.predict([doc])[0])
        return doc

    def pipe(self, docs: Iterable[Doc], *, batch_size: int = 32) -> Iterator[Doc]:
        for batch in minibatch(docs, size=batch_size):
            yield from self._annotate(batch)

    def _annotate(self, docs: list[Doc]) -> Iterator[Doc]:
        for doc, predictions in zip(docs, self.predict(docs)):
            self.set_annotations(doc, predictions)
            yield doc

    def predict(self, docs: Sequence[Doc]) -> list[list[tuple[Span, SentencePrediction]]]:
        sentences, words, contexts = [], [], []
        for doc in docs:
            these = [s for s in doc.sents if not s.text.isspace()]
            sentences.append(these)
            texts = [[t.text for t in s if not t.is_space] for s in these]
            words.extend(texts)
            if self.model.context:  # the shipped model reads each sentence alone
                contexts.extend(neighbour_words(texts))
        predictions = iter(self.model.predict(words, contexts))
        return [[(sentence, next(predictions)) for sentence in these] for these in sentences]

    @staticmethod
    def set_annotations(doc: Doc, predictions: list[tuple[Span, SentencePrediction]]) -> None:
        mentions, entities, relations = [], [], []
        first_scierc: dict[str, str] = {}
        for sentence, prediction in predictions:
            tokens = [token.i for token in sentence if not token.is_space]
            spans = []
            for span in prediction.spans:
                start, end = tokens[span.start], tokens[span.end - 1] + 1
                spans.append(Span(doc, start, end, label=span.scierc))
                # A name is one entity only under one SciERC type: another type makes it another entity.
                key = entity_key(doc[start:end].text)
                kb_id = "" if first_scierc.setdefault(key, span.scierc) == span.scierc else f"{key} {span.scierc}"
                entities.append(Span(doc, start, end, label=span.type, kb_id=kb_id))
            mentions.extend(spans)
            for relation in prediction.relations:
                first, second = spans[relation.first], spans[relation.second]
                predicate, reversed_ = PREDICATE_OF_LABEL[relation.label]
                subject, obj = (second, first) if reversed_ else (first, second)
                relations.append(
                    (subject.start, subject.end, predicate, obj.start, obj.end, relation.label, relation.score)
                )
        doc.spans[SPANS_KEY] = mentions
        doc.spans["kg_entities"] = entities
        doc.spans["kg_proposed"] = []
        doc.user_data[RELATIONS_KEY] = sorted(relations)
