"""Every SPARQL query the project runs, each named for what it answers (and the few updates, last).

Values never go into the text: where a query is about one entity, paper or piece of text, the
variable that names it is bound when the query runs (``store.query(ENTITY_PAPERS,
bindings={"entity": URIRef(iri)})``); each query says which variables may be bound, and
selects them, as Oxigraph requires. The lists of entity types and relations come from
:mod:`kg.namespace`, written as ``VALUES`` clauses by :func:`one_of`. The project's prefixes
(``kg:``, ``rdfs:``, ...) are declared by the store.

Examples
--------
>>> one_of("type", ["Method", "Task"])
'VALUES ?type { kg:Method kg:Task }'
>>> "VALUES ?type { kg:Method kg:Dataset kg:Task kg:Metric kg:Phenomenon }" in ENTITIES
True
>>> split_aliases("ARP" + ALIAS_SEPARATOR + "A.R.P."), split_aliases(None)
(['ARP', 'A.R.P.'], [])
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from kg import namespace as _iri
from kg.namespace import ENTITY_RELATIONS, ENTITY_TYPES, PAPER_LINKS, local_name

ALIAS_SEPARATOR = "\u001f"
"""Joins an entity's aliases in the ``?aliases`` of :data:`ENTITIES`."""


def one_of(variable: str, names: Iterable[str]) -> str:
    """A ``VALUES`` clause that gives ``?variable`` each of the ``kg:`` terms ``names`` in turn."""
    return f"VALUES ?{variable} {{ {' '.join(f'kg:{name}' for name in names)} }}"


def split_aliases(aliases: object) -> list[str]:
    """The aliases in an ``?aliases`` value of :data:`ENTITIES` (a term, a string or None)."""
    return [alias for alias in str(aliases or "").split(ALIAS_SEPARATOR) if alias]


def one_per_entity(rows: Iterable[Sequence[str]]) -> Iterator[tuple[str, str, str, tuple[str, ...]]]:
    """``(iri, label, type, aliases)`` for each entity in rows of :data:`ENTITIES` read as strings, in
    order of IRI: the first type and label in order, and every alias, sorted (the type as its local name).

    Examples
    --------
    >>> from kg.namespace import ontology_iri
    >>> method, task = ontology_iri("Method"), ontology_iri("Task")
    >>> list(one_per_entity([("e:b", task, "B", ""), ("e:a", method, "A", "y" + ALIAS_SEPARATOR + "x")]))
    [('e:a', 'A', 'Method', ('x', 'y')), ('e:b', 'B', 'Task', ())]
    """
    merged: dict[str, list] = {}
    for iri, entity_type, label, aliases in sorted(rows, key=lambda row: tuple(row[:3])):
        entry = merged.setdefault(iri, [label, local_name(entity_type), set()])
        entry[2].update(split_aliases(aliases))
    for iri, (label, entity_type, aliases) in merged.items():
        yield iri, label, entity_type, tuple(sorted(aliases))


# ---- the store as a whole

READY = "ASK {}"
"""Nothing: a first query that makes the store load what it needs."""

TRIPLE_COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
"""How many triples the default graph holds (``?n``)."""

PAPER_COUNT = "SELECT (COUNT(?paper) AS ?n) WHERE { ?paper a kg:Paper }"
"""How many papers there are (``?n``)."""

ENTITY_COUNTS = f"""SELECT ?type (COUNT(?entity) AS ?n) WHERE {{
  {one_of("type", ENTITY_TYPES)} ?entity a ?type
}} GROUP BY ?type"""
"""How many entities there are of each type that has any."""

RELATION_COUNT = f"SELECT (COUNT(*) AS ?n) WHERE {{ {one_of('predicate', ENTITY_RELATIONS)} ?s ?predicate ?o }}"
"""How many entity-to-entity relation triples there are (``?n``)."""

PAPER_IDS = "SELECT ?id WHERE { ?paper a kg:Paper ; dcterms:identifier ?id }"
"""The document id of every stored paper."""

# ---- entities

