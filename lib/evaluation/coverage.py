"""Judgement coverage: how much of what a run ranks highly was judged at all.

The store's judgements come from a pool (the published systems' evidence and the annotators' answers).
A document outside it is *unjudged*, and the usual measures count it as non-relevant, so a planner whose
top documents lie outside the pool scores low whether or not they are relevant. The judged share of the
top k says how far a comparison rests on that assumption; the incomplete-judgement measures of
`lib.evaluation.metrics` (`bpref`, `condensed_ndcg@10`) ignore unjudged documents instead of counting them
as failures, and a conclusion that changes between the two kinds of measure depends on the judgements.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from lib.evaluation.metrics import relevant_queries, same_id_types
from lib.retrieval.runs import CONFIG_COLUMNS, runs_dict, select
from lib.store.trec import Qrels, Run, rank

# Measures that ignore unjudged documents (Buckley and Voorhees 2004; Sakai 2007), beside NDCG@10.
ROBUST_MEASURES = ("condensed_ndcg@10", "bpref")


def judged_at_k(judged: Mapping[str, int], scores: Mapping[str, float], k: int) -> float:
    """Share of a query's top k ranked documents that have a judgement of any grade (0 included); over
    the documents retrieved when fewer than k were; NaN when none was."""
    if k < 1:
        raise ValueError(f"judged_at_k: k must be at least 1, got {k}")
    top = rank(scores)[:k]
    return sum(d in judged for d in top) / len(top) if top else math.nan


def judged_share(qrels: Qrels, run: Run, k: int = 10, per_query: bool = False) -> float | dict[str, float]:
    """Mean judged share of the top k over the queries the measures average (those with a relevant
    document, `lib.evaluation.metrics.relevant_queries`), or per query. Queries without any retrieved
    document are left out of the mean."""
    same_id_types(qrels, run, "judged_share")  # an int-keyed run read as retrieving nothing: NaN, or a mean short
    per = {q: judged_at_k(qrels[q], run.get(q, {}), k) for q in relevant_queries(qrels)}
    if per_query:
        return per
    values = [v for v in per.values() if not math.isnan(v)]
    return float(np.mean(values)) if values else math.nan


def judged_grid(runs: pd.DataFrame, qrels: Qrels, k: int = 10, **filters: Any) -> pd.DataFrame:
    """`judged_share` for every selected configuration of a runs table: one row per configuration
    (`lib.retrieval.runs.CONFIG_COLUMNS`) with column `judged@<k>`, like `lib.retrieval.runs.evaluate_grid`."""
    rows = [
        {**dict(zip(CONFIG_COLUMNS, key)), f"judged@{k}": judged_share(qrels, runs_dict(group), k)}
        for key, group in select(runs, **filters).groupby(CONFIG_COLUMNS, observed=True, sort=False)
    ]
    return pd.DataFrame(rows, columns=[*CONFIG_COLUMNS, f"judged@{k}"])
