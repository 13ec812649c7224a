"""`kg`: the parser and the dispatch. Each command lives in its group's module, its options beside it:

==================  ====================================================
module              commands
==================  ====================================================
``build``           build, extract
``eval``            eval, train
``query``           query, stats, validate, shell
``explore``         describe, paper, path, neighbors, related, central, communities, viz
``export``          export, push
``serve``           serve
==================  ====================================================

Options may come anywhere: before the command (``kg --format json stats``), between its positional
arguments, or after them, as the command-line contract says; see :func:`parse_arguments`.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import nullcontext

from kg.cli import build, eval, explore, export, query, serve  # noqa: F401  (each registers its commands)
from kg.cli.common import COMMANDS, shared_options
from kg.cli.interrupts import INTERRUPTED, stop_at_once
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
    "push",
    "serve",
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


# Options that only `kg` itself takes; given before a command, they are not the command's.
TOP_LEVEL_ONLY = frozenset({"-h", "--help", "--version"})


def make_parser() -> argparse.ArgumentParser:
    """The parser of `kg` and its commands."""
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser of `kg`, and each command's own parser by name."""
    shared = shared_options()
    parser = argparse.ArgumentParser(
        prog="kg",
        parents=[shared["common"]],
        description="Build and explore a knowledge graph of machine-learning research from paper abstracts.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    commands = {}
    for name in sorted(COMMANDS, key=ORDER.index):
        spec = COMMANDS[name]
        command = sub.add_parser(
            name, parents=[shared["common"], *(shared[group] for group in spec.parents)], help=spec.help
        )
        if spec.options is not None:
            spec.options(command)
        commands[name] = command
    return parser, commands


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse `kg`'s arguments with options anywhere around the command and its positional arguments.

    argparse alone takes options after the command only, and a list of positional arguments
    (``kg build a.txt --workers 2 b.txt``) only in one piece. So the command is found first (the
    first word that is neither an option nor an option's value), and its own parser reads everything
    else, options and positional arguments intermixed. ``kg -h``, ``kg --version`` and a missing or
    unknown command go to the parser of `kg`, which explains them.

    Examples
    --------
    >>> args = parse_arguments(["--format", "json", "--store", "s", "stats"])
    >>> args.command, args.format, args.store
    ('stats', 'json', 's')
    >>> args = parse_arguments(["build", "a.txt", "--workers", "2", "b.txt"])
    >>> args.sources, args.workers
    (['a.txt', 'b.txt'], 2)
    """
    words = sys.argv[1:] if argv is None else list(argv)
    parser, commands = _parsers()
    at = _command_position(words, commands)
    if at is None or TOP_LEVEL_ONLY.intersection(words[:at]):
        return parser.parse_args(words)
    args = commands[words[at]].parse_intermixed_args(words[:at] + words[at + 1 :])
    args.command = words[at]
    return args


def _command_position(words: list[str], commands: dict[str, argparse.ArgumentParser]) -> int | None:
    """Where the command is in ``words``: the first word that is neither an option nor an option's value."""
    takes_value: dict[str, bool] = {}
    for command in commands.values():
        for action in command._actions:  # argparse lists a parser's options nowhere public
            for option in action.option_strings:
                takes_value[option] = takes_value.get(option, False) or action.nargs != 0
    at = 0
    while at < len(words):
        word = words[at]
        if word == "--":
            return None
        if not word.startswith("-") or word == "-":
            return at if word in commands else None
        if "=" not in word and _takes_value(word, takes_value):
            at += 1  # skip the option's value
        at += 1
    return None


def _takes_value(option: str, takes_value: dict[str, bool]) -> bool:
    """Whether ``option`` (as typed: maybe an abbreviation, as argparse allows) is followed by a value."""
    if option in takes_value:
        return takes_value[option]
    if not option.startswith("--"):
        return False  # -oFILE: the value is attached
    meant = [takes for name, takes in takes_value.items() if name.startswith(option)]
    return bool(meant) and all(meant)


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    args.store = getattr(args, "store", None)
    args.endpoint = getattr(args, "endpoint", None)
    debug = getattr(args, "debug", False)
    spec = COMMANDS[args.command]
    try:
        with stop_at_once() if spec.at_once else nullcontext():
            return spec.handler(args)
    except KGError as err:
        if debug:
            raise
        print(f"kg: error: {err}", file=sys.stderr)
        return err.exit_status
    except KeyboardInterrupt as err:
        # A cancelled query says so (kg.errors.QueryCancelled); any other Ctrl-C is an interruption.
        print(f"kg: {str(err) or 'interrupted'}", file=sys.stderr)
        return INTERRUPTED
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
