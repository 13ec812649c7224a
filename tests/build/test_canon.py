"""Corpus-level merging: acronyms across papers, and one type per entity."""

from __future__ import annotations

from kg.build.canon import Registry
from kg.extract.records import Entity


def test_an_acronym_defined_differently_in_two_papers_stays_two_entities() -> None:
    registry = Registry()
    first = registry.resolve(
        Entity(
            id="adaptive-return-conditioned-policy",
            label="Adaptive Return-conditioned Policy",
            type="Method",
            aliases=("ARP",),
        )
    )
    second = registry.resolve(
        Entity(id="address-resolution-protocol", label="Address Resolution Protocol", type="Method", aliases=("ARP",))
    )
    assert first.key != second.key and first.is_new and second.is_new
    # Used alone afterwards, the acronym cannot say which one it means: it stays its own entity.
    alone = registry.resolve(Entity(id="arp", label="ARP", type="Method"))
    assert alone.key == "arp"


def test_an_acronym_used_alone_in_another_paper_joins_its_definition() -> None:
    registry = Registry()
    registry.resolve(Entity(id="low-rank-adaptation", label="Low-Rank Adaptation", type="Method", aliases=("LoRA",)))
    later = registry.resolve(Entity(id="lora", label="LoRA", type="Method"))
    assert later.key == "low-rank-adaptation" and not later.is_new


def test_a_known_entity_keeps_its_first_type_and_label() -> None:
    registry = Registry()
    registry.add_known("accuracy", "Metric", "accuracy")
    resolved = registry.resolve(Entity(id="accuracy", label="Accuracy", type="Task"))
    assert (resolved.type, resolved.label, resolved.is_new) == ("Metric", "accuracy", False)
    assert resolved.aliases == ()
