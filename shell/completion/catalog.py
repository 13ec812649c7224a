"""The names completion offers: vocabulary terms and the graph's entities.

:class:`Vocabulary` holds the classes, properties and datatypes of each declared prefix:
the terms of ``ontology/kg.ttl`` (read with rdflib) and the common terms of the standard
vocabularies (:data:`STANDARD_TERMS`). :class:`EntityCatalog` holds the entities of a
store with their type, aliases and number of papers, read with two SPARQL queries (so it
works on a remote endpoint too).

Examples
--------
>>> vocabulary = Vocabulary.load()
>>> [t.local for t in vocabulary.terms("kg", "class")][:3]
['Dataset', 'Entity', 'Method']
>>> vocabulary.get("kg", "mentions").meta
'Paper → Entity'
>>> "prefLabel" in [t.local for t in vocabulary.terms("skos", "property")]
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kg.namespace import PREFIXES, prefixed_name
from kg.store.queries import ENTITIES, MENTION_COUNTS, one_per_entity
from kg.store.select import select_strings

if TYPE_CHECKING:
    from kg.store import Store

ROLES = ("class", "property", "datatype")

STANDARD_TERMS: dict[str, dict[str, str]] = {
    "rdf": {
        "class": "Property Statement List Bag Seq Alt langString HTML XMLLiteral JSON",
        "property": "type subject predicate object first rest value",
    },
    "rdfs": {
        "class": "Resource Class Literal Datatype Container ContainerMembershipProperty",
        "property": "label comment subClassOf subPropertyOf domain range seeAlso isDefinedBy member",
    },
    "owl": {
        "class": "Class Thing Nothing ObjectProperty DatatypeProperty AnnotationProperty Ontology "
        "NamedIndividual Restriction TransitiveProperty SymmetricProperty FunctionalProperty "
        "InverseFunctionalProperty",
        "property": "sameAs equivalentClass equivalentProperty inverseOf disjointWith differentFrom "
        "versionInfo versionIRI imports onProperty someValuesFrom allValuesFrom deprecated",
    },
    "skos": {
        "class": "Concept ConceptScheme Collection OrderedCollection",
        "property": "prefLabel altLabel hiddenLabel notation definition note scopeNote example broader "
        "narrower related broaderTransitive narrowerTransitive inScheme hasTopConcept "
        "topConceptOf exactMatch closeMatch broadMatch narrowMatch relatedMatch member",
    },
    "dcterms": {
        "class": "Agent BibliographicResource LicenseDocument",
        "property": "title description abstract creator contributor date created issued modified "
        "identifier subject license source publisher language isPartOf hasPart references "
        "isReferencedBy rights type format bibliographicCitation",
    },
    "prov": {
        "class": "Entity Activity Agent Plan Collection",
        "property": "wasDerivedFrom wasGeneratedBy wasAttributedTo wasAssociatedWith used generatedAtTime "
        "startedAtTime endedAtTime wasInformedBy actedOnBehalfOf hadPrimarySource "
        "wasQuotedFrom wasRevisionOf value atLocation",
    },
    "xsd": {
        "datatype": "string boolean decimal integer double float date dateTime time gYear gYearMonth "
        "duration anyURI language nonNegativeInteger positiveInteger long int",
    },
    "schema": {
        "class": "ScholarlyArticle CreativeWork Person Organization Dataset SoftwareSourceCode",
        "property": "url name author datePublished about keywords identifier sameAs citation headline description",
    },
}
"""Common terms of the standard vocabularies, by prefix and role (space-separated local names)."""


@dataclass(frozen=True)
class Term:
    """A vocabulary term: ``prefix:local``, its role and a short description."""

    prefix: str
    local: str
    role: str
    meta: str = ""

    @property
    def name(self) -> str:
        """The prefixed name, ``kg:Method``."""
        return f"{self.prefix}:{self.local}"


class Vocabulary:
    """Vocabulary terms by prefix and role."""

    def __init__(self, terms: Iterable[Term]) -> None:
        self._terms: dict[tuple[str, str], Term] = {}
        for term in terms:
            known = self._terms.get((term.prefix, term.local))
            if known is None or (term.meta and not known.meta):
                self._terms[(term.prefix, term.local)] = term

    @classmethod
    def load(cls) -> Vocabulary:
        """The terms of ``ontology/kg.ttl`` and of :data:`STANDARD_TERMS`."""
        terms = list(_ontology_terms())
        for prefix, roles in STANDARD_TERMS.items():
            for role, names in roles.items():
                terms.extend(Term(prefix, local, role) for local in names.split())
        return cls(terms)

    def terms(self, prefix: str | None = None, role: str | None = None) -> list[Term]:
        """The terms of ``prefix`` (all prefixes if None) in ``role`` (all roles if None), sorted."""
        found = [
            t
            for t in self._terms.values()
            if (prefix is None or t.prefix == prefix) and (role is None or t.role == role)
        ]
        return sorted(found, key=lambda t: (t.prefix != "kg", t.prefix, t.local.lower()))

    def get(self, prefix: str, local: str) -> Term | None:
        """The term ``prefix:local``, if known."""
        return self._terms.get((prefix, local))


def _ontology_terms() -> Iterable[Term]:
    from rdflib import Graph
    from rdflib.namespace import OWL, RDF, RDFS

    from kg.resources import ONTOLOGY_FILE

    graph = Graph()
    graph.parse(ONTOLOGY_FILE, format="turtle")
    roles = {
        OWL.Class: "class",
        RDFS.Class: "class",
        OWL.ObjectProperty: "property",
        OWL.DatatypeProperty: "property",
        OWL.AnnotationProperty: "property",
        RDF.Property: "property",
    }
    namespaces = sorted(PREFIXES.items(), key=lambda item: -len(item[1]))
    for subject, kind in graph.subject_objects(RDF.type):
        role = roles.get(kind)
        if role is None:
            continue
        for prefix, namespace in namespaces:
            if str(subject).startswith(namespace):
                local = str(subject)[len(namespace) :]
                yield Term(prefix, local, role, _describe(graph, subject, role) if prefix == "kg" else "")
                break


def _describe(graph, subject, role: str) -> str:
    from rdflib.namespace import RDFS

    def short(node) -> str:
        if node is None:
            return "…"
        for prefix, namespace in PREFIXES.items():
            if str(node).startswith(namespace):
                local = str(node)[len(namespace) :]
                return local if prefix == "kg" else f"{prefix}:{local}"
        return str(node)

    if role == "class":
        parents = sorted(short(p) for p in graph.objects(subject, RDFS.subClassOf))
        return "class" + (f" ⊂ {', '.join(parents)}" if parents else "")
    domain = next(iter(graph.objects(subject, RDFS.domain)), None)
    range_ = next(iter(graph.objects(subject, RDFS.range)), None)
    if domain is None and range_ is None:
        return "property"
    return f"{short(domain)} → {short(range_)}"


@dataclass(frozen=True)
class EntityEntry:
    """One entity, as completion shows it."""

    iri: str
    label: str
    type: str
    papers: int
    aliases: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """``entity:clip``: the IRI as a prefixed name (:func:`kg.namespace.prefixed_name`), else ``<iri>``."""
        return prefixed_name(self.iri)


class EntityCatalog:
    """The entities of a store, most mentioned first, then by label and IRI.

    Examples
    --------
    >>> catalog = EntityCatalog([EntityEntry("https://w3id.org/abstract-kg/resource/entity/clip", "CLIP",
    ...                                      "Method", 17, ("Contrastive Language-Image Pre-training",))])
    >>> catalog.entries[0].name
    'entity:clip'
    """

    def __init__(self, entries: Iterable[EntityEntry]) -> None:
        self.entries = sorted(entries, key=lambda e: (-e.papers, e.label.lower(), e.iri))

    @classmethod
    def from_store(cls, store: Store) -> EntityCatalog:
        """Read every entity's label, type, paper count and aliases."""
        papers = {entity: int(count) for entity, count in select_strings(store, MENTION_COUNTS)}
        return cls(
            EntityEntry(iri, label, entity_type, papers.get(iri, 0), aliases)
            for iri, label, entity_type, aliases in one_per_entity(select_strings(store, ENTITIES))
        )
