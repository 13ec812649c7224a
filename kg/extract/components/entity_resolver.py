"""``kg_entities``: the entity spans chosen among the other components' spans, and those the paper proposes."""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.extract import cues
from kg.extract.components.spans import by_priority
from kg.normalize import fold


@Language.factory("kg_entities", requires=["doc.spans"], assigns=["doc.spans"])
def make_entity_resolver(nlp: Language, name: str) -> EntityResolver:
    return EntityResolver(name=name)


class EntityResolver:
    """Chooses the entity spans, vocabulary over acronym long forms over candidates, and drops
    stop-listed phrases that do not deserve a node."""

    def __init__(self, *, name: str = "kg_entities") -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        entities, proposed = self.find(doc)
        self.set_annotations(doc, entities, proposed)
        return doc

    def find(self, doc: Doc) -> tuple[list[Span], list[Span]]:
        long_forms = list(doc.spans.get("kg_long", []))
        short_forms = {fold(s.text): long for s, long in zip(doc.spans.get("kg_short", []), long_forms)}
        vocabulary = list(doc.spans.get("kg_vocabulary", []))
        candidates = list(doc.spans.get("kg_candidates", []))
        typed_long = [self._type_long_form(long, vocabulary, candidates) for long in long_forms]
        # Earlier lists win overlaps: filter_spans prefers longer spans, so rank by priority first.
        ranked = vocabulary + [s for s in typed_long if s is not None] + candidates
        chosen = by_priority(ranked)
        # Later uses of a defined acronym take the long form's type.
        for token in doc:
            long = short_forms.get(fold(token.text))
            if long is not None and not any(s.start <= token.i < s.end for s in chosen):
                typed = next((s for s in typed_long if s is not None and s.start == long.start), None)
                if typed is not None:
                    chosen.append(Span(doc, token.i, token.i + 1, label=typed.label_))
        chosen.sort(key=lambda s: (s.start, s.end))
        chosen = [s for s in chosen if not cues.is_stopword_entity(s.text)]
        proposed = cues.proposed_spans(chosen)
        return chosen, proposed

    @staticmethod
    def _type_long_form(long: Span, vocabulary: list[Span], candidates: list[Span]) -> Span | None:
        for group in (vocabulary, candidates):
            for span in group:
                if span.start < long.end and long.start < span.end:
                    return Span(long.doc, long.start, long.end, label=span.label_)
        entity_type = cues.type_of_head(long.root, long) or "Method"
        return Span(long.doc, long.start, long.end, label=entity_type)

    @staticmethod
    def set_annotations(doc: Doc, entities: list[Span], proposed: list[Span]) -> None:
        doc.spans["kg_entities"] = entities
        doc.spans["kg_proposed"] = proposed
