"""`kg`'s options anywhere around the command and its positional arguments, as the command-line contract says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_kg

import kg.extract.pipeline
from kg.cli.main import parse_arguments


@pytest.mark.parametrize(
    "words",
    [
        ["--format", "json", "stats"],
        ["stats", "--format", "json"],
        ["--format=json", "--store", "{store}", "stats"],
        ["--store", "{store}", "--format", "json", "stats"],
        ["--form", "json", "stats"],  # an abbreviation, as argparse allows after the command
    ],
)
def test_global_and_command_options_before_or_after_the_command(small_store: Path, words: list[str]) -> None:
    given = [word.replace("{store}", str(small_store)) for word in words]
    store = [] if "{store}" in words else ["--store", str(small_store)]
    done = run_kg(*given, *store)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["papers"] == 2


def test_reading_options_before_the_command() -> None:
    args = parse_arguments(["--endpoint", "http://127.0.0.1:9/sparql", "--format", "csv", "query", "ASK {}"])
    assert (args.command, args.endpoint, args.format, args.sparql) == (
        "query",
        "http://127.0.0.1:9/sparql",
        "csv",
        "ASK {}",
    )


def test_options_between_positional_arguments() -> None:
    args = parse_arguments(["path", "CLIP", "--limit", "2", "robust overfitting", "--max-hops", "3"])
    assert (args.source, args.target, args.limit, args.max_hops) == ("CLIP", "robust overfitting", 2, 3)
    args = parse_arguments(["--workers", "2", "build", "a.txt", "--skip-bad", "b.txt", "--store", "s"])
    assert (args.sources, args.workers, args.skip_bad, args.store) == (["a.txt", "b.txt"], 2, True, "s")


def test_a_value_that_is_a_command_name_is_still_a_value() -> None:
    args = parse_arguments(["--store", "stats", "stats"])
    assert (args.command, args.store) == ("stats", "stats")


def test_help_version_and_mistakes_still_go_to_kg(capsys: pytest.CaptureFixture[str]) -> None:
    for words, status in ((["--version"], 0), ([], 2), (["--format", "json"], 2), (["nope"], 2)):
        with pytest.raises(SystemExit) as stopped:
            parse_arguments(words)
        assert stopped.value.code == status
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_build_and_extract_take_every_profile_of_the_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_arguments(["build", "--profile", "scierc"]).profile == "scierc"
    assert parse_arguments(["build"]).profile == parse_arguments(["extract", "x.txt"]).profile == "default"
    # A profile added to the pipeline later is accepted without touching the command line.
    monkeypatch.setattr(kg.extract.pipeline, "PROFILES", (*kg.extract.pipeline.PROFILES, "newer"))
    assert parse_arguments(["build", "seeds", "--profile", "newer"]).profile == "newer"
    assert parse_arguments(["extract", "--profile", "newer", "x.txt"]).profile == "newer"
