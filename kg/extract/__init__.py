"""Extraction: documents in, plain records out (no RDF). spaCy is imported only when a pipeline is built."""

from kg.extract.records import DocumentRecord, Entity, Mention, Relation

__all__ = ["DocumentRecord", "Entity", "Mention", "Relation"]
