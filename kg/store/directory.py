"""A store directory on disk: its marker, the lock of the one build that writes it, and the
snapshots that readers read (the layout is in :mod:`kg.store.base`).

A build holds ``DIR/lock`` exclusively (``flock``), with its process id written in it, and
writes the working database ``DIR/oxigraph/``. When it has written everything it publishes the
database: a RocksDB checkpoint (pyoxigraph ``Store.backup``: hard links to the database's
immutable table files, copies of its few small bookkeeping files) in ``DIR/snapshots/N/``, with
a record of it in ``DIR/snapshots/N.json`` (its papers; its files, their sizes, and digests of
all but the table files), then ``DIR/current`` is replaced by a file naming ``N`` (written beside
it and renamed over it, so that a reader finds the old name or the new one, never a mixture). A
reader opens the snapshot ``DIR/current`` names with ``Store.read_only`` and holds a shared
``flock`` on its directory for as long as it reads it; nothing ever writes a snapshot, so readers
never see a build's writes and never stop one. After publishing, a build removes every other
snapshot it can lock exclusively; one still read is removed by a later build.

``DIR/unpublished`` exists from a build's first write until its snapshot is published, so
that a build killed in between (its papers consolidated, say, but not published) is published
by the next one even when that one has nothing to add.

RocksDB opens a database whose MANIFEST was cut short as an older one (even an empty one),
without a word; so a reader checks a snapshot's files against its record before it opens it,
and a build checks that the working database holds at least the papers the current snapshot
has before it writes to it.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp()) / "s"
>>> check_marker(folder, create=True)
3
>>> current_snapshot(folder) is None, building_process(folder) is None
(True, True)
>>> lock = BuildLock(folder, wait=False)
>>> building_process(folder) == os.getpid()
True
>>> BuildLock(folder, wait=False)
Traceback (most recent call last):
...
kg.errors.StoreBusyError: store ... is being built by process ...
>>> lock.release()
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
from typing import TYPE_CHECKING, Any

from kg.errors import StoreBusyError, StoreError, StoreNotFoundError, UsageError
from kg.files import write_atomically

if TYPE_CHECKING:
    import pyoxigraph

MARKER = "kg-store.json"
FORMAT_VERSION = 3
"""2: each paper's extraction record is kept beside it (:mod:`kg.build.extraction_graph`);
3: readers read published snapshots. A format-2 store is upgraded when it is opened."""
UPGRADABLE = 2
"""The oldest format that is upgraded in place (format 1 has no extraction records: rebuild)."""

LOCK = "lock"
WORKING = "oxigraph"
SNAPSHOTS = "snapshots"
POINTER = "current"
UNPUBLISHED = "unpublished"

# A reader that checks the store while a build starts could hold the lock for a few microseconds
# (building_process); a build tries a few times, this far apart, before it says the store is busy.
_LOCK_ATTEMPTS = 5
_LOCK_PAUSE = 0.02


# The locks this process holds (the build lock, the snapshots it reads), by file descriptor. A flock
# belongs to the open file, which a forked child shares (extraction workers are forked): a worker left
# running after its build was killed would keep the store locked. Each child closes its copies at once.
_HELD: set[int] = set()


def _close_inherited_locks() -> None:
    for fd in _HELD:
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


os.register_at_fork(after_in_child=_close_inherited_locks)


def _hold(fd: int) -> int:
    _HELD.add(fd)
    return fd


def _let_go(fd: int | None) -> None:
    if fd is not None and fd in _HELD:  # not a descriptor this process inherited (and closed) at a fork
        _HELD.discard(fd)
        os.close(fd)


# ---- the marker


def check_marker(path: Path, *, create: bool) -> int:
    """The format of the store directory ``path`` (:data:`FORMAT_VERSION`, or :data:`UPGRADABLE` for
    one to upgrade); with ``create``, make a new store there if there is none.

    Raises
    ------
    kg.errors.StoreNotFoundError
        No store there (exit status 2: the user named the wrong directory).
    kg.errors.StoreError
        A store that is damaged (its marker unreadable or gone from beside its database), or of a
        format this kg does not read.
    """
    marker = path / MARKER
    try:
        text = marker.read_text()
    except FileNotFoundError:
        return _new_store(path, create=create)
    except NotADirectoryError:
        raise StoreNotFoundError(f"{path}: is a file, not a graph store") from None
    except OSError as err:
        raise StoreError(f"{path}: cannot read the store marker {MARKER}: {err.strerror}") from None
    try:
        version = json.loads(text).get("format")
    except (ValueError, AttributeError):
        raise StoreError(f"{path}: damaged store marker {MARKER}") from None
    if not isinstance(version, int) or version < 1:
        raise StoreError(f"{path}: damaged store marker {MARKER}")
    if version > FORMAT_VERSION:
        raise StoreError(f"{path}: store format {version} is newer than this kg reads ({FORMAT_VERSION}); upgrade kg")
    if version < UPGRADABLE:
        raise StoreError(f"{path}: store format {version}, this kg reads format {FORMAT_VERSION}; rebuild it")
    return version


def write_marker(path: Path) -> None:
    """Write the marker of the current format (atomically: a process killed meanwhile leaves the old one)."""
    text = json.dumps({"format": FORMAT_VERSION}) + "\n"
    _write_small_file(path / MARKER, text)


def _new_store(path: Path, *, create: bool) -> int:
    if path.is_dir() and any((path / name).exists() for name in (WORKING, SNAPSHOTS, POINTER)):
        raise StoreError(f"{path}: damaged store: its marker {MARKER} is missing")
    if not create:
        raise StoreNotFoundError(f"{path}: no graph store here; run `kg build SOURCE --store {path}` first")
    if path.exists():
        entries = list(path.iterdir()) if path.is_dir() else None
        # A process killed while it wrote the marker may have left write_atomically's temporary file.
        if entries is None or any(not entry.name.startswith(f".{MARKER}.") for entry in entries):
            raise StoreNotFoundError(f"{path}: exists and is not a kg store; choose an empty or new directory")
        for entry in entries:
            entry.unlink(missing_ok=True)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(f"{path}: cannot create the store: {err.strerror}") from None
    write_marker(path)
    return FORMAT_VERSION


# ---- the build's lock


class BuildLock:
    """The exclusive lock of the one build writing the store ``path``, with its process id recorded.

    Parameters
    ----------
    path : Path
        The store directory.
    wait : bool
        Wait for a build that holds the lock to finish, instead of raising.

    Raises
    ------
    kg.errors.StoreBusyError
        Another process builds the store (and ``wait`` is false).
    kg.errors.StoreError
        The lock file cannot be created (a read-only directory, a full disk).
    """

    def __init__(self, path: Path, *, wait: bool) -> None:
        self.path = path
        try:
            self._fd: int | None = os.open(path / LOCK, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as err:
            raise StoreError(f"{path}: cannot build here: {err.strerror}") from None
        _hold(self._fd)
        try:
            self._take(wait=wait)
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)
        except BaseException:
            self.release()
            raise

    def _take(self, *, wait: bool) -> None:
        assert self._fd is not None
        for attempt in range(_LOCK_ATTEMPTS):
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if wait:
                    fcntl.flock(self._fd, fcntl.LOCK_EX)
                    return
                if attempt + 1 < _LOCK_ATTEMPTS:
                    time.sleep(_LOCK_PAUSE)
        raise StoreBusyError(self.path, _recorded_pid(self._fd))

    def release(self) -> None:
        """Let the next build in (closing the file releases the lock)."""
        _let_go(self._fd)
        self._fd = None


def building_process(path: Path) -> int | None:
    """The id of the process building the store ``path`` now (0 when it is not recorded yet), or
    None when no build is under way. Looks without taking the lock for longer than a moment."""
    try:
        fd = os.open(path / LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _recorded_pid(fd) or 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _recorded_pid(fd: int) -> int | None:
    try:
        return int(os.pread(fd, 32, 0).decode().strip())
    except (OSError, ValueError):
        return None


# ---- snapshots


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
        _let_go(self._fd)
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
        return Snapshot(name, directory, str(record.get("content") or f"{name}:{status.st_ino}"), _hold(fd))
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
        _sync_directory(snapshots)
        _write_small_file(snapshots / f"{name}.json", json.dumps(record, indent=1, sort_keys=True) + "\n")
        _write_small_file(path / POINTER, f"{name}\n")
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


# ---- the flag of writes not yet published


def mark_unpublished(path: Path) -> None:
    """Record that the working database is about to hold something no snapshot has."""
    try:
        (path / UNPUBLISHED).touch()
    except OSError as err:
        raise StoreError(f"{path}: cannot write the store: {err.strerror}") from None


def is_unpublished(path: Path) -> bool:
    """Whether a build wrote something it did not publish (it was stopped before it finished)."""
    return (path / UNPUBLISHED).exists()


def clear_unpublished(path: Path) -> None:
    """Record that the current snapshot holds everything the working database holds."""
    (path / UNPUBLISHED).unlink(missing_ok=True)


# ---- small files


def _write_small_file(path: Path, text: str) -> None:
    def write(stream: Any) -> None:
        stream.write(text.encode())
        stream.flush()
        os.fsync(stream.fileno())  # on disk before it is renamed into place

    try:
        write_atomically(path, write)
        _sync_directory(path.parent)
    except UsageError as err:  # cannot create the temporary file: a read-only directory, say
        raise StoreError(str(err)) from None
    except OSError as err:
        raise StoreError(f"{path}: cannot write: {err.strerror or err}") from None


def _sync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
