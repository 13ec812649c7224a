"""The cache of derived data beside a store: read while the store is unchanged, recomputed after a write."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import entity

from kg.rdf import KG, paper_iri
from kg.store import open_store
from kg.store.cache import cached


def _count(store_path: Path, calls: list[int]) -> tuple[int, int]:
    def compute() -> int:
        calls.append(1)
        return len(store.query("SELECT ?p WHERE { ?p kg:mentions ?e }").rows)

    with open_store(store_path) as store:
        return cached(store, "mention-count", compute), cached(store, "mention-count", compute)


def test_a_value_is_computed_once_while_the_store_is_unchanged(relations_store: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(relations_store, store)
    calls: list[int] = []
    first = _count(store, calls)
    again = _count(store, calls)
    assert first == again == (13, 13)
    assert len(calls) == 1
    assert (store / "cache" / "mention-count.marshal").is_file()


def test_a_write_makes_the_value_stale(relations_store: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(relations_store, store)
    calls: list[int] = []
    assert _count(store, calls) == (13, 13)
    with open_store(store, write=True) as opened:
        opened.write([(paper_iri("p6"), KG.mentions, entity("qa"))])
    assert _count(store, calls) == (14, 14)
    assert len(calls) == 2


def test_a_damaged_entry_is_recomputed(relations_store: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(relations_store, store)
    calls: list[int] = []
    _count(store, calls)
    (store / "cache" / "mention-count.marshal").write_bytes(b"not a cache entry")
    assert _count(store, calls) == (13, 13)
    assert len(calls) == 2
