"""`kg viz`: a self-contained HTML page, and what headless Chromium draws from it."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from conftest import run_kg

from kg.explore.viz import COLOURS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install -y chromium)"
)


@pytest.fixture(scope="module")
def view_html(relations_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("viz") / "view.html"
    done = run_kg("viz", "CLIP", "--hops", "2", "-o", str(target), "--store", str(relations_store))
    assert done.returncode == 0, done.stderr
    return target


def embedded_data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="kg-data">(.*?)</script>', page, re.S)
    assert found
    return json.loads(found.group(1))


def test_page_is_self_contained(view_html: Path) -> None:
    page = view_html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)
    assert "<link" not in page and "@import" not in page and "<script src" not in page
    assert "<title>CLIP and its neighbourhood</title>" in page


def test_page_carries_nodes_edges_types_and_evidence(view_html: Path) -> None:
    data = embedded_data(view_html.read_text(encoding="utf-8"))
    nodes = {n["label"]: n for n in data["nodes"]}
    assert nodes["CLIP"]["center"] and nodes["CLIP"]["hops"] == 0
    assert nodes["robust overfitting"]["hops"] == 2 and "quantum annealing" not in nodes
    assert {n["type"] for n in data["nodes"]} <= set(data["colours"])
    edges = {(e["source"].rsplit("/", 1)[1], e["predicate"], e["target"].rsplit("/", 1)[1]): e for e in data["edges"]}
    used_for = edges[("clip", "usedFor", "zsc")]
    assert used_for["evidence"] == "CLIP is used for zero-shot classification." and used_for["support"] == 2
    assert used_for["paper_title"] == "Paper p4"
    co_mention = next(e for e in data["edges"] if e["predicate"] == "mentions")
    assert co_mention["evidence"] and co_mention["paper"]


def test_unknown_concept_exits_2(relations_store: Path, tmp_path: Path) -> None:
    done = run_kg("viz", "CLIPP", "-o", str(tmp_path / "x.html"), "--store", str(relations_store))
    assert done.returncode == 2 and "did you mean: CLIP?" in done.stderr
    assert not (tmp_path / "x.html").exists()


@needs_chromium
def test_chromium_draws_the_graph(view_html: Path, tmp_path: Path) -> None:
    screenshot = tmp_path / "shot.png"
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    url = view_html.resolve().as_uri()
    subprocess.run(
        [CHROMIUM, *flags, f"--screenshot={screenshot}", "--window-size=1000,800", url],
        capture_output=True,
        timeout=120,
        check=True,
    )
    width, height, pixels = read_png(screenshot)
    assert (width, height) == (1000, 800)
    not_white = sum(1 for p in pixels if min(p[:3]) < 235)
    assert not_white > 0.02 * width * height, "the page is (nearly) blank"
    # The nodes are drawn: many pixels of the type colours (the legend's swatches alone have few).
    colours = [tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in COLOURS.values()]
    coloured = sum(1 for p in pixels if any(sum(abs(a - b) for a, b in zip(p, c)) < 24 for c in colours))
    assert coloured > 2000, f"only {coloured} pixels in the colours of types"

    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True)
    nodes = len(embedded_data(view_html.read_text(encoding="utf-8"))["nodes"])
    assert f'data-rendered="{nodes}"' in dom.stdout  # the script ran to the end
    assert dom.stdout.count("<circle") == nodes


def read_png(path: Path) -> tuple[int, int, list[tuple[int, ...]]]:
    """Width, height and pixels (RGB or RGBA tuples) of an 8-bit, non-interlaced PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, {}
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position : position + 8])
        chunks.setdefault(kind, []).append(data[position + 8 : position + 8 + length])
        position += 12 + length
    width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"][0])
    assert depth == 8 and colour_type in (2, 6) and interlace == 0
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(b"".join(chunks[b"IDAT"]))
    stride = width * channels
    previous = bytearray(stride)
    pixels: list[tuple[int, ...]] = []
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - corner
                a, b, c = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                line[i] = (line[i] + (left if a <= b and a <= c else up if b <= c else corner)) & 0xFF
        pixels.extend(tuple(line[i : i + channels]) for i in range(0, stride, channels))
        previous = line
    return width, height, pixels
