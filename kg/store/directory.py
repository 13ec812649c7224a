"""A store directory on disk: its marker, the lock of the one build that writes it, and the flag of
writes not yet published (the layout is in :mod:`kg.store.base`; the snapshots readers read are
:mod:`kg.store.snapshots`).

A build holds ``DIR/lock`` exclusively (``flock``), with its process id written in it, and
writes the working database ``DIR/oxigraph/``; readers never hold the lock (they look whether a
build holds it only to say why there is no graph yet). ``DIR/unpublished`` exists from a build's
first write until its snapshot is published, so that a build killed in between (its papers
consolidated, say, but not published) is published by the next one even when that one has
nothing to add.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp()) / "s"
>>> check_marker(folder, create=True)
3
>>> building_process(folder) is None
True
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
import json
import os
import time
from pathlib import Path
from typing import Any

from kg.errors import StoreBusyError, StoreError, StoreNotFoundError, UsageError
from kg.files import write_atomically

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


def hold(fd: int) -> int:
    """Keep ``fd`` (a descriptor holding a lock) from forked children."""
    _HELD.add(fd)
    return fd


def let_go(fd: int | None) -> None:
    """Close ``fd``, kept with :func:`hold`, releasing its lock."""
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
    write_small_file(path / MARKER, text)


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
        hold(self._fd)
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
        let_go(self._fd)
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


def write_small_file(path: Path, text: str) -> None:
    """Replace ``path`` by a file holding ``text``, on disk before it is renamed into place."""

    def write(stream: Any) -> None:
        stream.write(text.encode())
        stream.flush()
        os.fsync(stream.fileno())  # on disk before it is renamed into place

    try:
        write_atomically(path, write)
        sync_directory(path.parent)
    except UsageError as err:  # cannot create the temporary file: a read-only directory, say
        raise StoreError(str(err)) from None
    except OSError as err:
        raise StoreError(f"{path}: cannot write: {err.strerror or err}") from None


def sync_directory(path: Path) -> None:
    """Put a directory's entries (a rename, a new file) on disk."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
