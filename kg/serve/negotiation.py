"""Content negotiation: the format of an answer, from the request's ``Accept`` header.

A SELECT or ASK answer is written in one of the SPARQL results formats (JSON, XML, CSV, TSV) by
:func:`kg.query.render`; a graph (CONSTRUCT, DESCRIBE, the service description, a Graph Store read) in
Turtle, N-Triples, JSON-LD or RDF/XML by pyoxigraph. The best match of ``Accept`` among the formats that
fit the answer is taken (q-values and wildcards weighed by ``python-mimeparse``); when none fits, or the
header is missing or cannot be read, the default (JSON, Turtle) is sent, as HTTP allows, rather than
refusing the request. ``Accept: application/sparql-results+json, text/turtle`` thus gets JSON for a
SELECT and Turtle for a CONSTRUCT.

Examples
--------
>>> choose(RESULTS, "application/sparql-results+xml;q=0.9, text/csv").key
'csv'
>>> choose(GRAPHS, "application/sparql-results+json, text/turtle;q=0.5").key
'ttl'
>>> choose(RESULTS, "text/html").key, choose(GRAPHS, None).key
('json', 'ttl')
>>> choose(GRAPHS, "application/n-triples").media_type
'application/n-triples'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GRAPHS", "RESULTS", "Format", "choose"]


@dataclass(frozen=True)
class Format:
    """An answer format: its name (as :func:`kg.query.render` or :func:`kg.query.formats.render_graph`
    take it), the media type an answer is sent as, and the other media types that ask for it."""

    key: str
    media_type: str
    aliases: tuple[str, ...] = ()


RESULTS = (
    Format("tsv", "text/tab-separated-values; charset=utf-8"),
    Format("csv", "text/csv; charset=utf-8"),
    Format("xml", "application/sparql-results+xml", ("application/xml", "text/xml")),
    Format("json", "application/sparql-results+json", ("application/json",)),
)
"""The SPARQL results formats, least preferred first: the last is the default."""

GRAPHS = (
    Format("xml", "application/rdf+xml", ("application/xml", "text/xml")),
    Format("jsonld", "application/ld+json", ("application/json",)),
    Format("nt", "application/n-triples"),
    Format("ttl", "text/turtle; charset=utf-8", ("application/x-turtle",)),
)
"""The RDF syntaxes, least preferred first: the last is the default."""


def choose(formats: tuple[Format, ...], accept: str | None) -> Format:
    """The format of ``formats`` that ``accept`` (an ``Accept`` header) prefers; the last one when none fits."""
    import mimeparse

    if not accept:
        return formats[-1]
    offered: list[tuple[str, Format]] = []
    for candidate in formats:  # aliases first: a tie goes to the later entry, the format's own type
        offered.extend((alias, candidate) for alias in candidate.aliases)
        offered.append((candidate.media_type.split(";")[0], candidate))
    try:
        best = mimeparse.best_match([media_type for media_type, _ in offered], accept)
    except (ValueError, IndexError):  # a header mimeparse cannot read
        return formats[-1]
    return next((candidate for media_type, candidate in reversed(offered) if media_type == best), formats[-1])
