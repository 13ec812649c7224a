"""Building the graph: a paper's triples (triples) and its stored extraction record (extraction_graph), the
corpus's concepts (concepts) and the entity level derived from every record (consolidate), and `kg build` (builder)."""
