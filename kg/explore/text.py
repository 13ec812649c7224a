"""The exploration reports of :mod:`kg.explore.reports` as text for a terminal.

Each function takes the plain data that ``--format json`` prints and returns the text,
ending with a line break.

Examples
--------
>>> report = {"source": "CLIP", "target": "zero-shot classification", "paths": [{"length": 1, "hops": [
...     {"from": "CLIP", "predicate": "usedFor", "to": "zero-shot classification", "support": 2,
...      "evidence": "CLIP is used for zero-shot classification.",
...      "paper": "https://w3id.org/abstract-kg/resource/paper/p1"}]}]}
>>> print(render_path(report), end="")
CLIP → zero-shot classification: 1 path
<BLANKLINE>
1. 1 hop
   CLIP —usedFor→ zero-shot classification  (2 papers)
      “CLIP is used for zero-shot classification.”  kgr:paper/p1
"""
from __future__ import annotations

import textwrap

from kg.namespace import PREFIXES

WIDTH = 100


def render_path(report: dict) -> str:
    """Each path, each hop on a line with its direction and support, its evidence below."""
    paths = report["paths"]
    head = f"{report['source']} → {report['target']}"
    if not paths:
        return f"{head}: no path found (try a larger --max-hops, or other --via links)\n"
    lines = [f"{head}: {_count(len(paths), 'path')}", ""]
    for number, path in enumerate(paths, 1):
        lines.append(f"{number}. {_count(path['length'], 'hop')}")
        for hop in path["hops"]:
            lines.append(f"   {_arrow(hop['from'], hop['predicate'], hop['to'])}  ({_count(hop['support'], 'paper')})")
            lines.extend(_evidence_lines(hop["evidence"], hop["paper"]))
    return "\n".join(lines) + "\n"


def render_neighbors(report: dict) -> str:
    """Ring by ring: each concept with its type, link and support, and the concept it is reached through.

    Examples
    --------
    >>> print(render_neighbors({"center": "CLIP", "type": "Method", "counts": [1], "neighbors": [
    ...     {"label": "ImageNet", "type": "Dataset", "hops": 1, "predicate": "mentions", "support": 7,
    ...      "via": "CLIP"}]}), end="")
    CLIP (Method)
    <BLANKLINE>
    1 hop: 1 concept
      ImageNet  Dataset  mentions  7 papers
    """
    lines = [f"{report['center']} ({report['type']})"]
    rows_by_ring: dict[int, list[dict]] = {}
    for row in report["neighbors"]:
        rows_by_ring.setdefault(row["hops"], []).append(row)
    if not report["counts"] or not report["counts"][0]:
        return lines[0] + "\n\nno linked concepts\n"
    for ring, total in enumerate(report["counts"], 1):
        rows = rows_by_ring.get(ring, [])
        shown = f", showing the first {len(rows)}" if len(rows) < total else ""
        lines += ["", f"{_count(ring, 'hop')}: {_count(total, 'concept')}{shown}"]
        table = [[r["label"], r["type"], r["predicate"], _count(r["support"], "paper"),
                  "" if ring == 1 else f"via {r['via']}"] for r in rows]
        lines += _columns(table, indent="  ")
    return "\n".join(lines) + "\n"


def render_related(report: dict) -> str:
    """One concept a line: label, type, score and the reason.

    Examples
    --------
    >>> print(render_related({"related": [{"label": "ImageNet", "type": "Dataset", "score": 0.0753,
    ...                                    "reason": "mentioned with CLIP in 7 of its 32 papers (jaccard)"}]}), end="")
    ImageNet  Dataset  0.0753  mentioned with CLIP in 7 of its 32 papers (jaccard)
    """
    rows = report["related"]
    if not rows:
        return "no related concepts\n"
    return "\n".join(_columns([[r["label"], r["type"], f"{r['score']:.4f}", r["reason"]] for r in rows])) + "\n"


def render_central(report: dict) -> str:
    """Per type, the concepts ranked, with their score and number of papers.

    Examples
    --------
    >>> print(render_central({"by": "degree", "central": [
    ...     {"label": "fine-tuning", "type": "Method", "score": 612, "papers": 97}]}), end="")
    Most central concepts by degree
    <BLANKLINE>
    Method
       1. fine-tuning  612  97 papers
    """
    lines = [f"Most central concepts by {report['by']}"]
    by_type: dict[str, list[dict]] = {}
    for row in report["central"]:
        by_type.setdefault(row["type"], []).append(row)
    for kind, rows in by_type.items():
        lines += ["", kind]
        table = [[f"{rank:>2}. {r['label']}", str(r["score"]), _count(r["papers"], "paper")]
                 for rank, r in enumerate(rows, 1)]
        lines += _columns(table, indent="  ")
    if not by_type:
        lines.append("no concepts")
    return "\n".join(lines) + "\n"


def render_communities(report: dict) -> str:
    """Each community: its name, size and best-connected members.

    Examples
    --------
    >>> print(render_communities({"communities": [{"name": "CLIP / ImageNet", "size": 2,
    ...                                            "top": ["CLIP", "ImageNet"], "members": ["CLIP", "ImageNet"]}]}), end="")
    1. CLIP / ImageNet  (2 concepts)
       CLIP, ImageNet
    """
    if not report["communities"]:
        return "no communities\n"
    lines = []
    for number, community in enumerate(report["communities"], 1):
        lines.append(f"{number}. {community['name']}  ({_count(community['size'], 'concept')})")
        lines.append(textwrap.fill(", ".join(community["top"]), WIDTH, initial_indent="   ", subsequent_indent="   "))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- helpers


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _arrow(source: str, predicate: str, target: str) -> str:
    if predicate == "mentions":
        return f"{source} —mentioned with— {target}"
    if predicate.startswith("^"):
        return f"{source} ←{predicate[1:]}— {target}"
    return f"{source} —{predicate}→ {target}"


def _evidence_lines(evidence: str | None, paper: str | None) -> list[str]:
    where = f"  {_compact(paper)}" if paper else ""
    if not evidence:
        return [f"      (no sentence names both){where}"] if paper else []
    text = f"“{evidence}”{where}"
    return textwrap.wrap(text, WIDTH, initial_indent="      ", subsequent_indent="       ")


def _compact(iri: str) -> str:
    best = ""
    for prefix, namespace in PREFIXES.items():
        if iri.startswith(namespace) and len(namespace) > len(PREFIXES.get(best, "")):
            best = prefix
    return f"{best}:{iri[len(PREFIXES[best]):]}" if best else iri


def _columns(rows: list[list[str]], *, indent: str = "") -> list[str]:
    """Left-aligned columns two spaces apart; the last column is not padded."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [(indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1]).rstrip()
            for row in rows]
