"""Hostile input, property-based: random bytes, control characters, lone surrogates, deep JSON, huge lines,
injection-like titles and ids, through ingest, extraction, the graph and every export format.

Whatever comes in, `kg build` exits 0, or 2 with one line naming the file (and line); it never shows a
traceback. After a build every export parses back with rdflib (or NetworkX, or csv) to as many triples as
the store holds, every IRI is valid, and the stored title is the one ingest kept: the input's, but for the
characters XML 1.0 cannot carry, which are spaces. The builds run in this process (``kg.cli.main``) on one
spaCy pipeline per profile, so that each example costs its extraction only.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import json
import re
from pathlib import Path

import networkx as nx
import pytest
from conftest import parsed_triples
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from rdflib import URIRef

import kg.extract.pipeline
from kg.cli import main
from kg.errors import InputError
from kg.ingest import read_documents
from kg.ingest.document import xml_safe
from kg.namespace import paper_iri
from kg.store import open_store

# XML 1.0's Char production, negated: what no export may contain.
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# An absolute IRI (RFC 3987): a scheme, then no space, control character or <>"{}|^`\.
IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\x00-\x20<>\"{}|^`\\]*")
INJECTIONS = (
    "> } ; DROP ALL",
    "../../etc/passwd",
    '"@en .',
    "'''",
    "<script>",
    "]]>",
    "\\",
    "\\u0000",
    "\u0000",
    "\u0007",
    "\x1b[31m",
    "\ud800",
    "\udfff",
    "\ufffe",
    "\uffff",
    "\u2028",
    "\x85",
    "%00",
    "..",
    ".",
    "#",
    "SELECT * WHERE { ?s ?p ?o }",
    "_:b0",
    "<http://x/y>",
)
RDF_FORMATS = {"ttl": "turtle", "nt": "nt", "nq": "nquads", "trig": "trig", "jsonld": "json-ld", "xml": "xml"}
GRAPH_FORMATS = ("graphml", "gexf", "csv")
# A build is slow to repeat: a failing example is reported as found, not shrunk.
BUILDS = {
    "deadline": None,
    "phases": [Phase.explicit, Phase.reuse, Phase.generate],
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}

any_character = st.characters(codec=None, categories=None)
hostile_text = st.lists(
    st.one_of(st.sampled_from(INJECTIONS), st.text(any_character, max_size=12)), min_size=1, max_size=6
).map("".join)
# Text the pipeline finds something in, with hostile pieces around and inside.
abstract = st.builds(
    lambda before, after: f"{before} We propose LoRA (Low-Rank Adaptation) for GPT-4 on SQuAD. {after}",
    hostile_text,
    hostile_text,
)
record = st.fixed_dictionaries(
    {"text": abstract},
    optional={
        "id": st.one_of(hostile_text, st.integers(), st.floats(allow_nan=False)),
        "title": hostile_text,
        "authors": st.one_of(hostile_text, st.lists(hostile_text, max_size=3)),
        "date": st.one_of(hostile_text, st.sampled_from(["2021-13-45", "2021-02-30", "0000", "2021-06-17T25:00"])),
        "url": hostile_text,
        "categories": hostile_text,
    },
)


@functools.cache
def cached_pipeline(model=None, *, profile="default", settings=None):
    return ORIGINAL_PIPELINE(model, profile=profile, settings=settings)


ORIGINAL_PIPELINE = kg.extract.pipeline.build_pipeline


@pytest.fixture(scope="module", autouse=True)
def one_pipeline_per_profile():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kg.extract.pipeline, "build_pipeline", cached_pipeline)
        yield


def run(*argv: str) -> tuple[int, str]:
    """``kg ARGV`` in this process: its exit status and what it wrote on stderr. An exception other than
    the project's own errors propagates, and fails the test (it would be a traceback)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(list(argv))
    return status, err.getvalue()


def assert_clean_refusal(status: int, stderr: str, path: Path) -> None:
    assert status == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"kg: error: {path}"), stderr
    assert "Traceback" not in stderr


def check_graph(store: Path, folder: Path) -> int:
    """Export in every format; each parses back to the store's triples, with valid IRIs only."""
    with open_store(store) as opened:
        stored = len(opened)
    for fmt, rdflib_format in RDF_FORMATS.items():
        out = folder / f"graph.{fmt}"
        status, stderr = run("export", "--format", fmt, "-o", str(out), "--store", str(store))
        assert status == 0, stderr
        assert not NOT_XML.search(out.read_text(encoding="utf-8"))
        triples = parsed_triples(out, rdflib_format)
        assert len(triples) == stored, fmt
        if fmt == "nt":
            iris = {str(term) for triple in triples for term in triple if isinstance(term, URIRef)}
            assert all(IRI.fullmatch(iri) for iri in iris), [iri for iri in iris if not IRI.fullmatch(iri)]
    for fmt in GRAPH_FORMATS:
        out = folder / f"graph.{fmt}"
        status, stderr = run("export", "--format", fmt, "-o", str(out), "--store", str(store))
        assert status == 0, stderr
        if fmt == "csv":
            assert list(csv.reader(out.open(encoding="utf-8", newline="")))
        else:
            (nx.read_graphml if fmt == "graphml" else nx.read_gexf)(out)
    return stored


