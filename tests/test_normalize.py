"""TeX markup in names read as the text it typesets (kg.normalize.plain_name), and folded with it."""

from __future__ import annotations

import pytest

from kg.normalize import entity_key, fold, plain_name


@pytest.mark.parametrize(
    ("written", "plain"),
    [
        (r"Poincar\'e embeddings", "Poincaré embeddings"),
        (r"Poincar\'{e} embeddings", "Poincaré embeddings"),
        (r"G\"{o}del machine", "Gödel machine"),
        (r"Erd\H{o}s--R\'enyi graphs", "Erdős–Rényi graphs"),
        (r"Fran\c{c}ois", "François"),
        (r"\v{C}ech complex", "Čech complex"),
        (r"S{\o}rensen--Dice", "Sørensen–Dice"),
        (r"Tanks \& Temples", "Tanks & Temples"),
        (r"top-5 accuracy (\%)", "top-5 accuracy (%)"),
        (r"{\epsilon}-optimal ranking", "ε-optimal ranking"),
        (r"$\alpha$-divergence", "α-divergence"),
        (r"$k$-means", "k-means"),
        (r"\textbf{Attention Localization and Pruning Strategy", "Attention Localization and Pruning Strategy"),
        (r"\emph{SimCLR}", "SimCLR"),
        (r"textbf{generalist}$ models", "generalist models"),
        (r"{\bf MixUp}", "MixUp"),
        ("SD_{SR4G}", "SD_SR4G"),
        ("first---and last", "first\u2014and last"),
    ],
)
def test_tex_in_a_name_reads_as_what_it_typesets(written: str, plain: str) -> None:
    assert plain_name(written) == plain
    assert fold(written) == fold(plain)
    assert entity_key(written) == entity_key(plain)


@pytest.mark.parametrize("name", ["LoRA", "GPT-4", "text-to-image generation", "mathematical reasoning", "C++", "k-NN"])
def test_a_name_without_tex_is_left_as_it_is(name: str) -> None:
    assert plain_name(name) is name


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("scaling laws", "scaling law"),
        ("normalizing flows", "normalizing flow"),
        ("positive views", "positive view"),
        ("LLMs", "LLM"),
        ("GANs", "GAN"),
        ("vision transformers", "Vision Transformer"),
    ],
)
def test_a_plural_folds_as_its_singular(plural: str, singular: str) -> None:
    assert fold(plural) == fold(singular)
    assert entity_key(plural) == entity_key(singular)


@pytest.mark.parametrize(
    ("name", "folded"), [("PAWS", "paws"), ("HANS", "hans"), ("news", "news"), ("robotics", "robotics")]
)
def test_an_acronym_in_capitals_or_a_word_that_ends_in_s_is_not_a_plural(name: str, folded: str) -> None:
    assert fold(name) == folded
