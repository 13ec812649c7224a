"""`make bench`, at scale: ``kg build`` over synthetic corpora of growing size, and queries over the largest.

    python -m kg.eval.bench_scale [--sizes 1000,10000,50000] [--compare 2000] [--profile learned]
                                  [--json FILE] [--keep DIR [--resume]]

Every figure comes from whole ``kg`` processes, as a user runs them, over corpora made by
:mod:`kg.eval.synth` (the first abstracts of one seed, so each corpus is the start of the next):

* for each size, a first build with default settings (one extraction process per core): time, CPU
  time of all its processes (what an idle machine would turn into wall time), documents a second, peak
  memory of all its processes together (the sum of their proportional set sizes, sampled every 0.2 s,
  so that pages the processes share count once), store size on disk; then a build again over the same
  sources (nothing to do: target under 5 % of the first);
* on ``--compare`` abstracts, ``--workers 1`` against ``--workers 2``, interleaved twice in this run, the
  best time of each (throughput ratio, target at least 1.6, and the same sorted N-Triples);
* on the largest store, with the projection cache warm: ``kg describe``, ``kg neighbors``, ``kg related``
  and ``kg path`` for the most mentioned concepts and for a typical one (target under 1 s each), and
  ``kg query`` with two-hop aggregates (entity pairs by the number of papers that mention both:
  methods with datasets, and every pair) against the same queries in rdflib's in-memory store over the
  same triples, each a whole process (target: kg at most a twentieth of rdflib's time; rdflib is
  stopped once it has taken 20 times as long, which settles it);
* the client's own share of a build (writing papers and records, then consolidating; what one process
  does for a whole Dask cluster), from the records the largest build stored;
* a projection for a million abstracts from the measured cost per document and memory growth.

The figures are printed and written to ``--json`` (default ``bench-scale.json``); exit status 1 if a
target is missed. The machine is shared and noisy: ratios are measured within one run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from kg.eval.synth import default_seeds_dir, write_corpus

KG = str(Path(sys.executable).parent / "kg")
# Two-hop aggregates: entity pairs by the number of papers that mention both. The first asks which
# datasets go with which methods; the second counts every pair (2.25M paper-pair rows at 10k papers).
TWO_HOP = {
    "methods and datasets": """SELECT ?method ?dataset (COUNT(?paper) AS ?papers) WHERE {
  ?paper kg:mentions ?method , ?dataset .
  ?method a kg:Method . ?dataset a kg:Dataset
} GROUP BY ?method ?dataset ORDER BY DESC(?papers) ?method ?dataset LIMIT 20""",
    "all pairs": """SELECT ?a ?b (COUNT(?paper) AS ?papers) WHERE {
  ?paper kg:mentions ?a , ?b .
  FILTER (STR(?a) < STR(?b))
} GROUP BY ?a ?b ORDER BY DESC(?papers) ?a ?b LIMIT 20""",
}
EXPLORATION = tuple(
    f"{command}{kind}" for kind in ("", "_typical") for command in ("describe", "neighbors", "related", "path")
)
MILLION = 1_000_000
CLUSTER_WORKERS = 16


def tree_memory(pid: int) -> int:
    """Bytes the process ``pid`` and its descendants hold: the sum of their proportional set sizes
    (shared pages divided among the processes sharing them), or of their resident sizes where the
    proportional ones cannot be read."""
    total = 0
    for process in _descendants(pid):
        try:
            text = Path(f"/proc/{process}/smaps_rollup").read_text()
            field = "Pss:"
        except OSError:
            try:
                text = Path(f"/proc/{process}/status").read_text()
                field = "VmRSS:"
            except OSError:
                continue
        for line in text.splitlines():
            if line.startswith(field):
                total += int(line.split()[1]) * 1024
                break
    return total


def _descendants(pid: int) -> list[int]:
    found, queue = [], [pid]
    while queue:
        process = queue.pop()
        found.append(process)
        try:
            for task in os.listdir(f"/proc/{process}/task"):
                children = Path(f"/proc/{process}/task/{task}/children").read_text().split()
                queue.extend(int(child) for child in children)
        except OSError:
            continue
    return found


class Run:
    """A whole ``kg`` process, timed: wall time, CPU time of it and every process it started (their
    user and system time, as the kernel reports it when the process is reaped), and the peak memory
    of its process tree."""

    def __init__(self, *args: str, timeout: float | None = None, env: dict | None = None) -> None:
        environment = {k: v for k, v in os.environ.items() if k != "KG_STORE"}
        environment.update(env or {})
        started = time.perf_counter()
        process = subprocess.Popen(
            [KG, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment
        )
        self.peak_tree = 0
        output: dict[str, str] = {}
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.2):
                self.peak_tree = max(self.peak_tree, tree_memory(process.pid))

        def read(name: str, stream) -> None:
            output[name] = stream.read()

        threads = [
            threading.Thread(target=sample, daemon=True),
            threading.Thread(target=read, args=("stdout", process.stdout), daemon=True),
            threading.Thread(target=read, args=("stderr", process.stderr), daemon=True),
        ]
        for thread in threads:
            thread.start()
        killer = threading.Timer(timeout, process.kill) if timeout else None
        if killer:
            killer.start()
        _, status, usage = os.wait4(process.pid, 0)  # the tree's CPU time comes with the exit status
        process.returncode = os.waitstatus_to_exitcode(status)
        self.timed_out = bool(killer) and not killer.is_alive() and process.returncode < 0
        if killer:
            killer.cancel()
        done.set()
        for thread in threads:
            thread.join()
        self.stdout, self.stderr = output.get("stdout", ""), output.get("stderr", "")
        self.seconds = time.perf_counter() - started
        self.cpu_seconds = usage.ru_utime + usage.ru_stime
        self.returncode = process.returncode
        if self.returncode != 0 and not self.timed_out:
            raise RuntimeError(f"kg {' '.join(args)} failed ({self.returncode}): {self.stderr.strip()}")


def directory_size(path: Path) -> int:
    """Bytes on disk under ``path``, a file linked from several places (a snapshot's tables are the
    database's) counted once, as ``du`` counts it."""
    sizes = {}
    for file in path.rglob("*"):
        if file.is_file():
            status = file.stat()
            sizes[status.st_dev, status.st_ino] = status.st_size
    return sum(sizes.values())


def sorted_ntriples_digest(store: Path) -> str:
    done = Run("export", "--format", "nt", "--store", str(store))
    return hashlib.sha256("\n".join(sorted(done.stdout.splitlines())).encode()).hexdigest()


def bench_builds(sizes: list[int], work: Path, *, seed: int, profile: str, seeds: Path) -> list[dict]:
    corpus = write_corpus(work / "corpus.jsonl", max(sizes), seed=seed, seeds_dir=seeds)
    lines = corpus.read_text().splitlines(keepends=True)
    rows = []
    for size in sizes:
        source = work / f"corpus-{size}.jsonl"
        source.write_text("".join(lines[:size]))
        store = work / f"store-{size}"
        shutil.rmtree(store, ignore_errors=True)
        first = Run("build", str(source), "--store", str(store), "--profile", profile, "--quiet")
        again = Run("build", str(source), "--store", str(store), "--profile", profile, "--quiet")
        row = {
            "documents": size,
            "seconds": round(first.seconds, 2),
            "cpu_seconds": round(first.cpu_seconds, 1),
            "documents_per_second": round(size / first.seconds, 2),
            "peak_memory_mb": round(first.peak_tree / 2**20),
            "store_mb": round(directory_size(store) / 2**20, 1),
            "summary": first.stderr.strip().splitlines()[-1],
            "rebuild_seconds": round(again.seconds, 2),
            "rebuild_share": round(again.seconds / first.seconds, 4),
        }
        rows.append(row)
        print(
            f"  {size:>7} abstracts: {row['seconds']:8.1f} s ({row['cpu_seconds']:.0f} s of CPU)  "
            f"{row['documents_per_second']:6.1f} abstracts/s  "
            f"peak {row['peak_memory_mb']:5d} MB  store {row['store_mb']:7.1f} MB  "
            f"rebuild {row['rebuild_seconds']:.1f} s ({100 * row['rebuild_share']:.1f} %)",
            flush=True,
        )
    return rows


def bench_workers(size: int, work: Path, *, seed: int, profile: str, seeds: Path, rounds: int = 2) -> dict:
    """``--workers 1`` against ``--workers 2``, interleaved ``rounds`` times, the best time of each kept:
    other work on the machine only ever slows a run down, so the fastest is the nearest to the cost."""
    source = write_corpus(work / f"compare-{size}.jsonl", size, seed=seed, seeds_dir=seeds)
    runs: dict[int, list[Run]] = {1: [], 2: []}
    digests = {}
    for _ in range(rounds):
        for workers in (1, 2):
            store = work / f"compare-store-{workers}"
            shutil.rmtree(store, ignore_errors=True)
            args = ("build", str(source), "--store", str(store), "--profile", profile, "--quiet")
            runs[workers].append(Run(*args, "--workers", str(workers)))
            digests[workers] = sorted_ntriples_digest(store)
            shutil.rmtree(store, ignore_errors=True)
    best = {workers: min(done, key=lambda run: run.seconds) for workers, done in runs.items()}
    ratio = best[1].seconds / best[2].seconds
    row = {
        "documents": size,
        "rounds": rounds,
        "workers_1_seconds": round(best[1].seconds, 2),
        "workers_2_seconds": round(best[2].seconds, 2),
        "workers_1_all_seconds": [round(run.seconds, 2) for run in runs[1]],
        "workers_2_all_seconds": [round(run.seconds, 2) for run in runs[2]],
        "workers_1_cpu_seconds": round(best[1].cpu_seconds, 1),
        "workers_2_cpu_seconds": round(best[2].cpu_seconds, 1),
        "workers_1_peak_memory_mb": round(best[1].peak_tree / 2**20),
        "workers_2_peak_memory_mb": round(best[2].peak_tree / 2**20),
        "throughput_ratio": round(ratio, 3),
        "same_graph": digests[1] == digests[2],
    }
    print(
        f"  {size} abstracts, best of {rounds}: --workers 1 {row['workers_1_seconds']:.1f} s, --workers 2 "
        f"{row['workers_2_seconds']:.1f} s: {ratio:.2f} times the throughput (CPU {row['workers_1_cpu_seconds']:.0f} s "
        f"and {row['workers_2_cpu_seconds']:.0f} s; all runs {row['workers_1_all_seconds']} and "
        f"{row['workers_2_all_seconds']}); same graph: {row['same_graph']}",
        flush=True,
    )
    return row


def bench_queries(store: Path, work: Path) -> dict:
    """Exploration commands and the two-hop aggregate over ``store``."""
    by_papers = Run(
        "query",
        "SELECT ?label (COUNT(?paper) AS ?n) WHERE { ?paper kg:mentions ?e . ?e rdfs:label ?label } "
        "GROUP BY ?label ORDER BY DESC(?n) ?label",
        "--format",
        "tsv",
        "--store",
        str(store),
    )
    names = [line.split("\t")[0].strip('"') for line in by_papers.stdout.splitlines()[1:]]
    # The most mentioned concepts (the slowest to explore: their links reach most of the graph), and a
    # typical one (the median by papers).
    hub, second, third, typical = names[0], names[1], names[2], names[len(names) // 2]
    commands = {
        "describe": ("describe", hub),
        "neighbors": ("neighbors", hub),
        "related": ("related", hub),
        "path": ("path", second, third),
        "describe_typical": ("describe", typical),
        "neighbors_typical": ("neighbors", typical),
        "related_typical": ("related", typical),
        "path_typical": ("path", typical, hub),
    }
    assert set(commands) == set(EXPLORATION)
    figures: dict[str, object] = {"most_mentioned": [hub, second, third], "typical": typical}
    for name, args in commands.items():
        Run(*args, "--store", str(store))  # warm: builds the projection cache
        seconds = [Run(*args, "--store", str(store)).seconds for _ in range(3)]
        figures[f"kg_{name}_seconds"] = round(statistics.median(seconds), 3)
        print(f"  kg {' '.join(args)}: {figures[f'kg_{name}_seconds']:.2f} s (median of 3, cache warm)", flush=True)
    triples = work / "graph.nt"
    triples.write_text(Run("export", "--format", "nt", "--store", str(store)).stdout)
    figures["triples"] = sum(1 for _ in triples.open())
    for name, sparql in TWO_HOP.items():
        figures[f"two_hop_{name}"] = _against_rdflib(store, triples, work, name, sparql, figures["triples"])
    triples.unlink()
    return figures


def _against_rdflib(store: Path, triples: Path, work: Path, name: str, sparql: str, count: int) -> dict:
    """``kg query`` and rdflib's in-memory store (loading the same triples first) on one query, each a
    whole process; rdflib is stopped once it has taken 20 times as long as kg."""
    query_file = work / f"two-hop-{name}.rq"
    query_file.write_text(sparql + "\n")
    ours = Run("query", "-f", str(query_file), "--format", "tsv", "--store", str(store))
    limit = max(20 * ours.seconds, 1.0)
    started = time.perf_counter()
    theirs = subprocess.run(
        [sys.executable, "-m", "kg.eval.bench_scale", "--rdflib", str(triples), str(query_file)],
        capture_output=True,
        text=True,
        env={**os.environ, "KG_BENCH_RDFLIB_TIMEOUT": str(limit)},
    )
    rdflib_seconds = time.perf_counter() - started
    stopped = theirs.returncode == 124
    if theirs.returncode not in (0, 124):
        raise RuntimeError(f"rdflib run failed: {theirs.stderr.strip()}")
    row = {
        "kg_query_seconds": round(ours.seconds, 3),
        "rdflib_seconds": round(rdflib_seconds, 3),
        "rdflib_stopped_at_limit": stopped,
        "rdflib_over_kg": round(rdflib_seconds / ours.seconds, 1),
        "same_answer": None if stopped else _rows(theirs.stdout) == _rows(ours.stdout),
    }
    more = "more than " if stopped else ""
    same = "" if stopped else f"; same answer: {row['same_answer']}"
    print(
        f"  two-hop aggregate ({name}) over {count} triples: kg query {ours.seconds:.2f} s, rdflib "
        f"{more}{rdflib_seconds:.1f} s ({more}{row['rdflib_over_kg']} times){same}",
        flush=True,
    )
    return row


def _rows(text: str) -> list[tuple[str, ...]]:
    return [tuple(line.split("\t")) for line in text.strip().splitlines()[1:]]


def rdflib_query(triples: Path, query_file: Path) -> int:
    """In this process: load ``triples`` into rdflib's in-memory store and run the query, printing TSV;
    exit status 124 when ``$KG_BENCH_RDFLIB_TIMEOUT`` seconds pass first."""
    import signal

    limit = float(os.environ.get("KG_BENCH_RDFLIB_TIMEOUT", "0"))
    if limit:
        signal.signal(signal.SIGALRM, lambda *_: os._exit(124))
        signal.setitimer(signal.ITIMER_REAL, limit)
    from rdflib import Graph, URIRef

    from kg.namespace import PREFIXES

    graph = Graph()
    graph.parse(str(triples), format="nt")
    result = graph.query(query_file.read_text(), initNs=dict(PREFIXES))
    print("\t".join(f"?{v}" for v in result.vars))
    for row in result:
        print("\t".join(term.n3() if isinstance(term, URIRef) else str(term) for term in row))
    return 0


def bench_client(store: Path, source: Path) -> dict:
    """The client's share of a build, in this process: the papers and records of ``store`` written
    to a new store, then consolidated (what one process does while workers extract)."""
    from kg.build.consolidate import consolidate
    from kg.build.extraction_graph import record_quads, stored_records
    from kg.build.triples import paper_triples
    from kg.ingest import read_documents
    from kg.rdf import paper_iri
    from kg.store import open_store

    with open_store(store) as built:
        records = {paper: record for paper, record in stored_records(built)}
    documents = {str(paper_iri(d.id)): d for d in read_documents([source])}
    target = store.parent / f"{store.name}-client"
    shutil.rmtree(target, ignore_errors=True)
    started = time.perf_counter()
    with open_store(target, create=True) as fresh:
        batch: list = []
        for paper in records:
            batch += paper_triples(documents[paper]) + record_quads(records[paper])
            if len(batch) > 10_000:
                fresh.write(batch)
                batch = []
        fresh.write(batch)
        written = time.perf_counter() - started
        consolidate(fresh)
    seconds = time.perf_counter() - started
    shutil.rmtree(target, ignore_errors=True)
    row = {
        "documents": len(records),
        "write_seconds": round(written, 2),
        "consolidate_seconds": round(seconds - written, 2),
        "client_documents_per_second": round(len(records) / seconds, 1),
    }
    print(
        f"  client alone, {len(records)} abstracts: write {written:.1f} s, consolidate {seconds - written:.1f} s: "
        f"{row['client_documents_per_second']} abstracts/s",
        flush=True,
    )
    return row


def projection(builds: list[dict], workers: dict, client: dict) -> dict:
    """A million abstracts, from the measured figures: the CPU time a document costs (all processes of the
    largest build, writing and consolidating included), the memory growth per document between the two
    largest builds, the store's size per document, and the client's own rate."""
    largest, cores = builds[-1], os.cpu_count() or 1
    cpu_per_document = largest["cpu_seconds"] / largest["documents"]
    before = builds[-2] if len(builds) > 1 else {"documents": 0, "peak_memory_mb": largest["peak_memory_mb"]}
    slope = (largest["peak_memory_mb"] - before["peak_memory_mb"]) / (largest["documents"] - before["documents"])
    # One worker's extraction rate, from the one-process build (which also wrote and consolidated).
    per_worker = workers["documents"] / workers["workers_1_cpu_seconds"]
    client_rate = client["client_documents_per_second"]
    # The client writes while the workers extract: the slower of the two sets the pace.
    cluster_rate = min(CLUSTER_WORKERS * per_worker, client_rate)
    row = {
        "cpu_seconds_per_document": round(cpu_per_document, 4),
        "one_machine_hours": round(MILLION * cpu_per_document / cores / 3600, 1),
        "one_machine_hours_at_measured_rate": round(MILLION / largest["documents_per_second"] / 3600, 1),
        "memory_mb_per_1000_documents": round(slope * 1000, 2),
        "one_machine_peak_memory_gb": round(
            (largest["peak_memory_mb"] + max(slope, 0) * (MILLION - largest["documents"])) / 1024, 1
        ),
        "store_gb": round(largest["store_mb"] / largest["documents"] * MILLION / 1024, 1),
        "cluster_workers": CLUSTER_WORKERS,
        "cluster_hours": round(MILLION / cluster_rate / 3600, 1),
        "cluster_bound_by": "client" if client_rate < CLUSTER_WORKERS * per_worker else "workers",
    }
    print(
        f"  a million abstracts: this machine {row['one_machine_hours']} h from the CPU time "
        f"({row['one_machine_hours_at_measured_rate']} h at the rate measured on it, shared), "
        f"peak {row['one_machine_peak_memory_gb']} GB, store {row['store_gb']} GB; "
        f"{CLUSTER_WORKERS} workers {row['cluster_hours']} h (bound by the {row['cluster_bound_by']})",
        flush=True,
    )
    return row


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--rdflib"]:
        return rdflib_query(Path(argv[1]), Path(argv[2]))
    parser = argparse.ArgumentParser(prog="python -m kg.eval.bench_scale", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="corpus sizes, comma-separated")
    parser.add_argument("--compare", type=int, default=2000, help="abstracts for --workers 1 against 2")
    parser.add_argument("--profile", default="learned", help="extraction profile (default: learned)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=Path, default=None, help="seed abstracts (default: the synth default)")
    parser.add_argument("--json", type=Path, default=Path("bench-scale.json"), help="write the figures here")
    parser.add_argument("--keep", type=Path, default=None, help="keep corpora and stores in this folder")
    parser.add_argument(
        "--resume", action="store_true", help="with --keep: reuse the stages an earlier run there finished"
    )
    args = parser.parse_args(argv)
    sizes = sorted(int(size) for size in args.sizes.split(","))
    seeds = args.seeds or default_seeds_dir()
    work = args.keep or Path(tempfile.mkdtemp(prefix="kg-bench-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    figures: dict[str, object] = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(), "load": os.getloadavg()},
        "profile": args.profile,
        "seed": args.seed,
    }
    partial = work / "bench-scale.partial.json"
    done = json.loads(partial.read_text()) if args.resume and partial.is_file() else {}
    largest = work / f"store-{sizes[-1]}"
    stages = {
        "builds": (
            f"kg build, default settings, --profile {args.profile} (synthetic abstracts, seed {args.seed})",
            lambda: bench_builds(sizes, work, seed=args.seed, profile=args.profile, seeds=seeds),
        ),
        "workers": (
            "--workers 1 against --workers 2",
            lambda: bench_workers(args.compare, work, seed=args.seed, profile=args.profile, seeds=seeds),
        ),
        "queries": (f"queries over the {sizes[-1]}-abstract store", lambda: bench_queries(largest, work)),
        "client": ("the client's share", lambda: bench_client(largest, work / f"corpus-{sizes[-1]}.jsonl")),
        "projection": (
            "projection",
            lambda: projection(figures["builds"], figures["workers"], figures["client"]),
        ),
    }
    try:
        for stage, (title, run) in stages.items():
            print(f"== {title}" + (" (from the earlier run)" if stage in done else ""), flush=True)
            figures[stage] = done[stage] if stage in done else run()
            if args.keep is not None:  # what is done so far, for --resume
                partial.write_text(json.dumps({k: v for k, v in figures.items() if k in stages}, indent=2))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    builds, workers, queries = figures["builds"], figures["workers"], figures["queries"]
    targets = {
        "10k build under 10 minutes": [b["seconds"] < 600 for b in builds if b["documents"] == 10_000] or None,
        "peak memory under 2 GB": all(b["peak_memory_mb"] < 2048 for b in builds),
        "no-op rebuild under 5 % of the build": all(b["rebuild_share"] < 0.05 for b in builds),
        "--workers 2 at least 1.6 times --workers 1": workers["throughput_ratio"] >= 1.6,
        "--workers 1 and 2 give the same graph": workers["same_graph"],
        "exploration commands under 1 s": all(queries[f"kg_{name}_seconds"] < 1 for name in EXPLORATION),
        "kg query at most 1/20 of rdflib (methods and datasets)": (
            queries["two_hop_methods and datasets"]["rdflib_over_kg"] >= 20
        ),
    }
    targets = {
        name: (met if not isinstance(met, list) else all(met)) for name, met in targets.items() if met is not None
    }
    figures["targets"] = targets
    args.json.write_text(json.dumps(figures, indent=2) + "\n")
    print("== targets")
    for name, met in targets.items():
        print(f"  {name}: {'ok' if met else 'MISSED'}")
    print(f"figures written to {args.json}")
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
