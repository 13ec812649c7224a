"""The shell's dot-commands: one registry, filled by one decorator, and the dispatcher.

Each handler takes the :class:`~shell.session.Session` and the text after the command's
name, and returns a :class:`kg.query.result.Result`. ``.help`` and the completion of command
names and arguments are built from :data:`COMMANDS`.

Argument kinds (:attr:`Command.arguments`), which drive completion: ``entity`` (a label,
alias, prefixed name or IRI), ``format``, ``switch`` (on/off), ``export_format``, ``file``,
``saved`` (a saved query's name), ``command``, and ``text`` (anything).

Examples
--------
>>> COMMANDS[".path"].usage
'.path A B [--max-hops N] [--limit K]'
>>> COMMANDS[".exit"] is COMMANDS[".quit"]
True
>>> parse_command(".describe  goal misgeneralization")
('.describe', 'goal misgeneralization')
"""
from __future__ import annotations

import difflib
import os
import re
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rdflib import Literal

from kg.errors import UsageError
from kg.export import write_atomically
from kg.namespace import PREFIXES, local_name
from kg.query.result import FORMATS, Result
from kg.store.queries import FIND_ENTITIES
from shell.commands import graph as graph_commands
from shell.query import apply_limit, run_sparql
from shell.input.statements import Statement

if TYPE_CHECKING:
    from shell.session import Session

Handler = Callable[["Session", str], Result]


@dataclass(frozen=True)
class Command:
    """A registered dot-command.

    Attributes
    ----------
    name : str
        With its dot: ``".path"``.
    handler : callable
        ``handler(session, args) -> Result``.
    usage : str
        How to call it, for ``.help``.
    summary : str
        One line, for ``.help``.
    details : str
        More, for ``.help NAME``.
    arguments : tuple of str
        The kind of each positional argument, for completion.
    aliases : tuple of str
        Other names.
    """

    name: str
    handler: Handler
    usage: str
    summary: str
    details: str = ""
    arguments: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


COMMANDS: dict[str, Command] = {}
"""Every dot-command by name and alias."""

HELP_USAGE_WIDTH = 36


def command(usage: str, summary: str, *, details: str = "", arguments: tuple[str, ...] = (),
            aliases: tuple[str, ...] = ()) -> Callable[[Handler], Handler]:
    """Register the decorated handler as the dot-command named by the first word of ``usage``."""

    def register(handler: Handler) -> Handler:
        name = usage.split()[0]
        entry = Command(name, handler, usage, summary, details, arguments, aliases)
        for key in (name, *aliases):
            if key in COMMANDS:
                raise ValueError(f"dot-command {key} registered twice")
            COMMANDS[key] = entry
        return handler

    return register


def unique_commands() -> list[Command]:
    """Each command once, in the order registered."""
    return list(dict.fromkeys(COMMANDS.values()))


def parse_command(text: str) -> tuple[str, str]:
    """Split a dot-command line into its name (lower case) and the rest."""
    name, *rest = text.strip().split(None, 1)
    return name.lower(), rest[0].strip() if rest else ""


def execute(session: Session, statement: Statement | str) -> Result:
    """Run one statement (SPARQL or a dot-command) and return its Result, cut at the limit.

    Raises
    ------
    kg.errors.KGError
        For anything the user can put right; the shell reports it and carries on.
    """
    if isinstance(statement, str):
        statement = Statement(statement)
    started = time.perf_counter()
    if statement.is_command:
        name, args = parse_command(statement.text)
        entry = COMMANDS.get(name)
        if entry is None:
            close = difflib.get_close_matches(name, list(COMMANDS), n=1)
            hint = f"; did you mean {close[0]}?" if close else "; .help lists them"
            raise UsageError(f"unknown command {name}{hint}")
        result = entry.handler(session, args)
    else:
        result = run_sparql(session, statement.text)
    if result.elapsed is None and result.kind != "message":
        result.elapsed = time.perf_counter() - started
    return apply_limit(result, session.limit)


