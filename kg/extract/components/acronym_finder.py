"""``kg_acronyms``: marks ``long form (SHORT)`` definitions, sentence by sentence."""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.extract.acronyms import find_definitions


@Language.factory("kg_acronyms", requires=["token.is_sent_start"], assigns=["doc.spans"])
def make_acronym_finder(nlp: Language, name: str) -> AcronymFinder:
    return AcronymFinder(name=name)


class AcronymFinder:
    """Marks ``long form (SHORT)`` definitions: ``kg_short[i]`` abbreviates ``kg_long[i]``."""

    def __init__(self, *, name: str = "kg_acronyms") -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations(doc, self.find(doc))
        return doc

    def find(self, doc: Doc) -> list[tuple[Span, Span]]:
        pairs = []
        text = doc.text  # spaCy joins the tokens anew at each access: once, not once a sentence
        for sent in doc.sents:
            for s0, s1, l0, l1 in find_definitions(text, start=sent.start_char, end=sent.end_char):
                short = doc.char_span(s0, s1, alignment_mode="expand")
                long = doc.char_span(l0, l1, alignment_mode="expand")
                if short is not None and long is not None:
                    pairs.append((short, long))
        return pairs

    @staticmethod
    def set_annotations(doc: Doc, pairs: list[tuple[Span, Span]]) -> None:
        doc.spans["kg_short"] = [short for short, _ in pairs]
        doc.spans["kg_long"] = [long for _, long in pairs]
