"""A record's fields (a JSON object or a table row) as a :class:`~kg.ingest.document.Document`.

Every format but ``.txt`` names its fields; they are read and checked here, once for all of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

from kg.errors import InputError
from kg.ingest.document import Document, document_id

__all__ = ["document_from_record", "json_type"]

_AUTHOR_SEPARATOR = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
_YEAR = re.compile(r"(\d{1,4})(?:\.0*)?")


def document_from_record(record: Mapping[str, object], path: Path, line: int) -> Document:
    """Build a document from a JSON object or a table row (whose values are all strings)."""

    def fail(message: str) -> InputError:
        return InputError(path, message, line=line)

    key = "text" if record.get("text") is not None else "abstract"
    if key not in record:
        raise fail("no 'text' or 'abstract' field")
    text = record[key]
    if not isinstance(text, str):
        raise fail(f"'{key}' must be a string, got {json_type(text)}")
    text = text.strip()
    if not text:
        raise fail(f"empty '{key}'")

    doc_id = _optional_id(record.get("id"), fail)
    title = _optional_text(record, "title", fail)
    meta: dict[str, object] = {}
    authors = _names(record, "authors", fail, split=_split_authors)
    if authors:
        meta["authors"] = authors
    year = _year(record.get("year"), fail)
    date = _optional_text(record, "date", fail)
    if year is None and date and date[:4].isdigit():
        year = int(date[:4])  # so every dated document can be grouped by year
    if year is not None:
        meta["year"] = year
    if date:
        meta["date"] = date
    url = _optional_text(record, "url", fail)
    if url:
        meta["url"] = url
    categories = _names(record, "categories", fail, split=str.split)
    if categories:
        meta["categories"] = categories
    return Document(
        id=doc_id or document_id(text),
        text=text,
        source=f"{path}:{line}",
        title=title,
        meta=meta,
    )


def _optional_id(value: object, fail: Callable[[str], InputError]) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise fail(f"'id' must be a string or a number, got {json_type(value)}")
    return str(value).strip() or None


def _optional_text(record: Mapping[str, object], key: str, fail: Callable[[str], InputError]) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise fail(f"'{key}' must be a string, got {json_type(value)}")
    # Titles in the arXiv snapshot are hard-wrapped; metadata is not offset-indexed, so tidy it.
    return " ".join(value.split()) or None


def _names(
    record: Mapping[str, object],
    key: str,
    fail: Callable[[str], InputError],
    *,
    split: Callable[[str], list[str]],
) -> tuple[str, ...]:
    value = record.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[object] = list(split(value))
    elif isinstance(value, list):
        items = value
    else:
        raise fail(f"'{key}' must be a string or a list of strings, got {json_type(value)}")
    names = []
    for item in items:
        if not isinstance(item, str):
            raise fail(f"'{key}' must be a string or a list of strings, got a list with {json_type(item)}")
        name = " ".join(item.split())
        if name:
            names.append(name)
    return tuple(names)


def _split_authors(value: str) -> list[str]:
    """Split ``"A, B and C"`` into names, leaving commas inside parentheses (affiliations) alone.

    >>> _split_authors("Y. Bengio, A. Courville (U. Montreal, Canada), and P. Vincent")
    ['Y. Bengio', 'A. Courville (U. Montreal, Canada)', 'P. Vincent']
    """
    value = " ".join(value.split())
    names: list[str] = []
    current: list[str] = []
    depth = 0
    index = 0
    while index < len(value):
        if depth == 0:
            separator = _AUTHOR_SEPARATOR.match(value, index)
            if separator:
                names.append("".join(current))
                current = []
                index = separator.end()
                continue
        char = value[index]
        if char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        current.append(char)
        index += 1
    names.append("".join(current))
    return [name.strip() for name in names if name.strip()]


def _year(value: object, fail: Callable[[str], InputError]) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        match = _YEAR.fullmatch(value.strip())
        if match:  # "2023.0" is how spreadsheets and pandas write a year column with gaps
            return int(match.group(1))
    raise fail(f"'year' must be a year number, got {value!r}")


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
