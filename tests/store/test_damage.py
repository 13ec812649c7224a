"""A damaged store, or one that cannot be written: one line on stderr, exit status 1, and nothing further
damaged; the graph last published is still read where its files are intact. A store path that names no
store stays a user's mistake (exit status 2).

The cases: a read-only store directory, a full disk (a real one on a small tmpfs where this user may mount
one, and the failure injected at each step of a build with tests/interrupt.py), the marker missing, a
marker of a newer format, and database files truncated (the snapshot's own, the working database's own,
and the table files both share)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import REPO, run_kg, sorted_ntriples
from interrupt import command

from kg.store.directory import MARKER, POINTER, SNAPSHOTS, UNPUBLISHED, WORKING

NEW_ABSTRACT = "We study grokking in small transformers trained on modular arithmetic.\n"


@pytest.fixture
def store(small_store: Path, tmp_path: Path) -> Path:
    """A copy of the small store, hard links between its snapshot and its database kept as they are."""
    copy = tmp_path / "store"
    subprocess.run(["cp", "-a", str(small_store), str(copy)], check=True)
    return copy


@pytest.fixture
def new_source(tmp_path: Path) -> Path:
    path = tmp_path / "new.txt"
    path.write_text(NEW_ABSTRACT)
    return path


def one_error_line(done: subprocess.CompletedProcess[str], status: int = 1) -> str:
    """The one line a failed command wrote on stderr, checking its exit status."""
    assert done.returncode == status, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kg: error: "), done.stderr
    return lines[0]


def files(store: Path, *, skip: tuple[str, ...] = ("cache",)) -> dict[str, str]:
    """Every file of ``store`` (but those under ``skip``) with a digest of its content."""
    found = {}
    for folder, directories, names in os.walk(store):
        directories[:] = [d for d in directories if d not in skip]
        for name in names:
            path = Path(folder) / name
            found[str(path.relative_to(store))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def published(store: Path) -> dict[str, str]:
    """The files readers read: the current snapshot, the pointer and the marker."""
    return {name: digest for name, digest in files(store).items() if name.startswith((SNAPSHOTS, POINTER, MARKER))}


def build(store: Path, *sources: Path) -> subprocess.CompletedProcess[str]:
    return run_kg("build", *map(str, sources), "--store", str(store), "--profile", "rules")


def papers(store: Path) -> int:
    done = run_kg("query", "SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }", "--format", "csv", "--store", str(store))
    assert done.returncode == 0, done.stderr
    return int(done.stdout.splitlines()[1])


# ---- a store that cannot be written


@pytest.fixture
def read_only(store: Path) -> Iterator[Path]:
    """``store``, made read-only: a read-only bind mount for root (whom file modes do not stop), file modes
    for anyone else."""
    if os.geteuid() != 0:
        subprocess.run(["chmod", "-R", "a-w", str(store)], check=True)
        yield store
        subprocess.run(["chmod", "-R", "u+w", str(store)], check=True)
        return
    bound = subprocess.run(["mount", "--bind", str(store), str(store)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {bound.stderr.decode().strip()}")
    try:
        done = subprocess.run(["mount", "-o", "remount,bind,ro", str(store)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"cannot remount read-only here: {done.stderr.decode().strip()}")
        yield store
    finally:
        subprocess.run(["umount", str(store)], check=True)


def test_a_read_only_store_is_read_and_refuses_a_build_in_one_line(read_only: Path, new_source: Path) -> None:
    before = files(read_only)
    graph = sorted_ntriples(read_only)
    assert papers(read_only) == 2
    line = one_error_line(build(read_only, new_source))
    assert line in (
        f"kg: error: {read_only}: cannot build here: Read-only file system",
        f"kg: error: {read_only}: cannot build here: Permission denied",
    )
    assert files(read_only) == before and sorted_ntriples(read_only) == graph
    done = run_kg("neighbors", "CLIP", "--store", str(read_only))  # the projection cannot be cached: computed
    assert done.returncode == 0, done.stderr


# ---- a full disk


@pytest.fixture
def small_disk(store: Path, tmp_path: Path) -> Iterator[Path]:
    """A copy of ``store`` on a 2 MB tmpfs of its own (where this user may mount one)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        subprocess.run(["cp", "-a", str(store), str(disk / "store")], check=True)
        yield disk / "store"
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_a_full_disk_fails_in_one_line_and_the_graph_is_still_read(small_disk: Path, new_source: Path) -> None:
    graph, before = sorted_ntriples(small_disk), published(small_disk)
    filler = small_disk.parent / "filler"
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=4k"], capture_output=True)  # until the disk is full
    line = one_error_line(build(small_disk, new_source))
    assert line.startswith("kg: error: ") and "No space left on device" in line
    assert published(small_disk) == before and sorted_ntriples(small_disk) == graph
    filler.unlink()
    done = build(small_disk, new_source)
    assert done.returncode == 0, done.stderr
    assert papers(small_disk) == 3


