"""Read abstracts from source files into :class:`Document` records.

A source is a ``.txt`` file (abstracts separated by blank lines, an optional
leading ``Daily Papers`` line), a ``.jsonl`` file (one object per line with
``text`` or ``abstract``, as in the arXiv metadata snapshot), or a ``.csv`` /
``.tsv`` file (a header row naming the same fields), or a folder of them.

Everything is streamed: files are read line by line in binary and decoded one
line at a time, so a multi-gigabyte file is read in constant memory and a
decoding error is reported with its line. Every record is yielded, duplicates
included; the caller deduplicates by :attr:`Document.id` and so can keep every
place an abstract was seen.

Examples
--------
>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "papers.txt").write_text(
...     "Daily Papers\\n\\nWe study grokking.\\n\\nWe propose LoRA.\\n")
>>> docs = list(read_documents([folder]))
>>> [(d.text, d.source.endswith("papers.txt:3")) for d in docs][0]
('We study grokking.', True)
>>> docs[1].id == document_id("We propose LoRA.")
True
"""
from __future__ import annotations

import codecs
import csv
import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import BinaryIO, Union

from kg.errors import InputError

__all__ = ["SOURCE_SUFFIXES", "Document", "document_id", "iter_source_files", "read_documents"]

SOURCE_SUFFIXES = (".txt", ".jsonl", ".csv", ".tsv")

PathLike = Union[str, "os.PathLike[str]"]
ErrorHandler = Callable[[InputError], object]

_EXPECTED = ".txt, .jsonl, .csv or .tsv"
_DAILY_PAPERS = "Daily Papers"
_SNIFF_BYTES = 8192
_EMPTY = "empty file, no abstracts"
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
        Read-only; keys among ``authors`` (tuple of str), ``year`` (int), ``date``,
        ``url`` (str) and ``categories`` (tuple of str).

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


def iter_source_files(paths: PathLike | Iterable[PathLike]) -> Iterator[Path]:
    """Yield the source files named by ``paths``, expanding folders.

    Folders are walked recursively in sorted name order; inside them only
    ``.txt``, ``.jsonl``, ``.csv`` and ``.tsv`` files are kept, and hidden
    files and folders (name starting with ``.``) are skipped. A file named
    explicitly must have one of those extensions.

    Parameters
    ----------
    paths : path or iterable of paths
        Files and folders, in the order to read them.

    Yields
    ------
    pathlib.Path
        Each source file, as the given path or the given folder joined with
        the file's path inside it.

    Raises
    ------
    kg.errors.InputError
        A path does not exist, a file has another extension, or a folder holds
        no source file.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ["b.jsonl", "a/z.csv", "a.txt", "notes.md", ".hidden.txt"]:
    ...     (folder / name).parent.mkdir(exist_ok=True)
    ...     _ = (folder / name).write_text("x")
    >>> [p.relative_to(folder).as_posix() for p in iter_source_files([folder])]
    ['a/z.csv', 'a.txt', 'b.jsonl']
    >>> list(iter_source_files([folder / "notes.md"]))
    Traceback (most recent call last):
    ...
    kg.errors.InputError: ...notes.md: unsupported source type '.md' (expected .txt, .jsonl, .csv or .tsv)
    """
    for given in _as_path_list(paths):
        yield from _expand(given)


def read_documents(
    paths: PathLike | Iterable[PathLike],
    *,
    on_error: ErrorHandler | None = None,
) -> Iterator[Document]:
    """Stream every document from the given files and folders.

    Parameters
    ----------
    paths : path or iterable of paths
        Files and folders, as for :func:`iter_source_files`.
    on_error : callable, optional
        Called with each :class:`~kg.errors.InputError` instead of raising it.
        Reading then goes on with the next record, or with the next file when
        the whole file is at fault (missing, binary, not UTF-8, empty, no text
        column). If it raises, that exception ends the reading.

    Yields
    ------
    Document
        Every record, duplicates included, in file order.

    Raises
    ------
    kg.errors.InputError
        The first bad file or record, when ``on_error`` is None.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.jsonl"
    >>> _ = path.write_text('{"id": 7, "abstract": "We propose LoRA."}\\n[1]\\n')
    >>> errors = []
    >>> [d.id for d in read_documents([path], on_error=errors.append)]
    ['7']
    >>> errors[0].line, errors[0].message
    (2, 'expected a JSON object, got array')
    """

    def report(err: InputError) -> None:
        if on_error is None:
            raise err
        on_error(err)

    for given in _as_path_list(paths):
        try:
            files = list(_expand(given))
        except InputError as err:
            report(err)
            continue
        for path in files:
            records = _read_file(path)
            try:
                while True:
                    # on_error is called outside the try so an InputError it raises is not re-reported.
                    try:
                        item = next(records)
                    except StopIteration:
                        break
                    except InputError as err:  # file-level: skip the rest of the file
                        report(err)
                        break
                    if isinstance(item, InputError):
                        report(item)
                    else:
                        yield item
            finally:
                records.close()  # close the file now, also when the caller stops early


