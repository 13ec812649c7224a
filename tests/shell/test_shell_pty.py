"""Drive the real ``kg shell`` in a pseudo-terminal, as a person would, and read the screen.

pexpect runs the shell in a pty (TERM=xterm, 32x120); :class:`Screen` is a small terminal
emulator (the VT100 subset prompt-toolkit writes) that turns what the shell writes into
the text a person would see, so the checks are on the screen, not on escape sequences.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pexpect
import pytest
from conftest import CARTESIAN, KG_SCRIPT, child_pids, gone
from test_shell import write_graph

ROWS, COLS = 32, 120
_CSI = re.compile(r"\x1b\[([?>=!]?)([0-9;]*)([ -/]*)([@-~])")
_OSC = re.compile(r"\x1b\].*?(?:\x07|\x1b\\)", re.S)


class Screen:
    """The visible text of a terminal: printable characters, CR/LF/BS/TAB, and CSI cursor and erase codes."""

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self.lines = [[" "] * cols for _ in range(rows)]
        self.x = self.y = 0

    def feed(self, data: str) -> None:
        i = 0
        while i < len(data):
            ch = data[i]
            if ch == "\x1b":
                match = _CSI.match(data, i) or _OSC.match(data, i)
                if match is None:
                    i += 3 if data[i + 1 : i + 2] in ("(", ")") else 2  # ESC ( B, ESC =, ESC 7 ...
                    continue
                if match.re is _CSI:
                    self._control(match.group(1), match.group(2), match.group(4))
                i = match.end()
                continue
            if ch == "\r":
                self.x = 0
            elif ch == "\n":
                self._down()
            elif ch == "\b":
                self.x = max(0, self.x - 1)
            elif ch == "\t":
                self.x = min(self.cols - 1, (self.x // 8 + 1) * 8)
            elif ch >= " ":
                if self.x >= self.cols:
                    self.x = 0
                    self._down()
                self.lines[self.y][self.x] = ch
                self.x += 1
            i += 1

    def _down(self) -> None:
        if self.y == self.rows - 1:
            self.lines.pop(0)
            self.lines.append([" "] * self.cols)
        else:
            self.y += 1

    def _control(self, private: str, params: str, final: str) -> None:
        if private:
            return  # modes (cursor visibility, bracketed paste, ...)
        numbers = [int(p) if p else 0 for p in params.split(";")] if params else []
        n = numbers[0] if numbers and numbers[0] else 1
        if final == "A":
            self.y = max(0, self.y - n)
        elif final == "B":
            self.y = min(self.rows - 1, self.y + n)
        elif final == "C":
            self.x = min(self.cols - 1, self.x + n)
        elif final == "D":
            self.x = max(0, self.x - n)
        elif final == "G":
            self.x = min(self.cols - 1, n - 1)
        elif final in "Hf":
            row = numbers[0] if numbers and numbers[0] else 1
            col = numbers[1] if len(numbers) > 1 and numbers[1] else 1
            self.y, self.x = min(self.rows, row) - 1, min(self.cols, col) - 1
        elif final == "J":
            mode = numbers[0] if numbers else 0
            if mode in (0, 2):
                self.lines[self.y][self.x :] = [" "] * (self.cols - self.x)
                for row in range(self.y + 1, self.rows):
                    self.lines[row] = [" "] * self.cols
            if mode in (1, 2):
                for row in range(0, self.y):
                    self.lines[row] = [" "] * self.cols
                self.lines[self.y][: self.x + 1] = [" "] * (self.x + 1)
        elif final == "K":
            mode = numbers[0] if numbers else 0
            if mode == 0:
                self.lines[self.y][self.x :] = [" "] * (self.cols - self.x)
            elif mode == 1:
                self.lines[self.y][: self.x + 1] = [" "] * (self.x + 1)
            else:
                self.lines[self.y] = [" "] * self.cols

    def text(self) -> str:
        return "\n".join("".join(line).rstrip() for line in self.lines)


class Terminal:
    """The shell in a pty, and what its screen shows."""

    def __init__(self, child) -> None:
        self.child = child
        self.screen = Screen(ROWS, COLS)

    def read(self, seconds: float = 0.2) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                self.screen.feed(self.child.read_nonblocking(65536, timeout=0.05))
            except pexpect.TIMEOUT:
                pass

    def wait_for(self, pattern: str, timeout: float = 20) -> str:
        """Read until the screen matches ``pattern`` (a regular expression); return the screen."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.read(0.1)
            if re.search(pattern, self.screen.text()):
                return self.screen.text()
        raise AssertionError(f"the screen never showed {pattern!r}:\n{self.screen.text()}")

    def type(self, text: str) -> None:
        self.child.send(text)
        self.read(0.3)

    def line_with(self, needle: str) -> str:
        return next(line for line in self.screen.text().splitlines() if needle in line)


@pytest.fixture
def terminal(tmp_path: Path):
    yield from _shell_at_a_terminal(write_graph(tmp_path / "store"), tmp_path)


@pytest.fixture
def busy_terminal(busy_store: Path, tmp_path: Path):
    yield from _shell_at_a_terminal(busy_store, tmp_path)


