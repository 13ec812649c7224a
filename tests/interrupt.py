"""Run `kg` stopped at one named point of a build: killed there (SIGKILL, no clean-up of any kind),
paused there, or failing there as on a full disk. The tests of crash safety, concurrency and store
damage run builds through it; the project's code has no hooks of its own for them.

    python tests/interrupt.py POINT ACTION [kg arguments ...]

POINT, in the order a build reaches them (the database calls are the writer's, counted from 1):

    extend:N      before the N-th write to the working database (each batch of papers is one; so is the
                  consolidation's, staged or not)
    extended:N    after it
    consolidate   all papers written, before the consolidation
    update        in the consolidation, its changes written (staged), before the update that applies them
    backup        publishing: before the checkpoint of the working database is made
    backed-up     publishing: the checkpoint made, before it is renamed into place
    pointer       publishing: the snapshot in place, before ``DIR/current`` names it
    published     publishing: ``DIR/current`` replaced, before the flag of unpublished writes is cleared
                  and older snapshots are removed

ACTION: ``kill`` (SIGKILL itself), ``pause`` (print ``paused`` on stdout, wait for a line on stdin,
then go on) or ``full`` (the database call fails with ENOSPC, as on a full disk).
"""

from __future__ import annotations

import errno
import os
import signal
import sys
from pathlib import Path

POINTS = ("extend", "extended", "consolidate", "update", "backup", "backed-up", "pointer", "published")
SCRIPT = Path(__file__).resolve()


def stop(action: str) -> None:
    """Do ``action`` here."""
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "pause":
        print("paused", flush=True)
        sys.stdin.readline()
    elif action == "full":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    else:
        raise SystemExit(f"interrupt.py: unknown action {action!r}")


class _Database:
    """The writer's pyoxigraph Store, with a stop before or after one of its calls."""

    def __init__(self, database: object, point: str, number: int, action: str) -> None:
        self._database, self._point, self._number, self._action = database, point, number, action
        self._calls = {"extend": 0, "update": 0, "backup": 0}

    def __getattr__(self, name: str) -> object:
        return getattr(self._database, name)

    def __contains__(self, quad: object) -> bool:
        return quad in self._database  # type: ignore[operator]

    def __len__(self) -> int:
        return len(self._database)  # type: ignore[arg-type]

    def _call(self, name: str, *args: object, **options: object) -> object:
        self._calls[name] += 1
        due = self._calls[name] == self._number
        before = {"extend": "extend", "update": "update", "backup": "backup"}[name]
        after = {"extend": "extended", "backup": "backed-up"}.get(name)
        if due and self._point == before:
            stop(self._action)
        done = getattr(self._database, name)(*args, **options)
        if due and self._point == after:
            stop(self._action)
        return done

    def extend(self, *args: object, **options: object) -> object:
        return self._call("extend", *args, **options)

    def update(self, *args: object, **options: object) -> object:
        return self._call("update", *args, **options)

    def backup(self, *args: object, **options: object) -> object:
        return self._call("backup", *args, **options)


def install(point: str, action: str) -> None:
    """Put the stop at ``point`` (``NAME`` or ``NAME:N``) into this process's kg."""
    from kg.build import builder
    from kg.store import embedded, snapshots

    name, _, count = point.partition(":")
    if name not in POINTS:
        raise SystemExit(f"interrupt.py: unknown point {point!r}; choose from {', '.join(POINTS)}")
    number = int(count or 1)
    if name in ("extend", "extended", "update", "backup", "backed-up"):
        open_database = embedded._open_database

        def open_stopping(directory: Path, *, read_only: bool) -> object:
            database = open_database(directory, read_only=read_only)
            return database if read_only else _Database(database, name, number, action)

        embedded._open_database = open_stopping
    elif name == "consolidate":
        consolidate = builder.consolidate

        def stopping_consolidate(store: object) -> object:
            stop(action)
            return consolidate(store)

        builder.consolidate = stopping_consolidate
    elif name == "pointer":
        write_small_file = snapshots.write_small_file

        def stopping_write(path: Path, text: str) -> None:
            if path.name == snapshots.POINTER:
                stop(action)
            write_small_file(path, text)

        snapshots.write_small_file = stopping_write
    elif name == "published":
        clear_unpublished = embedded.clear_unpublished

        def stopping_clear(path: Path) -> None:
            stop(action)
            clear_unpublished(path)

        embedded.clear_unpublished = stopping_clear


def command(point: str, action: str, *arguments: str) -> list[str]:
    """The command line that runs ``kg arguments`` stopped at ``point``."""
    return [sys.executable, str(SCRIPT), point, action, *arguments]


if __name__ == "__main__":
    install(sys.argv[1], sys.argv[2])
    from kg.cli.main import main

    sys.exit(main(sys.argv[3:]))
