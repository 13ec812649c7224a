"""Files that ship with the package (the ontology, the SHACL shapes, the vocabularies, the model weights),
and where the reference data beside a checkout is looked for."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
# ontology/ is installed beside kg/ (a sibling top-level package), in a wheel and in an editable install alike.
REPO_DIR = PACKAGE_DIR.parent
ONTOLOGY_DIR = REPO_DIR / "ontology"
ONTOLOGY_FILE = ONTOLOGY_DIR / "kg.ttl"
SHAPES_FILE = ONTOLOGY_DIR / "shapes.ttl"
VOCABULARY_DIR = ONTOLOGY_DIR / "vocab"
MODELS_DIR = PACKAGE_DIR / "models"
# ../shared beside a checkout: the gold annotations and SciERC.
SHARED_DIR = REPO_DIR.parent / "shared"
