"""Typed relations between the entities of a sentence, read off the dependency parse.

Each rule looks at two entity mentions of one sentence, the path between their head
words in the parse, and the verb or preposition that joins them:

=========================================  ================  ============  ==========
pattern                                    predicate         SciERC label  confidence
=========================================  ================  ============  ==========
X outperforms / surpasses Y                outperforms       COMPARE       0.8
X is compared with Y                       comparedWith      COMPARE       0.7
X mitigates / addresses / solves Y         addresses         USED-FOR*     0.8
X uses / leverages / builds on Y           Y usedFor X       USED-FOR      0.75
X is used / applied for / to Y             usedFor           USED-FOR      0.8
X for Y  (a method for a task)             usedFor           USED-FOR      0.7
X evaluated / achieves ... on Y (dataset)  evaluatedOn       EVALUATE-FOR  0.75
X achieves Y (metric); Y of X              evaluatedOn       EVALUATE-FOR  0.7
Y such as X                                hyponymOf         HYPONYM-OF    0.75
X and Y (same type)                        conjunction       CONJUNCTION   0.6
=========================================  ================  ============  ==========

\\* when Y is a task; a phenomenon has no SciERC label. ``evaluatedOn`` runs from the method
to the dataset or metric, the reverse of SciERC's EVALUATE-FOR: the SciERC labels and their
directions are in :mod:`kg.extract.scierc.schema`, which the classifier
(:mod:`kg.extract.relation_model`) reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from kg.extract.records import RELATIONS_KEY

SYMMETRIC = frozenset({"comparedWith", "conjunction"})
# A mention is paired with at most this many of the mentions after it in its sentence. No sentence of the
# seeds has more than 11 mentions; the bound keeps a degenerate sentence (a whole file without a full stop)
# from costing the square of its length.
PAIR_WINDOW = 32

_OUTPERFORM = frozenset({"outperform", "surpass", "beat", "exceed", "outpace", "dominate", "outshine"})
_COMPARE = frozenset({"compare", "contrast", "benchmark", "match", "rival"})
_ADDRESS = frozenset(
    {
        "mitigate",
        "alleviate",
        "address",
        "tackle",
        "solve",
        "reduce",
        "prevent",
        "overcome",
        "combat",
        "handle",
        "resolve",
        "counteract",
        "avoid",
        "eliminate",
        "fix",
        "suppress",
        "remedy",
        "lessen",
        "curb",
        "minimize",
        "attenuate",
        "correct",
    }
)
_USE = frozenset(
    {
        "use",
        "utilize",
        "utilise",
        "leverage",
        "employ",
        "adopt",
        "exploit",
        "incorporate",
        "integrate",
        "harness",
        "rely",
        "build",
        "base",
        "combine",
        "extend",
        "augment",
    }
)
_APPLY = frozenset(
    {"use", "apply", "utilize", "employ", "adopt", "leverage", "design", "develop", "propose", "introduce", "tailor"}
)
_EVALUATE = frozenset(
    {
        "evaluate",
        "test",
        "validate",
        "assess",
        "benchmark",
        "experiment",
        "demonstrate",
        "show",
        "achieve",
        "attain",
        "obtain",
        "report",
        "measure",
        "reach",
        "improve",
        "perform",
        "set",
        "yield",
        "establish",
    }
)


@dataclass(frozen=True)
class Found:
    """One relation between two mentions (token spans) of a sentence."""

    subject: Span
    predicate: str
    object: Span
    scierc: str | None
    confidence: float


@Language.factory(
    "kg_relations", default_config={"threshold": 0.6}, requires=["doc.spans", "token.dep"], assigns=["doc.user_data"]
)
def make_relation_finder(nlp: Language, name: str, threshold: float) -> RelationFinder:
    from kg.extract.relation_model import MODEL_FILE, RelationModel

    model = RelationModel.load() if MODEL_FILE.is_file() else None
    return RelationFinder(name=name, model=model, threshold=threshold)


class RelationFinder:
    """Finds relations between the mentions in ``doc.spans["kg_entities"]``: the rules first,
    then, for pairs no rule relates, the SciERC-trained classifier when it is confident enough.

    Results are kept in ``doc.user_data["kg_relations"]`` as plain tuples of token offsets,
    so that they travel with the Doc between processes.
    """

    def __init__(self, *, name: str = "kg_relations", model=None, threshold: float = 0.6) -> None:
        self.name = name
        self.model = model
        self.threshold = threshold

    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations(doc, self.find(doc))
        return doc

    def find(self, doc: Doc) -> list[Found]:
        found: dict[tuple[int, int, int, int], Found] = {}
        for inside in mentions_by_sentence(doc, doc.spans.get("kg_entities", [])):
            for i, first in enumerate(inside):
                for second in inside[i + 1 : i + 1 + PAIR_WINDOW]:
                    ruled = False
                    for relation in _relations(first, second):
                        ruled = True
                        key = (relation.subject.start, relation.subject.end, relation.object.start, relation.object.end)
                        if key not in found or found[key].confidence < relation.confidence:
                            found[key] = relation
                    if not ruled and self.model is not None:
                        relation = self._classify(first, second)
                        if relation is not None:
                            found[
                                (
                                    relation.subject.start,
                                    relation.subject.end,
                                    relation.object.start,
                                    relation.object.end,
                                )
                            ] = relation
        return sorted(found.values(), key=lambda r: (r.subject.start, r.object.start, r.predicate))

    def _classify(self, first: Span, second: Span) -> Found | None:
        found = self.model.relate(first, second, threshold=self.threshold)
        return None if found is None else Found(*found)

    @staticmethod
    def set_annotations(doc: Doc, relations: list[Found]) -> None:
        doc.user_data[RELATIONS_KEY] = [
            (r.subject.start, r.subject.end, r.predicate, r.object.start, r.object.end, r.scierc, r.confidence)
            for r in relations
        ]


def mentions_by_sentence(doc: Doc, mentions: Iterable[Span]) -> list[list[Span]]:
    """The mentions that lie inside each sentence, in text order, one list per sentence: in one pass over
    both (a mention across a sentence boundary is in none).

    >>> import spacy
    >>> nlp = spacy.blank("en"); nlp.add_pipe("sentencizer")  # doctest: +ELLIPSIS
    <...>
    >>> doc = nlp("Alpha beta. Gamma delta epsilon.")
    >>> [[m.text for m in group] for group in mentions_by_sentence(doc, [doc[0:1], doc[1:4], doc[3:4], doc[4:5]])]
    [['Alpha'], ['Gamma', 'delta']]
    """
    ordered = sorted(mentions, key=lambda m: (m.start, m.end))
    groups: list[list[Span]] = []
    k = 0
    for sentence in doc.sents:
        while k < len(ordered) and ordered[k].start < sentence.start:
            k += 1
        group = []
        while k < len(ordered) and ordered[k].start < sentence.end:
            if ordered[k].end <= sentence.end:
                group.append(ordered[k])
            k += 1
        groups.append(group)
    return groups


def relations_of(doc: Doc) -> list[tuple[Span, str, Span, str | None, float]]:
    """The relations a processed Doc carries, as (subject span, predicate, object span, SciERC label, confidence)."""
    return [
        (doc[s0:s1], predicate, doc[o0:o1], scierc, confidence)
        for s0, s1, predicate, o0, o1, scierc, confidence in doc.user_data.get(RELATIONS_KEY, [])
    ]


def _relations(first: Span, second: Span) -> Iterator[Found]:
    """Every rule, tried on the pair in both orders; ``first`` precedes ``second`` in the sentence."""
    for rule in (_by_verb, _by_preposition, _by_example, _by_apposition, _by_conjunction):
        yield from rule(first, second)


def _by_verb(first: Span, second: Span) -> Iterator[Found]:
    verb = _lowest_common_ancestor(first.root, second.root)
    if verb is None or verb.pos_ not in ("VERB", "AUX"):
        return
    lemma = verb.lemma_.lower()
    roles = {_role(first.root, verb): first, _role(second.root, verb): second}
    subject, obj = roles.get("subject"), roles.get("object")
    passive_subject, agent_or_prep = roles.get("passive"), roles.get("object")
    preposition = _preposition(obj.root, verb) if obj is not None else None
    if subject is not None and obj is not None and subject is not obj:
        if lemma in _OUTPERFORM and subject.label_ == obj.label_ == "Method":
            yield Found(subject, "outperforms", obj, "COMPARE", 0.8)
        elif lemma in _ADDRESS and obj.label_ in ("Phenomenon", "Task"):
            yield Found(subject, "addresses", obj, "USED-FOR" if obj.label_ == "Task" else None, 0.8)
        elif lemma in _USE and obj.label_ == "Method":
            yield Found(obj, "usedFor", subject, "USED-FOR", 0.75)
        elif lemma in _ENABLE and subject.label_ == "Method" and obj.label_ == "Task":
            yield Found(subject, "usedFor", obj, "USED-FOR", 0.6)
        elif lemma in _EVALUATE and obj.label_ in ("Dataset", "Metric") and subject.label_ == "Method":
            yield Found(subject, "evaluatedOn", obj, "EVALUATE-FOR", 0.75)
        elif lemma in _COMPARE and subject.label_ == obj.label_:
            yield Found(subject, "comparedWith", obj, "COMPARE", 0.7)
    if passive_subject is not None and agent_or_prep is not None and passive_subject is not agent_or_prep:
        if lemma in _APPLY and preposition in ("for", "to") and agent_or_prep.label_ in ("Task", "Method"):
            yield Found(passive_subject, "usedFor", agent_or_prep, "USED-FOR", 0.8)
        elif lemma in _EVALUATE and preposition in ("on", "across", "in") and agent_or_prep.label_ == "Dataset":
            yield Found(passive_subject, "evaluatedOn", agent_or_prep, "EVALUATE-FOR", 0.75)
        elif lemma in _COMPARE and preposition in ("with", "to", "against"):
            yield Found(passive_subject, "comparedWith", agent_or_prep, "COMPARE", 0.7)
    if (
        subject is not None
        and obj is not None
        and lemma in _EVALUATE
        and preposition in ("on", "across")
        and obj.label_ == "Dataset"
        and subject.label_ != "Dataset"
    ):
        yield Found(subject, "evaluatedOn", obj, "EVALUATE-FOR", 0.7)
    yield from _verb_with_two_objects(first, second, verb, lemma)


_TRAIN = frozenset({"train", "pretrain", "pre-train", "fine-tune", "finetune", "tune", "distill", "learn"})
_ENABLE = frozenset(
    {
        "improve",
        "enhance",
        "enable",
        "facilitate",
        "boost",
        "accelerate",
        "support",
        "advance",
        "benefit",
        "help",
        "aid",
        "empower",
        "strengthen",
    }
)


def _verb_with_two_objects(first: Span, second: Span, verb: Token, lemma: str) -> Iterator[Found]:
    """ "(we) apply X to Y", "evaluate X on Y", "train X on Y": a direct object and a prepositional one."""
    direct = next((m for m in (first, second) if _attaches_as(m.root, verb) == "dobj"), None)
    other = second if direct is first else first
    if direct is None or _attaches_as(other.root, verb) != "prep":
        return
    preposition = _preposition(other.root, verb)
    if lemma in _APPLY and preposition in ("to", "for") and other.label_ in ("Task", "Method", "Dataset"):
        yield Found(direct, "usedFor", other, "USED-FOR", 0.75)
    elif lemma in _EVALUATE and preposition in ("on", "across", "in") and other.label_ == "Dataset":
        yield Found(direct, "evaluatedOn", other, "EVALUATE-FOR", 0.75)
    elif (
        lemma in _TRAIN
        and preposition in ("on", "with", "using")
        and other.label_ == "Dataset"
        and direct.label_ == "Method"
    ):
        yield Found(other, "usedFor", direct, "USED-FOR", 0.7)
    elif lemma in _COMPARE and preposition in ("with", "to", "against") and direct.label_ == other.label_:
        yield Found(direct, "comparedWith", other, "COMPARE", 0.7)


def _attaches_as(token: Token, verb: Token) -> str | None:
    """ "dobj" or "prep": how the phrase headed by ``token`` hangs off ``verb`` (through conjunctions)."""
    while token.dep_ == "conj" and token.head != verb:
        token = token.head
    if token.head == verb and token.dep_ in ("dobj", "obj"):
        return "dobj"
    if token.dep_ == "pobj" and token.head.dep_ == "prep" and token.head.head == verb:
        return "prep"
    return None


_MEANS = frozenset({"via", "using", "through", "by", "with"})


def _by_preposition(first: Span, second: Span) -> Iterator[Found]:
    """ "<a> for <b>", "<a> on <b>", "<a> of <b>", "<a> via <b>": <b> hangs off <a>'s head word."""
    for head_span, tail in ((first, second), (second, first)):
        attached = _attachment(tail.root)
        if attached is None or not (head_span.start <= attached[0].i < head_span.end):
            continue
        preposition = attached[1]
        if preposition == "for" and tail.label_ in ("Task", "Method", "Phenomenon"):
            if head_span.label_ in ("Method", "Dataset"):
                yield Found(head_span, "usedFor", tail, "USED-FOR", 0.7)
            elif head_span.label_ == "Metric":
                yield Found(tail, "evaluatedOn", head_span, "EVALUATE-FOR", 0.65)
        elif preposition in ("on", "across") and tail.label_ == "Dataset" and head_span.label_ in ("Method", "Task"):
            yield Found(head_span, "evaluatedOn", tail, "EVALUATE-FOR", 0.65)
        elif preposition == "of" and head_span.label_ == "Metric" and tail.label_ in ("Method", "Task"):
            yield Found(tail, "evaluatedOn", head_span, "EVALUATE-FOR", 0.7)
        elif preposition in _MEANS and tail.label_ == "Method" and head_span.label_ in ("Method", "Task"):
            yield Found(tail, "usedFor", head_span, "USED-FOR", 0.6)


