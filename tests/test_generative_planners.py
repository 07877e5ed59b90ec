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
    scores = [0.1, 0.2, 0.3, 0.4, 0.5]
    per_claim = pd.DataFrame({"claim_only": scores, "qgen": scores, "oracle": [1.0] * 5})
    tests = GP.against_baseline(per_claim, "claim_only", LABEL, 200, 0)
    assert tests.index.tolist() == ["QGEN", "ORACLE"]
    assert tests.loc["QGEN", "difference to CLAIM-ONLY (0.300)"] == 0
    assert tests.loc["ORACLE", "difference to CLAIM-ONLY (0.300)"] == pytest.approx(0.7)
    rounded = GP.against_baseline(
        pd.DataFrame({"claim_only": [0.1004] * 5, "qgen": [0.1226] * 5}), "claim_only", LABEL, 200, 0
    )
    assert rounded.iloc[0, 1] == pytest.approx(0.023)  # 0.123 - 0.100 as printed, not the exact 0.0222
    # the fifty-first pass (Z 2): two means printed alike (0.101 and 0.101) read "+0.000" for -0.0003
    alike = GP.against_baseline(
        pd.DataFrame({"claim_only": [0.1011] * 5, "qgen": [0.1008] * 5}), "claim_only", LABEL, 200, 0
    )
    assert alike.iloc[0, 1] == pytest.approx(-0.0003)
    assert tests.loc["QGEN", "paired bootstrap p"] == 1.0
    assert (tests["Holm-adjusted p"] >= tests["paired bootstrap p"]).all()
    few = GP.against_baseline(per_claim.head(4), "claim_only", LABEL, 200, 0)  # four claims: no test, not p = 1e-4
    assert few["paired bootstrap p"].isna().all() and few["Holm-adjusted p"].isna().all()


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
    assert GP.pursuit_line(f, ev, LABEL).endswith(  # the forty-eighth pass: "as Papelo found" from untested figures
        "ahead on both as printed (point estimates, not tested), the direction Papelo found with GPT-4o."
    )
    assert "ahead on Q+A only" in GP.pursuit_line(f.iloc[::-1].set_axis(f.index), ev, LABEL)
    assert "ahead on neither" in GP.pursuit_line(
        f.iloc[::-1].set_axis(f.index), ev.iloc[::-1].set_axis(ev.index), LABEL
    )


def dev_claims():
    return averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")


def test_question_quality_counts_empty_generic_and_copied_questions():
    claims = dev_claims()  # 0: the moon ... NASA; 1: Country X growth; 2: a hoax site, vaccines
    plans = {
        "claim_only": {c.claim_id: [c.text] for c in claims},
        "qgen": {0: ["What is the date?", "Which NASA moon?"], 1: ["what is the date?"], 2: []},
    }
    q = GP.question_quality(plans, claims, ["claim_only", "qgen"], LABEL)
    assert q.loc["CLAIM-ONLY", "copy rate"] == 1.0 and q.loc["CLAIM-ONLY", "empty plans"] == 0.0
    row = q.loc["QGEN"]
    assert row["empty plans"] == pytest.approx(1 / 3) and row["questions per claim"] == 1.0
    assert (row["most common question"], row["claims asking it"]) == ("what is the date?", pytest.approx(2 / 3))
    # content words: "date" (in no claim), "nasa" (in claim 0): copy rates 0, 1 and 0 over three questions
    assert row["copy rate"] == pytest.approx(1 / 3)


def test_generic_share_sentence_on_both_sides_of_the_threshold():
    q = pd.DataFrame(
        {"questions per claim": [1.0, 0.0], "most common question": ["when?", ""], "claims asking it": [0.2, 0.0]},
        index=["QGEN", "EMPTY"],
    )
    assert GP.generic_share_sentence(q, "QGEN").startswith("QGEN has collapsed onto a generic question")
    assert GP.generic_share_sentence(q, "QGEN", threshold=0.21).startswith("No single question dominates")
    assert GP.generic_share_sentence(q, "EMPTY") == "EMPTY wrote no question at all: every plan is empty."


