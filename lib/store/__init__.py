"""The evidence store: building it (pooled or from the organisers' knowledge store), passages, URLs, relevance judgements, what the pool holds, TREC files."""
