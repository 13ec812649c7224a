"""RDF terms in the query layer: rdflib terms, and their conversion to and from pyoxigraph and Python.

A :class:`kg.query.result.Result` holds rdflib terms. Oxigraph answers in pyoxigraph terms
(:func:`from_oxigraph`), takes pyoxigraph terms for writing and for the W3C result formats
(:func:`to_oxigraph`), and callers build results from plain Python values
(:func:`from_python`) and read them back as such (:func:`to_python`). Only pyoxigraph's public
API is used: ``NamedNode.value``, ``BlankNode.value``, ``Literal.value``, ``.language`` and
``.datatype``. pyoxigraph is imported when a conversion needs it, not with this module.

Examples
--------
>>> import pyoxigraph as ox
>>> from_oxigraph(ox.Literal("CLIP", language="en"))
rdflib.term.Literal('CLIP', lang='en')
>>> to_oxigraph(from_oxigraph(ox.NamedNode("http://example.org/a")))
<NamedNode value=http://example.org/a>
>>> to_python(from_python(12))
12
"""

from __future__ import annotations

import datetime
import numbers
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from rdflib.term import BNode, Identifier, Literal, URIRef

if TYPE_CHECKING:  # pragma: no cover - imported for annotations only
    import pyoxigraph

__all__ = ["Term", "from_oxigraph", "from_python", "sort_key", "to_oxigraph", "to_python"]

Term = URIRef | BNode | Literal
"""An RDF term as rdflib represents it."""


def from_oxigraph(term: pyoxigraph.NamedNode | pyoxigraph.BlankNode | pyoxigraph.Literal | None) -> Term | None:
    """The rdflib term for a pyoxigraph term (``None`` for an unbound value).

    A literal keeps its lexical form, and its language or its datatype (``xsd:string`` for a
    simple literal, as Oxigraph reports it).

    Raises
    ------
    TypeError
        For anything else (an RDF 1.2 triple term, a graph name).

    Examples
    --------
    >>> import pyoxigraph as ox
    >>> from_oxigraph(ox.BlankNode("b0")), from_oxigraph(None)
    (rdflib.term.BNode('b0'), None)
    >>> from_oxigraph(ox.Literal("2", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")))
    rdflib.term.Literal('2', datatype=rdflib.term.URIRef('http://www.w3.org/2001/XMLSchema#integer'))
    """
    import pyoxigraph as ox

    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        return Literal(term.value, datatype=URIRef(term.datatype.value))
    raise TypeError(f"cannot make an rdflib term of {type(term).__name__} {term!r}")


def to_oxigraph(term: Term) -> pyoxigraph.NamedNode | pyoxigraph.BlankNode | pyoxigraph.Literal:
    """The pyoxigraph term for an rdflib term.

    Raises
    ------
    ValueError
        If pyoxigraph refuses the term: an IRI that is not a valid absolute IRI, a blank node
        label outside Turtle's syntax, a malformed language tag.
    TypeError
        If ``term`` is not an rdflib IRI, blank node or literal.

    Examples
    --------
    >>> from rdflib import BNode, Literal
    >>> to_oxigraph(BNode("b0")), to_oxigraph(Literal("x", lang="en"))
    (<BlankNode value=b0>, <Literal value=x language=en>)
    """
    import pyoxigraph as ox

    if isinstance(term, URIRef):
        return ox.NamedNode(term)
    if isinstance(term, BNode):
        return ox.BlankNode(term)
    if isinstance(term, Literal):
        datatype = ox.NamedNode(term.datatype) if term.datatype and not term.language else None
        return ox.Literal(str(term), language=term.language, datatype=datatype)
    raise TypeError(f"not an RDF term: {type(term).__name__} {term!r}")


def from_python(value: Any) -> Term | None:
    """An rdflib term for a Python value: terms are kept, ``None`` stays unbound, others become literals.

    ``str`` becomes a simple literal, ``int`` an ``xsd:integer``, ``float`` an ``xsd:double``,
    and ``bool``, ``Decimal``, ``date``, ``datetime``, ``time`` their XSD types; other integral
    and real numbers (numpy's) become ``int`` and ``float`` first.

    Raises
    ------
    TypeError
        If the value cannot be made an RDF term.

    Examples
    --------
    >>> from_python("CLIP").n3(), from_python(3).n3()
    ('"CLIP"', '"3"^^<http://www.w3.org/2001/XMLSchema#integer>')
    """
    if value is None or isinstance(value, Identifier):
        return value
    if isinstance(value, (str, bool, int, float, Decimal, datetime.date, datetime.time)):
        return Literal(value)
    if isinstance(value, numbers.Integral):  # numpy integers and the like
        return Literal(int(value))
    if isinstance(value, numbers.Real):
        return Literal(float(value))
    raise TypeError(f"cannot make an RDF term of {type(value).__name__} {value!r}")


def to_python(term: Term | None) -> Any:
    """The Python value of a term: an IRI's ``str``, ``"_:label"``, a literal's ``toPython()``.

    A literal whose datatype rdflib has no Python type for gives its lexical form.

    Examples
    --------
    >>> to_python(URIRef("http://example.org/a")), to_python(BNode("b0")), to_python(None)
    ('http://example.org/a', '_:b0', None)
    >>> to_python(Literal("x y", datatype="http://example.org/dt"))
    'x y'
    """
    if term is None:
        return None
    if isinstance(term, URIRef):
        return str(term)
    if isinstance(term, BNode):
        return "_:" + str(term)
    if isinstance(term, Literal):
        value = term.toPython()
        return str(term) if isinstance(value, Literal) else value
    return str(term)


def sort_key(term: Term | None) -> tuple[int, str, str]:
    """A key that orders IRIs, then blank nodes, then literals (then anything else), each by text.

    Examples
    --------
    >>> sorted([Literal("a"), BNode("b"), URIRef("urn:c")], key=sort_key)
    [rdflib.term.URIRef('urn:c'), rdflib.term.BNode('b'), rdflib.term.Literal('a')]
    """
    if isinstance(term, URIRef):
        return (0, str(term), "")
    if isinstance(term, BNode):
        return (1, str(term), "")
    if isinstance(term, Literal):
        return (2, str(term), f"{term.language or ''}|{term.datatype or ''}")
    return (3, "" if term is None else str(term), "")