# --- finding files ---------------------------------------------------------------------------


def _as_path_list(paths: PathLike | Iterable[PathLike]) -> list[PathLike]:
    # A lone string is a path, not an iterable of one-character paths.
    if isinstance(paths, (str, os.PathLike)):
        return [paths]
    return list(paths)


def _expand(given: PathLike) -> Iterator[Path]:
    given = os.fspath(given)
    path = Path(given)
    if path.is_dir():
        found = False
        for child in _walk(path, set()):
            found = True
            yield child
        if not found:
            raise InputError(given, f"no source files ({_EXPECTED}) in folder")
    elif path.exists():
        if path.suffix.lower() not in SOURCE_SUFFIXES:
            kind = f"'{path.suffix}'" if path.suffix else "(no extension)"
            raise InputError(given, f"unsupported source type {kind} (expected {_EXPECTED})")
        yield path
    else:
        raise InputError(given, "no such file or directory")


def _walk(folder: Path, seen: set[str]) -> Iterator[Path]:
    real = os.path.realpath(folder)
    if real in seen:  # a symlink loop
        return
    seen.add(real)
    try:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries)
    except OSError as err:
        raise InputError(folder, f"cannot list folder: {err.strerror or err}") from None
    for name in names:
        if name.startswith("."):
            continue
        child = folder / name
        if child.is_dir():
            yield from _walk(child, seen)
        elif child.suffix.lower() in SOURCE_SUFFIXES and child.is_file():
            yield child


# --- reading one file ------------------------------------------------------------------------

# A record-level problem is yielded (reading goes on); a file-level one is raised.
_Item = Union[Document, InputError]


def _read_file(path: Path) -> Iterator[_Item]:
    try:
        handle = open(path, "rb")
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    with handle:
        _check_head(handle, path)
        lines = _decoded_lines(handle, path)
        suffix = path.suffix.lower()
        if suffix == ".txt":
            yield from _read_txt(lines, path)
        elif suffix == ".jsonl":
            yield from _read_jsonl(lines, path)
        else:
            yield from _read_table(lines, path, delimiter="\t" if suffix == ".tsv" else ",")


def _check_head(handle: BinaryIO, path: Path) -> None:
    head = handle.read(_SNIFF_BYTES)
    handle.seek(0)
    if not head:
        raise InputError(path, _EMPTY)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputError(path, "not UTF-8 text (UTF-16 byte order mark); save it as UTF-8")
    if b"\0" in head:
        raise InputError(path, "binary file, not text")


