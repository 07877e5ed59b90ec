"""TREC files: runs (`qid Q0 doc_id rank score tag`) and qrels (`qid 0 doc_id grade`), and trec_eval's
order of a run (score descending, ties by doc id descending)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path

from lib import outputs as OUT

Qrels = Mapping[str, Mapping[str, int]]  # {qid: {doc_id: grade}}
Run = Mapping[str, Mapping[str, float]]  # {qid: {doc_id: score}}


def rank(scores: Mapping[str, float]) -> list[str]:
    """Doc ids in trec_eval order: score descending, then doc id descending. A NaN score is an error: it
    has no place in the order (sorted, it left the ranking to the order of the dict: MRR 1.0, 0.333 or
    0.5 for one run)."""
    if (nan := next((d for d, s in scores.items() if s != s), None)) is not None:
        raise ValueError(f"document {nan!r} has the score NaN: a ranking needs a number for every document")
    return [d for d, _ in sorted(scores.items(), key=lambda x: (x[1], x[0]), reverse=True)]


def write_trec_run(run: Run, path: Path | str, tag: str = "study", depth: int | None = None) -> None:
    """TREC run format: `qid Q0 doc_id rank score tag`, ranked as `rank` orders them."""
    OUT.write_lines(
        path,
        (
            f"{qid} Q0 {did} {i} {run[qid][did]:.10g} {tag}"
            for qid in sorted(run, key=lambda q: (len(q), q))
            for i, did in enumerate(rank(run[qid])[:depth], start=1)
        ),
    )


def trec_lines(path: Path | str, fields: str) -> Iterable[list[str]]:
    """The whitespace-separated fields of each non-empty line; a wrong field count names the line."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            parts = line.split()
            if parts and len(parts) != len(fields.split()):
                raise ValueError(f"{path}:{n}: expected {len(fields.split())} fields ({fields}), got {len(parts)}")
            if parts:
                yield parts


def read_trec_run(path: Path | str) -> dict[str, dict[str, float]]:
    """A TREC run file back as `{qid: {doc_id: score}}`."""
    run: dict[str, dict[str, float]] = {}
    for n, (qid, _, did, _, score, _) in enumerate(trec_lines(path, "qid Q0 doc rank score tag"), start=1):
        try:
            value = float(score)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):  # `nan` was read as a score, and ranked by the dict's order
            raise ValueError(
                f"{path}: run line {n} (query {qid}, document {did}): score {score!r} is not a finite number"
            )
        run.setdefault(qid, {})[did] = value
    return run


def write_trec_qrels(qrels: Qrels, path: Path | str) -> None:
    """TREC qrels format: `qid 0 doc_id grade`, one judgement a line."""
    OUT.write_lines(path, (f"{qid} 0 {did} {int(grade)}" for qid, docs in qrels.items() for did, grade in docs.items()))


def read_trec_qrels(path: Path | str) -> dict[str, dict[str, int]]:
    """A TREC qrels file back as `{qid: {doc_id: grade}}`."""
    qrels: dict[str, dict[str, int]] = {}
    for qid, _, did, grade in trec_lines(path, "qid 0 doc grade"):
        qrels.setdefault(qid, {})[did] = int(grade)
    return qrels
