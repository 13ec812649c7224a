"""Writes of `kg serve` one at a time (kg.serve.app): one that waits past --timeout for another gets 503."""

from __future__ import annotations

import time
from pathlib import Path

import anyio

from kg.serve.app import Refusal, _Service
from kg.serve.settings import Settings


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
