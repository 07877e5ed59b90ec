"""The run grid on the fixture store: structure, fallbacks, temporal counts, and agreement with lib pieces."""

import numpy as np
import pandas as pd
import pytest
from conftest import FIXTURE_DATA

from lib.data import averitec
from lib.evaluation.metrics import evaluate
from lib.retrieval import bm25 as BM
from lib.retrieval import fusion as F
from lib.retrieval import runs as RU


@pytest.fixture(scope="module")
def claims():
    return averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")


PLANS = {
    "claim_only": None,  # each claim's own text (filled in by `run_grid`)
    "oracle": {0: ["What is the moon made of?", "Did NASA say it?"], 1: ["What was growth?"], 2: []},
}


def run_grid(docs, claims, **extra):
    """The fixture grid (every retriever, scope and temporal setting) on seeded random vectors."""
    plans = {**PLANS, "claim_only": {c.claim_id: [c.text] for c in claims}}
    grid = RU.RunGrid.model_validate(
        {
            "plans": list(plans),
            "retrievers": ["bm25", "dense", "hybrid"],
            "scopes": ["claim", "global"],
            "temporal": [False, True],
            "keep_undated": False,
            "all_fusions_for": ["oracle"],
            "depth": 5,
            **extra,
        }
    )
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(len(docs), 6)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    texts = RU.queries_needed(grid, plans, claims)
    q = rng.normal(size=(len(texts), 6)).astype(np.float32)
    q_emb = dict(zip(texts, q / np.linalg.norm(q, axis=1, keepdims=True)))
    retr = RU.retrievers(grid, docs, vecs, q_emb)
    runs, report, _ = RU.retrieve(grid, docs, claims, plans, retr, progress=False)
    return grid, plans, retr, runs, report


@pytest.fixture(scope="module")
def grid_and_runs(tiny_store, claims):
    return run_grid(tiny_store.docs, claims)


def test_every_configuration_is_present(grid_and_runs):
    grid, plans, _, runs, _ = grid_and_runs
    configs = runs.groupby(RU.CONFIG_COLUMNS, observed=True).size()
    # claim_only: main fusion only; oracle: 8 fusions; x 3 retrievers x 2 scopes x 2 temporal settings
    assert len(configs) == (1 + len(F.FUSIONS)) * 3 * 2 * 2
    assert runs.groupby(RU.CONFIG_COLUMNS + ["claim_id"], observed=True)["rank"].max().max() <= grid.depth


def test_empty_plans_fall_back_and_are_reported(grid_and_runs, claims):
    *_, runs, report = grid_and_runs
    assert report["fallbacks"]["oracle"] == {"count": 1, "claim_ids": [2]}
    assert report["fallbacks"]["claim_only"]["count"] == 0
    sel = dict(plan="oracle", retriever="bm25", scope="global", temporal=False)
    fallback = RU.runs_dict(runs, **sel, fusion="combmax_norm")["2"]
    assert fallback == RU.runs_dict(runs, **{**sel, "plan": "claim_only"}, fusion="combmax_norm")["2"]


def test_runs_equal_fusing_the_retriever_scores(grid_and_runs, tiny_store, claims):
    grid, _, retr, runs, _ = grid_and_runs
    docs = tiny_store.docs
    r = retr[("bm25", "claim")]
    rows = r.candidates(0)
    scores = r.score(0, ["What is the moon made of?", "Did NASA say it?"], rows)
    tiebreak = np.argsort(np.argsort(docs["doc_id"].to_numpy()))[rows]
    fused = F.fuse(scores, "combsum", tiebreak)
    top = F.top_k(fused, grid.depth, tiebreak)
    got = RU.runs_dict(runs, plan="oracle", retriever="bm25", scope="claim", temporal=False, fusion="combsum")["0"]
    assert list(got) == list(docs["doc_id"].to_numpy()[rows[top]])
    assert np.allclose(list(got.values()), fused[top])
    top1 = RU.runs_dict(runs, plan="oracle", retriever="bm25", scope="claim", temporal=False, fusion="top1")
    assert len(top1["0"]) <= 2 and len(top1["1"]) == 1


