"""The exploration reports of :mod:`kg.explore.reports` as text for a terminal.

Each function takes one report and returns the text, ending with a line break.

Examples
--------
>>> from kg.explore.reports import LabelledHop, LabelledPath, PathReport
>>> report = PathReport("CLIP", "zero-shot classification", (LabelledPath((
...     LabelledHop("CLIP", "usedFor", "zero-shot classification", 2, "CLIP is used for zero-shot classification.",
...                 "https://w3id.org/abstract-kg/resource/paper/p1"),)),))
>>> print(render_path(report), end="")
CLIP → zero-shot classification: 1 path
<BLANKLINE>
1. 1 hop
   CLIP —usedFor→ zero-shot classification  (2 papers)
      “CLIP is used for zero-shot classification.”  paper:p1

IRIs are written as :func:`kg.namespace.prefixed_name` gives them (``paper:p1``, ``entity:clip``),
so that a paper cited can be looked up with ``kg paper`` or pasted into a query.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from kg.explore.reports import plural
from kg.namespace import prefixed_name

if TYPE_CHECKING:
    from kg.explore.describe import Description
    from kg.explore.papers import PaperEntity, PaperReport
    from kg.explore.reports import (
        CentralConcept,
        CentralReport,
        CommunitiesReport,
        NearConcept,
        NeighborsReport,
        PathReport,
        RelatedReport,
    )

WIDTH = 100
PER_PREDICATE = 5
"""The relations of each predicate and direction that :func:`render_description` lists; JSON has all."""


def render_path(report: PathReport) -> str:
    """Each path, each hop on a line with its direction and support, its evidence below."""
    head = f"{report.source} → {report.target}"
    if not report.paths:
        return f"{head}: no path found (try a larger --max-hops, or other --via links)\n"
    lines = [f"{head}: {plural(len(report.paths), 'path')}", ""]
    for number, path in enumerate(report.paths, 1):
        lines.append(f"{number}. {plural(path.length, 'hop')}")
        for hop in path.hops:
            lines.append(f"   {_arrow(hop.source, hop.predicate, hop.target)}  ({plural(hop.support, 'paper')})")
            lines.extend(_evidence_lines(hop.evidence, hop.paper))
    return "\n".join(lines) + "\n"


def render_neighbors(report: NeighborsReport) -> str:
    """Ring by ring, under column names: each concept with its type, link and support, and the concept it
    is reached through.

    Examples
    --------
    >>> from kg.explore.reports import NearConcept, NeighborsReport
    >>> print(render_neighbors(NeighborsReport("CLIP", "Method", (1,), (
    ...     NearConcept("e:imagenet", "ImageNet", "Dataset", 1, "mentions", 7, "CLIP"),))), end="")
    CLIP (Method)
    <BLANKLINE>
    1 hop: 1 concept
      concept   type     link      papers
      ImageNet  Dataset  mentions       7
    """
    lines = [f"{report.center} ({report.type})"]
    rows_by_ring: dict[int, list[NearConcept]] = {}
    for near in report.neighbors:
        rows_by_ring.setdefault(near.hops, []).append(near)
    if not report.counts or not report.counts[0]:
        return lines[0] + "\n\nno linked concepts\n"
    for ring, total in enumerate(report.counts, 1):
        rows = rows_by_ring.get(ring, [])
        shown = f", showing the first {len(rows)}" if len(rows) < total else ""
        lines += ["", f"{plural(ring, 'hop')}: {plural(total, 'concept')}{shown}"]
        header = ["concept", "type", "link", "papers"] + ([] if ring == 1 else ["via"])
        table = [[r.label, r.type, r.predicate, str(r.support)] + ([] if ring == 1 else [r.via]) for r in rows]
        lines += _columns(table, header=header, numbers=(3,), indent="  ")
    return "\n".join(lines) + "\n"


def render_related(report: RelatedReport) -> str:
    """The associated concepts, then the predicted links, each under column names: label, type, score
    (named by its measure) and the reason.

    Examples
    --------
    >>> from kg.explore.reports import RelatedConcept, RelatedReport
    >>> print(render_related(RelatedReport((RelatedConcept(
    ...     "e:imagenet", "ImageNet", "Dataset", 0.0753, 7, 32, (), (), False,
    ...     "mentioned with CLIP in 7 of its 32 papers (jaccard)"),))), end="")
    concept   type     jaccard  why
    ImageNet  Dataset   0.0753  mentioned with CLIP in 7 of its 32 papers (jaccard)
    """
    if not report.related:
        return "no related concepts\n"
    sections = []
    for predicted, title, score in ((False, "concept", report.measure), (True, "not linked yet", "Adamic-Adar")):
        rows = [[r.label, r.type, f"{r.score:.4f}", r.reason] for r in report.related if r.predicted == predicted]
        if rows:
            sections.append("\n".join(_columns(rows, header=[title, "type", score, "why"], numbers=(2,))))
    return "\n\n".join(sections) + "\n"


def render_central(report: CentralReport) -> str:
    """Per type, the concepts ranked, under column names: the score (named by its measure) and the number
    of papers.

    Examples
    --------
    >>> from kg.explore.reports import CentralConcept, CentralReport
    >>> print(render_central(CentralReport("degree", (
    ...     CentralConcept("e:ft", "fine-tuning", "Method", 612, 97),))), end="")
    Most central concepts by degree
    <BLANKLINE>
    Method             degree  papers
       1. fine-tuning     612      97
    """
    lines = [f"Most central concepts by {report.by}"]
    by_type: dict[str, list[CentralConcept]] = {}
    for concept in report.central:
        by_type.setdefault(concept.type, []).append(concept)
    for kind, rows in by_type.items():
        table = [[f"{rank:>4}. {r.label}", str(r.score), str(r.papers)] for rank, r in enumerate(rows, 1)]
        lines += ["", *_columns(table, header=[kind, report.by, "papers"], numbers=(1, 2))]
    if not by_type:
        lines.append("no concepts")
    return "\n".join(lines) + "\n"


def render_communities(report: CommunitiesReport) -> str:
    """Each community: its name, size and best-connected members.

    Examples
    --------
    >>> from kg.explore.reports import CommunitiesReport, NamedCommunity
    >>> print(render_communities(CommunitiesReport((
    ...     NamedCommunity("CLIP / ImageNet", 2, ("CLIP", "ImageNet"), ("CLIP", "ImageNet")),))), end="")
    1. CLIP / ImageNet  (2 concepts)
       CLIP, ImageNet
    """
    if not report.communities:
        return "no communities\n"
    lines = []
    for number, community in enumerate(report.communities, 1):
        lines.append(f"{number}. {community.name}  ({plural(community.size, 'concept')})")
        lines.append(textwrap.fill(", ".join(community.top), WIDTH, initial_indent="   ", subsequent_indent="   "))
    return "\n".join(lines) + "\n"


def render_description(description: Description) -> str:
    """The entity's label, type, IRI, aliases and papers, then its relations by predicate, each with
    evidence and the paper it comes from.

    Examples
    --------
    >>> from kg.explore.describe import Description, Link
    >>> from kg.namespace import entity_iri, paper_iri
    >>> p1 = paper_iri("p1")
    >>> print(render_description(Description(entity_iri("arp"), "ARP", "Method", (), (p1,), (p1,), (
    ...     Link("addresses", "out", "e:gm", "goal misgeneralization", "Phenomenon", 1, "ARP mitigates it.", p1),
    ... ))), end="")
    ARP  (Method)  entity:arp
    papers: 1 mention it; 1 propose it
    <BLANKLINE>
    addresses ->  (1)
      goal misgeneralization (Phenomenon), support 1
        “ARP mitigates it.”  paper:p1
    """
    lines = [f"{description.label}  ({description.type})  {prefixed_name(description.iri)}"]
    if description.aliases:
        lines.append(f"aliases: {', '.join(description.aliases)}")
    lines.append(f"papers: {len(description.papers)} mention it; {len(description.proposed_by)} propose it")
    for predicate, links in description.by_predicate().items():
        for direction in ("out", "in"):
            chosen = [link for link in links if link.direction == direction]
            if not chosen:
                continue
            heading = f"{predicate} ->" if direction == "out" else f"<- {predicate}"
            lines.append("")
            lines.append(f"{heading}  ({len(chosen)})")
            for link in chosen[:PER_PREDICATE]:
                lines.append(f"  {link.label} ({link.type}), support {link.support}")
                lines.append(f"    \u201c{link.evidence}\u201d  {prefixed_name(link.paper)}")
            if len(chosen) > PER_PREDICATE:
                lines.append(f"  ... and {len(chosen) - PER_PREDICATE} more (--format json lists all)")
    if not description.links:
        lines.append("no relations to other entities yet")
    return "\n".join(lines) + "\n"


def render_paper(report: PaperReport) -> str:
    """The paper's name, headline, metadata and sources, its abstract, its entities, then each
    relation it states with the sentence.

    Examples
    --------
    >>> from kg.explore.papers import PaperEntity, PaperReport, PaperRelation
    >>> from kg.namespace import paper_iri
    >>> print(render_paper(PaperReport(paper_iri("p2"), "p2", None, "Our ARP mitigates goal misgeneralization.",
    ...     ("a.txt:3",), entities=(PaperEntity("e:arp", "ARP", "Method", "proposes"),
    ...                             PaperEntity("e:gm", "goal misgeneralization", "Phenomenon", "studies")),
    ...     relations=(PaperRelation("ARP", "addresses", "goal misgeneralization", "e:arp", "e:gm",
    ...                              "Our ARP mitigates goal misgeneralization.", 0.8),))), end="")
    paper:p2
    Our ARP mitigates goal misgeneralization.
    read at: a.txt:3
    <BLANKLINE>
      Our ARP mitigates goal misgeneralization.
    <BLANKLINE>
    proposes: ARP (Method)
    mentions: goal misgeneralization (Phenomenon)
    <BLANKLINE>
    relations (1)
      ARP —addresses→ goal misgeneralization
        “Our ARP mitigates goal misgeneralization.”
    """
    name = prefixed_name(report.iri)
    if report.id and not name.endswith(":" + report.id):
        name += f"  (id {report.id})"
    lines = [name, report.headline]
    if report.date or report.authors:
        lines.append("; ".join(filter(None, [report.date, ", ".join(report.authors)])))
    if report.url:
        lines.append(report.url)
    if report.sources:
        lines.append(textwrap.fill(f"read at: {', '.join(report.sources)}", WIDTH, subsequent_indent="  "))
    lines.append("")
    lines.append(textwrap.fill(report.abstract, WIDTH, initial_indent="  ", subsequent_indent="  "))
    lines.append("")
    lines.append(_entity_list("proposes", report.proposes))
    lines.append(_entity_list("mentions", report.mentions))
    lines += ["", f"relations ({len(report.relations)})"]
    for relation in report.relations:
        lines.append(f"  {_arrow(relation.subject, relation.predicate, relation.object)}")
        if relation.evidence:
            lines.append(
                textwrap.fill(f"“{relation.evidence}”", WIDTH, initial_indent="    ", subsequent_indent="     ")
            )
    if not report.relations:
        lines[-1] = "no relations stated"
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- helpers


def _entity_list(heading: str, entities: tuple[PaperEntity, ...]) -> str:
    names = ", ".join(f"{entity.label} ({entity.type})" for entity in entities) or "nothing"
    return textwrap.fill(f"{heading}: {names}", WIDTH, subsequent_indent="  ")


def _arrow(source: str, predicate: str, target: str) -> str:
    if predicate == "mentions":
        return f"{source} —mentioned with— {target}"
    if predicate.startswith("^"):
        return f"{source} ←{predicate[1:]}— {target}"
    return f"{source} —{predicate}→ {target}"


def _evidence_lines(evidence: str | None, paper: str | None) -> list[str]:
    where = f"  {prefixed_name(paper)}" if paper else ""
    if not evidence:
        return [f"      (no sentence names both){where}"] if paper else []
    text = f"“{evidence}”{where}"
    return textwrap.wrap(text, WIDTH, initial_indent="      ", subsequent_indent="       ")


def _columns(
    rows: list[list[str]], *, header: list[str] | None = None, numbers: tuple[int, ...] = (), indent: str = ""
) -> list[str]:
    """Columns two spaces apart under an optional ``header`` line of column names; the columns whose
    indices are in ``numbers`` are right-aligned, the others left-aligned, and the last is not padded.

    Examples
    --------
    >>> print("\\n".join(_columns([["CLIP", "12", "a"], ["LoRA", "3", "b"]], header=["concept", "papers", "note"],
    ...                            numbers=(1,))))
    concept  papers  note
    CLIP         12  a
    LoRA          3  b
    """
    if not rows:
        return []
    table = ([header] if header else []) + rows
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]

    def line(row: list[str]) -> str:
        cells = [cell.rjust(w) if i in numbers else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        return (indent + "  ".join(cells)).rstrip()  # the last column is not padded

    return [line(row) for row in table]
