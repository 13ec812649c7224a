"""abstract-kg: a knowledge graph of machine-learning research built from paper abstracts.

``kg.open(store)`` gives the Python API (see :mod:`kg.api`); importing ``kg`` is cheap.
"""

from __future__ import annotations

__all__ = ["open"]


def open(store=None, *, endpoint=None):
    """Open the graph in ``store`` (default ``$KG_STORE`` or ``./.kg``); see :class:`kg.api.KnowledgeGraph`."""
    from kg.api import open_graph

    return open_graph(store, endpoint=endpoint)
