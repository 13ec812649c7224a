"""Extraction on a Dask cluster: ``kg build --scheduler tcp://HOST:8786``.

The documents to extract go to the cluster's workers in batches; each worker runs
:func:`kg.extract.pipeline.extract_batch` (the pipeline loaded once per worker process, one thread for
its numerical work) and returns the records; this process, the client, writes them to the store as
they come, then consolidates. At most a few batches per worker thread are in flight, so neither the
client nor the scheduler holds the corpus. The workers need this package and the spaCy pipeline
installed (``pip install 'abstract-kg[model,cluster]'``) and nothing else: they read no files and
never see the store.

The store is the same as a local build of the same documents gives: records are order-free, and the
consolidation that derives the graph from them runs here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from kg.errors import UsageError, WorkerError
from kg.extract.parallel import BATCH, IN_FLIGHT
from kg.extract.pipeline import extract_batch
from kg.iterate import chunked

if TYPE_CHECKING:
    from kg.extract.records import DocumentRecord
    from kg.ingest import Document


def check_address(address: str) -> None:
    """Raise :class:`kg.errors.UsageError` unless ``address`` is a scheduler's address as Dask reads
    it (``tcp://HOST:PORT``, or ``HOST:PORT``); or if dask.distributed is not installed."""
    try:
        import distributed  # noqa: F401  (the package itself: its submodules may be loaded already)
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError:
        raise UsageError(
            "--scheduler needs dask.distributed, which is not installed: pip install 'abstract-kg[cluster]'"
        ) from None
    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):
            parse_host_port(location)
    except ValueError as err:
        raise UsageError(f"--scheduler {address}: not a scheduler's address such as tcp://HOST:8786 ({err})") from None


def extract_on_cluster(
    documents: Iterable[Document],
    *,
    scheduler: str,
    model: str | None = None,
    profile: str = "default",
    batch_size: int = BATCH,
) -> Iterator[tuple[DocumentRecord, Document]]:
    """Each of ``documents`` with its record, extracted by the workers of the Dask scheduler at
    ``scheduler``, in the order batches finish."""
    check_address(scheduler)
    from distributed import Client, as_completed
    from distributed.scheduler import KilledWorker

    try:
        # How long to keep trying is Dask's setting (distributed.comm.timeouts.connect, 30 s by default;
        # $DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT sets it).
        client = Client(scheduler, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise WorkerError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    with client:
        threads = sum(client.nthreads().values())
        if threads == 0:
            raise WorkerError(f"the Dask scheduler at {scheduler} has no workers")
        finished = as_completed(loop=client.loop)
        batch_of = {}
        for batch in chunked(documents, batch_size):
            future = client.submit(extract_batch, batch, model=model, profile=profile, pure=False)
            batch_of[future.key] = batch
            finished.add(future)
            if finished.count() >= threads * IN_FLIGHT:
                yield from _paired(next(finished), batch_of, KilledWorker)
        for future in finished:
            yield from _paired(future, batch_of, KilledWorker)


def _paired(future, batch_of: dict, killed: type[Exception]) -> Iterator[tuple[DocumentRecord, Document]]:
    batch = batch_of.pop(future.key)
    try:
        records = future.result()
    except (OSError, TimeoutError, killed) as err:
        raise WorkerError(f"the Dask cluster failed: {err}") from None
    finally:
        future.release()
    yield from zip(records, batch)
