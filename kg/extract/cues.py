"""Word lists and rules that type a phrase and tell whether a paper proposes it.

Examples
--------
>>> looks_like_name("CLIP"), looks_like_name("GPT-4"), looks_like_name("LoRA"), looks_like_name("The")
(True, True, True, False)
>>> is_stopword_entity("our framework"), is_stopword_entity("robust overfitting")
(True, False)
"""

from __future__ import annotations

import re
from bisect import bisect_left

from spacy.tokens import Span, Token

from kg.normalize import fold

# fmt: off
# Head lemmas that type a noun phrase. A phrase whose head is listed and that has at
# least one non-generic modifier ("contrastive learning", "return-conditioned policy")
# is a candidate of that type.
HEADS: dict[str, frozenset[str]] = {
    "Dataset": frozenset({"dataset", "benchmark", "corpus", "suite", "treebank", "testbed"}),
    "Metric": frozenset({"accuracy", "precision", "recall", "f1", "score", "perplexity", "auc",
                         "metric", "error", "rate", "bleu", "rouge", "fid", "divergence"}),
    "Phenomenon": frozenset({"overfitting", "underfitting", "forgetting", "collapse", "misgeneralization",
                             "hallucination", "shift", "drift", "bias", "memorization", "phenomenon",
                             "vulnerability", "degradation", "discrepancy", "gap", "instability",
                             "oversmoothing", "hacking", "grokking", "law", "interference",
                             "sycophancy", "leakage", "contamination", "imbalance", "noise"}),
    "Task": frozenset({"task", "problem", "classification", "recognition", "retrieval", "generation",
                       "translation", "segmentation", "prediction", "answering", "summarization",
                       "reasoning", "planning", "navigation", "captioning", "estimation", "detection",
                       "localization", "tracking", "parsing", "forecasting", "synthesis", "editing",
                       "completion", "understanding", "alignment", "adaptation", "learning",
                       "recommendation", "control", "manipulation", "matching", "labeling", "tagging",
                       "generalization"}),
    "Method": frozenset({"model", "network", "architecture", "algorithm", "method", "framework",
                         "approach", "technique", "encoder", "decoder", "transformer", "policy",
                         "optimizer", "loss", "regularization", "mechanism", "module", "strategy",
                         "attack", "defense", "distillation", "training", "tuning", "prompting",
                         "sampling", "estimator", "classifier", "detector", "generator", "embedding",
                         "pipeline", "objective", "scheme", "procedure", "layer", "agent", "system",
                         "decoding", "pruning", "quantization", "augmentation", "normalization",
                         "dropout", "search", "descent", "adapter", "retriever"}),
}

# "X learning" names a technique when X is one of these, a task or setting otherwise.
TECHNIQUE_LEARNING = frozenset({"contrastive", "adversarial", "self-supervised", "supervised", "curriculum",
                                "meta", "transfer", "representation", "metric", "ensemble", "deep",
                                "multi-task", "multitask", "semi-supervised", "unsupervised"})

# Heads too generic to name a concept on their own, or with only weak modifiers.
GENERIC_HEADS = frozenset({"model", "method", "approach", "framework", "technique", "system", "network",
                           "algorithm", "architecture", "module", "mechanism", "strategy", "scheme",
                           "procedure", "pipeline", "task", "problem", "dataset", "benchmark", "metric",
                           "score", "performance", "result", "work", "paper", "study", "analysis",
                           "experiment", "setting", "data", "training", "objective", "loss", "agent",
                           "layer", "baseline", "tool", "solution", "phenomenon", "effect", "rate",
                           "error", "gap", "learning", "generation", "detection", "prediction",
                           "policy", "encoder", "decoder", "head", "component"})

