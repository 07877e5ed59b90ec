"""lib.analysis.budget: the timing files' per-planner costs read back, per planner and kind, and the budget sentence."""

from __future__ import annotations

import math

import pytest

from lib import timing as TM
from lib.analysis import budget as B

HW = {"cpu": "Xeon", "cores": 2, "memory_gib": 22.9}


def stage(tmp_path, name, costs, finished=None):
    path = TM.record(name, 1.0, ["x"], tmp_path, [TM.cost(*c) if isinstance(c, tuple) else c for c in costs])
    if finished:  # a later rerun of the same work
        import json

        rec = json.loads(path.read_text())
        path.write_text(json.dumps({**rec, "finished": finished}))


@pytest.fixture
def timings(tmp_path, monkeypatch):
    monkeypatch.delenv(TM.COSTS_ENV, raising=False)
    stage(tmp_path, "plans", [("claim_only", "planning", 0.1, 10, "plans"), ("oracle", "planning", 0.2, 10, "plans")])
    stage(tmp_path, "generative_plans", [("qgen", "planning", 50.0, 10, "generative_plans", "cuda:0 NVIDIA H200")])
    stage(
        tmp_path,
        "retrieve",
        [
            ("claim_only", "retrieval", 9.0, 10, "bm25/claim/combmax_norm"),
            ("oracle", "retrieval", 2.0, 10, "bm25/claim/combmax_norm"),
        ],
        finished="2000-01-01T00:00:00+00:00",
    )
    stage(
        tmp_path,
        "generative_runs",
        [
            ("claim_only", "retrieval", 1.0, 10, "bm25/claim/combmax_norm"),
            ("claim_only", "retrieval", 7.0, 10, "dense/claim/combmax_norm"),
            ("qgen", "retrieval", 3.0, 10, "bm25/claim/combmax_norm"),
        ],
    )
    stage(
        tmp_path,
        "nli_planners",
        [
            ("claim_only", "verification", 1.0, 10, "k=3, seed 0"),
            ("claim_only", "verification", 3.0, 10, "k=3, seed 1"),
            ("qgen", "verification", 600.0, 10, "k=3, seed 0"),
        ],
    )
    return tmp_path


def test_costs_are_read_back_with_the_hardware(timings):
    costs = B.planner_costs(timings)
    assert len(costs) == 11 and set(costs["stage"]) == {
        "plans",
        "generative_plans",
        "retrieve",
        "generative_runs",
        "nli_planners",
    }
    qgen = costs[(costs["planner"] == "qgen") & (costs["kind"] == "planning")].iloc[0]
    assert qgen["seconds_per_claim"] == 5.0
    assert qgen["hardware"] == f"cuda:0 NVIDIA H200 on {B.describe_hardware(TM.hardware())}"


def test_per_planner_takes_the_configuration_the_latest_stage_and_the_mean_over_seeds(timings):
    table = B.per_planner(B.planner_costs(timings), ["claim_only", "oracle", "qgen"], "bm25/claim/combmax_norm")
    assert table.loc["claim_only", ["planning", "retrieval", "verification", "total"]].tolist() == pytest.approx(
        [0.01, 0.1, 0.2, 0.31]  # retrieval from generative_runs (later than retrieve), verification: mean of seeds
    )
    assert table.loc["qgen", "total"] == pytest.approx(5.0 + 0.3 + 60.0) and table.loc["qgen", "missing"] == ""
    assert table.loc["oracle", "missing"] == "verification" and table.loc["oracle", "total"] == pytest.approx(0.22)


def test_the_budget_sentence_on_both_sides_of_the_limit(timings):
    table = B.per_planner(B.planner_costs(timings), ["claim_only", "oracle", "qgen"], "bm25/claim/combmax_norm")
    assert B.within_budget(table, 70.0) == (
        "2 of 2 planners stay within 70 s per claim; the costliest, qgen, takes 65.3 s. "
        "Not counted, some work unrecorded: oracle."
    )
    assert B.within_budget(table, 60.0) == (
        "1 of 2 planners stay within 60 s per claim; over it: qgen (65.3 s). Not counted, some work unrecorded: oracle."
    )


def test_nothing_recorded_says_so(tmp_path):
    TM.record("store", 3.0, ["x"], tmp_path)
    costs = B.planner_costs(tmp_path)
    assert costs.empty and {"planner", "kind", "seconds_per_claim", "hardware"} <= set(costs.columns)
    table = B.per_planner(costs, ["claim_only"], "bm25/claim/combmax_norm")
    assert (
        math.isnan(table.loc["claim_only", "total"])
        and table.loc["claim_only", "missing"] == "planning, retrieval, verification"
    )
    assert B.within_budget(table).startswith("No planner's planning, retrieval and verification were all recorded")


def test_hardware_is_named_with_the_gpu_when_one_ran():
    assert B.describe_hardware(HW) == "Xeon (2 cores, 22.9 GiB)"
    assert B.describe_hardware(HW, "cuda:0 NVIDIA H200") == "cuda:0 NVIDIA H200 on Xeon (2 cores, 22.9 GiB)"
    assert B.describe_hardware(None) == "unknown machine"


def test_tied_costliest_planners_are_named_together():
    import pandas as pd

    table = pd.DataFrame({"total": [10.0, 10.0, 2.0], "missing": ["", "", ""]}, index=["A", "B", "C"])
    assert (
        B.within_budget(table, 60.0)
        == "3 of 3 planners stay within 60 s per claim; the costliest, A and B, each take 10 s."
    )
    table.loc["B", "total"] = 10.04  # prints 10 s as well
    assert B.within_budget(table, 60.0).endswith("the costliest, A and B, each take 10 s.")
    table.loc["B", "total"] = 10.2
    assert B.within_budget(table, 60.0).endswith("the costliest, B, takes 10.2 s.")


def test_a_total_over_the_limit_by_noise_only_is_within_it():
    """The thirty-seventh pass: 20 + 20 + 20.000000000000004 s printed "60 s" beside "over it"."""
    import pandas as pd

    from lib.analysis.budget import within_budget

    table = pd.DataFrame({"total": [60.00000000000001, 12.0], "missing": ["", ""]}, index=["A", "B"])
    assert within_budget(table, 60).startswith("2 of 2 planners stay within 60 s per claim")
