"""The README's example outputs, made by running the commands they show.

    python -m kg.eval.readme --check      exit 1 and show the difference when an example is stale
    python -m kg.eval.readme --write      rewrite the stale examples in place (also `make readme`)

An example is a fenced block right after an ``<!-- example -->`` comment. In it, a line starting with
``$ `` is a command (continued over the next lines while a quote is open), and the lines after it, up to
the next command, are what it prints (stdout and stderr, as a terminal shows both). The commands run in
order, through bash, in a scratch folder holding ``seeds/`` (the repository's) and the files of
:data:`FILES`; the first example builds the seeds into ``./.kg`` there, and the others read that store.
``$ echo $?`` shows the exit status of the command before it. Options in the comment, as
``<!-- example: head=12 -->``: ``head=N`` keeps the first N lines of each command's output, then ``...``.

Durations (``15.7 s``) differ from run to run: examples that differ only in them are left as they are.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kg.resources import REPO_DIR

README = REPO_DIR / "README.md"
FILES = {
    # the bad input of the README's first error example: line 2 is not JSON
    "papers.jsonl": '{"id": "p1", "text": "We study grokking in small transformers."}\n{"text": oops}\n',
}
"""Files the examples use, written into the scratch folder."""
COLUMNS = 100  # the terminal width the examples are made at
_EXAMPLE = re.compile(
    r"^<!-- example(?::(?P<options>[^>]*?))?\s*-->\n```(?P<lang>[^\n]*)\n(?P<body>.*?)^```$", re.M | re.S
)
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?m?s\b")
_STATUS = "echo $?"


@dataclass(frozen=True)
class Example:
    """One marked block: where its body is in the README, its commands, and its options."""

    start: int
    end: int
    body: str
    commands: tuple[str, ...]
    head: int | None


class Runner:
    """Runs the examples' commands in a scratch folder; see the module's documentation."""

    def __init__(self, folder: Path, recorded: Mapping[str, str] | None = None) -> None:
        self.folder = folder
        self.recorded = dict(recorded or {})
        self.status = 0
        self.env = {key: value for key, value in os.environ.items() if key not in ("KG_STORE", "PAGER")}
        self.env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        self.env.update(COLUMNS=str(COLUMNS), LC_ALL="C.UTF-8", NO_COLOR="1")

    def run(self, command: str) -> str:
        """What ``command`` prints, stdout and stderr together; its exit status is kept for ``echo $?``."""
        if command == _STATUS:
            return str(self.status)
        if command in self.recorded:
            self.status = 0
            return self.recorded[command]
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=self.folder,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=1800,
        )
        self.status = done.returncode
        return done.stdout


@contextmanager
def scratch(store: Path | None = None, build_output: str | None = None) -> Iterator[Runner]:
    """A :class:`Runner` in a new scratch folder.

    Parameters
    ----------
    store
        The seeds already built (by ``kg build seeds/``): copied in as ``./.kg``, so that no example
        builds them again.
    build_output
        What that build printed, with the store's path written as ``.kg``: the output of the
        ``kg build seeds/`` example.
    """
    with tempfile.TemporaryDirectory(prefix="kg-readme-") as name:
        folder = Path(name)
        (folder / "seeds").symlink_to(REPO_DIR / "seeds", target_is_directory=True)
        for file, content in FILES.items():
            (folder / file).write_text(content, encoding="utf-8")
        recorded = {}
        if store is not None:
            shutil.copytree(store, folder / ".kg")
            recorded["kg build seeds/"] = build_output or ""
        yield Runner(folder, recorded)


def examples(text: str) -> list[Example]:
    """The marked blocks of a README."""
    found = []
    for match in _EXAMPLE.finditer(text):
        options = dict(option.split("=", 1) for option in (match.group("options") or "").split() if "=" in option)
        commands = tuple(_commands(match.group("body")))
        head = int(options["head"]) if "head" in options else None
        found.append(Example(match.start("body"), match.end("body"), match.group("body"), commands, head))
    return found


def regenerate(text: str, runner: Runner) -> str:
    """``text`` with every example's output made again by ``runner``."""
    pieces, position = [], 0
    for example in examples(text):
        fresh = "".join(_shown(command, runner.run(command), example.head) for command in example.commands)
        keep = _masked(fresh) == _masked(example.body)  # only the durations changed
        pieces += [text[position : example.start], example.body if keep else fresh]
        position = example.end
    return "".join(pieces) + text[position:]


def stale(text: str, fresh: str) -> str:
    """A unified diff from the README as it is to the README as the commands print it ('' if none)."""
    return "".join(difflib.unified_diff(text.splitlines(True), fresh.splitlines(True), "README.md", "regenerated"))


def _commands(body: str) -> Iterator[str]:
    """The commands of a block: each ``$ `` line, with the lines that continue an open quote."""
    lines = body.splitlines()
    index = 0
    while index < len(lines):
        if not lines[index].startswith("$ "):
            index += 1
            continue
        command = lines[index][2:]
        while not _complete(command) and index + 1 < len(lines):
            index += 1
            command += "\n" + lines[index]
        index += 1
        yield command


def _complete(command: str) -> bool:
    try:
        shlex.split(command)
    except ValueError:  # a quote still open
        return False
    return True


def _shown(command: str, output: str, head: int | None) -> str:
    lines = [line.rstrip() for line in output.rstrip().splitlines()]
    if head is not None and len(lines) > head:
        lines = [*lines[:head], "..."]
    return "".join(f"{line}\n" for line in [f"$ {command}", *lines])


def _masked(body: str) -> str:
    return _DURATION.sub("<duration>", body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.eval.readme", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 when an example is stale, showing the difference")
    mode.add_argument("--write", action="store_true", help="rewrite the stale examples in place")
    parser.add_argument("--readme", type=Path, default=README, help="the file (default: the repository's README.md)")
    args = parser.parse_args(argv)
    text = args.readme.read_text(encoding="utf-8")
    print(f"running the examples of {args.readme} (the first builds the seeds) ...", file=sys.stderr)
    with scratch() as runner:
        fresh = regenerate(text, runner)
    difference = stale(text, fresh)
    if not difference:
        print(f"{args.readme}: the examples are up to date", file=sys.stderr)
        return 0
    if args.write:
        args.readme.write_text(fresh, encoding="utf-8")
        print(f"{args.readme}: examples rewritten", file=sys.stderr)
        return 0
    sys.stdout.write(difference)
    print(f"{args.readme}: examples are stale; run `python -m kg.eval.readme --write`", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
