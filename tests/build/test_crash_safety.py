"""A build killed (SIGKILL) at any point, then run again over the same sources, gives the graph a clean
build gives, byte for byte; meanwhile readers read the graph as it was before. A reader (a shell left
open) never stops a build, and sees its papers at its next statement; a second build fails at once,
or waits with --wait.

The builds run `kg build` through tests/interrupt.py, which kills (or pauses) the process at a named
point: before the first batch of papers is written, mid-way, before the last batch, before and inside
the consolidation, and at each step of publishing the snapshot. The corpus is made of seed sentences
recombined, three batches (WRITE_BATCH) of new papers with duplicates among and across the sources.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import IO

import pytest
from conftest import KG_SCRIPT, REPO, SEEDS, run_kg, sorted_ntriples
from interrupt import command

from kg.build.builder import WRITE_BATCH
from kg.ingest import iter_source_files, read_documents
from kg.store import open_store
from kg.store.directory import SNAPSHOTS, UNPUBLISHED

pytestmark = pytest.mark.slow

PROFILE = ("--profile", "rules")  # the fastest extraction; what is tested here is the same for every profile
FIRST, SECOND = 40, 2 * WRITE_BATCH + 44  # papers of a.txt, new papers of b.txt: three batches


def recombined_abstracts(count: int) -> list[str]:
    """``count`` abstracts of three seed sentences each, the same on every run, no two alike."""
    pool: dict[str, None] = {}
    for document in read_documents(list(iter_source_files([SEEDS]))):
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", document.text):
            if len(sentence) > 40:
                pool.setdefault(sentence)
    sentences = list(pool)
    abstracts = [" ".join(sentences[(i * 7919 + k * 104729) % len(sentences)] for k in range(3)) for i in range(count)]
    assert len(set(abstracts)) == len(abstracts)
    return abstracts


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """a.txt, and b.txt: new abstracts, with one of a.txt's amid them and two repeated at its end."""
    folder = tmp_path_factory.mktemp("corpus")
    texts = recombined_abstracts(FIRST + SECOND)
    first, second = texts[:FIRST], texts[FIRST:]
    (folder / "a.txt").write_text("\n\n".join(first) + "\n")
    middle = len(second) // 2
    (folder / "b.txt").write_text("\n\n".join([*second[:middle], first[3], *second[middle:], second[10], first[5]]))
    return folder / "a.txt", folder / "b.txt"


def build(store: Path, *sources: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = run_kg("build", *map(str, sources), "--store", str(store), *PROFILE)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def environment() -> dict[str, str]:
    paths = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**{k: v for k, v in os.environ.items() if k != "KG_STORE"}, "PYTHONPATH": os.pathsep.join(paths)}


def killed_build(point: str, store: Path, *sources: Path, options: tuple[str, ...] = ()) -> None:
    """`kg build` killed with SIGKILL at ``point`` (see tests/interrupt.py)."""
    arguments = ("build", *map(str, sources), "--store", str(store), *PROFILE, *options)
    # Its output to a file, not a pipe: extraction workers that outlive it would keep a pipe open.
    with tempfile.TemporaryFile("w+") as output:
        done = subprocess.run(command(point, "kill", *arguments), env=environment(), stdout=output, stderr=output)
        output.seek(0)
        assert done.returncode == -9, f"not killed at {point}: {output.read()}"


