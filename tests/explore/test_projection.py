"""The projection of a store for the exploration commands: what it holds, and its cache."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import ENTITIES, PAPERS, STATEMENTS, entity, hops_of, path_json

from kg.explore.projection import load_projection
from kg.rdf import KG, paper_iri
from kg.store import open_store


def test_the_fixture_holds_what_it_says(relations_store: Path) -> None:
    with open_store(relations_store) as store:
        (count,) = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s a kg:Statement }").rows[0]
        (papers,) = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?p a kg:Paper }").rows[0]
    assert (int(count), int(papers)) == (len(STATEMENTS), len(PAPERS))


def test_the_projection_holds_entities_papers_mentions_and_relations(relations_store: Path) -> None:
    with open_store(relations_store) as store:
        view = load_projection(store, cache=False)
    assert sorted(view.labels) == sorted(label for label, _, _ in ENTITIES.values())
    assert view.resolve("ARP") == str(entity("arp"))
    assert view.paper_count(str(entity("clip"))) == sum("clip" in mentioned for _, mentioned in PAPERS.values())
    clip, zsc = view.entity_id(str(entity("clip"))), view.entity_id(str(entity("zsc")))
    (used_for,) = view.relations_between(clip, zsc)
    assert used_for.support == 2  # two papers state it
    graph = view.to_networkx()
    assert graph.number_of_nodes() == len(ENTITIES) + len(PAPERS)


def test_projection_is_cached_and_rebuilt_after_a_write(relations_store: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(relations_store, store)
    cache = store / "cache" / "projection.marshal"
    assert path_json(store, "CLIP", "quantum annealing")["paths"] == []
    assert cache.is_file()
    stamp = cache.stat().st_mtime_ns
    path_json(store, "CLIP", "quantum annealing")
    assert cache.stat().st_mtime_ns == stamp  # read, not rebuilt
    with open_store(store, write=True) as opened:
        opened.write([(paper_iri("p6"), KG.mentions, entity("qa")), (paper_iri("p6"), KG.mentions, entity("clip"))])
    assert hops_of(path_json(store, "CLIP", "quantum annealing")) == [("CLIP", "mentions", "quantum annealing")]
    assert cache.stat().st_mtime_ns != stamp
