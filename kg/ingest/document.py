"""The :class:`Document` record every reader produces, and the content id of an abstract."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["Document", "document_id", "xml_safe"]

_EMPTY_MAPPING: Mapping[str, object] = MappingProxyType({})
# The characters XML 1.0 cannot carry (its production Char): C0 controls but tab, newline and carriage
# return; lone surrogates; U+FFFE and U+FFFF. RDF/XML, and many stores, cannot hold them either.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """``text`` with each character that XML 1.0 cannot carry replaced by a space, one for one, so that
    character offsets into the text still hold.

    Examples
    --------
    >>> xml_safe("BERT\\u0000 is used \\u0007 on SQuAD.")
    'BERT  is used   on SQuAD.'
    >>> xml_safe("tab\\tlone\\ud800surrogate\\uffffé")
    'tab\\tlone surrogate é'
    """
    return _NOT_XML.sub(" ", text) if _NOT_XML.search(text) else text


@dataclass(frozen=True)
class Document:
    """One abstract as read from a source.

    Every string it holds is :func:`xml_safe`: a character XML 1.0 cannot carry (a control character,
    a lone surrogate) is a space, so that every export stays well-formed.

    Parameters
    ----------
    id : str
        The source's own id (``.jsonl`` / ``.csv``) or :func:`document_id` of the text.
    text : str
        The abstract, stripped at both ends and otherwise exactly as in the file
        (line endings read as ``"\\n"``); mention offsets index into it.
    source : str
        ``"path:line"``: the path as the caller gave it, the 1-based line where the record starts.
    title : str or None
        The title, with whitespace runs collapsed, when the source has one.
    meta : Mapping[str, object]
        Read-only; keys among ``authors`` (tuple of str), ``year`` (int), ``date``
        (str, ``YYYY-MM-DD`` when the source's form was understood), ``url`` (str) and ``categories``
        (tuple of str).

    Examples
    --------
    >>> doc = Document("x1", "We study grokking.", "a.jsonl:1", meta={"year": 2022})
    >>> doc.meta["year"], doc.title
    (2022, None)
    >>> doc.meta["year"] = 2023
    Traceback (most recent call last):
    ...
    TypeError: 'mappingproxy' object does not support item assignment
    >>> import pickle
    >>> pickle.loads(pickle.dumps(doc)) == doc
    True
    """

    id: str
    text: str
    source: str
    title: str | None = None
    # Excluded from the hash (a mapping is unhashable) but still compared.
    meta: Mapping[str, object] = field(default_factory=lambda: _EMPTY_MAPPING, hash=False)

    def __post_init__(self) -> None:
        # The readers hand over safe text already; documents made elsewhere (the API, tests) are made so here.
        for name in ("id", "text", "source", "title"):
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, xml_safe(value))
        # Copy into a read-only view so the caller's dict cannot change the document later.
        if self.meta is not _EMPTY_MAPPING:
            frozen = (
                MappingProxyType({key: _safe_value(value) for key, value in self.meta.items()})
                if self.meta
                else _EMPTY_MAPPING
            )
            object.__setattr__(self, "meta", frozen)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # mappingproxy cannot be pickled; documents must cross process boundaries (worker pools).
        return (Document, (self.id, self.text, self.source, self.title, dict(self.meta)))


def _safe_value(value: object) -> object:
    if isinstance(value, str):
        return xml_safe(value)
    if isinstance(value, tuple):
        return tuple(xml_safe(item) if isinstance(item, str) else item for item in value)
    return value


def document_id(text: str) -> str:
    """Return the stable content id of an abstract.

    The SHA-1 hex digest of the text as :class:`Document` keeps it (:func:`xml_safe`), after Unicode
    NFC normalisation, with every run of whitespace collapsed to one space and the ends stripped, so the same
    abstract gets the same id whatever file, wrapping or encoding form it came in.

    Parameters
    ----------
    text : str
        The abstract.

    Returns
    -------
    str
        40 lowercase hex digits.

    Examples
    --------
    >>> import hashlib
    >>> document_id("We study grokking.") == hashlib.sha1(b"We study grokking.").hexdigest()
    True
    >>> document_id("  We study\\n grokking. ") == document_id("We study grokking.")
    True
    >>> document_id("caf\\u0065\\u0301") == document_id("caf\\u00e9")
    True
    """
    normal = " ".join(unicodedata.normalize("NFC", xml_safe(text)).split())
    return hashlib.sha1(normal.encode("utf-8")).hexdigest()
