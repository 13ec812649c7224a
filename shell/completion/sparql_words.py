"""The fixed words the completion offers in SPARQL: keywords by where they fit, functions, well-known prefixes.

:func:`shell.completion.suggest.suggest` picks the list that fits the cursor's position
(:mod:`shell.completion.position`); the completer filters it by the word typed.

Examples
--------
>>> "ORDER BY" in MODIFIER_KEYWORDS, "GROUP_CONCAT" in FUNCTIONS, COMMON_PREFIXES["foaf"]
(True, True, 'http://xmlns.com/foaf/0.1/')
"""

__all__ = [
    "COMMON_PREFIXES",
    "EXPRESSION_KEYWORDS",
    "FUNCTIONS",
    "GROUP_KEYWORDS",
    "KEYWORDS",
    "MODIFIER_KEYWORDS",
    "PROJECTION_KEYWORDS",
    "TOP_KEYWORDS",
]

TOP_KEYWORDS = (
    "SELECT",
    "ASK",
    "CONSTRUCT",
    "DESCRIBE",
    "PREFIX",
    "BASE",
    "WHERE",
    "FROM",
    "FROM NAMED",
    "DISTINCT",
    "REDUCED",
    "GROUP BY",
    "HAVING",
    "ORDER BY",
    "LIMIT",
    "OFFSET",
    "VALUES",
)
"""At the top level of a query, outside every group."""
GROUP_KEYWORDS = (
    "OPTIONAL",
    "FILTER",
    "BIND",
    "VALUES",
    "MINUS",
    "UNION",
    "GRAPH",
    "SERVICE",
    "SELECT",
    "FILTER NOT EXISTS",
    "FILTER EXISTS",
)
"""Inside a group pattern (``{ ... }``), where a triple may start."""
MODIFIER_KEYWORDS = ("GROUP BY", "HAVING", "ORDER BY", "ASC", "DESC", "LIMIT", "OFFSET", "VALUES")
"""After the query's closing ``}``: the solution modifiers."""
PROJECTION_KEYWORDS = ("DISTINCT", "REDUCED", "AS", "WHERE", "FROM")
"""Between ``SELECT`` and ``WHERE``."""
EXPRESSION_KEYWORDS = ("AS", "IN", "NOT IN", "EXISTS", "NOT EXISTS", "true", "false", "SEPARATOR")
"""Inside an expression: ``FILTER (...)``, ``BIND (...)``, a projected ``(... AS ?x)``."""
FUNCTIONS = (
    "COUNT",
    "SUM",
    "MIN",
    "MAX",
    "AVG",
    "SAMPLE",
    "GROUP_CONCAT",
    "STR",
    "LANG",
    "LANGMATCHES",
    "DATATYPE",
    "BOUND",
    "IRI",
    "URI",
    "BNODE",
    "RAND",
    "ABS",
    "CEIL",
    "FLOOR",
    "ROUND",
    "CONCAT",
    "STRLEN",
    "UCASE",
    "LCASE",
    "ENCODE_FOR_URI",
    "CONTAINS",
    "STRSTARTS",
    "STRENDS",
    "STRBEFORE",
    "STRAFTER",
    "YEAR",
    "MONTH",
    "DAY",
    "HOURS",
    "MINUTES",
    "SECONDS",
    "TIMEZONE",
    "TZ",
    "NOW",
    "UUID",
    "STRUUID",
    "MD5",
    "SHA1",
    "SHA256",
    "SHA384",
    "SHA512",
    "COALESCE",
    "IF",
    "STRLANG",
    "STRDT",
    "sameTerm",
    "isIRI",
    "isURI",
    "isBLANK",
    "isLITERAL",
    "isNUMERIC",
    "REGEX",
    "SUBSTR",
    "REPLACE",
)
"""SPARQL's built-in functions and aggregates."""
KEYWORDS = tuple(
    dict.fromkeys(TOP_KEYWORDS + GROUP_KEYWORDS + MODIFIER_KEYWORDS + PROJECTION_KEYWORDS + EXPRESSION_KEYWORDS)
)
"""Every SPARQL keyword the shell offers (``a`` aside)."""

COMMON_PREFIXES = {
    "foaf": "http://xmlns.com/foaf/0.1/",
    "dc": "http://purl.org/dc/elements/1.1/",
    "bibo": "http://purl.org/ontology/bibo/",
    "fabio": "http://purl.org/spar/fabio/",
    "cito": "http://purl.org/spar/cito/",
    "sh": "http://www.w3.org/ns/shacl#",
    "void": "http://rdfs.org/ns/void#",
    "wd": "http://www.wikidata.org/entity/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "dbo": "http://dbpedia.org/ontology/",
    "dbr": "http://dbpedia.org/resource/",
}
"""Well-known prefixes offered after ``PREFIX`` (the project's own are declared already)."""