def test_repeat_stop_sentence_on_both_sides_of_half():
    assert GP.repeat_stop_sentence({"repeat": 5, "verdict": 3, "max_questions": 2}, "P", 4) == (
        "P: 5 of 10 pursuits (50%) stopped on a repeated question, at least half: at those steps all 4 candidate "
        "questions the generator offered (its beam outputs) had been asked already, so the pursuit could not go on."
    )
    assert GP.repeat_stop_sentence({"repeat": 4, "verdict": 3, "max_questions": 3}, "P", 4).endswith(
        "(40%) stopped on a repeated question, fewer than half; 3 stopped on the generator's verdict."
    )
    assert GP.repeat_stop_sentence({}, "P", 4) == "P pursued no claim."


def test_plan_examples_put_the_annotators_questions_beside_the_plan():
    claims = dev_claims()
    t = GP.plan_examples({"qgen": {0: ["Who?", "When?"]}}, claims, "qgen", 2, LABEL)
    assert list(t.index) == [0, 1] and t.loc[0, "QGEN"] == "Who? When?" and t.loc[1, "QGEN"] == "(empty plan)"
    assert t.loc[0, "annotators' questions"] == "What is the moon made of? Did NASA say it?"


def test_planner_minus_baseline_and_the_target_sentence():
    idx = pd.MultiIndex.from_tuples(
        [(p, r, "global") for p in ("qgen", "claim_only") for r in ("bm25", "dense")],
        names=["plan", "retriever", "scope"],
    )
    table = pd.DataFrame({"ndcg@10": [0.30, 0.10, 0.25, 0.20], "recall@100": [0.5, 0.4, 0.5, 0.6]}, index=idx)
    diff = GP.planner_minus_baseline(table, "qgen", "claim_only", ["ndcg@10", "recall@100"], LABEL)
    assert diff.loc[("bm25", "global"), ("ndcg@10", "difference")] == pytest.approx(0.05)
    assert diff.loc[("dense", "global"), ("recall@100", "difference")] == pytest.approx(-0.2)
    assert GP.target_sentence(table, "qgen", "claim_only", "bm25", "global", LABEL) == (
        "QGEN reaches CLAIM-ONLY's NDCG@10 with bm25 in the global scope (0.300 against 0.250)."
    )
    assert GP.target_sentence(table, "qgen", "claim_only", "dense", "global", LABEL).startswith("QGEN stays below")
    # the forty-ninth pass: as the printed figures subtract (0.583 - 0.502), never "-0.000"
    table.loc[("qgen", "bm25", "global"), "ndcg@10"], table.loc[("claim_only", "bm25", "global"), "ndcg@10"] = (
        0.5826,
        0.5024,
    )
    table.loc[("qgen", "dense", "global"), "ndcg@10"], table.loc[("claim_only", "dense", "global"), "ndcg@10"] = (
        0.3001,
        0.3004,
    )
    diff = GP.planner_minus_baseline(table, "qgen", "claim_only", ["ndcg@10"], LABEL)
    assert diff.loc[("bm25", "global"), ("ndcg@10", "difference")] == pytest.approx(0.081)
    assert f"{diff.loc[('dense', 'global'), ('ndcg@10', 'difference')]:+.3f}" == "+0.000"


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
        "CLAIM-ONLY 0.100, BLOOM-QG 0.050 and ORACLE-QUERIES 0.300. 1 of 2 generative planners score above CLAIM-ONLY as printed (QGEN)."
    )
    assert (
        lines[1]
        == "- Significance against CLAIM-ONLY (paired bootstrap, Holm): QGEN p = 0.04 (above), PURSUIT p = 0.5."
    )
    f.loc["qgen", "ndcg@10"] = 0.1  # a tie does not beat the baseline
    assert GP.focus_lines(f, ["qgen", "pursuit_seq_seq"], "claim_only", "s", tests, LABEL)[0].endswith(
        "0 of 2 generative planners score above CLAIM-ONLY as printed."
    )


