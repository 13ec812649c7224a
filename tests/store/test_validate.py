"""`kg validate`: batched validation finds what one pySHACL call finds, counts the nodes it checked, and
shows its progress on a terminal only."""

from __future__ import annotations

import os
import pty
import re
import subprocess
from pathlib import Path

import pyshacl
import pytest
from conftest import KG_SCRIPT, run_kg
from rdflib import Graph
from rdflib.namespace import SH
from test_ontology import BROKEN, GLUE, KG_TTL, LORA, SHAPES_TTL, ST, needs_default_iri, valid_graph

from kg.rdf import KG
from kg.store.validate import _sparql_suspects, validate_graph


def _one_call(data: Graph) -> tuple[bool, str]:
    """What `kg validate` ran before validation was batched: one pySHACL call, the ontology beside."""
    conforms, _, text = pyshacl.validate(
        data,
        shacl_graph=Graph().parse(SHAPES_TTL),
        ont_graph=Graph().parse(KG_TTL),
        inference="none",
        allow_warnings=True,
    )
    return bool(conforms), text


def _results(text: str) -> int:
    found = re.search(r"^Results \((\d+)\):", text, re.M)
    return int(found.group(1)) if found else 0


@needs_default_iri
@pytest.mark.parametrize("case", list(BROKEN))
def test_batches_find_what_one_call_finds(case: str) -> None:
    mutate, expected = BROKEN[case]
    graph = valid_graph()
    mutate(graph)
    conforms, text = _one_call(graph)
    report = validate_graph(graph, batch=1)
    assert (report.conforms, _results(report.text)) == (conforms, _results(text)), report.text
    assert not report.conforms and expected in report.text
    assert report.text.splitlines()[-1].startswith("the graph does not conform to ontology/shapes.ttl: ")


@needs_default_iri
def test_the_sparql_constraint_is_asked_once_and_names_only_the_statements_to_check_with_it() -> None:
    shapes = Graph().parse(SHAPES_TTL)
    graph = valid_graph()
    statement_shape = next(shapes.subjects(SH.sparql, None))
    assert _sparql_suspects(graph, shapes) == {statement_shape: set()}
    graph.remove((LORA, KG.evaluatedOn, GLUE))
    assert _sparql_suspects(graph, shapes) == {statement_shape: {ST}}
    report = validate_graph(graph)
    assert not report.conforms and "also asserted" in report.text and _results(report.text) == 1


@needs_default_iri
def test_progress_counts_focus_nodes_up_to_the_total() -> None:
    calls: list[tuple[int, int]] = []
    report = validate_graph(valid_graph(), progress=lambda done, total: calls.append((done, total)), batch=1)
    # 2 papers, 3 entities and 1 statement; LoRA is an entity and the subject of relations, counted once
    assert report.conforms and report.nodes == 6
    assert report.text == "the graph conforms to ontology/shapes.ttl (6 nodes checked)"
    done = [d for d, _ in calls]
    assert done == sorted(done) and len(calls) > 2 and calls[-1][0] == calls[-1][1] == 7


def test_validate_prints_the_count_and_nothing_on_a_piped_stderr(small_store: Path) -> None:
    done = run_kg("validate", "--store", str(small_store))
    assert done.returncode == 0, done.stdout
    assert re.fullmatch(r"the graph conforms to ontology/shapes\.ttl \(\d+ nodes checked\)\n", done.stdout)
    assert done.stderr == ""


def test_validate_shows_progress_on_a_terminal(small_store: Path) -> None:
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "KG_STORE"}
    with subprocess.Popen(
        [str(KG_SCRIPT), "validate", "--store", str(small_store)], stdout=subprocess.PIPE, stderr=follower, env=env
    ) as child:
        os.close(follower)
        screen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the pty closes when the child exits
                break
            if not chunk:
                break
            screen += chunk
        out = child.stdout.read().decode()
    os.close(leader)
    assert child.returncode == 0 and "nodes checked" in out
    shown = screen.decode(errors="replace")
    assert "validating" in shown and "100%" in shown and " node/s" in shown, shown
