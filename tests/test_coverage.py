"""lib.evaluation.coverage: the judged share of a run's top k."""

import math

import pandas as pd
import pytest

from lib.evaluation import coverage as COV

QRELS = {"q1": {"d1": 2, "d3": 0}, "q2": {"d9": 1}, "q3": {"d5": 0}}
RUN = {"q1": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}, "q2": {"d8": 1.0, "d9": 1.0}}


def test_judged_at_k_counts_judged_documents_of_any_grade_in_the_top_k():
    assert COV.judged_at_k(QRELS["q1"], RUN["q1"], 2) == 0.5  # d1 judged, d2 not
    assert COV.judged_at_k(QRELS["q1"], RUN["q1"], 3) == pytest.approx(2 / 3)  # d3 is judged non-relevant
    assert COV.judged_at_k(QRELS["q1"], RUN["q1"], 10) == 0.5  # over the 4 retrieved


def test_judged_at_k_breaks_ties_as_trec_eval_does():
    # equal scores: doc id descending, so d9 comes before d8
    assert COV.judged_at_k(QRELS["q2"], RUN["q2"], 1) == 1.0


def test_judged_at_k_of_an_empty_ranking_is_nan_and_k_must_be_positive():
    assert math.isnan(COV.judged_at_k({"d1": 1}, {}, 10))
    with pytest.raises(ValueError, match="k must be at least 1"):
        COV.judged_at_k({"d1": 1}, {"d1": 1.0}, 0)


def test_judged_share_averages_the_queries_the_measures_average():
    # q3 has no relevant document: left out, as from every mean
    assert COV.judged_share(QRELS, RUN, 3, per_query=True) == {"q1": pytest.approx(2 / 3), "q2": 0.5}
    assert COV.judged_share(QRELS, RUN, 3) == pytest.approx(7 / 12)
    # a query with nothing retrieved is left out of the mean
    assert COV.judged_share(QRELS, {"q1": RUN["q1"]}, 2) == 0.5


def test_judged_grid_gives_one_row_per_configuration():
    rows = []
    for plan, docs in [("a", ["d1", "d2"]), ("b", ["d2", "d4"])]:
        for i, d in enumerate(docs):
            rows.append(
                {"plan": plan, "retriever": "bm25", "scope": "global", "temporal": False, "fusion": "f"}
                | {"claim_id": "q1", "doc_id": d, "score": 2.0 - i}
            )
    grid = COV.judged_grid(pd.DataFrame(rows), {"q1": QRELS["q1"]}, k=2)
    assert grid.set_index("plan")["judged@2"].to_dict() == {"a": 0.5, "b": 0.0}
    assert list(grid.columns) == ["plan", "retriever", "scope", "temporal", "fusion", "judged@2"]


def test_a_run_keyed_by_ids_of_other_types_is_named():
    """The forty-seventh pass, third round: a run keyed by int against text qrels gave NaN, one keyed partly by
    int a mean without those queries (0.5 for 0.75); `evaluate` already refused the first."""
    qrels = {"1": {"d1": 1, "d2": 0}, "2": {"d3": 1}}
    assert COV.judged_share(qrels, {"1": {"d1": 0.5, "d9": 0.4}, "2": {"d3": 1.0}}, 10) == 0.75
    with pytest.raises(TypeError, match=r"judged_share: the qrels' query ids are str \('1'\), the run's int"):
        COV.judged_share(qrels, {1: {"d1": 0.5}, 2: {"d3": 1.0}}, 10)
    with pytest.raises(TypeError, match=r"judged_share: the run's query ids are of 2 types"):
        COV.judged_share(qrels, {"1": {"d1": 0.5, "d9": 0.4}, 2: {"d3": 1.0}}, 10)
