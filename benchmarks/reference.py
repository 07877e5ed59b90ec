"""Straightforward reference implementations, written for clarity, not speed.

The vectorised code in `lib/` must give the same results: the tests check it, and the benchmark
(`make bench`) times both side by side.
"""
from __future__ import annotations

from typing import Mapping, Sequence


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
    raise ValueError(method)
