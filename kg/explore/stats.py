"""`kg stats`: how many papers, entities per type, relations and triples a graph holds."""
from __future__ import annotations

from dataclasses import dataclass

from kg.namespace import ENTITY_RELATIONS, ENTITY_TYPES, local_name
from kg.store import Store


@dataclass(frozen=True)
class Stats:
    papers: int
    entities: dict[str, int]
    relations: int
    triples: int

    def to_json(self) -> dict[str, object]:
        return {"papers": self.papers, "entities": dict(self.entities),
                "relations": self.relations, "triples": self.triples}

    def to_text(self) -> str:
        rows = [("papers", self.papers), ("entities", sum(self.entities.values()))]
        rows += [(f"  {name}", count) for name, count in self.entities.items()]
        rows += [("relations", self.relations), ("triples", self.triples)]
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name:<{width}}  {count:>9,}" for name, count in rows)


def collect_stats(store: Store) -> Stats:
    """Count with SPARQL, so that an embedded store and a remote endpoint answer alike."""
    types = " ".join(f"kg:{t}" for t in ENTITY_TYPES)
    predicates = " ".join(f"kg:{p}" for p in ENTITY_RELATIONS)
    papers = _count(store, "SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }")
    per_type = {t: 0 for t in ENTITY_TYPES}
    result = store.query(f"SELECT ?t (COUNT(?e) AS ?n) WHERE {{ VALUES ?t {{ {types} }} ?e a ?t }} GROUP BY ?t")
    for entity_type, count in result.rows:
        per_type[local_name(entity_type)] = int(count)
    relations = _count(store, f"SELECT (COUNT(*) AS ?n) WHERE {{ VALUES ?p {{ {predicates} }} ?s ?p ?o }}")
    return Stats(papers=papers, entities=per_type, relations=relations, triples=len(store))


def _count(store: Store, sparql: str) -> int:
    rows = store.query(sparql).rows
    return int(rows[0][0]) if rows and rows[0][0] is not None else 0
