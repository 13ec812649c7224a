"""The commands about the shell itself: ``.help``, built from the registry, and ``.quit``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.namespace import PREFIXES
from kg.query.result import Result
from shell.commands.registry import COMMANDS, command, unique_commands

if TYPE_CHECKING:
    from shell.session import Session

HELP_USAGE_WIDTH = 36
"""A longer usage line gets a line of its own in ``.help``'s list."""


@command(".help [COMMAND]", "list the commands, or explain one", arguments=("command",))
def cmd_help(session: Session, args: str) -> Result:
    name = args.strip().lower()
    if name:
        key = name if name.startswith(".") else "." + name
        entry = COMMANDS.get(key)
        if entry is None:
            raise UsageError(f"no command {key}; .help lists them")
        names = ", ".join((entry.name, *entry.aliases))
        text = f"{entry.usage}\n  {entry.summary}" + (f"\n\n{entry.details}" if entry.details else "")
        return Result.text(text + (f"\n  (also: {names})" if entry.aliases else ""))
    entries = unique_commands()
    width = min(max(len(e.usage) for e in entries), HELP_USAGE_WIDTH)
    lines = ["Dot-commands (one line each; entity names may be labels, aliases or IRIs):"]
    for e in entries:
        if len(e.usage) > width:
            lines += [f"  {e.usage}", f"  {'':<{width}}  {e.summary}"]
        else:
            lines.append(f"  {e.usage:<{width}}  {e.summary}")
    lines += [
        "",
        "SPARQL ends with ';' (outside braces); these prefixes are declared already:",
        "      " + ", ".join(PREFIXES),
        "Keys: Tab completes, Ctrl-R searches history, Alt-Enter runs unfinished input,",
        "      Ctrl-C cancels the input or a running query, Ctrl-D quits.",
    ]
    return Result.text("\n".join(lines))


@command(".quit", "leave the shell (Ctrl-D does too)", aliases=(".exit",))
def cmd_quit(session: Session, args: str) -> Result:
    session.running = False
    return Result.text("")