def test_evidence_and_budget_lines():
    ev = pd.DataFrame(
        {"Q+A": [0.15, 0.26, 0.49, 0.15, 0.19]}, index=["CLAIM-ONLY", "BLOOM", "ORACLE", "QGEN", "PURSUIT"]
    )
    assert GP.evidence_line(ev, ["qgen", "pursuit_seq_seq"], "claim_only", LABEL) == (
        "- Evidence score: the best generative planner by Q+A is PURSUIT (0.190); CLAIM-ONLY 0.150, BLOOM-QG 0.260, "
        "ORACLE-QUERIES 0.490 (its gold answers are in the pool: an upper bound)."
    )
    lines = GP.budget_lines({"parameters": 42e6, "device": "cpu"}, 360, 0.99, 16.2)
    assert "a 42M-parameter model trained for 6 min on cpu" in lines[0] and "keeps 0.99 of 16.20 candidate" in lines[1]
    # a clone that found the stage up to date has no timing for it: the sentence leaves the minutes out
    assert (
        "a 42M-parameter model trained on cpu" in GP.budget_lines({"parameters": 42e6, "device": "cpu"}, None, 1, 2)[0]
    )


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


def test_focus_and_evidence_lines_name_tied_planners_whole():
    f = pd.DataFrame(
        {"ndcg@10": [0.1, 0.05, 0.3, 0.12, 0.12]}, index=["claim_only", "bloom_qg", "oracle", "qgen", "pursuit_seq_seq"]
    )
    tests = pd.DataFrame({"Holm-adjusted p": [0.04, 0.5]}, index=["QGEN", "PURSUIT"])
    line = GP.focus_lines(f, ["qgen", "pursuit_seq_seq"], "claim_only", "s", tests, LABEL)[0]
    assert line.startswith(
        "- Setting in focus (s): the best generative planners by NDCG@10 are QGEN and PURSUIT, tied (0.120), against"
    )
    f.loc["pursuit_seq_seq", "ndcg@10"] = 0.1204  # prints 0.120 too: a tie as printed (the twenty-sixth pass)
    assert (
        "are QGEN and PURSUIT, tied (0.120)"
        in GP.focus_lines(f, ["qgen", "pursuit_seq_seq"], "claim_only", "s", tests, LABEL)[0]
    )
    ev = pd.DataFrame(
        {"Q+A": [0.15, 0.26, 0.49, 0.19, 0.19]}, index=["CLAIM-ONLY", "BLOOM", "ORACLE", "QGEN", "PURSUIT"]
    )
    assert GP.evidence_line(ev, ["qgen", "pursuit_seq_seq"], "claim_only", LABEL).startswith(
        "- Evidence score: the best generative planners by Q+A are QGEN and PURSUIT, tied (0.190); CLAIM-ONLY 0.150"
    )


def test_pursuit_level_as_printed_and_evidence_without_gold_or_bloom():
    f = pd.DataFrame({"ndcg@10": [0.0111, 0.011]}, index=["pursuit_seq_seq", "qgen"])
    ev = pd.DataFrame({"Q+A": [0.1791, 0.179]}, index=["PURSUIT", "QGEN"])
    assert GP.pursuit_line(f, ev, LABEL).endswith(
        "level on both as printed: neither is ahead (point estimates, not tested)."
    )
    ev2 = pd.DataFrame({"Q+A": [0.15, 0.49, 0.15, 0.19]}, index=["CLAIM-ONLY", "ORACLE", "QGEN", "PURSUIT"])
    line = GP.evidence_line(ev2, ["qgen", "pursuit_seq_seq"], "claim_only", LABEL, include_gold=False)
    assert line.endswith("CLAIM-ONLY 0.150, ORACLE-QUERIES 0.490 (no gold answers in the pool).")
    assert "an upper bound" in GP.evidence_line(
        ev2, ["qgen", "pursuit_seq_seq"], "claim_only", LABEL, include_gold=True
    )
    f2 = pd.DataFrame({"ndcg@10": [0.1, 0.3, 0.12, 0.08]}, index=["claim_only", "oracle", "qgen", "pursuit_seq_seq"])
    tests = pd.DataFrame({"Holm-adjusted p": [0.04, 0.5]}, index=["QGEN", "PURSUIT"])
    lines = GP.focus_lines(f2, ["qgen", "pursuit_seq_seq"], "claim_only", "s", tests, LABEL)  # no BLOOM-QG run
    assert "against CLAIM-ONLY 0.100 and ORACLE-QUERIES 0.300." in lines[0]


