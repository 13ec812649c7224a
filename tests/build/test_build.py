"""`kg build` end to end: counts, persistence, determinism, idempotence and bad input."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import SEEDS, run_kg, sorted_ntriples, stats_of


def test_seeds_build_counts_every_distinct_abstract_once(seeds_store: Path) -> None:
    stats = stats_of(seeds_store)
    assert stats["papers"] == 727
    assert set(stats["entities"]) == {"Method", "Dataset", "Task", "Metric", "Phenomenon"}
    assert all(count > 0 for count in stats["entities"].values()), stats
    assert stats["triples"] > 727 * 5
    assert set(stats) == {"papers", "entities", "relations", "triples"}


def test_duplicates_keep_every_source_location(seeds_store: Path) -> None:
    # 842 abstracts were read: every occurrence is recorded on its single paper node.
    done = run_kg(
        "query",
        "SELECT (COUNT(?loc) AS ?n) WHERE { ?p kg:sourceLocation ?loc }",
        "--format",
        "csv",
        "--store",
        str(seeds_store),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == "842"


def test_second_build_adds_nothing_and_runs_no_extraction(seeds_store: Path) -> None:
    before = sorted_ntriples(seeds_store)
    # A model that does not exist: the rebuild must succeed without ever loading one.
    done = run_kg("build", str(SEEDS), "--store", str(seeds_store), env={"KG_SPACY_MODEL": "no_such_model"})
    assert done.returncode == 0, done.stderr
    assert "0 new" in done.stderr and "0 triples added" in done.stderr
    assert sorted_ntriples(seeds_store) == before


def test_two_clean_builds_are_byte_identical(small_corpus: Path, tmp_path: Path) -> None:
    exports = []
    for name in ("one", "two"):
        done = run_kg("build", str(small_corpus), "--store", str(tmp_path / name))
        assert done.returncode == 0, done.stderr
        exports.append("\n".join(sorted_ntriples(tmp_path / name)))
    assert exports[0] == exports[1]
    assert exports[0].count("\n") > 10


def test_store_persists_and_is_extended_by_new_sources(small_store: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(small_store, store)
    assert stats_of(store)["papers"] == 2
    extra = tmp_path / "more.jsonl"
    extra.write_text(
        json.dumps(
            {
                "id": "2301.00001",
                "title": "Grokking",
                "text": "We study grokking in transformers.",
                "authors": "A. Author and B. Author",
                "year": 2023,
                "categories": "cs.LG",
            }
        )
        + "\n"
    )
    done = run_kg("build", str(extra), "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert "1 new" in done.stderr
    assert stats_of(store)["papers"] == 3
    rows = run_kg(
        "query",
        "SELECT ?t ?d WHERE { ?p dcterms:identifier '2301.00001' ; dcterms:title ?t ; dcterms:date ?d }",
        "--format",
        "tsv",
        "--store",
        str(store),
    ).stdout.splitlines()
    assert rows[1] == '"Grokking"\t"2023"^^<http://www.w3.org/2001/XMLSchema#gYear>'


def test_snapshot_dates_and_split_authors_make_trends_a_query(tmp_path: Path) -> None:
    def snapshot(arxiv_id: str, created: str, *authors: list[str]) -> dict:
        return {
            "id": arxiv_id,
            "abstract": f"We study grokking in transformers, case {arxiv_id}.",
            "authors": "ignored when authors_parsed is there",
            "versions": [{"version": "v1", "created": created}],
            "update_date": "2024-01-01",
            "authors_parsed": list(authors),
        }

    jsonl = tmp_path / "snapshot.jsonl"
    jsonl.write_text(
        "".join(
            json.dumps(record) + "\n"
            for record in (
                snapshot("0704.0001", "Mon, 2 Apr 2007 19:18:42 GMT", ["Balázs", "Csaba", ""], ["Berger", "E. L.", ""]),
                snapshot("2201.00002", "Sun, 2 Jan 2022 10:00:00 GMT", ["Power", "Alethea", ""]),
                snapshot("2203.00003", "Tue, 1 Mar 2022 10:00:00 GMT", ["Nanda", "Neel", ""]),
            )
        )
    )
    table = tmp_path / "more.csv"
    table.write_text('id,abstract,authors,date\nz1,"We study grokking again.","Hu, Edward J.; Shen, Yelong",2022-06\n')
    store = str(tmp_path / "store")
    done = run_kg("build", str(jsonl), str(table), "--store", store)
    assert done.returncode == 0, done.stderr

    def rows(sparql: str) -> list[str]:
        done = run_kg("query", sparql, "--format", "tsv", "--store", store)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()[1:]

    per_year = """SELECT ?year (COUNT(?p) AS ?papers) WHERE { ?p dcterms:date ?d BIND (YEAR(?d) AS ?year) }
                  GROUP BY ?year ORDER BY ?year"""
    assert [line.split("\t")[1] for line in rows(per_year)] == ["1", "3"]
    dates = "SELECT ?id ?d WHERE { ?p dcterms:identifier ?id ; dcterms:date ?d } ORDER BY ?id"
    assert rows(dates)[0] == '"0704.0001"\t"2007-04-02"^^<http://www.w3.org/2001/XMLSchema#date>'
    creators = "SELECT ?id ?name WHERE { ?p dcterms:identifier ?id ; dcterms:creator ?name } ORDER BY ?id ?name"
    assert [line.replace('"', "") for line in rows(creators)] == [
        "0704.0001\tCsaba Balázs",
        "0704.0001\tE. L. Berger",
        "2201.00002\tAlethea Power",
        "2203.00003\tNeel Nanda",
        "z1\tEdward J. Hu",
        "z1\tYelong Shen",
    ]


def test_acronym_and_long_form_are_one_entity(small_store: Path) -> None:
    done = run_kg(
        "query",
        "SELECT ?label ?alias WHERE { ?e skos:altLabel 'ARP' ; rdfs:label ?label ; skos:altLabel ?alias }",
        "--format",
        "csv",
        "--store",
        str(small_store),
    )
    assert done.stdout.splitlines()[1:] == ["Adaptive Return-conditioned Policy,ARP"]


# --- bad input ---------------------------------------------------------------------------------

BAD_INPUTS = {
    "binary.txt": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary.txt", "binary"),
    "latin1.txt": (b"We study caf\xe9 robots.\n", "latin1.txt:1", "UTF-8"),
    "empty.txt": (b"", "empty.txt", "empty"),
    "broken.jsonl": (b'{"text": "We study grokking."}\n{"text": oops}\n', "broken.jsonl:2", "malformed JSON"),
    "notext.csv": (b"id,title\n1,Grokking\n", "notext.csv:1", "text"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_exits_2_with_one_line_and_leaves_the_store_as_it_was(
    name: str, small_store: Path, tmp_path: Path
) -> None:
    content, where, words = BAD_INPUTS[name]
    store = tmp_path / "store"
    shutil.copytree(small_store, store)
    before = sorted_ntriples(store)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "good.txt").write_text("We study grokking in small transformers.\n")
    (folder / name).write_bytes(content)
    done = run_kg("build", str(folder / "good.txt"), str(folder / name), "--store", str(store))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert where in lines[0] and words.lower() in lines[0].lower()
    assert "Traceback" not in done.stderr
    assert sorted_ntriples(store) == before


def test_bad_input_into_a_new_store_creates_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"text": oops}\n')
    done = run_kg("build", str(bad), "--store", str(tmp_path / "new"))
    assert done.returncode == 2
    assert not (tmp_path / "new").exists()


def test_missing_path_is_named(tmp_path: Path) -> None:
    done = run_kg("build", str(tmp_path / "nope.txt"), "--store", str(tmp_path / "s"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"kg: error: {tmp_path / 'nope.txt'}: no such file or directory"]


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    done = run_kg("build", str(tmp_path / "nope.txt"), "--store", str(tmp_path / "s"), "--debug")
    assert done.returncode != 0 and "Traceback" in done.stderr


def test_skip_bad_continues_and_reports_where(tmp_path: Path) -> None:
    source = tmp_path / "mixed.jsonl"
    source.write_text(
        '{"text": "We study grokking."}\n{"text": oops}\n{"abstract": "We propose LoRA."}\n{"title": "x"}\n'
    )
    done = run_kg("build", str(source), "--skip-bad", "--store", str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr
    assert "skipped 2 bad record(s)" in done.stderr
    assert f"{source}:2" in done.stderr and f"{source}:4" in done.stderr
    assert stats_of(tmp_path / "s")["papers"] == 2


def test_missing_model_fails_with_its_own_install_command(small_corpus: Path, tmp_path: Path) -> None:
    # A model named but not installed is the user's mistake (2), and the hint installs that model.
    done = run_kg("build", str(small_corpus), "--store", str(tmp_path / "s"), "--model", "en_core_web_lg")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(
        "kg: error: spaCy pipeline 'en_core_web_lg' (--model) is not installed; "
        "install it with `python -m spacy download en_core_web_lg`, or leave out --model to use en_core_web_sm"
    )
    assert not (tmp_path / "s").exists()
    done = run_kg("build", str(small_corpus), "--store", str(tmp_path / "s"), env={"KG_SPACY_MODEL": "en_core_web_md"})
    assert done.returncode == 2 and "'en_core_web_md' ($KG_SPACY_MODEL)" in done.stderr


def test_build_takes_the_extraction_profiles(small_corpus: Path, small_store: Path, tmp_path: Path) -> None:
    done = run_kg("build", str(small_corpus), "--profile", "scierc", "--store", str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr
    assert stats_of(tmp_path / "s")["papers"] == 2
    assert sorted_ntriples(tmp_path / "s") != sorted_ntriples(small_store)  # the SciERC model's entities
    wrong = run_kg("build", str(small_corpus), "--profile", "nope", "--store", str(tmp_path / "t"))
    assert wrong.returncode == 2 and "invalid choice: 'nope'" in wrong.stderr


def test_options_may_follow_or_precede_positionals(small_corpus: Path, tmp_path: Path) -> None:
    done = run_kg("build", "--store", str(tmp_path / "a"), str(small_corpus))
    assert done.returncode == 0, done.stderr
    done = run_kg("--store", str(tmp_path / "a"), "stats", "--format", "json")
    assert json.loads(done.stdout)["papers"] == 2


def test_store_from_environment(small_corpus: Path, tmp_path: Path) -> None:
    done = run_kg("build", str(small_corpus), env={"KG_STORE": str(tmp_path / "env")})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "env" / "kg-store.json").is_file()


def test_query_on_missing_store_says_how_to_build(tmp_path: Path) -> None:
    done = run_kg("stats", "--store", str(tmp_path / "nothing"))
    assert done.returncode == 2  # a store path that names no store is bad input
    assert "run `kg build" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_refuses_a_directory_that_is_not_a_store(small_corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.md").write_text("mine")
    done = run_kg("build", str(small_corpus), "--store", str(tmp_path / "home"))
    assert done.returncode == 2 and "is not a kg store" in done.stderr
    assert sorted(p.name for p in (tmp_path / "home").iterdir()) == ["notes.md"]


# --- export -----------------------------------------------------------------------------------


def test_parallel_extraction_gives_the_same_graph(small_corpus: Path, tmp_path: Path) -> None:
    for name, workers in (("serial", "1"), ("parallel", "2")):
        done = run_kg("build", str(small_corpus), "--workers", workers, "--store", str(tmp_path / name))
        assert done.returncode == 0, done.stderr
    assert sorted_ntriples(tmp_path / "parallel") == sorted_ntriples(tmp_path / "serial")


def test_the_seeds_graph_conforms_to_the_shapes(seeds_store: Path) -> None:
    done = run_kg("validate", "--store", str(seeds_store))
    assert done.returncode == 0, done.stdout[-2000:]
    assert re.fullmatch(r"the graph conforms to ontology/shapes\.ttl \(\d+ nodes checked\)", done.stdout.strip())
