"""lib.analysis.without_gold: the store rebuilt without the gold answers, on the fixtures, end to end."""

from __future__ import annotations

import json

import pandas as pd

from lib import models as MD
from lib.analysis import without_gold as WG
from lib.store.build import build_store
from tests.conftest import FIXTURE_DATA, fixture_settings, interrupt_at_call

ANSWERING = {"retriever": "bm25", "temporal": False, "verdict_source": "majority"}  # as the main run answers


def test_the_store_without_gold_answers_is_rebuilt_run_and_scored(tiny_study, tmp_path):
    params = {
        "synthesis": {"without_gold": {"plans": ["claim_only", "oracle"], "scopes": ["claim", "global"]}},
        "store": fixture_settings().model_dump(),
        "compute": {"backend": "local", "workers": 1},
        "retrieval": {"model": MD.BUNDLED_MINILM, "bm25": {}, "workers": 1, "depth": 10},
        "averitec": {"scope": "claim", "max_pairs": 10, "jobs": 1, **ANSWERING},
    }
    (tmp_path / "out" / "predictions").mkdir(parents=True)
    (tmp_path / "out" / "predictions" / "bloom_qg.json").write_text("[]")  # a plan of an earlier run's params
    metrics = WG.run(params, FIXTURE_DATA, tiny_study / "plans", tmp_path / "out", tmp_path / "m.json", progress=False)
    assert json.loads((tmp_path / "m.json").read_text()) == metrics
    # the thirty-fourth pass: it stayed beside scores of the two plans run
    assert sorted(p.name for p in (tmp_path / "out" / "predictions").iterdir()) == ["claim_only.json", "oracle.json"]
    without = build_store(fixture_settings(include_gold=False), FIXTURE_DATA)
    assert metrics["store"]["include_gold"] is False and metrics["store"]["documents"] == len(without.docs)
    assert not without.docs["origin"].astype(str).str.contains("^gold$").any()
    relevant = without.qrels.loc[without.qrels["grade"] > 0, "qid"].nunique()
    assert metrics["store"]["claims_with_relevant"] == relevant and metrics["store"]["claims"] == 3
    assert set(metrics["retrieval"]) == {"bm25/claim", "bm25/global"}
    assert set(metrics["retrieval"]["bm25/claim"]["ndcg@10"]) == {"claim_only", "oracle"}
    scores = pd.read_parquet(tmp_path / "out" / "scores.parquet")
    assert set(scores["run"]) == {"claim_only", "oracle"} and len(scores) == 2 * 3
    for plan in ("claim_only", "oracle"):
        t = scores[scores["run"] == plan]
        assert metrics["evidence"][plan]["qa"] == round(t["qa"].mean(), 4)
        preds = json.loads((tmp_path / "out" / "predictions" / f"{plan}.json").read_text())
        answers = {a["answer"] for p in preds for q in p["questions"] for a in q["answers"]}
        assert answers <= set(without.docs["text"])  # every answer is a document of the rebuilt store


def test_a_stop_while_scoring_leaves_every_previous_output(tiny_study, tmp_path, monkeypatch):
    """The thirty-second pass: each plan's predictions were renamed into place as they were made; a stop while
    scoring the second plan left both new prediction files beside the old scores and metrics."""
    import pytest

    from lib.averitec import evidence as E

    params = {
        "synthesis": {"without_gold": {"plans": ["claim_only", "oracle"], "scopes": ["claim"]}},
        "store": fixture_settings().model_dump(),
        "compute": {"backend": "local", "workers": 1},
        "retrieval": {"model": MD.BUNDLED_MINILM, "bm25": {}, "workers": 1, "depth": 10},
        "averitec": {"scope": "claim", "max_pairs": 10, "jobs": 1, **ANSWERING},
    }
    out = tmp_path / "out"
    (out / "predictions").mkdir(parents=True)
    old = {p: p.write_text("OLD") for p in [out / "predictions" / "claim_only.json", out / "predictions" / "oracle.json",
                                            out / "scores.parquet", tmp_path / "m.json"]}  # fmt: skip
    calls = interrupt_at_call(monkeypatch, E, "score_run", 2)
    with pytest.raises(KeyboardInterrupt):
        WG.run(params, FIXTURE_DATA, tiny_study / "plans", out, tmp_path / "m.json", progress=False)
    assert all(p.read_text() == "OLD" for p in old) and len(calls) == 2
    assert sorted(p.name for p in (out / "predictions").iterdir()) == ["claim_only.json", "oracle.json"]  # no temporary


def test_the_main_runs_answering_setting_must_be_one_this_stage_answers_in():
    """The forty-ninth pass: `synthesis.without_gold.scopes: [global]` beside `averitec.scope: claim` scored every
    plan's evidence 0.0 from empty answers, and a dense main run was set beside the rebuilt store's BM25."""
    import pytest

    from lib.cli import NamedError
    from lib.params import section

    av = section("averitec")
    WG.answering_setting(av, ["claim", "global"])
    with pytest.raises(
        NamedError, match=r"averitec.scope = 'claim' is not in synthesis.without_gold.scopes \['global'\]"
    ):
        WG.answering_setting(av, ["global"])
    with pytest.raises(
        NamedError, match=r"averitec.retriever = 'dense' \(this stage: 'bm25'\); averitec.temporal = True"
    ):
        WG.answering_setting({**av, "retriever": "dense", "temporal": True}, ["claim"])
