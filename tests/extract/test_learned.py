"""The learned profile's extractor: its dev figures hold, its numpy forward pass computes what the
training framework's does, and every relation it finds in the seeds has a verbatim evidence sentence."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
from conftest import REPO, SEEDS

from kg.eval.gold import DEFAULT_GOLD

REGRESSION = json.loads((REPO / "tests" / "data" / "learned_regression.json").read_text())
needs_gold = pytest.mark.skipif(not DEFAULT_GOLD.is_file(), reason="the annotated abstracts are not beside the repo")
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")

TEXT = (
    "Large language models (LLMs) are prone to hallucination. We propose Retrieval-Augmented Verification "
    "(RAV), a framework that grounds answers in retrieved passages. Our method mitigates hallucination and "
    "outperforms chain-of-thought prompting on TruthfulQA and HotpotQA in accuracy."
)


@needs_gold
def test_dev_figures_hold() -> None:
    from kg.eval.learned import extract, score

    scores = score(extract())
    for key in ("typed", "proposed", "relations"):
        for measure in ("P", "R", "F1"):
            assert scores[key][measure] >= REGRESSION[key][measure], (key, measure, scores[key])
    for name, row in REGRESSION["per_type"].items():
        assert scores["typed"]["per_type"][name]["F1"] >= row["F1"], name


@needs_gold
def test_bootstrap_intervals_cover_the_figure_and_repeat_with_the_seed() -> None:
    from kg.eval.learned import annotations_as_predictions, bootstrap_intervals, score

    records = json.loads(DEFAULT_GOLD.read_text(encoding="utf-8"))
    # The annotations themselves for every other abstract, nothing for the rest: the F1s vary by abstract.
    predictions = annotations_as_predictions(
        [r if k % 2 == 0 else {**r, "entities": [], "relations": []} for k, r in enumerate(records)]
    )
    scores = score(predictions)
    intervals = bootstrap_intervals(predictions, samples=200, seed=3)
    for key in ("typed", "proposed", "relations"):
        low, high = intervals[key]
        assert low < scores[key]["F1"] < high, (key, intervals[key], scores[key]["F1"])
        assert high - low > 0.05
    assert bootstrap_intervals(predictions, samples=200, seed=3) == intervals
    assert bootstrap_intervals(predictions, samples=200, seed=4) != intervals


def test_the_learned_profile_runs_the_model_without_the_parser() -> None:
    from kg.extract.pipeline import build_pipeline

    nlp = build_pipeline(profile="learned")
    assert "kg_learned" in nlp.pipe_names and "parser" not in nlp.pipe_names
    assert "parser" in build_pipeline(profile="rules").pipe_names


def test_a_reference_to_the_contribution_lands_on_the_named_entity() -> None:
    from kg.extract.pipeline import Extractor
    from kg.ingest import Document

    record = next(Extractor(profile="learned").extract([Document(id="d", text=TEXT, source="t:1")]))
    labels = {e.id: e for e in record.entities}
    proposed = [e for e in record.entities if e.proposed]
    assert [e.label for e in proposed] == ["Retrieval-Augmented Verification"]
    assert "RAV" in proposed[0].aliases
    for relation in record.relations:
        assert relation.subject in labels and relation.object in labels
        assert 0.0 <= relation.confidence <= 1.0
        assert relation.predicate != "conjunction"
    assert any(r.subject == proposed[0].id and r.predicate == "addresses" for r in record.relations)


def test_no_span_holding_a_web_address_is_an_entity() -> None:
    from kg.extract.learned.model import LearnedModel, Settings

    words = ["We", "propose", "RAV", ".", "Code", ":", "https://github.com/acme/RAV", "and", "www.rav.org/demo", "."]
    # Every candidate kept where none overlaps a more confident one: only the web addresses are left out
    # (lone characters, such as ":", are left out as names only where the other rule is on).
    model = LearnedModel.load(settings=Settings(span_threshold=1.01, skip_non_names=False))
    (prediction,) = model.predict([(words, [(0, 4), (4, len(words))], [])])
    covered = {k for a, b, _, _ in prediction.spans for k in range(a, b)}
    assert covered == set(range(len(words))) - {6, 8}


def test_a_citation_a_venue_and_a_lone_letter_are_no_entities() -> None:
    from kg.extract.pipeline import Extractor
    from kg.ingest import Document

    text = (
        "We train a generative model G and a discriminator D, following ostapenko2024towards and [ZRKB21]. "
        "Our method, presented at ACL 2025, outperforms e.g.~BART on the GLUE benchmark."
    )
    document = Document(id="d", text=text, source="t:1")

    def labels(settings: dict) -> set[str]:
        return {e.label for e in next(Extractor(settings=settings).extract([document])).entities}

    # The model alone takes the citation key and the venue for datasets.
    assert {"ostapenko2024towards", "ACL 2025"} <= labels({"skip_non_names": False})
    found = labels({})
    assert {"BART", "GLUE"} <= found  # LaTeX's "~" separates "e.g." from the name
    assert found & {"G", "D", "ostapenko2024towards", "ZRKB21", "ACL 2025", "e.g.~BART"} == set()


@pytest.mark.parametrize(
    "scores,fallback,proposed",
    [
        ((0.35, 0.1), 0.4, []),  # below the fallback: nothing proposed
        ((0.35, 0.1), 0.3, ["Alpha"]),  # the most confidently proposed entity, when nothing else is
        ((0.95, 0.35), 0.3, ["Alpha"]),  # something is proposed already: the fallback adds nothing
        ((0.35, 0.1), 1.0, []),  # 1.0: never
    ],
)
def test_an_abstract_with_no_contribution_proposes_its_likeliest_one(
    scores: tuple[float, float], fallback: float, proposed: list[str]
) -> None:
    from kg.extract.learned.component import decode_document
    from kg.extract.learned.model import DocumentPrediction, Settings

    text = "Alpha beats Beta ."
    words, offsets = text.split(), [(0, 5), (6, 11), (12, 16), (17, 18)]
    method = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0])  # none, then the five types: Method
    prediction = DocumentPrediction(spans=[(0, 1, method, scores[0]), (2, 3, method, scores[1])])
    settings = Settings(proposed_threshold=0.9, fallback_threshold=fallback)
    entities, _ = decode_document(prediction, words, offsets, text, [(0, 4)], settings)
    assert [label for _, label, _, _, flag, _ in entities if flag] == proposed


@needs_torch
def test_numpy_forward_pass_matches_torch() -> None:
    import torch

    from kg.extract.learned.data import REFERENCE, example_of, segmenter
    from kg.extract.learned.model import MODEL_FILE, LearnedModel, document_chunks
    from kg.extract.learned.network import network_from_arrays
    from kg.extract.scierc.model import unpack_weights

    with np.load(MODEL_FILE) as npz:
        arrays, config = unpack_weights({name: npz[name] for name in npz.files})
    numpy_model = LearnedModel.load(runtime="numpy")
    net = network_from_arrays(torch, arrays, config)
    example, _ = example_of({"sha1": "x", "text": TEXT, "entities": [], "relations": []}, segmenter())
    ((ids, firsts, lasts, _),) = document_chunks(numpy_model.vocab, example.words, example.sentences)
    spans = [(0, 3), (3, 4), (12, 15)]
    arguments = [(0, 3, 1), (12, 15, 1), (20, 22, REFERENCE)]
    pairs = [(0, 1), (1, 0), (2, 1)]
    with torch.no_grad():
        hidden, types, proposed, relations = (
            t.numpy() for t in net.scores(ids, firsts, lasts, spans, arguments, pairs)
        )
    ours = numpy_model.encoder([ids])[0]
    assert np.abs(ours - hidden).max() < 1e-3
    features, our_types = numpy_model.span_scores(ours, np.array(firsts), np.array(lasts), spans)
    assert np.abs(our_types - types).max() < 1e-4
    assert np.abs(numpy_model.proposed_scores(features) - proposed).max() < 1e-4
    argument_features, _ = numpy_model.span_scores(ours, np.array(firsts), np.array(lasts), [a[:2] for a in arguments])
    our_relations = numpy_model.pair_scores(
        ours, np.array(firsts), np.array(lasts), argument_features, arguments, pairs
    )
    assert np.abs(our_relations - relations).max() < 1e-4


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="onnxruntime is not installed")
def test_int8_onnx_encoder_stays_close_to_the_numpy_pass() -> None:
    from kg.extract.learned.data import example_of, segmenter
    from kg.extract.learned.model import LearnedModel, document_chunks

    numpy_model, onnx_model = LearnedModel.load(runtime="numpy"), LearnedModel.load(runtime="onnx")
    example, _ = example_of({"sha1": "x", "text": TEXT, "entities": [], "relations": []}, segmenter())
    ((ids, _, _, _),) = document_chunks(numpy_model.vocab, example.words, example.sentences)
    ours, theirs = numpy_model.encoder([ids])[0], onnx_model.encoder([ids])[0]
    cosine = (ours * theirs).sum(-1) / np.linalg.norm(ours, axis=-1) / np.linalg.norm(theirs, axis=-1)
    assert cosine.min() > 0.95 and cosine.mean() > 0.98


@pytest.fixture(scope="module")
def seeds_records(seeds_store) -> list:
    """What the default profile's extraction said about each seed abstract, as the seeds build stored it
    (extracted in batches, by the build's workers), with the abstract."""
    from kg.build.extraction_graph import stored_records
    from kg.ingest import read_documents
    from kg.rdf import paper_iri
    from kg.store import open_store

    documents = {str(paper_iri(d.id)): d for d in read_documents([SEEDS])}
    with open_store(seeds_store) as store:
        records = dict(stored_records(store))
    assert sorted(records) == sorted(documents)
    return [(records[paper], documents[paper]) for paper in sorted(documents)]


def test_a_full_stop_left_on_a_name_is_not_part_of_it() -> None:
    from kg.extract.learned.component import decode_document
    from kg.extract.learned.model import DocumentPrediction, Settings

    # The tokenizer keeps the final stop on "EL2N." and on "U.S." alike; only the one with no other dot loses it.
    text = "We prune with EL2N. U.S. data helps."
    words = ["We", "prune", "with", "EL2N.", "U.S.", "data", "helps", "."]
    offsets = [(0, 2), (3, 8), (9, 13), (14, 19), (20, 24), (25, 29), (30, 35), (35, 36)]
    method = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    used_for = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])  # none, then the seven predicates
    prediction = DocumentPrediction(
        spans=[(3, 4, method, 0.0), (4, 5, method, 0.0)], pairs=[(("span", 0), ("span", 1), used_for)]
    )
    entities, relations = decode_document(prediction, words, offsets, text, [(0, 4), (4, 8)], Settings())
    assert [(label, mentions) for _, label, _, _, _, mentions in entities] == [
        ("EL2N", ((14, 18),)),
        ("U.S.", ((20, 24),)),
    ]
    assert [(r[1], r[3], r[4], r[5]) for r in relations] == [("usedFor", (14, 18), (20, 24), (0, 19))]


