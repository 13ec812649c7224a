"""Read abstracts from source files into :class:`Document` records.

A source is a ``.txt`` file (abstracts separated by blank lines, an optional
leading ``Daily Papers`` line), a ``.jsonl`` file (one object per line with
``text`` or ``abstract``, as in the arXiv metadata snapshot), or a ``.csv`` /
``.tsv`` file (a header row naming the same fields), or a folder of them.

Everything is streamed, so a multi-gigabyte file is read in constant memory, and
every record is yielded, duplicates included: the caller deduplicates by
:attr:`Document.id` and so can keep every place an abstract was seen.

==================  ==============================================================
module              holds
==================  ==============================================================
``document``        the :class:`Document` record and its content id
``readers``         one reader per format, looked up by file suffix (``READERS``)
``fields``          a record's fields (JSON object or table row) as a Document
``sources``         walking SOURCE files and folders; bad input raised or reported
==================  ==============================================================

Examples
--------
>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "papers.txt").write_text(
...     "Daily Papers\\n\\nWe study grokking.\\n\\nWe propose LoRA.\\n")
>>> docs = list(read_documents([folder]))
>>> [(d.text, d.source.endswith("papers.txt:3")) for d in docs][0]
('We study grokking.', True)
>>> docs[1].id == document_id("We propose LoRA.")
True
"""

from kg.ingest.document import Document, document_id
from kg.ingest.readers import SOURCE_SUFFIXES
from kg.ingest.sources import iter_source_files, read_documents

__all__ = ["SOURCE_SUFFIXES", "Document", "document_id", "iter_source_files", "read_documents"]
