#!/usr/bin/env python3
"""Join annotation slices into one file in the shape of ../shared/gold/dev.json (a JSON list).

usage: assemble.py TRAIN.jsonl SLICE.jsonl [...] > train.json
TRAIN.jsonl gives the abstracts ({"sha1", "text"}) and their order; each slice line gives one abstract's
"entities" and "relations". An abstract annotated twice, or not at all, is an error.
"""
import json
import sys


def main(train_path, slice_paths):
    annotated = {}
    for path in slice_paths:
        for line in open(path, encoding="utf-8"):
            if line.strip():
                record = json.loads(line)
                if record["sha1"] in annotated:
                    sys.exit(f"{path}: {record['sha1']} is annotated twice")
                annotated[record["sha1"]] = record
    out = []
    for line in open(train_path, encoding="utf-8"):
        if line.strip():
            doc = json.loads(line)
            record = annotated.pop(doc["sha1"], None)
            if record is None:
                sys.exit(f"{doc['sha1']} is not annotated")
            out.append({"sha1": doc["sha1"], "text": doc["text"], "entities": record["entities"],
                        "relations": record["relations"]})
    if annotated:
        sys.exit(f"{len(annotated)} annotated abstracts are not in {train_path}")
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