def test_every_seeds_relation_has_a_verbatim_evidence_sentence(seeds_records) -> None:
    relations = 0
    for record, document in seeds_records:
        ids = {e.id for e in record.entities}
        for relation in record.relations:
            relations += 1
            assert relation.subject in ids and relation.object in ids
            assert relation.evidence and relation.evidence in document.text
            start = document.text.index(relation.evidence)
            for a, b in (relation.subject_span, relation.object_span):
                assert 0 <= a < b <= len(document.text)
            # The evidence is the sentence holding both mentions (a referring phrase such as "our method"
            # is the mention of the proposed entity it stands for).
            assert all(
                start <= a and b <= start + len(relation.evidence)
                for a, b in (relation.subject_span, relation.object_span)
            )
            assert relation.predicate in (
                "usedFor",
                "evaluatedOn",
                "outperforms",
                "comparedWith",
                "addresses",
                "partOf",
                "hyponymOf",
            )
    assert relations > len(seeds_records)


def test_a_documents_extraction_does_not_depend_on_the_documents_beside_it(seeds_records) -> None:
    # The graph is a function of the set of documents: extracting one alone must give what it gave
    # in a batch with others (an int8 encoder quantizing a whole batch at once would not).
    from kg.extract.pipeline import Extractor

    extractor = Extractor(profile="learned")
    for record, document in seeds_records[:: len(seeds_records) // 12][:12]:
        (alone,) = extractor.extract([document])
        # the source (where the build read it) aside: extraction alone was given no file
        assert {**alone.to_json(), "source": ""} == {**record.to_json(), "source": ""}
