"""`kg export`: every RDF format parses back to the stored triples; graph formats read back with NetworkX and pandas."""

from __future__ import annotations

import csv
import gzip
import io
import os
from pathlib import Path

import networkx as nx
import pytest
from conftest import STATEMENTS, parsed_triples, run_kg, sorted_ntriples
from rdflib import Dataset, Graph


@pytest.mark.parametrize(
    "fmt,rdflib_format",
    [("ttl", "turtle"), ("nt", "nt"), ("nq", "nquads"), ("trig", "trig"), ("jsonld", "json-ld"), ("xml", "xml")],
)
def test_every_export_format_parses_back_to_the_same_triples(
    small_store: Path, tmp_path: Path, fmt: str, rdflib_format: str
) -> None:
    out = tmp_path / f"graph.{fmt}"
    done = run_kg("export", "--format", fmt, "-o", str(out), "--store", str(small_store))
    assert done.returncode == 0, done.stderr
    expected = Graph().parse(data="\n".join(sorted_ntriples(small_store)), format="nt")
    assert parsed_triples(out, rdflib_format) == set(expected)


def test_turtle_binds_the_prefixes_queries_declare(relations_store: Path) -> None:
    done = run_kg("export", "--format", "ttl", "--store", str(relations_store))
    assert done.returncode == 0, done.stderr
    for prefix in ("kg", "kgr", "paper", "entity", "statement"):
        assert f"@prefix {prefix}: <" in done.stdout
    assert "paper:p1 " in done.stdout and "entity:clip " in done.stdout


