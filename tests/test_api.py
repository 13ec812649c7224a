"""The Python API: kg.open(store) for notebooks and scripts."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import kg


def test_open_query_dataframe_and_views(small_store: Path) -> None:
    with kg.open(small_store) as graph:
        result = graph.query("SELECT ?label WHERE { ?e a kg:Phenomenon ; rdfs:label ?label } ORDER BY ?label")
        labels = [str(row[0]) for row in result.rows]
        assert "goal misgeneralization" in labels and "robust overfitting" in labels
        frame = result.to_dataframe()
        assert list(frame.columns) == ["label"] and list(frame["label"]) == labels
        assert len(graph.graph) == graph.stats().triples
        view = graph.nx
        papers = [n for n, data in view.nodes(data=True) if data["kind"] == "paper"]
        assert len(papers) == 2
        from kg.namespace import ENTITY_RELATIONS, PAPER_LINKS

        predicates = {data["predicate"] for _, _, data in view.edges(data=True)}
        assert "mentions" in predicates and predicates <= set(PAPER_LINKS) | set(ENTITY_RELATIONS)


def test_build_and_export_through_the_api(small_store: Path, small_corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    graph = kg.open(store)
    report = graph.build([small_corpus])
    assert (report.records, report.distinct, report.new) == (3, 2, 2)
    assert graph.build([small_corpus]).new == 0
    buffer = io.BytesIO()
    graph.export(buffer, format="nt")
    assert buffer.getvalue().count(b"\n") == graph.stats().triples
    graph.export(tmp_path / "g.ttl", format="ttl")
    assert (tmp_path / "g.ttl").read_text().startswith("@prefix")
    graph.export(tmp_path / "g.nt.gz")  # the format from the suffix, compressed, as `kg export -o` does
    assert gzip.decompress((tmp_path / "g.nt.gz").read_bytes()) == buffer.getvalue()
    graph.close()


def test_importing_kg_is_light() -> None:
    import subprocess
    import sys

    code = (
        "import kg, kg.cli, kg.store, kg.query.result, sys; "
        "print(sorted(m for m in ('spacy', 'pandas', 'networkx') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_query_command_does_not_import_spacy(small_store: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys, kg.cli; kg.cli.main(['stats', '--store', sys.argv[1]]); "
        "assert 'spacy' not in sys.modules, 'spacy imported'"
    )
    done = subprocess.run([sys.executable, "-c", code, str(small_store)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_names_and_papers_through_the_api(competing_store: Path) -> None:
    import warnings

    with kg.open(competing_store) as graph:
        choice = graph.lookup("scaling law")
        assert (choice.chosen.label, [other.label for other in choice.others]) == ("Scaling Law", ["scaling-law"])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert graph.path("scaling law", "large language model")["source"] == "Scaling Law"
        assert [str(w.message) for w in caught] == [choice.note()]
        assert graph.paper("paper:q4")["mentions"][0]["label"] == "large language model"
