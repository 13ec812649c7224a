"""The exploration service: one function per question, each returning a typed report.

Each ``*_report`` function resolves the concepts named by the user (label, alias or IRI,
with "did you mean"), runs an algorithm over the projection, and returns a frozen
dataclass. The front ends only render it: ``kg ... --format json`` prints ``to_json()``,
:mod:`kg.explore.text` writes it as text, :mod:`kg.api` returns ``to_json()``, and the
shell turns it into a :class:`kg.query.result.Result`.

:mod:`kg.explore.link_reports` holds the reports that follow links (path, neighbors),
:mod:`kg.explore.concept_reports` those that rank or group concepts (related, central,
communities); this module re-exports them beside :func:`describe_report`. The JSON shapes::

    path        {"source", "target", "paths": [{"length", "hops": [{"from", "predicate", "to",
                                                                    "support", "evidence", "paper"}]}]}
    neighbors   {"center", "type", "counts": [per ring], "neighbors": [{"label", "type", "hops",
                                                                       "predicate", "support", "via"}]}
    related     {"related": [{"label", "type", "score", "reason"}]}
    central     {"by", "central": [{"label", "type", "score", "papers"}]}
    communities {"communities": [{"name", "size", "top", "members"}]}
    describe    see :meth:`kg.explore.describe.Description.to_json`
    paper       see :meth:`kg.explore.papers.PaperReport.to_json`

Concepts appear by label, papers by IRI; a report's entries also carry the concept's IRI
(``iri``), which the JSON leaves out. Names are resolved by :meth:`kg.explore.lookup.LabelIndex.lookup`;
a report about named concepts carries ``notes`` (not in the JSON) saying which entity an
ambiguous name was taken for. A predicate is a relation's local name, the same
with ``^`` when the hop runs against the relation's direction, or ``mentions`` for two
concepts that a paper mentions both.

Examples
--------
>>> from kg.explore.projection import Projection
>>> graph = Projection.from_records(
...     entities=[("e:clip", "CLIP", "Method"), ("e:zsc", "zero-shot classification", "Task")],
...     relations=[("e:clip", "usedFor", "e:zsc", ["p:1"], "CLIP is used for zero-shot classification.", 0.9)])
>>> report = path_report(graph, None, "clip", "Zero-shot classification")
>>> hop = report.paths[0].hops[0]
>>> hop.source, hop.predicate, hop.target, hop.support, hop.paper
('CLIP', 'usedFor', 'zero-shot classification', 1, 'p:1')
>>> report.to_json()["paths"][0]["hops"][0] == {"from": "CLIP", "predicate": "usedFor", "to": hop.target,
...                                             "support": 1, "evidence": hop.evidence, "paper": "p:1"}
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kg.explore.concept_reports import (
    CentralConcept,
    CentralReport,
    CommunitiesReport,
    NamedCommunity,
    RelatedConcept,
    RelatedReport,
    central_report,
    communities_report,
    related_report,
)
from kg.explore.link_reports import (
    LabelledHop,
    LabelledPath,
    NearConcept,
    NeighborsReport,
    PathReport,
    link_kinds,
    neighbors_report,
    path_report,
)
from kg.explore.phrases import common_note, plural, relation_notes

if TYPE_CHECKING:
    from kg.explore.describe import Description
    from kg.explore.lookup import LabelIndex
    from kg.explore.papers import PaperReport
    from kg.store import Store

__all__ = [
    "CentralConcept",
    "CentralReport",
    "CommunitiesReport",
    "LabelledHop",
    "LabelledPath",
    "NamedCommunity",
    "NearConcept",
    "NeighborsReport",
    "PathReport",
    "RelatedConcept",
    "RelatedReport",
    "central_report",
    "common_note",
    "communities_report",
    "describe_report",
    "link_kinds",
    "neighbors_report",
    "paper_report",
    "path_report",
    "plural",
    "related_report",
    "relation_notes",
]


def describe_report(store: Store, name: str, *, index: LabelIndex | None = None) -> Description | PaperReport:
    """One named entity: type, label, aliases, papers, proposers, and its relations with evidence;
    or, when ``name`` names a paper rather than an entity, that paper (:func:`paper_report`).

    ``index`` names the entities (default: read from ``store``); see :func:`kg.explore.describe.describe`.
    A paper's IRI (``paper:…``) names the paper; any other name is an entity's first, then a paper's
    id (or the start of one).

    Raises
    ------
    EntityNotFoundError
        When ``name`` names neither, with "did you mean".
    PaperNotFoundError
        When ``name`` is a paper's IRI that is not in the graph, or the start of several papers' ids.
    UsageError
        When ``name`` is blank.
    """
    from kg.errors import EntityNotFoundError, PaperNotFoundError, UsageError
    from kg.explore.describe import describe
    from kg.explore.papers import names_paper

    if not name.strip():
        raise UsageError("name an entity (its label, an alias or its IRI) or a paper (paper:ID, its id)")
    if names_paper(name):
        return paper_report(store, name)
    try:
        return describe(store, name, index=index)
    except EntityNotFoundError as missing:
        try:
            return paper_report(store, name)
        except PaperNotFoundError as error:
            if error.matches:
                raise
            raise missing from None


def paper_report(store: Store, name: str) -> PaperReport:
    """One paper: title or opening words, abstract, sources, the entities it proposes and mentions,
    and the relations it states with their sentences. ``name`` is the paper's IRI (``paper:…``),
    its id or the start of its id; see :func:`kg.explore.papers.paper_report`."""
    from kg.explore.papers import paper_report as report

    return report(store, name)
