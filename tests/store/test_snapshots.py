"""Readers read published snapshots: a writer never waits for them, they see its writes only once it
has published them, a long-lived reader moves on with refresh(), and only one writer writes at a time."""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import pytest
from rdflib import Literal

from kg.errors import StoreBusyError, StoreError
from kg.rdf import KG, paper_iri
from kg.store import EmbeddedStore, open_store
from kg.store.cache import cached
from kg.store.directory import FORMAT_VERSION, MARKER, POINTER, SNAPSHOTS, UNPUBLISHED, WORKING

PAPERS = "SELECT (COUNT(?p) AS ?n) WHERE { ?p kg:sourceLocation ?where }"


def paper(number: int) -> tuple:
    return (paper_iri(f"p{number}"), KG.sourceLocation, Literal(f"a.txt:{number}"))


def papers(store) -> int:
    return int(store.query(PAPERS).rows[0][0])


def snapshots(path: Path) -> list[str]:
    """The snapshots of the store ``path``, checking that each has its record and nothing else is there."""
    names = sorted(entry.name for entry in (path / SNAPSHOTS).iterdir() if entry.is_dir())
    assert sorted(entry.name for entry in (path / SNAPSHOTS).iterdir()) == sorted(
        [*names, *(f"{n}.json" for n in names)]
    )
    return names


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """A store holding one paper, published as snapshot 1."""
    with open_store(tmp_path / "s", create=True) as store:
        store.write([paper(1)])
    return tmp_path / "s"


def test_a_writer_publishes_a_snapshot_when_it_closes(path: Path) -> None:
    assert snapshots(path) == ["1"] and (path / POINTER).read_text() == "1\n"
    assert not (path / UNPUBLISHED).exists()
    assert json.loads((path / MARKER).read_text()) == {"format": FORMAT_VERSION}
    with open_store(path) as reader:
        assert isinstance(reader, EmbeddedStore) and reader.snapshot.name == "1"
        assert papers(reader) == 1


def test_a_reader_reads_its_snapshot_while_a_writer_writes_and_moves_on_when_asked(path: Path) -> None:
    with open_store(path) as reader:
        assert papers(reader) == 1
        with open_store(path, write=True) as writer:  # the reader does not stop it
            writer.write([paper(2)])
            assert papers(writer) == 2 and papers(reader) == 1
            assert reader.refresh() is False  # nothing published yet
        assert papers(reader) == 1 and snapshots(path) == ["1", "2"]  # kept: the reader holds it
        assert reader.refresh() is True
        assert papers(reader) == 2 and reader.snapshot.name == "2"
        assert len(reader.graph) == 2  # the rdflib Graph follows
        assert reader.refresh() is False
    with open_store(path, write=True):  # writes nothing, publishes nothing, but removes what nobody reads
        pass
    assert snapshots(path) == ["2"]


def test_a_snapshot_still_read_is_left_and_removed_by_a_later_writer(path: Path) -> None:
    reader = open_store(path)
    with open_store(path, write=True) as writer:
        writer.write([paper(2)])
    with open_store(path, write=True) as writer:
        writer.write([paper(3)])
    assert snapshots(path) == ["1", "3"]  # 2 was read by nobody
    assert papers(reader) == 1
    reader.close()
    with open_store(path, write=True) as writer:
        writer.write([paper(4)])
    assert snapshots(path) == ["4"]


def test_a_second_writer_is_refused_at_once_or_waits(path: Path) -> None:
    first = open_store(path, write=True)
    with pytest.raises(StoreBusyError, match=f"store {path} is being built by process {os.getpid()}$"):
        open_store(path, write=True)
    assert StoreBusyError.exit_status == 1
    (path / "lock").write_text("")  # a pid not recorded (yet)
    with pytest.raises(StoreBusyError, match="being built by another process$"):
        open_store(path, write=True)
    opened = threading.Event()

    def wait_and_write() -> None:
        with open_store(path, write=True, wait=True) as second:
            opened.set()
            second.write([paper(3)])

    waiting = threading.Thread(target=wait_and_write)
    waiting.start()
    assert not opened.wait(0.5) and waiting.is_alive()
    first.write([paper(2)])
    first.close()
    waiting.join(10)
    assert opened.is_set()
    with open_store(path) as reader:
        assert papers(reader) == 3


