"""Benchmark of path and neighbor queries on a synthetic graph (default: 100k papers).

Run ``python -m kg.eval.bench_paths`` (``--help`` for the sizes). It writes a synthetic store
straight into Oxigraph: entities of the five types whose popularity follows a Zipf law
(the most mentioned in about a fifth of the papers, as "accuracy" is in the seeds),
papers that mention about eight of them each (one proposed), an abstract per paper naming
its entities, and a relation with its statement for one paper in five. It then times

* building the projection from the store, and loading it from the cache;
* ``shortest_paths`` and ``neighbors`` in process, over random pairs and concepts;
* ``kg path`` and ``kg neighbors`` as whole processes, as a user runs them;

and prints the figures. Nothing here is asserted: the figures are for reading.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from kg.rdf import KG, entity_iri, paper_iri, statement_iri

TYPE_SHARES = (("Method", 0.55), ("Task", 0.2), ("Dataset", 0.1), ("Metric", 0.05), ("Phenomenon", 0.1))
ZIPF_EXPONENT = 0.8
RELATION_SHARE = 0.2
PREDICATES = ("usedFor", "evaluatedOn", "addresses", "partOf", "comparedWith")


def synthetic_quads(papers: int, entities: int, mentions: int, seed: int) -> Iterator:
    """The quads of a synthetic graph (pyoxigraph terms), generated lazily."""
    import pyoxigraph as ox
    from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SKOS, XSD

    def iri(term: object) -> ox.NamedNode:
        return ox.NamedNode(str(term))

    rng = random.Random(seed)
    kinds = [kind for kind, share in TYPE_SHARES for _ in range(round(share * 100))]
    type_of = [rng.choice(kinds) for _ in range(entities)]
    labels = [f"{kind.lower()} {number}" for number, kind in enumerate(type_of)]
    nodes = [iri(entity_iri(f"{kind.lower()}-{number}")) for number, kind in enumerate(type_of)]
    a, label, pref, mention, propose = (
        iri(RDF.type),
        iri(RDFS.label),
        iri(SKOS.prefLabel),
        iri(KG.mentions),
        iri(KG.proposes),
    )
    for number, node in enumerate(nodes):
        yield ox.Quad(node, a, iri(KG[type_of[number]]))
        yield ox.Quad(node, label, ox.Literal(labels[number]))
        yield ox.Quad(node, pref, ox.Literal(labels[number]))
    popularity = list(range(entities))
    rng.shuffle(popularity)  # popularity rank is independent of type and number
    weights = [1.0 / (rank + 1) ** ZIPF_EXPONENT for rank in popularity]
    subject, predicate, obj = iri(RDF.subject), iri(RDF.predicate), iri(RDF.object)
    statement, derived, evidence, confidence = (
        iri(KG.Statement),
        iri(PROV.wasDerivedFrom),
        iri(KG.evidence),
        iri(KG.confidence),
    )
    for number in range(papers):
        paper = iri(paper_iri(f"synthetic-{number}"))
        chosen = list(
            dict.fromkeys(rng.choices(range(entities), weights=weights, k=rng.randint(mentions - 3, mentions + 3)))
        )
        names = [labels[e] for e in chosen]
        sentences = [f"We propose {names[0]}."]
        sentences += [f"We apply {' and '.join(names[i : i + 2])} to this problem." for i in range(1, len(names), 2)]
        yield ox.Quad(paper, a, iri(KG.Paper))
        yield ox.Quad(paper, iri(DCTERMS.identifier), ox.Literal(f"synthetic-{number}"))
        yield ox.Quad(paper, iri(DCTERMS.title), ox.Literal(f"Synthetic paper {number} on {names[0]}"))
        yield ox.Quad(paper, iri(DCTERMS.abstract), ox.Literal(" ".join(sentences)))
        yield ox.Quad(paper, propose, nodes[chosen[0]])
        for entity in chosen:
            yield ox.Quad(paper, mention, nodes[entity])
        if len(chosen) > 1 and rng.random() < RELATION_SHARE:
            relation = rng.choice(PREDICATES)
            node = iri(statement_iri(f"synthetic-{number}"))
            yield ox.Quad(nodes[chosen[0]], iri(KG[relation]), nodes[chosen[1]])
            yield ox.Quad(node, a, statement)
            yield ox.Quad(node, subject, nodes[chosen[0]])
            yield ox.Quad(node, predicate, iri(KG[relation]))
            yield ox.Quad(node, obj, nodes[chosen[1]])
            yield ox.Quad(node, derived, paper)
            yield ox.Quad(node, evidence, ox.Literal(f"We apply {names[0]} and {names[1]} to this problem."))
            yield ox.Quad(node, confidence, ox.Literal("0.8", datatype=iri(XSD.decimal)))


def write_synthetic_store(path: Path, *, papers: int, entities: int, mentions: int, seed: int) -> None:
    """Create the store at ``path`` with :func:`synthetic_quads`, bulk-loaded."""
    from kg.store import open_store

    with open_store(path, create=True) as store:
        store.ox.bulk_extend(synthetic_quads(papers, entities, mentions, seed))


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def summary(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return (
        f"median {statistics.median(ordered) * 1000:7.1f} ms   p90 {p90 * 1000:7.1f} ms   "
        f"max {ordered[-1] * 1000:7.1f} ms   (n={len(ordered)})"
    )


def run(store: Path, *, queries: int, processes: int, seed: int) -> None:
    from kg.explore.paths import neighbors, shortest_paths
    from kg.explore.projection import CACHE_NAME, Projection, load_projection
    from kg.store import open_store

    rng = random.Random(seed + 1)
    cache_file = store / "cache" / f"{CACHE_NAME}.marshal"
    cache_file.unlink(missing_ok=True)
    with open_store(store) as opened:
        print(f"projection, built from the store   {timed(lambda: load_projection(opened)):8.2f} s  (and cached)")
        print(
            f"projection, loaded from the cache  {timed(lambda: load_projection(opened)):8.3f} s  "
            f"({cache_file.stat().st_size / 1e6:.0f} MB)"
        )
        graph: Projection = load_projection(opened)
    sizes = sorted(((len(p), e) for e, p in enumerate(graph.papers_of)), reverse=True)
    print(
        f"graph: {len(graph.papers)} papers, {len(graph)} entities, "
        f"{sum(len(m) for m in graph.entities_of)} mentions, {len(graph.relations)} relations; "
        f"most mentioned entity in {sizes[0][0]} papers, median {sizes[len(sizes) // 2][0]}"
    )
    pairs = [tuple(rng.sample(graph.entities, 2)) for _ in range(queries)]
    hub = graph.entities[sizes[0][1]]
    print("\nin process (projection loaded)")
    print(
        "  path A B (limit 3, max 4 hops)       ",
        summary([timed(lambda: shortest_paths(graph, a, b)) for a, b in pairs]),
    )
    print(
        "  path A B (limit 1)                   ",
        summary([timed(lambda: shortest_paths(graph, a, b, limit=1)) for a, b in pairs]),
    )
    print(
        "  path hub B (limit 3)                 ",
        summary([timed(lambda: shortest_paths(graph, hub, b)) for _, b in pairs[: max(3, queries // 4)]]),
    )
    print(
        "  neighbors X --hops 1 (limit 20)      ",
        summary([timed(lambda: neighbors(graph, a, hops=1, limit=20)) for a, _ in pairs]),
    )
    print(
        "  neighbors X --hops 2 (limit 20)      ",
        summary([timed(lambda: neighbors(graph, a, hops=2, limit=20)) for a, _ in pairs]),
    )
    print("  neighbors hub --hops 1 (limit 20)    ", summary([timed(lambda: neighbors(graph, hub, hops=1, limit=20))]))
    print("  neighbors hub --hops 2 (limit 20)    ", summary([timed(lambda: neighbors(graph, hub, hops=2, limit=20))]))

    kg = str(Path(sys.executable).parent / "kg")
    label = graph.label

    def cli(*args: str) -> float:
        return timed(lambda: subprocess.run([kg, *args, "--store", str(store)], check=True, capture_output=True))

    print(f"\nwhole processes ({Path(kg).name} ..., projection cached)")
    print(
        "  kg path A B                          ",
        summary([cli("path", label(a), label(b)) for a, b in pairs[:processes]]),
    )
    print(
        "  kg path A B --format json            ",
        summary([cli("path", label(a), label(b), "--format", "json") for a, b in pairs[:processes]]),
    )
    print(
        "  kg neighbors X                       ", summary([cli("neighbors", label(a)) for a, _ in pairs[:processes]])
    )
    print(
        "  kg neighbors X --hops 2              ",
        summary([cli("neighbors", label(a), "--hops", "2") for a, _ in pairs[:processes]]),
    )
    print("  kg path hub B                        ", summary([cli("path", label(hub), label(b)) for _, b in pairs[:3]]))
    print("  kg neighbors hub --hops 2            ", summary([cli("neighbors", label(hub), "--hops", "2")]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.eval.bench_paths", description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--entities", type=int, default=50_000)
    parser.add_argument("--mentions", type=int, default=8, help="mentions per paper, on average")
    parser.add_argument("--queries", type=int, default=40, help="random queries timed in process")
    parser.add_argument("--processes", type=int, default=8, help="queries timed as whole processes")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--store", type=Path, help="keep the synthetic store here (reused if it exists)")
    args = parser.parse_args(argv)
    keep = args.store is not None
    store = args.store or Path(tempfile.mkdtemp(prefix="kg-bench-")) / "store"
    try:
        if not (store / "oxigraph").exists():
            print(f"writing a synthetic store of {args.papers} papers, {args.entities} entities to {store} ...")
            seconds = timed(
                lambda: write_synthetic_store(
                    store, papers=args.papers, entities=args.entities, mentions=args.mentions, seed=args.seed
                )
            )
            print(f"written in {seconds:.1f} s")
        run(store, queries=args.queries, processes=args.processes, seed=args.seed)
    finally:
        if not keep:
            shutil.rmtree(store.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