@pytest.mark.parametrize(
    "point,message",
    [
        ("extend:1", "cannot write the store"),  # writing the new paper
        ("update", "cannot write the store"),  # consolidating
        ("backup", "cannot publish the graph"),  # the checkpoint
        ("pointer", "cannot publish the graph"),  # naming it current
    ],
)
def test_a_disk_full_at_any_step_of_a_build_fails_in_one_line_and_the_next_build_completes_it(
    store: Path, new_source: Path, point: str, message: str
) -> None:
    graph, before = sorted_ntriples(store), published(store)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    arguments = ("build", str(new_source), "--store", str(store), "--profile", "rules")
    done = subprocess.run(command(point, "full", *arguments), env=environment, capture_output=True, text=True)
    line = one_error_line(done)
    assert line.startswith(f"kg: error: {store}: {message}: ") and "No space left on device" in line
    assert published(store) == before and sorted_ntriples(store) == graph
    assert not [name for name in os.listdir(store / SNAPSHOTS) if name.startswith(".")]
    done = build(store, new_source)
    assert done.returncode == 0, done.stderr
    assert papers(store) == 3 and not (store / UNPUBLISHED).exists()


# ---- a damaged store


def test_a_store_missing_its_marker_is_damaged_and_left_alone(store: Path, new_source: Path, tmp_path: Path) -> None:
    (store / MARKER).unlink()
    before = files(store)
    expected = f"kg: error: {store}: damaged store: its marker {MARKER} is missing"
    assert one_error_line(run_kg("stats", "--store", str(store))) == expected
    assert one_error_line(build(store, new_source)) == expected
    assert files(store) == before
    # A path with no store at all is the user's mistake.
    nowhere = tmp_path / "nowhere"
    line = one_error_line(run_kg("stats", "--store", str(nowhere)), status=2)
    assert line == f"kg: error: {nowhere}: no graph store here; run `kg build SOURCE --store {nowhere}` first"


def test_a_store_of_a_newer_format_is_refused_and_left_alone(store: Path, new_source: Path) -> None:
    (store / MARKER).write_text(json.dumps({"format": 99}) + "\n")
    before = files(store)
    expected = f"kg: error: {store}: store format 99 is newer than this kg reads (3); upgrade kg"
    assert one_error_line(run_kg("stats", "--store", str(store))) == expected
    assert one_error_line(build(store, new_source)) == expected
    assert files(store) == before


def current(store: Path) -> Path:
    return store / SNAPSHOTS / (store / POINTER).read_text().strip()