WEAK_MODIFIERS = frozenset({
    "novel", "new", "existing", "various", "several", "different", "previous", "prior", "recent",
    "current", "proposed", "many", "most", "such", "other", "same", "efficient", "simple", "effective",
    "popular", "standard", "key", "our", "their", "its", "this", "these", "those", "that", "some", "any",
    "each", "both", "all", "further", "additional", "strong", "powerful", "robust", "extensive",
    "comprehensive", "general", "specific", "particular", "traditional", "conventional", "typical",
    "original", "underlying", "overall", "significant", "superior", "better", "improved", "promising",
    "challenging", "difficult", "important", "crucial", "main", "first", "second", "unified", "generic",
    "scalable", "flexible", "lightweight", "principled", "theoretical", "empirical", "practical",
    "state-of-the-art", "sota", "competitive", "large", "small", "whole", "entire",
    "single", "multiple", "diverse", "common", "well-known", "widely", "used", "based", "art",
    "modern", "contemporary", "emerging", "today", "classical", "vanilla", "naive", "plain", "advanced",
    # evaluative words say how good something is, not what it is
    "remarkable", "impressive", "poor", "enhanced", "severe", "core", "observed", "interesting", "complete",
    "rapid", "notable", "substantial", "weak", "limited", "high", "low", "higher",
    "lower", "great", "good", "bad", "excellent", "outstanding", "considerable", "major", "minor", "serious",
    "critical", "fundamental", "potential", "possible", "desired", "desirable", "undesirable", "surprising",
    "unexpected", "known", "unknown", "real", "true", "actual", "certain", "numerous",
})

# Phrases that never deserve a node, after folding.
STOP_ENTITIES = frozenset({
    "method", "approach", "model", "framework", "technique", "performance", "result", "task", "problem",
    "dataset", "benchmark", "algorithm", "architecture", "system", "network", "experiment", "baseline",
    "data", "training", "learning", "accuracy gain", "state of the art", "work", "paper", "study",
    "analysis", "setting", "code", "source code", "tool", "solution", "effectiveness", "efficiency",
    "generalization", "improvement", "we", "it", "they", "ai", "ml", "our framework", "our method",
    "our model", "our approach", "this work", "this paper", "prior work", "existing method",
    "existing approach", "deep learning", "machine learning", "artificial intelligence", "neural network",
    "nn", "sota", "api", "nlp", "gpu", "cpu", "ood", "id", "lm", "cv", "ai model",
    "generalization ability", "generalization performance", "downstream task", "downstream performance",
    "learning rate", "batch size", "hyperparameter", "training data", "training set", "test set",
})

# Names that are not entities of the graph: venues, hardware, fields.
NOT_ENTITY_NAMES = frozenset({
    "NeurIPS", "NIPS", "ICML", "ICLR", "CVPR", "ICCV", "ECCV", "ACL", "EMNLP", "NAACL", "AAAI", "IJCAI",
    "KDD", "WWW", "SIGIR", "COLING", "TACL", "JMLR", "TPAMI", "arXiv", "GitHub", "HuggingFace", "API",
    "APIs", "GPU", "GPUs", "CPU", "CPUs", "TPU", "TPUs", "NLP", "SoTA", "SOTA", "OOD", "IID", "iid", "AI",
    "ML", "CV", "US", "UK", "EU", "PhD", "URL", "PDF", "JSON", "HTML", "SQL", "LaTeX", "USD", "Python",
})

# fmt: on
_NAME = re.compile(r"^(?=.*[A-Za-z])(?:[A-Z][A-Za-z]*[A-Z][A-Za-z]*|[A-Za-z]+[-]?\d[\w.-]*|[A-Z]{2,}[\w-]*)$")
# "we propose X", "this work presents X", "a benchmark called X": the first entity after the cue.
_PROPOSAL_CUE = re.compile(
    r"\b(?:we|this (?:paper|work|study|article)|our (?:work|paper)|here)\b[^.;]{0,40}?"
    r"\b(?:propos|introduc|present|develop|design|releas|construct|creat|contribut|build|curat)(?:e|es|ed|ing|s)?\b"
    r"|\b(?:called|named|dubbed|termed|coined)\b",
    re.IGNORECASE,
)
_PROPOSAL_REACH = 80  # characters between the cue and the entity it introduces


