"""The shell's dot-commands, registered by topic into one registry.

:mod:`~shell.commands.registry`
    The registry (:data:`COMMANDS`), the :func:`command` decorator, and :func:`execute`,
    which runs a statement: SPARQL or a dot-command.
:mod:`~shell.commands.arguments`
    Reading a command's words, ``--options`` and entity names.
:mod:`~shell.commands.graph`
    ``.path``, ``.neighbors``, ``.related``, ``.describe``: the graph questions, asked of the
    exploration service (:mod:`kg.explore.reports`) and shown as Results.
:mod:`~shell.commands.contents`
    ``.find``, ``.stats``, ``.prefixes``: what the graph holds.
:mod:`~shell.commands.settings`
    ``.format``, ``.timing``, ``.limit``, ``.timeout``: how results are shown, how long a query may run.
:mod:`~shell.commands.files`
    ``.export``, ``.save``, ``.run``: the graph written to a file, and saved queries.
:mod:`~shell.commands.meta`
    ``.help``, ``.quit``: the shell itself.

A new command goes into the module of its topic, under ``@command(usage, summary, ...)``;
``.help`` and completion pick it up from the registry.
"""

# The topics register their commands as they are imported, in the order .help lists them.
from shell.commands import graph, contents, settings, files, meta  # noqa: F401, I001
from shell.commands.registry import COMMANDS, Command, command, execute, parse_command, unique_commands

__all__ = ["COMMANDS", "Command", "command", "execute", "parse_command", "unique_commands"]
