"""Extraction components, each on real abstract sentences, and the `kg extract` contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_kg

from kg.extract.acronyms import find_definitions
from kg.ingest import Document

ARP = (
    "This work presents Adaptive Return-conditioned Policy (ARP), an efficient framework designed to "
    "enhance the agent's generalization ability using pre-trained multimodal encoders such as CLIP. "
    "Our ARP effectively mitigates the goal misgeneralization."
)


@pytest.fixture(scope="module")
def nlp():
    from kg.extract.pipeline import build_pipeline

    return build_pipeline(profile="rules")


@pytest.fixture(scope="module")
def extract(nlp):
    from kg.extract.pipeline import record_from_doc

    def run(text: str):
        return record_from_doc(nlp(text), Document(id="d", text=text, source="t:1"))

    return run


def by_label(record):
    return {e.label: e for e in record.entities}


# --- acronyms (Schwartz-Hearst) ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text,pairs",
    [
        (ARP, [("ARP", "Adaptive Return-conditioned Policy")]),
        ("Large language models (LLMs) have shown promising capabilities.", [("LLMs", "Large language models")]),
        ("We evaluate on ImageNet-21K (IN-21K) and its subsets.", [("IN-21K", "ImageNet-21K")]),
        (
            "Direct preference optimization (DPO; Rafailov et al.) is popular.",
            [("DPO", "Direct preference optimization")],
        ),
        ("We propose 'robust mean teacher' (RMT) for this.", [("RMT", "robust mean teacher")]),
        (
            'On the \u201cSegment Anything Model\u201d (SAM) and "Low Rank Adaptation" (LoRA).',
            [("SAM", "Segment Anything Model"), ("LoRA", "Low Rank Adaptation")],
        ),
        ("Accuracy improves by 3 points (see Table 2).", []),
        ("We use a transformer (GPT) for this.", []),
        # A long form does not start with a function word, though "and" would be the shortest match.
        ("using the Abstraction and Reasoning Corpus (ARC) as", [("ARC", "Abstraction and Reasoning Corpus")]),
        ("Large models can do in-context learning (ICL) well.", [("ICL", "in-context learning")]),
    ],
)
def test_acronym_definitions(text: str, pairs) -> None:
    found = [(text[a:b], text[c:d]) for a, b, c, d in find_definitions(text)]
    assert found == pairs


def test_acronym_and_long_form_become_one_entity_with_later_uses(extract) -> None:
    arp = by_label(extract(ARP))["Adaptive Return-conditioned Policy"]
    assert arp.aliases == ("ARP",) and arp.type == "Method"
    assert [m.text for m in arp.mentions] == ["Adaptive Return-conditioned Policy", "ARP", "ARP"]
    assert all(ARP[m.start : m.end] == m.text for m in arp.mentions)


# --- vocabulary, typing, filtering ---------------------------------------------------------


def test_curated_vocabulary_types_known_concepts(extract) -> None:
    entities = by_label(extract(ARP))
    assert entities["CLIP"].type == "Method"
    assert entities["goal misgeneralization"].type == "Phenomenon"


def test_case_sensitive_names_do_not_match_ordinary_words(nlp) -> None:
    doc = nlp("We adam the results with a clip of the data; Adam and CLIP are different.")
    found = {(s.text, s.label_) for s in doc.spans["kg_vocabulary"]}
    assert ("Adam", "Method") in found and ("CLIP", "Method") in found
    assert not {"adam", "clip"} & {s.text for s in doc.spans["kg_vocabulary"]}


def test_generic_phrases_are_not_nodes_but_model_families_are(extract) -> None:
    text = (
        "Our method outperforms deep models and a universal model. "
        "Large language models (LLMs) suffer from hallucination, and evaluation methods vary."
    )
    labels = {e.label.lower() for e in extract(text).entities}
    assert "large language models" in labels and "hallucination" in labels
    assert not labels & {"our method", "method", "deep models", "universal model", "evaluation methods"}


def test_a_name_is_one_mention_even_with_hyphens_and_dots(extract) -> None:
    text = "We fine-tune Qwen2.5-VL-Instruct-3B and evaluate on CIFAR-10."
    entities = by_label(extract(text))
    assert "Qwen2.5-VL-Instruct-3B" in entities and entities["CIFAR-10"].type == "Dataset"
    assert "Qwen2.5" not in entities


def test_a_longer_name_around_a_curated_one_is_its_own_entity(extract) -> None:
    text = "We propose ImageNet-CoG, a novel benchmark on the ImageNet-21K dataset."
    entities = by_label(extract(text))
    assert entities["ImageNet-CoG"].type == "Dataset" and "ImageNet" not in entities


def test_hyphenated_modifiers_are_not_mentions(extract) -> None:
    labels = {e.label for e in extract("Transformer-based models and NeRF-like systems are compared.").entities}
    assert not labels & {"Transformer", "transformer-based", "NeRF-like"}


def test_examples_listed_after_a_class_noun_take_its_type(extract) -> None:
    text = "Neuralizer handles neuroimaging tasks such as segmentation, reconstruction and registration."
    entities = by_label(extract(text))
    assert {entities[t].type for t in ("segmentation", "reconstruction", "registration")} == {"Task"}


def test_what_a_method_mitigates_is_a_phenomenon(extract) -> None:
    entities = by_label(extract("Our regularizer mitigates the curse of depth in deep transformers."))
    assert entities["curse of depth"].type == "Phenomenon"


def test_capitalised_names_are_found_but_citations_are_not(extract) -> None:
    text = (
        "We introduce Foundational Reasoning Enhancement and Flow of Reasoning, "
        "following Jo and Bengio (2017) in 2D and 3D settings."
    )
    labels = {e.label for e in extract(text).entities}
    assert {"Foundational Reasoning Enhancement", "Flow of Reasoning"} <= labels
    assert not labels & {"Jo and Bengio", "2D and 3D"}


def test_dataset_names_are_typed_by_the_words_before_them(extract) -> None:
    entities = by_label(extract("We evaluate on two datasets, Wilds and Breeds, with a new metric."))
    assert entities["Wilds"].type == "Dataset" and entities["Breeds"].type == "Dataset"


# --- contributions ---------------------------------------------------------------------------


def test_the_introduced_method_is_proposed_and_the_tools_it_uses_are_not(extract) -> None:
    entities = by_label(extract(ARP))
    assert entities["Adaptive Return-conditioned Policy"].proposed
    assert not entities["CLIP"].proposed


def test_a_named_contribution_wins_over_earlier_phrases(extract) -> None:
    entities = by_label(extract("We propose a novel reinforcement learning framework called Flow of Reasoning."))
    assert entities["Flow of Reasoning"].proposed
    assert not any(e.proposed for label, e in entities.items() if label != "Flow of Reasoning")


# --- scierc profile ------------------------------------------------------------------------


def test_profiles_are_validated() -> None:
    from kg.errors import UsageError
    from kg.extract.pipeline import build_pipeline

    with pytest.raises(UsageError, match="unknown profile 'fancy'"):
        build_pipeline(profile="fancy")


def test_extract_cli_scierc_profile_contract(tmp_path: Path) -> None:
    text = "We use conditional random fields for named entity recognition . This method is fast ."
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "s1", "text": text}) + "\n")
    done = run_kg("extract", str(source), "--profile", "scierc")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["entities"] and record["relations"]
    for entity in record["entities"]:
        assert set(entity) == {"id", "label", "type", "aliases", "proposed", "mentions", "scierc"}
        assert entity["type"] in {"Method", "Dataset", "Task", "Metric", "Phenomenon"}
        assert entity["scierc"] in {"Method", "Task", "Metric", "Material", "OtherScientificTerm", "Generic"}
    ids = {e["id"] for e in record["entities"]}
    for relation in record["relations"]:
        assert relation["subject"] in ids and relation["object"] in ids
        assert relation["scierc"] in {
            "USED-FOR",
            "EVALUATE-FOR",
            "COMPARE",
            "PART-OF",
            "HYPONYM-OF",
            "FEATURE-OF",
            "CONJUNCTION",
        }


# --- the `kg extract` contract ------------------------------------------------------------------


def test_extract_cli_output_contract(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "2301.1", "text": ARP, "title": "ARP"}) + "\n")
    done = run_kg("extract", str(source), "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    record = json.loads(line)
    assert set(record) == {"id", "source", "title", "entities", "relations"}
    assert record["id"] == "2301.1" and record["source"] == f"{source}:1" and record["title"] == "ARP"
    for entity in record["entities"]:
        assert set(entity) == {"id", "label", "type", "aliases", "proposed", "mentions"}
        assert entity["type"] in {"Method", "Dataset", "Task", "Metric", "Phenomenon"}
        for mention in entity["mentions"]:
            assert ARP[mention["start"] : mention["end"]] == mention["text"]


def test_extract_stops_at_bad_input_before_printing(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"text": ARP}) + "\n{broken\n")
    done = run_kg("extract", str(source))
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr.strip()
        == f"kg: error: {source}:2: malformed JSON: Expecting property name enclosed in double quotes (column 2)"
    )


def test_a_descent_is_an_optimiser_unless_it_is_double_descent(extract) -> None:
    entities = by_label(extract("We analyse mirror descent and observe epoch-wise double descent in deep networks."))
    assert entities["mirror descent"].type == "Method"
    assert entities["epoch-wise double descent"].type == "Phenomenon"