def test_temporal_filter_removes_documents_and_counts_them(grid_and_runs, tiny_store):
    *_, runs, report = grid_and_runs
    counts = report["temporal_filter"]["claim"]
    assert counts["candidates"] == sum(
        len(v)
        for v in [tiny_store.docs[tiny_store.docs["claim_ids"].map(lambda ids, c=c: c in ids)] for c in (0, 1, 2)]
    )
    assert counts["kept"] + sum(v for k, v in counts.items() if k.startswith("removed_")) == counts["candidates"]
    on = runs[(runs["temporal"]) & (runs["scope"] == "claim")].groupby("claim_id").size()
    off = runs[(~runs["temporal"]) & (runs["scope"] == "claim")].groupby("claim_id").size()
    assert (on.reindex(off.index, fill_value=0) <= off).all() and on.sum() < off.sum()


def test_runs_evaluate_with_the_store_qrels(grid_and_runs, tiny_store):
    *_, runs, _ = grid_and_runs
    from lib.store.build import qrels_dict

    run = RU.runs_dict(runs, plan="oracle", retriever="bm25", scope="claim", temporal=False, fusion="combmax_norm")
    values = evaluate(qrels_dict(tiny_store.qrels), run, ["ndcg@10", "recall@100"])
    assert 0 < values["ndcg@10"] <= 1 and 0 < values["recall@100"] <= 1
    with pytest.raises(KeyError, match="no run"):
        RU.runs_dict(runs, plan="nope")


def test_grid_parameters_are_checked():
    with pytest.raises(ValueError, match="retrievers"):
        RU.RunGrid.model_validate({"plans": ["a"], "retrievers": ["splade"], "all_fusions_for": []})
    with pytest.raises(ValueError, match="all_fusions_for"):
        RU.RunGrid.model_validate({"plans": ["a"], "all_fusions_for": ["b"]})
    assert RU.RunGrid.model_validate(
        {"plans": ["a"], "bm25": {"k1": 1.2}, "all_fusions_for": []}
    ).bm25 == BM.BM25Params(k1=1.2)


def test_parallel_passes_give_the_same_runs(grid_and_runs, tiny_store, claims):
    grid, plans, retr, runs, report = grid_and_runs
    parallel, report2, answers2 = RU.retrieve(grid, tiny_store.docs, claims, plans, retr, progress=False, workers=2)
    pd.testing.assert_frame_equal(parallel, runs)
    assert report2 == report
    _, _, serial_answers = RU.retrieve(grid, tiny_store.docs, claims, plans, retr, progress=False)
    pd.testing.assert_frame_equal(answers2, serial_answers)


def test_answers_are_each_querys_best_document(grid_and_runs, tiny_store, claims):
    grid, plans, retr, *_ = grid_and_runs
    _, _, answers = RU.retrieve(grid, tiny_store.docs, claims, plans, retr, progress=False)
    docs = tiny_store.docs
    q = "What is the moon made of?"
    got = answers[
        (answers["retriever"] == "bm25")
        & (answers["scope"] == "global")
        & (~answers["temporal"])
        & (answers["claim_id"] == 0)
        & (answers["query"] == q)
    ]
    scores = retr[("bm25", "global")].score(0, [q])[0]
    assert len(got) == 1 and got["score"].iloc[0] == scores.max()
    assert got["doc_id"].iloc[0] in set(docs["doc_id"].to_numpy()[scores == scores.max()])
    concat = F.concat_query(claims[0].text, plans["oracle"][0])
    assert concat not in set(answers["query"])  # CONCAT queries are not plan queries


