"""How results are shown, and how long a query may run: ``.format``, ``.timing``, ``.limit`` and
``.timeout``, kept in the session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kg.errors import UsageError, check_seconds
from kg.query import FORMATS, Result
from shell.commands.arguments import switch, whole_number
from shell.commands.registry import command

if TYPE_CHECKING:
    from shell.session import Session


@command(".format [" + "|".join(FORMATS) + "]", "how results are shown", arguments=("format",))
def cmd_format(session: Session, args: str) -> Result:
    value = args.strip().lower()
    if value:
        if value not in FORMATS:
            raise UsageError(f"unknown format {value!r}; choose one of: {', '.join(FORMATS)}")
        session.fmt = value
    return Result.text(f"format: {session.fmt}")


@command(".timing [on|off]", "show the time each query takes", arguments=("switch",))
def cmd_timing(session: Session, args: str) -> Result:
    if args.strip():
        session.timing = switch(args.strip(), ".timing")
    return Result.text(f"timing: {'on' if session.timing else 'off'}")


@command(".limit [N]", "show at most N rows of a result (0: all)", arguments=("text",))
def cmd_limit(session: Session, args: str) -> Result:
    if args.strip():
        session.limit = whole_number(args.strip(), ".limit")
    return Result.text(f"limit: {session.limit} rows" if session.limit else "limit: none")


@command(
    ".timeout [SECONDS|off]",
    "abandon a query that runs longer than SECONDS (off: no limit)",
    details="A query past the limit is stopped, with the process that ran it; so is one Ctrl-C cancels.",
    arguments=("seconds",),
)
def cmd_timeout(session: Session, args: str) -> Result:
    value = args.strip().lower()
    if value:
        session.timeout = None if value == "off" else check_seconds(".timeout", value)
    return Result.text(f"timeout: {session.timeout:g} s" if session.timeout else "timeout: off")
