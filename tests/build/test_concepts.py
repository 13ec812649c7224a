"""One node per concept across papers: acronyms, folded labels, type and label votes (kg.build.concepts)."""

from __future__ import annotations

import random

from kg.build.concepts import Concept, find_concepts
from kg.extract.records import Entity, Mention
from kg.normalize import fold


def entity(key: str, label: str, kind: str = "Method", aliases: tuple[str, ...] = (), mentions: int = 1) -> Entity:
    return Entity(key, label, kind, aliases, mentions=tuple(Mention(0, len(label), label) for _ in range(mentions)))


SEGMENT = entity("segment-anything-model", "Segment Anything Model", aliases=("SAM",))
SHARPNESS = entity("sharpness-aware-minimization", "Sharpness-Aware Minimization", aliases=("SAM",))
SAM_ALONE = entity("sam", "SAM")


def concept_of(found, paper: str, key: str) -> Concept:
    return found.concepts[found.key_of[key]]


def test_an_acronym_defined_once_joins_its_long_form_across_papers() -> None:
    found = find_concepts(
        {
            "p1": [entity("low-rank-adaptation", "Low-Rank Adaptation", aliases=("LoRA",))],
            "p2": [entity("lora", "LoRA")],
            "p3": [entity("lora", "LoRAs")],
        }
    )
    assert len(found.concepts) == 1
    (concept,) = found.concepts.values()
    assert concept_of(found, "p2", "lora") == concept_of(found, "p1", "low-rank-adaptation")
    assert (concept.label, concept.aliases) == ("LoRA", ("Low-Rank Adaptation",))


def test_an_acronym_defined_two_ways_stays_two_entities_and_its_undefined_use_a_third() -> None:
    found = find_concepts({"p1": [SEGMENT], "p2": [SHARPNESS], "p3": [SAM_ALONE]})
    keys = {found.key_of[e.id] for paper, e in (("p1", SEGMENT), ("p2", SHARPNESS), ("p3", SAM_ALONE))}
    assert keys == {"segment-anything-model", "sharpness-aware-minimization", "sam"}
    assert concept_of(found, "p3", "sam").label == "SAM"
    # Defined once only, the same undefined use joins the definition.
    once = find_concepts({"p1": [SEGMENT], "p3": [SAM_ALONE]})
    assert len(once.concepts) == 1
    assert once.key_of["sam"] == once.key_of["segment-anything-model"] == "segment-anything-model"


def test_an_acronym_defined_by_two_spellings_of_one_name_joins_both() -> None:
    found = find_concepts(
        {
            "p1": [entity("large-language-model", "large language models", aliases=("LLMs",))],
            "p2": [entity("large-pretrained-language-model", "large pre-trained language models", aliases=("LLMs",))],
            "p3": [entity("llm", "LLMs"), entity("large-language-model", "large language models")],
            "p4": [entity("test-time-adaptation", "test-time adaptation", "Task", aliases=("TTA",))],
            "p5": [entity("test-time-adaption", "test-time adaption", "Task", aliases=("TTA",))],
        }
    )
    assert [(c.label, c.aliases) for c in found.concepts.values()] == [
        ("large language models", ("LLMs", "large pre-trained language models")),
        ("test-time adaptation", ("TTA", "test-time adaption")),
    ]


def test_an_acronym_defined_by_two_different_names_joins_neither() -> None:
    # Not spellings of one name: other words ("self", "semi"), or a shorter name that does not spell it.
    papers = {
        "p1": [entity("self-supervised-learning", "self-supervised learning", aliases=("SSL",))],
        "p2": [entity("semi-supervised-learning", "semi-supervised learning", aliases=("SSL",))],
        "p3": [entity("ssl", "SSL")],
    }
    assert len(find_concepts(papers).concepts) == 3
    papers["p2"] = [entity("supervised-learning", "supervised learning", aliases=("SSL",))]
    assert len(find_concepts(papers).concepts) == 3
    papers["p2"] = [entity("contrastive-generation", "contrastive generation", aliases=("CG",))]
    papers["p3"] = [entity("controllable-generation", "controllable generation", aliases=("CG",))]
    assert len(find_concepts(papers).concepts) == 3


