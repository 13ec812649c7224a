"""What the graph holds: ``.find`` (entities by label or alias), ``.stats`` and ``.prefixes``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rdflib import Literal

from kg.errors import UsageError
from kg.namespace import PREFIXES, local_name
from kg.normalize import contains_words, fold
from kg.query.result import Result
from kg.store.queries import FIND_ENTITIES
from shell.commands.registry import command

if TYPE_CHECKING:
    from shell.session import Session


@command(
    ".find TEXT",
    "entities whose label or alias contains TEXT",
    details="Best matches first (the whole name, then TEXT as whole words, then the start of a word, then "
    "anywhere); among equal matches, the entity more papers mention.",
    arguments=("text",),
)
def cmd_find(session: Session, args: str) -> Result:
    text = " ".join(args.split())
    if not text:
        raise UsageError("usage: .find TEXT")
    needle = text.lower()
    rows = session.store.query(FIND_ENTITIES, bindings={"needle": Literal(needle)}).rows
    best: dict[str, tuple] = {}
    for entity, label, etype, match, _, papers in rows:
        is_alias = str(match) != str(label)
        key = (match_quality(text, str(match)), -int(papers), is_alias, str(label).lower())
        if str(entity) not in best or key < best[str(entity)][0]:
            best[str(entity)] = (key, (entity, label, local_name(etype), int(papers), match if is_alias else None))
    found = [row for _, row in sorted(best.values(), key=lambda item: item[0])]
    return Result.from_rows(["entity", "label", "type", "papers", "alias"], found)


def match_quality(text: str, name: str) -> int:
    """How well ``name`` (a label or alias) matches the ``text`` searched for, best 0: the whole name
    (folded), the text as whole words of it, the text at the start of one of its words, anywhere.

    Examples
    --------
    >>> [match_quality("forgetting", name) for name in ("Forgetting", "catastrophic forgetting", "forgettingness")]
    [0, 1, 2]
    """
    if fold(name) == fold(text):
        return 0
    if contains_words(name, text):
        return 1
    if re.search(r"\b" + re.escape(text.lower()), name.lower()):
        return 2
    return 3


@command(".stats", "papers, entities per type, relations and triples")
def cmd_stats(session: Session, args: str) -> Result:
    from kg.explore.stats import collect_stats

    stats = collect_stats(session.store)
    rows = [("papers", stats.papers), ("entities", sum(stats.entities.values()))]
    rows += [(f"entities: {name}", count) for name, count in stats.entities.items()]
    rows += [("relations", stats.relations), ("triples", stats.triples)]
    return Result.from_rows(["what", "count"], rows)


@command(".prefixes", "the prefixes declared for every query")
def cmd_prefixes(session: Session, args: str) -> Result:
    return Result.from_rows(["prefix", "namespace"], [(p + ":", iri) for p, iri in PREFIXES.items()])
