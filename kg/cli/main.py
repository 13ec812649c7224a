"""`kg`: the parser and the dispatch. Each command lives in its group's module, its options beside it:

==================  ====================================================
module              commands
==================  ====================================================
``build``           build, extract
``eval``            eval, train
``query``           query, stats, validate, shell
``explore``         describe, paper, path, neighbors, related, central, communities, viz
``export``          export
==================  ====================================================
"""

from __future__ import annotations

import argparse
import os
import sys

from kg.cli import build, eval, explore, export, query  # noqa: F401  (each registers its commands)
from kg.cli.common import COMMANDS, shared_options
from kg.errors import KGError

# The order `kg --help` lists the commands in; a new command adds its name here.
ORDER = (
    "build",
    "extract",
    "eval",
    "train",
    "query",
    "stats",
    "export",
    "validate",
    "describe",
    "paper",
    "path",
    "neighbors",
    "related",
    "central",
    "communities",
    "viz",
    "shell",
)


def make_parser() -> argparse.ArgumentParser:
    shared = shared_options()
    parser = argparse.ArgumentParser(
        prog="kg",
        parents=[shared["common"]],
        description="Build and explore a knowledge graph of machine-learning research from paper abstracts.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in sorted(COMMANDS, key=ORDER.index):
        spec = COMMANDS[name]
        command = sub.add_parser(
            name, parents=[shared["common"], *(shared[group] for group in spec.parents)], help=spec.help
        )
        if spec.options is not None:
            spec.options(command)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    args.store = getattr(args, "store", None)
    args.endpoint = getattr(args, "endpoint", None)
    debug = getattr(args, "debug", False)
    handler = COMMANDS[args.command].handler
    try:
        return handler(args)
    except KGError as err:
        if debug:
            raise
        print(f"kg: error: {err}", file=sys.stderr)
        return err.exit_status
    except KeyboardInterrupt:
        print("kg: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (head, less) went away; that is not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("abstract-kg")
    except PackageNotFoundError:
        return "unknown"