def test_a_name_with_an_acronym_in_it_joins_the_name_spelled_out() -> None:
    found = find_concepts(
        {
            "p1": [entity("chain-of-thought", "chain-of-thought", aliases=("CoT",))],
            "p2": [entity("chain-of-thought-prompting", "chain-of-thought prompting")],
            "p3": [entity("cot-prompting", "CoT prompting"), entity("cot-distillation", "CoT distillation")],
            "p4": [entity("learning-rate", "learning rate", aliases=("LR",)), entity("lr-annealing", "LR annealing")],
            "p5": [entity("low-resolution", "low resolution", aliases=("LR",))],
            "p6": [entity("learning-rate-annealing", "learning rate annealing")],
        }
    )
    assert found.key_of["cot-prompting"] == found.key_of["chain-of-thought-prompting"]
    # The spelled-out name decides which of LR's long forms is meant; nothing is joined to a name
    # the corpus does not have.
    assert found.key_of["lr-annealing"] == found.key_of["learning-rate-annealing"]
    assert found.concepts[found.key_of["cot-distillation"]].label == "CoT distillation"
    assert len(found.concepts) == 6


def test_a_name_that_defines_an_acronym_inside_it_joins_its_spelled_out_and_short_names() -> None:
    found = find_concepts(
        {
            "p1": [entity("holistic-robust-hr-training", "holistic robust (HR) training")],
            "p2": [
                entity("hr-training", "HR training"),
                entity("holistic-robust-training", "holistic robust training"),
            ],
            "p3": [entity("ood", "out-of-distribution", aliases=("OOD",)), entity("ood-detection", "OOD detection")],
            "p4": [entity("ood-gen", "out-of-distribution (OOD) generalization", "Task")],
            "p5": [entity("ood-generalization", "OOD generalization", "Task")],
            # an acronym's own definition is not read as the acronym alone
            "p6": [entity("segment-anything-model-sam", "Segment Anything Model (SAM)"), entity("sam", "SAM")],
            # nor is a definition inside a name a definition of the acronym alone
            "p7": [entity("hr", "HR", "Metric")],
        }
    )
    one = {found.key_of[key] for key in ("holistic-robust-hr-training", "hr-training", "holistic-robust-training")}
    assert len(one) == 1
    assert found.key_of["ood-gen"] == found.key_of["ood-generalization"]
    assert found.key_of["ood-detection"] != found.key_of["ood-gen"]
    assert found.key_of["segment-anything-model-sam"] != found.key_of["sam"]
    assert found.key_of["hr"] not in one
    assert len(found.concepts) == 7


def test_a_name_with_a_trailing_category_word_joins_the_name_without_it_of_the_same_type() -> None:
    found = find_concepts(
        {
            "p1": [entity("glue", "GLUE", "Dataset"), entity("regularization", "regularization")],
            "p2": [entity("glue-benchmark", "GLUE benchmark", "Dataset"), entity("bleu-score", "BLEU score", "Metric")],
            "p3": [entity("regularization-technique", "regularization techniques"), entity("bleu", "BLEU", "Metric")],
            "p4": [entity("domain-shift-problem", "domain shift problem", "Phenomenon")],
            "p5": [entity("domain-shift", "domain shift", "Phenomenon")],
            # of another type: the task is not the models that do it
            "p6": [entity("retrieval", "retrieval", "Task"), entity("retrieval-model", "retrieval models")],
            # not a category word: a loss of CLIP's is not CLIP, supervised learning not "supervised"
            "p7": [entity("clip", "CLIP"), entity("clip-loss", "CLIP loss"), entity("supervised", "supervised")],
            "p8": [entity("supervised-learning", "supervised learning")],
            # nothing to join where the corpus has no name without the word
            "p9": [
                entity("gradient-flow-algorithm", "gradient flow algorithm"),
                entity("domain-shift", "domain shift", "Phenomenon"),
            ],
        }
    )
    joined = {("glue", "glue-benchmark"), ("bleu", "bleu-score"), ("regularization", "regularization-technique")}
    for short, long in (*joined, ("domain-shift", "domain-shift-problem")):
        assert found.key_of[short] == found.key_of[long], long
    assert found.concepts[found.key_of["domain-shift-problem"]].label == "domain shift"  # the name most papers give
    for short, long in (("retrieval", "retrieval-model"), ("clip", "clip-loss"), ("supervised", "supervised-learning")):
        assert found.key_of[short] != found.key_of[long], long
    assert found.concepts[found.key_of["gradient-flow-algorithm"]].label == "gradient flow algorithm"
    assert len(found.concepts) == 11


