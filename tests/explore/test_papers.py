"""`kg paper` and papers in `kg describe`: a paper cited anywhere can be looked up by the name it is cited by."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_kg
from rdflib import Literal
from rdflib.namespace import DCTERMS, RDF, RDFS

from kg.errors import PaperNotFoundError
from kg.explore.papers import find_paper
from kg.rdf import KG, entity_iri, paper_iri
from kg.store import open_store

P2 = str(paper_iri("p2"))
P2_KEYS = ["iri", "id", "title", "headline", "date", "authors", "url", "sources", "abstract"]


def paper_json(store: Path, name: str, command: str = "paper") -> dict:
    done = run_kg(command, name, "--format", "json", "--store", str(store))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_paper_json_holds_the_paper_its_entities_and_relations(relations_store: Path) -> None:
    report = paper_json(relations_store, "p2")
    assert list(report) == [*P2_KEYS, "proposes", "mentions", "relations"]
    assert (report["iri"], report["id"], report["title"]) == (P2, "p2", "Paper p2")
    assert report["abstract"].startswith("This work presents Adaptive Return-conditioned Policy (ARP)")
    assert [(e["label"], e["type"], e["link"]) for e in report["proposes"]] == [
        ("Adaptive Return-conditioned Policy", "Method", "proposes")
    ]
    assert [e["label"] for e in report["mentions"]] == ["CLIP", "goal misgeneralization"]
    assert [(r["subject"], r["predicate"], r["object"], r["evidence"]) for r in report["relations"]] == [
        (
            "CLIP",
            "partOf",
            "Adaptive Return-conditioned Policy",
            "This work presents Adaptive Return-conditioned Policy (ARP), built on CLIP.",
        ),
        (
            "Adaptive Return-conditioned Policy",
            "addresses",
            "goal misgeneralization",
            "Our ARP effectively mitigates the goal misgeneralization.",
        ),
    ]


@pytest.mark.parametrize("name", ["paper:p2", "kgr:paper/p2", f"<{P2}>", P2, "p2"])
def test_a_paper_by_every_name_it_goes_by(relations_store: Path, name: str) -> None:
    assert paper_json(relations_store, name)["iri"] == P2
    assert paper_json(relations_store, name, "describe")["iri"] == P2


def test_a_paper_cited_by_kg_path_can_be_looked_up_and_queried(relations_store: Path) -> None:
    done = run_kg("path", "goal misgeneralization", "CLIP", "--no-papers", "--store", str(relations_store))
    cited = re.findall(r"\s(paper:\S+)\n", done.stdout)
    assert cited == ["paper:p2", "paper:p2"]
    text = run_kg("paper", cited[0], "--store", str(relations_store))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[:2] == ["paper:p2", "Paper p2"]
    assert "proposes: Adaptive Return-conditioned Policy (Method)" in lines
    assert "  CLIP —partOf→ Adaptive Return-conditioned Policy" in lines
    assert "    “Our ARP effectively mitigates the goal misgeneralization.”" in lines
    asked = run_kg("query", f"ASK {{ {cited[0]} a kg:Paper }}", "--store", str(relations_store))
    assert asked.stdout == "true\n", asked.stderr


def test_describe_text_names_the_entity_and_cites_papers_as_they_are_looked_up(relations_store: Path) -> None:
    done = run_kg("describe", "ARP", "--store", str(relations_store))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Adaptive Return-conditioned Policy  (Method)  entity:arp"
    assert "    “Our ARP effectively mitigates the goal misgeneralization.”  paper:p2" in lines


def test_describe_prefers_an_entity_and_keeps_did_you_mean(relations_store: Path) -> None:
    assert paper_json(relations_store, "CLIP", "describe")["label"] == "CLIP"
    done = run_kg("describe", "CLIPP", "--store", str(relations_store))
    assert done.returncode == 2 and done.stderr == "kg: error: no entity named 'CLIPP'; did you mean: CLIP?\n"
    done = run_kg("describe", "paper:p9", "--store", str(relations_store))
    assert done.returncode == 2 and done.stderr == "kg: error: no paper named 'paper:p9'\n"


# --- hashes: a paper by the start of its id -------------------------------------------------

HASHES = ["b4b80012aa", "b4b80034bb", "c0ffee99cc"]


@pytest.fixture(scope="module")
def hash_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hashes") / "store"
    triples = [(entity_iri("clip"), RDF.type, KG.Method), (entity_iri("clip"), RDFS.label, Literal("CLIP"))]
    for ident in HASHES:
        triples += [
            (paper_iri(ident), RDF.type, KG.Paper),
            (paper_iri(ident), DCTERMS.identifier, Literal(ident)),
            (paper_iri(ident), DCTERMS.abstract, Literal(f"Abstract of {ident}.")),
            (paper_iri(ident), KG.sourceLocation, Literal(f"a.txt:{HASHES.index(ident) + 1}")),
        ]
    with open_store(path, create=True) as store:
        store.write(triples)
    return path


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("c0ffee", "c0ffee99cc"),
        ("c0ffee…", "c0ffee99cc"),  # as a citation cut short shows it
        ("paper:c0ffee9", "c0ffee99cc"),
        ("b4b80034", "b4b80034bb"),
        ("b4b80012aa", "b4b80012aa"),
    ],
)
def test_a_paper_by_the_start_of_its_id(hash_store: Path, name: str, found: str) -> None:
    with open_store(hash_store) as store:
        assert find_paper(store, name) == str(paper_iri(found))


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("b4b800", "'b4b800' begins the ids of 2 papers (b4b80012aa, b4b80034bb): give more of it"),
        ("c0f", "no paper named 'c0f': give 6 characters or more of an id"),
        ("d00d00", "no paper named 'd00d00'"),
        ("entity:clip", "no paper named 'entity:clip': a paper's IRI begins with paper:"),
    ],
)
def test_a_name_that_is_no_one_paper_is_a_usage_error(hash_store: Path, name: str, message: str) -> None:
    with open_store(hash_store) as store, pytest.raises(PaperNotFoundError) as raised:
        find_paper(store, name)
    assert str(raised.value) == message
    done = run_kg("paper", name, "--store", str(hash_store))
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"kg: error: {message}\n")


def test_text_shows_sources_and_the_opening_words_when_there_is_no_title(hash_store: Path) -> None:
    done = run_kg("describe", "c0ffee", "--store", str(hash_store))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == ["paper:c0ffee99cc", "Abstract of c0ffee99cc.", "read at: a.txt:3"]
    assert "no relations stated" in done.stdout
