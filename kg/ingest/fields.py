"""A record's fields (a JSON object or a table row) as a :class:`~kg.ingest.document.Document`.

Every format but ``.txt`` names its fields; they are read and checked here, once for all of them.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from pathlib import Path

from kg.errors import InputError
from kg.ingest.document import Document, document_id

__all__ = ["document_from_record", "json_type"]

_AUTHOR_SEPARATOR = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
_LIST_SEPARATOR = re.compile(r"\s*;\s*(?:and\s+)?")
_YEAR = re.compile(r"(\d{1,4})(?:\.0*)?")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


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
    # arXiv's own parse of the author list, when the record has one, is cleaner than the display string
    authors = _parsed_authors(record.get("authors_parsed"), fail)
    authors = authors or _names(record, "authors", fail, split=_split_authors)
    if authors:
        meta["authors"] = authors
    year = _year(record.get("year"), fail)
    date = _optional_text(record, "date", fail)
    date = _email_date(date) or date if date else _snapshot_date(record, fail)
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
    """Split ``"A, B and C"`` into names, leaving commas inside parentheses (affiliations) alone; a list
    separated by ``;`` is split there only, and its ``"Last, First"`` names are turned around.

    >>> _split_authors("Y. Bengio, A. Courville (U. Montreal, Canada), and P. Vincent")
    ['Y. Bengio', 'A. Courville (U. Montreal, Canada)', 'P. Vincent']
    >>> _split_authors("Hu, Edward J.; Shen, Yelong; and Wallis, Phillip")
    ['Edward J. Hu', 'Yelong Shen', 'Phillip Wallis']
    """
    value = " ".join(value.split())
    if ";" in value:
        return [_first_last(name) for name in _LIST_SEPARATOR.split(value.strip(" ;")) if name]
    return _top_level_split(value, _AUTHOR_SEPARATOR)


def _first_last(name: str) -> str:
    """``"Last, First"`` as ``"First Last"``; any other name (no comma, or several) as it is."""
    parts = _top_level_split(name, re.compile(r",\s*"))
    return f"{parts[1]} {parts[0]}" if len(parts) == 2 else name


def _top_level_split(value: str, separator: re.Pattern[str]) -> list[str]:
    """Split ``value`` at ``separator`` outside parentheses."""
    names: list[str] = []
    current: list[str] = []
    depth = 0
    index = 0
    while index < len(value):
        if depth == 0:
            found = separator.match(value, index)
            if found:
                names.append("".join(current))
                current = []
                index = found.end()
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


def _parsed_authors(value: object, fail: Callable[[str], InputError]) -> tuple[str, ...]:
    """The arXiv snapshot's ``authors_parsed``, ``[["Last", "First", "Suffix"], ...]``, as "First Last Suffix".

    >>> _parsed_authors([["Hu", "Edward J.", ""], ["Smith", "John", "Jr", "MIT"]], None)
    ('Edward J. Hu', 'John Smith Jr')
    """
    value = _structured(value, "authors_parsed", fail)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(item, list) and all(isinstance(part, str) for part in item) for item in value
    ):
        raise fail(f"'authors_parsed' must be a list of [last, first, suffix] lists, got {json_type(value)}")
    names = (" ".join(" ".join(item[i] for i in (1, 0, 2) if i < len(item)).split()) for item in value)
    return tuple(name for name in names if name)


def _snapshot_date(record: Mapping[str, object], fail: Callable[[str], InputError]) -> str | None:
    """An arXiv snapshot record's date as YYYY-MM-DD: that of its first version
    (``versions[0].created``, e.g. ``"Mon, 2 Apr 2007 19:18:42 GMT"``), else its ``update_date``.

    >>> _snapshot_date({"versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}]}, None)
    '2007-04-02'
    """
    versions = _structured(record.get("versions"), "versions", fail)
    if versions is not None:
        if not isinstance(versions, list) or not all(isinstance(v, dict) for v in versions):
            raise fail(f"'versions' must be a list of objects, got {json_type(versions)}")
        created = versions[0].get("created") if versions else None
        if created is not None:
            date = _email_date(str(created))
            if date is None:
                raise fail(f"'versions[0].created' is not a date: {created!r}")
            return date
    updated = _optional_text(record, "update_date", fail)
    if updated is not None and not _ISO_DATE.fullmatch(updated):
        raise fail(f"'update_date' must be a date as YYYY-MM-DD, got {updated!r}")
    return updated


def _email_date(value: str) -> str | None:
    """An RFC 2822 date (as arXiv writes them) as YYYY-MM-DD, the day where it was written; else None.

    >>> _email_date("Tue, 3 Apr 2007 23:59:59 -0800"), _email_date("2007-04-03")
    ('2007-04-03', None)
    """
    try:
        return parsedate_to_datetime(value).date().isoformat()
    except (TypeError, ValueError, IndexError):
        return None


def _structured(value: object, key: str, fail: Callable[[str], InputError]) -> object:
    """A snapshot field as a table cell holds it, a list written as JSON or as Python (pandas' ``to_csv``),
    read back into a list; any other value as it is."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise fail(f"'{key}' must be a list, got a string that is not one") from None


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
