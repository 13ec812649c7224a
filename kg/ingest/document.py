"""The :class:`Document` record every reader produces, and the content id of an abstract."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["Document", "document_id"]

_EMPTY_MAPPING: Mapping[str, object] = MappingProxyType({})


@dataclass(frozen=True)
class Document:
    """One abstract as read from a source.

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
        # Copy into a read-only view so the caller's dict cannot change the document later.
        if self.meta is not _EMPTY_MAPPING:
            frozen = MappingProxyType(dict(self.meta)) if self.meta else _EMPTY_MAPPING
            object.__setattr__(self, "meta", frozen)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # mappingproxy cannot be pickled; documents must cross process boundaries (worker pools).
        return (Document, (self.id, self.text, self.source, self.title, dict(self.meta)))


def document_id(text: str) -> str:
    """Return the stable content id of an abstract.

    The SHA-1 hex digest of the text after Unicode NFC normalisation, with every
    run of whitespace collapsed to one space and the ends stripped, so the same
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
    normal = " ".join(unicodedata.normalize("NFC", text).split())
    return hashlib.sha1(normal.encode("utf-8")).hexdigest()
