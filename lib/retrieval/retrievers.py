"""The retriever interface over the store (`Retriever`) and the registry of retriever kinds (`KINDS`: one
module each, `lib.retrieval.bm25`, `lib.retrieval.dense`, `lib.retrieval.hybrid`), in the two scopes.

Every retriever answers the same question: given query texts and the candidate documents (row indices of
`documents.parquet`), what is the score of every (query, candidate) pair? Scoring the whole candidate set
(not only a top-k) is what min-max normalisation "over the whole scored collection" in `lib.retrieval.fusion` needs.

Scopes: `claim` ranks only the claim's pool (the per-claim knowledge store of AVeriTeC; BM25 statistics
come from that pool, as the AVeriTeC baseline builds one BM25 index per claim), `global` ranks the whole
collection (open domain; statistics from the whole collection).

Global index (`GlobalIndex`, params `retrieval.global_index`): `flat` (the default) scores every document
of the collection exactly. For a collection too large for that (the organisers' store holds millions of
passages), `ivf` or `hnsw` builds faiss' approximate index: the candidates of a set of queries in the
global scope are the union of each query's (up to) `candidates` nearest documents by that index (for
hybrid, with each query's `candidates` best BM25 documents that match it), and only they are scored,
exactly. `lib.retrieval.runs` gives each plan the candidates of its own queries. A run then misses what the index
missed, and min-max normalisation runs over those candidates rather than the whole collection.

The temporal filter is `lib.retrieval.temporal`; a new kind is a module with a `KIND` (`lib.retrieval.kind.Kind`)
added to `KINDS`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lib.retrieval import fusion as F
from lib.retrieval.bm25 import BM25
from lib.retrieval.bm25 import KIND as BM25_KIND
from lib.retrieval.dense import KIND as DENSE_KIND
from lib.retrieval.dense import DenseIndex
from lib.retrieval.hybrid import KIND as HYBRID_KIND
from lib.retrieval.kind import Kind
from lib.retrieval.vocabulary import RETRIEVERS, RetrieverKind  # noqa: F401 (the names KINDS registers)
from lib.store.scopes import SCOPES

KINDS: dict[str, Kind] = {k.name: k for k in (BM25_KIND, DENSE_KIND, HYBRID_KIND)}  # the registry
if tuple(KINDS) != RETRIEVERS:  # the params vocabulary and the registry name the same kinds
    raise ImportError(f"lib.retrieval.vocabulary names {RETRIEVERS}, the registry KINDS {tuple(KINDS)}")


class Retriever:
    """One retriever of a registered kind (`KINDS`) in one scope over the store's documents.

    `score(claim_id, queries, rows)` returns (queries x rows) scores for candidate rows of the claim, as the
    kind scores them. With an approximate global index, the global scope's candidates depend on the
    claim's queries.
    """

    def __init__(
        self,
        kind: str,
        scope: str,
        bm25: BM25 | None = None,
        dense: DenseIndex | None = None,
        pools: dict[int, np.ndarray] | None = None,
    ):
        if kind not in KINDS:
            raise ValueError(f"unknown retriever {kind!r} (expected one of {tuple(KINDS)})")
        if scope not in SCOPES:
            raise ValueError(f"unknown scope {scope!r} (expected one of {SCOPES})")
        self.spec = KINDS[kind]
        missing = [
            index
            for index, needed, given in (
                ("a BM25 index", self.spec.needs_bm25, bm25),
                ("a dense index", self.spec.needs_dense, dense),
            )
            if needed and given is None
        ]
        if missing:
            raise ValueError(f"retriever {kind!r} needs {' and '.join(missing)}")
        if scope == "claim" and pools is None:
            raise ValueError("the claim scope needs the claim pools (lib.store.build.claim_pools)")
        self.kind, self.scope, self.bm25, self.dense, self.pools = kind, scope, bm25, dense, pools
        self._pool_bm25: dict[int, BM25] = {}

    @property
    def approximate(self) -> bool:
        """Whether this retriever's candidates come from an approximate index (global scope, dense part)."""
        return self.scope == "global" and self.spec.needs_dense and self.dense.approximate

    def candidates(self, claim_id: int, queries: Sequence[str] = ()) -> np.ndarray:
        """Row indices the claim may retrieve in this scope (sorted). With an approximate global index
        they are found from the claim's `queries` (module docstring), which must then be given."""
        if self.scope == "claim":
            return self.pools.get(claim_id, np.empty(0, dtype=np.int64))
        if not self.approximate:
            return np.arange(self.bm25.n_docs if self.bm25 is not None else self.dense.n_docs)
        if not len(queries):
            raise ValueError(
                f"claim {claim_id}: the global scope with a {self.dense.settings.kind!r} index finds candidates "
                "from the claim's queries; none were given"
            )
        k = self.dense.settings.candidates
        found = [self.dense.search(queries, k)[1].ravel()]
        if self.spec.adds_bm25_candidates:  # each query's best BM25 documents that match it, lower row first on ties
            lower_first = -np.arange(self.bm25.n_docs)
            found += [F.top_k(np.where(s > 0, s, -np.inf), k, lower_first) for s in self.bm25.scores(queries)]
        rows = np.unique(np.concatenate(found))
        return rows[rows >= 0]

    def bm25_scores(self, claim_id: int, queries: Sequence[str], rows: np.ndarray) -> np.ndarray:
        """BM25 scores of the rows: statistics of the whole collection (global) or of the claim's pool."""
        if self.scope == "global":
            return self.bm25.scores(queries, rows)
        pool = self.candidates(claim_id)
        if claim_id not in self._pool_bm25:
            self._pool_bm25 = {claim_id: self.bm25.subset(pool)}  # one claim at a time: bounded memory
        local = np.searchsorted(pool, rows)
        if (local >= len(pool)).any() or not np.array_equal(pool[np.minimum(local, len(pool) - 1)], rows):
            raise ValueError(f"claim {claim_id}: candidate rows outside its pool")
        return self._pool_bm25[claim_id].scores(queries, local)

    def score(self, claim_id: int, queries: Sequence[str], rows: np.ndarray | None = None) -> np.ndarray:
        rows = self.candidates(claim_id, queries) if rows is None else np.asarray(rows, dtype=np.int64)
        if len(rows) == 0 or len(queries) == 0:
            return np.zeros((len(queries), len(rows)))
        return self.spec.scores(self, claim_id, queries, rows)
