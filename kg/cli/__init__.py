"""The `kg` command line. Each subcommand is one small function over the library.

Errors the user can act on (:class:`kg.errors.KGError`) print one line on stderr and
exit with their status (2 for bad usage or input, 1 otherwise); ``--debug`` shows the
traceback instead. :mod:`kg.cli.main` builds the parser and dispatches; the commands
live in one module per group, each command's options beside its handler.
"""

from kg.cli.main import main

__all__ = ["main"]
