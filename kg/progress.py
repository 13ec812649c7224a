"""Progress of long work (extraction, validation) as a bar on stderr: drawn on a terminal only, so that
piped or captured output stays clean."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

__all__ = ["Progress", "terminal_progress"]

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` after each step of the work."""


def terminal_progress(description: str, unit: str) -> Progress:
    """A :data:`Progress` that draws a tqdm bar on stderr when stderr is a terminal, and does nothing
    otherwise.

    Parameters
    ----------
    description
        What is being done, shown before the bar ("validating").
    unit
        What is counted, in the singular ("node").
    """
    if not sys.stderr.isatty():
        return _silent
    from tqdm import tqdm

    bar: tqdm | None = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            size = os.get_terminal_size(sys.stderr.fileno())  # a pty not sized yet says 0 x 0: tqdm draws nothing
            bar = tqdm(
                total=total,
                desc=description,
                unit=f" {unit}",
                file=sys.stderr,
                ncols=min(size.columns or 80, 100),
                nrows=size.lines or 24,
            )
        bar.total = total
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def _silent(done: int, total: int) -> None:
    """Not a terminal: nothing to draw."""