# ---- argument helpers

def _words(args: str) -> list[str]:
    """Shell-like words (quotes group words); an apostrophe alone, as in "Kohn's", is a letter."""
    try:
        return shlex.split(args)
    except ValueError:  # an unbalanced quote
        return args.split()


def _options(args: str, spec: dict[str, int | str]) -> tuple[list[str], dict]:
    """Positional words and ``--name VALUE`` options; ``spec`` gives each option's default,
    whose type says how to read it (an ``int``: a whole number of at least 0)."""
    words, values, positional = _words(args), dict(spec), []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("--") and len(word) > 2:
            key, eq, value = word[2:].partition("=")
            if key not in spec:
                known = ", ".join(f"--{k}" for k in spec) or "none"
                raise UsageError(f"unknown option --{key} (options: {known})")
            if not eq:
                i += 1
                if i >= len(words):
                    raise UsageError(f"--{key} needs a value")
                value = words[i]
            values[key] = _number(value, f"--{key}") if isinstance(spec[key], int) else value
        else:
            positional.append(word)
        i += 1
    return positional, values


def _number(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{what} takes a whole number, not {text!r}") from None
    if value < 0:
        raise UsageError(f"{what} cannot be negative")
    return value


def _one_entity(session: Session, args: str, usage: str, spec: dict[str, int | str] | None = None
                ) -> tuple[str, dict]:
    words, options = _options(args, spec or {})
    if not words:
        raise UsageError(f"usage: {usage}")
    return session.resolve(" ".join(words)), options


def _two_entities(session: Session, words: list[str], usage: str) -> tuple[str, str]:
    if len(words) < 2:
        raise UsageError(f"usage: {usage}")
    if len(words) == 2:
        return session.resolve(words[0]), session.resolve(words[1])
    labels = session.labels()
    splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    for a, b in splits:
        if labels.candidates(a) and labels.candidates(b):
            return labels.resolve(a), labels.resolve(b)
    for a, b in splits:  # one side is known: report the other with "did you mean"
        if labels.candidates(a) or labels.candidates(b):
            return session.resolve(a), session.resolve(b)
    raise UsageError(f"cannot tell two entities in {' '.join(words)!r}; quote names with spaces, "
                     f'as in .path "robust overfitting" CLIP')


def _switch(value: str, what: str) -> bool:
    lowered = value.lower()
    if lowered in ("on", "true", "yes", "1"):
        return True
    if lowered in ("off", "false", "no", "0"):
        return False
    raise UsageError(f"{what} takes on or off, not {value!r}")


# ---- the commands

@command(".path A B [--max-hops N] [--limit K]", "shortest chains of links between two entities",
         details="Links are stored relations (usedFor, ^usedFor against the direction) and co-mentions\n"
                 "(mentions: a paper mentions both); each hop comes with the sentence that states it.\n"
                 "Defaults: --max-hops 4, --limit 3 paths. Quote names with spaces when it is unclear\n"
                 'where the first ends: .path "robust overfitting" CIFAR-10',
         arguments=("entity", "entity"))
def cmd_path(session: Session, args: str) -> Result:
    words, options = _options(args, {"max-hops": 4, "limit": 3})
    source, target = _two_entities(session, words, COMMANDS[".path"].usage)
    return graph_commands.path(session, source, target, max_hops=max(1, options["max-hops"]),
                               limit=max(1, options["limit"]))


@command(".neighbors X [--hops N] [--limit K]", "entities within N links of X, nearest and best-linked first",
         details="Defaults: --hops 1, --limit 20 per ring (0: all).",
         arguments=("entity",), aliases=(".neighbours",))
def cmd_neighbors(session: Session, args: str) -> Result:
    iri, options = _one_entity(session, args, COMMANDS[".neighbors"].usage, {"hops": 1, "limit": 20})
    return graph_commands.neighbors(session, iri, hops=max(1, options["hops"]), limit=options["limit"] or None)


@command(".related X [--limit K] [--measure jaccard|pmi|npmi] [--predict K]",
         "entities most associated with X, and likely links not made yet",
         details="Associated: linked to X, ranked by a co-occurrence measure over papers (default jaccard;\n"
                 "--limit 10, 0: all). Predicted: two links away, by the Adamic-Adar index (--predict 5).",
         arguments=("entity",))
def cmd_related(session: Session, args: str) -> Result:
    iri, options = _one_entity(session, args, COMMANDS[".related"].usage,
                               {"limit": 10, "measure": "jaccard", "predict": 5})
    return graph_commands.related(session, iri, limit=options["limit"] or None, measure=options["measure"],
                                  predict=options["predict"])


@command(".describe X", "type, label, aliases, papers and relations of an entity", arguments=("entity",))
def cmd_describe(session: Session, args: str) -> Result:
    iri, _ = _one_entity(session, args, COMMANDS[".describe"].usage)
    return graph_commands.describe(session, iri)


@command(".find TEXT", "entities whose label or alias contains TEXT", arguments=("text",))
def cmd_find(session: Session, args: str) -> Result:
    text = " ".join(args.split())
    if not text:
        raise UsageError("usage: .find TEXT")
    needle = text.lower()
    rows = session.store.query(FIND_ENTITIES, bindings={"needle": Literal(needle)}).rows
    best: dict[str, tuple] = {}
    for entity, label, etype, match, _, papers in rows:
        rank = _match_rank(needle, str(match).lower()) + (0 if str(match) == str(label) else 0.5)
        key = (rank, -int(papers), str(label).lower())
        if str(entity) not in best or key < best[str(entity)][0]:
            alias = None if str(match) == str(label) else match
            best[str(entity)] = (key, (entity, label, local_name(etype), int(papers), alias))
    found = [row for _, row in sorted(best.values(), key=lambda item: item[0])]
    return Result.from_rows(["entity", "label", "type", "papers", "alias"], found)


def _match_rank(needle: str, text: str) -> int:
    if text == needle:
        return 0
    if text.startswith(needle):
        return 1
    if re.search(r"\b" + re.escape(needle), text):
        return 2
    return 3


@command(".stats", "papers, entities per type, relations and triples")
def cmd_stats(session: Session, args: str) -> Result:
    from kg.explore.stats import collect_stats

    stats = collect_stats(session.store)
    rows = [("papers", stats.papers), ("entities", sum(stats.entities.values()))]
    rows += [(f"entities: {name}", count) for name, count in stats.entities.items()]
    rows += [("relations", stats.relations), ("triples", stats.triples)]
    return Result.from_rows(["what", "count"], rows)


@command(".prefixes", "the prefixes declared for every query")
def cmd_prefixes(session: Session, args: str) -> Result:
    return Result.from_rows(["prefix", "namespace"], [(p + ":", iri) for p, iri in PREFIXES.items()])


@command(".format [" + "|".join(FORMATS) + "]", "how results are shown", arguments=("format",))
def cmd_format(session: Session, args: str) -> Result:
    value = args.strip().lower()
    if value:
        if value not in FORMATS:
            raise UsageError(f"unknown format {value!r}; choose one of: {', '.join(FORMATS)}")
        session.fmt = value
    return Result.text(f"format: {session.fmt}")


@command(".timing [on|off]", "show the time each query takes", arguments=("switch",))
def cmd_timing(session: Session, args: str) -> Result:
    if args.strip():
        session.timing = _switch(args.strip(), ".timing")
    return Result.text(f"timing: {'on' if session.timing else 'off'}")


@command(".limit [N]", "show at most N rows of a result (0: all)", arguments=("text",))
def cmd_limit(session: Session, args: str) -> Result:
    if args.strip():
        session.limit = _number(args.strip(), ".limit")
    return Result.text(f"limit: {session.limit} rows" if session.limit else "limit: none")


@command(".export FORMAT FILE", "write the whole graph to FILE (ttl, nt, nq, trig, jsonld, xml)",
         details="With only FILE, the format follows its suffix (graph.nt is N-Triples).",
         arguments=("export_format", "file"))
def cmd_export(session: Session, args: str) -> Result:
    from kg.export import EXPORTERS, get_exporter

    words = _words(args)
    if len(words) == 1:
        suffix = Path(words[0]).suffix.lower()
        name = next((n for n, e in EXPORTERS.items() if e.suffix == suffix), None)
        if name is None:
            raise UsageError(f"usage: .export FORMAT FILE (cannot tell the format of {words[0]!r})")
        words = [name, words[0]]
    if len(words) != 2:
        raise UsageError(f"usage: {COMMANDS['.export'].usage}")
    exporter = get_exporter(words[0].lower())
    path = Path(os.path.expanduser(words[1]))
    started = time.perf_counter()
    write_atomically(path, lambda stream: exporter.write(session.store, stream))
    size = path.stat().st_size
    return Result.text(f"wrote {path} ({exporter.name}, {_size(size)})", elapsed=time.perf_counter() - started)


def _size(n: int) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n} bytes"


