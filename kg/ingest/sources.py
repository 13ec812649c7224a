"""Walking SOURCE files and folders, and reading every document in them.

Every record is yielded, duplicates included; the caller deduplicates by
:attr:`~kg.ingest.document.Document.id` and so can keep every place an abstract was seen.
A bad file or record is raised, or handed to ``on_error`` so that reading goes on.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Union

from kg.errors import InputError
from kg.ingest.document import Document
from kg.ingest.readers import SOURCE_SUFFIXES, read_file

__all__ = ["ErrorHandler", "PathLike", "iter_source_files", "read_documents"]

PathLike = Union[str, "os.PathLike[str]"]
ErrorHandler = Callable[[InputError], object]

# ".txt, .jsonl, .csv or .tsv"
_EXPECTED = f"{', '.join(SOURCE_SUFFIXES[:-1])} or {SOURCE_SUFFIXES[-1]}"


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
            records = read_file(path)
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