def test_the_claim_scope_tells_another_story_only_against_the_setting_in_focus():
    scope = pd.DataFrame({"ndcg@10": [0.15, 0.21, 0.22]}, index=["claim_only", "qgen", "pursuit_seq_seq"])
    args = (scope, "claim_only", "bm25", "Q.", ["what?"], LABEL)
    assert GP.claim_scope_line(*args).startswith("- The claim scope tells another story")
    same = GP.claim_scope_line(*args, focus_winners=["qgen", "pursuit_seq_seq"])  # the same planners win in focus
    assert same.startswith("- The claim scope tells the same story")


def test_notebook_06_compares_the_baseline_as_printed():
    ft = pd.DataFrame(
        {"ndcg@10": [0.3001, 0.3004]},
        index=pd.MultiIndex.from_tuples(
            [("qgen", "bm25", "global"), ("claim_only", "bm25", "global")], names=["plan", "retriever", "scope"]
        ),
    )
    assert GP.target_sentence(ft, "qgen", "claim_only", "bm25", "global", LABEL).startswith("QGEN reaches CLAIM-ONLY's")
    f = pd.DataFrame({"ndcg@10": [0.3004, 0.2, 0.3001]}, index=["qgen", "pursuit_seq_seq", "claim_only"])
    tests = pd.DataFrame({"Holm-adjusted p": [0.5, 0.6]}, index=["QGEN", "PURSUIT"])
    assert (
        "0 of 2 generative planners score above CLAIM-ONLY as printed."
        in GP.focus_lines(f, ["qgen", "pursuit_seq_seq"], "claim_only", "s", tests, LABEL)[0]
    )
    assert GP.claim_scope_line(f, "claim_only", "bm25", "Q.", ["x?"], LABEL, focus_winners=[]).startswith(
        "- The claim scope tells the same story"
    )


def test_extremes_show_no_claim_twice_and_none_when_every_gain_is_the_same():
    """The thirty-first pass: of three gains the middle one was both a largest and a smallest; equal gains were
    shown as extremes."""
    assert GP.extremes(pd.Series({"a": 0.1, "b": 0.0, "c": -0.1}), 2) == ["a", "c"]
    assert GP.extremes(pd.Series(dict.fromkeys("abcd", 0.0)), 2) == []


def test_undefined_figures_are_no_finding_in_notebook_06s_lines():
    """The thirty-first pass: NaN "stays below" and "is ahead on neither"; 25 s trained "for 0 min"."""
    label = {"qgen": "QGEN", "claim_only": "CLAIM-ONLY", "pursuit_seq_seq": "PURSUIT"}
    f = pd.DataFrame(
        {"ndcg@10": [0.3, np.nan]},
        index=pd.MultiIndex.from_tuples([("claim_only", "bm25", "global"), ("qgen", "bm25", "global")]),
    )
    assert "undefined (undefined against 0.300; no run to score)" in GP.target_sentence(
        f, "qgen", "claim_only", "bm25", "global", label
    )
    line = GP.pursuit_line(
        pd.DataFrame({"ndcg@10": [0.3, np.nan]}, index=["qgen", "pursuit_seq_seq"]),
        pd.DataFrame({"Q+A": [0.2, np.nan]}, index=["QGEN", "PURSUIT"]),
        label,
    )
    assert line.endswith("undefined on NDCG@10 and Q+A (no run to score): nothing can be said of the pursuit.")
    assert "trained for 25 s on cpu" in GP.budget_lines({"parameters": 60e6, "device": "cpu"}, 25.0, 3.0, 4.0)[0]