def _by_apposition(first: Span, second: Span) -> Iterator[Found]:
    """ "ToolDec, a decoding algorithm", "a generated dataset, ImageNet-G": the name is a kind of the class.

    An acronym in brackets is also parsed as an apposition; it is the same entity, not a kind of it.
    """
    if not (second.root.dep_ == "appos" and first.start <= second.root.head.i < first.end):
        return
    if first.label_ != second.label_ or second.doc[second.start - 1].text == "(":
        return
    first_is_name, second_is_name = _is_name(first), _is_name(second)
    if first_is_name and not second_is_name:
        yield Found(first, "hyponymOf", second, "HYPONYM-OF", 0.65)
    elif second_is_name and not first_is_name:
        yield Found(second, "hyponymOf", first, "HYPONYM-OF", 0.65)


def _is_name(span: Span) -> bool:
    return any(t.text[:1].isupper() or any(ch.isdigit() for ch in t.text) for t in span)


def _by_example(first: Span, second: Span) -> Iterator[Found]:
    """ "<class> such as <example>", "<class> including <example>": the example is a kind of the class."""
    head = _attachment(second.root)
    if head is None or not (first.start <= head[0].i < first.end):
        return
    token, preposition, at = head
    such_as = preposition == "as" and token.doc[at - 1].lower_ == "such"
    if (such_as or preposition in ("including", "like")) and first.label_ == second.label_:
        yield Found(second, "hyponymOf", first, "HYPONYM-OF", 0.75)