def looks_like_name(text: str) -> bool:
    """A model or dataset name: CLIP, LoRA, GPT-4, ResNet50, IN-21K (not "The", "We", "NeurIPS").

    Examples
    --------
    >>> [looks_like_name(t) for t in ("Qwen2.5-VL", "NeurIPS", "ToolDec", "Table")]
    [True, False, True, False]
    """
    return len(text) >= 2 and bool(_NAME.match(text)) and text not in NOT_ENTITY_NAMES


# fmt: off
_ADJECTIVAL_ENDINGS = ("based", "like", "style", "aware", "free", "specific", "driven", "guided", "trained",
                       "robust", "agnostic", "level", "wise", "centric", "oriented", "related", "only", "tuned")
# fmt: on


def is_adjectival(span: Span) -> bool:
    """A hyphenated modifier such as "transformer-based" or "LLM-guided", not a name."""
    last = span[-1].lower_
    return len(span) > 1 and span[-2].text == "-" and last in _ADJECTIVAL_ENDINGS


def is_bare_acronym(text: str) -> bool:
    """A short all-capitals word (QA, CC, SB): too ambiguous to be a node unless defined or curated."""
    return text.isupper() and text.isalpha() and len(text) <= 3


# fmt: off
_DATASET_CONTEXT = frozenset({"dataset", "datasets", "benchmark", "benchmarks", "corpus", "corpora",
                              "environment", "environments", "suite", "collection", "testbed"})
# fmt: on
_DATASET_WINDOW = 6  # tokens before a name in which "datasets such as" or "benchmarks like" types it


def type_of_name(token: Token) -> str:
    """A bare name's type, from the noun it modifies or the words before it in its sentence.

    "evaluated on the LIBERO benchmark", "datasets such as Wilds and Breeds" name datasets;
    other names default to Method.
    """
    doc = token.doc
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    for word in (nxt, token.head if token.head is not token else None):
        if word is not None:
            for entity_type in ("Dataset", "Metric", "Task"):
                if word.lemma_.lower() in HEADS[entity_type] and word.lemma_.lower() not in HEADS["Method"]:
                    return entity_type
    sentence_start = token.sent.start
    before = doc[max(sentence_start, token.i - _DATASET_WINDOW) : token.i]
    if any(t.lower_ in _DATASET_CONTEXT for t in before):
        return "Dataset"
    return "Method"


def type_of_head(head: Token, span: Span) -> str | None:
    """The type a noun phrase gets from its head word, or None when the head says nothing."""
    lemma = head.lemma_.lower()
    text = head.lower_
    if lemma == "learning" or text == "learning":
        modifiers = {t.lower_ for t in span if t.i < head.i}
        return "Method" if modifiers & TECHNIQUE_LEARNING else "Task"
    for entity_type in ("Phenomenon", "Dataset", "Metric", "Task", "Method"):
        if lemma in HEADS[entity_type] or text in HEADS[entity_type]:
            return entity_type
    return None


# fmt: off
# Nouns that name a class whose examples a Hearst pattern ("X such as A, B") lists.
_CLASS_NOUNS: dict[str, str] = {
    "task": "Task", "problem": "Task", "application": "Task", "domain": "Task",
    "dataset": "Dataset", "benchmark": "Dataset", "corpus": "Dataset", "environment": "Dataset",
    "metric": "Metric", "measure": "Metric",
    "method": "Method", "model": "Method", "technique": "Method", "algorithm": "Method",
    "architecture": "Method", "approach": "Method", "baseline": "Method", "optimizer": "Method",
    "phenomenon": "Phenomenon", "behavior": "Phenomenon", "behaviour": "Phenomenon", "failure": "Phenomenon",
    "issue": "Phenomenon", "pathology": "Phenomenon", "bias": "Phenomenon",
}

# Verbs and adjectives whose object is a failure mode or effect: "mitigates X", "suffers from X", "prone to X".
_PHENOMENON_GOVERNORS = frozenset({"mitigate", "alleviate", "combat", "counteract", "overcome",
                                   "suffer", "prone", "vulnerable", "susceptible", "exacerbate"})

