"""Shared fixtures: running the real `kg` command, a small corpus, and the seeds graph."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"
KG_SCRIPT = Path(sys.executable).parent / "kg"

SMALL_CORPUS = """Daily Papers

This work presents Adaptive Return-conditioned Policy (ARP), an efficient framework designed to enhance the agent's generalization ability using pre-trained multimodal encoders such as CLIP. Our ARP effectively mitigates the goal misgeneralization.

Adversarial training suffers from robust overfitting. We propose a new regularizer that mitigates robust overfitting and improves robust accuracy on CIFAR-10.

Adversarial training suffers from robust overfitting. We propose a new regularizer that mitigates robust overfitting and improves robust accuracy on CIFAR-10.
"""


def run_kg(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
           input: str | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the installed `kg` console script, as a user would."""
    environment = {k: v for k, v in os.environ.items() if k != "KG_STORE"}
    environment.update(env or {})
    return subprocess.run([str(KG_SCRIPT), *args], cwd=cwd, env=environment, input=input,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    path = tmp_path / "papers.txt"
    path.write_text(SMALL_CORPUS)
    return path


@pytest.fixture(scope="session")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store built once from the small corpus (3 abstracts, 2 distinct)."""
    folder = tmp_path_factory.mktemp("small")
    (folder / "papers.txt").write_text(SMALL_CORPUS)
    store = folder / "store"
    done = run_kg("build", str(folder / "papers.txt"), "--store", str(store))
    assert done.returncode == 0, done.stderr
    return store


@pytest.fixture(scope="session")
def seeds_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The graph of the four seed files, built once through the CLI."""
    store = tmp_path_factory.mktemp("seeds") / "store"
    done = run_kg("build", str(SEEDS), "--store", str(store))
    assert done.returncode == 0, done.stderr
    return store


def stats_of(store: Path) -> dict:
    done = run_kg("stats", "--format", "json", "--store", str(store))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def sorted_ntriples(store: Path) -> list[str]:
    done = run_kg("export", "--format", "nt", "--store", str(store))
    assert done.returncode == 0, done.stderr
    return sorted(line for line in done.stdout.splitlines() if line.strip())
