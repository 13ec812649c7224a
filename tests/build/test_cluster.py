"""Extraction on a Dask cluster (kg build --scheduler): the workers return records, this process writes
the store, and the graph is the one a local build of the same sources gives."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SEEDS, run_kg, sorted_ntriples

from kg.build.builder import build
from kg.errors import UsageError
from kg.eval.synth import write_corpus

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("cluster") / "synthetic.jsonl", 36, seed=21, seeds_dir=SEEDS)


@pytest.fixture(scope="module")
def local_graph(source: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    store = tmp_path_factory.mktemp("local") / "store"
    done = run_kg("build", str(source), "--profile", "learned", "--store", str(store))
    assert done.returncode == 0, done.stderr
    return sorted_ntriples(store)


@pytest.mark.slow
def test_a_local_cluster_builds_the_graph_a_local_build_gives(
    source: Path, local_graph: list[str], tmp_path: Path
) -> None:
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        report = build([source], store=tmp_path / "store", profile="learned", scheduler=cluster.scheduler_address)
    assert report.new == 36
    assert sorted_ntriples(tmp_path / "store") == local_graph


@pytest.mark.slow
def test_a_scheduler_and_a_worker_started_apart_build_the_same_graph_and_shards(
    source: Path, local_graph: list[str], tmp_path: Path
) -> None:
    dask = str(Path(sys.executable).parent / "dask")
    address_file = tmp_path / "scheduler.json"
    started = [
        subprocess.Popen(
            [dask, "scheduler", "--scheduler-file", str(address_file), "--port", "0", "--no-dashboard"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        for _ in range(600):
            if address_file.is_file() and address_file.stat().st_size:
                break
            time.sleep(0.1)
        started.append(
            subprocess.Popen(
                [dask, "worker", "--scheduler-file", str(address_file), "--nthreads", "1", "--no-dashboard"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        from distributed import Client

        with Client(scheduler_file=str(address_file)) as client:
            client.wait_for_workers(1, timeout=120)
            address = client.scheduler.address
        shards = tmp_path / "shards"
        store = tmp_path / "store"
        done = run_kg(
            "build",
            str(source),
            "--profile",
            "learned",
            "--scheduler",
            address,
            "--shards",
            str(shards),
            "--store",
            str(store),
        )
        assert done.returncode == 0, done.stderr
    finally:
        for process in reversed(started):
            process.terminate()
            process.wait(timeout=60)
    assert sorted_ntriples(store) == local_graph
    assert sorted(line for path in shards.glob("shard-*.nq") for line in path.read_text().splitlines()) == local_graph


def test_a_scheduler_that_cannot_be_reached_is_one_line_and_status_1(source: Path, tmp_path: Path) -> None:
    done = run_kg(
        "build",
        str(source),
        "--scheduler",
        "tcp://127.0.0.1:9",
        "--store",
        str(tmp_path / "store"),
        env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"},
    )
    assert done.returncode == 1
    assert done.stderr.startswith("kg: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9: ")
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "store").exists()


def test_without_dask_the_scheduler_option_says_what_to_install(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(UsageError, match=r"pip install 'abstract-kg\[cluster\]'"):
        build([source], store=tmp_path / "store", scheduler="tcp://127.0.0.1:8786")
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize("address", ["nonsense", "tcp://host", "tcp://host:port"])
def test_a_scheduler_address_that_is_none_is_one_line_and_status_2_before_anything_runs(
    source: Path, tmp_path: Path, address: str
) -> None:
    done = run_kg("build", str(source), "--scheduler", address, "--store", str(tmp_path / "store"))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(
        f"kg: error: --scheduler {address}: not a scheduler's address such as tcp://HOST:8786 ("
    )
    assert len(done.stderr.splitlines()) == 1 and not (tmp_path / "store").exists()