def build_and_check(records: list[dict], folder: Path, profile: str) -> None:
    source = folder / "papers.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    store = folder / "store"
    status, stderr = run("build", str(source), "--store", str(store), "--profile", profile)
    if status != 0:
        assert_clean_refusal(status, stderr, source)
        assert re.match(rf"kg: error: {re.escape(str(source))}:\d+: ", stderr), stderr  # a record: its line
        return
    assert "Traceback" not in stderr, stderr
    assert check_graph(store, folder) > 0
    documents = list(read_documents([source]))
    with open_store(store) as opened:
        for document in documents:
            expected = " ".join(xml_safe(records[int(document.source.rsplit(":", 1)[1]) - 1]["title"]).split())
            if not expected:
                continue
            result = opened.query(
                "SELECT ?paper ?title WHERE { ?paper dcterms:title ?title }",
                bindings={"paper": URIRef(paper_iri(document.id))},
            )
            assert [str(row[1]) for row in result.rows] == [expected]


def records_with_title(records: list[dict]) -> list[dict]:
    return [{**r, "title": r.get("title", "A title")} for r in records]


@settings(max_examples=8, **BUILDS)
@given(records=st.lists(record, min_size=1, max_size=3))
def test_hostile_records_build_and_export_cleanly_with_the_rules(records, tmp_path_factory):
    build_and_check(records_with_title(records), tmp_path_factory.mktemp("hostile"), "rules")


@settings(max_examples=3, **BUILDS)
@given(records=st.lists(record, min_size=1, max_size=2))
def test_hostile_records_build_and_export_cleanly_with_the_learned_model(records, tmp_path_factory):
    build_and_check(records_with_title(records), tmp_path_factory.mktemp("hostile"), "learned")


def test_the_issues_abstract_builds_and_every_export_is_well_formed(tmp_path):
    text = "BERT\u0000 is used for question answering \u0007 on SQuAD."
    build_and_check([{"id": "p1", "title": "A \u0000title\u0007", "text": text}], tmp_path, "rules")
    (document,) = read_documents([tmp_path / "papers.jsonl"])
    assert document.text == "BERT  is used for question answering   on SQuAD."  # one for one
    assert document.title == "A title"
    xml = (tmp_path / "graph.xml").read_text(encoding="utf-8")
    assert "BERT  is used" in xml


# --- ingest alone: many examples, no extraction ---------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".txt", ".jsonl", ".csv", ".tsv"]))
def test_random_bytes_are_read_or_refused_with_the_file_named(data, suffix, tmp_path_factory):
    path = tmp_path_factory.mktemp("bytes") / f"random{suffix}"
    path.write_bytes(data)
    errors: list[InputError] = []
    documents = list(read_documents([path], on_error=errors.append))
    assert all(str(err).startswith(str(path)) for err in errors)
    for document in documents:
        for value in (document.id, document.text, document.source, document.title or ""):
            assert not NOT_XML.search(value)


@settings(max_examples=150, deadline=None)
@given(text=hostile_text, title=hostile_text, suffix=st.sampled_from([".jsonl", ".csv", ".tsv", ".txt"]))
def test_ingest_replaces_what_xml_cannot_carry_one_for_one(text, title, suffix, tmp_path_factory):
    path = tmp_path_factory.mktemp("fields") / f"papers{suffix}"
    if suffix == ".jsonl":
        path.write_text(json.dumps({"text": text, "title": title}) + "\n", encoding="utf-8")
    elif suffix == ".txt":
        # A .txt file is text: its records are paragraphs, and a NUL byte makes it a binary file.
        text = " ".join(text.replace("\x00", "").splitlines())
        path.write_text(text + "\n", encoding="utf-8", errors="surrogatepass")
    else:
        delimiter = "," if suffix == ".csv" else "\t"
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter).writerows([["text", "title"], [text, title]])
        path.write_bytes(out.getvalue().encode("utf-8", "surrogatepass"))
    errors: list[InputError] = []
    documents = list(read_documents([path], on_error=errors.append))
    assert all(str(err).startswith(str(path)) for err in errors)
    for document in documents:
        assert not NOT_XML.search(document.text + (document.title or "") + document.id)
        if suffix == ".jsonl":
            assert document.text == xml_safe(text).strip()
            assert document.title == (" ".join(xml_safe(title).split()) or None)


@pytest.mark.parametrize(
    "line, message",
    [
        ("[" * 100_000, "malformed JSON: nested too deeply"),
        ('{"text": "x", "authors_parsed": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"text": "Lat\xe9"}', "not UTF-8"),
    ],
)
def test_deep_or_badly_encoded_json_is_refused_with_its_line(tmp_path, line, message):
    path = tmp_path / "papers.jsonl"
    path.write_bytes(b'{"text": "A fine abstract."}\n' + line.encode("latin-1") + b"\n")
    status, stderr = run("build", str(path), "--store", str(tmp_path / "store"))
    assert_clean_refusal(status, stderr, path)
    assert f"{path}:2: " in stderr and message in stderr
    assert not (tmp_path / "store").exists()


def test_a_huge_line_of_one_table_cell_is_read_whole(tmp_path):
    path = tmp_path / "papers.csv"
    text = "We propose LoRA. " * 20_000  # 340 KB in one cell: more than csv's own limit of 128 KiB
    path.write_text(f'text,title\n"{text}",Long\n', encoding="utf-8")
    (document,) = read_documents([path])
    assert document.text == text.strip()


@pytest.mark.slow
def test_a_one_megabyte_abstract_builds_and_exports(tmp_path):
    sentence = "This work presents Adaptive Return-conditioned Policy (ARP), a framework that uses CLIP \u0007. "
    text = sentence * (1_000_000 // len(sentence) + 1)
    build_and_check([{"id": "../../etc/passwd", "title": '"@en . } ; DROP ALL', "text": text}], tmp_path, "rules")
