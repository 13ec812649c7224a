"""IRIs of the ontology and of the data, and the prefixes users see, as plain strings.

Any layer may import this module: it needs no RDF library. Where RDF terms are made, :mod:`kg.rdf`
wraps these strings as rdflib terms. The two bases are settings: ``KG_ONTOLOGY_IRI`` and
``KG_RESOURCE_IRI`` in the environment override the defaults. No other module spells an IRI.

Examples
--------
>>> ontology_iri("Method") == ONTOLOGY_IRI + "Method"
True
>>> paper_iri("2301.00001") == RESOURCE_IRI + "paper/2301.00001"
True
>>> entity_iri("robust-overfitting") == RESOURCE_IRI + "entity/robust-overfitting"
True
>>> prefixed_name(paper_iri("b4b800")), prefixed_name(entity_iri("clip")), prefixed_name("urn:x")
('paper:b4b800', 'entity:clip', '<urn:x>')
>>> expand_name("entity:clip") == expand_name("kgr:entity/clip") == entity_iri("clip")
True
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from urllib.parse import quote

DEFAULT_ONTOLOGY_IRI = "https://w3id.org/abstract-kg/ontology#"
DEFAULT_RESOURCE_IRI = "https://w3id.org/abstract-kg/resource/"

ONTOLOGY_IRI = os.environ.get("KG_ONTOLOGY_IRI") or DEFAULT_ONTOLOGY_IRI
RESOURCE_IRI = os.environ.get("KG_RESOURCE_IRI") or DEFAULT_RESOURCE_IRI

RDF_IRI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS_IRI = "http://www.w3.org/2000/01/rdf-schema#"
OWL_IRI = "http://www.w3.org/2002/07/owl#"
XSD_IRI = "http://www.w3.org/2001/XMLSchema#"
SKOS_IRI = "http://www.w3.org/2004/02/skos/core#"
DCTERMS_IRI = "http://purl.org/dc/terms/"
PROV_IRI = "http://www.w3.org/ns/prov#"
SCHEMA_IRI = "https://schema.org/"
SD_IRI = "http://www.w3.org/ns/sparql-service-description#"
FORMATS_IRI = "http://www.w3.org/ns/formats/"
ENTAILMENT_IRI = "http://www.w3.org/ns/entailment/"

PAPER_NAMESPACE = RESOURCE_IRI + "paper/"
ENTITY_NAMESPACE = RESOURCE_IRI + "entity/"
STATEMENT_NAMESPACE = RESOURCE_IRI + "statement/"

# Prefixes declared for every query (`kg query`, the shell, a remote endpoint), and bound in exports.
# paper:, entity: and statement: give the data's IRIs as legal prefixed names (paper:b4b800...);
# kgr:, their common base, stays declared for queries written before them.
PREFIXES: dict[str, str] = {
    "kg": ONTOLOGY_IRI,
    "kgr": RESOURCE_IRI,
    "paper": PAPER_NAMESPACE,
    "entity": ENTITY_NAMESPACE,
    "statement": STATEMENT_NAMESPACE,
    "rdf": RDF_IRI,
    "rdfs": RDFS_IRI,
    "owl": OWL_IRI,
    "xsd": XSD_IRI,
    "skos": SKOS_IRI,
    "dcterms": DCTERMS_IRI,
    "prov": PROV_IRI,
    "schema": SCHEMA_IRI,
}

ENTITY_TYPES = ("Method", "Dataset", "Task", "Metric", "Phenomenon")

# Paper-to-entity properties, and entity-to-entity relations, by local name.
PAPER_LINKS = ("mentions", "proposes", "uses", "evaluatesOn", "studies")
ENTITY_RELATIONS = (
    "usedFor",
    "evaluatedOn",
    "comparedWith",
    "outperforms",
    "addresses",
    "partOf",
    "hyponymOf",
    "featureOf",
    "conjunction",
)


_TRAILING_DOTS = re.compile(r"\.+$")


def _segment(value: str) -> str:
    """``value`` as one IRI path segment: readable, but IRI-safe (ids may come from the source: arXiv ids,
    DOIs, or anything at all). Trailing dots are percent-encoded: ``.`` and ``..`` are path steps that
    resolving an IRI removes, and a prefixed name ending in an escaped dot (``paper:p1\\.``), though legal
    Turtle, is refused by rdflib's parser.

    >>> _segment("2301.00001"), _segment("../../etc/passwd"), _segment(".."), _segment("> } ; DROP ALL")
    ('2301.00001', '..%2F..%2Fetc%2Fpasswd', '%2E%2E', '%3E%20%7D%20%3B%20DROP%20ALL')
    """
    segment = quote(value, safe="-._~:")
    return _TRAILING_DOTS.sub(lambda dots: "%2E" * len(dots.group()), segment)


def ontology_iri(name: str) -> str:
    """The IRI of the ontology term ``name`` (a class or property of ``kg:``)."""
    return ONTOLOGY_IRI + name


def paper_iri(doc_id: str) -> str:
    """The IRI of the paper whose document id is ``doc_id``."""
    return PAPER_NAMESPACE + _segment(doc_id)


def entity_iri(key: str) -> str:
    """The IRI of the entity whose canonical key is ``key``."""
    return ENTITY_NAMESPACE + _segment(key)


def statement_iri(key: str) -> str:
    """The IRI of one relation statement (evidence and provenance of a triple)."""
    return STATEMENT_NAMESPACE + _segment(key)


def graph_iri(name: str) -> str:
    """The IRI of one of the store's named graphs, which hold the build's own bookkeeping.

    The knowledge graph is the default graph; exports and queries over it do not see these.
    """
    return f"{RESOURCE_IRI}graph/{_segment(name)}"


EXTRACTION_GRAPH = graph_iri("extraction")
"""Where `kg build` keeps, for each paper, what extraction said about it: everything the
entity-level triples are derived from (:mod:`kg.build.consolidate`)."""
EXTRACTION_RECORD = EXTRACTION_GRAPH + "#record"
"""Links a paper to its extraction record (a JSON literal), in :data:`EXTRACTION_GRAPH`."""
AWAITS_CONSOLIDATION = EXTRACTION_GRAPH + "#pending"
"""Marks a paper whose record the entity-level triples do not reflect yet, in :data:`EXTRACTION_GRAPH`."""
STAGED_REMOVALS = graph_iri("staged-removals")
STAGED_ADDITIONS = graph_iri("staged-additions")
"""Where a replacement of triples waits for the one update that applies it (:mod:`kg.store.embedded`)."""


def local_name(iri: object) -> str:
    """The last segment of an IRI: the term's name in its namespace.

    Examples
    --------
    >>> local_name(ontology_iri("Method")), local_name("https://w3id.org/abstract-kg/resource/entity/clip")
    ('Method', 'clip')
    """
    return str(iri).rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def sparql_prologue(prefixes: dict[str, str] | None = None) -> str:
    """``PREFIX`` lines for ``prefixes`` (default: every declared prefix), to put before a query.

    Examples
    --------
    >>> sparql_prologue().splitlines()[0] == f"PREFIX kg: <{ONTOLOGY_IRI}>"
    True
    """
    return "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in (PREFIXES if prefixes is None else prefixes).items())


# SPARQL 1.1's PN_LOCAL: which characters a prefixed name's local part may hold, and where.
_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_FIRST = re.compile(f"[{_BASE}_:0-9]")
_LATER = re.compile(f"[{_BASE}_:0-9\\-\u00b7\u0300-\u036f\u203f-\u2040]")
_ESCAPABLE = frozenset("_~.-!$&'()*+,;=/?#@%")
_PERCENT = re.compile("%[0-9A-Fa-f]{2}")
_ESCAPE = re.compile(r"\\(.)")


def _local_part(local: str) -> str | None:
    """``local`` as a legal PN_LOCAL, reserved characters escaped with a backslash; None if it cannot be."""
    out, i = [], 0
    while i < len(local):
        char = local[i]
        if char == "%" and _PERCENT.match(local, i):
            out.append(local[i : i + 3])
            i += 3
            continue
        allowed = _FIRST if i == 0 else _LATER
        if allowed.fullmatch(char) or (char == "." and 0 < i < len(local) - 1):
            out.append(char)
        elif char in _ESCAPABLE:
            out.append("\\" + char)
        else:
            return None
        i += 1
    return "".join(out)


def name_compactor(prefixes: Mapping[str, str] | None = None) -> Callable[[str], str]:
    r"""A function giving an IRI's display form: a prefixed name that is legal SPARQL, or ``<iri>``.

    The longest matching namespace of ``prefixes`` (default :data:`PREFIXES`) is used, and in
    the local part the characters SPARQL reserves are escaped (``kgr:x\/y``); an IRI no prefix
    can name is written in full. So whatever prints an IRI this way can be pasted into a query.

    Examples
    --------
    >>> compact = name_compactor()
    >>> print(compact(ONTOLOGY_IRI + "Method"), compact(RESOURCE_IRI + "x/y"), compact(PAPER_NAMESPACE + "p.1."))
    kg:Method kgr:x\/y paper:p.1\.
    >>> print(compact(entity_iri("-a b")), compact(RESOURCE_IRI + "a b"))
    entity:\-a%20b <https://w3id.org/abstract-kg/resource/a b>
    """
    namespaces = sorted(
        ((str(ns), str(p)) for p, ns in (PREFIXES if prefixes is None else prefixes).items() if ns),
        key=lambda item: (-len(item[0]), item[1]),
    )

    def compact(iri: str) -> str:
        iri = str(iri)
        for namespace, prefix in namespaces:
            if iri.startswith(namespace):
                local = _local_part(iri[len(namespace) :])
                return f"<{iri}>" if local is None else f"{prefix}:{local}"
        return f"<{iri}>"

    return compact


prefixed_name = name_compactor()
"""The display form of an IRI under the project's prefixes: ``paper:b4b800``, ``entity:clip``, ``kg:Method``."""


def expand_name(name: str, prefixes: Mapping[str, str] | None = None) -> str | None:
    r"""The IRI that ``name`` writes, if it writes one: ``<iri>``, a prefixed name of ``prefixes``
    (default :data:`PREFIXES`; escapes undone, and ``/`` allowed as the shell allows it in
    ``kgr:entity/clip``), or an absolute ``http(s)`` IRI; else None.

    Examples
    --------
    >>> expand_name(r"paper:p.1\.") == PAPER_NAMESPACE + "p.1." and expand_name("<urn:x>") == "urn:x"
    True
    >>> expand_name("CLIP") is None and expand_name("foo:bar") is None
    True
    """
    name = name.strip()
    if name.startswith("<") and name.endswith(">"):
        return name[1:-1]
    if name.startswith(("http://", "https://")):
        return name
    prefix, sep, local = name.partition(":")
    declared = PREFIXES if prefixes is None else prefixes
    if sep and prefix in declared and " " not in local:
        return declared[prefix] + _ESCAPE.sub(r"\1", local)
    return None
