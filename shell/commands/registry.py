"""The dot-commands' registry, filled by one decorator, and the dispatcher.

Each handler takes the :class:`~shell.session.Session` and the text after the command's
name, and returns a :class:`kg.query.result.Result`. ``.help`` and the completion of command
names and arguments are built from :data:`COMMANDS`; the handlers live in the modules of
:mod:`shell.commands`, one per topic, which register them when the package is imported.

Argument kinds (:attr:`Command.arguments`), which drive completion: ``entity`` (a label,
alias, prefixed name or IRI), ``format``, ``switch`` (on/off), ``seconds`` (a number, or off),
``export_format``, ``file``, ``saved`` (a saved query's name), ``command``, and ``text`` (anything).

Examples
--------
>>> COMMANDS[".path"].usage
'.path A B [--max-hops N] [--limit K] [--via LINK,...] [--papers|--no-papers]'
>>> COMMANDS[".exit"] is COMMANDS[".quit"]
True
>>> parse_command(".describe  goal misgeneralization")
('.describe', 'goal misgeneralization')
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.errors import UsageError
from shell.input.statements import Statement
from shell.query import apply_limit, run_sparql

if TYPE_CHECKING:
    from kg.query.result import Result
    from shell.session import Session

Handler = Callable[["Session", str], "Result"]


@dataclass(frozen=True)
class Command:
    """A registered dot-command.

    Attributes
    ----------
    name : str
        With its dot: ``".path"``.
    handler : callable
        ``handler(session, args) -> Result``.
    usage : str
        How to call it, for ``.help``; completion offers the ``--options`` it names.
    summary : str
        One line, for ``.help``.
    details : str
        More, for ``.help NAME``.
    arguments : tuple of str
        The kind of each positional argument, for completion.
    aliases : tuple of str
        Other names.
    """

    name: str
    handler: Handler
    usage: str
    summary: str
    details: str = ""
    arguments: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


COMMANDS: dict[str, Command] = {}
"""Every dot-command by name and alias."""


def command(
    usage: str, summary: str, *, details: str = "", arguments: tuple[str, ...] = (), aliases: tuple[str, ...] = ()
) -> Callable[[Handler], Handler]:
    """Register the decorated handler as the dot-command named by the first word of ``usage``."""

    def register(handler: Handler) -> Handler:
        name = usage.split()[0]
        entry = Command(name, handler, usage, summary, details, arguments, aliases)
        for key in (name, *aliases):
            if key in COMMANDS:
                raise ValueError(f"dot-command {key} registered twice")
            COMMANDS[key] = entry
        return handler

    return register


def unique_commands() -> list[Command]:
    """Each command once, in the order registered."""
    return list(dict.fromkeys(COMMANDS.values()))


def parse_command(text: str) -> tuple[str, str]:
    """Split a dot-command line into its name (lower case) and the rest."""
    name, *rest = text.strip().split(None, 1)
    return name.lower(), rest[0].strip() if rest else ""


def execute(session: Session, statement: Statement | str) -> Result:
    """Run one statement (SPARQL or a dot-command) and return its Result, cut at the limit.

    Raises
    ------
    kg.errors.KGError
        For anything the user can put right; the shell reports it and carries on.
    """
    if isinstance(statement, str):
        statement = Statement(statement)
    started = time.perf_counter()
    if statement.is_command:
        name, args = parse_command(statement.text)
        entry = COMMANDS.get(name)
        if entry is None:
            close = difflib.get_close_matches(name, list(COMMANDS), n=1)
            hint = f"; did you mean {close[0]}?" if close else "; .help lists them"
            raise UsageError(f"unknown command {name}{hint}")
        result = entry.handler(session, args)
    else:
        result = run_sparql(session, statement.text)
    if result.elapsed is None and result.kind != "message":
        result.elapsed = time.perf_counter() - started
    return apply_limit(result, session.limit)
