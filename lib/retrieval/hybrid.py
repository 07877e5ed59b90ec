"""The `hybrid` retriever kind: the mean of BM25 and dense scores, each min-max normalised per query over the
candidates (so a filtered candidate set is scored anew)."""

from __future__ import annotations

import numpy as np

from lib.retrieval import bm25, dense
from lib.retrieval import fusion as F
from lib.retrieval.kind import Kind

PARTS = (bm25.KIND, dense.KIND)  # the kinds whose normalised scores the hybrid averages


def scores(retriever, claim_id: int, queries, rows: np.ndarray) -> np.ndarray:
    """The mean of the parts' normalised scores, queries x rows: 0.5 * (BM25 + dense)."""
    parts = [F.minmax_rows(kind.scores(retriever, claim_id, queries, rows)) for kind in PARTS]
    return 0.5 * (parts[0] + parts[1])


KIND = Kind(
    "hybrid", needs_bm25=True, needs_dense=True, scores=scores, candidate_dependent=True, adds_bm25_candidates=True
)
