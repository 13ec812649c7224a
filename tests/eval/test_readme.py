"""The README's examples are what the commands print (kg.eval.readme)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.eval.readme import README, Runner, examples, regenerate, scratch, stale

PAGE = """Intro.

<!-- example -->
```sh
$ kg query 'SELECT ?x WHERE {
    ?x a kg:Paper } LIMIT 1'
old output
$ echo $?
7
```

A block that is no example:

```sh
$ kg stats
whatever
```

<!-- example: head=2 -->
```
$ kg path A B
```
"""


class FakeRunner(Runner):
    """Answers from a table instead of running anything."""

    def __init__(self, answers: dict[str, tuple[str, int]]) -> None:
        super().__init__(Path("."))
        self.answers = answers
        self.asked: list[str] = []

    def run(self, command: str) -> str:
        self.asked.append(command)
        if command == "echo $?":
            return str(self.status)
        output, self.status = self.answers[command]
        return output


def test_examples_are_the_marked_blocks_with_their_commands() -> None:
    first, second = examples(PAGE)
    query = "kg query 'SELECT ?x WHERE {\n    ?x a kg:Paper } LIMIT 1'"
    assert first.commands == (query, "echo $?") and first.head is None
    assert second.commands == ("kg path A B",) and second.head == 2


def test_regenerate_writes_each_commands_output_and_status() -> None:
    query = "kg query 'SELECT ?x WHERE {\n    ?x a kg:Paper } LIMIT 1'"
    runner = FakeRunner({query: (" x\n---\n p1  \n\n", 2), "kg path A B": ("one\ntwo\nthree\n", 0)})
    fresh = regenerate(PAGE, runner)
    assert runner.asked == [query, "echo $?", "kg path A B"]  # in order; the unmarked block is not run
    assert f"```sh\n$ {query}\n x\n---\n p1\n$ echo $?\n2\n```" in fresh
    assert "```\n$ kg path A B\none\ntwo\n...\n```" in fresh  # head=2
    assert "$ kg stats\nwhatever\n" in fresh
    assert stale(PAGE, fresh).startswith("--- README.md\n+++ regenerated\n")
    assert stale(fresh, regenerate(fresh, runner)) == ""


def test_a_change_of_durations_alone_is_not_stale() -> None:
    page = "<!-- example -->\n```sh\n$ kg build seeds/\n.kg: 3 papers read; 40 triples added, 1.2 s\n```\n"
    slower = FakeRunner({"kg build seeds/": (".kg: 3 papers read; 40 triples added, 15.7 s\n", 0)})
    assert regenerate(page, slower) == page
    more = FakeRunner({"kg build seeds/": (".kg: 3 papers read; 41 triples added, 1.2 s\n", 0)})
    assert "41 triples" in regenerate(page, more)


def test_commands_run_through_bash_in_a_scratch_folder() -> None:
    with scratch() as runner:
        assert runner.run("ls seeds | wc -l; test -f papers.jsonl && echo has papers.jsonl") == "4\nhas papers.jsonl\n"
        assert runner.run("kg --help >/dev/null; exit 3") == "" and runner.run("echo $?") == "3"


@pytest.mark.slow
def test_the_readme_examples_are_what_the_commands_print(seeds_build: tuple[Path, str]) -> None:
    store, printed = seeds_build
    text = README.read_text(encoding="utf-8")
    assert len(examples(text)) >= 8
    with scratch(store, build_output=printed.replace(str(store), ".kg")) as runner:
        difference = stale(text, regenerate(text, runner))
    assert not difference, (
        f"README examples are stale: run `make readme` (python -m kg.eval.readme --write)\n{difference}"
    )