def test_every_plan_and_configuration_records_its_retrieval_cost(tiny_store, claims, tmp_path, monkeypatch):
    import json

    from lib import timing as TM

    docs = tiny_store.docs
    plans = {
        "claim_only": {c.claim_id: [c.text] for c in claims},
        "two": {c.claim_id: [c.text, "moon"] for c in claims},
    }
    grid = RU.RunGrid.model_validate(
        {
            "plans": list(plans),
            "retrievers": ["bm25"],
            "scopes": ["claim"],
            "temporal": [False, True],
            "all_fusions_for": ["two"],
            "depth": 5,
        }
    )
    (tmp_path / "runs.costs.tmp").write_text("")  # as the timer makes it
    monkeypatch.setenv(TM.COSTS_ENV, str(tmp_path / "runs.costs.tmp"))
    RU.retrieve(grid, docs, claims, plans, RU.retrievers(grid, docs, None, None), progress=False)
    costs = [json.loads(line) for line in (tmp_path / "runs.costs.tmp").read_text().splitlines()]
    parts = {(c["planner"], c["part"]) for c in costs}
    expected = {
        (name, f"bm25/claim/{fusion}{suffix}")
        for name in plans
        for fusion in grid.fusions_for(name)
        for suffix in ("", "/temporal")
    }
    assert parts == expected and len(costs) == len(expected)
    assert all(c["kind"] == "retrieval" and c["claims"] == len(claims) and c["seconds"] > 0 for c in costs)


