"""Writes of `kg serve`: one at a time (kg.serve.app), one that waits past --timeout for another getting 503;
each in a process of its own (kg.serve.storage), which says what became of it."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from kg.errors import StoreBusyError, StoreNotFoundError
from kg.serve.app import Refusal, _Service
from kg.serve.settings import Settings
from kg.serve.storage import write_in_child
from kg.store import open_store
from kg.store.queries import drop_graph


def test_an_update_waiting_past_the_time_limit_for_another_gets_503_with_retry_after(tmp_path: Path) -> None:
    service = _Service(Settings(store=str(tmp_path / "store"), timeout=0.3, allow_update=True, token="t" * 20))

    async def scenario() -> tuple[Refusal, float]:
        held, done = anyio.Event(), anyio.Event()

        async def other_update() -> None:
            async with service.writer:
                held.set()
                await done.wait()

        async with anyio.create_task_group() as group:
            group.start_soon(other_update)
            await held.wait()
            started = time.monotonic()
            try:
                await service.write("INSERT DATA { <urn:a> <urn:b> <urn:c> }")
            except Refusal as refusal:
                return refusal, time.monotonic() - started
            finally:
                done.set()
        raise AssertionError("the update ran beside the other")

    refusal, waited = anyio.run(scenario)
    assert (refusal.status, refusal.headers) == (503, {"Retry-After": "5"})
    assert refusal.message == "another update was still being written after 0.3 s"
    assert 0.3 <= waited < 2
    assert not (tmp_path / "store").exists()  # nothing was opened, let alone written


def test_a_write_in_its_own_process_reports_what_became_of_it(tmp_path: Path) -> None:
    location = str(tmp_path / "store")
    with pytest.raises(StoreNotFoundError):
        write_in_child(location, "INSERT DATA { <urn:x> <urn:y> <urn:z> }", timeout=60)
    open_store(location, create=True).close()
    graph = "http://example.org/g"
    assert write_in_child(location, f"INSERT DATA {{ GRAPH <{graph}> {{ <urn:a> <urn:b> 'c' }} }}", timeout=60)
    # a write to a graph that must exist: False, and nothing written, when it does not
    assert not write_in_child(
        location, drop_graph("http://example.org/none"), graph="http://example.org/none", timeout=60
    )
    with pytest.raises(SyntaxError):
        write_in_child(location, "INSERT DATA { <urn:a> }", timeout=60)
    with pytest.raises(RuntimeError):  # the exception the update raised, raised again here
        write_in_child(location, "DROP GRAPH <http://example.org/none>", timeout=60)
    with open_store(location, write=True), pytest.raises(StoreBusyError):
        write_in_child(location, "INSERT DATA { <urn:x> <urn:y> <urn:z> }", timeout=60)
    assert write_in_child(location, drop_graph(graph), graph=graph, timeout=60)
    with open_store(location) as store:
        assert len(store) == 0
