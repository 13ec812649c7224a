"""Files: ``.export`` writes the whole graph to one; ``.save`` and ``.run`` keep queries in another.

Saved queries live in :class:`shell.session.SavedQueries` (``queries.json``), kept between sessions.
"""

from __future__ import annotations

import difflib
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.export import write_atomically
from kg.query.result import Result
from shell.commands.arguments import words
from shell.commands.registry import COMMANDS, command
from shell.query import run_sparql

if TYPE_CHECKING:
    from shell.session import Session

_NAME = re.compile(r"[\w.-]+")


@command(
    ".export [FORMAT] FILE",
    "write the whole graph to FILE (ttl, nt, nq, trig, jsonld, xml; graphml, gexf, csv)",
    details="With only FILE, the format follows its suffix (graph.nt is N-Triples, graph.json JSON-LD); "
    "a further .gz compresses it (graph.nt.gz).",
    arguments=("export_format", "file"),
)
def cmd_export(session: Session, args: str) -> Result:
    from kg.export import export_target

    given = words(args)
    if len(given) not in (1, 2):
        raise UsageError(f"usage: {COMMANDS['.export'].usage}")
    *named, file = given
    target = export_target(file, named[0] if named else None)
    path = Path(os.path.expanduser(file))
    started = time.perf_counter()
    write_atomically(path, lambda stream: target.write(session.store, stream))
    size = path.stat().st_size
    shown = target.exporter.name + (", gzip" if target.compressed else "")
    return Result.text(f"wrote {path} ({shown}, {_size(size)})", elapsed=time.perf_counter() - started)


def _size(n: int) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n} bytes"


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
