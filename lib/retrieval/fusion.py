"""Aggregating a claim's sub-query results into one ranking, as the thesis defines the methods.

Input: one claim's score matrix `scores` (sub-queries x candidate documents) from `lib.retrieval.retrievers`, and a
tie-break key per candidate (its doc id's position in ascending doc-id order: on equal scores the larger
doc id ranks first, trec_eval's order). Output: one fused score per candidate; `-inf` marks candidates
the method does not return (TOP-1, RRF and CombMNZ return only what some sub-query ranked).

- TOP-1: the top document of each sub-query, in sub-query order (score n - i for the i-th sub-query's
  top document; a document that tops several keeps its first position).
- CONCAT: one query, the claim and its sub-queries joined by a separator (`concat_query`); its scores
  are the ranking, so `fuse(..., "concat")` takes exactly one row.
- COMBMAX / COMBSUM: each document's max / sum of raw scores over the sub-queries.
- COMBMAX-NORM / COMBSUM-NORM: scores min-max normalised per sub-query over the whole scored collection,
  r' = (r - min_d r) / (max_d r - min_d r), then max / sum. A sub-query whose scores are all equal carries
  no ranking information and normalises to 0 everywhere (no division by zero).
- RRF (extension): sum over sub-queries of 1 / (k + rank), over each sub-query's top `depth` (k = 60).
- CombMNZ (extension): the sum of normalised scores over the sub-queries whose top `depth` holds the
  document, times how many of them do.
- WSUM-NORM (extension): a weighted sum of the two normalised thesis methods,
  `WSUM_WEIGHT` x COMBMAX-NORM + (1 - `WSUM_WEIGHT`) x COMBSUM-NORM / n over n sub-queries: the best single
  match and the sub-queries' agreement, equally weighted (fixed in advance, not tuned on the claims it is
  evaluated on). Both parts lie in [0, 1], so neither dominates by scale.

With one sub-query every method returns that sub-query's ranking (TOP-1: its top document only). A score of
`-inf` in `scores` marks a candidate that sub-query does not return: it adds nothing to the sums and is left
out of the normalisation, and a candidate no sub-query returns is not returned.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lib.retrieval.vocabulary import FUSIONS, THESIS_FUSIONS, Fusion  # noqa: F401 (the names fuse implements)

WSUM_WEIGHT = 0.5  # WSUM-NORM's weight on COMBMAX-NORM (the rest on the mean, COMBSUM-NORM / n)


def minmax_rows(scores: np.ndarray) -> np.ndarray:
    """Min-max normalise each row over its columns; a constant row becomes all zeros (no division by 0). A
    `-inf` score (a candidate the sub-query does not return) stays `-inf`, and the row is normalised over its
    other candidates (one `-inf` made every value of its row NaN)."""
    scores = _scaled_down(scores)
    unscored = scores == -np.inf
    if unscored.any():
        lo = np.where(unscored, np.inf, scores).min(axis=1, keepdims=True)
        span = scores.max(axis=1, keepdims=True) - lo  # -inf where none is scored
        safe = np.where(span > 0, span, 1.0)
        return np.where(unscored, -np.inf, np.where(span > 0, (scores - lo) / safe, 0.0))
    lo = scores.min(axis=1, keepdims=True) if scores.shape[1] else np.zeros((len(scores), 1))
    span = (scores.max(axis=1, keepdims=True) if scores.shape[1] else lo) - lo
    safe = np.where(span > 0, span, 1.0)
    return np.where(span > 0, (scores - lo) / safe, 0.0)


def _scaled_down(scores: np.ndarray) -> np.ndarray:
    """Rows whose scores reach a quarter of a float's range divided by their largest magnitude: min-max
    normalisation is the same, and `max - min` no longer overflows (1e308 and -1e308 made every value of the
    row NaN or 0). Other rows are left as they are, bit for bit."""
    if not scores.size:
        return scores
    big = np.where(np.isfinite(scores), np.abs(scores), 0.0).max(axis=1, keepdims=True)
    huge = big > np.finfo(np.float64).max / 4
    return np.where(huge, scores / np.where(huge, big, 1.0), scores) if huge.any() else scores


def concat_query(claim: str, queries: Sequence[str], separator: str = " ") -> str:
    """CONCAT's single query: the claim followed by its sub-queries (the claim is not repeated)."""
    parts = [claim] + [q for q in queries if q.strip() and q.strip() != claim.strip()]
    return separator.join(p.strip() for p in parts)


