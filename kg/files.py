"""Writing a file so that readers never see it half-written: the one atomic writer, for every layer.

Exports, the viz page, trained weights, the projection cache and the shell's saved queries all
go through :func:`write_atomically`; it imports nothing of the project but its errors, so
extraction and the store may use it as well as the command line.

Examples
--------
>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
>>> write_atomically(path, lambda stream: stream.write(b"done"))
>>> path.read_text()
'done'
>>> write_atomically(path / "missing" / "x.txt", lambda stream: None)
Traceback (most recent call last):
...
kg.errors.UsageError: .../out.txt/missing/x.txt: no such directory .../out.txt/missing
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from kg.errors import UsageError

__all__ = ["write_atomically"]


def write_atomically(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Call ``write`` with a binary stream to a temporary file beside ``path``, then rename it to ``path``.

    A failure leaves ``path`` as it was and no temporary file behind.

    Raises
    ------
    kg.errors.UsageError
        The folder of ``path`` does not exist, or no file can be created in it.
    """
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise UsageError(f"{path}: no such directory {directory}")
    try:
        # Not a with block here: the file must outlive it, to be renamed or removed below.
        handle = tempfile.NamedTemporaryFile(dir=directory, prefix=f".{path.name}.", delete=False)
    except OSError as err:
        raise UsageError(f"{path}: cannot write: {err.strerror or err}") from None
    try:
        with handle:
            write(handle)
        # A temporary file is private (0600); the result gets the mode any new file would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(handle.name, 0o666 & ~umask)
        os.replace(handle.name, path)
    except BaseException:
        os.unlink(handle.name)
        raise