_NAME = re.compile(r"[\w.-]+")


@command(".save NAME", "save the last query under NAME (kept between sessions)", arguments=("saved",))
def cmd_save(session: Session, args: str) -> Result:
    name = args.strip()
    if not _NAME.fullmatch(name):
        raise UsageError("usage: .save NAME (letters, digits, '.', '-' and '_')")
    if not session.last_query:
        raise UsageError("no query to save yet: run one first")
    session.saved.save(name, session.last_query)
    return Result.text(f"saved {name!r} in {session.saved.path}")


@command(".run [NAME]", "run a saved query (without NAME: list them)", arguments=("saved",))
def cmd_run(session: Session, args: str) -> Result:
    name = args.strip()
    if not name:
        return Result.from_rows(["name", "query"], [(n, " ".join(q.split())) for n, q in session.saved.items()])
    query = session.saved.get(name)
    if query is None:
        close = difflib.get_close_matches(name, session.saved.names(), n=3)
        hint = f"; did you mean: {', '.join(close)}?" if close else "; .run lists them"
        raise UsageError(f"no saved query {name!r}{hint}")
    return run_sparql(session, query)


@command(".help [COMMAND]", "list the commands, or explain one", arguments=("command",))
def cmd_help(session: Session, args: str) -> Result:
    name = args.strip().lower()
    if name:
        key = name if name.startswith(".") else "." + name
        entry = COMMANDS.get(key)
        if entry is None:
            raise UsageError(f"no command {key}; .help lists them")
        names = ", ".join((entry.name, *entry.aliases))
        text = f"{entry.usage}\n  {entry.summary}" + (f"\n\n{entry.details}" if entry.details else "")
        return Result.text(text + (f"\n  (also: {names})" if entry.aliases else ""))
    entries = unique_commands()
    width = min(max(len(e.usage) for e in entries), HELP_USAGE_WIDTH)
    lines = ["Dot-commands (one line each; entity names may be labels, aliases or IRIs):"]
    for e in entries:
        if len(e.usage) > width:
            lines += [f"  {e.usage}", f"  {'':<{width}}  {e.summary}"]
        else:
            lines.append(f"  {e.usage:<{width}}  {e.summary}")
    lines += [
        "",
        "SPARQL ends with ';' (outside braces); these prefixes are declared already:",
        "      " + ", ".join(PREFIXES),
        "Keys: Tab completes, Ctrl-R searches history, Alt-Enter runs unfinished input,",
        "      Ctrl-C cancels the input or a running query, Ctrl-D quits.",
    ]
    return Result.text("\n".join(lines))


@command(".quit", "leave the shell (Ctrl-D does too)", aliases=(".exit",))
def cmd_quit(session: Session, args: str) -> Result:
    session.running = False
    return Result.text("")


__all__ = ["COMMANDS", "Command", "command", "execute", "parse_command", "unique_commands"]
