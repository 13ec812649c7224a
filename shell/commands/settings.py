"""How results are shown: ``.format``, ``.timing`` and ``.limit``, kept in the session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kg.errors import UsageError
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
