"""Where statements end: SPARQL up to a top-level ``;``, dot-commands up to the newline.

The rules, shared by the interactive prompt and piped input:

* A **dot-command** is a line whose first character (after blank space, at the start of a
  statement) is ``.`` followed by a letter; it ends at the end of its line. A trailing
  ``;`` is allowed and dropped.
* A **SPARQL statement** runs up to a ``;`` outside strings, IRIs, comments and brackets,
  which is normally the last thing on its line. A ``;`` inside ``{ }`` is SPARQL's own
  predicate-list separator and does not end anything, so ``?e a kg:Method ;`` at the end
  of a line inside the query continues it. The ``;`` itself is not part of the statement.
* Blank space and ``#`` comment lines between statements are skipped.

Examples
--------
>>> done, rest = split('''SELECT ?l WHERE {
...   ?e a kg:Method ;
...      rdfs:label ?l }
... LIMIT 3;
... .stats
... SELECT''')
>>> [(s.line, s.text.splitlines()[0]) for s in done]
[(1, 'SELECT ?l WHERE {'), (5, '.stats')]
>>> rest
'SELECT'
>>> is_complete("SELECT * { ?s ?p ?o ;"), is_complete("SELECT * { ?s ?p ?o } ;"), is_complete(".help")
(False, True, True)
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from shell.input.lexer import CLOSERS, OPENERS, tokenize

__all__ = ["Rewritten", "Statement", "StatementReader", "is_complete", "split", "to_sparql"]

_BLANK = re.compile(r"(?:\s+|#[^\n]*)*")
_COMMAND_START = re.compile(r"\.[^\W\d_]")


@dataclass(frozen=True)
class Statement:
    """One statement to run: a SPARQL query or a dot-command.

    Attributes
    ----------
    text : str
        The statement as typed, without its terminating ``;`` and surrounding blank space.
    line : int
        The line of the input (1-based) on which the statement starts.
    """

    text: str
    line: int = 1

    @property
    def is_command(self) -> bool:
        """True for a dot-command.

        Examples
        --------
        >>> Statement(".path CLIP ARP").is_command, Statement("ASK {}").is_command
        (True, False)
        """
        return bool(_COMMAND_START.match(self.text))


def split(text: str) -> tuple[list[Statement], str]:
    """Split ``text`` into the statements it completes and the unfinished rest.

    Parameters
    ----------
    text : str
        What was typed or read so far.

    Returns
    -------
    statements : list of Statement
        Complete statements, in order; a dot-command counts as complete at the end of the
        text even without a newline.
    rest : str
        The beginning of a statement not yet ended by ``;`` (``""`` if none).

    Examples
    --------
    >>> split("SELECT (GROUP_CONCAT(?x; SEPARATOR=',') AS ?all) { ?s ?p ?x }; ASK {};")[0]
    ... # doctest: +NORMALIZE_WHITESPACE
    [Statement(text="SELECT (GROUP_CONCAT(?x; SEPARATOR=',') AS ?all) { ?s ?p ?x }", line=1),
     Statement(text='ASK {}', line=1)]
    >>> split("# just a comment\\n")
    ([], '')
    """
    statements, rest_start = _split(text)
    return statements, text[rest_start:]


def is_complete(text: str) -> bool:
    """True when pressing Enter after ``text`` should run it rather than open a new line.

    That is, when nothing but blank space and comments follows the last complete
    statement.

    Examples
    --------
    >>> is_complete(""), is_complete("SELECT * WHERE { ?s ?p ?o }"), is_complete("ASK { } ; # yes")
    (True, False, True)
    """
    return not split(text)[1]


def _split(text: str) -> tuple[list[Statement], int]:
    statements: list[Statement] = []
    pos = 0
    while True:
        pos = _BLANK.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text):
            return statements, len(text)
        line = text.count("\n", 0, pos) + 1
        if _COMMAND_START.match(text, pos):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            command = text[pos:end].strip()
            while command.endswith(";"):
                command = command[:-1].rstrip()
            statements.append(Statement(command, line))
            pos = end
            continue
        end = _statement_end(text, pos)
        if end is None:
            return statements, pos
        statements.append(Statement(text[pos:end].rstrip(), line))
        pos = end + 1


def _statement_end(text: str, start: int) -> int | None:
    """Offset of the ``;`` that ends the SPARQL statement starting at ``start``, if any."""
    depth = 0
    for token in tokenize(text, start):
        if token.kind != "punct":
            continue
        if token.text in OPENERS:
            depth += 1
        elif token.text in CLOSERS:
            depth -= 1
        elif token.text == ";" and depth <= 0:
            return token.start
    return None


class StatementReader:
    """Statements from input that arrives a line at a time (piped input).

    Examples
    --------
    >>> reader = StatementReader()
    >>> reader.feed("SELECT ?s\\n"), reader.feed("WHERE { ?s ?p ?o } ;\\n")
    ([], [Statement(text='SELECT ?s\\nWHERE { ?s ?p ?o }', line=1)])
    >>> reader.feed(".stats\\n"), reader.feed("ASK { ?s ?p ?o }\\n"), reader.finish()
    ([Statement(text='.stats', line=3)], [], [Statement(text='ASK { ?s ?p ?o }', line=4)])
    """

    def __init__(self) -> None:
        self._pending = ""
        self._line = 1  # the input line on which self._pending starts

    def feed(self, chunk: str) -> list[Statement]:
        """Add text; return the statements it completes."""
        self._pending += chunk
        if not chunk.endswith("\n"):
            return []  # wait for the end of the line (a dot-command ends there)
        statements, rest_start = _split(self._pending)
        offset = self._line - 1
        statements = [Statement(s.text, s.line + offset) for s in statements]
        self._line += self._pending.count("\n", 0, rest_start)
        self._pending = self._pending[rest_start:]
        return statements

    def finish(self) -> list[Statement]:
        """At the end of input: the statements left, the last one even without its ``;``."""
        statements, rest_start = _split(self._pending)
        offset = self._line - 1
        out = [Statement(s.text, s.line + offset) for s in statements]
        rest = self._pending[rest_start:].strip()
        if rest:
            out.append(Statement(rest, self._line + self._pending.count("\n", 0, rest_start)))
        self._pending = ""
        return out


@dataclass(frozen=True)
class Rewritten:
    """SPARQL as sent to the store, and how to map its columns back to the text typed.

    Attributes
    ----------
    text : str
        The query with ``kgr:`` names made legal SPARQL.
    inserted : tuple of int
        Offsets in the typed text before which a ``\\`` was inserted, ascending.
    original : str
        The text as typed.
    """

    text: str
    inserted: tuple[int, ...]
    original: str

    def original_position(self, line: int, column: int) -> tuple[int, int]:
        """Map a 1-based (line, column) in :attr:`text` to the same place in :attr:`original`.

        Examples
        --------
        >>> r = to_sparql("ASK { kgr:entity/a kgr:x/y }")
        >>> r.text
        'ASK { kgr:entity\\\\/a kgr:x\\\\/y }'
        >>> r.original_position(1, 27)  # the '}' after two inserted backslashes
        (1, 25)
        """
        starts = [0] + [i + 1 for i, ch in enumerate(self.text) if ch == "\n"]
        offset = starts[min(line, len(starts)) - 1] + column - 1
        # The k-th insertion (0-based) sits at inserted[k] + k in the rewritten text.
        before = sum(1 for k, at in enumerate(self.inserted) if at + k < offset)
        original = offset - before
        original_starts = [0] + [i + 1 for i, ch in enumerate(self.original) if ch == "\n"]
        index = bisect.bisect_right(original_starts, original) - 1
        return index + 1, original - original_starts[index] + 1


def to_sparql(text: str) -> Rewritten:
    """Make the shell's ``kgr:entity/clip`` names legal SPARQL (``kgr:entity\\/clip``).

    Tables show data IRIs as ``kgr:entity/clip``; SPARQL does not allow ``/`` or ``~``
    unescaped in a prefixed name, so the shell escapes them in ``kgr:`` names before
    sending a query. Nothing else changes; ``/`` elsewhere (property paths, division)
    is left alone.

    Examples
    --------
    >>> to_sparql("SELECT * { kgr:entity/clip ?p ?o . ?x kg:mentions/rdfs:label ?l }").text
    'SELECT * { kgr:entity\\\\/clip ?p ?o . ?x kg:mentions/rdfs:label ?l }'
    >>> to_sparql(r"ASK { kgr:entity\\/clip ?p ?o }").inserted  # already escaped
    ()
    """
    inserted: list[int] = []
    for token in tokenize(text):
        if token.kind != "pname" or not token.text.startswith("kgr:"):
            continue
        i = token.start + 4
        while i < token.end:
            if text[i] == "\\":
                i += 2
                continue
            if text[i] in "/~":
                inserted.append(i)
            i += 1
    if not inserted:
        return Rewritten(text, (), text)
    parts, last = [], 0
    for at in inserted:
        parts.append(text[last:at])
        parts.append("\\")
        last = at
    parts.append(text[last:])
    return Rewritten("".join(parts), tuple(inserted), text)
