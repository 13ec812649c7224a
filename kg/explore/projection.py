"""The projection of a store for path algorithms: concepts and papers, with their links.

A :class:`Projection` holds, in plain lists of integers and strings, what exploring
connections needs and nothing else: every entity (IRI, label, type, aliases), every paper
(IRI and title), which papers mention which entities, and the entity-to-entity relations
(``kg:usedFor``, ...) with their support (distinct papers) and best evidence sentence.
:meth:`Projection.to_networkx` gives it as a NetworkX ``MultiDiGraph`` (export, the
Python API) and :meth:`Projection.concept_graph` as a weighted concept-to-concept
``Graph`` (centrality, communities).

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
from kg.namespace import local_name
from kg.store.queries import ENTITIES, PAPER_ENTITY_LINKS, PAPERS, RELATIONS, STATEMENTS, one_per_entity
from kg.store.select import select_strings

if TYPE_CHECKING:
    import networkx as nx

    from kg.explore.lookup import LabelIndex
    from kg.store import Store

CACHE_NAME = "projection"
"""The projection's entry in the store's cache (:mod:`kg.store.cache`)."""
CO_MENTION = "mentions"
"""The link name of two concepts mentioned by the same paper."""


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


class Projection:
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
        self._exact_labels: dict[str, int] | None = None
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
        entity_rows: dict[str, tuple[str, str, tuple[str, ...]]] = {}
        for row in entities:
            iri, label, entity_type = row[0], row[1], row[2]
            aliases = tuple(row[3]) if len(row) > 3 else ()
            if iri in entity_rows:
                aliases = entity_rows[iri][2] + aliases
                label, entity_type = entity_rows[iri][0], entity_rows[iri][1]
            entity_rows[iri] = (label, entity_type, aliases)
        paper_titles = {iri: title for iri, title in papers}
        links = [(row[0], row[1], row[2] if len(row) > 2 else CO_MENTION) for row in mentions]
        links = [link for link in links if link[1] in entity_rows]
        for paper, _, _ in links:
            paper_titles.setdefault(paper, _last_segment(paper))
        statements = list(relations)
        for _, _, _, cited, _, _ in statements:
            for paper in cited:
                paper_titles.setdefault(paper, _last_segment(paper))

        entity_iris = sorted(entity_rows)
        ids = {iri: i for i, iri in enumerate(entity_iris)}
        paper_iris = sorted(paper_titles)
        paper_ids = {iri: i for i, iri in enumerate(paper_iris)}
        aliases_of = {}
        for i, iri in enumerate(entity_iris):
            label = entity_rows[iri][0]
            names = sorted({a for a in entity_rows[iri][2] if a and a != label})
            if names:
                aliases_of[i] = names

        mentioned: set[tuple[int, int]] = set()
        roles: set[tuple[int, int, str]] = set()
        for paper, entity, predicate in links:
            pair = (paper_ids[paper], ids[entity])
            mentioned.add(pair)
            if predicate != CO_MENTION:
                roles.add((*pair, predicate))
        papers_of: list[list[int]] = [[] for _ in entity_iris]
        entities_of: list[list[int]] = [[] for _ in paper_iris]
        for paper, entity in sorted(mentioned):
            papers_of[entity].append(paper)
            entities_of[paper].append(entity)

        rows = _merge_statements(statements, ids, paper_ids)
        relations_of: dict[int, list[int]] = {}
        for index, row in enumerate(rows):
            relations_of.setdefault(row[0], []).append(index)
            if row[2] != row[0]:
                relations_of.setdefault(row[2], []).append(index)
        return cls(
            {
                "entities": entity_iris,
                "labels": [entity_rows[iri][0] for iri in entity_iris],
                "types": [entity_rows[iri][1] for iri in entity_iris],
                "aliases": aliases_of,
                "papers": paper_iris,
                "paper_labels": [paper_titles[iri] or _last_segment(iri) for iri in paper_iris],
                "papers_of": papers_of,
                "entities_of": entities_of,
                "roles": sorted(roles),
                "relations": rows,
                "relations_of": relations_of,
            }
        )

    @classmethod
    def from_store(cls, store: Store) -> Projection:
        """Read a store with five SPARQL queries (no cache: see :func:`load_projection`)."""
        entities = one_per_entity(select_strings(store, ENTITIES))
        papers = select_strings(store, PAPERS)
        mentions = [(p, e, local_name(link)) for p, link, e in select_strings(store, PAPER_ENTITY_LINKS)]
        relations = [(s, local_name(p), o, (), None, None) for s, p, o in select_strings(store, RELATIONS)]
        for s, p, o, paper, evidence, confidence in select_strings(store, STATEMENTS):
            relations.append((s, local_name(p), o, (paper,) if paper else (), evidence, _float(confidence)))
        return cls.from_records(
            entities=entities,
            papers=[(p, title or ident) for p, title, ident in papers],
            mentions=mentions,
            relations=relations,
        )

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

    def paper_count(self, iri: str) -> int:
        """The number of papers that mention the entity ``iri``."""
        return len(self.papers_of[self.entity_id(iri)])

    def names(self, entity: int) -> tuple[str, ...]:
        """The label and aliases of an entity (by number)."""
        return (self.labels[entity], *self.aliases.get(entity, ()))

    def resolve(self, name: str) -> str:
        """The IRI of the entity ``name`` names: its label, an alias or its IRI.

        A label given exactly, and borne by one entity only, is looked up directly; anything
        else goes through :meth:`label_index` (case and plural folding, aliases, IRIs, and
        :class:`EntityNotFoundError` with "did you mean"). Building that index folds every
        label, a tenth of a second at 50k entities, so the exact case avoids it.

        Examples
        --------
        >>> arp = ("e:arp", "Adaptive Return-conditioned Policy", "Method", ["ARP"])
        >>> view = Projection.from_records(entities=[arp])
        >>> view.resolve("Adaptive Return-conditioned Policy") == view.resolve("arp") == "e:arp"
        True
        """
        if self._exact_labels is None:
            exact: dict[str, int] = {}
            for number, label in enumerate(self.labels):
                exact[label] = -1 if label in exact else number
            self._exact_labels = exact
        number = self._exact_labels.get(name, -1)
        return self.entities[number] if number >= 0 else self.label_index().resolve(name)

    def label_index(self) -> LabelIndex:
        """A :class:`kg.explore.lookup.LabelIndex` over the entities, built once."""
        if self._label_index is None:
            from kg.explore.lookup import LabelIndex

            self._label_index = LabelIndex(
                (iri, label, self.aliases.get(i, ())) for i, (iri, label) in enumerate(zip(self.entities, self.labels))
            )
        return self._label_index

    def co_mentions(self, entity: int) -> Counter[int]:
        """For each entity mentioned with ``entity`` by some paper, how many papers do."""
        counts = Counter(chain.from_iterable(self.entities_of[p] for p in self.papers_of[entity]))
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

    # ------------------------------------------------------------------ NetworkX views

    def to_networkx(self) -> nx.MultiDiGraph:
        """Entities and papers as nodes (IRIs), paper links and relations as edges.

        Node attributes: ``kind`` (``entity`` or ``paper``), ``type`` (``Paper`` for papers),
        ``label``, and for entities ``aliases`` (joined by ``"; "``) and ``papers``.
        Edges are keyed by predicate and carry ``predicate`` and ``support``; relations also
        ``evidence``, ``paper`` (the IRI of the evidence's paper) and ``confidence``. Every
        attribute is a string or a number, so the graph writes to GraphML and GEXF as is.

        Examples
        --------
        >>> view = Projection.from_records(entities=[("e:a", "A", "Method")], mentions=[("p:1", "e:a")])
        >>> graph = view.to_networkx()
        >>> sorted(graph.nodes(data="kind")), list(graph.edges(keys=True))
        ([('e:a', 'entity'), ('p:1', 'paper')], [('p:1', 'e:a', 'mentions')])
        """
        import networkx as nx

        graph = nx.MultiDiGraph()
        for entity, iri in enumerate(self.entities):
            graph.add_node(
                iri,
                kind="entity",
                type=self.types[entity],
                label=self.labels[entity],
                aliases="; ".join(self.aliases.get(entity, ())),
                papers=len(self.papers_of[entity]),
            )
        for paper, iri in enumerate(self.papers):
            graph.add_node(iri, kind="paper", type="Paper", label=self.paper_labels[paper])
        for paper, members in enumerate(self.entities_of):
            for entity in members:
                graph.add_edge(
                    self.papers[paper], self.entities[entity], key=CO_MENTION, predicate=CO_MENTION, support=1
                )
        for paper, entity, predicate in self.roles:
            graph.add_edge(self.papers[paper], self.entities[entity], key=predicate, predicate=predicate, support=1)
        for relation in self.relations:
            attributes = {
                "predicate": relation.predicate,
                "support": relation.support,
                "evidence": relation.evidence or "",
                "paper": "" if relation.evidence_paper is None else self.papers[relation.evidence_paper],
            }
            if relation.confidence is not None:
                attributes["confidence"] = relation.confidence
            graph.add_edge(
                self.entities[relation.subject], self.entities[relation.object], key=relation.predicate, **attributes
            )
        return graph

    def concept_graph(self) -> nx.Graph:
        """Entities only, joined where some paper links them, weighted by the number of such papers.

        Two entities are joined when a paper mentions both or a relation joins them;
        ``weight`` is the number of distinct papers doing either, ``predicates`` the
        relations (joined by ``"; "``). Nodes carry ``label``, ``type`` and ``papers``.

        Examples
        --------
        >>> view = Projection.from_records(
        ...     entities=[("e:a", "A", "Method"), ("e:b", "B", "Task")],
        ...     mentions=[("p:1", "e:a"), ("p:1", "e:b"), ("p:2", "e:a"), ("p:2", "e:b")])
        >>> view.concept_graph().edges(data="weight")
        EdgeDataView([('e:a', 'e:b', 2)])
        """
        import networkx as nx

        pairs: Counter[tuple[int, int]] = Counter()
        for members in self.entities_of:
            for i, first in enumerate(members):
                for second in members[i + 1 :]:
                    pairs[(first, second)] += 1
        predicates: dict[tuple[int, int], set[str]] = {}
        for relation in self.relations:
            if relation.subject == relation.object:
                continue
            pair = (min(relation.subject, relation.object), max(relation.subject, relation.object))
            predicates.setdefault(pair, set()).add(relation.predicate)
            extra = set(relation.papers) - set(self.shared_papers(*pair))
            pairs[pair] += len(extra) if pair in pairs else max(1, len(extra))
        graph = nx.Graph()
        for entity, iri in enumerate(self.entities):
            graph.add_node(iri, label=self.labels[entity], type=self.types[entity], papers=len(self.papers_of[entity]))
        for (first, second), weight in pairs.items():
            graph.add_edge(
                self.entities[first],
                self.entities[second],
                weight=weight,
                predicates="; ".join(sorted(predicates.get((first, second), ()))),
            )
        return graph

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
    ...     with open_store(os.path.join(tmp, "s"), create=True) as store:
    ...         store.write(triples)
    ...         first = load_projection(store)
    ...         cached = os.path.exists(os.path.join(tmp, "s", "cache", CACHE_NAME + ".marshal"))
    ...         store.write([(paper_iri("p2"), KG.mentions, entity_iri("lora"))])
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


def _merge_statements(statements: list[Sequence], ids: dict[str, int], paper_ids: dict[str, int]) -> list[tuple]:
    """One row per distinct (subject, predicate, object): papers merged, best evidence kept."""
    merged: dict[tuple[int, str, int], dict] = {}
    for subject, predicate, obj, cited, evidence, confidence in statements:
        if subject not in ids or obj not in ids:
            continue
        entry = merged.setdefault((ids[subject], predicate, ids[obj]), {"papers": set(), "best": None})
        papers = [paper_ids[p] for p in cited]
        entry["papers"].update(papers)
        if evidence:
            rank = (-(confidence if confidence is not None else 0.0), papers[0] if papers else -1, evidence)
            if entry["best"] is None or rank < entry["best"][0]:
                entry["best"] = (rank, evidence, papers[0] if papers else None, confidence)
    rows = []
    for (subject, predicate, obj), entry in sorted(merged.items()):
        _, evidence, paper, confidence = entry["best"] or (None, None, None, None)
        rows.append((subject, predicate, obj, tuple(sorted(entry["papers"])), evidence, paper, confidence))
    return rows


def _last_segment(iri: str) -> str:
    return iri.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]


def _float(value: str | None) -> float | None:
    try:
        return None if value is None else float(value)
    except ValueError:
        return None


def ochiai(shared: int, first: int, second: int) -> float:
    """How strongly two sets overlap: ``shared / sqrt(first * second)``, between 0 and 1.

    Examples
    --------
    >>> ochiai(2, 4, 4), ochiai(0, 3, 5), ochiai(3, 0, 0)
    (0.5, 0.0, 1.0)
    """
    return min(1.0, shared / math.sqrt(max(first, 1) * max(second, 1)))
