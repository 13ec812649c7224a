"""`kg describe X`: one entity with its type, aliases, papers, and its relations grouped by
predicate, each with its support (distinct papers) and one evidence sentence."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kg.explore.lookup import LabelIndex
from kg.namespace import local_name

if TYPE_CHECKING:
    from kg.store import Store

_ENTITY = """
SELECT ?label ?type (GROUP_CONCAT(DISTINCT ?alias; SEPARATOR="\\u001f") AS ?aliases) WHERE {{
  <{iri}> rdfs:label ?label ; a ?type .
  VALUES ?type {{ kg:Method kg:Dataset kg:Task kg:Metric kg:Phenomenon }}
  OPTIONAL {{ <{iri}> skos:altLabel ?alias }}
}} GROUP BY ?label ?type"""

_PAPERS = """
SELECT ?paper ?proposes WHERE {{
  ?paper kg:mentions <{iri}> .
  BIND(EXISTS {{ ?paper kg:proposes <{iri}> }} AS ?proposes)
}} ORDER BY ?paper"""

# MIN picks the same evidence sentence on every run (SAMPLE need not).
_RELATIONS = """
SELECT ?predicate ?direction ?other ?otherLabel ?otherType (COUNT(DISTINCT ?paper) AS ?support)
       (MIN(?evidence) AS ?sentence) (MIN(?paper) AS ?source) WHERE {{
  {{ ?st rdf:subject <{iri}> ; rdf:predicate ?predicate ; rdf:object ?other . BIND("out" AS ?direction) }}
  UNION
  {{ ?st rdf:object <{iri}> ; rdf:predicate ?predicate ; rdf:subject ?other . BIND("in" AS ?direction) }}
  ?st prov:wasDerivedFrom ?paper ; kg:evidence ?evidence .
  ?other rdfs:label ?otherLabel ; a ?otherType .
  VALUES ?otherType {{ kg:Method kg:Dataset kg:Task kg:Metric kg:Phenomenon }}
}} GROUP BY ?predicate ?direction ?other ?otherLabel ?otherType
ORDER BY ?predicate ?direction DESC(?support) ?otherLabel"""


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
        return {"direction": self.direction, "entity": self.label, "iri": self.iri, "type": self.type,
                "support": self.support, "evidence": self.evidence, "paper": self.paper}


@dataclass(frozen=True)
class Description:
    iri: str
    label: str
    type: str
    aliases: tuple[str, ...]
    papers: tuple[str, ...]
    proposed_by: tuple[str, ...]
    links: tuple[Link, ...] = field(default=())

    def by_predicate(self) -> dict[str, list[Link]]:
        grouped: dict[str, list[Link]] = {}
        for link in self.links:
            grouped.setdefault(link.predicate, []).append(link)
        return grouped

    def to_json(self) -> dict[str, object]:
        return {"iri": self.iri, "label": self.label, "type": self.type, "aliases": list(self.aliases),
                "papers": len(self.papers), "proposed_by": list(self.proposed_by),
                "relations": {p: [link.to_json() for link in links] for p, links in self.by_predicate().items()}}


def describe(store: Store, name: str, *, index: LabelIndex | None = None) -> Description:
    """Describe the entity called ``name`` (label, alias or IRI).

    Raises
    ------
    EntityNotFoundError
        When no entity has that name; the message suggests near misses.
    """
    iri = (index or LabelIndex.from_store(store)).resolve(name)
    (label, entity_type, aliases), *_ = store.query(_ENTITY.format(iri=iri)).rows
    papers, proposed_by = [], []
    for paper, proposes in store.query(_PAPERS.format(iri=iri)).rows:
        papers.append(str(paper))
        if proposes is not None and proposes.toPython():
            proposed_by.append(str(paper))
    links = tuple(
        Link(predicate=local_name(predicate), direction=str(direction), iri=str(other), label=str(other_label),
             type=local_name(other_type), support=int(support), evidence=str(sentence), paper=str(source))
        for predicate, direction, other, other_label, other_type, support, sentence, source
        in store.query(_RELATIONS.format(iri=iri)).rows
    )
    return Description(iri=iri, label=str(label), type=local_name(entity_type),
                       aliases=tuple(sorted(a for a in str(aliases or "").split("\u001f") if a)),
                       papers=tuple(papers), proposed_by=tuple(proposed_by), links=links)
