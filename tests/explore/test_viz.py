"""`kg viz`: a self-contained HTML page, and what headless Chromium draws from it."""

from __future__ import annotations

import html
import itertools
import json
import math
import re
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from conftest import CHROMIUM, chromium_flags, needs_chromium, run_kg

from kg.explore.viz import COLOURS


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


def test_co_mentions_are_thinned_to_the_strongest(seeds_store: Path, tmp_path: Path) -> None:
    def edges(*options: str) -> list[dict]:
        target = tmp_path / "view.html"
        done = run_kg("viz", "CLIP", *options, "-o", str(target), "--store", str(seeds_store))
        assert done.returncode == 0, done.stderr
        return embedded_data(target.read_text(encoding="utf-8"))["edges"]

    def others(found: list[dict]) -> list[dict]:  # co-mentions besides those that reach a concept
        return [e for e in found if e["predicate"] == "mentions" and not e["tree"]]

    every, default, none = edges("--co-mentions", "1000"), edges(), edges("--co-mentions", "0")
    assert len(others(every)) > 6 and len(others(default)) == 6 and others(none) == []
    weakest_kept = min(e["support"] for e in others(default))
    assert sum(e["support"] > weakest_kept for e in others(every)) <= 6
    for thinned in (default, none):  # relations and the links that reach each concept all stay
        assert [e for e in every if e["predicate"] != "mentions" or e["tree"]] == [
            e for e in thinned if e["predicate"] != "mentions" or e["tree"]
        ]


def test_unknown_concept_exits_2(relations_store: Path, tmp_path: Path) -> None:
    done = run_kg("viz", "CLIPP", "-o", str(tmp_path / "x.html"), "--store", str(relations_store))
    assert done.returncode == 2 and "did you mean: CLIP?" in done.stderr
    assert not (tmp_path / "x.html").exists()


@needs_chromium
def test_chromium_draws_the_graph(view_html: Path, tmp_path: Path) -> None:
    screenshot = tmp_path / "shot.png"
    flags = chromium_flags(tmp_path)
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

    dom = render_dom(view_html, tmp_path)
    nodes = len(embedded_data(view_html.read_text(encoding="utf-8"))["nodes"])
    assert f'data-rendered="{nodes}"' in dom  # the script ran to the end
    assert dom.count("<circle") == nodes
    assert_readable(dom, crowded=0)


@needs_chromium
def test_the_seeds_picture_of_clip_is_readable(seeds_store: Path, tmp_path: Path) -> None:
    """The neighbourhood of CLIP in the seeds, about 25 concepts and 40 links, whose labels used to pile up."""
    target = tmp_path / "clip.html"
    done = run_kg("viz", "CLIP", "-o", str(target), "--store", str(seeds_store))
    assert done.returncode == 0, done.stderr
    layout = assert_readable(render_dom(target, tmp_path), crowded=0.1)
    assert sum(e["shown"] for e in layout["edges"]) >= 5  # a picture with names on it, not just arrows


def render_dom(page: Path, tmp_path: Path) -> str:
    """The page's DOM once its script has run, as headless Chromium serialises it."""
    command = [CHROMIUM, *chromium_flags(tmp_path), "--window-size=1000,800", "--dump-dom", page.resolve().as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout


GAP = 3  # the template's space between a circle and its label


def assert_readable(dom: str, *, crowded: float) -> dict:
    """Check the layout the page exposes (``data-layout`` on <body>): no two node labels overlap, nor a label
    and another node; each label sits beside its node; edge labels are drawn only on edges long enough for
    them, and overlap nothing. At most a fraction ``crowded`` of node labels is left for hover."""
    found = re.search(r'<body[^>]*\sdata-layout="([^"]*)"', dom)
    assert found, "the page exposes no layout"
    layout = json.loads(html.unescape(found.group(1)))
    nodes, edges = layout["nodes"], layout["edges"]
    boxes = [n["box"] for n in nodes if n["box"]]
    assert len(nodes) - len(boxes) <= crowded * len(nodes), [n["label"] for n in nodes if not n["box"]]
    for first, second in itertools.combinations(boxes, 2):
        assert not _boxes_overlap(first, second), (first, second)
    for node in nodes:
        circle = [node["x"] - node["r"], node["y"] - node["r"], 2 * node["r"], 2 * node["r"]]
        assert not any(_boxes_overlap(box, circle) for box in boxes if box is not node["box"]), node["label"]
        if node["box"]:  # beside its own circle: the nearest point of the box is a gap away from the rim
            x, y, w, h = node["box"]
            nearest = math.dist((node["x"], node["y"]), (min(max(node["x"], x), x + w), min(max(node["y"], y), y + h)))
            assert nearest <= node["r"] + GAP + 3, node["label"]

    # Edge labels: as many drawn in the DOM as the layout says, only where the edge has room, overlapping nothing.
    captions = re.findall(r'<g class="edge [^"]*">(?:<line[^>]*></line>)+<text([^>]*)>', dom)
    drawn = sum("crowded" not in attributes for attributes in captions)
    shown = [e for e in edges if e["shown"]]
    assert len(captions) == len(edges) and drawn == len(shown) <= sum(e["room"] for e in edges)
    for edge in shown:
        source, target = nodes[edge["source"]], nodes[edge["target"]]
        free = math.dist((source["x"], source["y"]), (target["x"], target["y"])) - source["r"] - target["r"]
        assert edge["room"] and edge["width"] < free - 2 * GAP, edge
        assert not any(_polygons_overlap(edge["corners"], _corners(box)) for box in boxes), edge
    for first, second in itertools.combinations(shown, 2):
        assert not _polygons_overlap(first["corners"], second["corners"]), (first, second)
    return layout


def _boxes_overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _corners(box: list[float]) -> list[tuple[float, float]]:
    x, y, w, h = box
    return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]


def _polygons_overlap(p: list, q: list) -> bool:
    """Separating-axis test for two convex polygons (lists of corners)."""
    for polygon in (p, q):
        for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1]):
            axis = (y2 - y1, x1 - x2)
            one = [px * axis[0] + py * axis[1] for px, py in p]
            two = [px * axis[0] + py * axis[1] for px, py in q]
            if max(one) <= min(two) or max(two) <= min(one):
                return False
    return True


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
