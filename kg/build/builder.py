"""`kg build`: sources -> documents -> records -> triples -> store, in two passes and a consolidation.

The first pass reads every source without touching the store: it validates every record
(so a bad record leaves the store exactly as it was) and counts what there is. The second
pass extracts only documents the store does not hold yet (before any NLP runs) and writes
each batch of papers, each with its extraction record, in one transaction: the papers
present in the store are the record of what has been built. Then one consolidation
(:mod:`kg.build.consolidate`) derives the entities, links and relations from every stored
record; it runs whenever some record awaits it, so a build stopped at any point is completed
by the next, and the graph depends on the set of documents only. Readers see none of it until
the build closes the store, which publishes it as a new snapshot (:mod:`kg.store.snapshots`).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kg.build.consolidate import consolidate
from kg.build.extraction_graph import awaiting_consolidation, record_quads
from kg.build.triples import paper_triples, source_triple
from kg.errors import InputError, KGError, StoreBusyError
from kg.ingest import Document, iter_source_files, read_documents
from kg.iterate import chunked
from kg.progress import Progress
from kg.store import EmbeddedStore, Quad, Triple, default_store_path, open_store
from kg.store.queries import PAPER_IDS

if TYPE_CHECKING:
    from kg.extract.records import DocumentRecord

WRITE_BATCH = 128  # documents per transaction
PENDING_LIMIT = 10_000  # source locations of known documents written at once
# Documents between flushes of the store's write buffers to disk. Oxigraph lets RocksDB buffer up to 128 MB
# per column family (a dozen of them) before it writes them out, so a build's memory would grow with the
# corpus up to 1.5 GB; flushed every 2048 documents (about 15 MB), it stays flat (measured: 95 MB instead
# of 855 MB after 60k documents' worth of writes).
FLUSH_EVERY = 2048


@dataclass
class BuildReport:
    """What a build read, skipped and added."""

    store: str
    records: int = 0  # abstracts read, duplicates included
    distinct: int = 0  # distinct documents among them
    new: int = 0  # documents extracted and stored by this build
    bad: list[InputError] = field(default_factory=list)
    triples_before: int = 0
    triples_after: int = 0
    seconds: float = 0.0

    @property
    def added(self) -> int:
        return self.triples_after - self.triples_before

    def summary(self) -> str:
        known = self.distinct - self.new
        parts = [
            f"{self.store}: {self.distinct} papers read ({self.new} new, {known} already stored, "
            f"{self.records - self.distinct} duplicate occurrences)",
            f"{self.added} triples added, {self.triples_after} in all, {self.seconds:.1f} s",
        ]
        return "; ".join(parts)


def build(
    sources: Iterable[str | Path],
    *,
    store: str | Path | None = None,
    model: str | None = None,
    profile: str = "default",
    workers: int | None = None,
    skip_bad: bool = False,
    wait: bool = False,
    progress: Progress | None = None,
    scheduler: str | None = None,
    shards: str | Path | None = None,
) -> BuildReport:
    """Build (or extend) the graph in ``store`` from ``sources``.

    Parameters
    ----------
    sources : iterable of paths
        Files (``.txt``, ``.jsonl``, ``.csv``, ``.tsv``) or folders of them.
    store : path, optional
        The store directory (default ``$KG_STORE`` or ``./.kg``); created when missing.
    model : str, optional
        The spaCy pipeline (see :func:`kg.extract.model.resolve_model`).
    profile : str
        The extraction profile, one of :data:`kg.extract.pipeline.PROFILES` (as ``kg extract --profile``).
    workers : int, optional
        Extraction processes, each with one thread for its numerical work; default one per core (but
        no more than the work needs). 1 extracts in this process.
    skip_bad : bool
        Skip bad records (reported in ``BuildReport.bad``) instead of stopping at the first.
    wait : bool
        If another build is writing the store, wait for it to finish instead of raising
        :class:`kg.errors.StoreBusyError`.
    progress : callable, optional
        Called as ``progress(done, total, entities=..., relations=...)`` while documents are extracted.
    scheduler : str, optional
        The address of a Dask scheduler (``tcp://HOST:8786``): extraction runs on its workers instead
        of local processes (:mod:`kg.build.cluster`); this process still writes the store.
    shards : path, optional
        Also write the finished graph to this folder as N-Quads shards, for a server store's bulk
        loader (:mod:`kg.build.shards`).

    Raises
    ------
    InputError
        The first bad record, unless ``skip_bad``; the store is then left untouched.
    StoreBusyError
        Another process is building the store (unless ``wait``).
    UsageError
        ``scheduler`` is no address, or ``shards`` cannot be a folder (said before anything is read).
    """
    started = time.perf_counter()
    if scheduler is not None:
        from kg.build.cluster import check_address

        check_address(scheduler)
    if shards is not None:
        from kg.build.shards import shards_folder

        shards_folder(Path(shards))
    sources = list(sources)
    files = list(iter_source_files(sources))
    seen, records, bad = _survey(files, skip_bad=skip_bad)
    location = Path(store or default_store_path())
    is_new = not location.exists()  # only a directory this build creates may be removed on failure
    try:
        with open_store(location, create=True, wait=wait) as target:
            assert isinstance(target, EmbeddedStore)
            is_new = is_new and not target.published  # another build may have made it meanwhile
            report = BuildReport(store=str(location), records=records, distinct=len(seen), bad=bad)
            report.triples_before = len(target)
            stored = _stored_ids(target)
            todo = [doc_id for doc_id in seen if doc_id not in stored]
            report.new = len(todo)
            _write(
                target,
                files,
                set(todo),
                model=model,
                profile=profile,
                workers=workers,
                progress=progress,
                scheduler=scheduler,
                shards=shards,
            )
            report.triples_after = len(target)
    except StoreBusyError:
        raise  # the store is another build's
    except KGError:
        # A store this build created and could not fill (no model, say) should not be left behind empty.
        if is_new:
            shutil.rmtree(location, ignore_errors=True)
        raise
    report.seconds = time.perf_counter() - started
    return report


def _survey(files: list[Path], *, skip_bad: bool) -> tuple[dict[str, None], int, list[InputError]]:
    bad: list[InputError] = []
    seen: dict[str, None] = {}  # ordered: the order documents are first read in
    records = 0
    for document in read_documents(files, on_error=bad.append if skip_bad else None):
        records += 1
        seen.setdefault(document.id)
    return seen, records, bad


def _stored_ids(store: EmbeddedStore) -> set[str]:
    result = store.query(PAPER_IDS)
    return {str(row[0]) for row in result.rows}


def _write(
    store: EmbeddedStore,
    files: list[Path],
    todo: set[str],
    *,
    model: str | None,
    profile: str,
    workers: int | None,
    progress: Progress | None,
    scheduler: str | None = None,
    shards: str | Path | None = None,
) -> None:
    if todo:
        _extract(
            store, files, todo, model=model, profile=profile, workers=workers, progress=progress, scheduler=scheduler
        )
    else:
        # Nothing to extract: record new source locations only, and never load a model.
        for chunk in chunked(read_documents(files, on_error=_ignore), PENDING_LIMIT):
            store.write(source_triple(d) for d in chunk)
    if awaiting_consolidation(store):
        consolidate(store)
    if shards is not None:
        from kg.build.shards import write_shards

        write_shards(store, Path(shards))


def _extract(
    store: EmbeddedStore,
    files: list[Path],
    todo: set[str],
    *,
    model: str | None,
    profile: str,
    workers: int | None,
    progress: Progress | None,
    scheduler: str | None = None,
) -> None:
    # Documents stream from the sources through the extraction (worker processes, or a Dask cluster) to
    # this process, the one writer, a batch of papers per transaction: what is held here is the ids of
    # the documents to extract and the few batches in flight, however large the corpus.
    pending: list[Triple] = []  # source locations of documents already stored or already queued
    fresh = _first_occurrences(read_documents(files, on_error=_ignore), todo, pending, store)
    if scheduler is not None:
        from kg.build.cluster import extract_on_cluster

        extracted = extract_on_cluster(fresh, scheduler=scheduler, model=model, profile=profile)
    else:
        from kg.extract.parallel import BATCH, default_workers
        from kg.extract.pipeline import Extractor

        # By default one process per core, but no more than there are batches of work for (a process
        # costs seconds to start); batches small enough that every process gets some.
        processes = workers or min(default_workers(), -(-len(todo) // (4 * BATCH)))
        size = max(1, min(BATCH, -(-len(todo) // (2 * processes))))
        extracted = Extractor(model=model, profile=profile, workers=processes, batch_size=size).extract_with_documents(
            fresh
        )
    tally = _Tally(len(todo), progress)
    batch: list[Triple | Quad] = []
    for done, (record, document) in enumerate(extracted, 1):
        batch += paper_triples(document)
        batch += record_quads(record)
        if done % WRITE_BATCH == 0:
            store.write(batch + pending)
            batch.clear()
            pending.clear()
        if done % FLUSH_EVERY == 0:
            store.flush()
        tally.add(record)
    store.write(batch + pending)


class _Tally:
    """What the build has extracted so far, for the progress bar: documents, entities (distinct names,
    before consolidation merges them) and relations."""

    def __init__(self, total: int, progress: Progress | None) -> None:
        self.total, self.progress = total, progress
        self.done = self.relations = 0
        self.entities: set[str] = set()

    def add(self, record: DocumentRecord) -> None:
        self.done += 1
        if self.progress is None:
            return
        self.entities.update(entity.id for entity in record.entities)
        self.relations += len(record.relations)
        self.progress(self.done, self.total, entities=len(self.entities), relations=self.relations)


def _first_occurrences(
    documents: Iterator[Document], todo: set[str], pending: list[Triple], store: EmbeddedStore
) -> Iterator[Document]:
    queued: set[str] = set()
    for document in documents:
        if document.id in todo and document.id not in queued:
            queued.add(document.id)
            yield document
        else:
            pending.append(source_triple(document))
            if len(pending) >= PENDING_LIMIT:  # a long run of known documents: write as it goes
                store.write(pending)
                pending.clear()


def _ignore(_: InputError) -> None:
    """Bad records were reported by the survey pass; the write pass passes over them."""
