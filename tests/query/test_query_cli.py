"""`kg query` and `kg stats` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_kg

COUNT_BY_TYPE = (
    "SELECT ?type (COUNT(?e) AS ?n) WHERE { ?e a ?type . FILTER(?type IN (kg:Method, kg:Phenomenon)) } "
    "GROUP BY ?type ORDER BY ?type"
)


def test_table_shows_prefixed_names_and_aligned_columns(small_store: Path) -> None:
    done = run_kg("query", COUNT_BY_TYPE, "--store", str(small_store))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["type", "|", "n"]
    assert "kg:Method" in done.stdout and "kg:Phenomenon" in done.stdout
    assert len({line.index("|") for line in lines if "|" in line}) == 1


@pytest.mark.parametrize(
    "fmt,check",
    [
        ("json", lambda out: json.loads(out)["head"]["vars"] == ["type", "n"]),
        ("xml", lambda out: 'xmlns="http://www.w3.org/2005/sparql-results#"' in out),
        ("csv", lambda out: out.splitlines()[0] == "type,n"),
        ("tsv", lambda out: out.splitlines()[0] == "?type\t?n"),
    ],
)
def test_w3c_result_formats(small_store: Path, fmt: str, check) -> None:
    done = run_kg("query", COUNT_BY_TYPE, "--format", fmt, "--store", str(small_store))
    assert done.returncode == 0, done.stderr
    assert check(done.stdout)


def test_query_from_file_and_stdin(small_store: Path, tmp_path: Path) -> None:
    query = tmp_path / "q.rq"
    query.write_text("ASK { ?p a kg:Paper }")
    assert run_kg("query", "-f", str(query), "--store", str(small_store)).stdout.strip() == "true"
    piped = run_kg("query", "-f", "-", "--store", str(small_store), input="ASK { ?p a kg:Nothing }")
    assert piped.stdout.strip() == "false"


def test_syntax_error_names_line_and_column(small_store: Path) -> None:
    done = run_kg("query", "SELECT ?x WHERE {\n  ?x a kg:Paper \n  FILTER(?x = ) }", "--store", str(small_store))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kg: error: SPARQL syntax error: line 3, column ")
    assert "Traceback" not in done.stderr


def test_unknown_prefix_is_explained(small_store: Path) -> None:
    done = run_kg("query", "SELECT * WHERE { ?s foo:bar ?o }", "--store", str(small_store))
    assert done.returncode == 2 and "unknown prefix" in done.stderr


def test_construct_renders_as_triples(small_store: Path) -> None:
    done = run_kg(
        "query", "CONSTRUCT { ?p a kg:Paper } WHERE { ?p a kg:Paper }", "--format", "csv", "--store", str(small_store)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "subject,predicate,object"
    assert len(done.stdout.splitlines()) == 3


def test_stats_text(small_store: Path) -> None:
    done = run_kg("stats", "--store", str(small_store))
    assert done.returncode == 0
    first = done.stdout.splitlines()[0].split()
    assert first == ["papers", "2"]


def test_missing_query_is_a_usage_error(small_store: Path) -> None:
    done = run_kg("query", "--store", str(small_store))
    assert done.returncode == 2 and "give a SPARQL query" in done.stderr


def test_unreachable_endpoint_fails_cleanly() -> None:
    done = run_kg("query", "ASK {}", "--endpoint", "http://127.0.0.1:9/sparql")
    assert done.returncode == 1
    assert done.stderr.startswith("kg: error: http://127.0.0.1:9/sparql:") and "Traceback" not in done.stderr
