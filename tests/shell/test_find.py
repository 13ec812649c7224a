"""``.find``: best matches first, and among equal matches the entity more papers mention."""

from __future__ import annotations

from pathlib import Path

from rdflib import Literal
from rdflib.namespace import RDF, RDFS, SKOS

from kg.rdf import KG, entity_iri, paper_iri
from kg.store import open_store
from shell.commands import execute
from shell.session import SavedQueries, Session

ENTITIES = {  # key: (label, aliases, papers mentioning it)
    "forgetting-issue": ("forgetting issue", (), 1),
    "catastrophic-forgetting": ("catastrophic forgetting", ("CF",), 3),
    "forgettingness": ("forgettingness", (), 5),
    "unforgetting": ("unforgetting", (), 7),
    "forgetting": ("Forgetting", (), 0),
    "memory-loss": ("memory loss", ("forgetting of tasks",), 9),
}


def test_find_ranks_by_papers_after_match_quality(tmp_path: Path) -> None:
    triples = []
    for key, (label, aliases, papers) in ENTITIES.items():
        node = entity_iri(key)
        triples += [(node, RDF.type, KG.Phenomenon), (node, RDFS.label, Literal(label))]
        triples += [(node, SKOS.altLabel, Literal(alias)) for alias in aliases]
        triples += [(paper_iri(f"{key}-{n}"), KG.mentions, node) for n in range(papers)]
    with open_store(tmp_path / "store", create=True) as store:
        store.write(triples)
    with open_store(tmp_path / "store") as store:
        session = Session(store, saved=SavedQueries(tmp_path / "queries.json"))
        found = [(str(row[1]), int(row[3])) for row in execute(session, ".find forgetting").rows]
    assert found == [
        ("Forgetting", 0),  # the whole name
        ("memory loss", 9),  # the text as whole words (here of an alias), most papers first
        ("catastrophic forgetting", 3),
        ("forgetting issue", 1),
        ("forgettingness", 5),  # the start of a word
        ("unforgetting", 7),  # anywhere
    ]
