"""Progress of long work (extraction, validation) as a tqdm bar on stderr: what is done of how much, the
rate, the time left, and any running counts the work reports (``kg build``: entities and relations so
far). Drawn on a terminal only, so that piped or captured output stays clean.

Examples
--------
>>> import io
>>> stream = io.StringIO()
>>> show = terminal_progress("extracting", "abstract", stream=stream, force=True)
>>> for done in (1, 2):
...     show(done, 2, entities=5 * done, relations=done)
>>> final = stream.getvalue().split(chr(13))[-1]
>>> "2/2" in final and "entities=10" in final and "relations=2" in final
True
>>> terminal_progress("extracting", "abstract", stream=io.StringIO())(1, 2)  # not a terminal: nothing
"""

from __future__ import annotations

import os
import sys
from typing import IO, Protocol

__all__ = ["Progress", "terminal_progress"]


class Progress(Protocol):
    """Called as ``progress(done, total)`` after each step of the work, with any running counts as
    keywords (``entities=120, relations=40``)."""

    def __call__(self, done: int, total: int, /, **counts: int) -> None: ...


def terminal_progress(description: str, unit: str, *, stream: IO[str] | None = None, force: bool = False) -> Progress:
    """A :data:`Progress` that draws a tqdm bar on ``stream`` (default stderr) when it is a terminal
    (or ``force``), and does nothing otherwise.

    Parameters
    ----------
    description
        What is being done, shown before the bar ("validating").
    unit
        What is counted, in the singular ("node").
    """
    stream = stream or sys.stderr
    if not (force or stream.isatty()):
        return _silent
    from tqdm import tqdm

    bar: tqdm | None = None

    def update(done: int, total: int, /, **counts: int) -> None:
        nonlocal bar
        if bar is None:
            columns, lines = _size(stream)
            bar = tqdm(
                total=total,
                desc=description,
                unit=f" {unit}",
                file=stream,
                ncols=min(columns, 120),
                nrows=lines,
                mininterval=0.2,
            )
        bar.total = total
        if counts:
            bar.set_postfix(counts, refresh=False)
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def _size(stream: IO[str]) -> tuple[int, int]:
    """The terminal's columns and lines (100 x 24 when unknown: a pty not sized yet says 0 x 0, and tqdm
    would draw nothing)."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return 100, 24
    return size.columns or 100, size.lines or 24


def _silent(done: int, total: int, /, **counts: int) -> None:
    """Not a terminal: nothing to draw."""
