"""Iterables in lists of a given length, as they come (what ``itertools.batched`` gives from Python 3.12).

Examples
--------
>>> list(chunked(range(5), 2))
[[0, 1], [2, 3], [4]]
>>> list(chunked([], 3))
[]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TypeVar

T = TypeVar("T")


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last one shorter), reading no further ahead than one list."""
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
