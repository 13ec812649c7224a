"""SciERC's vocabulary (Luan et al., 2018) and how it maps onto this graph's types and predicates.

A leaf: it imports nothing of the project, so the extractors, the trainers and the benchmark
all take their labels from here and none of them from another.

Examples
--------
>>> [SCORED_AS.get(t) for t in ENTITY_TYPES]
['Method', 'Task', 'Metric', 'Dataset', None, None]
>>> PREDICATE_OF_LABEL["EVALUATE-FOR"], sorted(INVERTED_PREDICATES)
(('evaluatedOn', True), ['evaluatedOn'])
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "ENTITY_TYPES",
    "INVERTED_PREDICATES",
    "OUR_TYPE",
    "PREDICATE_OF_LABEL",
    "RELATION_LABELS",
    "SCORED_AS",
    "SCORED_TYPES",
]

# In this order the trained models number them (class 0 is "none").
ENTITY_TYPES = ("Method", "Task", "Metric", "Material", "OtherScientificTerm", "Generic")
RELATION_LABELS = ("USED-FOR", "EVALUATE-FOR", "COMPARE", "PART-OF", "HYPONYM-OF", "FEATURE-OF", "CONJUNCTION")

# The four SciERC types the benchmark reports, as the type of ours each is scored as;
# Generic and OtherScientificTerm are not scored.
SCORED_AS: Mapping[str, str] = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}
SCORED_TYPES = tuple(SCORED_AS.values())
# Every SciERC type but Generic as one of ours; a Generic mention ("this method") takes whichever
# of these its model scores highest.
OUR_TYPE: Mapping[str, str] = {**SCORED_AS, "OtherScientificTerm": "Phenomenon"}

# Each SciERC label as this graph's predicate, and whether SciERC's first argument is the object.
PREDICATE_OF_LABEL: Mapping[str, tuple[str, bool]] = {
    "USED-FOR": ("usedFor", False),
    "EVALUATE-FOR": ("evaluatedOn", True),
    "COMPARE": ("comparedWith", False),
    "PART-OF": ("partOf", False),
    "HYPONYM-OF": ("hyponymOf", False),
    "FEATURE-OF": ("featureOf", False),
    "CONJUNCTION": ("conjunction", False),
}
# Predicates whose SciERC label runs object -> subject ("X evaluatedOn Y" is SciERC's "Y EVALUATE-FOR X").
INVERTED_PREDICATES = frozenset(predicate for predicate, inverted in PREDICATE_OF_LABEL.values() if inverted)