def _decoded_lines(handle: BinaryIO, path: Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, text without line ending)``; raise at a NUL or undecodable byte."""
    # Splitting bytes on b"\n" is safe for UTF-8: 0x0A never occurs inside a multi-byte sequence.
    for number, raw in enumerate(handle, start=1):
        if b"\0" in raw:  # the head check only sees the first 8 KiB
            raise InputError(path, "binary file, not text", line=number)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            bad = raw[err.start]
            raise InputError(path, f"not UTF-8 text (invalid byte 0x{bad:02x})", line=number) from None
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]
        if text.endswith("\n"):
            text = text[:-2] if text.endswith("\r\n") else text[:-1]
        yield number, text


def _read_txt(lines: Iterator[tuple[int, str]], path: Path) -> Iterator[_Item]:
    paragraph: list[str] = []
    start = 0
    seen_content = False
    produced = False
    for number, line in lines:
        if not line.strip():
            if paragraph:
                produced = True
                yield _txt_document(paragraph, path, start)
                paragraph = []
            continue
        if not seen_content:
            seen_content = True
            if line.strip() == _DAILY_PAPERS:  # the page header of a Daily Papers export
                continue
        if not paragraph:
            start = number
        paragraph.append(line)
    if paragraph:
        produced = True
        yield _txt_document(paragraph, path, start)
    if not produced:
        raise InputError(path, _EMPTY)


def _txt_document(paragraph: list[str], path: Path, start: int) -> Document:
    text = "\n".join(paragraph).strip()
    return Document(id=document_id(text), text=text, source=f"{path}:{start}")


def _read_jsonl(lines: Iterator[tuple[int, str]], path: Path) -> Iterator[_Item]:
    seen_content = False
    for number, line in lines:
        if not line.strip():
            continue
        seen_content = True
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            yield InputError(path, f"malformed JSON: {err.msg} (column {err.colno})", line=number)
            continue
        if not isinstance(record, dict):
            yield InputError(path, f"expected a JSON object, got {_json_type(record)}", line=number)
            continue
        try:
            yield _make_document(record, path, number)
        except InputError as err:
            yield err
    if not seen_content:
        raise InputError(path, _EMPTY)


def _read_table(lines: Iterator[tuple[int, str]], path: Path, *, delimiter: str) -> Iterator[_Item]:
    # csv wants the line endings back to find quoted multi-line fields; "\n" keeps them uniform.
    reader = csv.reader((text + "\n" for _, text in lines), delimiter=delimiter)
    kind = "CSV" if delimiter == "," else "TSV"
    header: list[str] | None = None
    columns: dict[str, int] = {}
    text_key = ""
    rows = 0
    while True:
        start = reader.line_num + 1  # the physical line where the next record begins
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as err:
            raise InputError(path, f"malformed {kind}: {err}", line=start) from None
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = [cell.strip() for cell in row]
            for index, name in enumerate(header):
                columns.setdefault(name.lower(), index)
            text_key = "text" if "text" in columns else "abstract"
            if text_key not in columns:
                shown = ", ".join(repr(name) for name in header)
                raise InputError(path, f"no 'text' or 'abstract' column (columns: {shown})", line=start)
            continue
        rows += 1
        if len(row) > len(header):
            yield InputError(path, f"expected {len(header)} fields, found {len(row)}", line=start)
            continue
        record = {
            name: row[index] for name, index in columns.items() if index < len(row) and row[index].strip()
        }
        record.setdefault(text_key, "")  # a short or blank text cell is reported as empty text
        try:
            yield _make_document(record, path, start)
        except InputError as err:
            yield err
    if header is None:
        raise InputError(path, _EMPTY)
    if not rows:
        raise InputError(path, "no abstracts, only a header row")


# --- fields ----------------------------------------------------------------------------------

_AUTHOR_SEPARATOR = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
_YEAR = re.compile(r"(\d{1,4})(?:\.0*)?")


def _make_document(record: Mapping[str, object], path: Path, line: int) -> Document:
    """Build a document from a JSON object or a table row (whose values are all strings)."""

    def fail(message: str) -> InputError:
        return InputError(path, message, line=line)

    key = "text" if record.get("text") is not None else "abstract"
    if key not in record:
        raise fail("no 'text' or 'abstract' field")
    text = record[key]
    if not isinstance(text, str):
        raise fail(f"'{key}' must be a string, got {_json_type(text)}")
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
        raise fail(f"'id' must be a string or a number, got {_json_type(value)}")
    return str(value).strip() or None


def _optional_text(record: Mapping[str, object], key: str, fail: Callable[[str], InputError]) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise fail(f"'{key}' must be a string, got {_json_type(value)}")
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
        raise fail(f"'{key}' must be a string or a list of strings, got {_json_type(value)}")
    names = []
    for item in items:
        if not isinstance(item, str):
            raise fail(f"'{key}' must be a string or a list of strings, got a list with {_json_type(item)}")
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


def _json_type(value: object) -> str:
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