def test_labels_that_fold_alike_are_one_concept() -> None:
    found = find_concepts(
        {
            "p1": [entity("chain-of-thought", "chain-of-thought")],
            "p2": [entity("chain-of-thought-prompting", "Chain-of-Thought")],
            "p3": [entity("chain-of-thought-prompting", "Chain-of-Thought", aliases=("CoT",))],
            "p4": [entity("cot", "CoTs")],
        }
    )
    assert len(found.concepts) == 1
    (concept,) = found.concepts.values()
    # Spellings that fold alike pool their votes; the most frequent spelling is the label, and names
    # that fold alike are one alias (the plural "CoTs" is "CoT").
    assert (concept.key, concept.label) == ("chain-of-thought-prompting", "Chain-of-Thought")
    assert concept.aliases == ("CoT",)


def test_labels_that_differ_only_in_where_words_are_split_are_one_concept() -> None:
    found = find_concepts(
        {
            "p1": [entity("cifar-10", "CIFAR-10", "Dataset"), entity("resnet50", "ResNet50")],
            "p2": [entity("cifar-10", "CIFAR-10", "Dataset"), entity("resnet-50", "ResNet-50")],
            "p3": [entity("cifar10", "CIFAR10", "Dataset"), entity("tiny-imagenet", "Tiny ImageNet", "Dataset")],
            "p4": [entity("tinyimagenet", "TinyImageNet", "Dataset"), entity("tradeoff", "bias-variance tradeoff")],
            "p5": [entity("trade-off", "bias-variance trade-off"), entity("mean-teacher", "robust mean teacher'")],
            "p6": [entity("robust-mean-teacher", "robust mean teacher")],
        }
    )
    assert found.key_of["cifar10"] == found.key_of["cifar-10"] == "cifar-10"
    assert found.concepts["cifar-10"].aliases == ("CIFAR10",)  # the most used spelling is the label
    for first, second in (("resnet50", "resnet-50"), ("tiny-imagenet", "tinyimagenet"), ("tradeoff", "trade-off")):
        assert found.key_of[first] == found.key_of[second]
    assert found.key_of["mean-teacher"] == found.key_of["robust-mean-teacher"]
    assert len(found.concepts) == 5
    # Only spaces, hyphens and quotes: a name with another character is another name.
    apart = find_concepts({"p1": [entity("sam2act", "SAM2Act")], "p2": [entity("sam2act+", "SAM2Act+")]})
    assert len(apart.concepts) == 2
    assert len(find_concepts({"p1": [entity("c", "C")], "p2": [entity("c++", "C++")]}).concepts) == 2


