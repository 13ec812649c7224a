"""Building at scale: the graph is the same whatever the number of workers, the order batches finish
in, or how the sources are split over builds (learned profile included); the progress bar on a
terminal only; shards for a server store's bulk loader."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pexpect
import pytest
from conftest import KG_SCRIPT, SEEDS, run_kg, sorted_ntriples

from kg.build.builder import build
from kg.eval.synth import seed_abstracts, synthetic_abstracts
from kg.extract.pipeline import Extractor


def write_jsonl(path: Path, abstracts: list[dict]) -> Path:
    import json

    path.write_text("".join(json.dumps(a) + "\n" for a in abstracts))
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two sources of synthetic abstracts (popular entities recur across them), one abstract in both."""
    abstracts = list(synthetic_abstracts(seed_abstracts(SEEDS), 40, seed=11))
    folder = tmp_path_factory.mktemp("synthetic")
    return (
        write_jsonl(folder / "a.jsonl", abstracts[:20]),
        write_jsonl(folder / "b.jsonl", [*abstracts[20:], abstracts[0]]),
    )


@pytest.mark.slow
def test_the_learned_graph_is_the_same_for_one_or_two_workers_and_for_two_builds(
    corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    first, second = map(str, corpus)
    learned = ("--profile", "learned")
    done = run_kg("build", first, second, "--workers", "2", *learned, "--store", str(tmp_path / "both"))
    assert done.returncode == 0, done.stderr
    for source in (second, first):
        done = run_kg("build", source, "--workers", "1", *learned, "--store", str(tmp_path / "split"))
        assert done.returncode == 0, done.stderr
    assert sorted_ntriples(tmp_path / "both") == sorted_ntriples(tmp_path / "split")


def test_the_order_records_arrive_in_does_not_matter(
    corpus: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(corpus, store=tmp_path / "in-order", workers=1)
    extract = Extractor.extract_with_documents

    def reversed_order(self, documents):
        yield from reversed(list(extract(self, documents)))

    monkeypatch.setattr(Extractor, "extract_with_documents", reversed_order)
    build(corpus, store=tmp_path / "reversed", workers=1)
    assert sorted_ntriples(tmp_path / "in-order") == sorted_ntriples(tmp_path / "reversed")


def test_shards_hold_the_graph_for_a_bulk_loader(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "shard-00007.nq").write_text("left by an earlier build\n")
    done = run_kg("build", str(corpus[0]), "--store", str(tmp_path / "store"), "--shards", str(shards))
    assert done.returncode == 0, done.stderr
    lines = sorted(line for path in sorted(shards.glob("shard-*.nq")) for line in path.read_text().splitlines())
    assert [path.name for path in shards.iterdir()] == ["shard-00000.nq"]
    assert lines == sorted_ntriples(tmp_path / "store")


def test_a_shards_path_that_cannot_be_a_folder_stops_the_build_before_it_starts(
    corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    taken = tmp_path / "shards.txt"
    taken.write_text("a file\n")
    done = run_kg("build", str(corpus[0]), "--store", str(tmp_path / "store"), "--shards", str(taken))
    assert (done.returncode, done.stderr) == (2, f"kg: error: {taken}: cannot make the shards folder: File exists\n")
    assert not (tmp_path / "store").exists() and taken.read_text() == "a file\n"


def test_progress_is_a_bar_on_a_terminal_with_entities_and_relations(small_corpus: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("KG_STORE", "COLUMNS", "LINES")}
    shown = {}
    for name, quiet in (("bar", ()), ("quiet", ("--quiet",))):
        args = ["build", str(small_corpus), "--store", str(tmp_path / name), *quiet]
        child = pexpect.spawn(str(KG_SCRIPT), args, env=env, dimensions=(24, 120))
        child.expect(pexpect.EOF, timeout=300)
        child.close()
        assert child.exitstatus == 0
        shown[name] = child.before.decode()
    assert re.search(r"extracting: 100%.*2/2 \[.*abstract/s, entities=\d+, relations=\d+\]", shown["bar"])
    assert "extracting" not in shown["quiet"]
    for output in shown.values():
        assert re.search(r": 2 papers read \(2 new, .*, [\d.]+ s\r?\n?$", output)


def test_nothing_but_the_summary_when_not_on_a_terminal(small_corpus: Path, tmp_path: Path) -> None:
    done = run_kg("build", str(small_corpus), "--store", str(tmp_path / "store"))
    assert done.returncode == 0, done.stderr
    assert len(done.stderr.splitlines()) == 1 and "2 papers read" in done.stderr