ENTITIES = f"""SELECT ?entity ?type ?label (GROUP_CONCAT(DISTINCT ?alias; SEPARATOR="\\u001f") AS ?aliases) WHERE {{
  {one_of("type", ENTITY_TYPES)}
  ?entity a ?type ; rdfs:label ?label .
  OPTIONAL {{ ?entity skos:altLabel ?alias }}
}} GROUP BY ?entity ?type ?label"""
"""Every entity with its type, label and aliases (joined by :data:`ALIAS_SEPARATOR`);
``?entity`` may be bound, for one entity."""

MENTION_COUNTS = """SELECT ?entity (COUNT(DISTINCT ?paper) AS ?papers) WHERE {
  ?paper kg:mentions ?entity
} GROUP BY ?entity"""
"""How many papers mention each entity that any paper mentions."""

FIND_ENTITIES = f"""SELECT ?entity ?label ?type ?match ?needle (COUNT(DISTINCT ?paper) AS ?papers) WHERE {{
  {one_of("type", ENTITY_TYPES)} ?entity a ?type ; rdfs:label ?label .
  {{ ?entity rdfs:label ?match }} UNION {{ ?entity skos:altLabel ?match }}
  FILTER(CONTAINS(LCASE(STR(?match)), ?needle))
  OPTIONAL {{ ?paper kg:mentions ?entity }}
}} GROUP BY ?entity ?label ?type ?match ?needle"""
"""Entities with a label or alias (``?match``) that contains the lower-case text bound to
``?needle``, with the number of papers that mention them."""

# Two plain patterns, sorted by the caller: at 50k papers, for an entity 18k of them mention, ORDER BY
# took 3.4 s and an EXISTS per paper 0.4 s, where these take 0.3 s together.
ENTITY_PAPERS = "SELECT ?entity ?paper WHERE { ?paper kg:mentions ?entity }"
"""The papers that mention the entity bound to ``?entity``, in no particular order."""

ENTITY_PROPOSERS = "SELECT ?entity ?paper WHERE { ?paper kg:proposes ?entity }"
"""The papers that propose the entity bound to ``?entity``, in no particular order."""

# MIN picks the same evidence sentence on every run (SAMPLE need not). Each branch of the UNION holds
# every pattern on the statement, so that the bound ?entity leads in both (joined after the UNION, every
# statement's evidence was read: 20 s at 10k papers); and the other end's label and type are joined to
# the groups, not to each statement (0.8 s to 0.18 s for a concept in 5267 statements at 50k papers).
ENTITY_LINKS = f"""SELECT ?entity ?predicate ?direction ?other ?otherLabel ?otherType ?support ?sentence ?source
WHERE {{
  {{ SELECT ?entity ?predicate ?direction ?other
           (COUNT(DISTINCT ?paper) AS ?support) (MIN(?evidence) AS ?sentence) (MIN(?paper) AS ?source) WHERE {{
      {{ ?st rdf:subject ?entity ; rdf:predicate ?predicate ; rdf:object ?other ;
             prov:wasDerivedFrom ?paper ; kg:evidence ?evidence .
         BIND("out" AS ?direction) }}
      UNION
      {{ ?st rdf:object ?entity ; rdf:predicate ?predicate ; rdf:subject ?other ;
             prov:wasDerivedFrom ?paper ; kg:evidence ?evidence .
         BIND("in" AS ?direction) }}
    }} GROUP BY ?entity ?predicate ?direction ?other }}
  ?other rdfs:label ?otherLabel ; a ?otherType .
  {one_of("otherType", ENTITY_TYPES)}
}} ORDER BY ?predicate ?direction DESC(?support) ?otherLabel"""
"""The relations of the entity bound to ``?entity``, to (``out``) or from (``in``) other
entities, each with its support (distinct papers), one evidence sentence and its paper."""

# ---- papers, and the links the projection reads

PAPERS = """SELECT ?paper (SAMPLE(?t) AS ?title) (SAMPLE(?id) AS ?ident) WHERE {
  ?paper a kg:Paper . OPTIONAL { ?paper dcterms:title ?t } OPTIONAL { ?paper dcterms:identifier ?id }
} GROUP BY ?paper"""
"""Every paper with a title and a document id, where it has them."""

PAPER_ABSTRACT = "SELECT ?paper ?abstract WHERE { ?paper dcterms:abstract ?abstract }"
"""The abstract of the paper bound to ``?paper``."""