# fmt: on


def type_of_class_noun(token: Token) -> str | None:
    """The type of the examples that follow a class noun ("tasks", "datasets", "metrics")."""
    return _CLASS_NOUNS.get(token.lemma_.lower())


def phenomenon_by_context(head: Token) -> str | None:
    """ "Phenomenon" when an untyped phrase is what a method mitigates or a model suffers from."""
    governor = head.head
    if head.dep_ == "pobj" and governor.lower_ in ("from", "to"):
        governor = governor.head
    if head.dep_ in ("dobj", "pobj", "nsubjpass") and governor.lemma_.lower() in _PHENOMENON_GOVERNORS:
        return "Phenomenon"
    return None


def is_generic(span: Span) -> bool:
    """A phrase with a generic head and nothing specific in front of it ("the proposed model")."""
    head = span.root
    if len(span) == 1 and any(head.lemma_.lower() in words for words in HEADS.values()):
        return True  # a bare typing head: "shift", "benchmark", "accuracy" alone
    if head.lemma_.lower() not in GENERIC_HEADS:
        return False
    if any(looks_like_name(t.text) for t in span):
        return False
    if head.tag_ in ("NNS", "NNPS"):
        # "deep models", "evaluation methods", "similar tasks" are classes, not concepts; but a kind of
        # model named by a compound ("language models", "transformer-based models") is a node.
        compound = [t for t in span if t.i < head.i and (t.pos_ in ("NOUN", "PROPN") or t.text == "-")]
        return not (head.lemma_.lower() in ("model", "network", "agent") and compound)
    modifiers = [t for t in span if t.i != head.i and t.pos_ not in ("DET", "PRON", "PUNCT")]
    if len(modifiers) == 1 and modifiers[0].pos_ == "NOUN":
        return True  # "optimization method", "evaluation framework": still generic
    # A generic head specified only by adjectives is still generic ("a universal model");
    # a noun or verb compound names something ("proposition segmentation model").
    specific = [
        t for t in span if t.i != head.i and t.lower_ not in WEAK_MODIFIERS and t.pos_ in ("NOUN", "PROPN", "VERB", "X")
    ]
    return not specific


def is_stopword_entity(text: str) -> bool:
    return fold(text) in STOP_ENTITIES or len(fold(text)) < 2


def proposed_spans(entities: list[Span]) -> list[Span]:
    """The entities a sentence says the paper introduces: the first new one after each proposal cue.

    A curated concept (a span with a ``kb_id``) is known, so never proposed; when a sentence
    names its contribution ("... a framework called X"), the name is what is proposed.
    """
    if not entities:
        return []
    doc = entities[0].doc
    text = doc.text  # spaCy joins the tokens anew at each access: once, not once a sentence
    # In text order, so that each sentence's entities are one slice (found by bisection) and each cue's
    # followers another: the cost grows with the document, not with sentences times entities.
    ordered = sorted((s for s in entities if not s.kb_id_), key=lambda s: (s.start_char, s.end_char))
    starts = [s.start for s in ordered]
    char_starts = [s.start_char for s in ordered]
    proposed: list[Span] = []
    taken: set[tuple[int, int]] = set()
    for sentence in doc.sents:
        low, high = bisect_left(starts, sentence.start), bisect_left(starts, sentence.end)
        if low == high:
            continue
        cues_found = list(_PROPOSAL_CUE.finditer(text, sentence.start_char, sentence.end_char))
        naming = [c for c in cues_found if c.group(0).lower() in _NAMING_WORDS]
        for cue in naming or cues_found:
            first = bisect_left(char_starts, cue.end(), low, high)
            if first < high and char_starts[first] <= cue.end() + _PROPOSAL_REACH:
                span = ordered[first]
                if (span.start, span.end) not in taken:
                    taken.add((span.start, span.end))
                    proposed.append(span)
    return proposed


_NAMING_WORDS = frozenset({"called", "named", "dubbed", "termed", "coined"})
