#!/usr/bin/env python3
"""The audit's items: every relation statement, and 60 random entity nodes, that two built stores (the
default profile's and the rules profile's) hold for the papers of dev and of the held-out tenth, with
30 of dev's annotated relations and 30 of them corrupted as controls, shuffled and cut into slices.

usage: .venv/bin/python data/audit/sample.py DEFAULT_STORE RULES_STORE OUT_DIR   (../shared beside the
repository; each store built from ../shared/seeds with `kg build --profile ...`). Writes OUT_DIR/key.json
(each item with where it comes from), OUT_DIR/sliceN.json (what a judge sees), OUT_DIR/papers.json.
"""

import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))

from kg.extract.learned.data import load_annotations, split_holdout  # noqa: E402
from kg.resources import SHARED_DIR  # noqa: E402

SLICES, NODES, CONTROLS, SEED = 4, 60, 30, 26
TYPES = "kg:Method kg:Dataset kg:Task kg:Metric kg:Phenomenon"
STATEMENTS = f"""SELECT ?st ?paper ?sl ?stype ?p ?ol ?otype ?conf ?ev WHERE {{
  ?st a kg:Statement ; rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o ; prov:wasDerivedFrom ?paper ;
      kg:evidence ?ev . OPTIONAL {{ ?st kg:confidence ?conf }}
  ?s rdfs:label ?sl . ?o rdfs:label ?ol .
  OPTIONAL {{ ?s a ?stype VALUES ?stype {{ {TYPES} }} }} OPTIONAL {{ ?o a ?otype VALUES ?otype {{ {TYPES} }} }} }}"""
NODES_QUERY = f"""SELECT DISTINCT ?paper ?e ?l ?t WHERE {{
  ?paper ?link ?e VALUES ?link {{ kg:proposes kg:uses kg:evaluatesOn kg:studies kg:mentions }}
  ?e rdfs:label ?l ; a ?t VALUES ?t {{ {TYPES} }} }}"""
# A corrupted control's predicate: one the guidelines would not give the annotated relation.
OTHER = {
    "usedFor": "partOf",
    "evaluatedOn": "usedFor",
    "outperforms": "partOf",
    "comparedWith": "hyponymOf",
    "addresses": "evaluatedOn",
    "partOf": "hyponymOf",
    "hyponymOf": "partOf",
}


def local(iri):
    return iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1] if iri else ""


def query(store, sparql):
    kg = os.path.join(os.path.dirname(sys.executable), "kg")  # the venv's command
    answer = subprocess.run(
        [kg, "--store", store, "query", sparql, "--format", "json"], capture_output=True, text=True, check=True
    )
    return [{k: v["value"] for k, v in row.items()} for row in json.loads(answer.stdout)["results"]["bindings"]]


def main(default_store, rules_store, out):
    rng = random.Random(SEED)
    _, held = split_holdout(load_annotations())
    dev = json.load(open(SHARED_DIR / "gold" / "dev.json", encoding="utf-8"))
    split = {r["sha1"]: "held" for r in held} | {r["sha1"]: "dev" for r in dev}
    texts = {r["sha1"]: r["text"] for r in [*held, *dev]}
    items = []
    for source, store in (("default", default_store), ("rules", rules_store)):
        rows = [r for r in query(store, STATEMENTS) if local(r["paper"]) in split]
        for r in sorted(rows, key=lambda r: r["st"]):
            items.append(
                {
                    "source": source,
                    "iri": r["st"],
                    "confidence": float(r["conf"]) if "conf" in r else None,
                    "split": split[local(r["paper"])],
                    "kind": "statement",
                    "paper": local(r["paper"]),
                    "subject": r["sl"],
                    "subject_type": local(r.get("stype")),
                    "predicate": local(r["p"]),
                    "object": r["ol"],
                    "object_type": local(r.get("otype")),
                    "evidence": r["ev"],
                }
            )
    gold = [(r["sha1"], rel, {e["name"]: e["type"] for e in r["entities"]}) for r in dev for rel in r["relations"]]
    gold = [(sha, rel, types) for sha, rel, types in gold if rel["subject"] in types and rel["object"] in types]
    rng.shuffle(gold)
    for n, (sha, rel, types) in enumerate(gold[: 2 * CONTROLS]):
        subject, predicate, obj, source = rel["subject"], rel["predicate"], rel["object"], "control-right"
        if n >= CONTROLS:
            if predicate == "comparedWith" or n % 2:
                predicate, source = OTHER[predicate], "control-predicate"
            else:
                subject, obj, source = obj, subject, "control-direction"
        items.append(
            {
                "source": source,
                "kind": "statement",
                "paper": sha,
                "subject": subject,
                "subject_type": types[subject],
                "predicate": predicate,
                "object": obj,
                "object_type": types[obj],
                "evidence": rel["evidence"],
            }
        )
    for source, store in (("default", default_store), ("rules", rules_store)):
        rows = sorted(
            (r for r in query(store, NODES_QUERY) if local(r["paper"]) in split),
            key=lambda r: (r["paper"], r["e"], r["t"]),
        )
        for r in rng.sample(rows, NODES):
            items.append(
                {
                    "source": source,
                    "iri": r["e"],
                    "kind": "entity",
                    "paper": local(r["paper"]),
                    "name": r["l"],
                    "type": local(r["t"]),
                }
            )
    rng.shuffle(items)
    for n, item in enumerate(items):
        item["id"] = f"i{n:04d}"
    os.makedirs(out, exist_ok=True)
    json.dump(items, open(os.path.join(out, "key.json"), "w"), indent=1, ensure_ascii=False)
    json.dump(texts, open(os.path.join(out, "papers.json"), "w"), indent=1, ensure_ascii=False)
    hidden = ("source", "iri", "confidence", "split")
    seen = [{k: v for k, v in item.items() if k not in hidden} for item in items]
    for k in range(SLICES):
        json.dump(seen[k::SLICES], open(os.path.join(out, f"slice{k}.json"), "w"), indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main(*sys.argv[1:4])
