"""The server's query processes: a fixed pool of :class:`kg.store.worker.QueryWorker`, one query each at a time.

A query takes a worker for as long as it runs, waiting a short while for one when all are busy
(:meth:`WorkerPool.worker`); so at most ``size`` queries run at once, each in a process that its time
limit can end. A worker reads the store's published snapshot, moving to a newer one before each query,
so a write (:mod:`kg.serve.storage`) neither waits for the queries nor stops them.

Every method runs in the server's event loop (one thread); the workers' blocking calls run in threads.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from kg.store.worker import QueryWorker

__all__ = ["Busy", "WorkerPool"]


class Busy(Exception):
    """No worker came free in time; the message says why, for the client."""


class WorkerPool:
    """``size`` query workers over the store at ``location``."""

    def __init__(self, location: str | os.PathLike[str], *, size: int) -> None:
        self.location = str(location)
        self.size = size
        self._every = tuple(QueryWorker(self.location) for _ in range(size))
        self._idle = list(self._every)
        self._free = anyio.Semaphore(size)

    def start(self) -> None:
        """Start every worker's process (each opens the store while the server goes on)."""
        for worker in self._every:
            worker.start()

    @asynccontextmanager
    async def worker(self, *, wait: float) -> AsyncIterator[QueryWorker]:
        """A worker for one query, waiting up to ``wait`` seconds for one to come free.

        Raises
        ------
        Busy
            Every worker stayed busy.
        """
        with anyio.move_on_after(wait) as waiting:
            await self._free.acquire()
        if waiting.cancelled_caught:
            raise Busy(f"all {self.size} query slots are busy (--max-queries)")
        taken = self._idle.pop()
        try:
            yield taken
        finally:
            self._idle.append(taken)
            self._free.release()

    def close(self) -> None:
        """End every worker's process, idle or not (a query running then ends as cancelled)."""
        for worker in self._every:
            worker.stop()
