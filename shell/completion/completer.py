"""The prompt-toolkit completer: turns :func:`shell.completion.suggest.suggest`'s suggestions into completions.

The context analysis is all in :mod:`shell.completion.suggest`; this module only looks names up
in the session's catalogs (:mod:`shell.completion.catalog`, the command registry, the saved queries),
filters them by the word typed and adds what to show beside each one (an entity's type
and number of papers, a property's domain and range, a prefix's namespace).

Candidates match the word ignoring case: exact matches first, then those it begins,
then those with a word it begins (``misgen`` finds "goal misgeneralization"), then those
containing it.

Examples
--------
>>> match_rank("clip", "CLIP"), match_rank("cl", "CLIP"), match_rank("misgen", "goal misgeneralization")
(0, 1, 2)
>>> match_rank("gener", "goal misgeneralization"), match_rank("xyz", "CLIP")
(3, None)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from kg.errors import KGError
from kg.namespace import PREFIXES
from shell.completion.catalog import EntityCatalog, EntityEntry, Vocabulary
from shell.completion.suggest import Suggestion, suggest

if TYPE_CHECKING:
    from shell.session import Session

MAX_ENTITIES = 50
"""At most this many entity completions are offered at once."""

_WORD_BREAK = re.compile(r"[\s\-_/(),.]+")


def match_rank(word: str, candidate: str) -> int | None:
    """How well ``candidate`` matches the typed ``word`` (lower is better; None: not at all)."""
    word, candidate = word.lower(), candidate.lower()
    if candidate == word:
        return 0
    if candidate.startswith(word):
        return 1
    if any(part.startswith(word) for part in _WORD_BREAK.split(candidate) if part):
        return 2
    if word in candidate:
        return 3
    return None


class ShellCompleter(Completer):
    """Completions for the shell's input, from the session's store and settings.

    Parameters
    ----------
    session : shell.session.Session
        Gives the store (for entity names, read once and cached in the session), the
        saved queries, and the cache for the vocabulary.
    """

    def __init__(self, session: Session) -> None:
        self.session = session
        self._paths = PathCompleter(expanduser=True)

    # -- catalogs, read on first use and kept in the session

    def vocabulary(self) -> Vocabulary:
        return self.session.cached("vocabulary", Vocabulary.load)

    def entities(self) -> list[tuple[EntityEntry, tuple[tuple[str, str | None], ...]]]:
        def build() -> list:
            catalog = EntityCatalog.from_store(self.session.store)
            return [(e, ((e.label, None), *((a, a) for a in e.aliases))) for e in catalog.entries]

        return self.session.cached("entity_names", build)

    # -- prompt-toolkit entry point

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        seen: set[str] = set()
        for suggestion in suggest(document.text_before_cursor, document.text_after_cursor):
            if not suggestion.word and not complete_event.completion_requested:
                continue  # while typing, the menu opens once a word is started; Tab opens it anywhere
            try:
                completions = list(self.complete(suggestion, complete_event))
            except KGError:  # the store went away or refused: complete nothing rather than fail
                continue
            for completion in completions:
                if completion.text not in seen:
                    seen.add(completion.text)
                    yield completion

    def complete(self, s: Suggestion, event: CompleteEvent | None = None) -> Iterable[Completion]:
        """The completions for one suggestion."""
        handler = getattr(self, "_complete_" + s.kind, None)
        return handler(s, event) if handler else ()

    # -- one method per kind of suggestion

    def _complete_keyword(self, s: Suggestion, event: object) -> Iterable[Completion]:
        lower = bool(s.word) and s.word.islower()
        for choice in _filter(s.word, s.choices):
            text = choice.lower() if lower and choice.isupper() else choice
            yield Completion(text, -len(s.word), display_meta="keyword")

    def _complete_function(self, s: Suggestion, event: object) -> Iterable[Completion]:
        if not s.word:
            return
        lower = s.word.islower()
        for choice in _filter(s.word, s.choices, best=1):
            text = choice.lower() if lower and choice.isupper() else choice
            yield Completion(text + "(", -len(s.word), display=text + "()", display_meta="function")

    def _complete_value(self, s: Suggestion, event: object) -> Iterable[Completion]:
        for choice in _filter(s.word, s.choices, best=1):
            yield Completion(choice, -len(s.word))

    def _complete_variable(self, s: Suggestion, event: object) -> Iterable[Completion]:
        if s.word and s.word[0] not in "?$":
            return
        typed = "?" + s.word[1:] if s.word else ""
        for choice in _filter(typed, s.choices, best=1):
            if choice != typed:
                yield Completion(s.word[:1] + choice[1:] if s.word else choice, -len(s.word), display_meta="variable")

    def _complete_prefix(self, s: Suggestion, event: object) -> Iterable[Completion]:
        names = {**{p: iri for p, iri in PREFIXES.items()}, **{p: "declared in the query" for p in s.choices}}
        for name in _filter(s.word, names, best=1):
            yield Completion(name + ":", -len(s.word), display_meta=names[name])

    def _complete_prefix_declaration(self, s: Suggestion, event: object) -> Iterable[Completion]:
        for choice in _filter(s.word, s.choices, best=1):
            yield Completion(choice, -len(s.word), display_meta="prefix")

    def _complete_term(self, s: Suggestion, event: object, role: str | None = None) -> Iterable[Completion]:
        vocabulary = self.vocabulary()
        if s.namespace is not None:
            local = s.word.split(":", 1)[1]
            terms = vocabulary.terms(s.namespace, role) or vocabulary.terms(s.namespace)
            ranked = _ranked(local, terms, lambda t: t.local)
        elif s.word:
            ranked = _ranked(s.word, vocabulary.terms(None, role), lambda t: t.local, best=2)
        else:
            ranked = vocabulary.terms(None, role)
        for term in ranked:
            yield Completion(term.name, -len(s.word), display_meta=term.meta or term.role)

    def _complete_class(self, s: Suggestion, event: object) -> Iterable[Completion]:
        return self._complete_term(s, event, "class")

    def _complete_property(self, s: Suggestion, event: object) -> Iterable[Completion]:
        return self._complete_term(s, event, "property")

    def _complete_datatype(self, s: Suggestion, event: object) -> Iterable[Completion]:
        return self._complete_term(s, event, "datatype")

    def _complete_entity(self, s: Suggestion, event: object) -> Iterable[Completion]:
        if s.namespace is not None:  # entity:cl, kgr:entity/cl
            key = s.word.split(":", 1)[1]
            key = key[len("entity/") :] if key.startswith("entity/") else key
        else:
            key = s.word.lstrip("\"'")
        if not key and s.namespace is None and s.form == "iri":
            return  # a bare word not started yet: variables and keywords are enough
        found = []
        for entry, names in self.entities():
            best: tuple[int, str | None] | None = None
            # After "entity:" the IRI's own name ranks before labels and aliases.
            slug = entry.iri.rsplit("/", 1)[-1] if s.namespace is not None else None
            penalty = 0 if slug is None else 4
            for text, alias in ((slug, None), *names) if slug is not None else names:
                rank = match_rank(key, text) if key else 1
                if rank is not None and text is slug and rank > 2:
                    rank = None  # a name is typed from its start or a word's start
                elif rank is not None and text is not slug:
                    rank += penalty
                if rank is not None and (best is None or rank < best[0]):
                    best = (rank, alias)
            if best is not None:
                found.append((best[0], -entry.papers, entry.label.lower(), entry, best[1]))
        found.sort(key=lambda item: item[:3])
        for _, _, _, entry, alias in found[:MAX_ENTITIES]:
            shown = entry.label + (f" ({alias})" if alias else "")
            papers = f"{entry.papers} paper" + ("" if entry.papers == 1 else "s")
            yield Completion(
                _entity_text(entry, s.form), -len(s.word), display=shown, display_meta=f"{entry.type} · {papers}"
            )

    def _complete_command(self, s: Suggestion, event: object) -> Iterable[Completion]:
        from shell.commands import COMMANDS, unique_commands

        word = s.word
        names = [name for entry in unique_commands() for name in (entry.name, *entry.aliases)]
        for name in _filter(word if word.startswith(".") else "." + word, names, best=1):
            text = name if word.startswith(".") or not word else name[1:]
            yield Completion(text, -len(word), display=name, display_meta=COMMANDS[name].summary)

    def _complete_saved_query(self, s: Suggestion, event: object) -> Iterable[Completion]:
        try:
            saved = dict(self.session.saved.items())
        except KGError:
            return
        for name in _filter(s.word, saved, best=1):
            yield Completion(name, -len(s.word), display_meta=" ".join(saved[name].split())[:60])

    def _complete_file(self, s: Suggestion, event: CompleteEvent | None) -> Iterable[Completion]:
        return self._paths.get_completions(Document(s.word), event or CompleteEvent())


def _filter(word: str, choices: Iterable[str], *, best: int = 3) -> list[str]:
    """``choices`` matching ``word`` at rank ``best`` or better, best first (stable)."""
    return _ranked(word, choices, lambda c: c, best=best)


def _ranked(word: str, items: Iterable, key, *, best: int = 3) -> list:
    if not word:
        return list(items)
    scored = []
    for index, item in enumerate(items):
        rank = match_rank(word, key(item))
        if rank is not None and rank <= best:
            scored.append((rank, index, item))
    scored.sort(key=lambda t: t[:2])
    return [item for _, _, item in scored]


def _entity_text(entry: EntityEntry, form: str) -> str:
    if form == "iri":
        return entry.name
    if form == "word" and (any(ch.isspace() for ch in entry.label) or '"' in entry.label or "'" in entry.label):
        return '"' + entry.label.replace('"', '\\"') + '"'
    return entry.label