def _by_conjunction(first: Span, second: Span) -> Iterator[Found]:
    if first.label_ == second.label_ and second.root in first.root.conjuncts:
        yield Found(first, "conjunction", second, "CONJUNCTION", 0.6)


def _lowest_common_ancestor(a: Token, b: Token) -> Token | None:
    above_a = [a, *a.ancestors]
    above_b = {t.i for t in (b, *b.ancestors)}
    return next((t for t in above_a if t.i in above_b), None)


def _role(token: Token, verb: Token) -> str | None:
    """How the phrase headed by ``token`` attaches to ``verb``: subject, object, passive subject."""
    path = [token, *[t for t in token.ancestors]]
    child = next((t for t in path if t.head == verb and t != verb), None)
    if child is None:
        return None
    while child.dep_ == "conj" and child.head != verb:
        child = child.head
    if child.dep_ in ("nsubj", "csubj"):
        return "subject"
    if child.dep_ == "nsubjpass":
        return "passive"
    if child.dep_ in ("dobj", "attr", "prep", "agent", "dative", "obj", "pobj", "advcl", "xcomp"):
        return "object"
    return None


def _preposition(token: Token, verb: Token) -> str | None:
    for t in (token, *token.ancestors):
        if t == verb:
            return None
        if t.dep_ in ("prep", "agent"):
            return t.lower_
    return None


def _attachment(token: Token) -> tuple[Token, str, int] | None:
    """For a prepositional object, the word its preposition attaches to, the preposition, and its index."""
    while token.dep_ == "conj":
        token = token.head
    if token.dep_ != "pobj":
        return None
    preposition = token.head
    if preposition.dep_ not in ("prep", "agent"):
        return None
    return preposition.head, preposition.lower_, preposition.i
