"""The graph as N-Quads shards, for the bulk loader of a server store: ``kg build --shards DIR``.

A build on a cluster ends with the graph in the client's store; a server store (Virtuoso, Oxigraph
server, QLever, ...) loads it fastest from files with its bulk loader: Virtuoso's ``ld_dir`` and
``rdf_loader_run()``, ``oxigraph load --location DB --file DIR/shard-00000.nq ...``, QLever's index
builder reading ``cat DIR/*.nq``. The shards hold the default graph (the knowledge graph, as
``kg export --format nq`` gives it; not the build's bookkeeping), at most ``size`` triples each, in
the store's own order: the same store gives the same files. Each file is written atomically, and
shards left by an earlier build are removed first, so the folder holds one graph.

Examples
--------
>>> import tempfile, pathlib
>>> from rdflib import Literal
>>> from kg.rdf import KG, paper_iri
>>> from kg.store import open_store
>>> tmp = pathlib.Path(tempfile.mkdtemp())
>>> with open_store(tmp / "s", create=True) as store:
...     store.write([(paper_iri(f"p{k}"), KG.sourceLocation, Literal("a.txt:1")) for k in range(3)])
...     written = write_shards(store, tmp / "shards", size=2)
>>> [(path.name, len(path.read_text().splitlines())) for path in written]
[('shard-00000.nq', 2), ('shard-00001.nq', 1)]
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.files import write_atomically
from kg.iterate import chunked

if TYPE_CHECKING:
    from kg.store import EmbeddedStore

SHARD_SIZE = 1_000_000  # triples per file: about 150 MB of N-Quads here
PATTERN = "shard-{:05d}.nq"


def shards_folder(directory: Path) -> None:
    """Make ``directory`` for the shards if it is not there; a path that cannot be one is a UsageError."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"{directory}: cannot make the shards folder: {err.strerror or err}") from None


def write_shards(store: EmbeddedStore, directory: Path, *, size: int = SHARD_SIZE) -> list[Path]:
    """Write the default graph of ``store`` to ``directory`` as N-Quads files of at most ``size`` triples."""
    import pyoxigraph as ox

    shards_folder(directory)
    for old in directory.glob("shard-*.nq"):
        old.unlink()
    quads = store.ox.quads_for_pattern(None, None, None, ox.DefaultGraph())
    written = []
    for number, chunk in enumerate(chunked(quads, size)):
        path = directory / PATTERN.format(number)
        write_atomically(path, lambda stream, chunk=chunk: stream.write("".join(f"{q} .\n" for q in chunk).encode()))
        written.append(path)
    return written
