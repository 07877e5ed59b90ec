"""Straightforward reference implementations, written for clarity, not speed.

The vectorised code in `lib/` must give the same results: the tests check it, and the benchmark
(`make bench`) times both side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def ranked(scores: Mapping[str, float]) -> list[str]:
    """Doc ids by score descending, then doc id descending."""
    return sorted(scores, key=lambda d: (scores[d], d), reverse=True)


def minmax(scores: Mapping[str, float]) -> dict[str, float]:
    lo, hi = min(scores.values()), max(scores.values())
    return {d: ((s - lo) / (hi - lo) if hi > lo else 0.0) for d, s in scores.items()}


def fuse_dicts(runs: Sequence[Mapping[str, float]], method: str, depth: int = 100, rrf_k: int = 60) -> dict[str, float]:
    """One claim's sub-query runs ({doc: score}, every candidate scored) fused document by document."""
    fused: dict[str, float] = {}
    if method == "top1":
        for i, run in enumerate(runs):
            top = ranked(run)[0]
            fused[top] = max(fused.get(top, float("-inf")), float(len(runs) - i))
        return fused
    if method in ("combmax", "combsum"):
        for run in runs:
            for d, s in run.items():
                fused[d] = (max(fused[d], s) if method == "combmax" else fused[d] + s) if d in fused else s
        return fused
    if method in ("combmax_norm", "combsum_norm"):
        return fuse_dicts([minmax(r) for r in runs], method[: -len("_norm")])
    if method == "rrf":
        for run in runs:
            for r, d in enumerate(ranked(run)[:depth], start=1):
                fused[d] = fused.get(d, 0.0) + 1.0 / (rrf_k + r)
        return fused
    if method == "combmnz":
        counts: dict[str, int] = {}
        for run in runs:
            norm = minmax(run)
            for d in ranked(run)[:depth]:
                fused[d] = fused.get(d, 0.0) + norm[d]
                counts[d] = counts.get(d, 0) + 1
        return {d: s * counts[d] for d, s in fused.items()}
    if method == "wsum_norm":  # half the best normalised score, half the mean normalised score
        best, total = fuse_dicts(runs, "combmax_norm"), fuse_dicts(runs, "combsum_norm")
        return {d: 0.5 * best[d] + 0.5 * total[d] / len(runs) for d in best}
    raise ValueError(method)


def averitec_claim_scores(preds, refs) -> list[tuple[float, float]]:
    """(Q-only, Q+A) per claim the organisers' way: every pair tokenised and scored afresh, one process.

    `preds` and `refs` are `lib.averitec.scoring.Evidence` lists (the same parsed inputs the fast scorer gets)."""
    from nltk import word_tokenize
    from nltk.translate.meteor_score import single_meteor_score
    from scipy.optimize import linear_sum_assignment

    def matrix(cands, golds):
        m = np.empty((len(cands), len(golds)))
        for i, c in enumerate(cands):
            for j, g in enumerate(golds):
                m[i, j] = single_meteor_score(word_tokenize(g), word_tokenize(c))
        return m

    def assign(m, n):
        if m.size == 0 or n == 0:
            return 0.0
        rows, cols = linear_sum_assignment(m, maximize=True)
        return float(m[rows, cols].sum() / n)

    out = []
    for p, r in zip(preds, refs):
        q_pred = list(p.questions if p.has_questions else p.strings)[:10]
        out.append(
            (
                assign(matrix(q_pred, r.questions), len(r.questions)),
                assign(matrix(list(p.strings)[:10], r.strings), len(r.strings)),
            )
        )
    return out
