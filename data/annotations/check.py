#!/usr/bin/env python3
"""Check an annotation file (JSON lines, one abstract a line) against the input abstracts.

usage: check.py INPUT.jsonl ANNOTATIONS.jsonl
Prints one line per problem and a summary; exit status 1 when there are problems.
"""
import json
import sys

TYPES = {"Method", "Dataset", "Task", "Metric", "Phenomenon"}
PREDICATES = {"usedFor", "evaluatedOn", "outperforms", "comparedWith", "addresses", "partOf", "hyponymOf"}


def main(input_path, ann_path):
    texts = {}
    for line in open(input_path, encoding="utf-8"):
        if line.strip():
            d = json.loads(line)
            texts[d.get("id") or d.get("sha1")] = d["text"]
    problems = []
    seen = set()
    n_ent = n_rel = 0
    for no, line in enumerate(open(ann_path, encoding="utf-8"), 1):
        if not line.strip():
            continue
        where = f"line {no}"
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not JSON: {exc}")
            continue
        sha = d.get("sha1")
        if sha not in texts:
            problems.append(f"{where}: sha1 {sha!r} is not in the input")
            continue
        if sha in seen:
            problems.append(f"{where}: sha1 {sha} annotated twice")
        seen.add(sha)
        text = texts[sha]
        names = set()
        for e in d.get("entities", []):
            n_ent += 1
            name = e.get("name", "")
            if name in names:
                problems.append(f"{where}: entity {name!r} listed twice")
            names.add(name)
            if e.get("type") not in TYPES:
                problems.append(f"{where}: entity {name!r}: type {e.get('type')!r} is not one of {sorted(TYPES)}")
            if name not in text:
                problems.append(f"{where}: entity name {name!r} does not occur verbatim in the text")
            for a in e.get("aliases", []):
                if a not in text:
                    problems.append(f"{where}: alias {a!r} of {name!r} does not occur verbatim in the text")
            if not isinstance(e.get("proposed"), bool):
                problems.append(f"{where}: entity {name!r}: proposed must be true or false")
        triples = set()
        for r in d.get("relations", []):
            n_rel += 1
            key = (r.get("subject"), r.get("predicate"), r.get("object"))
            if key in triples:
                problems.append(f"{where}: relation {key} listed twice")
            triples.add(key)
            for role in ("subject", "object"):
                if r.get(role) not in names:
                    problems.append(f"{where}: relation {key}: {role} {r.get(role)!r} is not an entity name")
            if r.get("predicate") not in PREDICATES:
                problems.append(f"{where}: relation {key}: predicate must be one of {sorted(PREDICATES)}")
            if not r.get("evidence") or r["evidence"] not in text:
                problems.append(f"{where}: relation {key}: evidence is not a verbatim sentence of the text")
    missing = set(texts) - seen
    for sha in sorted(missing):
        problems.append(f"abstract {sha} is not annotated yet")
    for p in problems:
        print(p)
    print(f"{len(seen)} abstracts, {n_ent} entities, {n_rel} relations, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
