"""Short phrases the exploration reports and their renderings share (text, the shell's tables).

Examples
--------
>>> plural(2, "paper"), common_note(["A", "B"])
('2 papers', 'both linked to A, B')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

COMMON_SHOWN = 3
"""The concepts a predicted link rests on that its reason names; the rest are counted."""


def plural(number: int, noun: str) -> str:
    """``1 paper``, ``2 papers``.

    Examples
    --------
    >>> plural(1, "hop"), plural(0, "path")
    ('1 hop', '0 paths')
    """
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def relation_notes(relations: Iterable[tuple[str, int]]) -> list[str]:
    """Each relation with its support.

    Examples
    --------
    >>> relation_notes([("usedFor", 2), ("^partOf", 1)])
    ['usedFor (2 papers)', '^partOf (1 paper)']
    """
    return [f"{predicate} ({plural(support, 'paper')})" for predicate, support in relations]


def common_note(common: Sequence[str]) -> str:
    """The concepts a predicted link rests on, the first few by name.

    Examples
    --------
    >>> common_note(["A", "B", "C", "D", "E"])
    'both linked to A, B, C and 2 more'
    """
    shown = ", ".join(common[:COMMON_SHOWN])
    more = f" and {len(common) - COMMON_SHOWN} more" if len(common) > COMMON_SHOWN else ""
    return f"both linked to {shown}{more}"
