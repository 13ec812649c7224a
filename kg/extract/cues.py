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

from spacy.tokens import Span, Token

from kg.normalize import fold

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
                             "oversmoothing", "hacking", "grokking", "descent", "law", "interference",
                             "sycophancy", "leakage", "contamination", "imbalance", "noise"}),
    "Task": frozenset({"task", "problem", "classification", "recognition", "retrieval", "generation",
                       "translation", "segmentation", "prediction", "answering", "summarization",
                       "reasoning", "planning", "navigation", "captioning", "estimation", "detection",
                       "localization", "tracking", "parsing", "forecasting", "synthesis", "editing",
                       "completion", "understanding", "alignment", "adaptation", "learning",
                       "recommendation", "control", "manipulation", "matching", "labeling", "tagging"}),
    "Method": frozenset({"model", "network", "architecture", "algorithm", "method", "framework",
                         "approach", "technique", "encoder", "decoder", "transformer", "policy",
                         "optimizer", "loss", "regularization", "mechanism", "module", "strategy",
                         "attack", "defense", "distillation", "training", "tuning", "prompting",
                         "sampling", "estimator", "classifier", "detector", "generator", "embedding",
                         "pipeline", "objective", "scheme", "procedure", "layer", "agent", "system",
                         "decoding", "pruning", "quantization", "augmentation", "normalization",
                         "dropout", "search", "descent", "attention", "head", "adapter", "retriever"}),
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
    "state-of-the-art", "sota", "competitive", "extensive", "large", "small", "whole", "entire",
    "single", "multiple", "diverse", "common", "well-known", "widely", "used", "based", "art",
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
    "deep neural network", "language model", "large language model", "llm", "dnn", "nn",
})

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
    """A model or dataset name: CLIP, LoRA, GPT-4, ResNet50, IN-21K (not "The", "We")."""
    return len(text) >= 2 and bool(_NAME.match(text)) and text.lower() not in {"ai", "ml", "us"}


def type_of_name(token: Token) -> str:
    """A bare name's type, from the noun it modifies or the words around it."""
    nxt = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    prev = token.doc[token.i - 1] if token.i > 0 else None
    for word in (nxt, token.head if token.head is not token else None):
        if word is not None:
            for entity_type in ("Dataset", "Metric", "Task"):
                if word.lemma_.lower() in HEADS[entity_type] and word.lemma_.lower() not in HEADS["Method"]:
                    return entity_type
    if prev is not None and prev.lower_ in {"on", "across"} and token.head.lemma_ in {"evaluate", "experiment", "test", "result"}:
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


def is_generic(span: Span) -> bool:
    """A phrase with a generic head and nothing specific in front of it ("the proposed model")."""
    head = span.root
    if len(span) == 1 and any(head.lemma_.lower() in words for words in HEADS.values()):
        return True  # a bare typing head: "shift", "benchmark", "accuracy" alone
    if head.lemma_.lower() not in GENERIC_HEADS:
        return False
    specific = [t for t in span if t.i != head.i and t.lower_ not in WEAK_MODIFIERS and t.pos_ not in ("DET", "PRON", "PUNCT")]
    return not specific


def is_stopword_entity(text: str) -> bool:
    return fold(text) in STOP_ENTITIES or len(fold(text)) < 2


def proposed_spans(entities: list[Span]) -> list[Span]:
    """The entities a sentence says the paper introduces: the first one after each proposal cue."""
    if not entities:
        return []
    doc = entities[0].doc
    proposed = []
    for sentence in doc.sents:
        inside = [s for s in entities if sentence.start <= s.start < sentence.end]
        for cue in _PROPOSAL_CUE.finditer(doc.text, sentence.start_char, sentence.end_char):
            following = [s for s in inside if cue.end() <= s.start_char <= cue.end() + _PROPOSAL_REACH]
            if following and following[0] not in proposed:
                proposed.append(following[0])
    return proposed
