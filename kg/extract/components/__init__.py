"""The project's spaCy pipeline components, one module each, registered by name when this package is imported.

Each component computes its matches first and then sets annotations (span groups, so
that the results survive ``nlp.pipe(n_process=...)``):

==================  ======================================  ==========================
component           requires                                assigns
==================  ======================================  ==========================
``kg_acronyms``     sentence boundaries                      ``doc.spans["kg_short"]``, ``["kg_long"]``
``kg_vocabulary``   tokens                                   ``doc.spans["kg_vocabulary"]``
``kg_candidates``   the dependency parse (noun chunks)       ``doc.spans["kg_candidates"]``
``kg_entities``     the three above                          ``doc.spans["kg_entities"]``, ``["kg_proposed"]``
==================  ======================================  ==========================

:mod:`~kg.extract.components.acronym_finder`, :mod:`~kg.extract.components.vocabulary_matcher`,
:mod:`~kg.extract.components.candidate_finder` and :mod:`~kg.extract.components.entity_resolver` hold
one each; :mod:`~kg.extract.components.spans` what they share (words written together, overlaps).
"""

from kg.extract.components.acronym_finder import AcronymFinder
from kg.extract.components.candidate_finder import CandidateFinder
from kg.extract.components.entity_resolver import EntityResolver
from kg.extract.components.vocabulary_matcher import VocabularyMatcher

__all__ = ["AcronymFinder", "CandidateFinder", "EntityResolver", "VocabularyMatcher"]
