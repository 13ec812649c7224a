"""Files that ship with the package: the ontology, the SHACL shapes, the vocabularies."""
from __future__ import annotations

from pathlib import Path

# ontology/ is installed beside kg/ (a sibling top-level package), in a wheel and in an editable install alike.
ONTOLOGY_DIR = Path(__file__).resolve().parent.parent / "ontology"
ONTOLOGY_FILE = ONTOLOGY_DIR / "kg.ttl"
SHAPES_FILE = ONTOLOGY_DIR / "shapes.ttl"
VOCABULARY_DIR = ONTOLOGY_DIR / "vocab"