def fuse(
    scores: np.ndarray,
    method: str,
    tiebreak: np.ndarray | None = None,
    depth: int = 100,
    rrf_k: int = 60,
    norm: np.ndarray | None = None,
) -> np.ndarray:
    """Fused score per candidate (see the module docstring); `scores` is sub-queries x candidates.

    `norm` may pass `minmax_rows(scores)` when the caller already has it."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2:
        raise ValueError(f"scores must be 2-D (sub-queries x candidates), got shape {scores.shape}")
    if method not in FUSIONS:
        raise ValueError(f"unknown fusion {method!r} (expected one of {FUSIONS})")
    n_rows, n_cols = scores.shape
    if n_rows == 0:
        raise ValueError("no sub-query scores: an empty plan must fall back to the claim before fusion")
    if n_cols == 0:
        return np.zeros(0)
    if not (scores < np.inf).all():  # NaN or +inf (one NaN normalised a row's top candidate to 0)
        bad = ~(scores < np.inf)
        row, col = map(int, np.argwhere(bad)[0])
        raise ValueError(
            f"sub-query {row} scores candidate {col} {'NaN' if scores[row, col] != scores[row, col] else '+inf'}: "
            "every candidate needs a number (or -inf)"
        )
    if method == "concat":
        if n_rows != 1:
            raise ValueError(f"CONCAT scores one concatenated query, got {n_rows} rows (use concat_query)")
        return scores[0].copy()
    if method == "combmax":
        return scores.max(axis=0)
    if method == "combsum":
        unscored = scores == -np.inf
        returned = ~unscored.all(axis=0)
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is named below
            if unscored.any():  # a sub-query that does not return a candidate adds nothing
                fused = np.where(returned, np.where(unscored, 0.0, scores).sum(axis=0), -np.inf)
            else:
                fused = scores.sum(axis=0)
        # 1e308 + 1e308 was +inf, ranked first; -1e308 - 1e308 -inf, "not returned" of a candidate every one scored
        if (over := np.flatnonzero(returned & ~np.isfinite(fused))).size:
            raise ValueError(
                f"COMBSUM of candidate {int(over[0])} lies beyond a float's range: scale the scores down "
                "(or use a normalised fusion)"
            )
        return fused
    if method in ("combmax_norm", "combsum_norm", "wsum_norm"):
        norm = minmax_rows(scores) if norm is None else norm
        unscored = norm == -np.inf
        if unscored.any():  # a sub-query that does not return a candidate adds 0 to it; one that none returns: -inf
            fused = fuse(np.where(unscored, 0.0, norm), method)
            return np.where(unscored.all(axis=0), -np.inf, fused)
        if method == "wsum_norm":
            return WSUM_WEIGHT * norm.max(axis=0) + (1 - WSUM_WEIGHT) * norm.mean(axis=0)
        return norm.max(axis=0) if method == "combmax_norm" else norm.sum(axis=0)
    tiebreak = np.arange(n_cols) if tiebreak is None else np.asarray(tiebreak)
    fused = np.full(n_cols, -np.inf)
    if method == "top1":
        if (empty := np.flatnonzero(~np.isfinite(scores).any(axis=1))).size:  # its top was an IndexError
            raise ValueError(f"sub-query {int(empty[0])} has no candidate with a finite score: TOP-1 has none to take")
        tops = np.array([top_k(row, 1, tiebreak)[0] for row in scores])
        np.maximum.at(fused, tops, (n_rows - np.arange(n_rows)).astype(np.float64))
        return fused
    # each sub-query's top `depth` candidates, in rank order
    tops = [top_k(row, depth, tiebreak) for row in scores]
    docs = np.concatenate(tops)
    ranks = np.concatenate([np.arange(len(t)) for t in tops])
    fused[np.unique(docs)] = 0.0
    if method == "rrf":
        np.add.at(fused, docs, 1.0 / (rrf_k + ranks + 1))
        return fused
    norm = minmax_rows(scores) if norm is None else norm  # combmnz
    sums, counts = np.zeros(n_cols), np.zeros(n_cols)
    np.add.at(sums, docs, np.concatenate([norm[i, t] for i, t in enumerate(tops)]))
    np.add.at(counts, docs, 1.0)
    fused[counts > 0] = (sums * counts)[counts > 0]
    return fused


def id_tiebreak(doc_ids: Sequence) -> np.ndarray:
    """Each document's rank in ascending doc id order, ids compared as text: the tie-break of every ranking in
    the study (`top_k` puts the higher doc id first among equal scores, as `lib.store.trec.rank` and trec_eval
    do; integer ids were compared as numbers, 10 above 9, where the written run ranks 9 first)."""
    return np.argsort(np.argsort(np.array([str(d) for d in doc_ids], dtype=object), kind="stable"), kind="stable")


def top_k(fused: np.ndarray, k: int, tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Indices of the k best candidates (fused desc, tie-break desc), `-inf` ones left out; NaN or `+inf` is an
    error (both were left out as if not returned)."""
    if k < 0:  # `order[:-1]` kept every candidate but the last
        raise ValueError(f"top_k: k = {k}; expected a count of at least 0")
    fused = np.asarray(fused, dtype=np.float64)
    if (bad := np.flatnonzero(~(fused < np.inf))).size:  # NaN and +inf were left out without a word
        raise ValueError(f"top_k: candidate {int(bad[0])} scores {fused[bad[0]]}: a ranking needs numbers (or -inf)")
    tiebreak = np.arange(len(fused)) if tiebreak is None else np.asarray(tiebreak)
    keep = np.flatnonzero(np.isfinite(fused))
    if len(keep) > k > 0:  # only candidates scoring at least the k-th best can make the cut (ties kept)
        kth = np.partition(fused[keep], len(keep) - k)[len(keep) - k]
        keep = keep[fused[keep] >= kth]
    order = np.lexsort((-tiebreak[keep], -fused[keep]))
    return keep[order[:k]]
