"""Assembling a projection: plain records numbered into the lists a :class:`~kg.explore.projection.Projection` holds.

:func:`records_from_store` reads the records from a store with five SPARQL queries;
:func:`assemble` numbers entities and papers (in IRI order), inverts the mention lists and
merges the statements of each relation. What it returns holds builtins only, which is what the
store's cache keeps (:func:`kg.explore.projection.load_projection`).

Examples
--------
>>> lists = assemble(entities=[("e:b", "B", "Task"), ("e:a", "A", "Method", ["a"])], mentions=[("p:1", "e:b")])
>>> lists["entities"], lists["aliases"], lists["papers"], lists["papers_of"]
(['e:a', 'e:b'], {0: ['a']}, ['p:1'], [[], [0]])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from kg.namespace import local_name
from kg.store.queries import ENTITIES, PAPER_ENTITY_LINKS, PAPERS, RELATIONS, STATEMENTS, one_per_entity
from kg.store.select import select_strings

if TYPE_CHECKING:
    from kg.store import Store

CO_MENTION = "mentions"
"""The link name of two concepts mentioned by the same paper."""


def records_from_store(store: Store) -> dict[str, list]:
    """The records of ``store`` as keyword arguments of :func:`assemble`, read with five SPARQL queries."""
    entities = list(one_per_entity(select_strings(store, ENTITIES)))
    papers = select_strings(store, PAPERS)
    mentions = [(p, e, local_name(link)) for p, link, e in select_strings(store, PAPER_ENTITY_LINKS)]
    relations = [(s, local_name(p), o, (), None, None) for s, p, o in select_strings(store, RELATIONS)]
    for s, p, o, paper, evidence, confidence in select_strings(store, STATEMENTS):
        relations.append((s, local_name(p), o, (paper,) if paper else (), evidence, _float(confidence)))
    return {
        "entities": entities,
        "papers": [(p, title or ident) for p, title, ident in papers],
        "mentions": mentions,
        "relations": relations,
    }


def assemble(
    *,
    entities: Iterable[Sequence],
    papers: Iterable[Sequence] = (),
    mentions: Iterable[Sequence] = (),
    relations: Iterable[Sequence] = (),
) -> dict:
    """The lists of a projection, as builtins, from plain records (see :meth:`Projection.from_records
    <kg.explore.projection.Projection.from_records>` for the records, and :class:`~kg.explore.projection.Projection`
    for the lists)."""
    entity_rows: dict[str, tuple[str, str, tuple[str, ...]]] = {}
    for row in entities:
        iri, label, entity_type = row[0], row[1], row[2]
        aliases = tuple(row[3]) if len(row) > 3 else ()
        if iri in entity_rows:
            aliases = entity_rows[iri][2] + aliases
            label, entity_type = entity_rows[iri][0], entity_rows[iri][1]
        entity_rows[iri] = (label, entity_type, aliases)
    paper_titles = {iri: title for iri, title in papers}
    links = [(row[0], row[1], row[2] if len(row) > 2 else CO_MENTION) for row in mentions]
    links = [link for link in links if link[1] in entity_rows]
    for paper, _, _ in links:
        paper_titles.setdefault(paper, _last_segment(paper))
    statements = list(relations)
    for _, _, _, cited, _, _ in statements:
        for paper in cited:
            paper_titles.setdefault(paper, _last_segment(paper))

    entity_iris = sorted(entity_rows)
    ids = {iri: i for i, iri in enumerate(entity_iris)}
    paper_iris = sorted(paper_titles)
    paper_ids = {iri: i for i, iri in enumerate(paper_iris)}
    aliases_of = {}
    for i, iri in enumerate(entity_iris):
        label = entity_rows[iri][0]
        names = sorted({a for a in entity_rows[iri][2] if a and a != label})
        if names:
            aliases_of[i] = names

    mentioned: set[tuple[int, int]] = set()
    roles: set[tuple[int, int, str]] = set()
    for paper, entity, predicate in links:
        pair = (paper_ids[paper], ids[entity])
        mentioned.add(pair)
        if predicate != CO_MENTION:
            roles.add((*pair, predicate))
    papers_of: list[list[int]] = [[] for _ in entity_iris]
    entities_of: list[list[int]] = [[] for _ in paper_iris]
    for paper, entity in sorted(mentioned):
        papers_of[entity].append(paper)
        entities_of[paper].append(entity)

    rows = _merge_statements(statements, ids, paper_ids)
    relations_of: dict[int, list[int]] = {}
    for index, row in enumerate(rows):
        relations_of.setdefault(row[0], []).append(index)
        if row[2] != row[0]:
            relations_of.setdefault(row[2], []).append(index)
    return {
        "entities": entity_iris,
        "labels": [entity_rows[iri][0] for iri in entity_iris],
        "types": [entity_rows[iri][1] for iri in entity_iris],
        "aliases": aliases_of,
        "papers": paper_iris,
        "paper_labels": [paper_titles[iri] or _last_segment(iri) for iri in paper_iris],
        "papers_of": papers_of,
        "entities_of": entities_of,
        "roles": sorted(roles),
        "relations": rows,
        "relations_of": relations_of,
    }


def _merge_statements(statements: list[Sequence], ids: dict[str, int], paper_ids: dict[str, int]) -> list[tuple]:
    """One row per distinct (subject, predicate, object): papers merged, best evidence kept."""
    merged: dict[tuple[int, str, int], dict] = {}
    for subject, predicate, obj, cited, evidence, confidence in statements:
        if subject not in ids or obj not in ids:
            continue
        entry = merged.setdefault((ids[subject], predicate, ids[obj]), {"papers": set(), "best": None})
        papers = [paper_ids[p] for p in cited]
        entry["papers"].update(papers)
        if evidence:
            rank = (-(confidence if confidence is not None else 0.0), papers[0] if papers else -1, evidence)
            if entry["best"] is None or rank < entry["best"][0]:
                entry["best"] = (rank, evidence, papers[0] if papers else None, confidence)
    rows = []
    for (subject, predicate, obj), entry in sorted(merged.items()):
        _, evidence, paper, confidence = entry["best"] or (None, None, None, None)
        rows.append((subject, predicate, obj, tuple(sorted(entry["papers"])), evidence, paper, confidence))
    return rows


def _last_segment(iri: str) -> str:
    return iri.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]


def _float(value: str | None) -> float | None:
    try:
        return None if value is None else float(value)
    except ValueError:
        return None