def test_an_undefined_ndcg_is_beaten_by_none_and_beats_none():
    """The thirty-second pass: a NaN baseline printed "CLAIM-ONLY nan. 0 of 2 generative planners beat" and the
    claim scope's "do not find the annotators' answers"; every generative planner NaN was an IndexError."""
    label = {"qgen": "QGEN", "claim_only": "CLAIM-ONLY", "pursuit_seq_seq": "PURSUIT", "prompted": "PROMPTED"}
    tests = pd.DataFrame({"Holm-adjusted p": [0.01, 0.2]}, index=["QGEN", "PROMPTED"])
    nan = np.nan
    focus = lambda *v: GP.focus_lines(  # noqa: E731
        pd.DataFrame({"ndcg@10": v}, index=["qgen", "prompted", "claim_only"]), ["qgen", "prompted"], "claim_only",
        "bm25/global", tests, label,
    )[0]  # fmt: skip
    assert focus(0.3, 0.25, nan).endswith(
        "against CLAIM-ONLY undefined. No generative planner can be said to beat CLAIM-ONLY, whose NDCG@10 is "
        "undefined (no run to score)."
    )
    assert focus(nan, 0.3, 0.2).endswith(
        "is PROMPTED (0.300), against CLAIM-ONLY 0.200. 1 of 2 generative planners score above CLAIM-ONLY as printed (PROMPTED). "
        "QGEN has no NDCG@10 (no run to score)."
    )
    assert "no generative planner has a NDCG@10 (no run to score)" in focus(nan, nan, 0.2)
    scope = lambda *v: GP.claim_scope_line(  # noqa: E731
        pd.DataFrame({"ndcg@10": v}, index=["qgen", "pursuit_seq_seq", "claim_only"]), "claim_only", "bm25", "(q)",
        ["What?", "what?", "Who?"], label, focus_winners=["qgen"],
    )  # fmt: skip
    assert scope(0.3, 0.4, nan) == (
        "- The claim scope tells no story: with bm25 in each claim's own pool, QGEN reaches NDCG@10 0.300 and PURSUIT "
        "0.400, against CLAIM-ONLY undefined; a score that is undefined (no run to score) is compared with none."
    )
    assert scope(0.3, 0.4, 0.35).startswith("- The claim scope tells another story: with bm25 in each claim's own")
    assert '("what?", 2 of 3). In a pool that holds' in scope(0.3, 0.4, 0.35)


def test_a_planner_beats_the_baseline_as_printed():
    """The thirty-third pass: notebook 06 chose its winners on unprinted values, the claim-scope line as printed,
    and told "another story" of identical scores."""
    assert GP.beats(0.3006, 0.3001) and not GP.beats(0.3004, 0.3001) and not GP.beats(0.3, 0.3)


def test_numpy_scores_are_compared_as_they_print():
    """The thirty-fourth pass: `round(np.float64(0.2005), 3)` is 0.2 while 0.2005 prints 0.201 ("0 of 2 beat",
    "level on both", "stays below ... (0.201 against 0.201)")."""
    label = {"claim_only": "CLAIM-ONLY", "qgen": "QGEN", "pursuit_seq_seq": "PURSUIT"}
    f = pd.DataFrame({"ndcg@10": [0.2, 0.2005, 0.19]}, index=["claim_only", "qgen", "pursuit_seq_seq"])
    assert format(f.loc["qgen", "ndcg@10"], ".3f") == "0.201" and GP.beats(f.loc["qgen", "ndcg@10"], 0.2)
    tests = pd.DataFrame({"Holm-adjusted p": [0.5, 0.5]}, index=["QGEN", "PURSUIT"])
    assert (
        "1 of 2 generative planners score above CLAIM-ONLY as printed (QGEN)"
        in GP.focus_lines(f, ["qgen", "pursuit_seq_seq"], "claim_only", "bm25/global", tests, label)[0]
    )
    idx = pd.MultiIndex.from_tuples([("qgen", "bm25", "global"), ("claim_only", "bm25", "global")])
    ft = pd.DataFrame({"ndcg@10": [0.2005, 0.201]}, index=idx)
    assert GP.target_sentence(ft, "qgen", "claim_only", "bm25", "global", label).startswith("QGEN reaches")


def test_an_untested_comparison_is_said_to_be_so():
    """The thirty-fifth pass: "QGEN p = nan, PURSUIT p = nan" beside "1 of 2 beat CLAIM-ONLY"."""
    label = {"claim_only": "CLAIM-ONLY", "qgen": "QGEN", "pursuit_seq_seq": "PURSUIT"}
    f = pd.DataFrame({"ndcg@10": [0.3, 0.5, 0.25]}, index=["claim_only", "qgen", "pursuit_seq_seq"])
    tests = pd.DataFrame({"Holm-adjusted p": [np.nan, 0.01]}, index=["QGEN", "PURSUIT"])
    line = GP.focus_lines(f, ["qgen", "pursuit_seq_seq"], "claim_only", "bm25/global", tests, label)[1]
    assert (
        line
        == "- Significance against CLAIM-ONLY (paired bootstrap, Holm): QGEN not tested (too few claims), PURSUIT p = 0.01 (below)."
    )