def test_readers_say_when_there_is_no_graph_yet(tmp_path: Path) -> None:
    path = tmp_path / "s"
    writer = open_store(path, create=True)
    writer.write([paper(1)])
    with pytest.raises(StoreError, match=f"^{path}: no graph yet; a build is under way \\(process {os.getpid()}\\)$"):
        open_store(path)
    with pytest.raises(RuntimeError), writer:  # stopped by an error: nothing is published
        raise RuntimeError
    with pytest.raises(StoreError, match="no graph yet; the build that began it stopped before it finished"):
        open_store(path)


def test_what_a_stopped_writer_wrote_is_published_by_the_next_even_with_nothing_to_add(path: Path) -> None:
    with pytest.raises(RuntimeError), open_store(path, write=True) as writer:
        writer.write([paper(2)])
        raise RuntimeError
    assert (path / UNPUBLISHED).exists() and snapshots(path) == ["1"]
    with open_store(path) as reader:
        assert papers(reader) == 1
    with open_store(path, write=True) as writer:
        writer.write([paper(2)])  # already there: nothing new
    assert snapshots(path) == ["2"] and not (path / UNPUBLISHED).exists()
    with open_store(path) as reader:
        assert papers(reader) == 2


def test_writing_only_what_is_there_changes_no_graph_and_the_cache_stays(path: Path) -> None:
    calls: list[int] = []

    def count() -> int:
        with open_store(path) as reader:
            return cached(reader, "papers", lambda: calls.append(1) or papers(reader))

    assert count() == 1
    for _ in range(2):
        with open_store(path, write=True) as writer:
            writer.write([paper(1)])
        assert count() == 1 and len(calls) == 1
    with open_store(path, write=True) as writer:
        writer.write([paper(2)])
    assert count() == 2 and len(calls) == 2


def test_a_reader_moves_to_the_same_graph_published_again_and_calls_it_no_change(path: Path) -> None:
    with open_store(path) as reader:
        for _ in range(2):
            with open_store(path, write=True) as writer:
                writer.write([paper(1)])
                writer.publish(changed=False)
            assert reader.refresh() is False  # the same graph: what the reader derived from it holds
            assert reader.snapshot.name == (path / POINTER).read_text().strip()  # the old one can go
        assert papers(reader) == 1


def test_the_snapshot_shares_its_tables_with_the_database_after_every_writer(path: Path) -> None:
    # Opening the database compacts its tables; a snapshot left with its own copies would double the store.
    def inodes(folder: Path) -> set[int]:
        return {table.stat().st_ino for table in folder.glob("*.sst")}

    for _ in range(3):
        with open_store(path, write=True):
            pass
        (current,) = snapshots(path)
        assert inodes(path / SNAPSHOTS / current) <= inodes(path / WORKING)


def test_a_writer_caches_nothing(path: Path) -> None:
    with open_store(path, write=True) as writer:
        assert [cached(writer, "papers", lambda: papers(writer)) for _ in range(2)] == [1, 1]
    assert not (path / "cache").exists()


def _format_2_store(path: Path) -> None:
    import pyoxigraph as ox

    path.mkdir()
    database = ox.Store(str(path / WORKING))
    database.add(ox.Quad(ox.NamedNode(paper_iri("p1")), ox.NamedNode(str(KG.sourceLocation)), ox.Literal("a.txt:1")))
    database.flush()
    del database
    (path / MARKER).write_text('{"format": 2}\n')
    (path / "lock").write_text("")


def test_a_format_2_store_is_upgraded_when_first_read(tmp_path: Path) -> None:
    path = tmp_path / "old"
    _format_2_store(path)
    with open_store(path) as reader:
        assert papers(reader) == 1
    assert json.loads((path / MARKER).read_text()) == {"format": FORMAT_VERSION}
    assert len(snapshots(path)) == 1


def test_a_format_2_store_is_upgraded_by_a_build(tmp_path: Path) -> None:
    path = tmp_path / "old"
    _format_2_store(path)
    with open_store(path, write=True) as writer:
        with open_store(path) as reader:  # readers read the old graph during the build
            assert papers(reader) == 1
        writer.write([paper(2)])
    with open_store(path) as reader:
        assert papers(reader) == 2


@pytest.mark.parametrize(
    "version,message",
    [(1, "store format 1, this kg reads format 3; rebuild it"), (4, "store format 4 is newer than this kg reads (3)")],
)
def test_other_formats_are_refused_and_left_alone(tmp_path: Path, version: int, message: str) -> None:
    path = tmp_path / "other"
    path.mkdir()
    (path / MARKER).write_text(json.dumps({"format": version}))
    for write in (False, True):
        with pytest.raises(StoreError, match=re.escape(message)) as raised:
            open_store(path, write=write)
        assert raised.value.exit_status == 1
    assert [entry.name for entry in path.iterdir()] == [MARKER]