PAPER_TITLE_AND_ABSTRACT = (
    "SELECT ?paper ?title ?abstract WHERE { ?paper a kg:Paper "
    "OPTIONAL { ?paper dcterms:title ?title } OPTIONAL { ?paper dcterms:abstract ?abstract } }"
)
"""The title and abstract (each optional) of the paper bound to ``?paper``."""

PAPER_FIELDS = """SELECT ?paper ?field ?value WHERE {
  VALUES ?field { rdf:type dcterms:identifier dcterms:title dcterms:abstract dcterms:date dcterms:creator
                  kg:sourceLocation schema:url }
  ?paper ?field ?value
} ORDER BY ?field ?value"""
"""What the paper bound to ``?paper`` records of itself, one ``?field`` and ``?value`` a row (its
``rdf:type`` too, so that a paper with nothing else is found)."""

PAPERS_BY_ID_START = """SELECT ?paper ?id ?start WHERE {
  ?paper a kg:Paper ; dcterms:identifier ?id . FILTER(STRSTARTS(STR(?id), STR(?start)))
} ORDER BY ?id LIMIT 11"""
"""Papers whose document id begins with the text bound to ``?start``, by id, eleven at most."""

PAPER_ENTITIES = f"""SELECT ?paper ?link ?entity ?label ?type WHERE {{
  {one_of("link", PAPER_LINKS)} {one_of("type", ENTITY_TYPES)}
  ?paper ?link ?entity . ?entity a ?type ; rdfs:label ?label .
}} ORDER BY LCASE(STR(?label)) ?entity ?link"""
"""The entities the paper bound to ``?paper`` mentions, each with every link to it (``kg:mentions``,
``kg:proposes``, ``kg:uses``, ...), its label and type."""

PAPER_STATEMENTS = """SELECT ?paper ?subject ?subjectLabel ?predicate ?object ?objectLabel ?evidence ?confidence WHERE {
  ?st prov:wasDerivedFrom ?paper ; rdf:subject ?subject ; rdf:predicate ?predicate ; rdf:object ?object .
  ?subject rdfs:label ?subjectLabel . ?object rdfs:label ?objectLabel .
  OPTIONAL { ?st kg:evidence ?evidence } OPTIONAL { ?st kg:confidence ?confidence }
}"""
"""The relations stated by the paper bound to ``?paper``, with the labels of their ends, the
sentence stating each and its confidence."""

PAPER_ENTITY_LINKS = f"SELECT ?paper ?link ?entity WHERE {{ {one_of('link', PAPER_LINKS)} ?paper ?link ?entity }}"
"""Every paper-to-entity link (``kg:mentions``, ``kg:proposes``, ...)."""

RELATIONS = f"SELECT ?s ?predicate ?o WHERE {{ {one_of('predicate', ENTITY_RELATIONS)} ?s ?predicate ?o }}"
"""Every entity-to-entity relation triple."""

STATEMENTS = f"""SELECT ?s ?predicate ?o ?paper ?evidence ?confidence WHERE {{
  {one_of("predicate", ENTITY_RELATIONS)}
  ?st rdf:subject ?s ; rdf:predicate ?predicate ; rdf:object ?o .
  OPTIONAL {{ ?st prov:wasDerivedFrom ?paper }}
  OPTIONAL {{ ?st kg:evidence ?evidence }}
  OPTIONAL {{ ?st kg:confidence ?confidence }}
}}"""
"""Every statement of a relation, with the paper it was derived from, its evidence and confidence."""

# ---- the build's bookkeeping, in named graphs (kg.namespace.graph_iri) beside the knowledge graph

EXTRACTION_RECORDS = f"""SELECT ?paper ?record WHERE {{
  GRAPH <{_iri.EXTRACTION_GRAPH}> {{ ?paper <{_iri.EXTRACTION_RECORD}> ?record }}
}}"""
"""Every stored paper with its extraction record (a JSON literal)."""

AWAITING_CONSOLIDATION = f"ASK {{ GRAPH <{_iri.EXTRACTION_GRAPH}> {{ ?paper <{_iri.AWAITS_CONSOLIDATION}> ?flag }} }}"
"""Whether some paper's record is not yet reflected in the entity-level triples."""

