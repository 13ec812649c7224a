"""Derived data kept beside a store, in ``DIR/cache/``, for the snapshot it was derived from.

Each entry is one file, ``DIR/cache/NAME.marshal``: a length-prefixed header naming the
graph its snapshot holds (:attr:`kg.store.snapshots.Snapshot.key`), then the value. Readers
read published snapshots, which never change (:mod:`kg.store.snapshots`), so an entry is valid
while the graph read is the one it was derived from (a build that adds nothing may publish the
same graph again, under the same key); once a build publishes another graph the entry is stale,
is never read, and is replaced by the next reader. A store open for writing caches nothing.

Values are builtins only (numbers, strings, lists, tuples, dicts) stored with
``marshal``: loading one runs no code and is as fast as Python reads data.

Examples
--------
>>> import tempfile, os
>>> from rdflib import Literal
>>> from kg.rdf import KG, paper_iri
>>> from kg.store import open_store
>>> calls = []
>>> def count_papers(store):
...     calls.append(1)
...     return len(store.query("SELECT ?p WHERE { ?p kg:sourceLocation ?l }").rows)
>>> def read_twice(path):
...     with open_store(path) as store:
...         return [cached(store, "papers", lambda: count_papers(store)) for _ in range(2)]
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "s")
...     with open_store(path, create=True) as store:
...         store.write([(paper_iri("p1"), KG.sourceLocation, Literal("a.txt:1"))])
...     before = read_twice(path)
...     with open_store(path, write=True) as store:
...         store.write([(paper_iri("p2"), KG.sourceLocation, Literal("a.txt:3"))])
...     after = read_twice(path)
>>> before, after, len(calls)
([1, 1], [2, 2], 2)
"""

from __future__ import annotations

import gc
import marshal
import re
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypeVar

from kg.errors import UsageError
from kg.files import write_atomically

if TYPE_CHECKING:
    from kg.store import Store

FORMAT = 3
"""Bump when the layout of a cached value changes, so that old entries are ignored."""

T = TypeVar("T")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def cached(store: Store, name: str, compute: Callable[[], T]) -> T:
    """The value cached as ``name`` for the store's current state, computing it when there is none.

    ``compute`` must return builtins only. A store that is not a local directory (a
    SPARQL endpoint), or one open for writing, has no cache: ``compute`` runs every time.
    """
    from kg.store import EmbeddedStore

    if not _NAME.match(name):
        raise ValueError(f"cache entry names are letters, digits, '.', '_' and '-', not {name!r}")
    if not isinstance(store, EmbeddedStore) or store.snapshot is None:
        return compute()
    header = _header(store.snapshot.key)
    path = store.path / "cache" / f"{name}.marshal"
    found = _read(path, header)
    if found is not _MISSING:
        return found  # type: ignore[return-value]
    value = compute()
    _write(path, header, value)
    return value


_MISSING = object()


def _header(snapshot: str) -> dict:
    return {"format": FORMAT, "python": list(sys.version_info[:2]), "snapshot": snapshot}


def _read(path: Path, header: dict) -> object:
    # marshal.load on a file reads item by item through Python's I/O (seconds for a large
    # value); marshal.loads on bytes does not. The header, read first, is length-prefixed.
    try:
        with open(path, "rb") as stream:
            (size,) = struct.unpack(">I", stream.read(4))
            if marshal.loads(stream.read(size)) != header:
                return _MISSING
            payload = stream.read()
        # Millions of new containers would trigger the cyclic collector again and again (more
        # than doubling the time); the data has no cycles, so reference counting frees it anyway.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return marshal.loads(payload)
        finally:
            if collecting:
                gc.enable()
    except (OSError, EOFError, ValueError, TypeError, struct.error):
        return _MISSING


def _write(path: Path, header: dict, value: object) -> None:
    def write(stream: IO[bytes]) -> None:
        head = marshal.dumps(header)
        stream.write(struct.pack(">I", len(head)) + head)
        stream.write(marshal.dumps(value))

    try:
        path.parent.mkdir(exist_ok=True)
        write_atomically(path, write)
    except (OSError, UsageError):
        return  # a read-only store directory: answer without caching
