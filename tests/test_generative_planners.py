"""Notebook 06's tables and sentences (lib.analysis.generative_planners) on small inputs with known answers."""

import json

import numpy as np
import pandas as pd
import pytest

from lib.analysis import generative_planners as GP
from lib.data import averitec
from lib.planning.pursuit import Hop, Trace
from tests.conftest import FIXTURE_DATA

LABEL = {
    "claim_only": "CLAIM-ONLY",
    "qgen": "QGEN",
    "pursuit_seq_seq": "PURSUIT",
    "oracle": "ORACLE",
    "bloom_qg": "BLOOM",
}


def test_status_lists_ran_then_skipped():
    table = GP.status(["claim_only"], {"qgen": "no LLM"}, LABEL)
    assert table["status"].to_dict() == {"CLAIM-ONLY": "ran", "QGEN": "skipped: no LLM"}


def test_llm_sentence_says_what_was_skipped_only_when_something_was():
    llm = {"settings": {"mode": "off", "model": "m"}, **{k: 0 for k in GP.LLM_COUNTERS}}
    quiet = GP.llm_sentence({"llm": llm, "skipped": {}})
    assert quiet.startswith("LLM endpoint: mode `off`, model `m`; requests 0, cache hits 0,") and "skipped" not in quiet
    assert "**No LLM was configured" in GP.llm_sentence({"llm": llm, "skipped": {"claimdecomp": "off"}})


def test_load_plans_takes_each_plan_from_the_later_folder(tmp_path):
    for folder, text in (("a", "first"), ("b", "second")):
        (tmp_path / folder).mkdir()
        line = json.dumps({"claim_id": 0, "queries": [text]})
        (tmp_path / folder / "qgen.jsonl").write_text(line + "\n")
    (tmp_path / "a" / "oracle.jsonl").write_text(json.dumps({"claim_id": 0, "queries": ["gold"]}) + "\n")
    plans = GP.load_plans(["qgen", "oracle", "absent"], tmp_path / "a", tmp_path / "b")
    assert set(plans) == {"qgen", "oracle"} and list(plans["qgen"].values()) == [["second"]]


def test_against_baseline_tests_every_other_planner_with_holm():
    per_claim = pd.DataFrame({"claim_only": [0.1, 0.2, 0.3, 0.4], "qgen": [0.1, 0.2, 0.3, 0.4], "oracle": [1.0] * 4})
    tests = GP.against_baseline(per_claim, "claim_only", LABEL, 200, 0)
    assert tests.index.tolist() == ["QGEN", "ORACLE"]
    assert (
        tests.loc["QGEN", "difference to CLAIM-ONLY"] == 0 and tests.loc["ORACLE", "difference to CLAIM-ONLY"] == 0.75
    )
    assert tests.loc["QGEN", "paired bootstrap p"] == 1.0
    assert (tests["Holm-adjusted p"] >= tests["paired bootstrap p"]).all()


