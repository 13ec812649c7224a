"""The server's query processes: a fixed pool of :class:`kg.store.worker.QueryWorker`, one query each at a time.

A query takes a worker for as long as it runs, waiting a short while for one when all are busy
(:meth:`WorkerPool.worker`); so at most ``size`` queries run at once, each in a process that its time
limit can end. A write takes every worker (:meth:`WorkerPool.all_workers`): it waits for the queries
running to end, turns new ones away meanwhile, and ends the workers' processes, which hold the store open
for reading; the next query starts a fresh process, which reads the store as the write left it.

Every method runs in the server's event loop (one thread); the workers' blocking calls run in threads.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from starlette.concurrency import run_in_threadpool

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
        self._writing = False
        self._writer = anyio.Lock()

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
            Every worker stayed busy, or a write is under way.
        """
        if self._writing:
            raise Busy("an update is being written to the store")
        with anyio.move_on_after(wait) as waiting:
            await self._free.acquire()
        if waiting.cancelled_caught:
            raise Busy(f"all {self.size} query slots are busy (--max-queries)")
        if self._writing:  # the slot came free for a write that started meanwhile
            self._free.release()
            raise Busy("an update is being written to the store")
        taken = self._idle.pop()
        try:
            yield taken
        finally:
            self._idle.append(taken)
            self._free.release()

    @asynccontextmanager
    async def all_workers(self, *, wait: float) -> AsyncIterator[None]:
        """Every worker, with their processes ended, for one write, waiting up to ``wait`` seconds for the
        queries running to end (new ones are turned away meanwhile); the workers start again after.

        Raises
        ------
        Busy
            Queries still ran after ``wait`` seconds.
        """
        async with self._writer:
            self._writing = True
            taken = 0
            try:
                with anyio.move_on_after(wait):
                    while taken < self.size:
                        await self._free.acquire()
                        taken += 1
                if taken < self.size:
                    raise Busy(f"queries were still running after {wait:g} s")
                await run_in_threadpool(self._stop_all)
                yield
            finally:
                self._writing = False
                for _ in range(taken):
                    self._free.release()
                if taken == self.size:
                    self.start()

    def _stop_all(self) -> None:
        for worker in self._every:
            worker.stop()

    def close(self) -> None:
        """End every worker's process, idle or not (a query running then ends as cancelled)."""
        self._stop_all()
