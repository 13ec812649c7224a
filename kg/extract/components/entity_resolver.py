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
        # The first span of each group over each token, for typing long forms without a scan per long form.
        label_at: list[dict[int, str]] = []
        for group in (vocabulary, candidates):
            at: dict[int, str] = {}
            for span in group:
                for i in range(span.start, span.end):
                    at.setdefault(i, span.label_)
            label_at.append(at)
        typed_long = [self._type_long_form(long, label_at) for long in long_forms]
        # Earlier lists win overlaps: filter_spans prefers longer spans, so rank by priority first.
        ranked = vocabulary + typed_long + candidates
        chosen = by_priority(ranked)
        covered = {i for s in chosen for i in range(s.start, s.end)}
        typed_at = {}
        for typed in typed_long:
            typed_at.setdefault(typed.start, typed)
        # Later uses of a defined acronym take the long form's type.
        if short_forms:
            for token in doc:
                long = short_forms.get(fold(token.text))
                if long is not None and token.i not in covered and long.start in typed_at:
                    chosen.append(Span(doc, token.i, token.i + 1, label=typed_at[long.start].label_))
        chosen.sort(key=lambda s: (s.start, s.end))
        chosen = [s for s in chosen if not cues.is_stopword_entity(s.text)]
        proposed = cues.proposed_spans(chosen)
        return chosen, proposed

    @staticmethod
    def _type_long_form(long: Span, label_at: list[dict[int, str]]) -> Span:
        """The long form typed by the first vocabulary span, else candidate, it overlaps; else by its head."""
        for at in label_at:
            labels = [at[i] for i in range(long.start, long.end) if i in at]
            if labels:
                return Span(long.doc, long.start, long.end, label=labels[0])
        entity_type = cues.type_of_head(long.root, long) or "Method"
        return Span(long.doc, long.start, long.end, label=entity_type)

    @staticmethod
    def set_annotations(doc: Doc, entities: list[Span], proposed: list[Span]) -> None:
        doc.spans["kg_entities"] = entities
        doc.spans["kg_proposed"] = proposed