DERIVED_TRIPLES = f"""SELECT ?s ?p ?o WHERE {{
  {{ {one_of("type", ENTITY_TYPES)} ?s a ?type .
    VALUES ?p {{ rdf:type rdfs:label skos:prefLabel skos:altLabel }} ?s ?p ?o }}
  UNION {{ {one_of("p", ENTITY_RELATIONS)} ?s ?p ?o }}
  UNION {{ ?s a kg:Statement ; ?p ?o }}
  UNION {{ {one_of("p", PAPER_LINKS)} ?s ?p ?o }}
}}"""
"""Every triple that :mod:`kg.build.consolidate` derives from the extraction records: entities'
types and labels, relations and their statements, and papers' links to entities (a triple may
come twice)."""

PUSH_COUNTS = "SELECT (COUNT(*) AS ?n) (SUM(IF(isBlank(?s) || isBlank(?o), 1, 0)) AS ?blank) WHERE { ?s ?p ?o }"
"""The triples `kg push` sends, and how many of them have a blank node (those go in one batch)."""

# ---- updates (run by kg.store.embedded, never with values in their text)

APPLY_STAGED = f"""DELETE {{ ?s ?p ?o }} WHERE {{ GRAPH <{_iri.STAGED_REMOVALS}> {{ ?s ?p ?o }} }} ;
INSERT {{ ?s ?p ?o }} WHERE {{ GRAPH <{_iri.STAGED_ADDITIONS}> {{ ?s ?p ?o }} }} ;
DROP SILENT GRAPH <{_iri.STAGED_REMOVALS}> ;
DROP SILENT GRAPH <{_iri.STAGED_ADDITIONS}>"""
"""Move the staged removals and additions into the default graph (one request: one transaction)."""

CLEAR_AWAITING = f"DELETE WHERE {{ GRAPH <{_iri.EXTRACTION_GRAPH}> {{ ?paper <{_iri.AWAITS_CONSOLIDATION}> ?flag }} }}"
"""Mark every paper's record as reflected in the entity-level triples."""

UPDATES = ("APPLY_STAGED", "CLEAR_AWAITING")
"""The names of the SPARQL updates above; every other upper-case string here is a query."""

# ---- updates `kg push` sends to a remote server: there is nothing to bind values with, so the graphs'
# IRIs go into the text, written by Oxigraph (which checks them and escapes what needs it).


def graph_ref(graph: str | None) -> str:
    """``<iri>``, or ``DEFAULT`` for None (the default graph), as graph management operations name a graph.

    Examples
    --------
    >>> graph_ref("http://example.org/kg"), graph_ref(None)
    ('<http://example.org/kg>', 'DEFAULT')
    """
    if graph is None:
        return "DEFAULT"
    import pyoxigraph as ox

    return str(ox.NamedNode(graph))


def drop_graph(graph: str | None) -> str:
    """Empty ``graph`` (None: the default graph), if it is there.

    Examples
    --------
    >>> drop_graph("http://example.org/staging")
    'DROP SILENT GRAPH <http://example.org/staging>'
    """
    return f"DROP SILENT {'DEFAULT' if graph is None else 'GRAPH ' + graph_ref(graph)}"


def move_graph(source: str, target: str | None) -> str:
    """Replace the triples of ``target`` (None: the default graph) by those of ``source``, and drop ``source``:
    one operation, so a reader sees the old graph or the new one.

    Examples
    --------
    >>> move_graph("http://example.org/staging", None)
    'MOVE <http://example.org/staging> TO DEFAULT'
    """
    return f"MOVE {graph_ref(source)} TO {graph_ref(target)}"


def insert_data(ntriples: str, graph: str | None) -> str:
    """Add the triples ``ntriples`` (N-Triples, as pyoxigraph writes them: a subset of SPARQL's syntax for
    data) to ``graph`` (None: the default graph); a blank node becomes a new one. `kg serve` runs the
    Graph Store Protocol's writes with it, after :func:`drop_graph` for a PUT: one request, one transaction.

    Examples
    --------
    >>> print(insert_data('<urn:a> <urn:b> "c" .\\n', "http://example.org/g"))
    INSERT DATA { GRAPH <http://example.org/g> {
    <urn:a> <urn:b> "c" .
    } }
    >>> insert_data("", None)
    'INSERT DATA {\\n}'
    """
    if graph is None:
        return f"INSERT DATA {{\n{ntriples}}}"
    return f"INSERT DATA {{ GRAPH {graph_ref(graph)} {{\n{ntriples}}} }}"
