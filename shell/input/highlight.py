"""Syntax highlighting of the input: SPARQL through pygments, dot-commands as commands.

:class:`ShellSparqlLexer` is pygments' ``SparqlLexer`` that also reads the shell's
``kgr:entity/clip`` names as prefixed names (pygments would mark the ``/clip`` as an
error). :class:`ShellLexer` is the prompt-toolkit lexer of the input buffer.

Examples
--------
>>> from pygments.token import Error
>>> tokens = list(ShellSparqlLexer().get_tokens("ASK { kgr:entity/clip a kg:Method }"))
>>> any(kind is Error for kind, _ in tokens)
False
>>> ShellLexer().lex_document(Document(".path CLIP ARP"))(0)
[('class:pygments.keyword', '.path'), ('', ' CLIP ARP')]
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.lexers import Lexer, PygmentsLexer
from pygments.lexer import bygroups, inherit
from pygments.lexers import SparqlLexer
from pygments.token import Name, Punctuation

from shell.input.statements import Statement

__all__ = ["ShellLexer", "ShellSparqlLexer"]


class ShellSparqlLexer(SparqlLexer):
    """SPARQL, plus ``kgr:`` names holding ``/`` (as the shell's tables show them)."""

    name = "SPARQL (abstract-kg shell)"
    aliases: list[str] = []
    tokens = {
        "root": [
            (r"(kgr)(:)((?:[\w\-/~:%]|\\.)*(?:[\w\-/~:%]|\\.))", bygroups(Name.Namespace, Punctuation, Name.Tag)),
            inherit,
        ],
    }


class ShellLexer(Lexer):
    """Highlights a dot-command's name, or the whole input as SPARQL."""

    def __init__(self) -> None:
        self._sparql = PygmentsLexer(ShellSparqlLexer)

    def lex_document(self, document: Document) -> Callable[[int], StyleAndTextTuples]:
        text = document.text
        if Statement(text.lstrip()).is_command:
            lines = document.lines

            def command_line(number: int) -> StyleAndTextTuples:
                line = lines[number] if number < len(lines) else ""
                if number:
                    return [("", line)]
                indent = len(line) - len(line.lstrip())
                name, space, rest = line[indent:].partition(" ")
                out: StyleAndTextTuples = [("", line[:indent])] if indent else []
                out.append(("class:pygments.keyword", name))
                if space or rest:
                    out.append(("", space + rest))
                return out

            return command_line
        return self._sparql.lex_document(document)
