"""The snapshots of a store directory that readers read, and how a build publishes and removes them
(the directory itself, its marker and the build's lock, are :mod:`kg.store.directory`).

A build publishes the working database ``DIR/oxigraph/`` as a RocksDB checkpoint (pyoxigraph
``Store.backup``: hard links to the database's immutable table files, copies of its few small
bookkeeping files) in ``DIR/snapshots/N/``, with a record of it in ``DIR/snapshots/N.json`` (the
graph it holds, its papers, its files with their sizes and digests of all but the table files),
then replaces ``DIR/current`` by a file naming ``N`` (written beside it and renamed over it, so that
a reader finds the old name or the new one, never a mixture). A reader opens the snapshot
``DIR/current`` names with ``Store.read_only`` and holds a shared ``flock`` on its directory for as
long as it reads it; nothing ever writes a snapshot, so readers never see a build's writes and
never stop one. A build removes every other snapshot it can lock exclusively; one still read is
removed by a later build.

RocksDB opens a database whose MANIFEST was cut short as an older (even empty) one, without a
word; so a reader checks a snapshot's files against its record before it opens it.

Examples
--------
>>> import tempfile, pathlib
>>> from kg.store.directory import check_marker
>>> folder = pathlib.Path(tempfile.mkdtemp()) / "s"
>>> check_marker(folder, create=True)
3
>>> current_snapshot(folder) is None, has_snapshot(folder)
(True, False)
>>> hold_current_snapshot(folder)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kg.errors.StoreError: ...: no graph yet; the build that began it stopped before it finished: run `kg build` again
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import StoreBusyError, StoreError
from kg.store.directory import (
    POINTER,
    SNAPSHOTS,
    WORKING,
    building_process,
    hold,
    let_go,
    sync_directory,
    write_small_file,
)

if TYPE_CHECKING:
    import pyoxigraph


def current_snapshot(path: Path) -> str | None:
    """The name of the snapshot readers of the store ``path`` read, or None before the first is published."""
    try:
        name = (path / POINTER).read_text().strip()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise StoreError(f"{path}: cannot read {POINTER}: {err.strerror}") from None
    if not name.isdigit():
        raise StoreError(f"{path}: damaged store: {POINTER} names no snapshot")
    return name


def has_snapshot(path: Path) -> bool:
    """Whether the store ``path`` has a current snapshot to read (a damaged pointer, or one naming a
    snapshot that is gone, counts as none: the next build publishes one)."""
    try:
        name = current_snapshot(path)
    except StoreError:
        return False
    return name is not None and (path / SNAPSHOTS / name).is_dir()


@dataclass
class Snapshot:
    """A published snapshot held open for reading: its directory, shared-locked until :meth:`release`."""

    name: str
    directory: Path
    key: str
    """Names the graph this snapshot holds: the same for a snapshot published again over an unchanged
    graph, another for any other (the cache of derived data is kept under it)."""
    _fd: int | None

    def release(self) -> None:
        """Let a build remove the snapshot (closing the directory releases its lock)."""
        let_go(self._fd)
        self._fd = None


def hold_current_snapshot(path: Path) -> Snapshot:
    """The current snapshot of the store ``path``, shared-locked so that no build removes it.

    Raises
    ------
    kg.errors.StoreError
        No snapshot is published yet (a first build is under way, or was stopped), or the one
        ``DIR/current`` names is gone.
    """
    for _ in range(10):
        name = current_snapshot(path)
        if name is None:
            raise _no_graph_yet(path)
        directory = path / SNAPSHOTS / name
        try:
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as err:
            if current_snapshot(path) != name:
                continue  # a build published another, and removed this one, meanwhile
            raise StoreError(f"{path}: damaged store: its current snapshot {SNAPSHOTS}/{name} is missing") from err
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            status = os.fstat(fd)
            there = os.stat(directory)
        except OSError:  # locked by a build removing it, or removed meanwhile: no longer current
            os.close(fd)
            time.sleep(0.01)
            continue
        if (there.st_dev, there.st_ino) != (status.st_dev, status.st_ino):
            os.close(fd)
            continue
        try:
            record = check_snapshot(path, name)
        except BaseException:
            os.close(fd)
            raise
        return Snapshot(name, directory, str(record.get("content") or f"{name}:{status.st_ino}"), hold(fd))
    raise StoreError(f"{path}: the current snapshot changed ten times while it was being opened; try again")


def _no_graph_yet(path: Path) -> StoreError:
    pid = building_process(path)
    if pid is not None:
        return StoreError(f"{path}: no graph yet; a build is under way ({StoreBusyError(path, pid or None).who})")
    return StoreError(f"{path}: no graph yet; the build that began it stopped before it finished: run `kg build` again")


def publish_snapshot(database: pyoxigraph.Store, path: Path, *, papers: int, content: str) -> str:
    """Publish the working ``database`` of the store ``path``, which holds ``papers`` papers, as its
    new current snapshot, of the graph named ``content`` (see :attr:`Snapshot.key`); returns its name.

    The caller holds the build lock. Raises OSError (the checkpoint or the pointer cannot be
    written); the current snapshot is then still the previous one.
    """
    snapshots = path / SNAPSHOTS
    snapshots.mkdir(exist_ok=True)
    numbers = [int(entry.name) for entry in snapshots.iterdir() if entry.name.isdigit()]
    numbers.append(int(_pointer_or_none(path) or 0))  # numbers only grow, even past a snapshot gone
    name = str(max(numbers, default=0) + 1)
    staging = snapshots / f".new-{name}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        database.backup(str(staging))
        record = {"content": content, "papers": papers, "files": _describe(staging)}
        os.rename(staging, snapshots / name)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        sync_directory(snapshots)
        write_small_file(snapshots / f"{name}.json", json.dumps(record, indent=1, sort_keys=True) + "\n")
        write_small_file(path / POINTER, f"{name}\n")
    except BaseException:
        if _pointer_or_none(path) != name:  # not published: nobody reads it
            (snapshots / f"{name}.json").unlink(missing_ok=True)
            shutil.rmtree(snapshots / name, ignore_errors=True)
        raise
    return name


def _pointer_or_none(path: Path) -> str | None:
    try:
        return current_snapshot(path)
    except StoreError:
        return None


def snapshot_record(path: Path, name: str) -> dict:
    """What was recorded of the snapshot ``name`` of the store ``path`` when it was published: its
    ``papers``, and its ``files`` (each with its size and, but for the table files, a digest)."""
    try:
        record = json.loads((path / SNAPSHOTS / f"{name}.json").read_text())
        if isinstance(record, dict) and isinstance(record.get("files"), dict):
            return record
    except (OSError, ValueError):
        pass
    raise StoreError(f"{path}: damaged snapshot {SNAPSHOTS}/{name}: its record {name}.json is missing or unreadable")


def check_snapshot(path: Path, name: str) -> dict:
    """Check the files of the snapshot ``name`` against its record (RocksDB opens a snapshot whose
    MANIFEST was cut short as an older, even empty, database, without a word); returns the record.

    Raises
    ------
    kg.errors.StoreError
        A file is gone, of another size, or (a small one) of other content.
    """
    record = snapshot_record(path, name)
    recorded = record["files"]
    found = _describe(path / SNAPSHOTS / name)
    for file, (size, digest) in sorted(recorded.items()):
        if file not in found:
            problem = "is missing"
        elif found[file][0] != size:
            problem = f"has {found[file][0]} bytes instead of {size}"
        elif found[file][1] != digest:
            problem = "has changed"
        else:
            continue
        raise StoreError(f"{path}: damaged snapshot {SNAPSHOTS}/{name}: {file} {problem}")
    return record


def shares_tables(path: Path, name: str) -> bool:
    """Whether the snapshot ``name`` of the store ``path`` still shares every table file with the
    working database (they part as the database compacts its tables, and the snapshot keeps its own)."""

    def tables(directory: Path) -> set[int]:
        with os.scandir(directory) as entries:
            return {entry.inode() for entry in entries if entry.name.endswith(".sst")}

    return tables(path / SNAPSHOTS / name) <= tables(path / WORKING)


def _describe(directory: Path) -> dict[str, list]:
    """Each file of a RocksDB directory with its size and, but for the (large, immutable, checksummed)
    table files, a digest of its content."""
    described: dict[str, list] = {}
    with os.scandir(directory) as entries:
        for entry in entries:
            size = entry.stat().st_size
            digest = None
            if not entry.name.endswith(".sst"):
                digest = hashlib.sha256(Path(entry.path).read_bytes()).hexdigest()
            described[entry.name] = [size, digest]
    return described


def remove_unread_snapshots(path: Path, *, keep: str) -> list[str]:
    """Remove the snapshots of the store ``path`` but ``keep`` that no reader holds, and what a build
    killed while publishing or removing left; returns the names removed. The caller holds the build lock."""
    snapshots = path / SNAPSHOTS
    removed = []
    for entry in sorted(snapshots.iterdir()) if snapshots.is_dir() else []:
        if entry.name in (keep, f"{keep}.json"):
            continue
        if entry.name.endswith(".json"):  # a record: goes with its snapshot
            if not (snapshots / entry.name.removesuffix(".json")).exists():
                entry.unlink(missing_ok=True)
            continue
        if not entry.name.isdigit():  # .new-N, .old-N: never a reader's (readers check the name they locked)
            shutil.rmtree(entry, ignore_errors=True)
            continue
        try:
            fd = os.open(entry, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # Renamed first, so that a reader that opened it before the lock finds it gone, not half removed.
            doomed = snapshots / f".old-{entry.name}"
            os.rename(entry, doomed)
            (snapshots / f"{entry.name}.json").unlink(missing_ok=True)
            shutil.rmtree(doomed, ignore_errors=True)
            removed.append(entry.name)
        except OSError:
            pass  # a reader holds it
        finally:
            os.close(fd)
    return removed
