"""The graph is a function of the set of documents: however the sources are split over builds, ordered,
or extracted (workers), and wherever a build was stopped, the sorted N-Triples come out the same."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SEEDS, run_kg, sorted_ntriples

from kg.ingest import iter_source_files, read_documents
from kg.normalize import fold

# Abstracts of the seeds that share acronyms and long forms across papers (LoRA, SAM, CoT, ViT), so
# that a later paper can change where an earlier paper's entity lands.
_SHARED = re.compile(
    r"\b(LoRA|Low-Rank Adaptation|SAM|Segment Anything|Sharpness-Aware|CoT|[Cc]hain-of-[Tt]hought|ViT"
    r"|Vision Transformer)s?\b"
)


@pytest.fixture(scope="module")
def halves(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two sources splitting those abstracts (about 30) between them, one abstract in both."""
    documents = {d.id: d for d in read_documents(list(iter_source_files([SEEDS]))) if _SHARED.search(d.text)}
    chosen = [documents[key] for key in sorted(documents)]
    assert len(chosen) >= 20
    folder = tmp_path_factory.mktemp("halves")
    first, second = folder / "a.txt", folder / "b.txt"
    first.write_text("\n\n".join(d.text for d in chosen[0::2]) + "\n")
    second.write_text("\n\n".join(d.text for d in [*chosen[1::2], chosen[0]]) + "\n")
    return first, second


