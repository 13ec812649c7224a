"""The query page of `kg serve`: self-contained, the declared prefixes in its text area, and, in headless
Chromium, a query run from it filling the results table (or saying what the server refused)."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest
import requests
from conftest import CHROMIUM, chromium_flags, needs_chromium
from serve_helpers import kg_server

from kg.namespace import PREFIXES


@pytest.fixture(scope="module")
def server(relations_store: Path, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("page")
    shutil.copytree(relations_store, folder / "store")
    with kg_server(folder / "store", folder / "stderr.txt", "--max-rows", "5") as running:
        yield running


def test_the_page_is_self_contained_and_declares_the_prefixes(server) -> None:
    answer = requests.get(server.url + "/")
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("text/html")
    page = answer.text
    assert not re.search(r"""(?:src|href|action)\s*=\s*["']?(?:https?:)?//""", page)
    assert "<link" not in page and "@import" not in page and "<script src" not in page
    area = html.unescape(re.search(r"<textarea[^>]*>(.*?)</textarea>", page, re.S).group(1))
    for name, iri in PREFIXES.items():
        assert f"PREFIX {name}: <{iri}>\n" in area
    assert f"SPARQL 1.1 endpoint: <code>{server.sparql}</code> (read-only)" in page
    policy = dict(part.strip().split(" ", 1) for part in answer.headers["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == "'none'" and policy["connect-src"] == "'self'"
    assert policy["script-src"].startswith("'sha256-") and "unsafe" not in policy["script-src"]


def rendered(server, query: str, tmp_path: Path) -> str:
    """The page's DOM once the query given in its URL has run, as headless Chromium serialises it."""
    command = [
        CHROMIUM,
        *chromium_flags(tmp_path),
        "--virtual-time-budget=20000",  # virtual time waits for the page's fetch to be answered
        "--dump-dom",
        f"{server.url}/?query={quote(query)}",
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout


@needs_chromium
def test_chromium_runs_a_query_from_the_page(server, tmp_path: Path) -> None:
    dom = rendered(server, "SELECT ?label WHERE { ?e a kg:Method ; rdfs:label ?label } ORDER BY ?label", tmp_path)
    assert 'data-done="200"' in dom  # the script ran (its hash is in the page's security policy) and got its answer
    table = re.search(r'<table id="results" data-rows="(\d+)">(.*?)</table>', dom, re.S)
    assert table and table.group(1) == "4"
    cells = re.findall(r"<td[^>]*>(.*?)</td>", table.group(2))
    assert cells == ["Adaptive Return-conditioned Policy", "CLIP", "adversarial training", "quantum annealing"]
    assert "4 rows in " in dom


@needs_chromium
def test_chromium_shows_what_the_server_refused(server, tmp_path: Path) -> None:
    dom = rendered(server, "SELECT * WHERE { ?s ?p ?o }", tmp_path)
    assert 'data-done="422"' in dom
    assert "HTTP 422: the answer has more than 5 rows (--max-rows)" in dom
    assert re.search(r'<table id="results" hidden="">', dom)
