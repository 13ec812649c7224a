"""Store.replace streams: the triples are read once, compared by digest, and written a chunk at a time
where nothing is removed (a first consolidation), or staged and applied in one update otherwise."""

from __future__ import annotations

from itertools import chain
from pathlib import Path

import pytest
from rdflib import Literal, URIRef

import kg.store.embedded as embedded
from kg.store import open_store

P = URIRef("http://example.org/p")
EVERYTHING = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"


def triples(names: range | list[int]) -> list[tuple]:
    return [(URIRef(f"http://example.org/s{n}"), P, Literal(f"value {n}")) for n in names]


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedded, "CHUNK", 4)


def contents(store) -> set[str]:
    return {str(s).rsplit("/", 1)[-1] for s, _, _ in store.graph}


def test_a_first_replacement_writes_in_chunks_as_they_come_and_runs_then_at_the_end(tmp_path: Path) -> None:
    with open_store(tmp_path / "s", create=True) as store:
        written_while_reading = []

        def lazily():
            for triple in triples(range(10)):
                written_while_reading.append(len(store))
                yield triple

        change = store.replace(EVERYTHING, chain(lazily(), triples([3])), then="INSERT DATA { <urn:x> <urn:y> 1 }")
        assert change == (0, 10)
        assert contents(store) == {f"s{n}" for n in range(10)} | {"urn:x"}
        assert written_while_reading[-1] >= 8  # two chunks of four were in the store before the last was read


def test_a_later_replacement_removes_and_adds_only_the_difference(tmp_path: Path) -> None:
    with open_store(tmp_path / "s", create=True) as store:
        store.replace(EVERYTHING, triples(range(10)))
        change = store.replace(EVERYTHING, triples(range(5, 17)))
        assert change == (5, 7)
        assert contents(store) == {f"s{n}" for n in range(5, 17)}
        assert store.replace(EVERYTHING, triples(range(5, 17))) == (0, 0)


def test_nothing_stays_staged(tmp_path: Path) -> None:
    with open_store(tmp_path / "s", create=True) as store:
        store.replace(EVERYTHING, triples(range(6)))
        store.replace(EVERYTHING, triples(range(3, 9)))
        assert [str(g) for g in store.ox.named_graphs()] == []
