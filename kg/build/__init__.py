"""Building the graph: corpus-level merging (canon), records -> RDF triples (triples), and `kg build` (builder)."""
