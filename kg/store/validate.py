"""`kg validate`: SHACL validation of the graph against ontology/shapes.ttl (pySHACL).

pySHACL validates in one silent call that takes seconds on the seeds. Here the work is split into
steps, each a batch of one shape's focus nodes: the shapes graph of a step is the whole of
ontology/shapes.ttl with its targets replaced by ``sh:targetNode`` for the nodes of the batch, so every
constraint (nested shapes, SPARQL) is checked as in one call, and a progress display advances between
steps. (pySHACL's own ``focus_nodes`` option also filters the nodes that nested shapes check, and misses
violations there.)

A SPARQL-based constraint (``sh:sparql``) costs pySHACL a parse and a query per focus node (minutes on a
large graph), so its ``SELECT`` is first run once over the whole graph with ``$this`` unbound: only the
focus nodes it returns are checked against their shape with its SPARQL constraints, the others against
the shape without them. Each focus node is still checked against its whole shape once, so the report is
the one a single call gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rdflib import BNode, Graph
from rdflib.namespace import SH
from rdflib.term import Node

from kg.progress import Progress
from kg.resources import ONTOLOGY_FILE, SHAPES_FILE
from kg.store import Store

BATCH = 250  # focus nodes per step: small enough to advance often, large enough to cost nothing
_TARGETS = (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf)
_RESULTS_HEADER = re.compile(r"^Results \(\d+\):\n", re.M)


@dataclass(frozen=True)
class ValidationReport:
    """The outcome: whether the graph conforms, what to print, and how many distinct nodes were checked."""

    conforms: bool
    text: str
    nodes: int = 0


def validate(store: Store, progress: Progress | None = None) -> ValidationReport:
    """Validate the store's default graph, with the ontology for the class hierarchy.

    Parameters
    ----------
    store
        The graph to check.
    progress
        Called as ``progress(done, total)`` in focus nodes checked (a node counts once for each shape
        that targets it).
    """
    data = Graph()
    data += store.graph  # pySHACL walks the graph many times; an in-memory copy keeps that fast
    return validate_graph(data, progress)


def validate_graph(data: Graph, progress: Progress | None = None, batch: int = BATCH) -> ValidationReport:
    """Validate ``data`` against ontology/shapes.ttl in steps of ``batch`` focus nodes (``data`` gains
    the ontology's triples)."""
    import pyshacl

    shapes = Graph().parse(SHAPES_FILE)
    data += Graph().parse(ONTOLOGY_FILE)  # mixed in once, rather than copied into each step
    targeted = [(shape.node, list(shape.focus_nodes(data))) for shape in pyshacl.ShapesGraph(shapes).shapes]
    targeted = [(shape, focus) for shape, focus in targeted if focus]
    nodes = len({node for _, focus in targeted for node in focus})
    total = sum(len(focus) for _, focus in targeted)
    done, conforms, results, texts = 0, True, 0, []
    for step_shapes, size in _steps(shapes, targeted, batch, _sparql_suspects(data, shapes)):
        ok, graph, text = pyshacl.validate(
            data, shacl_graph=step_shapes, inference="none", inplace=True, allow_warnings=True
        )
        conforms = conforms and bool(ok)
        found = len(set(graph.objects(None, SH.result)))
        if found:
            results += found
            texts.append(_RESULTS_HEADER.split(text, maxsplit=1)[-1].rstrip("\n"))
        done += size
        if progress is not None:
            progress(done, total)
    checked = f"{nodes} node{'s' if nodes != 1 else ''} checked"
    if conforms:
        return ValidationReport(True, f"the graph conforms to ontology/shapes.ttl ({checked})", nodes)
    text = "\n".join(["Validation Report", "Conforms: False", f"Results ({results}):", *texts])
    summary = f"the graph does not conform to ontology/shapes.ttl: {results} results ({checked})"
    return ValidationReport(False, f"{text}\n{summary}", nodes)


def _steps(
    shapes: Graph, targeted: list[tuple[Node, list[Node]]], batch: int, suspects: dict[Node, set[Node]]
) -> Iterator[tuple[Graph, int]]:
    """Each step's shapes graph, and the number of focus nodes it checks; the ``suspects`` of a shape (the
    nodes its SPARQL constraints find in violation) are checked with those constraints, the rest of its
    focus nodes without."""
    if any(isinstance(node, BNode) for _, focus in targeted for node in focus):
        # a blank node cannot be named by sh:targetNode (never the case in a graph kg builds): one step
        yield shapes, sum(len(focus) for _, focus in targeted)
        return
    untargeted = Graph()
    untargeted += ((s, p, o) for s, p, o in shapes if p not in _TARGETS)
    without_sparql = Graph()
    without_sparql += ((s, p, o) for s, p, o in untargeted if p != SH.sparql)
    for shape, focus in targeted:
        with_sparql = suspects.get(shape, set())
        for rules, nodes in (
            (without_sparql, [node for node in focus if node not in with_sparql]),
            (untargeted, [node for node in focus if node in with_sparql]),
        ):
            for part in _batches(nodes, batch):
                step = Graph()
                step += rules
                step += ((shape, SH.targetNode, node) for node in part)
                yield step, len(part)


def _sparql_suspects(data: Graph, shapes: Graph) -> dict[Node, set[Node]]:
    """For each shape with SPARQL-based constraints, the nodes their ``SELECT`` returns as ``$this`` when run
    over the whole graph: of the shape's focus nodes, those and only those they find in violation when
    each is pre-bound (SHACL keeps ``$this`` out of subqueries, ``MINUS``, ``VALUES`` and ``SERVICE``, so
    pre-binding it is filtering on it)."""
    suspects: dict[Node, set[Node]] = {}
    for shape, constraint in shapes.subject_objects(SH.sparql):
        select = shapes.value(constraint, SH.select)
        prefixes = "".join(
            f"PREFIX {shapes.value(declared, SH.prefix)}: <{shapes.value(declared, SH.namespace)}>\n"
            for source in shapes.objects(constraint, SH.prefixes)
            for declared in shapes.objects(source, SH.declare)
        )
        rows = data.query(prefixes + str(select))
        suspects.setdefault(shape, set()).update(row["this"] for row in rows if row["this"] is not None)
    return suspects


def _batches(nodes: Sequence[Node], size: int) -> Iterator[list[Node]]:
    ordered = sorted(nodes)
    for start in range(0, len(ordered), size):
        yield ordered[start : start + size]