@pytest.mark.parametrize("kind", ["ivf", "hnsw"])
def test_an_approximate_global_index_that_returns_every_document_gives_the_flat_runs(
    grid_and_runs, tiny_store, claims, kind
):
    *_, flat, flat_report = grid_and_runs
    n = len(tiny_store.docs)
    index = {"kind": kind, "candidates": n, "nlist": 2, "nprobe": 2}  # every cell probed, every document kept
    *_, runs, report = run_grid(tiny_store.docs, claims, global_index=index)

    def ordered(r):  # an approximate pass runs plan by plan: the same rows, in another order
        return r.sort_values([*RU.CONFIG_COLUMNS, "claim_id", "rank"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(ordered(runs), ordered(flat))
    assert report["grid"]["global_index"]["kind"] == kind
    assert report["temporal_filter"] == flat_report["temporal_filter"]


STARVED = {"kind": "ivf", "candidates": 5, "nlist": 4, "nprobe": 1}  # one of 4 cells per query: misses documents


def test_an_approximate_global_index_ranks_only_what_it_found(grid_and_runs, tiny_store, claims):
    grid, plans, retr, runs, _ = run_grid(tiny_store.docs, claims, global_index=STARVED)
    dense = retr[("dense", "global")]
    sel = dict(plan="oracle", scope="global", temporal=False, fusion="combsum")
    got = RU.runs_dict(runs, retriever="dense", **sel)["0"]
    queries, _ = RU.claim_queries(grid, {"oracle": plans["oracle"]}, claims[0])  # its two queries and CONCAT's
    found = dense.candidates(0, queries)
    assert len(queries) == 3 and set(got) <= set(tiny_store.docs["doc_id"].to_numpy()[found])
    assert len(found) < len(tiny_store.docs)
    exact = dense.score(0, PLANS["oracle"][0], found).sum(axis=0)  # CombSUM's exact scores of what was found
    top = np.argsort(-exact, kind="stable")[: grid.depth]
    assert np.allclose(list(got.values()), exact[top])
    # hybrid adds each query's best BM25 documents to the dense candidates; BM25 alone stays exact
    assert set(found) <= set(retr[("hybrid", "global")].candidates(0, queries))
    *_, flat, _ = grid_and_runs
    assert RU.runs_dict(runs, retriever="bm25", **sel) == RU.runs_dict(flat, retriever="bm25", **sel)


def test_with_an_approximate_index_a_plans_run_does_not_depend_on_the_plans_beside_it(
    grid_and_runs, tiny_store, claims
):
    grid, plans, retr, both, report = run_grid(tiny_store.docs, claims, global_index=STARVED)
    *_, alone, _ = run_grid(tiny_store.docs, claims, global_index=STARVED, plans=["claim_only"], all_fusions_for=[])
    dense, docs = retr[("dense", "global")], tiny_store.docs["doc_id"].to_numpy()
    sel = dict(plan="claim_only", scope="global", temporal=False, fusion="combmax_norm")
    wider = 0
    for c in claims:
        own = dense.candidates(c.claim_id, [c.text])
        every, _ = RU.claim_queries(grid, plans, c)
        wider += len(dense.candidates(c.claim_id, every)) > len(own)
        assert set(RU.runs_dict(both, retriever="dense", **sel).get(str(c.claim_id), {})) <= set(docs[own])
    assert wider  # the other plans' queries found more, and CLAIM-ONLY's run did not take it
    for kind in ("dense", "hybrid"):
        assert RU.runs_dict(both, retriever=kind, **sel) == RU.runs_dict(alone, retriever=kind, **sel)
    # the temporal counts: exact for the scope (BM25 scores every document), each approximate pass apart
    *_, flat_report = grid_and_runs
    assert report["temporal_filter"] == flat_report["temporal_filter"]
    approx = report["temporal_filter_approximate"]
    assert set(approx) == {"dense/global", "hybrid/global"}
    assert 0 < approx["dense/global"]["candidates"] < flat_report["temporal_filter"]["global"]["candidates"]


def test_an_approximate_index_needs_candidates_enough_for_a_run():
    with pytest.raises(ValueError, match=r"candidates \(50\) is below retrieval.depth \(100\)"):
        RU.RunGrid.model_validate({"plans": ["oracle"], "global_index": {"kind": "ivf", "candidates": 50}})
    assert RU.RunGrid.model_validate({"plans": ["oracle"], "global_index": {"candidates": 50}}).depth == 100  # flat


def test_runs_dict_refuses_a_selection_of_several_configurations():
    """The thirty-second pass: `runs_dict(runs, plan="oracle")` merged BM25 and dense scores into one run."""
    rows = [
        dict(plan="oracle", retriever=r, scope="claim", temporal=False, fusion="combmax_norm", claim_id=7, doc_id=d,
             rank=i, score=s)
        for r, docs in (("bm25", [("a", 9.0), ("b", 5.0)]), ("dense", [("b", 0.9), ("c", 0.8)]))
        for i, (d, s) in enumerate(docs, 1)
    ]  # fmt: skip
    runs = pd.DataFrame(rows)
    with pytest.raises(
        ValueError,
        match=r"^runs_dict\(plan='oracle'\) selects 2 configurations: name retriever \(one of bm25, dense\)$",
    ):
        RU.runs_dict(runs, plan="oracle")
    assert RU.runs_dict(runs, plan="oracle", retriever="dense") == {"7": {"b": 0.9, "c": 0.8}}
    twice = pd.concat([runs, runs], ignore_index=True)  # the thirty-fourth pass: the last score replaced the first
    with pytest.raises(ValueError, match=r"^runs_dict: claim 7 holds document 'b' twice in one configuration$"):
        RU.runs_dict(twice, plan="oracle", retriever="dense")


def test_runs_dict_reads_whole_float_ids_as_integers_and_refuses_fractional_ones():
    """The thirty-sixth pass: float claim ids (after a merge that brought a NaN) became queries "1.0", matched no
    qrels query, and every measure came out 0."""
    runs = pd.DataFrame({"plan": "p", "retriever": "bm25", "scope": "claim", "temporal": False, "fusion": "none",
                         "claim_id": [1.0, 1.0], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})  # fmt: skip
    assert RU.runs_dict(runs, plan="p") == {"1": {"d1": 2.0, "d2": 1.0}}
    with pytest.raises(ValueError, match=r"^runs_dict: claim id np\.float64\(1\.5\) is no whole number"):
        RU.runs_dict(runs.assign(claim_id=[1.5, 1.5]), plan="p")


def test_runs_dict_reads_float32_ids_and_refuses_a_missing_one():
    import numpy as np

    runs = pd.DataFrame({"claim_id": np.array([1.0, 2.0], dtype=np.float32), "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    assert RU.runs_dict(runs) == {"1": {"a": 1.0}, "2": {"b": 2.0}}
    with pytest.raises(ValueError, match=r"^runs_dict: claim id .*nan.* is no whole number"):
        RU.runs_dict(runs.assign(claim_id=pd.array([1, pd.NA], dtype="Int64")))
