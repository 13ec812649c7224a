"""One lookup, one rule: every command takes a name for the same entity, and says so when it was ambiguous."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import entity, run_kg

import kg
from kg.errors import EntityNotFoundError, UsageError
from kg.explore.lookup import LabelIndex
from kg.explore.projection import load_projection
from kg.store import open_store

NSL, SL = str(entity("neural-scaling-laws")), str(entity("scaling-law"))
TRANSFORMER, VIT = str(entity("transformer")), str(entity("vision-transformer"))

# name -> (the entity it names, how it matched, the others it names at that level)
EXPECTED = {
    "Scaling Law": (NSL, "label", []),
    "scaling-law": (SL, "label", []),
    "neural scaling laws": (NSL, "alias", []),
    "scaling law": (NSL, "folded", [SL]),  # both fold alike: the one with more papers
    "Neural Scaling Laws": (NSL, "folded", []),
    "Transformer": (TRANSFORMER, "label", []),
    "transformers": (VIT, "alias", []),  # an alias before a folded label, though it has fewer papers
    "transformer": (TRANSFORMER, "folded", [VIT]),
    "entity:scaling-law": (SL, "iri", []),
    "kgr:entity/scaling-law": (SL, "iri", []),
    f"<{SL}>": (SL, "iri", []),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_the_store_index_and_the_projection_take_a_name_alike(competing_store: Path, name: str) -> None:
    with open_store(competing_store) as store:
        indexes = [LabelIndex.from_store(store), load_projection(store, cache=False).label_index()]
        for index in indexes:
            choice = index.lookup(name)
            assert (choice.iri, choice.match, [other.iri for other in choice.others]) == EXPECTED[name]
            assert (choice.note() is None) == (not EXPECTED[name][2])


def test_an_ambiguous_name_is_noted_with_the_others() -> None:
    index = LabelIndex([("e:a", "Scaling Law", (), 22), ("e:b", "scaling-law", (), 1), ("e:c", "scaling laws", (), 0)])
    choice = index.lookup("scaling law")
    assert choice.note() == (
        "'scaling law' names 3 entities; using Scaling Law (<e:a>, 22 papers); others: scaling-law (<e:b>, 1 paper),"
        " scaling laws (<e:c>, 0 papers)"
    )


def test_did_you_mean_is_kept(competing_store: Path) -> None:
    with open_store(competing_store) as store:
        index = LabelIndex.from_store(store)
    with pytest.raises(EntityNotFoundError, match="did you mean: Scaling Law"):
        index.lookup("Scalling Law")
    with pytest.raises(EntityNotFoundError, match="did you mean: large language model"):
        index.lookup("langu")  # no close spelling: a label with a word that begins so


def _json(store: Path, *args: str) -> tuple[dict, str]:
    done = run_kg(*args, "--format", "json", "--store", str(store))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


@pytest.mark.parametrize("name", ["Scaling Law", "scaling law"])
def test_every_command_takes_the_same_entity(competing_store: Path, name: str) -> None:
    described, _ = _json(competing_store, "describe", name)
    near, _ = _json(competing_store, "neighbors", name)
    related, _ = _json(competing_store, "related", name, "--predict", "0")
    path, _ = _json(competing_store, "path", name, "large language model")
    assert described["iri"] == NSL
    assert near["center"] == path["source"] == "Scaling Law"
    assert related["related"][0]["reason"].startswith("mentioned with Scaling Law in 3 of its")
    with kg.open(competing_store) as graph:
        assert graph.path(name, "large language model")["source"] == "Scaling Law"


def test_the_cli_notes_an_ambiguous_name_on_stderr_only(competing_store: Path) -> None:
    note = (
        "note: 'scaling law' names 2 entities; using Scaling Law (entity:neural-scaling-laws, 3 papers); "
        "others: scaling-law (entity:scaling-law, 1 paper)\n"
    )
    for command in (["describe"], ["neighbors"], ["related"], ["path", "--max-hops", "1"]):
        args = [*command, "scaling law"] + (["large language model"] if command[0] == "path" else [])
        done = run_kg(*args, "--store", str(competing_store))
        assert done.returncode == 0 and done.stderr == note, (command, done.stderr)
        assert "note:" not in done.stdout
    done = run_kg("viz", "scaling law", "--store", str(competing_store))
    assert done.returncode == 0 and done.stderr == note
    for name in ("Scaling Law", "scaling-law", "entity:scaling-law"):
        done = run_kg("describe", name, "--store", str(competing_store))
        assert done.returncode == 0 and done.stderr == ""


def test_a_name_no_entity_has_is_still_a_usage_error_with_suggestions(competing_store: Path) -> None:
    done = run_kg("neighbors", "Scalling Law", "--store", str(competing_store))
    assert done.returncode == 2
    assert done.stderr == "kg: error: no entity named 'Scalling Law'; did you mean: Scaling Law?\n"


def test_a_blank_name_asks_for_a_name(competing_store: Path) -> None:
    entity = "kg: error: name an entity: its label, an alias or its IRI (entity:...)\n"
    for args in (["neighbors", " "], ["related", ""], ["path", "", "Scaling Law"], ["viz", ""]):
        done = run_kg(*args, "--store", str(competing_store))
        assert (done.returncode, done.stdout, done.stderr) == (2, "", entity), args
    done = run_kg("describe", "", "--store", str(competing_store))
    assert (done.returncode, done.stderr) == (
        2,
        "kg: error: name an entity (its label, an alias or its IRI) or a paper (paper:ID, its id)\n",
    )
    with pytest.raises(UsageError, match="name an entity"):
        LabelIndex([("e:x", "X", (), 1)]).lookup("  ")