def _shell_at_a_terminal(store: Path, tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != "KG_STORE"}
    env.update(
        TERM="xterm",
        HOME=str(tmp_path),
        XDG_DATA_HOME=str(tmp_path / "xdg"),
        PAGER="cat",
        PROMPT_TOOLKIT_NO_CPR="1",
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
    )
    child = pexpect.spawn(
        str(KG_SCRIPT),
        ["shell", "--store", str(store)],
        env=env,
        dimensions=(ROWS, COLS),
        encoding="utf-8",
        codec_errors="replace",
        timeout=30,
    )
    try:
        yield Terminal(child), tmp_path
    finally:
        if child.isalive():
            child.terminate(force=True)


def test_a_session_at_the_terminal(terminal):
    term, home = terminal
    screen = term.wait_for(r"Ctrl-D quit")
    assert "abstract-kg shell on" in screen and "\nkg>" in screen  # the banner, the prompt, the toolbar

    # A multi-line query; Tab completes the class name after "a kg:Meth".
    term.type("SELECT ?l WHERE {\r  ?e a kg:Meth")
    term.type("\t")
    term.wait_for(r"\?e a kg:Method")
    term.type(" ;\r")  # ';' inside the braces: a new line, not the end
    term.wait_for(r"\.\.\.> +\?e a kg:Method ;\n\.\.\.>")
    term.type("rdfs:label ?l } ORDER BY ?l;\r")
    screen = term.wait_for(r"3 rows in \d")
    assert re.search(r" l\n-+\n Adaptive Return-conditioned Policy\n CLIP\n adversarial training\n3 rows", screen)

    # Completion of an entity by label shows its type and papers, and inserts its IRI.
    term.type("SELECT ?p WHERE { ?p kg:mentions CIF")
    screen = term.wait_for(r"Dataset · 2 papers")
    assert "CIFAR-10" in term.line_with("Dataset · 2 papers")
    term.type("\t")
    term.wait_for(r"kg:mentions entity:cifar-10")
    term.type(" }\x03")  # Ctrl-C: the input is dropped
    term.type(".desc")
    term.type("\t")
    term.wait_for(r"kg> \.describe")
    term.type(" ARP\r")
    screen = term.wait_for(r"field +\| value[\s\S]*rows in \d")
    assert "goal misgeneralization" in term.line_with("addresses")

    # .path, with the second name completed and quoted.
    term.type(".path CLIP robust over")
    term.type("\t")
    term.wait_for(r'\.path CLIP "robust overfitting"')
    term.type(" \r")  # (the space closes the completion menu, where Enter would accept a completion)
    screen = term.wait_for(r"path \| hop \| from[\s\S]*rows in \d")
    assert re.search(r"\n +1 \| +1 \| CLIP +\| mentions +\| CIFAR-10 +\| +1 \| We fine-tune", screen)
    assert re.search(r"\n +1 \| +2 \| CIFAR-10 +\| mentions +\| robust overfitting +\|", screen)

    # A syntax error: line, column and message, a caret, and the shell carries on.
    term.type("SELECT * WHERE { ?s ?p };\r")
    screen = term.wait_for(r"SPARQL syntax error at line 1, column \d+")
    column = int(re.search(r"column (\d+)", screen).group(1))
    source = term.line_with("LINE 1: SELECT * WHERE")
    lines = screen.splitlines()
    caret = lines[lines.index(source) + 1]
    assert caret.rstrip() == " " * (len("LINE 1: ") + column - 1) + "^"
    assert "Traceback" not in screen
    term.type("ASK { ?s kg:proposes ?o };\r")
    term.wait_for(r"true\nanswer: true")

    # Ctrl-D leaves; the history was kept.
    term.child.sendcontrol("d")
    term.child.expect(pexpect.EOF, timeout=20)
    term.child.close()
    assert term.child.exitstatus == 0
    history = (home / "xdg" / "abstract-kg" / "history").read_text()
    assert '.path CLIP "robust overfitting"' in history and "ORDER BY ?l;" in history


def _cpu_seconds(pid: int) -> float:
    """CPU time the process ``pid`` has used (user and system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_ctrl_c_stops_a_runaway_query_and_the_shell_goes_quiet(busy_terminal):
    term, _ = busy_terminal
    term.wait_for(r"Ctrl-D quit")
    shell = term.child.pid
    deadline = time.monotonic() + 20
    while not child_pids(shell) and time.monotonic() < deadline:  # the query process starts with the shell
        time.sleep(0.05)
    (worker,) = child_pids(shell)

    term.type(CARTESIAN + ";")
    term.type("\r")
    time.sleep(1.5)
    assert not gone(worker, within=0)  # counting
    term.child.sendcontrol("c")
    term.wait_for(r"(\^C|\n)cancelled\n", timeout=5)  # the terminal may echo the ^C
    assert gone(worker, within=2) and child_pids(shell) == []
    used = _cpu_seconds(shell)
    time.sleep(2)
    assert _cpu_seconds(shell) - used < 0.5  # nothing runs on

    # A time limit, then a query that answers: the shell carries on with a new query process.
    term.type(".timeout 1\r")
    term.wait_for(r"timeout: 1 s")
    term.type(CARTESIAN + ";")
    term.type("\r")
    term.wait_for(r"query abandoned after 1 s \(\.timeout\)", timeout=10)
    term.type("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o };")
    term.type("\r")
    term.wait_for(r"\n +2000\n")
    term.child.sendcontrol("d")
    term.child.expect(pexpect.EOF, timeout=20)
    term.child.close()
    assert term.child.exitstatus == 0
