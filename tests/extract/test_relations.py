"""Typed relations with evidence: the rules on real abstract sentences, and the seeds graph."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_kg

from kg.ingest import Document


@pytest.fixture(scope="module")
def relations():
    from kg.extract.pipeline import build_pipeline, record_from_doc

    nlp = build_pipeline(profile="rules")

    def run(text: str) -> set[tuple[str, str, str, str | None]]:
        record = record_from_doc(nlp(text), Document(id="d", text=text, source="t:1"))
        labels = {e.id: e.label for e in record.entities}
        for relation in record.relations:
            assert relation.evidence in text
        return {(labels[r.subject], r.predicate, labels[r.object], r.scierc) for r in record.relations}

    return run


def test_a_method_addresses_the_phenomenon_it_mitigates(relations) -> None:
    found = relations("Our experiments show that FOMO alleviates robust overfitting on CIFAR-10.")
    assert ("FOMO", "addresses", "robust overfitting", None) in found


def test_outperforms_is_a_comparison(relations) -> None:
    found = relations("On YFCC15M, FLAME surpasses CLIP by 44.4% in average recall.")
    assert ("FLAME", "outperforms", "CLIP", "COMPARE") in found


def test_a_method_for_a_task_is_used_for_it(relations) -> None:
    found = relations("We propose ToolDec, a finite-state machine-guided decoding algorithm for tool-augmented LLMs.")
    assert ("finite-state machine-guided decoding algorithm", "usedFor", "LLMs", "USED-FOR") in found
    assert ("ToolDec", "hyponymOf", "finite-state machine-guided decoding algorithm", "HYPONYM-OF") in found


def test_evaluation_on_a_dataset(relations) -> None:
    found = relations("We evaluate LoRA on GLUE and SuperGLUE.")
    assert ("LoRA", "evaluatedOn", "GLUE", "EVALUATE-FOR") in found


def test_examples_are_kinds_of_their_class(relations) -> None:
    found = relations("Multi-modal contrastive models such as CLIP achieve strong zero-shot classification.")
    assert ("CLIP", "hyponymOf", "Multi-modal contrastive models", "HYPONYM-OF") in found


def test_coordinated_entities_of_one_type_are_a_conjunction(relations) -> None:
    found = relations("Adaptive optimizers such as Adam, Adagrad or RMSprop generalize poorly.")
    assert ("Adam", "conjunction", "Adagrad", "CONJUNCTION") in found


def test_an_acronym_in_brackets_is_not_a_kind_of_its_long_form(relations) -> None:
    found = relations("We perform the adaptation via Activation Matching (ActMAD) on the test data.")
    assert not any(p == "hyponymOf" for _, p, _, _ in found)


# --- the graph ------------------------------------------------------------------------------


def test_every_relation_has_evidence_found_verbatim_in_its_paper(seeds_store: Path) -> None:
    missing = run_kg(
        "query",
        """SELECT (COUNT(*) AS ?n) WHERE {
        ?st a kg:Statement ; prov:wasDerivedFrom ?paper ; kg:evidence ?sentence .
        ?paper dcterms:abstract ?abstract FILTER(!CONTAINS(?abstract, ?sentence)) }""",
        "--format",
        "csv",
        "--store",
        str(seeds_store),
    )
    assert missing.stdout.splitlines()[1] == "0"
    unsupported = run_kg(
        "query",
        """SELECT (COUNT(*) AS ?n) WHERE {
        VALUES ?p { kg:usedFor kg:evaluatedOn kg:comparedWith kg:outperforms kg:addresses kg:partOf
                    kg:hyponymOf kg:featureOf kg:conjunction }
        ?s ?p ?o FILTER NOT EXISTS { ?st rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o ; kg:evidence ?e } }""",
        "--format",
        "csv",
        "--store",
        str(seeds_store),
    )
    assert unsupported.stdout.splitlines()[1] == "0"


def test_at_least_one_relation_per_abstract_on_average(seeds_store: Path) -> None:
    done = run_kg(
        "query",
        "SELECT (COUNT(?st) AS ?n) WHERE { ?st a kg:Statement }",
        "--format",
        "csv",
        "--store",
        str(seeds_store),
    )
    assert int(done.stdout.splitlines()[1]) >= 727


def test_describe_groups_relations_with_support_and_evidence(seeds_store: Path) -> None:
    done = run_kg("describe", "ARP", "--format", "json", "--store", str(seeds_store))
    assert done.returncode == 0, done.stderr
    described = json.loads(done.stdout)
    assert described["label"] == "Adaptive Return-conditioned Policy" and described["type"] == "Method"
    assert "ARP" in described["aliases"] and len(described["proposed_by"]) >= 1
    link = described["relations"]["addresses"][0]
    assert link["entity"] == "goal misgeneralization" and link["support"] >= 1
    assert "mitigates the goal misgeneralization" in link["evidence"]
    text = run_kg("describe", "goal misgeneralization", "--store", str(seeds_store)).stdout
    assert text.splitlines()[0].startswith("goal misgeneralization  (Phenomenon)")
    assert "<- addresses" in text


def test_describe_suggests_near_misses(seeds_store: Path) -> None:
    done = run_kg("describe", "goal misgeneralisation", "--store", str(seeds_store))
    assert done.returncode == 2
    assert done.stderr.strip().startswith(
        "kg: error: no entity named 'goal misgeneralisation'; did you mean: goal misgeneralization"
    )
    assert len(done.stderr.strip().splitlines()) == 1
