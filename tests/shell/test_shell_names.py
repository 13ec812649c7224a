"""Names in the shell: ``.paper``, papers in ``.describe``, the one lookup of entities and its notes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import entity
from test_shell import completions, graph_store, rows, session  # noqa: F401  (fixtures)

from kg.errors import EntityNotFoundError, PaperNotFoundError, UsageError
from kg.rdf import paper_iri
from kg.store import open_store
from shell.app import run_shell
from shell.commands import COMMANDS, execute
from shell.session import SavedQueries, Session

P1 = str(paper_iri("p1"))


def fields(result) -> dict[str, list[tuple]]:
    found: dict[str, list[tuple]] = {}
    for field, *rest in rows(result):
        found.setdefault(field, []).append(tuple(rest))
    return found


class TestPaper:
    def test_paper_shows_the_paper_its_entities_and_relations(self, session):  # noqa: F811
        result = execute(session, ".paper p1")
        assert result.columns == ("field", "value", "note", "evidence")
        shown = fields(result)
        ((iri, headline, _),) = shown["paper"]  # no title: the opening words, cut at a word
        assert (
            iri == P1
            and headline
            == "This work presents Adaptive Return-conditioned Policy (ARP), using CLIP; ARP mitigates goal…"
        )
        assert shown["source"] == [("papers.txt:1", None, None)]
        assert shown["abstract"][0][0].startswith("This work presents")
        assert shown["proposes"] == [
            (str(entity("adaptive-return-conditioned-policy")), "Adaptive Return-conditioned Policy (Method)", None)
        ]
        assert [note for _, note, _ in shown["mentions"]] == ["CLIP (Method)", "goal misgeneralization (Phenomenon)"]
        assert shown["addresses"] == [
            (
                None,
                "Adaptive Return-conditioned Policy → goal misgeneralization",
                "ARP mitigates goal misgeneralization.",
            )
        ]

    @pytest.mark.parametrize("name", ["paper:p1", "kgr:paper/p1", f"<{P1}>", "p1"])
    def test_describe_and_paper_take_a_paper_by_any_name(self, session, name):  # noqa: F811
        assert rows(execute(session, f".paper {name}"))[0][:2] == ("paper", P1)
        assert rows(execute(session, f".describe {name}"))[0][:2] == ("paper", P1)

    def test_errors(self, session):  # noqa: F811
        with pytest.raises(UsageError, match=r"usage: \.paper ID"):
            execute(session, ".paper")
        with pytest.raises(PaperNotFoundError, match="no paper named 'paper:p9'"):
            execute(session, ".paper paper:p9")
        with pytest.raises(EntityNotFoundError, match="did you mean: CLIP"):
            execute(session, ".describe CLIPP")

    def test_help_and_completion_know_it(self, session):  # noqa: F811
        assert ".paper ID" in execute(session, ".help").message
        assert "paper:ID" in execute(session, ".help paper").message
        assert [c.text for c in completions(session, ".pap")] == [".paper"]
        assert COMMANDS[".paper"].summary.startswith("a paper")


# ---- one lookup, and a note when a name was ambiguous


@pytest.fixture
def competing(competing_store: Path, tmp_path: Path):
    with open_store(competing_store) as store:
        yield Session(store, location=str(competing_store), saved=SavedQueries(tmp_path / "queries.json"))


NOTE = (
    "note: 'scaling law' names 2 entities; using Scaling Law (entity:neural-scaling-laws, 3 papers); "
    "others: scaling-law (entity:scaling-law, 1 paper)"
)


def test_every_command_takes_the_entity_the_cli_takes(competing):
    nsl = str(entity("neural-scaling-laws"))
    for name in ("Scaling Law", "scaling law"):
        assert rows(execute(competing, f".describe {name}"))[0][:2] == ("entity", nsl)
        assert {row[-1] for row in rows(execute(competing, f".neighbors {name}"))} == {"Scaling Law"}
        assert rows(execute(competing, f'.path "{name}" "large language model"'))[0][2] == "Scaling Law"
    assert rows(execute(competing, ".describe scaling-law"))[0][:2] == ("entity", str(entity("scaling-law")))


def test_an_ambiguous_name_is_noted_beside_the_result(competing_store: Path, monkeypatch, tmp_path: Path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    out, err = io.StringIO(), io.StringIO()
    script = ".describe scaling law\n.neighbors Scaling Law\n.path scaling law large language model\n.related CLIPP\n"
    status = run_shell(str(competing_store), stdin=io.StringIO(script), stdout=out, stderr=err)
    assert status == 2  # the last name names nothing
    notes = [line for line in err.getvalue().splitlines() if line.startswith("note:")]
    assert notes == [NOTE, NOTE]  # .describe and .path; "Scaling Law" as written is one entity's label
    assert "note:" not in out.getvalue()
    assert "stdin:4: error: no entity named 'CLIPP'" in err.getvalue()
