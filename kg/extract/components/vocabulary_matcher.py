"""``kg_vocabulary``: the curated vocabularies' labels found in the text, typed by their vocabulary."""

from __future__ import annotations

from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from kg.extract import cues
from kg.extract.components.spans import word_units
from kg.extract.vocabulary import load_vocabulary


@Language.factory("kg_vocabulary", assigns=["doc.spans"])
def make_vocabulary_matcher(nlp: Language, name: str) -> VocabularyMatcher:
    return VocabularyMatcher(nlp, name=name)


class VocabularyMatcher:
    """Finds the curated vocabularies' labels; span label = entity type, kb_id = concept label.

    Labels written with capitals inside (CLIP, LoRA) or short ones (Adam, ARC) match
    case-sensitively, the rest case-insensitively, so "Adam" the optimiser is found and
    "adam" the word is not.
    """

    def __init__(self, nlp: Language, *, name: str = "kg_vocabulary") -> None:
        self.name = name
        self.exact = PhraseMatcher(nlp.vocab, attr="ORTH")
        self.folded = PhraseMatcher(nlp.vocab, attr="LOWER")
        self._terms: dict[str, tuple[str, str]] = {}
        for term in load_vocabulary():
            key = f"{term.type}\t{term.label}"
            self._terms[key] = (term.type, term.label)
            matcher = self.exact if _case_matters(term.text) else self.folded
            matcher.add(key, [nlp.make_doc(term.text)])

    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations(doc, self.find(doc))
        return doc

    def find(self, doc: Doc) -> list[Span]:
        units = word_units(doc)
        spans = []
        for matcher in (self.exact, self.folded):
            for match_id, start, end in matcher(doc):
                entity_type, label = self._terms[doc.vocab.strings[match_id]]
                whole_start, whole_end = units[start][0], units[end - 1][1]
                if cues.is_adjectival(doc[whole_start:whole_end]):
                    continue  # "transformer-based", "NeRF-like": a modifier, not a mention
                if (whole_start, whole_end) != (start, end):
                    # "ImageNet-CoG" is not ImageNet: a longer name of the same kind.
                    spans.append(Span(doc, whole_start, whole_end, label=entity_type))
                else:
                    spans.append(Span(doc, start, end, label=entity_type, kb_id=label))
        return filter_spans(spans)

    @staticmethod
    def set_annotations(doc: Doc, spans: list[Span]) -> None:
        doc.spans["kg_vocabulary"] = spans


def _case_matters(text: str) -> bool:
    return len(text) <= 5 or any(ch.isupper() for ch in text[1:])
