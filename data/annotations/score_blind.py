#!/usr/bin/env python3
"""Score annotation files (check.py's format) against the annotated dev abstracts with the gold scorer.

usage: .venv/bin/python data/annotations/score_blind.py ANNOTATIONS.jsonl [...]   (../shared/gold beside
the repository). Each annotation line becomes a `kg extract`-shaped line
(kg.eval.learned.annotations_as_predictions), and ../shared/gold/score.py scores them all.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCORER = os.path.join(HERE, "..", "..", "..", "shared", "gold", "score.py")
sys.path.insert(0, os.path.join(HERE, "..", ".."))

from kg.eval.learned import annotations_as_predictions  # noqa: E402


def main(paths):
    records = [json.loads(line) for path in paths for line in open(path, encoding="utf-8") if line.strip()]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as out:
        for prediction in annotations_as_predictions(records):
            out.write(json.dumps(prediction) + "\n")
    try:
        return subprocess.call([sys.executable, SCORER, out.name])
    finally:
        os.unlink(out.name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
