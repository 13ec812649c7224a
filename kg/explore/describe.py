"""`kg describe X`: one entity with its type, aliases, papers, and its relations grouped by
predicate, each with its support (distinct papers) and one evidence sentence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kg.explore.lookup import LabelIndex, notes_of
from kg.namespace import local_name
from kg.store.queries import ENTITIES, ENTITY_LINKS, ENTITY_PAPERS, ENTITY_PROPOSERS, split_aliases
from kg.store.select import select_strings

if TYPE_CHECKING:
    from kg.store import Store


@dataclass(frozen=True)
class Link:
    """One relation of the described entity: to (``out``) or from (``in``) another entity."""

    predicate: str
    direction: str
    iri: str
    label: str
    type: str
    support: int
    evidence: str
    paper: str

    def to_json(self) -> dict[str, object]:
        return {
            "direction": self.direction,
            "entity": self.label,
            "iri": self.iri,
            "type": self.type,
            "support": self.support,
            "evidence": self.evidence,
            "paper": self.paper,
        }


@dataclass(frozen=True)
class Description:
    """One entity, its papers and its relations; ``notes`` say which entity an ambiguous name was
    taken for (not part of the JSON)."""

    iri: str
    label: str
    type: str
    aliases: tuple[str, ...]
    papers: tuple[str, ...]
    proposed_by: tuple[str, ...]
    links: tuple[Link, ...] = field(default=())
    notes: tuple[str, ...] = field(default=())

    def by_predicate(self) -> dict[str, list[Link]]:
        grouped: dict[str, list[Link]] = {}
        for link in self.links:
            grouped.setdefault(link.predicate, []).append(link)
        return grouped

    def to_json(self) -> dict[str, object]:
        return {
            "iri": self.iri,
            "label": self.label,
            "type": self.type,
            "aliases": list(self.aliases),
            "papers": len(self.papers),
            "proposed_by": list(self.proposed_by),
            "relations": {p: [link.to_json() for link in links] for p, links in self.by_predicate().items()},
        }


def describe(store: Store, name: str, *, index: LabelIndex | None = None) -> Description:
    """Describe the entity called ``name`` (label, alias or IRI: :meth:`LabelIndex.lookup`).

    Raises
    ------
    EntityNotFoundError
        When no entity has that name; the message suggests near misses.
    """
    choice = (index or _label_index(store)).lookup(name)
    iri = choice.iri
    entity = {"entity": iri}
    (_, entity_type, label, aliases), *_ = select_strings(store, ENTITIES, bindings=entity)
    papers = sorted(paper for _, paper in select_strings(store, ENTITY_PAPERS, bindings=entity))
    mentioning = set(papers)
    proposers = select_strings(store, ENTITY_PROPOSERS, bindings=entity)
    proposed_by = sorted(paper for _, paper in proposers if paper in mentioning)
    links = tuple(
        Link(
            predicate=local_name(predicate),
            direction=str(direction),
            iri=str(other),
            label=str(other_label),
            type=local_name(other_type),
            support=int(support),
            evidence=str(sentence),
            paper=str(source),
        )
        for _, predicate, direction, other, other_label, other_type, support, sentence, source in select_strings(
            store, ENTITY_LINKS, bindings=entity
        )
    )
    return Description(
        iri=iri,
        label=str(label),
        type=local_name(entity_type),
        aliases=tuple(sorted(split_aliases(aliases))),
        papers=tuple(papers),
        proposed_by=tuple(proposed_by),
        links=links,
        notes=notes_of(choice),
    )


def _label_index(store: Store) -> LabelIndex:
    """The names of the entities: from the projection cached beside a local store (its paper counts are
    what :meth:`LabelIndex.from_store` counts, and reading them back is a fraction of counting every
    mention again: 1 s at 10k papers), else from the store."""
    from kg.store import EmbeddedStore

    if isinstance(store, EmbeddedStore):
        from kg.explore.projection import load_projection

        return load_projection(store).label_index()
    return LabelIndex.from_store(store)
