"""Tests of the query shell without a terminal: statements, completion context, commands, output.

Most tests run on a small hand-written graph (:func:`write_graph`), written through the
store's own API in the shape ``kg build`` gives (papers, entities with labels and aliases,
``kg:mentions``, ``kg:proposes``, entity relations), so that counts and paths are exact
whatever the extractor finds. ``test_commands_on_a_built_store`` runs every dot-command on
the store ``kg build`` makes of the small corpus.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from rdflib import Literal
from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SKOS

from kg.errors import EntityNotFoundError, QuerySyntaxError, UsageError
from kg.namespace import RESOURCE_IRI
from kg.query.result import Result
from kg.rdf import KG, entity_iri, paper_iri, statement_iri
from kg.store import open_store
from shell.commands import COMMANDS, execute, unique_commands
from shell.completion.completer import ShellCompleter
from shell.completion.suggest import Suggestion, suggest
from shell.input.statements import Statement, StatementReader, is_complete, split, to_sparql
from shell.output import Console, caret_lines, tidy_message
from shell.session import SavedQueries, Session

ENTITIES = {  # key: (type, label, aliases)
    "clip": ("Method", "CLIP", ("Contrastive Language-Image Pre-training",)),
    "adaptive-return-conditioned-policy": ("Method", "Adaptive Return-conditioned Policy", ("ARP",)),
    "goal-misgeneralization": ("Phenomenon", "goal misgeneralization", ()),
    "adversarial-training": ("Method", "adversarial training", ()),
    "robust-overfitting": ("Phenomenon", "robust overfitting", ()),
    "cifar-10": ("Dataset", "CIFAR-10", ()),
    "robust-accuracy": ("Metric", "robust accuracy", ()),
    "image-captioning": ("Task", "image captioning", ()),
}
PAPERS = {  # id: (abstract, mentioned, proposed)
    "p1": (
        "This work presents Adaptive Return-conditioned Policy (ARP), using CLIP; ARP mitigates "
        "goal misgeneralization.",
        ("adaptive-return-conditioned-policy", "clip", "goal-misgeneralization"),
        ("adaptive-return-conditioned-policy",),
    ),
    "p2": (
        "Adversarial training suffers from robust overfitting. We improve robust accuracy on CIFAR-10.",
        ("adversarial-training", "robust-overfitting", "cifar-10", "robust-accuracy"),
        (),
    ),
    "p3": ("We fine-tune CLIP on CIFAR-10.", ("clip", "cifar-10"), ()),
    "p4": ("A survey of image captioning.", ("image-captioning",), ()),
}
RELATIONS = [  # subject, predicate, object, paper, evidence
    (
        "adaptive-return-conditioned-policy",
        "addresses",
        "goal-misgeneralization",
        "p1",
        "ARP mitigates goal misgeneralization.",
    ),
    ("adversarial-training", "evaluatedOn", "cifar-10", "p2", "We improve robust accuracy on CIFAR-10."),
]


def write_graph(path: Path) -> Path:
    """Write the test graph into a new store at ``path``."""
    triples = []
    for key, (etype, label, aliases) in ENTITIES.items():
        node = entity_iri(key)
        triples += [
            (node, RDF.type, KG[etype]),
            (node, RDFS.label, Literal(label)),
            (node, SKOS.prefLabel, Literal(label)),
        ]
        triples += [(node, SKOS.altLabel, Literal(a)) for a in aliases]
    for pid, (abstract, mentioned, proposed) in PAPERS.items():
        paper = paper_iri(pid)
        triples += [
            (paper, RDF.type, KG.Paper),
            (paper, DCTERMS.identifier, Literal(pid)),
            (paper, DCTERMS.abstract, Literal(abstract)),
            (paper, KG.sourceLocation, Literal(f"papers.txt:{pid[1:]}")),
        ]
        triples += [(paper, KG.mentions, entity_iri(k)) for k in mentioned]
        triples += [(paper, KG.proposes, entity_iri(k)) for k in proposed]
    for s, p, o, pid, evidence in RELATIONS:
        statement = statement_iri(f"{s}-{p}-{o}")
        triples += [
            (entity_iri(s), KG[p], entity_iri(o)),
            (statement, RDF.type, KG.Statement),
            (statement, RDF.subject, entity_iri(s)),
            (statement, RDF.predicate, KG[p]),
            (statement, RDF.object, entity_iri(o)),
            (statement, PROV.wasDerivedFrom, paper_iri(pid)),
            (statement, KG.evidence, Literal(evidence)),
            (statement, KG.confidence, Literal(0.9)),
        ]
    with open_store(path, create=True) as store:
        store.write(triples)
    return path


@pytest.fixture(scope="module")
def graph_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_graph(tmp_path_factory.mktemp("shell") / "store")


@pytest.fixture
def session(graph_store: Path, tmp_path: Path):
    with open_store(graph_store) as store:
        yield Session(store, location=str(graph_store), saved=SavedQueries(tmp_path / "queries.json"))


def rows(result: Result) -> list[tuple]:
    """Rows as plain Python values (IRIs and literals as strings, numbers as numbers)."""
    return [tuple(r.values()) for r in result.to_records()]


def clip() -> str:
    return str(entity_iri("clip"))


# ---------------------------------------------------------------- statements


class TestStatements:
    def test_semicolon_inside_braces_continues(self):
        text = "SELECT ?l WHERE {\n  ?e a kg:Method ;\n     rdfs:label ?l }\n"
        assert split(text) == ([], text)
        assert not is_complete(text)

    def test_semicolon_at_top_level_ends(self):
        done, rest = split("SELECT ?l WHERE { ?e rdfs:label ?l }\nLIMIT 3;\n")
        assert [s.text for s in done] == ["SELECT ?l WHERE { ?e rdfs:label ?l }\nLIMIT 3"]
        assert rest == ""

    @pytest.mark.parametrize(
        "text",
        [
            'ASK { ?s rdfs:label "a;b" }',
            "ASK { ?s rdfs:label '''a;\nb''' }",
            "ASK { ?s <http://example.org/a;b> ?o }",
            "ASK { ?s ?p ?o } # not the end;",
            'SELECT (GROUP_CONCAT(?l; SEPARATOR=";") AS ?all) { ?s rdfs:label ?l }',
        ],
    )
    def test_semicolons_in_strings_iris_comments_and_calls_do_not_end(self, text):
        assert split(text) == ([], text)

    def test_dot_commands_end_at_the_newline(self):
        done, rest = split(".format csv\n.path CLIP ARP;\nSELECT")
        assert [(s.text, s.line, s.is_command) for s in done] == [(".format csv", 1, True), (".path CLIP ARP", 2, True)]
        assert rest == "SELECT"

    def test_a_line_starting_with_a_dot_inside_sparql_is_sparql(self):
        done, _ = split("SELECT * WHERE { ?s ?p ?o\n.describe }\n;")
        assert len(done) == 1 and not done[0].is_command

    def test_blank_lines_and_comments_between_statements_are_skipped(self):
        done, rest = split("\n# counts\n\nASK {};\n  # the end\n")
        assert [(s.text, s.line) for s in done] == [("ASK {}", 4)]
        assert rest == "" and is_complete("# only a comment")

    def test_reader_numbers_lines_across_chunks(self):
        reader = StatementReader()
        seen = []
        for line in ["# header\n", "SELECT ?s\n", "WHERE { ?s ?p ?o }\n", ";\n", ".stats\n", "ASK {}"]:
            seen += reader.feed(line)
        seen += reader.finish()
        assert [(s.text, s.line) for s in seen] == [("SELECT ?s\nWHERE { ?s ?p ?o }", 2), (".stats", 5), ("ASK {}", 6)]

    def test_kgr_names_are_escaped_and_columns_map_back(self):
        rewritten = to_sparql("SELECT * {\n  kgr:entity/clip kg:mentions/rdfs:label kgr:paper/p~1 . }")
        assert rewritten.text == "SELECT * {\n  kgr:entity\\/clip kg:mentions/rdfs:label kgr:paper\\/p\\~1 . }"
        sent, typed = rewritten.text.splitlines()[1], rewritten.original.splitlines()[1]
        dot_sent, dot_typed = sent.index(" . ") + 2, typed.index(" . ") + 2  # 1-based columns
        assert dot_sent == dot_typed + 3
        assert rewritten.original_position(2, dot_sent) == (2, dot_typed)
        assert rewritten.original_position(1, 3) == (1, 3)


# ---------------------------------------------------------------- completion context


def kinds(text: str, after: str = "") -> list[str]:
    return [s.kind for s in suggest(text, after)]


class TestSuggest:
    def test_keywords_at_the_start(self):
        (only,) = suggest("SEL")
        assert only.kind == "keyword" and "SELECT" in only.choices and only.word == "SEL"

    def test_prefixed_name_after_a_is_a_class_of_that_namespace(self):
        assert suggest("SELECT ?e WHERE { ?e a kg:Me") == [Suggestion("class", "kg:Me", namespace="kg")]
        assert suggest("SELECT ?e WHERE { ?e rdf:type kg:")[0].kind == "class"

    def test_predicate_positions(self):
        for text in [
            "SELECT * WHERE { ?e kg:",
            "SELECT * WHERE { ?e a kg:Method ; rdfs:",
            "SELECT * WHERE { ?e a kg:Method ;\n    skos:",
            "SELECT * WHERE { [ rdfs:",
            "SELECT * WHERE { ?p kg:mentions/rdfs:",
        ]:
            assert suggest(text)[0].kind == "property", text

    def test_objects_and_subjects_offer_entities(self):
        assert "entity" in kinds("SELECT * WHERE { ?p kg:mentions CLI")
        assert "entity" in kinds("SELECT * WHERE { CLI")
        assert suggest("SELECT * WHERE { ?p kg:mentions kgr:entity/cl") == [
            Suggestion("entity", "kgr:entity/cl", namespace="kgr")
        ]
        assert "entity" in kinds("SELECT * WHERE { ?s ?p ?o FILTER(?o = CLI")

    def test_bare_word_in_predicate_position_offers_properties_and_a(self):
        suggestions = suggest("SELECT * WHERE { ?p ment")
        assert [s.kind for s in suggestions][:2] == ["value", "property"]
        assert suggestions[0].choices == ("a",)

    def test_datatype_after_carets(self):
        assert suggest('SELECT * WHERE { ?s ?p "2020"^^xsd:')[0] == Suggestion("datatype", "xsd:", namespace="xsd")

    def test_values_block(self):
        assert suggest("SELECT * WHERE { VALUES ?t { kg:")[0].kind == "term"

    def test_variables_used_anywhere_in_the_query(self):
        (only,) = suggest("SELECT ?l", " WHERE { ?e rdfs:label ?label ; kg:x ?lab }")
        assert only.kind == "variable" and only.choices == ("?e", "?label", "?lab")

    def test_after_the_group_modifiers_and_variables(self):
        assert kinds("SELECT * WHERE { ?s ?p ?o } ORD") == ["keyword", "variable"]
        assert kinds("SELECT * WHERE { ?s ?p ?o } LIMIT ") == []

    def test_projection_and_functions(self):
        assert kinds("SELECT ") == ["variable", "keyword", "function"]
        assert "function" in kinds("SELECT (COU")

    def test_prefix_declaration(self):
        (only,) = suggest("PREFIX fo")
        assert only.kind == "prefix_declaration" and "foaf: <http://xmlns.com/foaf/0.1/>" in only.choices

    def test_nothing_inside_strings_comments_and_iris(self):
        assert suggest('SELECT * WHERE { ?s rdfs:label "CLI') == []
        assert suggest("SELECT * WHERE { ?s ?p ?o } # CLI") == []
        assert suggest("SELECT * WHERE { ?s ?p <http://exa") == []

    def test_only_the_current_statement_counts(self):
        assert suggest("ASK { ?s ?p ?o };\nSELECT * WHERE { ?x a kg:")[0].kind == "class"
        assert suggest(".stats\nSEL")[0].kind == "keyword"

    def test_dot_commands_and_their_arguments(self):
        assert suggest(".de") == [Suggestion("command", ".de")]
        assert suggest(".") == [Suggestion("command", ".")]
        assert suggest(".format c")[0].choices == ("table", "csv", "tsv", "json", "xml")
        assert suggest(".timing o")[0].choices == ("on", "off")
        assert suggest(".describe goal mis") == [Suggestion("entity", "goal mis", form="label")]
        assert suggest(".export nt /tm") == [Suggestion("file", "/tm")]
        assert suggest(".export t")[0].kind == "value"
        assert suggest(".run cl") == [Suggestion("saved_query", "cl")]
        assert suggest(".help pa") == [Suggestion("command", "pa")]
        assert suggest(".neighbors CLIP --li")[0].choices == ("--hops", "--limit")
        assert suggest(".related CLIP --measure p")[0].choices == ("jaccard", "pmi", "npmi")
        assert suggest(".related CLIP --limit ") == []
        assert suggest(".stats ") == []

    def test_two_entity_arguments(self):
        assert [s.word for s in suggest(".path CLIP goal mis")] == ["CLIP goal mis", "goal mis", "mis"]
        assert suggest(".path CLIP ") == [Suggestion("entity", "", form="word")]
        assert suggest('.path "robust over') == [Suggestion("entity", '"robust over', form="word")]

    def test_every_registered_command_is_offered(self):
        offered = {c.text for c in completions(None, ".")}
        assert offered == set(COMMANDS)


# ---------------------------------------------------------------- the completer


def completions(session: Session | None, text: str, *, requested: bool = True) -> list:
    completer = ShellCompleter(session)  # type: ignore[arg-type]
    event = CompleteEvent(completion_requested=requested)
    return list(completer.get_completions(Document(text), event))


class TestCompleter:
    def test_entity_label_completes_to_its_iri(self, session):
        found = completions(session, "SELECT * WHERE { ?p kg:mentions CLI")
        first = found[0]
        assert first.text == "entity:clip" and first.start_position == -3
        assert first.display_meta_text == "Method · 2 papers"

    def test_iri_prefix_and_alias(self, session):
        assert completions(session, "SELECT * WHERE { ?p kg:mentions entity:cl")[0].text == "entity:clip"
        assert completions(session, "SELECT * WHERE { ?p kg:mentions kgr:entity/cl")[0].text == "entity:clip"
        first = completions(session, "SELECT * WHERE { ?p kg:proposes ARP")[0]
        assert first.text == "entity:adaptive-return-conditioned-policy"
        assert first.display_text == "Adaptive Return-conditioned Policy (ARP)"

    def test_vocabulary_terms(self, session):
        assert [c.text for c in completions(session, "SELECT * WHERE { ?e a kg:Me")] == [
            "kg:Method",
            "kg:Metric",
            "kg:Phenomenon",
            "kg:Statement",
        ]
        mentions = completions(session, "SELECT * WHERE { ?p kg:ment")
        assert [c.text for c in mentions] == ["kg:mentions"]
        assert mentions[0].display_meta_text == "Paper → Entity"
        assert "skos:prefLabel" in [c.text for c in completions(session, "SELECT * WHERE { ?e skos:pref")]
        assert "xsd:gYear" in [c.text for c in completions(session, 'SELECT * WHERE { ?p ?d "2020"^^xsd:gY')]
        assert completions(session, "SELECT * WHERE { ?p ment")[0].text == "kg:mentions"

    def test_prefixes_keywords_and_variables(self, session):
        assert [c.text for c in completions(session, "SELECT * WHERE { ?s sk")][:1] == ["skos:"]
        assert completions(session, "sel")[0].text == "select"
        assert completions(session, "SEL")[0].text == "SELECT"
        assert [c.text for c in completions(session, "SELECT ?e ?l WHERE { ?e rdfs:label ?")] == ["?e", "?l"]

    def test_commands_and_arguments(self, session):
        assert [(c.text, c.display_meta_text) for c in completions(session, ".desc")] == [
            (".describe", COMMANDS[".describe"].summary)
        ]
        assert [c.text for c in completions(session, ".describe goal mis")] == ["goal misgeneralization"]
        assert completions(session, ".path CLIP goal mis")[0].text == '"goal misgeneralization"'
        assert completions(session, ".path CLIP goal mis")[0].start_position == -len("goal mis")
        assert [c.text for c in completions(session, ".format j")] == ["json"]

    def test_saved_queries(self, session):
        session.saved.save("methods", "SELECT ?m WHERE { ?m a kg:Method }")
        assert [c.text for c in completions(session, ".run me")] == ["methods"]

    def test_while_typing_the_menu_waits_for_a_word(self, session):
        assert completions(session, "SELECT * WHERE { ", requested=False) == []
        assert completions(session, "SELECT * WHERE { ", requested=True) != []
        assert completions(session, "SELECT * WHERE { ?e a kg:Meth", requested=False)[0].text == "kg:Method"


# ---------------------------------------------------------------- commands


class TestCommands:
    def test_help_lists_every_command(self, session):
        text = execute(session, ".help").message
        for entry in unique_commands():
            assert entry.usage in text
        assert ".path A B" in execute(session, ".help path").message
        with pytest.raises(UsageError, match="no command .nope"):
            execute(session, ".help nope")

    def test_unknown_command_has_a_hint(self, session):
        with pytest.raises(UsageError, match=r"unknown command \.hlep; did you mean \.help\?"):
            execute(session, ".hlep")

    def test_sparql_with_kgr_names_and_the_last_query(self, session):
        result = execute(session, "SELECT ?l WHERE { kgr:entity/clip rdfs:label ?l }")
        assert rows(result) == [("CLIP",)]
        assert session.last_query == "SELECT ?l WHERE { kgr:entity/clip rdfs:label ?l }"

    def test_syntax_error_position_refers_to_the_text_typed(self, session):
        typed = "SELECT * WHERE {\n  kgr:entity/clip ?p }"
        with pytest.raises(QuerySyntaxError) as as_sent:
            session.store.query(to_sparql(typed).text)  # sent as "kgr:entity\/clip"
        with pytest.raises(QuerySyntaxError) as as_typed:
            execute(session, typed)
        assert as_sent.value.line == as_typed.value.line == 2
        assert as_typed.value.column == as_sent.value.column - 1 > len("  kgr:entity/")

    def test_limit_cuts_and_notes(self, session):
        execute(session, ".limit 2")
        result = execute(session, "SELECT ?e WHERE { ?e rdfs:label ?l }")
        assert result.count == 2 and result.truncated and result.limit == 2
        assert execute(session, ".limit 0").message == "limit: none"
        assert execute(session, "SELECT ?e WHERE { ?e rdfs:label ?l }").count == len(ENTITIES)
        with pytest.raises(UsageError):
            execute(session, ".limit lots")

    def test_format_and_timing(self, session):
        assert execute(session, ".format csv").message == "format: csv" and session.fmt == "csv"
        with pytest.raises(UsageError, match="unknown format 'docx'"):
            execute(session, ".format docx")
        assert execute(session, ".timing off").message == "timing: off" and not session.timing
        assert execute(session, ".timing").message == "timing: off"
        with pytest.raises(UsageError):
            execute(session, ".timing maybe")

    def test_describe(self, session):
        result = execute(session, ".describe arp")
        assert result.columns == ("field", "value", "note", "papers", "evidence")
        fields = {}
        for field, *rest in rows(result):
            fields.setdefault(field, []).append(tuple(rest))
        assert fields["label"] == [("Adaptive Return-conditioned Policy", None, None, None)]
        assert fields["type"] == [(str(KG.Method), None, None, None)]
        assert fields["alias"] == [("ARP", None, None, None)]
        assert fields["papers"] == [(1, None, None, None)]
        assert fields["proposed by"][0][0] == str(paper_iri("p1"))
        assert fields["proposed by"][0][1].startswith("This work presents")
        assert fields["addresses"] == [
            (
                str(entity_iri("goal-misgeneralization")),
                "goal misgeneralization (Phenomenon)",
                1,
                "ARP mitigates goal misgeneralization.",
            )
        ]
        incoming = rows(execute(session, ".describe goal misgeneralization"))
        assert incoming[-1] == (
            "^addresses",
            str(entity_iri("adaptive-return-conditioned-policy")),
            "Adaptive Return-conditioned Policy (Method)",
            1,
            "ARP mitigates goal misgeneralization.",
        )

    def test_entity_arguments_by_label_alias_iri(self, session):
        for name in ["CLIP", "clip", "Contrastive Language-Image Pre-training", "kgr:entity/clip", f"<{clip()}>"]:
            assert rows(execute(session, f".describe {name}"))[0] == ("entity", clip(), None, None, None)

    def test_did_you_mean(self, session):
        with pytest.raises(EntityNotFoundError, match="did you mean: CLIP"):
            execute(session, ".describe CLIPP")
        with pytest.raises(EntityNotFoundError, match="did you mean: goal misgeneralization"):
            execute(session, ".neighbors goal misgen")
        with pytest.raises(UsageError, match="usage: .describe X"):
            execute(session, ".describe")

    def test_neighbors(self, session):
        result = execute(session, ".neighbors CIFAR-10")
        assert result.columns == ("entity", "label", "type", "hops", "link", "papers", "via")
        table = {label: (etype, hops, link, papers, via) for _, label, etype, hops, link, papers, via in rows(result)}
        assert table == {
            "adversarial training": ("Method", 1, "^evaluatedOn", 1, "CIFAR-10"),
            "CLIP": ("Method", 1, "mentions", 1, "CIFAR-10"),
            "robust overfitting": ("Phenomenon", 1, "mentions", 1, "CIFAR-10"),
            "robust accuracy": ("Metric", 1, "mentions", 1, "CIFAR-10"),
        }
        two = rows(execute(session, ".neighbors CIFAR-10 --hops 2"))
        assert {(label, hops, via) for _, label, _, hops, _, _, via in two if hops == 2} == {
            ("Adaptive Return-conditioned Policy", 2, "CLIP"),
            ("goal misgeneralization", 2, "CLIP"),
        }
        cut = execute(session, ".neighbors CIFAR-10 --limit 1")
        assert cut.count == 1 and cut.truncated
        with pytest.raises(UsageError, match="unknown option --top"):
            execute(session, ".neighbors CIFAR-10 --top 3")

    def test_related(self, session):
        result = execute(session, ".related CLIP")
        assert result.columns == ("entity", "label", "type", "score", "shared", "papers", "note")
        table = {label: (score, shared, papers, note) for _, label, _, score, shared, papers, note in rows(result)}
        assert table["CIFAR-10"] == (pytest.approx(1 / 3, abs=1e-4), 1, 2, None)
        assert table["goal misgeneralization"][:3] == (0.5, 1, 1)
        assert table["robust overfitting"][3] == "not linked yet; both linked to CIFAR-10"
        assert execute(session, ".related CLIP --predict 0 --limit 1").count == 1
        with pytest.raises(UsageError, match="unknown measure"):
            execute(session, ".related CLIP --measure cosine")

    def test_path(self, session):
        result = execute(session, '.path CLIP "robust overfitting"')
        assert result.columns == ("path", "hop", "from", "link", "to", "papers", "evidence", "paper")
        first = [row for row in rows(result) if row[0] == 1]
        assert [(frm, link, to, papers) for _, _, frm, link, to, papers, _, _ in first] == [
            ("CLIP", "mentions", "CIFAR-10", 1),
            ("CIFAR-10", "mentions", "robust overfitting", 1),
        ]
        assert first[0][6:] == ("We fine-tune CLIP on CIFAR-10.", str(paper_iri("p3")))

    def test_path_with_unquoted_names_over_a_relation(self, session):
        assert rows(execute(session, ".path ARP goal misgeneralization")) == [
            (
                1,
                1,
                "Adaptive Return-conditioned Policy",
                "addresses",
                "goal misgeneralization",
                1,
                "ARP mitigates goal misgeneralization.",
                str(paper_iri("p1")),
            )
        ]

    def test_no_path(self, session):
        result = execute(session, ".path CLIP image captioning")
        assert result.kind == "message"
        assert result.message.startswith("no path of at most 4 hops between CLIP and image captioning")
        assert execute(session, '.path CLIP "robust overfitting" --max-hops 1').kind == "message"
        with pytest.raises(UsageError, match="usage: .path"):
            execute(session, ".path CLIP")

    def test_path_via_follows_only_the_links_named(self, session):
        def links(command):  # of the first path
            return [(frm, link, to) for path, _, frm, link, to, *_ in rows(execute(session, command)) if path == 1]

        # By default the relation beats the co-mention of the same paper (p2).
        assert links(".path adversarial training CIFAR-10") == [("adversarial training", "evaluatedOn", "CIFAR-10")]
        assert links(".path adversarial training CIFAR-10 --via mentions") == [
            ("adversarial training", "mentions", "CIFAR-10")
        ]
        # Without mentions among them, --via leaves papers out: CLIP has no relation at all.
        assert execute(session, '.path CLIP "goal misgeneralization" --via addresses').message.startswith(
            "no path of at most 4 hops between CLIP and goal misgeneralization"
        )
        for given in ("--via addresses,mentions", "--via addresses --via mentions", "--via=addresses --papers"):
            assert links(f'.path CLIP "goal misgeneralization" {given}') == [
                ("CLIP", "mentions", "goal misgeneralization")
            ], given
        with pytest.raises(UsageError, match="unknown link 'usedFr'; did you mean: usedFor?"):
            execute(session, ".path CLIP ARP --via usedFr")

    def test_path_papers_switch(self, session):
        assert execute(session, '.path CLIP "robust overfitting" --no-papers').message.startswith(
            "no path of at most 4 hops between CLIP and robust overfitting"
        )
        assert rows(execute(session, ".path ARP goal misgeneralization --no-papers --max-hops 1"))[0][2:5] == (
            "Adaptive Return-conditioned Policy",
            "addresses",
            "goal misgeneralization",
        )
        assert execute(session, '.path CLIP "robust overfitting" --papers').count == 5  # as without the switch
        with pytest.raises(UsageError, match="--papers takes no value"):
            execute(session, ".path CLIP ARP --papers=yes")
        with pytest.raises(UsageError, match="options: --max-hops, --limit, --via, --papers, --no-papers"):
            execute(session, ".path CLIP ARP --hops 2")
        assert suggest(".path CLIP ARP --")[0].choices == ("--max-hops", "--limit", "--via", "--papers", "--no-papers")

    def test_path_and_kg_path_ask_the_same_service(self, session):
        from kg.explore.reports import path_report

        for options in ({}, {"via": ["evaluatedOn,mentions"]}, {"through_papers": False}, {"limit": 1}):
            report = path_report(session.projection(), session.store, "CLIP", "robust overfitting", **options)
            given = {"via": "--via evaluatedOn,mentions", "through_papers": "--no-papers", "limit": "--limit 1"}
            command = '.path CLIP "robust overfitting" ' + " ".join(given[key] for key in options)
            result = execute(session, command)
            expected = [
                (n, s, hop.source, hop.predicate, hop.target, hop.support, hop.evidence, hop.paper)
                for n, path in enumerate(report.paths, 1)
                for s, hop in enumerate(path.hops, 1)
            ]
            assert (rows(result) if result.kind == "select" else []) == expected, command

    def test_find(self, session):
        result = execute(session, ".find robust")
        assert [label for _, label, *_ in rows(result)] == ["robust accuracy", "robust overfitting"]
        by_alias = rows(execute(session, ".find arp"))
        assert by_alias[0][1:] == ("Adaptive Return-conditioned Policy", "Method", 1, "ARP")
        assert execute(session, '.find "quoted"').count == 0

    def test_stats_and_prefixes(self, session):
        stats = dict(rows(execute(session, ".stats")))
        assert stats["papers"] == 4 and stats["entities"] == len(ENTITIES)
        assert stats["entities: Method"] == 3 and stats["relations"] == len(RELATIONS)
        prefixes = dict(rows(execute(session, ".prefixes")))
        assert prefixes["kgr:"] == RESOURCE_IRI

    def test_save_and_run(self, session, tmp_path):
        with pytest.raises(UsageError, match="no query to save"):
            execute(session, ".save first")
        execute(session, "SELECT ?l WHERE { ?e a kg:Dataset ; rdfs:label ?l }")
        assert "saved 'datasets'" in execute(session, ".save datasets").message
        stored = json.loads((tmp_path / "queries.json").read_text())
        assert stored == {"datasets": "SELECT ?l WHERE { ?e a kg:Dataset ; rdfs:label ?l }"}
        assert rows(execute(session, ".run datasets")) == [("CIFAR-10",)]
        assert rows(execute(session, ".run")) == [("datasets", stored["datasets"])]
        with pytest.raises(UsageError, match="did you mean: datasets"):
            execute(session, ".run dataset")
        with pytest.raises(UsageError, match="usage: .save NAME"):
            execute(session, ".save two words")

    def test_export(self, session, tmp_path):
        message = execute(session, f".export nt {tmp_path / 'graph.nt'}").message
        assert message.startswith(f"wrote {tmp_path / 'graph.nt'} (nt, ")
        lines = (tmp_path / "graph.nt").read_text().splitlines()
        assert f'<{clip()}> <{RDFS.label}> "CLIP" .' in lines
        execute(session, f".export {tmp_path / 'graph.ttl'}")  # the format from the suffix
        assert "kgr:" in (tmp_path / "graph.ttl").read_text()
        with pytest.raises(UsageError, match="unknown export format 'docx'"):
            execute(session, f".export docx {tmp_path / 'g.docx'}")
        with pytest.raises(UsageError, match="no such directory"):
            execute(session, f".export nt {tmp_path / 'missing' / 'g.nt'}")

    def test_export_follows_the_suffix_as_kg_export_does(self, session, tmp_path):
        message = execute(session, f".export {tmp_path / 'graph.nt.gz'}").message
        assert message.startswith(f"wrote {tmp_path / 'graph.nt.gz'} (nt, gzip, ")
        assert (
            f'<{clip()}> <{RDFS.label}> "CLIP" .' in gzip.decompress((tmp_path / "graph.nt.gz").read_bytes()).decode()
        )
        execute(session, f".export {tmp_path / 'graph.json'}")
        assert json.loads((tmp_path / "graph.json").read_text())[0]["@id"]  # JSON-LD
        with pytest.raises(UsageError, match="cannot tell the export format of .*: use .ttl, .nt"):
            execute(session, f".export {tmp_path / 'graph.parquet'}")

    def test_quit(self, session):
        execute(session, ".exit")
        assert not session.running


def test_commands_on_a_built_store(small_store: Path, tmp_path: Path):
    """Every dot-command runs on what ``kg build`` makes of the small corpus."""
    with open_store(small_store) as store:
        session = Session(store, saved=SavedQueries(tmp_path / "q.json"))
        assert execute(session, ".stats").count > 0
        found = execute(session, ".find robust overfitting")
        assert found.count >= 1
        name = str(rows(found)[0][1])
        for command in [
            f".describe {name}",
            f".neighbors {name}",
            f".related {name}",
            ".prefixes",
            f'.path "{name}" CIFAR-10',
            "SELECT * WHERE { ?s ?p ?o } LIMIT 3",
        ]:
            result = execute(session, command)
            assert result.kind in ("select", "message")
        assert completions(session, "SELECT * WHERE { ?p kg:mentions overfit")[0].text.startswith("entity:")


# ---------------------------------------------------------------- output


class TestOutput:
    def test_caret_under_the_column(self):
        assert caret_lines("SELECT * WHERE { ?s ?p }", 1, 24).splitlines() == [
            "LINE 1: SELECT * WHERE { ?s ?p }",
            " " * 31 + "^",
        ]

    def test_caret_in_a_long_line_stays_in_view(self):
        source = "x" * 300 + "!" + "y" * 300
        shown, caret = caret_lines(source, 3, 301, width=80).splitlines()
        assert len(shown) <= 80 and shown[caret.index("^")] == "!"

    def test_tidy_message(self):
        assert tidy_message("expected OPTIONAL") == "expected OPTIONAL"
        many = "expected one of " + ", ".join(f'"{c}"' for c in "abcdefghijk")
        assert tidy_message(many) == 'expected one of "a", "b", "c", "d", "e", "f", "g", "h", …'

    def test_piped_results_on_stdout_and_the_rest_on_stderr(self, session):
        out, err = io.StringIO(), io.StringIO()
        console = Console(out, err, interactive=False)
        console.show(execute(session, "SELECT ?l WHERE { kgr:entity/clip rdfs:label ?l }"), session)
        console.show(execute(session, ".format csv"), session)
        console.show(execute(session, "SELECT ?l WHERE { kgr:entity/clip rdfs:label ?l }"), session)
        assert out.getvalue() == " l\n------\n CLIP\nl\r\nCLIP\r\n"
        assert err.getvalue().splitlines()[1] == "format: csv"
        assert err.getvalue().startswith("1 row in ")

    def test_errors_with_position(self, session):
        out, err = io.StringIO(), io.StringIO()
        statement = Statement("SELECT *\nWHERE { ?s ?p }", line=7)
        with pytest.raises(QuerySyntaxError) as caught:
            execute(session, statement)
        Console(out, err, interactive=False).error(caught.value, statement)
        first, source, caret = err.getvalue().splitlines()
        column = caught.value.column
        assert caught.value.line == 2
        assert first.startswith(f"stdin:8: SPARQL syntax error at line 2, column {column}: ")
        assert source == "LINE 2: WHERE { ?s ?p }"
        assert caret == " " * (len("LINE 2: ") + column - 1) + "^"

    def test_summary_without_timing(self, session):
        out = io.StringIO()
        session.timing = False
        Console(out, io.StringIO(), interactive=True).show(execute(session, "ASK { ?s ?p ?o }"), session)
        assert out.getvalue() == "true\nanswer: true\n"


def test_the_shell_does_not_import_spacy():
    import subprocess
    import sys

    code = (
        "import sys, shell.app, shell.commands, shell.completion.completer, shell.prompt; print('spacy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


# ---------------------------------------------------------------- the loop


class TestApp:
    def test_ctrl_c_cancels_a_running_statement(self, session, monkeypatch):
        import signal
        import threading
        import time

        from shell import app

        monkeypatch.setattr(app, "execute", lambda session, statement: time.sleep(10))
        interrupt = threading.Timer(0.3, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
        out = io.StringIO()
        started = time.monotonic()
        interrupt.start()
        status = app.run_statement(session, Console(out, out, interactive=True), Statement("ASK {}"), cancellable=True)
        assert status == app.CANCELLED and time.monotonic() - started < 5
        assert out.getvalue() == "cancelled\n"

    def test_a_bug_is_reported_and_the_shell_carries_on(self, session, monkeypatch):
        from shell import app

        def broken(session, statement):
            raise RuntimeError("boom")

        monkeypatch.setattr(app, "execute", broken)
        out = io.StringIO()
        assert app.run_statement(session, Console(out, out, interactive=True), Statement(".stats")) == 1
        assert out.getvalue().startswith("internal error (please report it):\nTraceback")
        assert "RuntimeError: boom" in out.getvalue()

    def test_piped_statements_run_as_they_arrive(self, session):
        # A program talking to the shell through a pipe gets each answer before it sends the next statement.
        from shell import app

        events = []

        class Lines(io.StringIO):
            def readline(self, *args):
                line = super().readline(*args)
                events.append(f"read {line.strip()}" if line else "end")
                return line

        class Written(io.StringIO):
            def write(self, text):
                events.append(f"wrote {text.strip()}")
                return super().write(text)

        stream = Lines(".format tsv\n.format csv\n")
        assert app.piped(session, stream, Console(Written(), Written(), interactive=False)) == 0
        assert [e for e in events if e.strip() != "wrote"] == [
            "read .format tsv",
            "wrote format: tsv",
            "read .format csv",
            "wrote format: csv",
            "end",
        ]

    def test_run_shell_reads_piped_input(self, graph_store, monkeypatch, tmp_path):
        from shell.app import run_shell

        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
        out, err = io.StringIO(), io.StringIO()
        status = run_shell(
            str(graph_store),
            stdin=io.StringIO(".format tsv\nSELECT ?l { kgr:entity/clip rdfs:label ?l }"),
            stdout=out,
            stderr=err,
        )
        assert (status, out.getvalue()) == (0, '?l\n"CLIP"\n')
        assert err.getvalue().startswith("format: tsv\n1 row in ")
