"""Retrieval metrics with trec_eval semantics, and TREC run files.

`evaluate(qrels, run, ["ndcg@10", "recall@100", "p@10", "mrr", "map"])` takes qrels `{qid: {doc_id: grade}}`
and a run `{qid: {doc_id: score}}` and returns `{measure: mean}`, or `{qid: {measure: value}}` with
`per_query=True`. The semantics are trec_eval's (checked against ir_measures/pytrec_eval in the tests):

- a run is ranked by score descending, ties broken by doc id descending (trec_eval's order);
- NDCG: gain = the relevance grade, discount log2(rank + 1), ideal ranking from all judged documents;
- Recall, P, MRR, MAP count grade >= 1 as relevant; P@k divides by k even when fewer were retrieved;
- documents not in the qrels are not relevant; a query in the qrels missing from the run scores 0;
- queries without any relevant document are excluded from the means (`excluded_queries` lists them,
  and `evaluate` logs the count).

Measures: `ndcg`, `ndcg@k`, `recall@k`, `p@k`, `mrr` (`mrr@k` cuts the ranking at k), `map` (`map@k`).

Two kinds of measure are built for incomplete judgements (a shallow pool leaves most retrieved documents
unjudged, and the measures above count them as non-relevant):
- `bpref` (Buckley and Voorhees 2004): for each judged relevant document r retrieved, the share of the
  judged non-relevant documents ranked above it, capped at R; `bpref = 1/R * sum_r (1 - min(n_above(r), R)
  / min(R, N))` with R relevant and N judged non-relevant documents (1 per r when N is 0, trec_eval's rule).
  Unjudged documents do not count at all.
- condensed lists (Sakai 2007): `condensed_<measure>` drops the unjudged documents from the ranking and
  scores what is left, e.g. `condensed_ndcg@10` (trec_eval `-J`, ir_measures `judged_only=True`).
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable, Mapping
from typing import Annotated

import numpy as np
import pandas as pd
from pydantic import AfterValidator

from lib.store.trec import Qrels, Run, rank

log = logging.getLogger(__name__)
_MEASURE = re.compile(r"^(condensed_)?(ndcg|recall|p|mrr|map|bpref)(?:@(\d+))?$")
CUTLESS = {"ndcg", "mrr", "map", "bpref"}
CONDENSED = "condensed_"


def parse_measure(measure: str) -> tuple[str, int | None]:
    """`"ndcg@10"` -> ("ndcg", 10); `"mrr"` -> ("mrr", None); `"condensed_p@10"` -> ("condensed_p", 10).
    Raises ValueError on anything else."""
    m = _MEASURE.match(measure.strip().lower())
    if not m or (m.group(2) == "bpref" and (m.group(1) or m.group(3))):
        raise ValueError(
            f"unknown measure {measure!r}: expected ndcg[@k], recall@k, p@k, mrr[@k], map[@k] or bpref, "
            "or condensed_ before one of the first five"
        )
    name, k = (m.group(1) or "") + m.group(2), m.group(3)
    if k is None and m.group(2) not in CUTLESS:
        raise ValueError(f"measure {measure!r} needs a cutoff, e.g. {name}@10")
    if k is not None and int(k) < 1:
        raise ValueError(f"measure {measure!r}: the cutoff must be >= 1")
    return name, (int(k) if k is not None else None)


def _measure_param(measure: str) -> str:
    """A measure as params.yaml must write it: one `parse_measure` reads, in lower case."""
    name, k = parse_measure(measure)
    if measure != measure.strip().lower():
        raise ValueError(f"write the measure {measure!r} in lower case, without spaces")
    if measure != (written := name if k is None else f"{name}@{k}"):  # `recall@0100` was another key for recall@100
        raise ValueError(f"write the measure {measure!r} as {written!r}")
    return measure


Measure = Annotated[str, AfterValidator(_measure_param)]  # a measure name in params.yaml


def relevant_queries(qrels: Qrels) -> list[str]:
    """Queries with at least one document of grade >= 1: the ones the means are over."""
    return [q for q, docs in qrels.items() if any(g >= 1 for g in docs.values())]


def excluded_queries(qrels: Qrels) -> list[str]:
    """Queries in the qrels without any relevant document (excluded from every mean)."""
    keep = set(relevant_queries(qrels))
    return [q for q in qrels if q not in keep]


def _ideal_gains(judged: Mapping[str, int]) -> np.ndarray:
    """The grades of the judged relevant documents, best first: the ideal ranking's gains."""
    return np.sort(np.array([g for g in judged.values() if g > 0], dtype=float))[::-1]


def _dcg(gains: np.ndarray) -> float:
    return float(np.sum(gains / np.log2(np.arange(2, len(gains) + 2)))) if len(gains) else 0.0


