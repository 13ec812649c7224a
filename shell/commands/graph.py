"""The graph questions: ``.path``, ``.neighbors``, ``.related``, ``.describe`` and ``.paper``.

Each handler names its entities (:meth:`shell.session.Session.resolve`, the one lookup, which
notes which entity an ambiguous name was taken for), asks the exploration service
(:mod:`kg.explore.reports`, the one ``kg path``, ``kg neighbors``, ``kg related``, ``kg describe``
and ``kg paper`` ask) over the session's projection or store, and turns the report into a
:class:`kg.query.result.Result` (the functions ending in ``_result``): a table whose columns
hold IRIs where a row names a concept or a paper, so that the table shows them as prefixed
names (``entity:clip``, ``paper:b4b800…``) and CSV/JSON give them in full; or a message.

Links are named as in ``kg path --format json``: a relation (``usedFor``), the same
followed against its direction (``^usedFor``), or ``mentions`` for two concepts that a
paper mentions both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rdflib import URIRef

from kg.errors import UsageError
from kg.explore.evidence import sentences
from kg.explore.links import LINKS
from kg.explore.papers import PaperReport, headline
from kg.explore.reports import (
    common_note,
    describe_report,
    neighbors_report,
    paper_report,
    path_report,
    related_report,
    relation_notes,
)
from kg.query.result import Result
from kg.rdf import KG
from kg.store.queries import PAPER_TITLE_AND_ABSTRACT
from shell.commands.arguments import one_entity, options, two_entities
from shell.commands.registry import COMMANDS, command

if TYPE_CHECKING:
    from kg.explore.describe import Description
    from kg.explore.reports import NeighborsReport, PathReport, RelatedReport
    from kg.store import Store
    from shell.session import Session

_SNIPPET = 60
PROPOSERS_SHOWN = 10


@command(
    ".path A B [--max-hops N] [--limit K] [--via LINK,...] [--papers|--no-papers]",
    "shortest chains of links between two entities",
    details="Links are stored relations (usedFor, ^usedFor against the direction) and co-mentions\n"
    "(mentions: a paper mentions both); each hop comes with the sentence that states it.\n"
    "The options are those of kg path. Defaults: --max-hops 4, --limit 3 paths, every link.\n"
    "--via follows only the links named, comma-separated or repeated, of:\n"
    f"  {', '.join(LINKS)}\n"
    "--no-papers leaves out co-mentions (--papers keeps them beside --via).\n"
    "Quote names with spaces when it is unclear where the first ends:\n"
    '  .path "robust overfitting" CIFAR-10',
    arguments=("entity", "entity"),
)
def cmd_path(session: Session, args: str) -> Result:
    named, values = options(args, {"max-hops": 4, "limit": 3, "via": []}, flags=("papers",))
    source, target = two_entities(session, named, COMMANDS[".path"].usage)
    max_hops = max(1, values["max-hops"])
    report = path_report(
        session.projection(),
        session.store,
        source,
        target,
        max_hops=max_hops,
        limit=max(1, values["limit"]),
        via=values["via"],
        through_papers=values["papers"],
    )
    return path_result(report, max_hops)


@command(
    ".neighbors X [--hops N] [--limit K]",
    "entities within N links of X, nearest and best-linked first",
    details="Defaults: --hops 1, --limit 20 per ring (0: all).",
    arguments=("entity",),
    aliases=(".neighbours",),
)
def cmd_neighbors(session: Session, args: str) -> Result:
    iri, values = one_entity(session, args, COMMANDS[".neighbors"].usage, {"hops": 1, "limit": 20})
    limit = values["limit"] or None
    report = neighbors_report(session.projection(), iri, hops=max(1, values["hops"]), limit=limit)
    return neighbors_result(report, limit)


@command(
    ".related X [--limit K] [--measure jaccard|pmi|npmi] [--predict K]",
    "entities most associated with X, and likely links not made yet",
    details="Associated: linked to X, ranked by a co-occurrence measure over papers (default jaccard;\n"
    "--limit 10, 0: all). Predicted: two links away, by the Adamic-Adar index (--predict 5).",
    arguments=("entity",),
)
def cmd_related(session: Session, args: str) -> Result:
    iri, values = one_entity(
        session, args, COMMANDS[".related"].usage, {"limit": 10, "measure": "jaccard", "predict": 5}
    )
    report = related_report(
        session.projection(),
        iri,
        measure=values["measure"],
        limit=values["limit"] or None,
        predictions=values["predict"],
    )
    return related_result(report)


@command(
    ".describe X",
    "type, label, aliases, papers and relations of an entity (or a paper, as .paper)",
    details="X is an entity's label, alias or IRI (entity:clip); a paper's IRI (paper:b4b800…) or id\n"
    "describes that paper, as .paper does.",
    arguments=("entity",),
)
def cmd_describe(session: Session, args: str) -> Result:
    named, _ = options(args, {})
    if not named:
        raise UsageError(f"usage: {COMMANDS['.describe'].usage}")
    found = describe_report(session.store, " ".join(named), index=session.labels())
    if isinstance(found, PaperReport):
        return paper_result(found)
    session.note(*found.notes)
    return describe_result(found, _paper_snippets(session.store, list(found.proposed_by[:PROPOSERS_SHOWN])))


@command(
    ".paper ID",
    "a paper: title, abstract, sources, the entities it proposes and mentions, its relations",
    details="ID is paper:ID (as tables and kg path show papers), the paper's id or IRI, or the\n"
    "start of its id (6 characters or more). The same report as kg paper.",
    arguments=("text",),
)
def cmd_paper(session: Session, args: str) -> Result:
    named, _ = options(args, {})
    if not named:
        raise UsageError(f"usage: {COMMANDS['.paper'].usage}")
    return paper_result(paper_report(session.store, " ".join(named)))


# ---- the reports as Results


def path_result(report: PathReport, max_hops: int) -> Result:
    """One row per hop: ``path`` (its number), ``hop``, ``from``, ``link``, ``to``, ``papers``
    (the papers behind the link), ``evidence`` (a sentence stating it) and ``paper`` (the
    paper the sentence comes from). A message when there is no path."""
    if not report.paths:
        return Result.text(
            f"no path of at most {max_hops} hops between {report.source} and {report.target} (try --max-hops N)"
        )
    rows = [
        (
            number,
            step,
            hop.source,
            hop.predicate,
            hop.target,
            hop.support,
            hop.evidence,
            None if hop.paper is None else URIRef(hop.paper),
        )
        for number, path in enumerate(report.paths, 1)
        for step, hop in enumerate(path.hops, 1)
    ]
    return Result.from_rows(["path", "hop", "from", "link", "to", "papers", "evidence", "paper"], rows)


def neighbors_result(report: NeighborsReport, limit: int | None) -> Result:
    """Columns ``entity``, ``label``, ``type``, ``hops``, ``link`` (from the concept one hop nearer),
    ``papers`` (the papers behind that link) and ``via`` (that nearer concept); ``limit`` applied per ring."""
    rows = [(URIRef(n.iri), n.label, n.type, n.hops, n.predicate, n.support, n.via) for n in report.neighbors]
    result = Result.from_rows(["entity", "label", "type", "hops", "link", "papers", "via"], rows)
    result.truncated = report.truncated
    result.limit = limit
    return result


def related_result(report: RelatedReport) -> Result:
    """Columns ``entity``, ``label``, ``type``, ``score``, ``shared`` (papers mentioning both),
    ``papers`` (papers mentioning the concept) and ``note`` (the relations joining them, or
    the neighbors a prediction rests on)."""
    rows = []
    for found in report.related:
        if found.predicted:
            note = f"not linked yet; {common_note(found.common)}"
        else:
            note = ", ".join(relation_notes(found.relations)) or None
        rows.append((URIRef(found.iri), found.label, found.type, found.score, found.shared, found.papers, note))
    return Result.from_rows(["entity", "label", "type", "score", "shared", "papers", "note"], rows)


def describe_result(found: Description, snippets: dict[str, str]) -> Result:
    """Columns ``field``, ``value``, ``note`` (the label of a linked entity, or ``snippets[paper]``
    for a proposing paper), ``papers`` (a relation's support) and ``evidence`` (a sentence stating
    the relation). Relations are grouped by predicate: ``usedFor`` for ``iri kg:usedFor entity``,
    ``^usedFor`` for ``entity kg:usedFor iri``."""
    rows: list[tuple] = [("entity", URIRef(found.iri)), ("type", KG[found.type]), ("label", found.label)]
    rows += [("alias", alias) for alias in found.aliases]
    rows.append(("papers", len(found.papers)))
    shown = found.proposed_by[:PROPOSERS_SHOWN]
    rows += [("proposed by", URIRef(paper), snippets.get(paper)) for paper in shown]
    if len(found.proposed_by) > len(shown):
        rows.append(("proposed by", None, f"… and {len(found.proposed_by) - len(shown)} more"))
    for predicate, links in found.by_predicate().items():
        for direction in ("out", "in"):
            for link in (link for link in links if link.direction == direction):
                field = predicate if direction == "out" else f"^{predicate}"
                rows.append((field, URIRef(link.iri), f"{link.label} ({link.type})", link.support, link.evidence))
    return Result.from_rows(
        ["field", "value", "note", "papers", "evidence"], [row + (None,) * (5 - len(row)) for row in rows]
    )


def paper_result(report: PaperReport) -> Result:
    """Columns ``field``, ``value``, ``note`` and ``evidence``: the paper (``note``: its headline),
    its id, title, date, authors, url and sources; the abstract, a sentence a row; each entity
    (``field``: how the paper links to it, ``proposes``, ``uses``, ...; ``note``: label and type);
    each relation it states (``field``: the predicate; ``note``: its ends; ``evidence``: the sentence)."""
    rows: list[tuple] = [("paper", URIRef(report.iri), report.headline)]
    rows += [(name, value) for name, value in (("id", report.id), ("title", report.title)) if value]
    rows += [("date", report.date)] if report.date else []
    rows += [("author", author) for author in report.authors]
    rows += [("url", report.url)] if report.url else []
    rows += [("source", source) for source in report.sources]
    rows += [("abstract" if i == 0 else None, sentence) for i, sentence in enumerate(sentences(report.abstract))]
    rows += [(e.link, URIRef(e.iri), f"{e.label} ({e.type})") for e in report.entities]
    rows += [(r.predicate, None, f"{r.subject} → {r.object}", r.evidence) for r in report.relations]
    return Result.from_rows(["field", "value", "note", "evidence"], [row + (None,) * (4 - len(row)) for row in rows])


# ---- helpers


def _paper_snippets(store: Store, papers: list[str]) -> dict[str, str]:
    """A short description of each paper: its title, else the opening words of its abstract."""
    out = {}
    for paper in dict.fromkeys(papers):
        for _, title, abstract in store.query(PAPER_TITLE_AND_ABSTRACT, bindings={"paper": URIRef(paper)}).rows:
            out[paper] = headline(title, abstract, width=_SNIPPET)
    return out
