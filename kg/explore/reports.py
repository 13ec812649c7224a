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

Concepts appear by label, papers by IRI; a report's entries also carry the concept's IRI
(``iri``), which the JSON leaves out. A predicate is a relation's local name, the same
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
    "path_report",
    "plural",
    "related_report",
    "relation_notes",
]


def describe_report(store: Store, name: str, *, index: LabelIndex | None = None) -> Description:
    """One named entity: type, label, aliases, papers, proposers, and its relations with evidence.

    ``index`` names the entities (default: read from ``store``); see :func:`kg.explore.describe.describe`.
    """
    from kg.explore.describe import describe

    return describe(store, name, index=index)