def query_measures(judged: Mapping[str, int], scores: Mapping[str, float], measures: Iterable[str]) -> dict[str, float]:
    """Every measure for one query."""
    full = rank(scores)
    condensed = [d for d in full if judged.get(d, -1) >= 0]  # a negative grade is unjudged, as trec_eval -J reads it
    n_rel = sum(1 for g in judged.values() if g >= 1)
    ideal = _ideal_gains(judged)
    out: dict[str, float] = {}
    for measure in measures:
        name, k = parse_measure(measure)
        if name == "bpref":
            out[measure] = bpref(judged, full)
            continue
        ranking = condensed if name.startswith(CONDENSED) else full
        name = name.removeprefix(CONDENSED)
        grades = np.array([max(judged.get(d, 0), 0) for d in ranking], dtype=float)
        rel = grades >= 1
        cut = slice(None, k)
        if name == "ndcg":
            idcg = _dcg(ideal[cut])
            out[measure] = _dcg(grades[cut]) / idcg if idcg > 0 else 0.0
        elif name == "recall":
            out[measure] = float(rel[cut].sum()) / n_rel if n_rel else 0.0
        elif name == "p":
            out[measure] = float(rel[cut].sum()) / k
        elif name == "mrr":
            hits = np.flatnonzero(rel[cut])
            out[measure] = 1.0 / (hits[0] + 1) if len(hits) else 0.0
        elif name == "map":
            hits = np.flatnonzero(rel[cut])
            out[measure] = float(np.sum(np.arange(1, len(hits) + 1) / (hits + 1))) / n_rel if n_rel else 0.0
    return out


def bpref(judged: Mapping[str, int], ranking: Iterable[str]) -> float:
    """bpref of one ranking (trec_eval's `bpref`; see the module docstring). Grade >= 1 is relevant,
    a judged grade 0 non-relevant, anything else (a negative grade: unjudged, as trec_eval reads it) is ignored."""
    n_rel = sum(1 for g in judged.values() if g >= 1)
    n_non = sum(1 for g in judged.values() if g == 0)
    if not n_rel:
        return 0.0
    total, above = 0.0, 0
    for d in ranking:
        if d not in judged:
            continue
        if judged[d] >= 1:
            total += 1.0 - min(above, n_rel) / min(n_rel, n_non) if above else 1.0
        elif judged[d] == 0:  # a negative grade counted as non-relevant (bpref 0.0 where trec_eval gives 1.0)
            above += 1
    return total / n_rel


def evaluate(
    qrels: Qrels, run: Run, measures: Iterable[str], per_query: bool = False
) -> dict[str, float] | dict[str, dict[str, float]]:
    """Mean of each measure over the queries with a relevant document (or per query values)."""
    measures = list(measures)
    for m in measures:
        parse_measure(m)
    same_id_types(qrels, run)
    queries = relevant_queries(qrels)
    n_excluded = len(qrels) - len(queries)
    if n_excluded:
        log.info("evaluate: %d of %d queries have no relevant document and are excluded", n_excluded, len(qrels))
    per = {q: query_measures(qrels[q], run.get(q, {}), measures) for q in queries}
    if per_query:
        return per
    return {m: (float(np.mean([v[m] for v in per.values()])) if per else math.nan) for m in measures}


def same_id_types(qrels: Qrels, run: Run, caller: str = "evaluate") -> None:
    """A TypeError when the qrels and the run name queries or documents with ids of other types (an int claim
    id never meets its text form: every measure was 0, unsaid), or one of them with ids of two types (a run
    keyed partly by int lost those queries from the mean)."""
    for what, a, b in (
        ("query", next(iter(qrels), None), next(iter(run), None)),
        (
            "document",
            next((d for q in qrels.values() for d in q), None),
            next((d for r in run.values() for d in r), None),
        ),
    ):
        if a is not None and b is not None and type(a) is not type(b):
            raise TypeError(
                f"{caller}: the qrels' {what} ids are {type(a).__name__} ({a!r}), the run's {type(b).__name__} ({b!r}); "
                "give both as text"
            )
    for side, ids in (("qrels'", list(qrels)), ("run's", list(run))):
        kinds = {type(i): i for i in reversed(ids)}
        if len(kinds) > 1:
            shown_ = ", ".join(f"{t.__name__} ({v!r})" for t, v in kinds.items())
            raise TypeError(f"{caller}: the {side} query ids are of {len(kinds)} types, {shown_}; give all as text")


def metric_curves(qrels: Qrels, run: Run, max_k: int = 100, per_query: bool = False) -> pd.DataFrame:
    """NDCG@k, Recall@k and P@k for every k = 1..max_k at once (same semantics as `evaluate`).

    Returns a frame indexed by k with columns ndcg, recall, p (means over the relevant queries), or with
    `per_query=True` a frame indexed by (qid, k)."""
    same_id_types(
        qrels, run, "metric_curves"
    )  # as `evaluate`: int run ids beside text qrels ids gave all-zero curves, unsaid
    ks = np.arange(1, max_k + 1)
    disc = 1.0 / np.log2(ks + 1)
    frames = {}
    for q in relevant_queries(qrels):
        judged = qrels[q]
        ranking = rank(run.get(q, {}))[:max_k]
        gains = np.zeros(max_k)
        gains[: len(ranking)] = [max(judged.get(d, 0), 0) for d in ranking]
        ideal = np.zeros(max_k)
        top = _ideal_gains(judged)[:max_k]
        ideal[: len(top)] = top
        n_rel = sum(1 for g in judged.values() if g >= 1)
        hits = np.cumsum(gains >= 1)
        frames[q] = np.stack([np.cumsum(gains * disc) / np.cumsum(ideal * disc), hits / n_rel, hits / ks], axis=1)
    cols = ["ndcg", "recall", "p"]
    if per_query:
        idx = pd.MultiIndex.from_product([list(frames), ks], names=["qid", "k"])
        return pd.DataFrame(
            np.concatenate(list(frames.values())) if frames else np.zeros((0, 3)), index=idx, columns=cols
        )
    mean = np.mean(np.stack(list(frames.values())), axis=0) if frames else np.full((max_k, 3), np.nan)
    return pd.DataFrame(mean, index=pd.Index(ks, name="k"), columns=cols)