@pytest.fixture(scope="module")
def at_once(halves: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    store = tmp_path_factory.mktemp("at-once") / "store"
    done = run_kg("build", *map(str, halves), "--store", str(store))
    assert done.returncode == 0, done.stderr
    return sorted_ntriples(store)


def test_two_builds_give_what_one_build_of_both_gives(halves: tuple[Path, Path], at_once: list[str], tmp_path: Path):
    store = str(tmp_path / "store")
    for source in halves:
        done = run_kg("build", str(source), "--store", store)
        assert done.returncode == 0, done.stderr
    assert "\n".join(sorted_ntriples(tmp_path / "store")) == "\n".join(at_once)


def test_neither_the_order_of_sources_nor_the_workers_matter(
    halves: tuple[Path, Path], at_once: list[str], tmp_path: Path
) -> None:
    first, second = map(str, halves)
    done = run_kg("build", second, first, "--workers", "2", "--store", str(tmp_path / "store"))
    assert done.returncode == 0, done.stderr
    assert sorted_ntriples(tmp_path / "store") == at_once


def test_a_build_stopped_before_it_consolidates_is_completed_by_the_next(
    halves: tuple[Path, Path], at_once: list[str], tmp_path: Path
) -> None:
    store = str(tmp_path / "store")
    # The papers of the second source are written, then the process dies (as under SIGKILL: no clean-up).
    stopped = (
        "import os, sys, kg.build.builder as builder\n"
        "builder.consolidate = lambda store: os._exit(9)\n"
        "from kg.cli.main import main\n"
        "main(sys.argv[1:])\n"
    )
    done = run_kg("build", str(halves[0]), "--store", store)
    assert done.returncode == 0, done.stderr
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    killed = subprocess.run(
        [sys.executable, "-c", stopped, "build", *map(str, halves), "--store", store],
        env={k: v for k, v in environment.items() if k != "KG_STORE"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert killed.returncode == 9, killed.stderr
    assert sorted_ntriples(tmp_path / "store") != at_once
    # Nothing new to extract (a model that does not exist is never loaded), but the consolidation is done.
    done = run_kg("build", *map(str, halves), "--store", store, env={"KG_SPACY_MODEL": "no_such_model"})
    assert done.returncode == 0, done.stderr
    assert "0 new" in done.stderr
    assert sorted_ntriples(tmp_path / "store") == at_once


def test_no_two_entities_of_the_seeds_graph_share_a_folded_label(seeds_store: Path) -> None:
    done = run_kg(
        "query",
        "SELECT ?e ?label WHERE { VALUES ?type { kg:Method kg:Dataset kg:Task kg:Metric kg:Phenomenon } "
        "?e a ?type ; rdfs:label ?label }",
        "--format",
        "tsv",
        "--store",
        str(seeds_store),
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()[1:]]
    entities_by_label: dict[str, set[str]] = {}
    for entity, label in rows:
        entities_by_label.setdefault(fold(label.strip('"')), set()).add(entity)
    shared = {label: sorted(entities) for label, entities in entities_by_label.items() if len(entities) > 1}
    assert len(rows) > 2000 and shared == {}
    # A name the abstract writes in TeX ("Poincar\\'e embeddings", "Tanks \\& Temples") is labelled as it reads.
    # (In TSV a backslash of the label is written twice, and a quote inside it is escaped by one.)
    assert [label for _, label in rows if re.search(r"\\\\|[{}$]", label)] == []
    labels = {label for _, label in rows}
    assert {'"Poincaré embeddings"', '"Tanks & Temples"', '"Sørensen–Dice Coefficient"'} <= labels
    # LLMs is defined as "large language models" and "large pre-trained language models", one name
    # spelled two ways; "OOD detection" is "out-of-distribution detection" spelled out.
    assert {'"large language models"', '"out-of-distribution detection"'} <= labels
    assert {'"LLMs"', '"OOD detection"'} & labels == set()
    # A name with a trailing category word is the name without it, of the same type.
    assert {'"GLUE"', '"regularization"', '"domain shift"'} <= labels
    assert {'"GLUE benchmark"', '"regularization techniques"', '"domain shift problem"'} & labels == set()
    # Names that differ only in where words are split are one: "CIFAR10", "ResNet50" and "TinyImageNet" are
    # aliases; and no name keeps a stray closing quote.
    unsplit: dict[str, set[str]] = {}
    for entity, label in rows:
        unsplit.setdefault(re.sub(r"[ '\"]", "", fold(label.strip('"'))), set()).add(entity)
    assert {name: entities for name, entities in unsplit.items() if len(entities) > 1} == {}
    assert {'"CIFAR-10"', '"ResNet-50"', '"Tiny ImageNet"', '"robust mean teacher"'} <= labels
    assert {'"CIFAR10"', '"ResNet50"', '"TinyImageNet"', '"robust mean teacher\'"'} & labels == set()
    # No citation key, venue, lone letter or LaTeX space is a name ("e.g.~BART" is BART).
    assert {'"ostapenko2024towards"', '"ACL 2025"', '"D"', '"G"', '"e.g.~BART"'} & labels == set()
    assert [label for label in labels if len(label.strip('"')) == 1 or "~" in label] == []
    assert '"BART"' in labels
    # No acronym's long form starts with a function word ("and Reasoning Corpus" for ARC).
    assert '"Abstraction and Reasoning Corpus"' in labels and '"and Reasoning Corpus"' not in labels


def test_no_name_of_the_seeds_graph_has_a_bracket_it_does_not_close(seeds_store: Path) -> None:
    # Neither a span reaching out of a bracket ("OOD) generalization") nor an acronym's long form reaching into
    # one ("e.g.~RoBERTa) and generation models", for "(e.g.~BART)") is a name; nor is a list in brackets a
    # definition ("be applied to efficiently train multiple PTLMs" was BERT's long form in "... can be applied to
    # efficiently train multiple PTLMs (BERT, BioBERT, GPT-2)").
    done = run_kg(
        "query",
        "SELECT ?name WHERE { VALUES ?type { kg:Method kg:Dataset kg:Task kg:Metric kg:Phenomenon } "
        "?e a ?type . { ?e rdfs:label ?name } UNION { ?e skos:altLabel ?name } }",
        "--format",
        "tsv",
        "--store",
        str(seeds_store),
    )
    assert done.returncode == 0, done.stderr
    names = done.stdout.splitlines()[1:]
    assert len(names) > 3000
    assert [name for name in names if name.count("(") != name.count(")")] == []
    assert [name for name in names if "efficiently train multiple PTLMs" in name] == []
