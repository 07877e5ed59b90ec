"""The `hybrid` retriever kind: the mean of BM25 and dense scores, each min-max normalised per query over the
candidates (so a filtered candidate set is scored anew)."""

from __future__ import annotations

import numpy as np

from lib.retrieval import fusion as F
from lib.retrieval.kind import Kind


def scores(retriever, claim_id: int, queries, rows: np.ndarray) -> np.ndarray:
    """0.5 * (normalised BM25 + normalised dense), queries x rows."""
    return 0.5 * (
        F.minmax_rows(retriever.bm25_scores(claim_id, queries, rows))
        + F.minmax_rows(retriever.dense.scores(queries, rows).astype(np.float64))
    )


KIND = Kind(
    "hybrid", needs_bm25=True, needs_dense=True, scores=scores, candidate_dependent=True, adds_bm25_candidates=True
)
