"""Extraction in worker processes (kg.extract.parallel): the same records as in one process, in input
order, with a bounded number of documents in flight, and one thread per process for numerical work."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from conftest import REPO, SEEDS

from kg.errors import UnknownModelError, WorkerError
from kg.eval.synth import seed_abstracts, synthetic_abstracts
from kg.extract import parallel
from kg.extract.pipeline import Extractor
from kg.ingest import Document, document_id


@pytest.fixture(scope="module")
def documents() -> list[Document]:
    texts = [a["text"] for a in synthetic_abstracts(seed_abstracts(SEEDS), 14, seed=5)]
    return [Document(document_id(text), text, f"synthetic.jsonl:{n + 1}") for n, text in enumerate(texts)]


def test_two_processes_give_the_records_of_one_in_input_order_with_few_in_flight(documents: list[Document]) -> None:
    alone = [record.to_json() for record in Extractor(workers=1).extract(documents)]
    pulled = 0

    def source():
        nonlocal pulled
        for document in documents:
            pulled += 1
            yield document

    batch = 2
    records = []
    for record, document in Extractor(workers=2, batch_size=batch).extract_with_documents(source()):
        assert record.id == document.id
        # Documents read but not yet returned: at most the batches in flight and the one being filled.
        assert pulled - len(records) <= (2 * parallel.IN_FLIGHT + 1) * batch
        records.append(record.to_json())
    assert records == alone


def test_a_worker_process_runs_numerical_libraries_on_one_thread() -> None:
    probe = (
        "from kg.extract.parallel import _start_worker\n"
        "import os\n"
        "_start_worker(os.getppid())\n"
        "import numpy, threadpoolctl\n"
        "print(sorted({pool['num_threads'] for pool in threadpoolctl.threadpool_info()}))\n"
    )
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, env=environment)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[1]"


def test_extraction_in_this_process_runs_on_one_thread() -> None:
    from threadpoolctl import threadpool_info

    with parallel.one_thread():
        assert {pool["num_threads"] for pool in threadpool_info()} == {1}


def test_a_missing_model_is_reported_before_any_process_starts() -> None:
    with pytest.raises(UnknownModelError, match="no_such_model"):
        Extractor(model="no_such_model", workers=2)


def test_a_worker_that_dies_is_one_clear_error() -> None:
    future: Future = Future()
    future.set_exception(BrokenProcessPool("terminated abruptly"))
    with pytest.raises(WorkerError, match="an extraction process stopped unexpectedly"):
        list(parallel._paired(future, []))


def test_worker_processes_end_when_their_parent_is_killed() -> None:
    script = (
        "import multiprocessing, time\n"
        "from kg.extract.parallel import in_processes\n"
        "from kg.ingest import Document\n"
        "documents = [Document(str(k), 'text', 'a.txt:1') for k in range(4)]\n"
        "results = in_processes(iter(documents), list, workers=2, batch_size=1)\n"
        "next(results)\n"
        "print(' '.join(str(p.pid) for p in multiprocessing.active_children()), flush=True)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        workers = [int(pid) for pid in parent.stdout.readline().split()]
    finally:
        parent.kill()
        parent.wait()
    assert len(workers) == 2
    for _ in range(100):
        if not any(Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid) for pid in workers):
            break
        time.sleep(0.1)
    assert [pid for pid in workers if Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid)] == []


def test_a_worker_process_whose_parent_died_while_it_started_ends() -> None:
    # The parent's id is the one it had when it started the pool: a worker started after its parent
    # was killed (its parent is then another process) ends at once instead of waiting for work.
    script = "import time\nfrom kg.extract.parallel import _start_worker\n_start_worker(1)\ntime.sleep(30)\n"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 1 and time.monotonic() - started < 20, done.stderr


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split("\n")[0]
    except (OSError, IndexError):
        return "zombie"
