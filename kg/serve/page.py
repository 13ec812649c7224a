"""The query page at ``/``: a text area holding the declared prefixes and an example, and a results table.

One HTML file, ``kg/assets/query.html``, with its style and script inline: it fetches nothing but
the answers of ``/sparql``, and its ``Content-Security-Policy`` (:func:`security_policy`) lets the
browser load nothing else. ``/?query=...`` fills the text area and runs the query, so a query can be
shared as a link.

Examples
--------
>>> page = render_page(endpoint="/sparql", updates=False, timeout=30, max_rows=10000)
>>> "PREFIX kg: &lt;https://w3id.org/abstract-kg/ontology#&gt;" in page
True
>>> "script-src 'sha256-" in security_policy(page)
True
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from importlib import resources

from kg.namespace import PREFIXES

TEMPLATE = "assets/query.html"

EXAMPLE = """SELECT ?label (COUNT(?paper) AS ?papers) WHERE {
  ?entity a kg:Method ; rdfs:label ?label .
  ?paper kg:mentions ?entity .
}
GROUP BY ?label
ORDER BY DESC(?papers)
LIMIT 20
"""

_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def render_page(*, endpoint: str, updates: bool, timeout: float, max_rows: int) -> str:
    """The page, with the project's prefixes declared in its text area and listed above it."""
    template = resources.files("kg").joinpath(TEMPLATE).read_text(encoding="utf-8")
    declarations = "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in PREFIXES.items())
    values = {
        "{{ENDPOINT}}": html.escape(endpoint),
        "{{MODE}}": "updates need a token" if updates else "read-only",
        "{{TIMEOUT}}": f"{timeout:g}",
        "{{MAX_ROWS}}": f"{max_rows:,}",
        "{{QUERY}}": html.escape(declarations + "\n" + EXAMPLE),
        "{{PREFIXES}}": json.dumps(PREFIXES).replace("</", "<\\/"),
    }
    for placeholder, value in values.items():
        template = template.replace(placeholder, value)
    return template


def security_policy(page: str) -> str:
    """The ``Content-Security-Policy`` of ``page``: its own inline script and style, requests to this server only."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode() + "'"
        for script in _SCRIPT.findall(page)
    )
    return (
        f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; connect-src 'self'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    )
