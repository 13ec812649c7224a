"""`make bench`: the performance targets, each measured as a ratio against a reference run
in the same process, because this machine is shared and absolute times are noisy.

    python -m kg.eval.bench [NAME ...]      run all benchmarks, or the named ones
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kg.resources import REPO_DIR

SEEDS = REPO_DIR / "seeds"
BENCHMARKS: dict[str, Callable[[], list[tuple[str, str, bool | None]]]] = {}


def benchmark(name: str):
    """Register a benchmark: a function returning (figure, value, target met or None) rows."""

    def register(function):
        BENCHMARKS[name] = function
        return function

    return register


@benchmark("build")
def bench_build() -> list[tuple[str, str, bool | None]]:
    """First build of the seeds vs a rebuild over unchanged sources (target: under a fifth),
    and the first build vs one plain pass of the stock spaCy pipeline (target: ratio <= 1)."""
    import spacy

    from kg.build.builder import build
    from kg.extract.model import resolve_model
    from kg.ingest import read_documents

    texts = list({d.id: d.text for d in read_documents([SEEDS])}.values())
    started = time.perf_counter()
    nlp = spacy.load(resolve_model())
    for _ in nlp.pipe(texts, batch_size=64):
        pass
    reference = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        # One extraction process, as the stock pass is one: the ratio compares single-core cost.
        first = build([SEEDS], store=Path(tmp) / "store", workers=1)
        second = build([SEEDS], store=Path(tmp) / "store", workers=1)
    rebuild_ratio = second.seconds / first.seconds
    speed_ratio = first.seconds / reference
    return [
        ("abstracts (distinct)", f"{len(texts)}", None),
        ("stock en_core_web_sm, all components, one pass", f"{reference:.2f} s", None),
        ("kg build, first (default profile, --workers 1)", f"{first.seconds:.2f} s", None),
        (
            "kg build, again over unchanged sources",
            f"{second.seconds:.2f} s ({second.added} triples added)",
            second.added == 0,
        ),
        ("rebuild / first build (target < 0.20)", f"{rebuild_ratio:.3f}", rebuild_ratio < 0.2),
        ("first build / stock pipeline pass (target <= 1.00)", f"{speed_ratio:.2f}", speed_ratio <= 1.0),
    ]


def main(argv: list[str] | None = None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    missed = 0
    for name in names:
        print(f"== {name}")
        rows = BENCHMARKS[name]()
        width = max(len(figure) for figure, _, _ in rows)
        for figure, value, met in rows:
            mark = "" if met is None else ("  ok" if met else "  MISSED")
            missed += met is False
            print(f"  {figure:<{width}}  {value}{mark}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