def truncate(*paths: Path, fraction: int = 2) -> None:
    """Cut each file to a ``fraction`` of its size (0: to nothing)."""
    for path in paths:
        with open(path, "r+b") as stream:
            stream.truncate(path.stat().st_size // fraction if fraction else 0)


def test_a_damaged_snapshot_is_one_line_and_a_build_publishes_it_again(store: Path, small_store: Path) -> None:
    graph = sorted_ntriples(store)
    # The snapshot's own file (its tables are the database's too); RocksDB would open it as an empty database.
    (manifest,) = current(store).glob("MANIFEST-*")
    size = manifest.stat().st_size
    truncate(manifest)
    line = one_error_line(run_kg("stats", "--store", str(store)))
    assert line == (
        f"kg: error: {store}: damaged snapshot {SNAPSHOTS}/1: {manifest.name} has {size // 2} bytes instead of {size}"
    )
    done = run_kg("build", str(small_store.parent / "papers.txt"), "--store", str(store))  # nothing to add
    assert done.returncode == 0, done.stderr
    assert "0 new" in done.stderr
    assert sorted_ntriples(store) == graph


def truncate_current_and_manifest(database: Path) -> None:
    truncate(database / "CURRENT", *database.glob("MANIFEST-*"))


def empty_database(database: Path) -> None:
    """What RocksDB makes, without a word, of a database whose manifest and log are gone while its
    data was still in the log: an empty database."""
    import pyoxigraph

    subprocess.run(["rm", "-r", str(database)], check=True)
    pyoxigraph.Store(str(database)).flush()


@pytest.mark.parametrize(
    "damage,message",
    [(truncate_current_and_manifest, "Corruption: "), (empty_database, "it holds 0 papers, the graph published 2")],
)
def test_a_damaged_database_stops_a_build_in_one_line_and_readers_read_on(
    store: Path, new_source: Path, damage: Callable[[Path], None], message: str
) -> None:
    graph, before = sorted_ntriples(store), published(store)
    damage(store / WORKING)  # the database's own files, not the tables it shares with the snapshot
    database = files(store / WORKING)
    line = one_error_line(build(store, new_source))
    assert line.startswith(f"kg: error: {store / WORKING}: damaged database: {message}")
    assert published(store) == before and sorted_ntriples(store) == graph
    assert files(store / WORKING) == database  # left as it was found


def test_a_missing_database_stops_a_build_in_one_line_until_the_snapshot_is_copied_there(
    store: Path, new_source: Path
) -> None:
    before = published(store)
    subprocess.run(["rm", "-r", str(store / WORKING)], check=True)
    line = one_error_line(build(store, new_source))
    assert line == (
        f"kg: error: {store / WORKING}: the working database is missing; to build on the graph published, "
        f"copy it there: cp -a {current(store)} {store / WORKING}"
    )
    assert published(store) == before and papers(store) == 2 and not (store / WORKING).exists()
    subprocess.run(["cp", "-a", str(current(store)), str(store / WORKING)], check=True)
    done = build(store, new_source)
    assert done.returncode == 0, done.stderr
    assert papers(store) == 3


def test_damaged_tables_are_one_line_for_readers_and_builds(store: Path, new_source: Path) -> None:
    # The tables shared with the snapshot (hard links); a compaction after it may have made others.
    tables = sorted(table for table in (store / WORKING).glob("*.sst") if table.stat().st_nlink == 2)
    assert tables
    truncate(*tables)
    before = published(store)
    line = one_error_line(run_kg("stats", "--store", str(store)))
    assert line.startswith(f"kg: error: {store}: damaged snapshot {SNAPSHOTS}/1: {tables[0].name} has ")
    line = one_error_line(build(store, new_source))
    assert line.startswith(f"kg: error: {store / WORKING}: damaged database: Corruption: ")
    assert published(store) == before


def test_a_current_snapshot_that_is_gone_is_one_line_and_a_build_publishes_one(store: Path, small_store: Path) -> None:
    graph = sorted_ntriples(store)
    name = current(store).name
    subprocess.run(["rm", "-r", str(current(store))], check=True)
    line = one_error_line(run_kg("stats", "--store", str(store)))
    assert line == f"kg: error: {store}: damaged store: its current snapshot {SNAPSHOTS}/{name} is missing"
    done = run_kg("build", str(small_store.parent / "papers.txt"), "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert sorted_ntriples(store) == graph
