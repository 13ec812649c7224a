"""The curated vocabularies (ontology/vocab/*.ttl, SKOS) as surface forms to match.

Examples
--------
>>> terms = load_vocabulary()
>>> any(t.text == "CLIP" and t.type == "Method" for t in terms)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kg.namespace import ENTITY_TYPES, ontology_iri
from kg.resources import VOCABULARY_DIR

_SKOS = "http://www.w3.org/2004/02/skos/core#"
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


@dataclass(frozen=True)
class Term:
    """One surface form of a curated concept."""

    text: str
    type: str
    label: str  # the concept's preferred label
    concept: str  # the concept's IRI


@lru_cache(maxsize=4)
def load_vocabulary(directory: Path = VOCABULARY_DIR) -> tuple[Term, ...]:
    """Every preferred and alternative label of every concept, sorted for determinism."""
    import pyoxigraph as ox

    type_of = {ontology_iri(t): t for t in ENTITY_TYPES}
    types: dict[str, str] = {}
    pref: dict[str, str] = {}
    alts: dict[str, list[str]] = {}
    for path in sorted(directory.glob("*.ttl")):
        for triple in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            subject, predicate, obj = triple.subject.value, triple.predicate.value, triple.object.value
            if predicate == _RDF_TYPE and obj in type_of:
                types[subject] = type_of[obj]
            elif predicate == _SKOS + "prefLabel":
                pref[subject] = obj
            elif predicate == _SKOS + "altLabel":
                alts.setdefault(subject, []).append(obj)
    terms = set()
    for concept, entity_type in types.items():
        label = pref.get(concept)
        if not label:
            continue
        for text in (label, *alts.get(concept, ())):
            terms.add(Term(text=text, type=entity_type, label=label, concept=concept))
    return tuple(sorted(terms, key=lambda t: (t.text, t.type, t.concept)))
