"""One reader per source format, looked up by file suffix in :data:`READERS`.

Files are read line by line in binary and decoded one line at a time, so a multi-gigabyte
file is read in constant memory and a decoding error is reported with its line. A character that
XML 1.0 cannot carry (a control character, a lone surrogate written as a JSON escape) is read as a
space (:func:`~kg.ingest.document.xml_safe`), one for one, so offsets into the text still hold. A reader
takes those ``(line number, text)`` pairs and yields a :class:`~kg.ingest.document.Document`
per record, or an :class:`~kg.errors.InputError` for a bad record; a new format is one more
reader and one more row in :data:`READERS`.
"""

from __future__ import annotations

import codecs
import csv
import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from kg.errors import InputError
from kg.ingest.document import Document, document_id, xml_safe
from kg.ingest.fields import document_from_record, json_type

__all__ = ["READERS", "SOURCE_SUFFIXES", "Item", "read_file"]

# A record-level problem is yielded (reading goes on); a file-level one is raised.
Item = Document | InputError
Lines = Iterator[tuple[int, str]]
Reader = Callable[[Lines, Path], Iterator[Item]]

_DAILY_PAPERS = "Daily Papers"
_SNIFF_BYTES = 8192
_EMPTY = "empty file, no abstracts"
# csv's own limit is 128 KiB a field; an abstract may be longer (the text is capped later, not here).
_CSV_FIELD_LIMIT = 2**31 - 1


def read_file(path: Path) -> Iterator[Item]:
    """Every record of one source file, by the reader of its suffix.

    A record-level problem is yielded as an :class:`~kg.errors.InputError` (reading goes on);
    a file-level one (missing, binary, not UTF-8, empty, no text column) is raised.
    """
    try:
        handle = open(path, "rb")
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    with handle:
        _check_head(handle, path)
        lines = _decoded_lines(handle, path)
        yield from READERS[path.suffix.lower()](lines, path)


def _check_head(handle: BinaryIO, path: Path) -> None:
    head = handle.read(_SNIFF_BYTES)
    handle.seek(0)
    if not head:
        raise InputError(path, _EMPTY)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputError(path, "not UTF-8 text (UTF-16 byte order mark); save it as UTF-8")
    if b"\0" in head:
        raise InputError(path, "binary file, not text")


def _decoded_lines(handle: BinaryIO, path: Path) -> Lines:
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
        yield number, xml_safe(text)


def read_txt(lines: Lines, path: Path) -> Iterator[Item]:
    """``.txt``: abstracts separated by blank lines; a leading ``Daily Papers`` line is not one."""
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


def read_jsonl(lines: Lines, path: Path) -> Iterator[Item]:
    """``.jsonl``: one JSON object per line (see :func:`~kg.ingest.fields.document_from_record`)."""
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
        except RecursionError:
            yield InputError(path, "malformed JSON: nested too deeply", line=number)
            continue
        if not isinstance(record, dict):
            yield InputError(path, f"expected a JSON object, got {json_type(record)}", line=number)
            continue
        try:
            yield document_from_record(_xml_safe_json(record), path, number)
        except InputError as err:
            yield err
    if not seen_content:
        raise InputError(path, _EMPTY)


def _xml_safe_json(value: dict) -> dict:
    """Every string value in a parsed JSON object made :func:`xml_safe`, in place (JSON escapes such as
    ``\\u0000`` are decoded only now). A loop rather than recursion: nesting may be deep."""
    stack: list[dict | list] = [value]
    while stack:
        node = stack.pop()
        for key, item in list(node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(item, str):
                node[key] = xml_safe(item)
            elif isinstance(item, (dict, list)):
                stack.append(item)
    return value


def _read_table(lines: Lines, path: Path, *, delimiter: str) -> Iterator[Item]:
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
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
        record = {name: row[index] for name, index in columns.items() if index < len(row) and row[index].strip()}
        record.setdefault(text_key, "")  # a short or blank text cell is reported as empty text
        try:
            yield document_from_record(record, path, start)
        except InputError as err:
            yield err
    if header is None:
        raise InputError(path, _EMPTY)
    if not rows:
        raise InputError(path, "no abstracts, only a header row")


def read_csv(lines: Lines, path: Path) -> Iterator[Item]:
    """``.csv``: a header row naming the fields, then one record per row."""
    return _read_table(lines, path, delimiter=",")


def read_tsv(lines: Lines, path: Path) -> Iterator[Item]:
    """``.tsv``: as ``.csv``, separated by tabs."""
    return _read_table(lines, path, delimiter="\t")


READERS: Mapping[str, Reader] = {".txt": read_txt, ".jsonl": read_jsonl, ".csv": read_csv, ".tsv": read_tsv}
SOURCE_SUFFIXES = tuple(READERS)
