"""The default profile's extractor: a joint span and relation model learned from the project's own
annotations (``data/annotations/``: the training seed abstracts under ``GUIDELINES.md``, twice outside the held-out
tenth).

``data``         annotations -> per-sentence token spans, ``proposed`` flags and directed relation pairs
``coref``        phrases that refer to the paper's own contribution ("our method", "the proposed framework")
``model``        the numpy run-time model, the ``kg_learned`` spaCy component and its records
``calibration``  Platt (or isotonic) calibration of relation confidences
``training``     the torch training (``kg train extraction``)
"""
