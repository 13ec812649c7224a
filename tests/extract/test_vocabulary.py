"""The curated SKOS vocabularies (ontology/vocab/*.ttl): shape, typing, and no label clashes."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from functools import cache

import pytest
from rdflib import Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, RDF, SKOS

from kg.resources import VOCABULARY_DIR as VOCAB_DIR

KG = Namespace("https://w3id.org/abstract-kg/ontology#")
VOCAB = "https://w3id.org/abstract-kg/vocab/"
ENTITY_TYPES = ("Method", "Dataset", "Task", "Metric", "Phenomenon")

# file stem -> (entity type, concept IRI folder, minimum number of concepts)
# The minimums are the curation targets minus 20%.
FILES = {
    "methods": ("Method", "method", 320),
    "datasets": ("Dataset", "dataset", 240),
    "tasks": ("Task", "task", 160),
    "metrics": ("Metric", "metric", 80),
    "phenomena": ("Phenomenon", "phenomenon", 96),
}

_DASHES = re.compile(r"[\u2010-\u2015\u2212_-]")


def fold(text: str) -> str:
    """Case-insensitive, hyphens (and dash-like characters) as spaces, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"\s+", " ", _DASHES.sub(" ", text)).strip()


@cache
def graph(stem: str) -> Graph:
    return Graph().parse(VOCAB_DIR / f"{stem}.ttl", format="turtle")


def concepts(stem: str) -> list[URIRef]:
    return sorted(set(graph(stem).subjects(RDF.type, SKOS.Concept)))


def labels(g: Graph, concept: URIRef) -> list[Literal]:
    return [*g.objects(concept, SKOS.prefLabel), *g.objects(concept, SKOS.altLabel)]


def all_claims(folder=fold) -> dict[str, set[tuple[str, str, str]]]:
    """folded surface form -> {(file, concept IRI, label as written)}"""
    claims: dict[str, set[tuple[str, str, str]]] = defaultdict(set)
    for stem in FILES:
        g = graph(stem)
        for c in concepts(stem):
            for label in labels(g, c):
                claims[folder(str(label))].add((stem, str(c), str(label)))
    return claims


def test_the_five_files_and_nothing_else():
    assert sorted(p.stem for p in VOCAB_DIR.glob("*.ttl")) == sorted(FILES)


@pytest.mark.parametrize("stem", FILES)
def test_file_parses_and_has_one_scheme(stem):
    g = graph(stem)
    schemes = set(g.subjects(RDF.type, SKOS.ConceptScheme))
    assert schemes == {URIRef(VOCAB + stem)}
    scheme = URIRef(VOCAB + stem)
    assert len(list(g.objects(scheme, SKOS.prefLabel))) == 1
    assert len(list(g.objects(scheme, DCTERMS.title))) == 1
    assert len(list(g.objects(scheme, DCTERMS.description))) == 1


@pytest.mark.parametrize("stem", FILES)
def test_file_parses_with_oxigraph(stem):
    """The extractor loads the vocabularies with pyoxigraph's parser, not rdflib's."""
    import pyoxigraph as ox

    triples = list(ox.parse(path=str(VOCAB_DIR / f"{stem}.ttl"), format=ox.RdfFormat.TURTLE))
    assert len(triples) == len(graph(stem))


@pytest.mark.parametrize("stem", FILES)
def test_concept_shape(stem):
    entity_type, folder, _ = FILES[stem]
    g = graph(stem)
    scheme = URIRef(VOCAB + stem)
    problems = []
    for c in concepts(stem):
        if not str(c).startswith(f"{VOCAB}{folder}/"):
            problems.append(f"{c}: IRI not under {VOCAB}{folder}/")
        kg_types = {t for t in g.objects(c, RDF.type) if str(t).startswith(str(KG))}
        if kg_types != {KG[entity_type]}:
            problems.append(f"{c}: kg types {sorted(map(str, kg_types))}, expected kg:{entity_type}")
        if set(g.objects(c, SKOS.inScheme)) != {scheme}:
            problems.append(f"{c}: not (only) in scheme {scheme}")
        prefs = list(g.objects(c, SKOS.prefLabel))
        if len(prefs) != 1:
            problems.append(f"{c}: {len(prefs)} prefLabels")
        written = [str(label) for label in labels(g, c)]
        if len(written) != len(set(written)):
            problems.append(f"{c}: a label is repeated")
        for label in labels(g, c):
            if label.language != "en":
                problems.append(f"{c}: label {label!r} not tagged @en")
            if str(label) != str(label).strip() or "  " in str(label) or not str(label):
                problems.append(f"{c}: label {str(label)!r} has stray whitespace")
        for b in g.objects(c, SKOS.broader):
            if b == c or (b, RDF.type, SKOS.Concept) not in g:
                problems.append(f"{c}: broader {b} is not another concept of this file")
        if len(list(g.objects(c, SKOS.definition))) > 1:
            problems.append(f"{c}: more than one definition")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("stem", FILES)
