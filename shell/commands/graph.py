"""Graph questions for ``.path``, ``.neighbors``, ``.related`` and ``.describe``, as Results.

This module is the shell's one adapter to the graph algorithms: ``.path``, ``.neighbors``
and ``.related`` call :func:`kg.explore.paths.shortest_paths`, :func:`kg.explore.paths.neighborhood`,
:func:`kg.explore.related.associated_concepts` and :func:`kg.explore.related.predicted_links` over the
session's :class:`kg.explore.projection.Projection` (loaded once per session, from the store's
cache when it is current), and :func:`kg.explore.evidence.with_evidence` for the sentences behind
path hops; ``.describe`` calls :func:`kg.explore.describe.describe`, which reads the store with
SPARQL.

Links are named as in ``kg path --format json``: a relation (``usedFor``), the same
followed against its direction (``^usedFor``), or ``mentions`` for two concepts that a
paper mentions both.

Every function takes the :class:`~shell.session.Session` and entity IRIs already resolved
(:meth:`shell.session.Session.resolve`), and returns a :class:`kg.query.result.Result` whose
columns hold IRIs where a row names a concept or a paper, so that the table shows them as
``kgr:`` names and CSV/JSON give them in full.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rdflib import URIRef

from kg.errors import UsageError
from kg.rdf import KG
from kg.query.result import Result

if TYPE_CHECKING:
    from kg.explore.projection import Projection
    from kg.store import Store
    from shell.session import Session

_SNIPPET = 60
PROPOSERS_SHOWN = 10


def path(session: Session, source: str, target: str, *, max_hops: int = 4, limit: int = 3) -> Result:
    """The shortest paths from ``source`` to ``target`` (:func:`kg.explore.paths.shortest_paths`).

    One row per hop: ``path`` (its number), ``hop``, ``from``, ``link``, ``to``, ``papers``
    (the papers behind the link), ``evidence`` (a sentence stating it) and ``paper`` (the
    paper the sentence comes from). A message when there is no path.
    """
    from kg.explore.evidence import with_evidence
    from kg.explore.paths import shortest_paths

    graph = session.projection()
    paths = shortest_paths(graph, source, target, max_hops=max_hops, limit=limit)
    if not paths:
        return Result.text(f"no path of at most {max_hops} hops between {graph.label(source)} and "
                           f"{graph.label(target)} (try --max-hops N)")
    hops = with_evidence(graph, session.store, [hop for found in paths for hop in found])
    rows, at = [], 0
    for number, found in enumerate(paths, 1):
        for step, hop in enumerate(hops[at:at + len(found)], 1):
            paper = hop.evidence_paper or (hop.papers[0] if hop.papers else None)
            rows.append((number, step, graph.label(hop.source), hop.predicate, graph.label(hop.target),
                         hop.support, hop.evidence, None if paper is None else URIRef(paper)))
        at += len(found)
    return Result.from_rows(["path", "hop", "from", "link", "to", "papers", "evidence", "paper"], rows)


def neighbors(session: Session, iri: str, *, hops: int = 1, limit: int | None = 20) -> Result:
    """The concepts within ``hops`` links of ``iri`` (:func:`kg.explore.paths.neighborhood`), nearest first.

    Columns: ``entity``, ``label``, ``type``, ``hops``, ``link`` (from the concept one hop
    nearer), ``papers`` (the papers behind that link) and ``via`` (that nearer concept).
    Within a ring, the best-linked come first; ``limit`` applies per ring.
    """
    from kg.explore.paths import neighborhood

    graph = session.projection()
    near, sizes = neighborhood(graph, iri, hops=hops, limit=limit)
    rows = [(URIRef(n.node), graph.label(n.node), _type(graph, n.node), n.hops, n.link.predicate,
             n.link.support, graph.label(n.via)) for n in near]
    result = Result.from_rows(["entity", "label", "type", "hops", "link", "papers", "via"], rows)
    result.truncated = len(rows) < sum(sizes)
    result.limit = limit
    return result


def related(session: Session, iri: str, *, limit: int | None = 10, measure: str = "jaccard",
            predict: int = 5) -> Result:
    """Concepts associated with ``iri``, then likely links not made yet.

    The associated concepts are those linked to ``iri``, best first by a co-occurrence
    ``measure`` over papers (:func:`kg.explore.related.associated_concepts`); then up to ``predict``
    concepts two links away, by the Adamic-Adar index (:func:`kg.explore.related.predicted_links`).
    Columns: ``entity``, ``label``, ``type``, ``score``, ``shared`` (papers mentioning both),
    ``papers`` (papers mentioning the concept) and ``note`` (the relations joining them, or
    the neighbours a prediction rests on).
    """
    from kg.explore.related import associated_concepts, predicted_links

    graph = session.projection()
    rows = []
    for found in associated_concepts(graph, iri, measure=measure, limit=limit):
        note = ", ".join(f"{predicate} ({_count(support, 'paper')})" for predicate, support in found.relations)
        rows.append((URIRef(found.node), graph.label(found.node), _type(graph, found.node),
                     round(found.score, 4), found.shared, found.papers, note or None))
    if predict:
        for guess in predicted_links(graph, iri, limit=predict):
            shown = ", ".join(graph.label(n) for n in guess.common[:3])
            more = f" and {len(guess.common) - 3} more" if len(guess.common) > 3 else ""
            rows.append((URIRef(guess.node), graph.label(guess.node), _type(graph, guess.node),
                         round(guess.score, 4), 0, graph.paper_count(guess.node),
                         f"not linked yet; both linked to {shown}{more}"))
    return Result.from_rows(["entity", "label", "type", "score", "shared", "papers", "note"], rows)


def describe(session: Session, iri: str) -> Result:
    """One entity (:func:`kg.explore.describe.describe`): type, label, aliases, papers, proposers, relations.

    Columns: ``field``, ``value``, ``note`` (the label of a linked entity, the opening words
    of a proposing paper's abstract), ``papers`` (a relation's support) and ``evidence``
    (a sentence stating the relation). Relations are grouped by predicate: ``usedFor`` for
    ``iri kg:usedFor entity``, ``^usedFor`` for ``entity kg:usedFor iri``.
    """
    from kg.explore.describe import describe as describe_entity

    found = describe_entity(session.store, iri, index=session.labels())
    rows: list[tuple] = [("entity", URIRef(found.iri)), ("type", KG[found.type]), ("label", found.label)]
    rows += [("alias", alias) for alias in found.aliases]
    rows.append(("papers", len(found.papers)))
    shown = found.proposed_by[:PROPOSERS_SHOWN]
    snippets = _paper_snippets(session.store, list(shown))
    rows += [("proposed by", URIRef(paper), snippets.get(paper)) for paper in shown]
    if len(found.proposed_by) > len(shown):
        rows.append(("proposed by", None, f"… and {len(found.proposed_by) - len(shown)} more"))
    for predicate, links in found.by_predicate().items():
        for direction in ("out", "in"):
            for link in (link for link in links if link.direction == direction):
                field = predicate if direction == "out" else f"^{predicate}"
                rows.append((field, URIRef(link.iri), f"{link.label} ({link.type})", link.support, link.evidence))
    return Result.from_rows(["field", "value", "note", "papers", "evidence"],
                            [row + (None,) * (5 - len(row)) for row in rows])


# ---- helpers

def _checked(iri: str) -> str:
    if any(c in iri for c in '<>"{}|^`\\ \n'):
        raise UsageError(f"not an IRI: {iri!r}")
    return iri


def _paper_snippets(store: Store, papers: list[str]) -> dict[str, str]:
    """A short description of each paper: its title, else the opening words of its abstract."""
    if not papers:
        return {}
    values = " ".join(f"<{_checked(p)}>" for p in dict.fromkeys(papers))
    out = {}
    for paper, title, abstract in store.query(
        f"SELECT ?p ?t ?a WHERE {{ VALUES ?p {{ {values} }} OPTIONAL {{ ?p dcterms:title ?t }} "
        f"OPTIONAL {{ ?p dcterms:abstract ?a }} }}").rows:
        text = " ".join(str(title or abstract or "").split())
        out[str(paper)] = text if len(text) <= _SNIPPET else text[: _SNIPPET - 1].rstrip() + "…"
    return out


def _type(graph: Projection, iri: str) -> str:
    return graph.types[graph.entity_id(iri)]


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