def test_stop_verdicts_and_questions_asked():
    claims = {c.claim_id: c for c in averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")}
    gold = [claims[i].label for i in (0, 1, 2)]  # Refuted, Supported, NEE
    traces = {
        "pursuit_seq_seq": [
            Trace(0, [Hop("q1", None, "a")], "verdict", gold[0]),
            Trace(1, [Hop("q1", None, "a"), Hop("q2", None, "b")], "verdict", gold[0]),
            Trace(2, [], "repeat"),
        ]
    }
    table = GP.stop_verdicts(traces, claims, LABEL)
    assert table.loc["PURSUIT"].to_dict() == {
        "claims with a stop verdict": 2, "its verdict is right": 0.5, "majority label's share": 0.5,
    }  # fmt: skip
    assert GP.questions_asked(traces, LABEL)["questions"].tolist() == [1, 2, 0]


def test_extremes_takes_the_best_then_the_worst():
    gain = pd.Series({"a": 0.5, "b": -0.2, "c": 0.1, "d": np.nan, "e": -0.9})
    assert GP.extremes(gain, 2) == ["a", "c", "e", "b"]
    assert GP.extremes(gain, 0) == []


def test_candidates_per_claim_counts_distinct_questions():
    assert GP.candidates_per_claim({0: ["A?", "a?", "b?"], 1: ["c?"]}) == 1.5


def test_pursuit_line_on_both_one_and_neither_count():
    f = pd.DataFrame({"ndcg@10": [0.2, 0.1]}, index=["pursuit_seq_seq", "qgen"])
    ev = pd.DataFrame({"Q+A": [0.3, 0.2]}, index=["PURSUIT", "QGEN"])
    assert GP.pursuit_line(f, ev, LABEL).endswith("ahead on both, as Papelo found with GPT-4o.")
    assert "ahead on Q+A only" in GP.pursuit_line(f.iloc[::-1].set_axis(f.index), ev, LABEL)
    assert "ahead on neither" in GP.pursuit_line(
        f.iloc[::-1].set_axis(f.index), ev.iloc[::-1].set_axis(ev.index), LABEL
    )


def test_qgen_questions_sentence_on_an_empty_and_a_collapsed_model():
    assert GP.qgen_questions_sentence({0: [], 1: []}).startswith("QGEN wrote no question at all")
    text = GP.qgen_questions_sentence({0: ["What is X?", "when?"], 1: ["what is x?", "what is x?"]})
    assert text.startswith('QGEN\'s most frequent question is "what is x?" (75% of its queries)')


def test_claim_scope_line_tells_another_or_the_same_story():
    scope = pd.DataFrame({"ndcg@10": [0.2, 0.1, 0.15]}, index=["qgen", "pursuit_seq_seq", "claim_only"])
    line = GP.claim_scope_line(scope, "claim_only", "bm25", "Q.", ["When?", "when?", "Who?"], LABEL)
    assert line.startswith("- The claim scope tells another story") and '("when?", 2 of 3)' in line
    scope.loc["qgen", "ndcg@10"] = 0.0
    assert "tells the same story" in GP.claim_scope_line(scope, "claim_only", "bm25", "Q.", ["a"], LABEL)


def test_focus_lines_name_the_planners_that_beat_the_baseline_or_none():
    f = pd.DataFrame(
        {"ndcg@10": [0.1, 0.05, 0.3, 0.12, 0.08]}, index=["claim_only", "bloom_qg", "oracle", "qgen", "pursuit_seq_seq"]
    )
    tests = pd.DataFrame({"Holm-adjusted p": [0.04, 0.5]}, index=["QGEN", "PURSUIT"])
    lines = GP.focus_lines(f, ["qgen", "pursuit_seq_seq"], "claim_only", "bm25, global scope", tests, LABEL)
    assert lines[0] == (
        "- Setting in focus (bm25, global scope): the best generative planner by NDCG@10 is QGEN (0.120), against "
        "CLAIM-ONLY 0.100, BLOOM-QG 0.050 and ORACLE-QUERIES 0.300. 1 of 2 generative planners beat CLAIM-ONLY (QGEN)."
    )
    assert lines[1] == "- Significance against CLAIM-ONLY (paired bootstrap, Holm): QGEN p = 0.04, PURSUIT p = 0.5."
    f.loc["qgen", "ndcg@10"] = 0.1  # a tie does not beat the baseline
    assert GP.focus_lines(f, ["qgen", "pursuit_seq_seq"], "claim_only", "s", tests, LABEL)[0].endswith(
        "0 of 2 generative planners beat CLAIM-ONLY."
    )


def test_evidence_and_budget_lines():
    ev = pd.DataFrame(
        {"Q+A": [0.15, 0.26, 0.49, 0.15, 0.19]}, index=["CLAIM-ONLY", "BLOOM", "ORACLE", "QGEN", "PURSUIT"]
    )
    assert GP.evidence_line(ev, ["qgen", "pursuit_seq_seq"], "claim_only", LABEL) == (
        "- Evidence score: the best generative planner by Q+A is PURSUIT (0.190); CLAIM-ONLY 0.150, BLOOM-QG 0.260, "
        "ORACLE-QUERIES 0.490 (its gold answers are in the pool: an upper bound)."
    )
    lines = GP.budget_lines({"parameters": 42e6, "seconds": 360, "device": "cpu"}, 0.99, 16.2)
    assert "a 42M-parameter model trained for 6 min on cpu" in lines[0] and "keeps 0.99 of 16.2 candidate" in lines[1]


def test_fill_up_table_reads_each_variant_and_names_a_missing_one():
    rows = []
    for variant, qa, pairs in [
        ("no_fill_up", 0.1, 1),
        ("repeat", 0.2, 3),
        ("paraphrase", 0.3, 3),
        ("inflated", 0.4, 6),
    ]:
        for cid, correct in [(0, True), (1, False)]:
            rows.append(
                {
                    "run": f"pursuit_seq_seq__{variant}",
                    "claim_id": cid,
                    "q_only": 0.5,
                    "qa": qa,
                    "correct": correct,
                    "label": "Refuted",
                    "pred_label": "Refuted" if correct else "Supported",
                    "n_pairs": pairs,
                    "claim_types": [],
                }
            )
    scores = pd.DataFrame(rows)
    t = GP.fill_up_table(scores, "pursuit_seq_seq", 0.25)
    assert list(t.index) == ["no_fill_up", "repeat", "paraphrase", "inflated"]
    assert t["pairs/claim"].tolist() == [1, 3, 3, 6] and t["Q+A"].round(4).tolist() == [0.1, 0.2, 0.3, 0.4]
    # a claim counts when its verdict is right and Q+A is above 0.25: only claim 0 of the last two variants
    assert t["AVeriTeC@0.25"].tolist() == [0.0, 0.0, 0.5, 0.5]
    with pytest.raises(ValueError, match="no scores for pursuit_x__no_fill_up"):
        GP.fill_up_table(scores, "pursuit_x", 0.25)