def paused_build(point: str, store: Path, *sources: Path) -> subprocess.Popen[str]:
    """`kg build` paused at ``point``, until a line is written to its stdin."""
    arguments = ("build", *map(str, sources), "--store", str(store), *PROFILE)
    process = subprocess.Popen(
        command(point, "pause", *arguments),
        env=environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert read_line(process.stdout) == "paused\n"
    return process


def read_line(stream: IO[str] | None, timeout: float = 300) -> str:
    """The next line of ``stream``, failing after ``timeout`` seconds rather than hanging."""
    assert stream is not None
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    assert box, f"no line within {timeout} s"
    return box[0]


def snapshot_names(store: Path) -> list[str]:
    """The snapshots, and anything else in their folder but their records (the leftovers of a build killed)."""
    return sorted(entry.name for entry in (store / SNAPSHOTS).iterdir() if not entry.name.endswith(".json"))


def leftovers(store: Path) -> list[str]:
    """What a finished build should not leave: unpublished writes, snapshots but the current one."""
    current = (store / "current").read_text().strip()
    unpublished = [UNPUBLISHED] if (store / UNPUBLISHED).exists() else []
    found = sorted(entry.name for entry in (store / SNAPSHOTS).iterdir())
    return [name for name in found if name not in (current, f"{current}.json")] + unpublished


@pytest.fixture(scope="module")
def clean(corpus: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The sorted N-Triples of a clean build of both sources."""
    store = tmp_path_factory.mktemp("clean") / "store"
    build(store, *corpus)
    return sorted_ntriples(store)


@pytest.fixture(scope="module")
def first_store(corpus: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A store built from a.txt, and its sorted N-Triples."""
    store = tmp_path_factory.mktemp("first") / "store"
    build(store, corpus[0])
    return store, sorted_ntriples(store)


@pytest.fixture(scope="module")
def written_store(
    corpus: tuple[Path, Path], first_store: tuple[Path, list[str]], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The store of a.txt, extended by a build of both sources killed once every paper was written,
    before the consolidation."""
    store = tmp_path_factory.mktemp("written") / "store"
    shutil.copytree(first_store[0], store)
    killed_build("consolidate", store, *corpus)
    return store


@pytest.mark.parametrize("point", ["extend:1", "pointer"])
def test_a_first_build_killed_is_completed_by_the_next(
    point: str, corpus: tuple[Path, Path], clean: list[str], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    killed_build(point, store, *corpus)
    done = run_kg("stats", "--store", str(store))
    assert done.returncode == 1
    assert done.stderr == (
        f"kg: error: {store}: no graph yet; the build that began it stopped before it finished: run `kg build` again\n"
    )
    build(store, *corpus)
    assert sorted_ntriples(store) == clean
    assert leftovers(store) == []


# extend:N is the N-th batch of b.txt's new papers (killed after the third, see written_store)
@pytest.mark.parametrize("point", ["extended:1", "extend:3"])
def test_a_build_killed_while_it_adds_papers_is_completed_by_the_next(
    point: str, corpus: tuple[Path, Path], first_store: tuple[Path, list[str]], clean: list[str], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    shutil.copytree(first_store[0], store)
    killed_build(point, store, *corpus)
    assert sorted_ntriples(store) == first_store[1]  # readers read the graph of a.txt meanwhile
    build(store, *corpus)
    assert sorted_ntriples(store) == clean
    assert leftovers(store) == []


def test_extraction_workers_left_running_by_a_killed_build_do_not_hold_the_store(
    corpus: tuple[Path, Path], first_store: tuple[Path, list[str]], clean: list[str], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    shutil.copytree(first_store[0], store)
    try:
        killed_build("extended:1", store, *corpus, options=("--workers", "2"))
        build(store, *corpus)  # not "being built by process N" while the orphaned workers run
    finally:
        for pid in processes_naming(store):  # the workers, if they outlived their build
            os.kill(pid, signal.SIGKILL)
    assert sorted_ntriples(store) == clean


def processes_naming(store: Path) -> list[int]:
    """The processes whose command line names ``store``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(store).encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


@pytest.mark.parametrize("point", ["consolidate", "extend:1", "update", "backup", "backed-up", "pointer", "published"])
def test_a_build_killed_while_it_consolidates_or_publishes_is_completed_by_the_next(
    point: str,
    corpus: tuple[Path, Path],
    first_store: tuple[Path, list[str]],
    written_store: Path,
    clean: list[str],
    tmp_path: Path,
) -> None:
    # Every paper is written; the build that completes them has only the consolidation and the
    # snapshot to do (extend:1 is the consolidation's first write), and is killed in turn.
    store = tmp_path / "store"
    shutil.copytree(written_store, store)
    killed_build(point, store, *corpus)
    assert sorted_ntriples(store) == (clean if point == "published" else first_store[1])
    done = build(store, *corpus)
    assert "0 new" in done.stderr
    assert sorted_ntriples(store) == clean
    assert leftovers(store) == []


@pytest.mark.parametrize("query_process", [False, True], ids=["in-process", "query-process"])
def test_a_shell_left_open_does_not_stop_a_build_and_sees_its_papers_next(
    corpus: tuple[Path, Path], first_store: tuple[Path, list[str]], tmp_path: Path, query_process: bool
) -> None:
    from contextlib import nullcontext

    from kg.store.worker import QueryWorker
    from shell.app import run_statement
    from shell.input.statements import Statement
    from shell.output import Console
    from shell.session import Session

    store = tmp_path / "store"
    shutil.copytree(first_store[0], store)
    out, err = io.StringIO(), io.StringIO()
    console = Console(out, err, interactive=False)

    def papers(session: Session) -> int:
        out.seek(0)
        out.truncate()
        assert run_statement(session, console, Statement("SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }")) == 0
        return int(out.getvalue().split()[1])

    with open_store(store) as graph, QueryWorker(store) if query_process else nullcontext() as worker:
        session = Session(graph, location=str(store), fmt="tsv", queries=worker)
        assert papers(session) == FIRST
        build(store, *corpus)  # with the shell's store open on its snapshot
        assert snapshot_names(store) == ["1", "2"]
        assert papers(session) == FIRST + SECOND
        assert "note: a build changed the graph since the last statement; reading the new one" in err.getvalue()
    build(store, *corpus)  # nothing to add; removes the snapshot the shell held
    assert "1" not in snapshot_names(store) and leftovers(store) == []


def test_a_second_build_fails_at_once_and_one_with_wait_waits(
    corpus: tuple[Path, Path], clean: list[str], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    first = paused_build("extended:1", store, corpus[0])  # a first build, one batch written
    try:
        second = build(store, *corpus, check=False)
        assert second.returncode == 1
        assert second.stderr == f"kg: error: store {store} is being built by process {first.pid}\n"
        reader = run_kg("stats", "--store", str(store))
        assert reader.returncode == 1
        assert reader.stderr == f"kg: error: {store}: no graph yet; a build is under way (process {first.pid})\n"
        waiting = subprocess.Popen(
            [str(KG_SCRIPT), "build", *map(str, corpus), "--store", str(store), "--wait", *PROFILE],
            env=environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = read_line(waiting.stderr)
        assert line == f"kg: store {store} is being built by process {first.pid}; waiting for it to finish\n"
        assert waiting.poll() is None
    finally:
        first.communicate("\n", timeout=600)
    assert first.returncode == 0
    _, err = waiting.communicate(timeout=600)
    assert waiting.returncode == 0, err
    assert f"{SECOND} new, {FIRST} already stored" in err
    assert sorted_ntriples(store) == clean