def test_concept_count_meets_target(stem):
    assert len(concepts(stem)) >= FILES[stem][2]


def test_no_concept_in_two_files():
    seen: dict[URIRef, str] = {}
    for stem in FILES:
        for c in concepts(stem):
            assert c not in seen, f"{c} in {seen[c]} and {stem}"
            seen[c] = stem


def _clashes(folder) -> list[str]:
    out = []
    for form, claims in sorted(all_claims(folder).items()):
        owners = {(stem, iri) for stem, iri, _ in claims}
        if len(owners) > 1:
            out.append(
                f"{form!r}: " + "; ".join(sorted(f"{s}:{i.rsplit('/', 1)[-1]} ({label})" for s, i, label in claims))
            )
    return out


def test_no_surface_form_claimed_twice():
    """No folded label belongs to two concepts, whether of different types or in one file."""
    clashes = _clashes(fold)
    assert not clashes, "\n".join(clashes)


def test_no_surface_form_claimed_twice_after_canonical_folding():
    """The builder also folds a leading article and a final plural "s" (kg.normalize.fold)."""
    from kg import normalize

    clashes = _clashes(normalize.fold)
    assert not clashes, "\n".join(clashes)


def _owner(label: str) -> tuple[str, str]:
    """(entity type, prefLabel) of the concept that claims the label."""
    claims = all_claims().get(fold(label), set())
    assert len({iri for _, iri, _ in claims}) == 1, f"{label!r} claimed by {claims}"
    stem, iri, _ = next(iter(claims))
    pref = graph(stem).value(URIRef(iri), SKOS.prefLabel)
    return FILES[stem][0], str(pref)


@pytest.mark.parametrize(
    "label, entity_type, pref",
    [
        ("CLIP", "Method", "CLIP"),
        ("Low-Rank Adaptation", "Method", "LoRA"),
        ("BERT", "Method", "BERT"),
        ("ImageNet", "Dataset", "ImageNet"),
        ("IN-1K", "Dataset", "ImageNet-1K"),
        ("ILSVRC-2012", "Dataset", "ImageNet-1K"),
        ("The Pile", "Dataset", "The Pile"),
        ("MS COCO", "Dataset", "COCO"),
        ("imitation learning", "Task", "imitation learning"),
        ("zero-shot composed image retrieval", "Task", "zero-shot composed image retrieval"),
        ("AI-generated text detection", "Task", "AI-generated text detection"),
        ("robust accuracy", "Metric", "robust accuracy"),
        ("Fréchet Inception Distance", "Metric", "FID"),
        ("goal misgeneralization", "Phenomenon", "goal misgeneralization"),
        ("modality discrepancy", "Phenomenon", "modality gap"),
        # acronyms shared by two well-known terms go to exactly one of them
        ("MAE", "Method", "MAE"),
        ("SAM", "Method", "SAM"),
        ("EM", "Metric", "exact match"),
        ("ASR", "Task", "speech recognition"),
        ("SSL", "Method", "self-supervised learning"),
        ("TTA", "Task", "test-time adaptation"),
        ("LDA", "Method", "latent Dirichlet allocation"),
    ],
)
def test_known_terms(label, entity_type, pref):
    assert _owner(label) == (entity_type, pref)


def test_everyday_words_are_not_labels():
    claims = all_claims()
    for word in ("pile", "attention", "model", "method", "is", "return", "network", "kinetics"):
        assert fold(word) not in claims, word


def test_robust_overfitting_is_narrower_than_overfitting():
    g = graph("phenomena")
    ro = URIRef(VOCAB + "phenomenon/robust-overfitting")
    assert (ro, SKOS.broader, URIRef(VOCAB + "phenomenon/overfitting")) in g