def test_the_target_sentence_of_an_undefined_score_prints_no_nan():
    """The forty-fourth pass: "undefined (nan against 0.300; no run to score)"."""
    idx = pd.MultiIndex.from_tuples(
        [("qgen", "bm25", "global"), ("claim_only", "bm25", "global")], names=["plan", "retriever", "scope"]
    )
    table = pd.DataFrame({"ndcg@10": [float("nan"), 0.3]}, index=idx)
    assert GP.target_sentence(table, "qgen", "claim_only", "bm25", "global", {"qgen": "Q", "claim_only": "C"}) == (
        "Q against C's NDCG@10 with bm25 in the global scope: undefined (undefined against 0.300; no run to score)."
    )


def test_a_significant_test_names_its_direction():
    """The fiftieth pass, second round (P 9): "QGEN p = 0.00995" beside a difference printed +0.000."""
    assert GP._significance_text("QGEN", 0.00995, 0.0004) == "QGEN p = 0.00995 (above)"
    assert GP._significance_text("QGEN", 0.00995, -0.0004) == "QGEN p = 0.00995 (below)"
    assert GP._significance_text("QGEN", 0.2, 0.0004) == "QGEN p = 0.2"
    assert GP._significance_text("QGEN", float("nan"), 0.1) == "QGEN not tested (too few claims)"


def test_the_mmr_line_prints_both_counts_alike_and_reads_the_thesis_count():
    """The fifty-first pass (T 9): "keeps 3.96 of 4.0" where nothing was dropped and "4.00 of 4.0" where some were;
    "does not transfer" beside the thesis' own 6.76."""
    line = lambda kept, of: GP.budget_lines({"parameters": 77e6, "device": "cpu"}, None, kept, of)[1]  # noqa: E731
    assert "keeps 3.96 of 3.96 candidate questions per claim, fewer than the thesis' 6.76" in line(3.96, 3.96)
    assert "keeps 3.996 of 4.000 candidate" in line(3.996, 4.0)
    assert line(6.76, 7.0).endswith("keeps 6.76 of 7.00 candidate questions per claim, as many as the thesis' 6.76 "
                                    "oracle queries per claim.")  # fmt: skip
    assert line(8.1, 9.0).endswith("more than the thesis' 6.76 oracle queries per claim: the threshold does not carry "
                                   "its count to this encoder.")  # fmt: skip


def test_a_copy_rate_is_a_share_kept_off_1_and_undefined_without_questions():
    """The fifty-first pass (T 8): QGEN's 0.996 printed "1.00" beside CLAIM-ONLY's exact 1.00; NaN printed "nan"."""
    assert GP.rate_text(0.996) == "0.996" and GP.rate_text(1.0) == "1.00" and GP.rate_text(0.5) == "0.50"
    assert GP.rate_text(float("nan")) == "undefined"


def test_the_mmr_line_compares_the_printed_count_and_names_an_undefined_one():
    """The fifty-first pass, second round (V 3): "keeps 6.755 ..., as many as the thesis' 6.76" (compared at two
    decimals, printed at three) and "keeps nan ..., more than the thesis' 6.76"."""
    line = lambda kept, of: GP.budget_lines({"parameters": 60e6, "device": "cpu"}, 30, kept, of)[1]  # noqa: E731
    assert "keeps 6.755 of 6.756 candidate questions per claim, fewer than the thesis' 6.76" in line(6.7551, 6.7560)
    assert line(float("nan"), 4.0) == (
        "- The MMR filter with the thesis' numbers has no count to read (no claim was planned: undefined)."
    )
    assert len(GP.budget_lines({"parameters": 60e6, "device": "cpu"}, 30, float("nan"), 4.0)) == 2