def test_the_type_is_the_majority_over_mentions_not_the_first_paper() -> None:
    papers = {
        "p1": [entity("accuracy", "accuracy", "Task")],
        "p2": [entity("accuracy", "accuracy", "Metric")],
        "p3": [entity("accuracy", "Accuracy", "Metric")],
    }
    assert find_concepts(papers).concepts["accuracy"].type == "Metric"
    # One paper mentioning it three times outweighs two that mention it once.
    papers["p1"] = [entity("accuracy", "accuracy", "Task", mentions=3)]
    assert find_concepts(papers).concepts["accuracy"].type == "Task"


def test_ties_are_broken_by_a_fixed_order() -> None:
    tied = {"p1": [entity("x", "x", "Task")], "p2": [entity("x", "X", "Method")]}
    concept = find_concepts(tied).concepts["x"]
    assert (concept.type, concept.label) == ("Method", "X")  # ENTITY_TYPES order; "X" sorts before "x"
    defined = {
        "p1": [entity("lora", "LoRA")],
        "p2": [entity("low-rank-adaptation", "Low-Rank Adaptation", aliases=("LoRA",))],
    }
    # The longer name, and the key it reads as.
    assert list(find_concepts(defined).concepts.items()) == [
        ("low-rank-adaptation", Concept("low-rank-adaptation", "Low-Rank Adaptation", "Method", ("LoRA",)))
    ]


def test_the_result_depends_on_the_set_of_records_only() -> None:
    papers = {
        "p1": [SEGMENT, entity("vit", "ViT", "Method")],
        "p2": [SHARPNESS, entity("vision-transformer", "Vision Transformer", aliases=("ViT",))],
        "p3": [SAM_ALONE, entity("vision-transformer", "vision transformers", "Task", mentions=2)],
        "p4": [entity("cl", "CL", "Task"), entity("continual-learning", "continual learning", "Task", ("CL",))],
        "p5": [entity("llm", "large pre-trained language models", aliases=("LLMs",)), entity("cl-x", "CL methods")],
        "p6": [entity("large-language-model", "large language models", aliases=("LLMs",))],
        "p7": [entity("continual-learning-method", "continual learning methods")],
        "p8": [entity("glue-benchmark", "GLUE benchmark", "Dataset"), entity("vit-model", "ViT models")],
        "p9": [entity("glue", "GLUE", "Dataset")],
    }
    expected = find_concepts(papers)
    assert expected.key_of["glue"] == expected.key_of["glue-benchmark"]
    assert expected.key_of["vit-model"] == expected.key_of["vision-transformer"]
    rng = random.Random(7)
    for _ in range(5):
        names = list(papers)
        rng.shuffle(names)
        shuffled = {name: rng.sample(papers[name], len(papers[name])) for name in names}
        assert find_concepts(shuffled) == expected


def test_no_two_concepts_share_a_folded_label() -> None:
    rng = random.Random(11)
    words = ["LoRA", "lora", "Low-Rank Adaptation", "SAM", "sam", "ViT", "Vision Transformers", "CL", "cl"]
    papers = {}
    for number in range(60):
        chosen = rng.sample(words, 3)
        papers[f"p{number}"] = [
            entity(f"k{rng.randrange(12)}", label, rng.choice(["Method", "Task"]), aliases=(rng.choice(words),))
            for label in chosen
        ]
    found = find_concepts(papers)
    folds = [fold(concept.label) for concept in found.concepts.values()]
    assert len(folds) == len(set(folds))


def test_a_name_spelled_in_tex_is_one_concept_with_its_plain_spelling_and_reads_plain() -> None:
    found = find_concepts(
        {
            "p1": [entity("poincare-embedding", r"Poincar\'e embeddings", aliases=(r"S{\o}rensen--Dice",))],
            "p2": [entity("poincaré-embedding", "Poincaré embeddings")],
            "p3": [entity("poincaré-embedding", r"Poincar\'{e} Embeddings")],
        }
    )
    assert len(found.concepts) == 1
    (concept,) = found.concepts.values()
    assert (concept.label, concept.aliases) == ("Poincaré embeddings", ("Sørensen–Dice",))
    assert concept.key == "poincaré-embedding"
