"""Showing results and errors: the one formatter, a pager for long output, a caret under errors.

Results are rendered by :func:`kg.query.render` in the session's format and followed by
:func:`kg.query.summary_line` (the row count, the time when ``.timing`` is on, and a note
when the result was cut at ``.limit``).

Interactively, table cells are cut (ending in ``…``) so that rows fit the terminal's width
where they can, and a result taller than the terminal goes through a pager (``$PAGER``,
else ``less -SRXF``). With piped input, results go to stdout unchanged and everything else
(summary lines, confirmations such as ``format: csv``, errors) to stderr, so that stdout
holds only data.

Examples
--------
>>> tidy_message('expected one of "$", "(", IF, The SELECT contains a variable that is unbound, [\\'0\\' ..= \\'9\\']')
'The SELECT contains a variable that is unbound'
>>> tidy_message('expected one of ",", ".", ";", "{", "}", "~", [_]')
'expected one of ",", ".", ";", "{", "}", "~"'
>>> print(caret_lines("SELECT * WHERE { ?s ?p", 1, 23))
LINE 1: SELECT * WHERE { ?s ?p
                              ^
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, TextIO

from kg.errors import KGError, QuerySyntaxError
from kg.query import render, summary_line

if TYPE_CHECKING:
    from kg.query.result import Result
    from shell.input.statements import Statement
    from shell.session import Session

DEFAULT_PAGER = "less -SRXF"
MAX_EXPECTED = 8


class Console:
    """Where one shell session writes.

    Parameters
    ----------
    out, err : text streams
        Results, and everything else.
    interactive : bool
        A person at a terminal: page long results, cut wide cells, keep confirmations and
        summaries on ``out``. Otherwise (piped input) write results unchanged to ``out``
        and the rest to ``err``.
    """

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None, *, interactive: bool) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.interactive = interactive
        self._results = 0
        self._last_tabular = False

    # -- results

    def show(self, result: Result, session: Session) -> None:
        """Write ``result`` in the session's format, then its summary line."""
        if not session.timing:
            result = dataclasses.replace(result, elapsed=None)
        footer = summary_line(result)
        if result.truncated and self.interactive and result.limit == session.limit:
            footer += "; .limit N to change, .limit 0 for all"
        if result.kind == "message":
            if result.message:
                self._note(result.message)
            return
        text = self._render(result, session.fmt)
        if self.interactive:
            self._page(text)
            if footer:
                self._write(self.out, footer + "\n")
            return
        tabular = session.fmt == "table" and result.kind in ("select", "graph")
        if self._results and session.fmt == "table" and (tabular or self._last_tabular):  # space out tables
            self._write(self.out, "\n")
        self._results += 1
        self._last_tabular = tabular
        self._write(self.out, text)
        if footer:
            self._write(self.err, footer + "\n")

    def note(self, text: str) -> None:
        """A remark (not data): "cancelled", the banner."""
        self._note(text)

    def _note(self, text: str) -> None:
        stream = self.out if self.interactive else self.err
        self._write(stream, text if text.endswith("\n") else text + "\n")

    # -- errors

    def error(self, err: KGError, statement: Statement | None = None) -> None:
        """Report a user's mistake in one line (plus the offending line and a caret for SPARQL)."""
        where = "" if self.interactive or statement is None else f"stdin:{_input_line(err, statement)}: "
        lines = [f"{where}{describe_error(err)}"]
        if isinstance(err, QuerySyntaxError) and err.line and statement is not None:
            source = statement.text.splitlines()
            if 0 < err.line <= len(source):
                lines.append(caret_lines(source[err.line - 1], err.line, err.column or 1, width=self._width()))
        text = "\n".join(lines)
        if self.interactive and _is_tty(self.err):
            first, _, rest = text.partition("\n")
            text = f"\x1b[31m{first}\x1b[0m" + (f"\n{rest}" if rest else "")
        self._write(self.err, text + "\n")

    # -- helpers

    def _width(self) -> int:
        return shutil.get_terminal_size((100, 24)).columns

    def _render(self, result: Result, fmt: str) -> str:
        """Render; on a terminal, cut table cells so that rows fit its width where possible."""
        on_terminal = self.interactive and _is_tty(self.out)
        return render(result, fmt, width=self._width() if on_terminal else None)

    def _page(self, text: str) -> None:
        too_tall = text.count("\n") > shutil.get_terminal_size((100, 24)).lines - 2
        command = os.environ.get("PAGER") or (DEFAULT_PAGER if shutil.which("less") else "")
        if not (too_tall and command and _is_tty(self.out)):
            self._write(self.out, text)
            return
        env = dict(os.environ)
        env.setdefault("LESS", "-SRXF")
        try:
            proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, env=env)
        except OSError:
            self._write(self.out, text)
            return
        try:
            assert proc.stdin is not None
            proc.stdin.write(text.encode("utf-8", "replace"))
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass  # the reader quit early
        while True:
            try:
                proc.wait()
                break
            except KeyboardInterrupt:
                continue  # the pager handles Ctrl-C itself

    @staticmethod
    def _write(stream: TextIO, text: str) -> None:
        stream.write(text)
        stream.flush()


def describe_error(err: KGError) -> str:
    """One line for an error; a syntax error's message is shortened to what helps.

    Examples
    --------
    >>> describe_error(QuerySyntaxError('expected one of WHERE, "{"', line=1, column=10))
    'SPARQL syntax error at line 1, column 10: expected one of WHERE, "{"'
    """
    if isinstance(err, QuerySyntaxError):
        where = f" at line {err.line}, column {err.column}" if err.line else ""
        return f"SPARQL syntax error{where}: {tidy_message(err.message)}"
    return f"error: {err}"


def tidy_message(message: str) -> str:
    """Shorten Oxigraph's "expected one of ..." lists (character classes dropped, at most 8 items)."""
    head = "expected one of "
    if not message.startswith(head):
        return message
    items = _split_items(message[len(head) :])
    sentences = [i for i in items if " " in i and i[:1].isalpha() and not i.isupper()]
    if sentences:
        return sentences[0]
    words = [i for i in items if i and not i.startswith("[")]
    if not words:
        return "unexpected input here"
    shown = ", ".join(words[:MAX_EXPECTED]) + (", …" if len(words) > MAX_EXPECTED else "")
    return head + shown


def _split_items(text: str) -> list[str]:
    items, depth, quote, current = [], 0, "", []
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    if current:
        items.append("".join(current).strip())
    return items


def caret_lines(source: str, line: int, column: int, *, width: int = 100) -> str:
    """The offending line of a query and a caret under ``column`` (1-based), psql-style."""
    from wcwidth import wcswidth

    source = source.replace("\t", " ")
    label = f"LINE {line}: "
    before = source[: max(column - 1, 0)]
    room = max(width - len(label) - 1, 20)
    if len(source) > room:  # show a window around the column
        start = max(0, len(before) - room // 2)
        shown = ("…" if start else "") + source[start : start + room]
        before = ("…" if start else "") + source[start : max(column - 1, 0)]
    else:
        shown = source
    offset = wcswidth(before)
    offset = len(before) if offset < 0 else offset
    return f"{label}{shown}\n{' ' * (len(label) + offset)}^"


def _input_line(err: KGError, statement: Statement) -> int:
    if isinstance(err, QuerySyntaxError) and err.line:
        return statement.line + err.line - 1
    return statement.line


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