def test_an_exported_file_gets_the_mode_of_any_new_file(small_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "graph.nt"
    assert run_kg("export", "-o", str(out), "--store", str(small_store)).returncode == 0
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


def test_export_format_follows_the_file_suffix(small_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "graph.nt"
    assert run_kg("export", "-o", str(out), "--store", str(small_store)).returncode == 0
    assert out.read_text().splitlines()[0].startswith("<")


def test_unknown_export_format_is_a_usage_error(small_store: Path) -> None:
    done = run_kg("export", "--format", "docx", "--store", str(small_store))
    assert done.returncode == 2 and "unknown export format 'docx'" in done.stderr


def test_graphml_and_gexf_read_back_with_networkx(relations_store: Path, tmp_path: Path) -> None:
    for name, read in (("graphml", nx.read_graphml), ("gexf", nx.read_gexf)):
        target = tmp_path / f"graph.{name}"
        done = run_kg("export", "-o", str(target), "--store", str(relations_store))
        assert done.returncode == 0, done.stderr
        graph = read(target)
        assert graph.number_of_nodes() == 9 + 5
        entity_nodes = [n for n, kind in graph.nodes(data="kind") if kind == "entity"]
        assert len(entity_nodes) == 9
        relations = [d for _, _, d in graph.edges(data=True) if d["predicate"] not in ("mentions", "proposes")]
        assert len(relations) == len({(s, p, o) for s, p, o, *_ in STATEMENTS})
        used_for = next(d for d in relations if d["predicate"] == "usedFor")
        assert int(used_for["support"]) == 2 and used_for["evidence"] == "CLIP is used for zero-shot classification."


def test_csv_export_is_an_edge_table_for_pandas(relations_store: Path) -> None:
    done = run_kg("export", "--format", "csv", "--store", str(relations_store))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert list(rows[0]) == [
        "source",
        "source_label",
        "source_type",
        "predicate",
        "target",
        "target_label",
        "target_type",
        "support",
        "evidence",
        "paper",
    ]
    predicates = [row["predicate"] for row in rows]
    assert predicates.count("mentions") == 4 + 3 + 3 + 2 + 1 and predicates.count("proposes") == 1
    arp = next(row for row in rows if row["predicate"] == "addresses")
    assert (arp["source_label"], arp["target_label"], arp["target_type"]) == (
        "Adaptive Return-conditioned Policy",
        "goal misgeneralization",
        "Phenomenon",
    )


# --- the file name's suffix ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["graph.parquet", "graph.gz", "graph"])
def test_a_suffix_that_names_no_format_is_refused(small_store: Path, tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    done = run_kg("export", "-o", str(out), "--store", str(small_store))
    assert done.returncode == 2, done.stderr
    message = done.stderr.strip()
    assert message.startswith(f"kg: error: cannot tell the export format of '{out}'") and "\n" not in message
    assert all(known in message for known in (".ttl", ".nt", ".json", ".gz", "jsonld", "graphml"))
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name,rdflib_format", [("g.nt.gz", "nt"), ("g.ttl.gz", "turtle"), ("g.rdf.gz", "xml")])
def test_gz_compresses_any_rdf_format(small_store: Path, tmp_path: Path, name: str, rdflib_format: str) -> None:
    out = tmp_path / name
    done = run_kg("export", "-o", str(out), "--store", str(small_store))
    assert done.returncode == 0, done.stderr
    expected = Graph().parse(data="\n".join(sorted_ntriples(small_store)), format="nt")
    assert set(Graph().parse(data=gzip.decompress(out.read_bytes()), format=rdflib_format)) == set(expected)
    again = tmp_path / f"again-{name}"
    assert run_kg("export", "-o", str(again), "--store", str(small_store)).returncode == 0
    assert again.read_bytes() == out.read_bytes()  # no time or name in the gzip header


def test_gz_after_a_named_format_and_a_graph_format(relations_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "edges.gz"
    assert run_kg("export", "--format", "csv", "-o", str(out), "--store", str(relations_store)).returncode == 0
    assert gzip.decompress(out.read_bytes()).decode().startswith("source,source_label,")


def test_json_is_json_ld(small_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "graph.json"
    done = run_kg("export", "-o", str(out), "--store", str(small_store))
    assert done.returncode == 0, done.stderr
    expected = Graph().parse(data="\n".join(sorted_ntriples(small_store)), format="nt")
    assert set(Graph().parse(out, format="json-ld")) == set(expected)


# --- the schema with the data ----------------------------------------------------------------------


def test_with_ontology_puts_each_schema_file_in_a_named_graph_of_its_own(relations_store: Path, tmp_path: Path) -> None:
    from kg.export.schema import schema_graphs

    out = tmp_path / "graph.nq"
    done = run_kg("export", "--with-ontology", "-o", str(out), "--store", str(relations_store))
    assert done.returncode == 0, done.stderr
    dataset = Dataset()
    dataset.parse(out, format="nquads")
    by_graph: dict[str, set] = {}
    for s, p, o, g in dataset.quads():
        by_graph.setdefault(str(g), set()).add((s, p, o))
    data = Graph().parse(data="\n".join(sorted_ntriples(relations_store)), format="nt")
    assert by_graph.pop("urn:x-rdflib:default") == set(data)
    expected = {graph.name: len(graph.triples()) for graph in schema_graphs()}
    assert {name: len(triples) for name, triples in by_graph.items()} == expected
    assert {"https://w3id.org/abstract-kg/ontology", "https://w3id.org/abstract-kg/vocab/methods"} <= set(expected)


def test_with_ontology_in_a_triple_format_adds_the_schema_to_the_graph(relations_store: Path, tmp_path: Path) -> None:
    from rdflib import OWL, RDF, SKOS, URIRef

    outputs = []
    for name in ("a.ttl", "b.ttl"):
        out = tmp_path / name
        done = run_kg("export", "--with-ontology", "-o", str(out), "--store", str(relations_store))
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]  # the same store and schema give the same bytes
    graph = Graph().parse(data=outputs[0], format="turtle")
    data = set(Graph().parse(data="\n".join(sorted_ntriples(relations_store)), format="nt"))
    assert data < set(graph)
    assert (URIRef("https://w3id.org/abstract-kg/ontology"), RDF.type, OWL.Ontology) in graph
    assert len(set(graph.subjects(RDF.type, SKOS.ConceptScheme))) == 5


def test_with_ontology_goes_with_rdf_formats_only(relations_store: Path) -> None:
    done = run_kg("export", "--format", "graphml", "--with-ontology", "--store", str(relations_store))
    assert done.returncode == 2 and done.stderr == "kg: error: --with-ontology goes with an RDF format, not graphml\n"
