#!/usr/bin/env python3
"""Score annotation files (check.py's format) against the annotated dev abstracts with the gold scorer.

usage: score_blind.py ANNOTATIONS.jsonl [...]      (run from the repository; ../shared/gold beside it)
Each annotation line becomes a `kg extract`-shaped line, and ../shared/gold/score.py scores them all.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCORER = os.path.join(HERE, "..", "..", "..", "shared", "gold", "score.py")


def as_prediction(annotation):
    entities = [{"id": e["name"], "label": e["name"], "type": e["type"], "aliases": e.get("aliases", []),
                 "proposed": e.get("proposed", False)} for e in annotation["entities"]]
    relations = [{"subject": r["subject"], "predicate": r["predicate"], "object": r["object"]}
                 for r in annotation["relations"]]
    return {"id": annotation["sha1"], "entities": entities, "relations": relations}


def main(paths):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as out:
        for path in paths:
            for line in open(path, encoding="utf-8"):
                if line.strip():
                    out.write(json.dumps(as_prediction(json.loads(line))) + "\n")
    try:
        return subprocess.call([sys.executable, SCORER, out.name])
    finally:
        os.unlink(out.name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
