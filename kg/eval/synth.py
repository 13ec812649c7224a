"""A synthetic corpus of any size for the scale benchmarks and tests: abstracts recombined from the
seed abstracts' sentences, deterministic for a seed.

    python -m kg.eval.synth N [--seed S] [--seeds DIR] [-o FILE]

Each abstract follows a *topic* seed abstract, drawn with Zipf-like popularity (a few topics recur
in many papers, most in few, as methods and datasets do in a real corpus): it keeps about half of
the topic's sentences in place, so an acronym is usually defined where it is used and the topic's
entities recur together, and takes each other sentence from another abstract drawn the same way, at
the same place in its abstract (opening, middle or closing sentence). The popular entities so recur
across thousands of papers, in new company, and cross-paper decisions (acronyms with two long forms,
type votes) arise as they do at scale. Every abstract is distinct (and none is a seed abstract), and
the first ``N`` abstracts of a seed are the same whatever the size asked for, so a 1k corpus is the
start of the 10k one.

Output is JSON lines (``text`` and ``year``), one abstract per line, as ``kg build`` reads them.

Examples
--------
>>> seeds = ["Alpha is a method. It uses BERT. We report F1.", "We study grokking. Beta helps. It is fast."]
>>> first = list(synthetic_abstracts(seeds, 5, seed=1))
>>> first == list(synthetic_abstracts(seeds, 5, seed=1)), len({a["text"] for a in first})
(True, 5)
>>> [a["text"] for a in synthetic_abstracts(seeds, 3, seed=1)] == [a["text"] for a in first[:3]]
True
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import itertools
import json
import os
import random
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from kg.errors import KGError, UsageError
from kg.resources import REPO_DIR, SHARED_DIR

ZIPF_EXPONENT = 1.0  # popularity of the topic at rank r is 1 / (r + 1)
KEEP_TOPIC = 0.5  # share of sentences kept from the topic abstract, in place
YEARS = (2015, 2025)
# A sentence ends at . ! or ? before a capital or an opening bracket, but not after "e.g.", "i.e.",
# "et al." or a one-letter initial.
_SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bal\.)(?<!\b[A-Z]\.)(?<=[.!?])\s+(?=[A-Z(\[])")


def default_seeds_dir() -> Path:
    """``$KG_SEEDS_DIR``, else the checkout's ``seeds/``, else ``../shared/seeds`` beside the checkout."""
    if os.environ.get("KG_SEEDS_DIR"):
        return Path(os.environ["KG_SEEDS_DIR"])
    own = REPO_DIR / "seeds"
    return own if own.is_dir() else SHARED_DIR / "seeds"


def seed_abstracts(directory: Path) -> list[str]:
    """The distinct abstracts of the seed files in ``directory``, in a fixed order (by content id)."""
    from kg.ingest import iter_source_files, read_documents

    if not directory.is_dir():
        raise UsageError(f"{directory}: no such seeds directory (give one with --seeds DIR)")
    texts = {d.id: d.text for d in read_documents(list(iter_source_files([directory])))}
    if not texts:
        raise UsageError(f"{directory}: no abstracts in the seed files")
    return [texts[key] for key in sorted(texts)]


def split_sentences(text: str) -> list[str]:
    """``text`` in sentences (a rule of thumb, good enough for recombining abstracts).

    >>> split_sentences("We use BERT, e.g. on GLUE. Results (Table 1) improve. [Code] is out.")
    ['We use BERT, e.g. on GLUE.', 'Results (Table 1) improve.', '[Code] is out.']
    """
    return [s for s in (part.strip() for part in _SENTENCE_END.split(text)) if s]


def synthetic_abstracts(seeds: Sequence[str], count: int, *, seed: int = 0) -> Iterator[dict]:
    """``count`` distinct abstracts (``{"text", "year"}``) recombined from the abstracts ``seeds``."""
    sentences = [split_sentences(text) for text in seeds]
    sentences = [s for s in sentences if s]
    if not sentences:
        return
    rng = random.Random(seed)
    # Popularity: a fixed random ranking of the seed abstracts, Zipf weights over the ranks.
    ranking = list(range(len(sentences)))
    rng.shuffle(ranking)
    cumulative = list(itertools.accumulate(1.0 / (rank + 1) ** ZIPF_EXPONENT for rank in range(len(ranking))))

    def popular() -> list[str]:
        return sentences[ranking[bisect.bisect(cumulative, rng.random() * cumulative[-1])]]

    # Distinct from each other and from the seed abstracts themselves (all of whose sentences may be kept).
    seen = {hashlib.sha1(" ".join(parts).encode()).digest() for parts in sentences}
    made = attempts = 0
    while made < count:
        attempts += 1
        if attempts > 100 * count + 1000:
            raise UsageError(f"cannot make {count} distinct abstracts from {len(seeds)} seed abstracts")
        topic = popular()
        parts = []
        for place, own in enumerate(topic):
            if rng.random() < KEEP_TOPIC:
                parts.append(own)
                continue
            other = popular()
            parts.append(other[_same_place(place, len(topic), len(other))])
        text = " ".join(parts)
        year = rng.randrange(*YEARS)
        digest = hashlib.sha1(text.encode()).digest()
        if digest in seen:
            continue
        seen.add(digest)
        made += 1
        yield {"text": text, "year": year}


def _same_place(place: int, length: int, other: int) -> int:
    """The sentence of an abstract of ``other`` sentences at the place of sentence ``place`` of ``length``:
    the opening for the opening, the closing for the closing, a middle one for a middle one."""
    if place == 0 or other == 1:
        return 0
    if place == length - 1:
        return other - 1
    return min(other - 2, max(1, round(place * (other - 1) / max(length - 1, 1))))


def write_corpus(path: Path, count: int, *, seed: int = 0, seeds_dir: Path | None = None) -> Path:
    """Write ``count`` synthetic abstracts to ``path`` as JSON lines (atomically)."""
    from kg.files import write_atomically

    abstracts = synthetic_abstracts(seed_abstracts(seeds_dir or default_seeds_dir()), count, seed=seed)

    def write(stream) -> None:
        for abstract in abstracts:
            stream.write((json.dumps(abstract, ensure_ascii=False) + "\n").encode())

    write_atomically(path, write)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.eval.synth", description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, metavar="N", help="how many abstracts")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--seeds", type=Path, default=None, metavar="DIR", help=f"the seed abstracts (default: {default_seeds_dir()})"
    )
    parser.add_argument("-o", "--output", type=Path, default=None, help="write here (default: standard output)")
    args = parser.parse_args(argv)
    try:
        if args.count < 0:
            raise UsageError(f"N must be 0 or more, not {args.count}")
        if args.output is not None:
            write_corpus(args.output, args.count, seed=args.seed, seeds_dir=args.seeds)
            return 0
        seeds = seed_abstracts(args.seeds or default_seeds_dir())
        for abstract in synthetic_abstracts(seeds, args.count, seed=args.seed):
            sys.stdout.write(json.dumps(abstract, ensure_ascii=False) + "\n")
    except KGError as err:
        print(f"kg: error: {err}", file=sys.stderr)
        return err.exit_status
    return 0


if __name__ == "__main__":
    sys.exit(main())
