"""The synthetic corpus (kg.eval.synth): deterministic, distinct abstracts made of the seeds' sentences,
with the popular ones recurring as a real corpus's entities do."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO, SEEDS

from kg.eval.synth import seed_abstracts, split_sentences, synthetic_abstracts, write_corpus
from kg.ingest import read_documents


@pytest.fixture(scope="module")
def seeds() -> list[str]:
    return seed_abstracts(SEEDS)


def test_a_seed_gives_the_same_corpus_and_a_larger_one_starts_with_it(seeds: list[str]) -> None:
    small = list(synthetic_abstracts(seeds, 200, seed=3))
    assert small == list(synthetic_abstracts(seeds, 200, seed=3))
    assert list(synthetic_abstracts(seeds, 500, seed=3))[:200] == small
    assert [a["text"] for a in synthetic_abstracts(seeds, 200, seed=4)] != [a["text"] for a in small]


def test_abstracts_are_distinct_recombinations_of_seed_sentences(seeds: list[str]) -> None:
    corpus = [a["text"] for a in synthetic_abstracts(seeds, 2000, seed=0)]
    assert len(set(corpus)) == 2000 and not set(corpus) & set(seeds)
    known = {sentence for text in seeds for sentence in split_sentences(text)}
    used = Counter(sentence for text in corpus for sentence in split_sentences(text))
    assert set(used) <= known
    # Popular topics recur across many abstracts (Zipf-like), most sentences in few.
    counts = sorted(used.values(), reverse=True)
    assert counts[0] > 100 and counts[len(counts) // 2] < 10


def test_the_command_writes_json_lines_that_kg_build_reads(tmp_path: Path) -> None:
    output = tmp_path / "synthetic.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "kg.eval.synth", "25", "--seed", "2", "--seeds", str(SEEDS), "-o", str(output)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    documents = list(read_documents([output]))
    assert len({d.id for d in documents}) == 25
    assert all(isinstance(json.loads(line)["year"], int) for line in output.read_text().splitlines())
    assert output.read_text() == write_corpus(tmp_path / "again.jsonl", 25, seed=2, seeds_dir=SEEDS).read_text()


def test_a_missing_seeds_folder_is_one_line_and_status_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kg.eval.synth", "5", "--seeds", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"kg: error: {tmp_path / 'missing'}: no such seeds directory (give one with --seeds DIR)"
    ]
