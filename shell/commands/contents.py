"""What the graph holds: ``.find`` (entities by label or alias), ``.stats`` and ``.prefixes``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rdflib import Literal

from kg.errors import UsageError
from kg.namespace import PREFIXES, local_name
from kg.query.result import Result
from kg.store.queries import FIND_ENTITIES
from shell.commands.registry import command

if TYPE_CHECKING:
    from shell.session import Session


@command(".find TEXT", "entities whose label or alias contains TEXT", arguments=("text",))
def cmd_find(session: Session, args: str) -> Result:
    text = " ".join(args.split())
    if not text:
        raise UsageError("usage: .find TEXT")
    needle = text.lower()
    rows = session.store.query(FIND_ENTITIES, bindings={"needle": Literal(needle)}).rows
    best: dict[str, tuple] = {}
    for entity, label, etype, match, _, papers in rows:
        rank = _match_rank(needle, str(match).lower()) + (0 if str(match) == str(label) else 0.5)
        key = (rank, -int(papers), str(label).lower())
        if str(entity) not in best or key < best[str(entity)][0]:
            alias = None if str(match) == str(label) else match
            best[str(entity)] = (key, (entity, label, local_name(etype), int(papers), alias))
    found = [row for _, row in sorted(best.values(), key=lambda item: item[0])]
    return Result.from_rows(["entity", "label", "type", "papers", "alias"], found)


def _match_rank(needle: str, text: str) -> int:
    if text == needle:
        return 0
    if text.startswith(needle):
        return 1
    if re.search(r"\b" + re.escape(needle), text):
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
