"""Reading a dot-command's arguments: words, ``--options``, numbers, switches and entity names.

Examples
--------
>>> options('CLIP "robust overfitting" --limit 2 --via usedFor --via=mentions --no-papers',
...         {"limit": 3, "via": []}, flags=("papers",))
(['CLIP', 'robust overfitting'], {'limit': 2, 'via': ['usedFor', 'mentions'], 'papers': False})
>>> options("CLIP --top 3", {"limit": 3})
Traceback (most recent call last):
...
kg.errors.UsageError: unknown option --top (options: --limit)
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from kg.errors import UsageError

if TYPE_CHECKING:
    from shell.session import Session

Spec = dict[str, "int | str | list[str]"]


def words(args: str) -> list[str]:
    """Shell-like words (quotes group words); an apostrophe alone, as in "Kohn's", is a letter."""
    try:
        return shlex.split(args)
    except ValueError:  # an unbalanced quote
        return args.split()


def options(args: str, spec: Spec, *, flags: tuple[str, ...] = ()) -> tuple[list[str], dict]:
    """Positional words, and ``--name VALUE`` (or ``--name=VALUE``) options and ``--flag``/``--no-flag`` switches.

    Parameters
    ----------
    args : str
        The text after the command's name.
    spec : dict
        Each option's default, whose type says how its value is read: an ``int`` is a whole
        number of at least 0, a ``str`` is text, a ``list`` collects the values of an
        option given several times.
    flags : tuple of str
        Options without a value: ``--NAME`` gives True, ``--no-NAME`` False; None when absent.

    Returns
    -------
    positional : list of str
    values : dict
        Every option and flag by name.
    """
    values: dict = {**spec, **dict.fromkeys(flags)}
    switches = {**{name: True for name in flags}, **{f"no-{name}": False for name in flags}}
    positional = []
    given, i = words(args), 0
    while i < len(given):
        word = given[i]
        if word.startswith("--") and len(word) > 2:
            key, eq, value = word[2:].partition("=")
            if key in switches:
                if eq:
                    raise UsageError(f"--{key} takes no value")
                values[key.removeprefix("no-")] = switches[key]
            elif key in spec:
                if not eq:
                    i += 1
                    if i >= len(given):
                        raise UsageError(f"--{key} needs a value")
                    value = given[i]
                values[key] = _read(spec[key], values[key], value, f"--{key}")
            else:
                known = ", ".join(f"--{k}" for k in (*spec, *switches)) or "none"
                raise UsageError(f"unknown option --{key} (options: {known})")
        else:
            positional.append(word)
        i += 1
    return positional, values


def whole_number(text: str, what: str) -> int:
    """``text`` as a whole number of at least 0; ``what`` names it in the error."""
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{what} takes a whole number, not {text!r}") from None
    if value < 0:
        raise UsageError(f"{what} cannot be negative")
    return value


def switch(value: str, what: str) -> bool:
    """``on``/``off`` (or true/false, yes/no, 1/0) as a bool; ``what`` names it in the error."""
    lowered = value.lower()
    if lowered in ("on", "true", "yes", "1"):
        return True
    if lowered in ("off", "false", "no", "0"):
        return False
    raise UsageError(f"{what} takes on or off, not {value!r}")


def one_entity(session: Session, args: str, usage: str, spec: Spec | None = None) -> tuple[str, dict]:
    """The IRI of the entity the positional words name, and the options (see :func:`options`)."""
    named, values = options(args, spec or {})
    if not named:
        raise UsageError(f"usage: {usage}")
    return session.resolve(" ".join(named)), values


def two_entities(session: Session, named: list[str], usage: str) -> tuple[str, str]:
    """The IRIs of the two entities the words name; unquoted names split where both sides are known."""
    if len(named) < 2:
        raise UsageError(f"usage: {usage}")
    if len(named) == 2:
        return session.resolve(named[0]), session.resolve(named[1])
    labels = session.labels()
    splits = [(" ".join(named[:i]), " ".join(named[i:])) for i in range(1, len(named))]
    for a, b in splits:
        if labels.candidates(a) and labels.candidates(b):
            return session.resolve(a), session.resolve(b)
    for a, b in splits:  # one side is known: report the other with "did you mean"
        if labels.candidates(a) or labels.candidates(b):
            return session.resolve(a), session.resolve(b)
    raise UsageError(
        f"cannot tell two entities in {' '.join(named)!r}; quote names with spaces, "
        f'as in .path "robust overfitting" CLIP'
    )


def _read(
    default: int | str | list[str], current: int | str | list[str], value: str, what: str
) -> int | str | list[str]:
    if isinstance(default, list):
        return [*current, value]  # type: ignore[misc]
    if isinstance(default, int):
        return whole_number(value, what)
    return value
