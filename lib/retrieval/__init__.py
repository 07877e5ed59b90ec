"""Retrieval: the retrievers, fusion of sub-query rankings, the run grid and its stages, per-claim retrieval over the knowledge store."""
