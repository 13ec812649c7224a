"""What the command modules share: the registry of commands, the option groups several commands
take, the option types, and reading the store and writing the answer.

A command is a handler registered with :func:`command` and, right after it, the function that
declares its options, registered with :func:`options`. Names with a leading underscore are for
the command modules of :mod:`kg.cli` only.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

__all__ = ["COMMANDS", "Command", "add_format_option", "command", "options", "shared_options"]

Handler = Callable[[argparse.Namespace], int]
Options = Callable[[argparse.ArgumentParser], None]


@dataclass(frozen=True)
class Command:
    """A subcommand: its handler, its one-line help, and how its options are declared."""

    handler: Handler
    help: str
    parents: tuple[str, ...] = ()  # shared option groups (see shared_options), after --store and --debug
    options: Options | None = None
    at_once: bool = False  # Ctrl-C ends it at once, even in a query (kg.cli.interrupts)


COMMANDS: dict[str, Command] = {}


def command(name: str, help: str, *, at_once: bool = False) -> Callable[[Handler], Handler]:
    """Register a subcommand handler under ``name``.

    ``at_once``: Ctrl-C ends the command at once, even while it waits on a query (see
    :mod:`kg.cli.interrupts`); for the commands that read the graph and write at most a file
    through :func:`kg.files.write_atomically` (the store is never written).
    """

    def register(handler: Handler) -> Handler:
        COMMANDS[name] = Command(handler, help, at_once=at_once)
        return handler

    return register


def options(name: str, *, parents: Sequence[str] = ()) -> Callable[[Options], Options]:
    """Register the function that declares the options of the command ``name`` (registered
    before), which come after those of the shared groups named in ``parents``."""

    def register(declare: Options) -> Options:
        COMMANDS[name] = replace(COMMANDS[name], parents=tuple(parents), options=declare)
        return declare

    return register


def shared_options() -> dict[str, argparse.ArgumentParser]:
    """The option groups several commands take, as argparse parents: ``common`` (every command,
    and ``kg`` itself), ``reading`` (commands that read a graph) and ``nlp`` (commands that extract:
    ``kg build`` and ``kg extract`` take the same sources, model and profiles)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="the graph store directory (default: $KG_STORE or ./.kg)",
    )
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    reading = argparse.ArgumentParser(add_help=False)
    reading.add_argument(
        "--endpoint",
        metavar="URL",
        default=argparse.SUPPRESS,
        help="query a SPARQL 1.1 endpoint instead of the local store",
    )
    nlp = argparse.ArgumentParser(add_help=False)
    nlp.add_argument("sources", nargs="*", metavar="SOURCE", help="a .txt, .jsonl, .csv or .tsv file, or a folder")
    nlp.add_argument(
        "--workers",
        type=_positive_int,
        default=None,
        metavar="N",
        help="extraction processes, one thread each (kg build: default one per core; kg extract: default 1)",
    )
    nlp.add_argument(
        "--model", default=None, help="spaCy pipeline (default: $KG_SPACY_MODEL or the installed en_core_web_sm)"
    )
    nlp.add_argument(
        "--profile",
        choices=_profiles(),
        default="default",
        help="the extraction to run: default (also named learned), the model learned from the annotations; "
        "rules, the vocabularies and rules over spaCy's parse; scierc, every typed span, as the SciERC "
        "benchmark scores them",
    )
    nlp.add_argument(
        "--skip-bad", action="store_true", help="skip bad records and report them, instead of stopping at the first"
    )
    return {"common": common, "reading": reading, "nlp": nlp}


def _profiles() -> tuple[str, ...]:
    # The pipeline's own list, so that `kg build` and `kg extract` take every profile it has.
    from kg.extract.pipeline import PROFILES

    return tuple(PROFILES)


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """``--format text|json``, for the commands that print a report either way."""
    parser.add_argument("--format", choices=("text", "json"), default="text")


def _whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {value!r}") from None
        if number < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more")
        return number

    return parse


_positive_int = _whole_number(1)
_count = _whole_number(0)


def _seconds(text: str) -> float:
    """An argparse type: a time limit, in seconds greater than 0 (``--timeout``)."""
    from kg.errors import UsageError, check_seconds

    try:
        return check_seconds("--timeout", text)
    except UsageError as err:
        raise argparse.ArgumentTypeError(str(err).removeprefix("--timeout ")) from None


def _open_for_reading(args: argparse.Namespace):
    from kg.store import open_store

    return open_store(args.store, endpoint=args.endpoint)


def _write_text(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    sys.stdout.flush()
