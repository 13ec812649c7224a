"""The projection of a store for path algorithms: concepts and papers, with their links.

A :class:`Projection` holds, in plain lists of integers and strings, what exploring
connections needs and nothing else: every entity (IRI, label, type, aliases), every paper
(IRI and title), which papers mention which entities, and the entity-to-entity relations
(``kg:usedFor``, ...) with their support (distinct papers) and best evidence sentence.
:mod:`kg.explore.assembly` builds the lists from records. :meth:`Projection.to_networkx` gives
it as a NetworkX ``MultiDiGraph`` (export, the Python API) and :meth:`Projection.concept_graph`
as a weighted concept-to-concept ``Graph`` (centrality, communities): see
:mod:`kg.explore.networkx_views`.

:func:`load_projection` builds it once per state of the store and caches it in
``DIR/cache/projection.marshal`` (see :mod:`kg.store.cache`): any write to the store changes
the store's fingerprint, and the next reader rebuilds the cache. The cache holds only
builtins, so loading it runs no code and takes about 0.15 s at 100k papers,
where unpickling a NetworkX graph of that size takes more than a second.

Examples
--------
>>> view = Projection.from_records(
...     entities=[("e:clip", "CLIP", "Method"), ("e:zsc", "zero-shot classification", "Task")],
...     mentions=[("p:1", "e:clip"), ("p:1", "e:zsc"), ("p:2", "e:clip")],
...     relations=[("e:clip", "usedFor", "e:zsc", ["p:1"], "We use CLIP for zero-shot classification.", 0.9)])
>>> view.label("e:clip"), view.paper_count("e:clip"), dict(view.co_mentions(view.entity_id("e:clip")))
('CLIP', 2, {1: 1})
>>> view.relations[0].predicate, view.relations[0].support
('usedFor', 1)
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import TYPE_CHECKING, NamedTuple

from kg.errors import EntityNotFoundError
from kg.explore.assembly import CO_MENTION, assemble, records_from_store
from kg.explore.networkx_views import NetworkXViews

if TYPE_CHECKING:
    import networkx as nx

    from kg.explore.lookup import LabelIndex, NameChoice
    from kg.store import Store

__all__ = ["CACHE_NAME", "CO_MENTION", "Projection", "Relation", "load_projection", "ochiai", "project"]

CACHE_NAME = "projection"
"""The projection's entry in the store's cache (:mod:`kg.store.cache`)."""


class Relation(NamedTuple):
    """One entity-to-entity relation, all its statements merged."""

    subject: int
    predicate: str
    object: int
    papers: tuple[int, ...]
    """Ids of the distinct papers it was derived from."""
    evidence: str | None
    """The sentence of the most confident statement."""
    evidence_paper: int | None
    confidence: float | None

    @property
    def support(self) -> int:
        """The number of distinct papers behind the relation."""
        return len(self.papers)


class Projection(NetworkXViews):
    """Entities and papers of a store, numbered, with mention lists and relations.

    Entities are numbered ``0 .. len(entities) - 1`` in IRI order, papers likewise. Build one
    with :meth:`from_store` (or :func:`load_projection`, cached) or :meth:`from_records`.

    Attributes
    ----------
    entities, labels, types : list of str
        Entity IRIs, labels and type names (``"Method"``, ...), by entity id.
    aliases : dict of int to tuple of str
        ``skos:altLabel`` values of the entities that have any.
    papers, paper_labels : list of str
        Paper IRIs, and their titles (or identifiers), by paper id.
    papers_of : list of list of int
        For each entity, the papers that mention it (``kg:mentions`` or a sub-property).
    entities_of : list of list of int
        For each paper, the entities it mentions.
    roles : list of tuple
        ``(paper, entity, predicate)`` for paper links other than ``mentions``
        (``proposes``, ``uses``, ...).
    relations : sequence of Relation
        Entity-to-entity relations, one per distinct (subject, predicate, object).
    relation_rows : list of tuple
        The same as plain tuples, in :class:`Relation`'s field order (for tight loops).
    relations_of : dict of int to list of int
        For each entity in a relation, the indices of its relations (as subject or object).
    """

    def __init__(self, data: dict) -> None:
        self.entities: list[str] = data["entities"]
        self.labels: list[str] = data["labels"]
        self.types: list[str] = data["types"]
        self.aliases: dict[int, tuple[str, ...]] = {e: tuple(a) for e, a in data["aliases"].items()}
        self.papers: list[str] = data["papers"]
        self.paper_labels: list[str] = data["paper_labels"]
        self.papers_of: list[list[int]] = data["papers_of"]
        self.entities_of: list[list[int]] = data["entities_of"]
        self.roles: list[tuple[int, int, str]] = data["roles"]
        self.relation_rows: list[tuple] = data["relations"]
        self.relations: Sequence[Relation] = _Relations(self.relation_rows)
        self.relations_of: dict[int, list[int]] = data["relations_of"]
        self._ids: dict[str, int] | None = None
        self._label_index: LabelIndex | None = None

    # ------------------------------------------------------------------ building

    @classmethod
    def from_records(
        cls,
        *,
        entities: Iterable[Sequence],
        papers: Iterable[Sequence] = (),
        mentions: Iterable[Sequence] = (),
        relations: Iterable[Sequence] = (),
    ) -> Projection:
        """Build a projection from plain records (IRIs as strings).

        Parameters
        ----------
        entities : iterable of tuple
            ``(iri, label, type)`` or ``(iri, label, type, aliases)``.
        papers : iterable of tuple
            ``(iri, title)``; papers that only appear in ``mentions`` are added with their
            IRI's last segment as title.
        mentions : iterable of tuple
            ``(paper, entity)`` or ``(paper, entity, predicate)`` with a predicate of
            :data:`kg.namespace.PAPER_LINKS` (default ``mentions``). Links to entities not
            listed in ``entities`` are dropped.
        relations : iterable of tuple
            ``(subject, predicate, object, papers, evidence, confidence)``, one per statement
            (or per plain triple, with no papers and ``None`` evidence); statements of the
            same triple are merged.
        """
        return cls(assemble(entities=entities, papers=papers, mentions=mentions, relations=relations))

    @classmethod
    def from_store(cls, store: Store) -> Projection:
        """Read a store with five SPARQL queries (no cache: see :func:`load_projection`)."""
        return cls.from_records(**records_from_store(store))

    # ------------------------------------------------------------------ storing

    def to_builtins(self) -> dict:
        """The projection as builtins only (what the cache stores)."""
        return {
            "entities": self.entities,
            "labels": self.labels,
            "types": self.types,
            "aliases": {e: list(a) for e, a in self.aliases.items()},
            "papers": self.papers,
            "paper_labels": self.paper_labels,
            "papers_of": self.papers_of,
            "entities_of": self.entities_of,
            "roles": self.roles,
            "relations": [tuple(r) for r in self.relations],
            "relations_of": self.relations_of,
        }

    # ------------------------------------------------------------------ looking up

    def __len__(self) -> int:
        """The number of entities."""
        return len(self.entities)

    def __contains__(self, iri: object) -> bool:
        return iri in self._entity_ids()

    def entity_id(self, iri: str) -> int:
        """The number of the entity ``iri``; :class:`EntityNotFoundError` if there is none."""
        try:
            return self._entity_ids()[iri]
        except KeyError:
            raise EntityNotFoundError(iri) from None

    def label(self, iri: str) -> str:
        return self.labels[self.entity_id(iri)]

    def entity_type(self, iri: str) -> str:
        """The type name of the entity ``iri`` (``"Method"``, ...)."""
        return self.types[self.entity_id(iri)]

    def paper_count(self, iri: str) -> int:
        """The number of papers that mention the entity ``iri``."""
        return len(self.papers_of[self.entity_id(iri)])

    def names(self, entity: int) -> tuple[str, ...]:
        """The label and aliases of an entity (by number)."""
        return (self.labels[entity], *self.aliases.get(entity, ()))

    def lookup(self, name: str) -> NameChoice:
        """The entity ``name`` names (its IRI, label or an alias), by the one rule of
        :mod:`kg.explore.lookup`, and the others it could name; :class:`EntityNotFoundError`
        with "did you mean" when there is none.

        Examples
        --------
        >>> view = Projection.from_records(entities=[("e:sl", "scaling-law", "Phenomenon"),
        ...     ("e:nsl", "Scaling Law", "Phenomenon")], mentions=[("p:1", "e:nsl"), ("p:2", "e:nsl")])
        >>> choice = view.lookup("scaling law")
        >>> choice.iri, choice.match, [other.iri for other in choice.others]
        ('e:nsl', 'folded', ['e:sl'])
        """
        return self.label_index().lookup(name)

    def resolve(self, name: str) -> str:
        """The IRI of the entity ``name`` names (:meth:`lookup`).

        Examples
        --------
        >>> arp = ("e:arp", "Adaptive Return-conditioned Policy", "Method", ["ARP"])
        >>> view = Projection.from_records(entities=[arp])
        >>> view.resolve("Adaptive Return-conditioned Policy") == view.resolve("arp") == "e:arp"
        True
        """
        return self.lookup(name).iri

    def label_index(self) -> LabelIndex:
        """A :class:`kg.explore.lookup.LabelIndex` over the entities, built once."""
        if self._label_index is None:
            from kg.explore.lookup import LabelIndex

            self._label_index = LabelIndex(
                (iri, label, self.aliases.get(i, ()), len(self.papers_of[i]))
                for i, (iri, label) in enumerate(zip(self.entities, self.labels))
            )
        return self._label_index

    def co_mentions(self, entity: int) -> Counter[int]:
        """For each entity mentioned with ``entity`` by some paper, how many papers do."""
        # map, not a generator expression: no Python frame per paper (a hub is in thousands of them)
        counts = Counter(chain.from_iterable(map(self.entities_of.__getitem__, self.papers_of[entity])))
        counts.pop(entity, None)
        return counts

    def shared_papers(self, first: int, second: int) -> list[int]:
        """The papers that mention both entities, in paper order.

        Examples
        --------
        >>> view = Projection.from_records(entities=[("e:a", "A", "Method"), ("e:b", "B", "Task")],
        ...     mentions=[("p:1", "e:a"), ("p:2", "e:a"), ("p:2", "e:b"), ("p:3", "e:b")])
        >>> view.shared_papers(0, 1)
        [1]
        """
        small, large = sorted((self.papers_of[first], self.papers_of[second]), key=len)
        if 16 * len(small) < len(large):  # a rare concept and a common one: binary search (lists are sorted)
            return [p for p in small if (at := bisect_left(large, p)) < len(large) and large[at] == p]
        members = set(small)
        return [p for p in large if p in members]

    def relations_between(self, first: int, second: int) -> list[Relation]:
        """The relations with ``first`` and ``second`` as subject and object, either way round."""
        found = []
        for index in self.relations_of.get(first, ()):
            relation = self.relations[index]
            if {relation.subject, relation.object} == {first, second}:
                found.append(relation)
        return found

    def _entity_ids(self) -> dict[str, int]:
        if self._ids is None:
            self._ids = {iri: i for i, iri in enumerate(self.entities)}
        return self._ids


def project(store: Store) -> nx.MultiDiGraph:
    """The NetworkX view of ``store`` (cached on disk: see :func:`load_projection`).

    Examples
    --------
    >>> import tempfile, os
    >>> from rdflib import Literal
    >>> from rdflib.namespace import RDF, RDFS
    >>> from kg.rdf import KG, entity_iri, paper_iri
    >>> from kg.store import open_store
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with open_store(os.path.join(tmp, "s"), create=True) as store:
    ...         store.write([(entity_iri("clip"), RDF.type, KG.Method),
    ...                      (entity_iri("clip"), RDFS.label, Literal("CLIP")),
    ...                      (paper_iri("p1"), RDF.type, KG.Paper),
    ...                      (paper_iri("p1"), KG.mentions, entity_iri("clip"))])
    ...         view = project(store)
    >>> view.nodes[str(entity_iri("clip"))]["label"], view.number_of_edges()
    ('CLIP', 1)
    """
    return load_projection(store).to_networkx()


def load_projection(store: Store, *, cache: bool = True) -> Projection:
    """The projection of ``store``, from ``DIR/cache/`` when the store has not changed since.

    See :mod:`kg.store.cache`: the first reader after a change builds it and caches it; a
    remote endpoint is read afresh every time.

    Examples
    --------
    >>> import tempfile, os
    >>> from rdflib import Literal
    >>> from rdflib.namespace import RDF, RDFS
    >>> from kg.rdf import KG, entity_iri, paper_iri
    >>> from kg.store import open_store
    >>> triples = [(entity_iri("lora"), RDF.type, KG.Method), (entity_iri("lora"), RDFS.label, Literal("LoRA")),
    ...            (paper_iri("p1"), KG.mentions, entity_iri("lora"))]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "s")
    ...     with open_store(path, create=True) as store:
    ...         store.write(triples)
    ...     with open_store(path) as store:
    ...         first = load_projection(store)
    ...     cached = os.path.exists(os.path.join(path, "cache", CACHE_NAME + ".marshal"))
    ...     with open_store(path, write=True) as store:
    ...         store.write([(paper_iri("p2"), KG.mentions, entity_iri("lora"))])
    ...     with open_store(path) as store:
    ...         second = load_projection(store)
    >>> cached, first.paper_count(str(entity_iri("lora"))), second.paper_count(str(entity_iri("lora")))
    (True, 1, 2)
    """
    if not cache:
        return Projection.from_store(store)
    from kg.store.cache import cached

    return Projection(cached(store, CACHE_NAME, lambda: Projection.from_store(store).to_builtins()))


# ---------------------------------------------------------------------- helpers


class _Relations(Sequence[Relation]):
    """Relation rows (plain tuples, as cached) seen as :class:`Relation` objects, made on access."""

    def __init__(self, rows: list[tuple]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [Relation._make(row) for row in self._rows[index]]
        return Relation._make(self._rows[index])


def ochiai(shared: int, first: int, second: int) -> float:
    """How strongly two sets overlap: ``shared / sqrt(first * second)``, between 0 and 1.

    Examples
    --------
    >>> ochiai(2, 4, 4), ochiai(0, 3, 5), ochiai(3, 0, 0)
    (0.5, 0.0, 1.0)
    """
    return min(1.0, shared / math.sqrt(max(first, 1) * max(second, 1)))
