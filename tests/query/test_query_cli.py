"""`kg query` and `kg stats` as a user runs them."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pexpect
import pytest
from conftest import KG_SCRIPT, run_kg

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
    assert done.returncode == 2 and "unknown prefix 'foo:'" in done.stderr
    # The declared prefixes are listed, not a shell command that `kg query` users do not have.
    assert "declared: kg:, kgr:, paper:, entity:, statement:, rdf:, rdfs:" in done.stderr
    assert ".prefixes" not in done.stderr


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
    assert done.stderr == "kg: error: cannot connect to http://127.0.0.1:9/sparql: connection refused\n"
    debug = run_kg("query", "ASK {}", "--endpoint", "http://127.0.0.1:9/sparql", "--debug")
    assert "ConnectionRefusedError" in debug.stderr  # the cause, with --debug


@pytest.mark.parametrize(
    "update", ["INSERT DATA { <urn:a> <urn:b> 1 }", "PREFIX ex: <urn:x#>\ndelete where { ?s ?p ?o }"]
)
def test_an_update_is_refused_and_why(small_store: Path, update: str) -> None:
    done = run_kg("query", update, "--store", str(small_store))
    assert done.returncode == 2
    assert "updates are not accepted" in done.stderr and "kg build" in done.stderr
    assert "CONSTRUCT" not in done.stderr
    refused = run_kg("query", update, "--endpoint", "http://127.0.0.1:9/sparql")  # refused before any request
    assert refused.returncode == 2 and "updates are not accepted" in refused.stderr


def test_a_store_that_is_not_there_is_bad_input_and_a_damaged_one_a_failure(small_store: Path, tmp_path: Path) -> None:
    missing = run_kg("stats", "--store", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no graph store here" in missing.stderr
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "kg-store.json").write_text("{not json")
    done = run_kg("stats", "--store", str(damaged))
    assert done.returncode == 1 and "damaged store marker" in done.stderr


STAR = "SELECT * WHERE { ?paper a kg:Paper ; dcterms:abstract ?text . ?paper kg:mentions ?concept } LIMIT 1"


@pytest.mark.parametrize(
    "fmt,columns",
    [
        ("table", lambda out: out.splitlines()[0].split(" | ")),
        ("csv", lambda out: out.splitlines()[0].split(",")),
        ("tsv", lambda out: out.splitlines()[0].replace("?", "").split("\t")),
        ("json", lambda out: json.loads(out)["head"]["vars"]),
        ("xml", lambda out: re.findall(r'<variable name="(\w+)"', out)),
    ],
)
def test_select_star_columns_follow_the_query(small_store: Path, fmt: str, columns) -> None:
    done = run_kg("query", STAR, "--format", fmt, "--store", str(small_store))
    assert done.returncode == 0, done.stderr
    assert [name.strip() for name in columns(done.stdout)] == ["paper", "text", "concept"]


ABSTRACTS = "SELECT ?paper ?abstract WHERE { ?paper dcterms:abstract ?abstract } ORDER BY ?paper"


def test_a_piped_table_keeps_whole_cells_and_the_count_goes_to_stderr(relations_store: Path) -> None:
    done = run_kg("query", ABSTRACTS, "--store", str(relations_store))
    assert done.returncode == 0, done.stderr
    assert "Our ARP effectively mitigates the goal misgeneralization." in done.stdout and "…" not in done.stdout
    assert re.fullmatch(r"5 rows in \d+\.\d{3} s\n", done.stderr)


def test_a_table_on_a_terminal_is_cut_to_its_width(relations_store: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("KG_STORE", "COLUMNS", "LINES")}
    child = pexpect.spawn(
        str(KG_SCRIPT), ["query", ABSTRACTS, "--store", str(relations_store)], env=env, dimensions=(24, 70)
    )
    child.expect(pexpect.EOF, timeout=120)
    lines = child.before.decode().replace("\r\n", "\n").splitlines()
    table = [line for line in lines if "|" in line]
    assert len(table) == 6 and all(len(line) <= 70 for line in table)
    assert any(line.endswith("…") for line in table)
    assert re.fullmatch(r"5 rows in \d+\.\d{3} s", lines[-1])
