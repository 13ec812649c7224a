"""`kg build` and `kg extract`: abstracts through the extraction pipeline, into the store or out as JSON lines."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kg.cli.common import command, options
from kg.errors import KGError, StoreBusyError, UsageError


@command("build", "build or extend the graph from abstracts (default source: seeds/)")
def cmd_build(args: argparse.Namespace) -> int:
    from kg.build.builder import build
    from kg.progress import terminal_progress

    sources = args.sources or _default_sources()
    if args.wait:
        _say_whom_it_waits_for(args.store)
    report = build(
        sources,
        store=args.store,
        model=args.model,
        profile=args.profile,
        workers=args.workers,
        skip_bad=args.skip_bad,
        wait=args.wait,
        progress=None if args.quiet else terminal_progress("extracting", "abstract"),
        scheduler=args.scheduler,
        shards=args.shards,
    )
    _report_skipped(report.bad)
    print(report.summary(), file=sys.stderr)
    return 0


@options("build", parents=("nlp",))
def _build_options(parser: argparse.ArgumentParser) -> None:
    """The shared ones (SOURCE, --workers, --model, --profile, --skip-bad), --wait, and where extraction
    runs and what else the build writes."""
    parser.add_argument(
        "--wait",
        action="store_true",
        help="if another build is writing the store, wait for it to finish (default: fail at once)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar (the summary line stays)")
    parser.add_argument(
        "--scheduler",
        metavar="URL",
        default=None,
        help="extract on the workers of this Dask scheduler (tcp://HOST:8786); this process writes the store",
    )
    parser.add_argument(
        "--shards",
        metavar="DIR",
        default=None,
        help="also write the graph to DIR as N-Quads shards for a server store's bulk loader",
    )


def _say_whom_it_waits_for(store: str | None) -> None:
    from kg.store import default_store_path
    from kg.store.directory import building_process

    location = Path(store or default_store_path())
    pid = building_process(location)
    if pid is not None:
        print(f"kg: {StoreBusyError(location, pid or None)}; waiting for it to finish", file=sys.stderr)


@command("extract", "print the entities and relations of each abstract as JSON lines (no store)")
def cmd_extract(args: argparse.Namespace) -> int:
    from kg.extract.pipeline import Extractor
    from kg.ingest import iter_source_files, read_documents

    if args.format != "jsonl":
        raise UsageError(f"unknown extract format {args.format!r}; the only one is jsonl")
    files = list(iter_source_files(args.sources))
    bad: list[KGError] = []
    # Validate everything first so that bad input stops before any output is written.
    for _ in read_documents(files, on_error=bad.append if args.skip_bad else None):
        pass
    extractor = Extractor(model=args.model, profile=args.profile, workers=args.workers or 1)
    out = sys.stdout
    for record in extractor.extract(read_documents(files, on_error=lambda _: None)):
        out.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
    out.flush()
    _report_skipped(bad)
    return 0


@options("extract", parents=("nlp",))
def _extract_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", default="jsonl", help="output format (jsonl)")


def _default_sources() -> list[str]:
    if Path("seeds").is_dir():
        return ["seeds"]
    raise UsageError("give one or more SOURCE files or folders (there is no ./seeds to default to)")


def _report_skipped(bad: list[KGError]) -> None:
    if bad:
        print(f"kg: skipped {len(bad)} bad record(s):", file=sys.stderr)
        for err in bad:
            print(f"  {err}", file=sys.stderr)
