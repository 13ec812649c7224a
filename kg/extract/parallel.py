"""Extraction over many processes: batches of documents go to worker processes, records come back.

Each worker process loads the pipeline once and runs its numerical libraries (BLAS under numpy and
spaCy, onnxruntime) on one thread, so ``N`` workers use ``N`` cores and one worker is the single-core
baseline: left to themselves, OpenBLAS and onnxruntime start a thread per core in every process, and on
a busy machine those threads wait on each other (measured here: 6.7 abstracts a second for the learned
profile in one process with default threads, 31.6 with one thread). At most a few batches per worker
are in flight, so memory stays bounded however large the corpus: the caller holds only the documents
of those batches.

The unit of work is :func:`kg.extract.pipeline.extract_batch`, the same for this module's process pool
and for a Dask cluster (:mod:`kg.build.cluster`): documents in, one
:class:`~kg.extract.records.DocumentRecord` per document out. Records are plain data, so they travel
between processes and machines as they are. This module knows nothing of the pipeline: it runs any
such task.

"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

from kg.errors import WorkerError
from kg.iterate import chunked

if TYPE_CHECKING:
    from concurrent.futures import Future

    from kg.ingest import Document

T = TypeVar("T")

BATCH = 32  # documents per task: large enough that sending them costs nothing, small enough to balance
IN_FLIGHT = 2  # batches per worker submitted ahead, so that no worker waits for the next
# The thread-count settings of the numerical libraries, read when each library loads.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


def default_workers() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@contextmanager
def one_thread() -> Iterator[None]:
    """numpy's BLAS (and any other loaded thread pool) on one thread for the duration, through
    threadpoolctl. (onnxruntime's sessions are made with one thread: :mod:`kg.extract.learned.onnx_encoder`.)"""
    import numpy  # noqa: F401  (loads the BLAS library, so that the limit applies to it)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def in_processes(
    documents: Iterable[Document],
    task: Callable[[list[Document]], list[T]],
    *,
    workers: int,
    batch_size: int = BATCH,
) -> Iterator[tuple[T, Document]]:
    """Each of ``documents`` with what ``task`` (run in one of ``workers`` processes on a batch of
    documents, a result per document) made of it, in input order.

    ``task`` must be picklable (a module's function, or a :func:`functools.partial` of one). The
    processes are started afresh (``spawn``), so they share nothing with this one but what is sent to
    them; they ignore Ctrl-C, which stops this process, and the pool with it.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(os.getpid(),),
    )
    pending: deque[tuple[Future, list[Document]]] = deque()
    try:
        for batch in chunked(documents, batch_size):
            pending.append((pool.submit(task, batch), batch))
            if len(pending) >= workers * IN_FLIGHT:
                yield from _paired(*pending.popleft())
        while pending:
            yield from _paired(*pending.popleft())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _paired(future: Future, batch: list[Document]) -> Iterator[tuple[T, Document]]:
    from concurrent.futures.process import BrokenProcessPool

    try:
        records = future.result()
    except BrokenProcessPool:
        raise WorkerError(
            "an extraction process stopped unexpectedly (out of memory? a script that calls kg's build with "
            "workers > 1 needs `if __name__ == '__main__':` around it)"
        ) from None
    yield from zip(records, batch)


def _start_worker(parent: int) -> None:
    """In each worker process, before anything numerical loads: one thread per library, Ctrl-C left to
    the parent (which shuts the pool down), and an end when the parent is gone (killed, it cannot shut
    the pool down, and the workers would wait for work forever). ``parent`` is the parent's process id
    as the parent read it: one killed while this process started is gone already."""
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
