"""`kg stats`: how many papers, entities per type, relations and triples a graph holds."""

from __future__ import annotations

from dataclasses import dataclass

from kg.namespace import ENTITY_TYPES, local_name
from kg.store import Store
from kg.store.queries import ENTITY_COUNTS, PAPER_COUNT, RELATION_COUNT


@dataclass(frozen=True)
class Stats:
    papers: int
    entities: dict[str, int]
    relations: int
    triples: int

    def to_json(self) -> dict[str, object]:
        return {
            "papers": self.papers,
            "entities": dict(self.entities),
            "relations": self.relations,
            "triples": self.triples,
        }

    def to_text(self) -> str:
        rows = [("papers", self.papers), ("entities", sum(self.entities.values()))]
        rows += [(f"  {name}", count) for name, count in self.entities.items()]
        rows += [("relations", self.relations), ("triples", self.triples)]
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name:<{width}}  {count:>9,}" for name, count in rows)


def collect_stats(store: Store) -> Stats:
    """Count with SPARQL, so that an embedded store and a remote endpoint answer alike."""
    papers = _count(store, PAPER_COUNT)
    per_type = {t: 0 for t in ENTITY_TYPES}
    for entity_type, count in store.query(ENTITY_COUNTS).rows:
        per_type[local_name(entity_type)] = int(count)
    relations = _count(store, RELATION_COUNT)
    return Stats(papers=papers, entities=per_type, relations=relations, triples=len(store))


def _count(store: Store, sparql: str) -> int:
    rows = store.query(sparql).rows
    return int(rows[0][0]) if rows and rows[0][0] is not None else 0
