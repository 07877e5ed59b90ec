"""What makes a retriever kind: the indexes it needs and how it scores (query, candidate) pairs. Each kind
lives in its own module (`bm25`, `dense`, `hybrid`) and `lib.retrieval.retrievers.KINDS` registers it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# (retriever, claim_id, queries, candidate rows) -> scores, queries x rows
Scorer = Callable[[Any, int, Sequence[str], np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Kind:
    """A retriever kind. `scores` computes (queries x rows) scores with the retriever's indexes;
    `candidate_dependent`: its scores depend on the candidate set (normalised over it), so a filtered
    candidate set is scored anew; `adds_bm25_candidates`: with an approximate global index, each query's
    best matching BM25 documents join the dense index's candidates."""

    name: str
    needs_bm25: bool
    needs_dense: bool
    scores: Scorer
    candidate_dependent: bool = False
    adds_bm25_candidates: bool = False
