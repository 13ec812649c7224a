"""The interactive prompt: prompt-toolkit with the shell's keys, completion and highlighting.

Keys
----
Enter
    Runs a dot-command; runs SPARQL when it is complete (it ends with ``;`` outside
    braces, see :mod:`shell.input.statements`) and the cursor is at its end; otherwise starts
    a new line, keeping the indentation. With a completion selected in the menu, Enter
    accepts it.
Alt-Enter (Esc Enter)
    Runs the input as it is, complete or not.
Tab, Shift-Tab
    Complete (see :mod:`shell.completion.suggest`); the menu also opens while typing.
Ctrl-R
    Searches the history backwards (prompt-toolkit's incremental search).
Ctrl-C
    Clears the input. While a query runs, cancels it (see :mod:`shell.app`).
Ctrl-D
    On an empty line: leaves the shell.
Ctrl-X Ctrl-E
    Edits the input in ``$EDITOR``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import ThreadedCompleter
from prompt_toolkit.filters import completion_is_selected, has_completions
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.key_binding.key_processor import KeyPressEvent
from prompt_toolkit.styles import Style

from shell.completion.completer import ShellCompleter
from shell.input.highlight import ShellLexer
from shell.input.statements import Statement, is_complete
from shell.session import history_path

if TYPE_CHECKING:
    from shell.session import Session

PROMPT = "kg> "
CONTINUATION = "...> "

STYLE = Style.from_dict(
    {
        "bottom-toolbar": "noreverse bg:#303030 #c0c0c0",
        "bottom-toolbar.key": "bold #ffffff",
        "completion-menu.completion": "bg:#303030 #e0e0e0",
        "completion-menu.completion.current": "bg:#5f87af #ffffff",
        "completion-menu.meta.completion": "bg:#3a3a3a #a8a8a8",
        "completion-menu.meta.completion.current": "bg:#5f87af #ffffff",
    }
)


def key_bindings() -> KeyBindings:
    """Enter runs complete input or opens a new line; Alt-Enter always runs."""
    bindings = KeyBindings()

    @bindings.add("enter", filter=has_completions & completion_is_selected)
    def _accept_completion(event: KeyPressEvent) -> None:
        event.current_buffer.complete_state = None

    @bindings.add("enter", filter=~(has_completions & completion_is_selected))
    def _enter(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if runs_on_enter(buffer.text, buffer.document.text_after_cursor):
            buffer.validate_and_handle()
        else:
            buffer.newline(copy_margin=True)

    @bindings.add("escape", "enter")
    def _run_anyway(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    return bindings


def runs_on_enter(text: str, after_cursor: str) -> bool:
    """Whether Enter runs the input: a one-line dot-command, or complete input with the cursor at its end.

    Examples
    --------
    >>> runs_on_enter(".stats", ""), runs_on_enter(".path CLIP ARP", " ARP")
    (True, True)
    >>> runs_on_enter("SELECT * { ?s ?p ?o };", ""), runs_on_enter("SELECT * { ?s ?p ?o };", "o };")
    (True, False)
    >>> runs_on_enter("SELECT * { ?s ?p ?o ;", "")
    False
    """
    stripped = text.strip()
    if Statement(stripped).is_command and "\n" not in stripped:
        return True
    return is_complete(text) and not after_cursor.strip()


def open_history() -> History:
    """The persistent history (``$XDG_DATA_HOME/abstract-kg/history``), or an in-memory one."""
    path = history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))


def make_prompt(session: Session) -> PromptSession[str]:
    """The prompt-toolkit session reading the shell's input."""

    def continuation(width: int, line_number: int, is_soft_wrap: bool) -> str:
        return "" if is_soft_wrap else CONTINUATION.rjust(width)

    def toolbar() -> list[tuple[str, str]]:
        limit = str(session.limit) if session.limit else "none"
        timing = "on" if session.timing else "off"
        return [
            ("class:bottom-toolbar", f" {session.location}  format {session.fmt}  limit {limit}  timing {timing}  "),
            ("class:bottom-toolbar.key", "Tab"),
            ("class:bottom-toolbar", " complete  "),
            ("class:bottom-toolbar.key", ".help"),
            ("class:bottom-toolbar", "  "),
            ("class:bottom-toolbar.key", "Ctrl-D"),
            ("class:bottom-toolbar", " quit "),
        ]

    return PromptSession(
        PROMPT,
        multiline=True,
        prompt_continuation=continuation,
        lexer=ShellLexer(),
        completer=ThreadedCompleter(ShellCompleter(session)),
        complete_while_typing=True,
        history=open_history(),
        auto_suggest=AutoSuggestFromHistory(),
        key_bindings=key_bindings(),
        bottom_toolbar=toolbar,
        style=STYLE,
        search_ignore_case=True,
        enable_open_in_editor=True,
    )
