"""Notebook 07's tables and sentences (lib.analysis.verdicts) on small frames whose answers are known."""

import json

import numpy as np
import pandas as pd
import pytest

from lib.analysis import verdicts as VD
from lib.data.labels import AVERITEC_LABELS
from lib.evaluation import comparisons as CMP
from lib.verifier import veracity as V

S, R, NEE, C = AVERITEC_LABELS


def predictions(rows, seed=0):
    """An `av` frame: one row per (setting, k, claim) with gold and predicted label; the probabilities put
    0.7 on the prediction and 0.1 on each other class."""
    out = []
    for setting, kind, k, golds, preds in rows:
        for cid, (g, p) in enumerate(zip(golds, preds)):
            probs = {f"p:{lb}": 0.7 if lb == p else 0.1 for lb in AVERITEC_LABELS}
            out.append(
                {
                    "setting": setting,
                    "kind": kind,
                    "k": k,
                    "seed": seed,
                    "claim_id": cid,
                    "label": g,
                    "pred": p,
                    **probs,
                }
            )
    return pd.DataFrame(out)


GOLD = [S, R, R, NEE]
AV = predictions(
    [
        ("gold", "gold", -1, GOLD, [S, R, R, NEE]),
        ("planner:claim_only", "planner", 3, GOLD, [R, R, R, R]),
        ("planner:oracle", "planner", 3, GOLD, [S, R, R, R]),
        ("planner:oracle", "planner", 5, GOLD, [S, R, R, NEE]),
    ]
)


def test_training_table_and_curves_name_each_classifier():
    run = {
        "settings": {"model": "m", "max_length": 128}, "device": "cpu", "dtype": "float32", "mean_input_tokens": 50.0,
        "truncated_share": 0.1, "steps_run": 8, "steps_planned": 10, "stopped_early": True, "best": {"macro_f1": 0.4},
        "curve": [{"epoch": 0.5, "step": 4, "loss": 1.2, "val_macro_f1": 0.3}, {"epoch": 1.0, "step": 8, "loss": 1.0, "val_macro_f1": 0.4}],
    }  # fmt: skip
    times = {"gold/seed0": {"examples_per_second": 3.0, "train_seconds": 12.0}}
    table = VD.training_table({"training": {"gold/seed0": run, "gold/seed1": run}}, times)
    assert table.loc["gold/seed0", "steps run / planned"] == "8 / 10" and table.loc["gold/seed0", "max length"] == 128
    assert table.loc["gold/seed0", "training time (s)"] == 12.0  # from the timing file's `measured`
    assert table.loc["gold/seed1", "training time (s)"] == "not measured here"
    curves, _ = VD.training_curves({"AVeriTeC": {"training": {"gold/seed0": run}}})
    assert curves["model"].unique().tolist() == ["AVeriTeC: gold/seed0"] and len(curves) == 2


def test_recipe_sentence_says_whether_the_pipeline_trains_with_the_pick():
    chosen = {"learning_rate": 1e-4, "epochs": 3, "validation_macro_f1": 0.5}
    assert VD.recipe_sentence(chosen, {}, True).endswith("train with it (params `nli_averitec.classifier`).")
    off = VD.recipe_sentence(chosen, {"learning_rate": 2e-5, "epochs": 1}, False)
    assert "does not train with it** (learning rate 2e-05, 1 epoch)" in off


def test_learning_rate_sentence_reads_the_chosen_epochs_and_seed_only():
    table = pd.DataFrame(
        {
            "training_evidence": ["gold", "gold", "gold", "mixed"],
            "seed": [0, 0, 1, 0],
            "epochs": [3, 3, 3, 3],
            "learning_rate": [1e-4, 2e-5, 1e-4, 1e-4],
            "best validation macro-F1": [0.5, 0.4, 0.9, 0.9],
        }
    )
    chosen = {"seed": 0, "epochs": 3}
    assert (
        VD.learning_rate_sentence(table, chosen)
        == "With 3 epochs, validation macro-F1 by learning rate: 0.0001: 0.500, 2e-05: 0.400."
    )


def test_mixed_sentence_within_and_beyond_the_seed_range():
    first = pd.DataFrame({"dev gold": [0.50, 0.53]}, index=pd.Index(["gold", "mixed"], name="training_evidence"))
    spread = pd.DataFrame({"min": [0.44], "max": [0.52], "seeds": [3]}, index=["dev gold"])
    assert "gold +0.030 (within the range 0.440–0.520 over 3 seed(s)" in VD.mixed_sentence(first, spread)
    first.loc["mixed", "dev gold"] = 0.60
    assert "gold +0.100 (beyond the range" in VD.mixed_sentence(first, spread)
    assert VD.mixed_sentence(first.drop(index="mixed"), spread).startswith("The sweep has no run with mixed")
    # the thirty-eighth pass: a NaN difference was "+nan (beyond the range ...)", no seed "one seed"
    first.loc["mixed", "dev gold"] = np.nan
    assert VD.mixed_sentence(first, spread) == (
        "Mixed minus gold training evidence, dev macro-F1: gold undefined (no dev score of the mixed or the gold run)."
    )
    first.loc["mixed", "dev gold"] = 0.6
    assert "gold +0.100 (no seed with a score of the gold recipe:" in VD.mixed_sentence(first, spread.assign(seeds=0))
    assert "gold +0.100 (one seed of the gold recipe:" in VD.mixed_sentence(first, spread.assign(seeds=1))


def test_seed_spread_sentence_only_with_several_seeds():
    spread = pd.DataFrame({"min": [0.44], "max": [0.52], "seeds": [3]}, index=["dev gold"])
    assert "gold 0.440–0.520" in VD.seed_spread_sentence(spread)
    assert VD.seed_spread_sentence(spread.assign(seeds=1)) == ""


def test_gold_calibration_requires_calibration():
    report = {"seeds": [0], "training": {"gold/seed0": {"calibration": {"temperature": 1.5}}}}
    assert VD.gold_calibration(report) == {"temperature": 1.5}
    report["training"]["gold/seed0"]["calibration"] = None
    with pytest.raises(ValueError, match="without calibration"):
        VD.gold_calibration(report)


def test_calibration_at_temperature_one_is_unchanged():
    ece, rel = VD.calibration(AV, "averitec4", 3, ["gold"], 1.0)
    before, after = ece.iloc[0], ece.iloc[1]
    assert before["ECE"] == pytest.approx(after["ECE"]) and after["accuracy"] == 1.0
    assert after["mean top probability"] == pytest.approx(0.7) and after["ECE"] == pytest.approx(0.3)
    assert set(rel["when"]) == {"before (T = 1)", "after (T = 1.00)"}


def test_comparison_table_marks_significant_rows_and_joins_per_class_f1():
    main = pd.DataFrame(
        {"setting": ["a", "b"], "kind": ["planner"] * 2, "k": [3, 3], "seed": [0, 0], "accuracy": [0.5, 0.6],
         "macro_f1": [0.4, 0.5], "weighted_f1": [0.5, 0.5], **{f"f1:{lb}": [0.1, 0.2] for lb in AVERITEC_LABELS}}
    )  # fmt: skip
    tests = pd.DataFrame(
        {"setting": ["a", "b"], "k": [3, 3], "delta_macro_f1": [0.0, 0.1], "mde_macro_f1": [np.nan, 0.05],
         "p_bootstrap": [1.0, 0.01], "delta_accuracy": [0.0, 0.1], "p_mcnemar": [1.0, 0.2], "significant": [False, True]}
    )  # fmt: skip
    table = VD.comparison_table(main, tests, "averitec4", str.upper)
    assert table["mark"].tolist() == ["", "*"] and table["setting name"].tolist() == ["A", "B"]
    assert table.loc[1, f"f1:{S}"] == 0.2 and table.loc[1, "macro_f1_mean"] == 0.5
    assert VD.power_paragraph(table, "a", 0.8, str.upper).startswith("1 of 1 differences from A are significant")
    table.loc[1, "significant"] = False
    assert VD.power_paragraph(table, "a", 0.8, str.upper).startswith("1 of 1 differences from A reach")


def test_confusion_counts_gold_rows_and_predicted_columns():
    cm = VD.confusion(AV, "planner:claim_only", 3, "averitec4")
    assert list(cm.columns) == ["Supported", "Refuted", "NEE", "Conflicting"]
    assert cm.loc["Refuted", "Refuted"] == 2 and cm.loc["Supported", "Refuted"] == 1 and cm.to_numpy().sum() == 4


def test_merged_class_sentence_on_both_sides():
    favoured = predictions([("planner:x", "planner", 3, [S, R, R, R], [NEE, C, R, R])])
    text = VD.merged_class_sentence(favoured, "planner:x", 3, "averitec4")
    assert text.startswith("In the 3-way reading, 50% of the planner:x claims go to the merged class (gold: 0%)")
    assert "favours the merged class" in text
    fair = predictions([("planner:x", "planner", 3, [S, NEE], [S, R])])
    assert "does not favour the merged class" in VD.merged_class_sentence(fair, "planner:x", 3, "averitec4")
    # the thirty-eighth pass: 50.1% against 49.9% (both printed 50%) "favoured" it; no verdicts at k: "nan%"
    gold = [NEE] * 499 + [S] * 501
    level = predictions([("planner:x", "planner", 3, gold, [NEE] * 501 + [S] * 499)])
    text = VD.merged_class_sentence(level, "planner:x", 3, "averitec4")
    assert text.startswith("In the 3-way reading, 50% of the planner:x claims go to the merged class (gold: 50%). The")
    assert "does not favour the merged class" in text
    assert VD.merged_class_sentence(level, "planner:x", 5, "averitec4") == (
        "In the 3-way reading, the planner:x setting has no verdicts at k = 5: its share in the merged class is "
        "undefined."
    )


def test_reductions_keep_only_settings_that_ran_in_the_given_order():
    red = VD.reductions(AV, "averitec4", 3, ["planner:oracle", "missing", "gold"], str.upper)
    assert red.index.tolist() == ["PLANNER:ORACLE", "GOLD"]
    assert red[("averitec4", "accuracy_mean")].tolist() == [0.75, 1.0]


def test_k_ablation_draws_only_settings_with_several_k():
    from lib.verifier import veracity as V

    scoped = predictions([("planner:oracle@claim", "planner_scope", 3, GOLD, [S, R, R, R])])
    abl = VD.k_ablation(V.setting_scores(pd.concat([AV, scoped]), "averitec4"))  # the other scope: left out
    assert dict(zip(abl["setting"] + "@" + abl["k"].astype(str), abl["drawn"])) == {
        "planner:claim_only@3": False, "planner:oracle@3": True, "planner:oracle@5": True,
    }  # fmt: skip


def test_against_none_counts_higher_lower_and_ties():
    tests = pd.DataFrame(
        {"setting": ["p1", "p2", "p3", "p1"], "k": [3, 3, 3, 5], "delta_macro_f1": [0.1, -0.1, 0.2, 0.3],
         "significant": [True, True, False, True]}
    )  # fmt: skip
    assert VD.against_none(tests, ["p1", "p2", "p3"], 3) == {"higher": 1, "lower": 1, "tie": 1}


def test_justification_line_above_and_below_the_gold_answers():
    t = pd.DataFrame(
        {"kind": ["gold", "justification", "planner"], "macro_f1_mean": [0.5, 0.6, 0.4]},
        index=["gold", "gold_justification", "planner:a"],
    )
    line = VD.justification_line(t, 500)
    assert line.startswith("- The fact-checkers' justification (the thesis' GOLD row): macro-F1 0.600, above")
    assert "(0.500) and +0.200 against the best planner" in line
    t.loc["gold_justification", "macro_f1_mean"] = 0.45
    assert "macro-F1 0.450, below the gold answers" in VD.justification_line(t, 500)
    assert line.endswith("justification itself. Point estimates on 500 dev claims, not tested.")


def scoped_scores():
    rows = [
        ("planner:a", "planner", 0.40), ("planner:b", "planner", 0.30),
        ("planner:a@claim", "planner_scope", 0.45), ("planner:b@claim", "planner_scope", 0.44),
        ("gold", "gold", 0.6),
    ]  # fmt: skip
    return pd.DataFrame(
        [
            {"setting": s, "kind": kd, "k": 3, "seed": 0, "accuracy": f, "macro_f1": f, "weighted_f1": f}
            for s, kd, f in rows
        ]
    )


def test_scope_comparison_pairs_each_planner_with_its_other_scope():
    t = VD.scope_comparison(scoped_scores(), 3)
    assert t[["planner", "scope"]].values.tolist() == [["planner:a", "claim"], ["planner:b", "claim"]]
    assert t["setting"].tolist() == ["planner:a@claim", "planner:b@claim"]
    assert t["difference"].round(3).tolist() == [0.05, 0.14]
    assert VD.scope_comparison(scoped_scores(), 5).empty  # nothing at another k


def test_scope_sentence_counts_gains_and_the_spread():
    t = VD.scope_comparison(scoped_scores(), 3)
    assert VD.scope_sentence(t, "global", 4) == (
        "From the claim scope, 2 of 2 planners score a higher macro-F1 than from the global scope (mean difference "
        "+0.095); the spread between planners is 0.010 there against 0.100 (narrower). (Point estimates on 4 dev "
        "claims, not tested.)"
    )
    assert VD.scope_sentence(t.iloc[:0], "global", 4).startswith("No other retrieval scope was read")
    wide = t.assign(**{"other scope": [0.2, 0.5]})
    assert VD.scope_sentence(wide, "global", 4).endswith(
        "0.300 there against 0.100 (wider). (Point estimates on 4 dev claims, not tested.)"
    )


def test_gold_gap_line_on_both_sides():
    t = pd.DataFrame(
        {"kind": ["gold", "planner", "planner"], "macro_f1_mean": [0.5, 0.4, 0.3]}, index=["gold", "a", "b"]
    )
    assert VD.gold_gap_line(t).startswith(
        "- Gold evidence vs the best retrieved evidence: +0.100 macro-F1; the classifier"
    )
    t.loc["a", "macro_f1_mean"] = 0.5
    assert VD.gold_gap_line(t).endswith(
        "+0.000 macro-F1: no gap at three decimals, the retrieved evidence does as well as the gold."
    )
    t.loc["a", "macro_f1_mean"] = 0.4996  # the fifty-first pass (T 3): levels printed alike, the exact gap kept apart
    assert VD.gold_gap_line(t).endswith(
        "+0.0004 macro-F1: no gap at three decimals, the retrieved evidence does as well as the gold."
    )
    # 0.521 - 0.287 as printed: +0.234 (the exact +0.2348 printed +0.235 beside them)
    assert "+0.234 macro-F1; the classifier" in VD.gold_gap_line(t.assign(macro_f1_mean=[0.5214, 0.2866, 0.1]))
    t.loc["a", "macro_f1_mean"] = 0.54  # retrieved evidence ahead of the gold: a negative gap is not "no gap"
    assert VD.gold_gap_line(t).endswith(
        "-0.040 macro-F1: the best planner's retrieved evidence scores higher than the gold (point estimates)."
    )


def test_no_relative_gain_over_a_baseline_at_zero():
    """The thirty-eighth pass: a baseline scoring 0 gave "A and B (tied), gain inf%", and all at 0 "base, A and B
    (tied), gain nan%", with "permutation p = nan"."""
    g = pd.DataFrame({"ndcg@10": [0.0, 0.2, 0.1], "macro_f1": [0.4, 0.42, 0.41]}, index=["base", "A", "B"])
    g["retrieval gain %"] = 100 * (g["ndcg@10"] / 0.0 - 1)  # inf, inf, and NaN for 0/0
    g["verdict gain %"] = 100 * (g["macro_f1"] / 0.4 - 1)
    line = VD.retrieval_line(g, "ndcg@10", (0.5, np.nan, np.nan), 0.5)
    assert line.startswith(
        "- Retrieval vs verdicts: no relative ndcg@10 gain is defined (the baseline's ndcg@10 is 0 or undefined); "
        "the largest ndcg@10: A (0.200) (the thesis"
    )
    g["ndcg@10"], g["retrieval gain %"] = 0.0, np.nan
    line = VD.retrieval_line(g, "ndcg@10", (np.nan, np.nan, np.nan), np.nan)
    assert "the largest ndcg@10: base, A and B (tied at 0.000)" in line
    assert "(no bootstrap interval; no permutation test): no correlation can be read" in line


def test_an_undefined_or_tiny_verdict_gain_is_said_so():
    """The thirty-ninth pass: a baseline macro-F1 of 0 printed "nan% in macro-F1", a gain of -0.0001% "-0.0%", and
    a mixed-minus-gold difference of -0.0001 "-0.000"."""
    g = pd.DataFrame({"ndcg@10": [0.2, 0.3, 0.25], "macro_f1": [0.0, 0.4, 0.3]}, index=["base", "A", "B"])
    g["retrieval gain %"], g["verdict gain %"] = 100 * (g["ndcg@10"] / 0.2 - 1), np.nan
    assert "gains 50% in retrieval and an undefined gain (the baseline's macro-F1 is 0 or undefined) in macro-F1" in (
        VD.retrieval_line(g, "ndcg@10", (0.5, 0.1, 0.9), 0.3)
    )
    g["verdict gain %"] = -0.0001
    assert "gains 50% in retrieval and -0.0001% in macro-F1" in VD.retrieval_line(g, "ndcg@10", (0.5, 0.1, 0.9), 0.3)
    first = pd.DataFrame({"dev gold": [0.5, 0.4999]}, index=["gold", "mixed"])
    spread = pd.DataFrame({"min": [0.44], "max": [0.52], "seeds": [3]}, index=["dev gold"])
    assert "gold -0.0001 (within the range" in VD.mixed_sentence(first, spread)
    # the forty-first pass: +0.0004 was "within" a range of 0 read at three decimals, and -1e-17 printed "-0.000"
    zero = pd.DataFrame({"min": [0.5], "max": [0.5], "seeds": [3]}, index=["dev gold"])
    assert "gold +0.0004 (beyond the range 0.5000–0.5000 over 3 seed(s)" in VD.mixed_sentence(
        pd.DataFrame({"dev gold": [0.5, 0.5004]}, index=["gold", "mixed"]), zero
    )
    assert "gold +0.000 (one seed" in VD.mixed_sentence(
        pd.DataFrame({"dev gold": [2e-17, 1e-17]}, index=["gold", "mixed"]), zero.assign(seeds=1)
    )
    assert (CMP.end_text(-1e-17, "+.3f"), CMP.apart(-0.0, ".3f"), CMP.end_text(-0.0004, "+.3f")) == (
        "+0.000", "0.000", "-0.0004"
    )  # fmt: skip


def test_retrieval_and_rescored_lines_name_the_best():
    gains = pd.DataFrame(
        {
            "ndcg@10": [0.1, 0.2],
            "macro_f1": [0.3, 0.33],
            "retrieval gain %": [0.0, 100.0],
            "verdict gain %": [0.0, 10.0],
        },
        index=["A", "B"],
    )
    line = VD.retrieval_line(gains, "ndcg@10", (0.5, -0.2, 0.9), 0.2)
    assert "gain, B, gains 100% in retrieval and 10.0% in macro-F1" in line
    # two planners: a rank correlation of two is +1 or -1 whatever they are
    assert line.endswith(
        "undefined (2 items) (bootstrap [-0.20, 0.90]; permutation p = 0.2): no direction can be read of an "
        "undefined correlation."
    )
    three = pd.concat([gains, gains.rename(index={"A": "C"}).iloc[:1]])
    line = VD.retrieval_line(three, "ndcg@10", (0.5, -0.2, 0.9), 0.2)
    assert line.endswith("0.50 (bootstrap [-0.20, 0.90]; permutation p = 0.2): no evidence of a relation.")
    assert VD.retrieval_line(three, "ndcg@10", (0.5, 0.1, 0.9), 0.01).endswith(": positive.")
    assert VD.retrieval_line(three, "ndcg@10", (-0.5, -0.9, -0.1), 0.01).endswith(": negative.")
    # two planners, p < 0.05: "positive" of a ρ printed "undefined (2 items)" (the thirty-second pass)
    assert VD.retrieval_line(gains, "ndcg@10", (1.0, 0.1, 0.9), 0.01).endswith(
        "undefined (2 items) (bootstrap [0.10, 0.90]; permutation p = 0.01): no direction can be read of an "
        "undefined correlation."
    )
    undefined = VD.retrieval_line(gains, "ndcg@10", (0.5, float("nan"), float("nan")), float("nan"))
    assert "(no bootstrap interval; no permutation test): no correlation can be read" in undefined
    table = pd.DataFrame(
        {
            "AVeriTeC@0.25 (classifier)": [0.2, 0.3],
            "AVeriTeC@0.25 (majority)": [0.4, 0.1],
            "AVeriTeC@0.25 (classifier, 2 classes)": [0.25, 0.3],
        },
        index=["A", "B"],
    )
    assert VD.rescored_line(table, 0.25) == (
        "- AVeriTeC@0.25 with the classifier's verdicts: best B 0.300, against 0.400 at best with the majority "
        "verdict. Read in two classes (Supported or Refuted, as Papelo), the best is B 0.300; the 2-class verdicts "
        "score higher than the 4-class ones for 1 of 2 planners (point estimates, not tested)."
    )
    table["AVeriTeC@0.25 (classifier, 2 classes)"] = [0.1, 0.2]
    assert (
        "the best is B 0.200; the 2-class verdicts score higher than the 4-class ones for 0 of 2"
        in VD.rescored_line(table, 0.25)
    )


def test_reductions_read_a_three_way_classifier_in_its_own_and_the_two_way_set():
    three = (
        AV[AV["setting"] == "gold"]
        .drop(columns=[f"p:{NEE}", f"p:{C}"])
        .assign(**{"p:" + "Not Enough Evidence/Conflicting": 0.1})
    )
    three["label"] = three["label"].replace({NEE: "Not Enough Evidence/Conflicting"})
    three["pred"] = three["pred"].replace({NEE: "Not Enough Evidence/Conflicting"})
    three.loc[three["pred"] == "Not Enough Evidence/Conflicting", "p:Not Enough Evidence/Conflicting"] = 0.7
    red = VD.reductions(three, "averitec3", 3, ["gold"])
    assert list(dict.fromkeys(red.columns.get_level_values(0))) == ["averitec3", "averitec2"]
    assert red.loc["gold", ("averitec3", "accuracy_mean")] == 1.0


def _comparison(significant):
    idx = ["naive", "claim_only_no_evidence", "gold", "planner:claim_only", "planner:oracle", "planner:qgen"]
    return pd.DataFrame(
        {
            "kind": ["naive", "none", "gold", "planner", "planner", "planner"],
            "macro_f1_mean": [0.2, 0.3, 0.5, 0.35, 0.42, 0.35],
            "significant": [False, False, False, np.nan, significant, False],
        },
        index=idx,
    )


def test_conclusion_names_significant_planners_or_says_there_are_none():
    vs_none = {"higher": 1, "lower": 0, "tie": 2}
    top = CMP.TopGroup("k = 3", {"planner:oracle": 0.42, "planner:qgen": 0.35}, {"planner:qgen": 0.01}, 20)
    lines = VD.conclusion(_comparison(True), "planner:claim_only", 3, 0.05, vs_none, "POWER.", top, str.upper)
    assert lines[0] == (
        "- AVeriTeC dev, k = 3: macro-F1 NAIVE 0.200, CLAIM-ONLY-NO-EVIDENCE 0.300, GOLD evidence 0.500, "
        "PLANNER:CLAIM_ONLY retrieval 0.350; the best planner: PLANNER:ORACLE (0.420), ahead of every other "
        "(paired bootstrap against it, Holm over 1)."
    )
    assert lines[1].endswith("1 of 3 planners' evidence scores significantly higher, 0 lower, and 2 are "
                             "indistinguishable from it; planners span 0.350–0.420, a range of 0.070.")  # fmt: skip
    assert lines[2] == (
        "- Against PLANNER:CLAIM_ONLY (paired bootstrap of macro-F1, p < 0.05): 1 planner(s) differ significantly: "
        "PLANNER:ORACLE. POWER."
    )
    none = VD.conclusion(_comparison(False), "planner:claim_only", 3, 0.05, vs_none, "POWER.", top)
    assert none[2].endswith("no planner differs significantly. POWER.")


def test_recipe_line_on_both_sides():
    ece = pd.DataFrame({"ECE": [0.066, 0.057]})
    chosen = {"learning_rate": 1e-4, "epochs": 3}
    assert VD.recipe_line(chosen, True, 1.28, ece) == (
        "- Recipe: the validation sweep picks learning rate 0.0001 and 3 epochs (the pipeline's setting); temperature "
        "scaling (T = 1.28) moves the dev ECE of gold-evidence verdicts from 0.066 to 0.057 without changing a verdict."
    )
    assert "(**not** the pipeline's setting)" in VD.recipe_line(chosen, False, 1.28, ece)


def test_quantemp_lines():
    qt_t = pd.DataFrame(
        {"macro_f1_mean": [0.245, 0.42, 0.497], "p_bootstrap": [np.nan, np.nan, 0.0005]},
        index=["naive", "claim_only_no_evidence", "bm25_snippets"],
    )
    report = {"published": {"gold_subset": 249}, "taxonomy": {"cv_accuracy": 0.854}}
    published = pd.DataFrame({"macro_f1": [0.508, 0.56]}, index=["claim_only", "finqa"])
    assert VD.quantemp_lines(qt_t, report, published) == [
        "- QuanTemp: macro-F1 NAIVE 0.245, claim only 0.420, with BM25 snippets 0.497 (p = 0.0005); the taxonomy "
        "classifier's cross-validated accuracy is 0.854.",
        "- Published QuanTemp systems on 249 gold claims: macro-F1 claim_only 0.508, finqa 0.560.",
    ]


def _protocol_table(gold_range, retrieved_range):
    cols = pd.MultiIndex.from_tuples([(VD.PROTOCOL_SCORE, "mean"), (VD.PROTOCOL_SCORE, "range")])
    return pd.DataFrame([[0.30, gold_range], [0.36, retrieved_range]], index=["gold", "retrieved"], columns=cols)


def test_protocol_sentence_on_both_sides_of_the_seed_range_and_of_params():
    chosen = {
        "training_evidence": "retrieved",
        "validation_macro_f1": {"gold": 0.30, "retrieved": 0.36},
        "seeds": {"gold": 3, "retrieved": 3},
    }
    beyond = VD.protocol_sentence(chosen, "retrieved", _protocol_table(0.02, 0.05))
    assert "`gold` 0.300 (3 seed(s)); `retrieved` 0.360 (3 seed(s)). The pick: `retrieved`." in beyond
    assert "0.060, is larger than either protocol's range over seeds (at most 0.050)" in beyond
    assert beyond.endswith("The pipeline trains with it (params `nli_averitec.training_evidence`).")
    within = VD.protocol_sentence(chosen, "gold", _protocol_table(0.07, 0.05))
    assert "0.060, is within a protocol's range over seeds (0.070)" in within
    assert "**The pipeline trains on `gold`**" in within
    one = VD.protocol_sentence(chosen | {"seeds": {"gold": 1, "retrieved": 3}}, "retrieved", _protocol_table(0, 0.05))
    assert "rests on one seed" in one


def test_retrain_sentence_compares_each_k_but_the_base():
    rows = [
        ("oracle", 3, "k=3 model", 0.30),
        ("oracle", 3, "retrained", 0.30),
        ("oracle", 5, "k=3 model", 0.28),
        ("oracle", 5, "retrained", 0.33),
        ("claim_only", 1, "k=3 model", 0.30),
        ("claim_only", 1, "retrained", 0.29),
    ]
    table = pd.DataFrame(rows, columns=["planner", "k", "how", "macro_f1"])
    got = VD.retrain_sentence(table, 3)
    assert "by 0.030 on average (largest: +0.050, oracle at k = 5); 1 of 2 differences are positive" in got
    assert VD.retrain_sentence(table[table["how"] == "retrained"], 3).startswith("The protocol sweep has no")
    assert VD.retrain_sentence(table[table["k"] == 3], 3).startswith("The protocol sweep has no")


def _verdicts(setting, right, n=40):
    """Prediction rows of one setting: the first `right` of `n` claims right, the others wrong."""
    rows = []
    for cid in range(n):
        gold = AVERITEC_LABELS[cid % 2]
        pred = gold if cid < right else AVERITEC_LABELS[2]
        rows.append(
            {"setting": setting, "kind": "planner", "k": 3, "seed": 0, "claim_id": cid, "label": gold, "pred": pred}
            | {f"p:{lb}": float(lb == pred) for lb in AVERITEC_LABELS}
        )
    return rows


def test_top_group_ties_what_the_paired_bootstrap_cannot_separate():
    seed1 = [r | {"seed": 1} for r in _verdicts("c", 40)]  # a later seed where c is perfect: not what is tested
    preds = pd.DataFrame(_verdicts("a", 40) + _verdicts("b", 39) + _verdicts("c", 0) + seed1)
    top = VD.top_group(preds, ["c", "b", "a"], 3, "averitec4", n_resamples=300)
    assert top.best == "a" and top.tied == ["a", "b"] and top.claims == 40
    assert (
        top.means["a"] == 0.5 and top.means["c"] == 0.0
    )  # macro-F1 over four labels, two of them never gold; the first seed's macro-F1, the seed the test reads
    assert top.p["c"] < 0.05 <= top.p["b"]
    assert CMP.top_sentence(top) == "a (0.500), tied with b"
    with pytest.raises(ValueError, match="no predictions at k = 3 for \\['d'\\]"):
        VD.top_group(preds, ["a", "d"], 3, "averitec4", n_resamples=50)
    with pytest.raises(ValueError, match="no setting"):
        VD.top_group(preds, [], 3, "averitec4")


def test_the_learning_check_tells_a_verifier_that_learned_from_one_that_did_not():
    golds = [S, R] * 15
    majority = ("naive", "reference", -1, golds, [R] * 30)
    learned = predictions([majority, ("gold", "reference", -1, golds, golds)])
    check = VD.learning_check(learned, "averitec4", 3, n_resamples=300)
    assert check["learned"] and check["gold_macro_f1"] == 0.5 and check["p_bootstrap"] < 0.05
    assert check["majority_macro_f1"] == round(0.5 - check["difference"], 4)
    assert VD.learning_sentence(check).startswith("**The verifier has learned:** with the gold answers as evidence")
    # a verifier that gives the majority label whatever it reads: the warning, and what it rules out
    same = predictions([majority, ("gold", "reference", -1, golds, [R] * 30)])
    check = VD.learning_check(same, "averitec4", 3, n_resamples=300)
    assert not check["learned"] and check["difference"] == 0.0
    text = VD.learning_sentence(check)
    assert text.startswith("**Warning: the verifier has not learned.** With the gold answers")
    assert "none of the comparisons of evidence through verdicts below" in text
    # worse than the majority class, even if "significantly": not learned
    worse = predictions([majority, ("gold", "reference", -1, golds, [NEE] * 30)])
    assert not VD.learning_check(worse, "averitec4", 3, n_resamples=300)["learned"]
    with pytest.raises(ValueError, match="needs the 'gold' and 'naive' settings"):
        VD.learning_check(predictions([majority]), "averitec4", 3)
    # the GOLD rows of the k sweep: the check reads the main k's, as the comparison table does
    swept = predictions([majority, ("gold", "reference", 3, golds, golds), ("gold", "reference", 1, golds, [R] * 30)])
    assert VD.learning_check(swept, "averitec4", 3, n_resamples=300)["gold_macro_f1"] == 0.5
    with pytest.raises(ValueError, match="no 'gold' predictions at k = 5"):
        VD.learning_check(swept[swept["k"] != 3], "averitec4", 5)


def test_the_power_sentence_compares_each_difference_with_its_own_test():
    small = VD.power_sentence({"A": 0.01, "B": -0.02}, {"A": 0.05, "B": 0.06}, "BASE")
    assert (
        small.startswith("All 2 differences from BASE (|Δ| up to 0.020) are each smaller") and "0.050 to 0.060" in small
    )
    mixed = VD.power_sentence({"A": 0.08, "B": -0.02}, {"A": 0.05, "B": 0.06}, "BASE")
    assert mixed.startswith("1 of 2 differences from BASE (|Δ| up to 0.020) are each smaller")
    assert mixed.endswith(
        "1 of 2 differences from BASE reach the smallest difference their own test detects with 80% power (0.050 to 0.050 macro-F1)."
    )
    # a large difference whose own test is weaker: below it, and the sentence shows the MDE it is compared with
    weak = VD.power_sentence({"A": 0.042, "B": 0.001}, {"A": 0.09, "B": 0.006}, "BASE")
    assert "(|Δ| up to 0.042)" in weak and "(0.006 to 0.090 macro-F1)" in weak and "median" not in weak
    with pytest.raises(ValueError, match="same non-empty"):
        VD.power_sentence({"A": 0.1}, {"B": 0.1}, "BASE")


def test_identical_verdicts_are_counted_apart_from_the_tested_differences():
    both = VD.power_sentence({"A": 0.0, "B": 0.0}, {"A": 0.0, "B": 0.0}, "BASE")
    assert both == "2 of 2 settings give the same verdict as BASE on every claim: no test can tell them apart."
    one = VD.power_sentence({"A": 0.01, "B": 0.0}, {"A": 0.0, "B": 0.0}, "BASE")
    assert one.startswith("1 of 2 settings give the same verdict") and "1 of 1 differences from BASE reach" in one
    mixed = VD.power_sentence({"A": 0.01, "B": 0.0}, {"A": 0.05, "B": 0.0}, "BASE")
    assert "All 1 other differences from BASE (|Δ| up to 0.010)" in mixed


def test_the_sweep_says_when_its_tables_are_the_studys_not_this_builds():
    sweep = {"fit_claims": 2761, "validation_claims": 307, "dev_claims": 500}
    same = {"train_claims": 2761, "validation_claims": 307, "dev_claims": 500}
    assert VD.sweep_data_sentence(sweep, same) == (
        "The sweep ran outside the pipeline on 2,761 training, 307 validation, 500 dev claims."
    )
    small = VD.sweep_data_sentence(sweep, {"train_claims": 360, "validation_claims": 40, "dev_claims": 60})
    assert "This build's verifier saw 360 training, 40 validation, 60 dev claims, so the sweep's tables" in small
    assert [VD.epochs_text(n) for n in (1, 3)] == ["1 epoch", "3 epochs"]


def test_retrieval_and_rescored_lines_name_a_tie_whole():
    gains = pd.DataFrame(
        {"ndcg@10": [0.5, 0.5, 0.3], "macro_f1": [0.3, 0.31, 0.29], "retrieval gain %": [50.0, 50.0, 10.0],
         "verdict gain %": [1.0, 3.0, 0.5]},
        index=["ORACLE", "HEURISTIC", "BLOOM"],
    )  # fmt: skip
    line = VD.retrieval_line(gains, "ndcg@10", (0.5, float("nan"), float("nan")), 0.4)
    assert (
        "the planners with the largest ndcg@10 gain, ORACLE and HEURISTIC (tied), each gain 50% in retrieval (whole percents) and "
        in line
    )
    assert "1.0% and 3.0% in macro-F1" in line
    table = pd.DataFrame(
        {"AVeriTeC@0.25 (classifier)": [0.3, 0.3], "AVeriTeC@0.25 (majority)": [0.4, 0.1],
         "AVeriTeC@0.25 (classifier, 2 classes)": [0.25, 0.3]},
        index=["A", "B"],
    )  # fmt: skip
    assert "best A and B tied at 0.300, against 0.400" in VD.rescored_line(table, 0.25)
    assert "the best is B 0.300;" in VD.rescored_line(table, 0.25)


def test_a_verifier_significantly_worse_than_guessing_is_said_so():
    check = {"gold_macro_f1": 0.15, "majority_macro_f1": 0.22, "difference": -0.07, "p_bootstrap": 0.001,
             "alpha": 0.05, "learned": False}  # fmt: skip
    assert VD.learning_sentence(check).startswith("**Warning: the verifier is worse than guessing.**")
    assert "not distinguishable from guessing" not in VD.learning_sentence(check)
    not_worse = VD.learning_sentence(check | {"p_bootstrap": 0.3})
    assert not_worse.startswith("**Warning: the verifier has not learned.**")


def test_one_seed_has_no_range_and_a_level_pick_is_a_tie_break():
    first = pd.DataFrame({"dev gold": [0.50, 0.50]}, index=pd.Index(["gold", "mixed"], name="training_evidence"))
    spread = pd.DataFrame({"min": [0.50], "max": [0.50], "seeds": [1]}, index=["dev gold"])
    assert "gold +0.000 (one seed of the gold recipe: no range over seeds" in VD.mixed_sentence(first, spread)
    level_means = {"gold": 0.30, "retrieved": 0.30}  # the pick is the tie-break to `gold`
    chosen = dict(training_evidence="gold", validation_macro_f1=level_means, seeds=dict.fromkeys(level_means, 3))
    level = VD.protocol_sentence(chosen, "gold", _protocol_table(0.02, 0.05))
    assert "The gap over `retrieved` is 0.000: the two protocols are level and the pick is the tie-break." in level
    assert "better mean" not in level


def test_sentences_of_notebook_07_read_figures_as_printed_and_name_ties():
    k = pd.DataFrame(
        [dict(planner="A", k=5, how="retrained", macro_f1=0.52), dict(planner="A", k=5, how="k=10 model", macro_f1=0.50),
         dict(planner="B", k=20, how="retrained", macro_f1=0.48), dict(planner="B", k=20, how="k=10 model", macro_f1=0.50)]
    )  # fmt: skip
    assert "(largest: +0.020, A at k = 5; -0.020, B at k = 20)" in VD.retrain_sentence(k, 10)
    t = pd.DataFrame(
        {"macro_f1_mean": [0.4124, 0.4121, 0.30], "kind": ["justification", "gold", "planner"]},
        index=[V.JUSTIFICATION, V.GOLD, "planner:x"],
    )
    assert "macro-F1 0.412, level with the gold answers (0.412)" in VD.justification_line(t, 100)
    alike = pd.DataFrame(
        {"scope": ["s", "s"], "main scope": [0.5, 0.4], "other scope": [0.50001, 0.4], "difference": [1e-5, 0.0]}
    )
    assert "against 0.100 (the same)" in VD.scope_sentence(alike, "main", 100)
    one = pd.DataFrame({"scope": ["s"], "main scope": [0.5], "other scope": [0.6], "difference": [0.1]})
    assert "one planner has no spread to compare" in VD.scope_sentence(one, "main", 100)
    ch = {
        "validation_macro_f1": {"gold": 0.5304, "mixed": 0.5},
        "training_evidence": "gold",
        "seeds": {"gold": 3, "mixed": 3},
    }
    tab = pd.DataFrame({(VD.PROTOCOL_SCORE, "range"): [0.0301, 0.01]}, index=["gold", "mixed"])
    assert "is within a protocol's range over seeds (0.030)" in VD.protocol_sentence(ch, "gold", tab)
    ch2 = {"validation_macro_f1": {"gold": 0.5, "mixed": 0.4, "retrieved": 0.4}, "training_evidence": "gold",
           "seeds": {"gold": 3, "mixed": 3, "retrieved": 3}}  # fmt: skip
    tab2 = pd.DataFrame({(VD.PROTOCOL_SCORE, "range"): [0.05, 0.01, 0.2]}, index=["gold", "mixed", "retrieved"])
    assert "is within a protocol's range over seeds (0.200)" in VD.protocol_sentence(ch2, "gold", tab2)


def test_leaders_are_read_as_printed_and_an_undefined_mde_is_counted_apart():
    """The twenty-sixth pass: 0.3004 was "the best" over a printed-alike 0.3001; a NaN MDE (one claim) was
    counted as a difference that reaches its test's power, "(nan to nan macro-F1)"."""
    assert VD._best(pd.Series({"A": 0.3004, "B": 0.3001})) == "A and B tied at 0.300"
    assert VD._best(pd.Series({"A": 0.3006, "B": 0.3001})) == "A 0.301"
    gains = pd.DataFrame(
        {
            "ndcg@10": [0.2, 0.2001],
            "macro_f1": [0.3, 0.3],
            "retrieval gain %": [100.2, 100.4],
            "verdict gain %": [1.0, 2.0],
        },
        index=["A", "B"],
    )
    assert (
        "the planners with the largest ndcg@10 gain, A and B (tied), each gain 100% in retrieval"
        in VD.retrieval_line(gains, "ndcg@10", (0.5, -0.2, 0.9), 0.2)
    )
    nan = float("nan")
    assert VD.power_sentence({"A": 0.05, "B": 0.0}, {"A": nan, "B": nan}, "BASE") == (
        "2 of 2 settings have no defined difference from BASE or no minimum detectable difference (too few claims "
        "for the test): nothing can be said of their power."
    )
    mixed = VD.power_sentence({"A": 0.05, "B": 0.01, "C": nan}, {"A": nan, "B": 0.03, "C": 0.02}, "BASE")
    assert mixed.startswith("2 of 3 settings have no defined difference from BASE")
    assert "All 1 other differences from BASE (|Δ| up to 0.010)" in mixed and "nan" not in mixed


def test_within_and_smaller_are_read_as_printed():
    """The twenty-eighth pass: +0.030 was "beyond" a seed range printed 0.500–0.530; |Δ| 0.0199 was "smaller"
    than an MDE of 0.0201, both printed 0.020; p = 0.04998 printed 0.050 beside "positive"."""
    first = pd.DataFrame({"dev gold": [0.5, 0.5302]}, index=["gold", "mixed"])
    spread = pd.DataFrame({"seeds": [3], "min": [0.5004], "max": [0.53]}, index=["dev gold"])
    assert "gold +0.030 (within the range 0.500–0.530 over 3 seed(s)" in VD.mixed_sentence(first, spread)
    wider = pd.DataFrame({"dev gold": [0.5, 0.5312]}, index=["gold", "mixed"])
    assert "gold +0.031 (beyond the range" in VD.mixed_sentence(wider, spread)
    assert VD.power_sentence({"A": 0.0199}, {"A": 0.0201}, "BASE").startswith("1 of 1 differences from BASE reach")
    assert VD.power_sentence({"A": 0.0189}, {"A": 0.0201}, "BASE").startswith("All 1 differences from BASE")
    g = pd.DataFrame(
        {"retrieval gain %": [114.0, 20, 5], "verdict gain %": [7.9, 1, 0.5], "ndcg@10": [0.2, 0.1, 0.05],
         "macro_f1": [0.37, 0.33, 0.3]},
        index=list("ABC"),
    )  # fmt: skip
    assert VD.retrieval_line(g, "ndcg@10", (0.76, 0.18, 0.97), 100 / 2001).endswith(
        "permutation p = 0.04998): positive."
    )


def test_a_significant_difference_is_not_called_invisible_to_the_test():
    """The twenty-ninth pass: notebook 07 named QGEN significant, then counted its difference (below its MDE)
    among those whose non-significance the power sentence explains."""
    deltas, mde = {"A": -0.0626, "B": 0.01}, {"A": 0.0793, "B": 0.05}
    both = VD.power_sentence(deltas, mde, "BASE", 0.8, {"A": True, "B": False})
    assert both.startswith("1 of 2 differences from BASE are significant; power is weighed for the others")
    assert "All 1 other differences from BASE (|Δ| up to 0.010)" in both and "0.050 to 0.050" in both
    assert VD.power_sentence(deltas, mde, "BASE", 0.8, {"A": False}).startswith("All 2 differences from BASE")
    only = VD.power_sentence({"A": 0.1}, {"A": 0.05}, "BASE", 0.8, {"A": True})
    assert only == "1 of 1 differences from BASE are significant; power is weighed for the others only."
    with pytest.raises(ValueError, match="no other in significant"):
        VD.power_sentence(deltas, mde, "BASE", 0.8, {"C": True})


def test_the_protocol_gap_is_the_gap_between_the_printed_means():
    """The twenty-ninth pass: 0.5004 and 0.4996 both print 0.500, and the sentence called the gap 0.001."""
    chosen = {"training_evidence": "gold", "validation_macro_f1": {"gold": 0.5004, "retrieved": 0.4996},
              "seeds": {"gold": 3, "retrieved": 3}}  # fmt: skip
    level = VD.protocol_sentence(chosen, "gold", _protocol_table(0.0, 0.0))
    # the forty-fourth pass: level as printed, yet not a tie-break (which keeps gold): said so, with the digits
    assert "level as printed at three decimals; `gold` leads `retrieved` only in further digits (0.5004" in level
    apart = chosen | {"validation_macro_f1": {"gold": 0.5006, "retrieved": 0.4994}}  # 0.501 and 0.499
    assert "The gap over `retrieved`, 0.002, is larger" in VD.protocol_sentence(apart, "gold", _protocol_table(0, 0))


def test_the_planners_range_is_the_gap_between_the_printed_ends():
    """The thirtieth pass: "planners span 0.123–0.457, a range of 0.333" (the printed ends are 0.334 apart)."""
    t = pd.DataFrame(
        {"kind": ["baseline"] * 3 + ["planner"] * 2, "macro_f1_mean": [0.2, 0.1, 0.6, 0.1234, 0.4566],
         "significant": [False] * 5},
        index=["naive", "claim_only_no_evidence", "gold", "claim_only", "oracle"],
    )  # fmt: skip
    top = CMP.TopGroup("k = 3", {"oracle": 0.4566, "claim_only": 0.1234}, {"claim_only": 0.01}, 500)
    line = VD.conclusion(t, "claim_only", 3, 0.05, {"higher": 1, "lower": 0, "tie": 1}, "", top)[1]
    assert "planners span 0.123–0.457, a range of 0.334." in line


def test_the_learning_sentence_prints_its_figures_apart_from_what_they_are_read_against():
    """The thirty-second pass: "0.300 against 0.300 (difference -0.000, paired bootstrap p 0.05), significantly
    below ... at alpha 0.05"."""
    worse = VD.learning_sentence(
        dict(gold_macro_f1=0.3, majority_macro_f1=0.3004, difference=-0.0004, p_bootstrap=0.04996, alpha=0.05,
             learned=False)
    )  # fmt: skip
    assert (
        "macro-F1 0.3000 against 0.3004 for always" in worse
        and "(difference -0.0004, paired bootstrap p 0.04996)" in worse
    )
    learned = VD.learning_sentence(
        dict(gold_macro_f1=0.45, majority_macro_f1=0.2, difference=0.25, p_bootstrap=0.0001, alpha=0.05, learned=True)
    )
    assert "macro-F1 0.450 against 0.200 for always answering the most frequent label (difference +0.250, " in learned
    assert "paired bootstrap p 0.0001)" in learned
    # the forty-eighth pass: "0.521 against 0.189 (difference +0.331)" of the stored difference 0.3314
    read = VD.learning_sentence(
        dict(gold_macro_f1=0.5214, majority_macro_f1=0.1894, difference=0.3314, p_bootstrap=0.0005, alpha=0.05,
             learned=True)
    )  # fmt: skip
    assert "macro-F1 0.521 against 0.189 for always answering the most frequent label (difference +0.332, " in read


def test_counts_of_positive_differences_read_them_as_printed():
    """The thirty-second pass: "+0.000 ...; 1 of 1 differences are positive" and its siblings."""
    kt = pd.DataFrame(
        {
            "planner": ["a"] * 4,
            "k": [3, 3, 5, 5],
            "how": ["retrained", "k=5 model"] * 2,
            "macro_f1": [0.3001, 0.3, 0.4, 0.4],
        }
    )
    # under the printed precision: apart from 0 and counted (the fifty-first pass, T 5)
    assert "(largest: +0.0001, a at k = 3); 1 of 1 differences are positive" in VD.retrain_sentence(kt, 5)
    kt.loc[0, "macro_f1"] = 0.3006
    assert "(largest: +0.001, a at k = 3); 1 of 1 differences are positive" in VD.retrain_sentence(kt, 5)
    c = pd.DataFrame(
        {"setting": ["a@c", "b@c"], "planner": ["a", "b"], "scope": ["claim"] * 2, "main scope": [0.3, 0.4],
         "other scope": [0.3001, 0.4006], "difference": [0.0001, 0.0006]}
    )  # fmt: skip
    # 0.3001 against 0.3 prints alike but is higher: counted, as its difference prints +0.0001 (T 3)
    assert "2 of 2 planners score a higher macro-F1 than from the global scope" in VD.scope_sentence(c, "global", 500)
    assert "1 of 2 planners" in VD.scope_sentence(c.assign(**{"other scope": [0.3, 0.4006]}), "global", 500)
    col = "AVeriTeC@0.25 (classifier{})"
    t = pd.DataFrame(
        {
            col.format(""): [0.3, 0.2],
            "AVeriTeC@0.25 (majority)": [0.3, 0.2],
            col.format(", 2 classes"): [0.3001, 0.202],
        },
        index=["A", "B"],
    )
    assert "score higher than the 4-class ones for 1 of 2 planners" in VD.rescored_line(t, 0.25)


def test_the_justification_line_compares_numpy_means_as_printed():
    from lib.verifier import veracity as V

    t = pd.DataFrame(
        {"macro_f1_mean": [0.2005, 0.201, 0.19], "kind": ["justification", "gold", "planner"]},
        index=[V.JUSTIFICATION, V.GOLD, "planner:x"],
    )
    assert "macro-F1 0.201, level with the gold answers (0.201)" in VD.justification_line(t, 500)


def test_spreads_ties_and_the_learning_p_read_as_printed():
    """The thirty-fifth pass: numpy's round made 0.2005 "0.2" (a spread of 0.201 against 0.201 "wider", one of two
    differences tied for largest named); a p of 100/2001 was stored as 0.05 beside "learned"."""
    c = pd.DataFrame({"setting": ["a@x", "b@x"], "planner": ["A", "B"], "scope": ["x", "x"], "main scope": [0.0, 0.2005],
                      "other scope": [0.0, 0.2008], "difference": [0.0, 0.0003]})  # fmt: skip
    assert "the spread between planners is 0.201 there against 0.201 (the same)" in VD.scope_sentence(c, "claim", 500)
    kt = pd.DataFrame({"planner": ["P", "P", "Q", "Q", "P", "P", "Q", "Q"], "k": [3, 3, 3, 3, 5, 5, 5, 5],
                       "how": ["retrained", "k=5 model"] * 4, "macro_f1": [0.2005, 0.0, 0.0, 0.2009, 0.5, 0.5, 0.5, 0.5]})  # fmt: skip
    assert "(largest: +0.201, P at k = 3; -0.201, Q at k = 3)" in VD.retrain_sentence(kt, 5)


def test_the_learning_check_stores_p_apart_from_alpha(monkeypatch):
    from lib.verifier import veracity as V

    table = pd.DataFrame(
        [{"setting": V.GOLD, "k": 3, "macro_f1": 0.41, "delta_macro_f1": 0.05, "p_bootstrap": 100 / 2001}]
    )
    monkeypatch.setattr(V, "against_baseline", lambda *a, **k: table)
    check = VD.learning_check(pd.DataFrame({"setting": [V.NAIVE, V.GOLD], "k": [3, 3]}), "averitec", 3)
    assert check["p_bootstrap"] == 0.04998 and check["learned"] is True
    assert "paired bootstrap p 0.04998)" in VD.learning_sentence(check)
    table.loc[0, "p_bootstrap"] = 1 / 2001  # the committed figure: stored as before
    assert (
        VD.learning_check(pd.DataFrame({"setting": [V.NAIVE, V.GOLD], "k": [3, 3]}), "averitec", 3)["p_bootstrap"]
        == 0.0005
    )
    # macro-F1s that round alike are stored apart (both were 0.3 beside a difference of +0.00003)
    table.loc[0, ["macro_f1", "delta_macro_f1"]] = [0.30004, 0.00003]
    close = VD.learning_check(pd.DataFrame({"setting": [V.NAIVE, V.GOLD], "k": [3, 3]}), "averitec", 3)
    assert (close["gold_macro_f1"], close["majority_macro_f1"]) == (0.30004, 0.30001)
    assert "macro-F1 0.30004 against 0.30001 for" in VD.learning_sentence(close)
    table.loc[0, ["macro_f1", "delta_macro_f1"]] = [0.41234, 0.1]  # apart at 4 decimals: stored as before
    far = VD.learning_check(pd.DataFrame({"setting": [V.NAIVE, V.GOLD], "k": [3, 3]}), "averitec", 3)
    assert (far["gold_macro_f1"], far["majority_macro_f1"]) == (0.4123, 0.3123)


def test_undefined_figures_in_the_verdict_sentences_are_said_to_be_so():
    """The thirty-sixth pass: an untested learning check was "not distinguishable from guessing"; a NaN
    justification "level with" the gold answers, "+nan against the best planner"; a planner without a score
    counted "not higher"; every classifier score NaN an IndexError; rho 0.004 printed "0.00 ... positive"."""
    from lib.verifier import veracity as V

    nan = float("nan")
    untested = VD.learning_sentence(dict(gold_macro_f1=0.3, majority_macro_f1=0.2, difference=0.1, p_bootstrap=nan,
                                         alpha=0.05, learned=False))  # fmt: skip
    assert untested.startswith("**Warning: whether the verifier has learned is not tested here**")
    t = pd.DataFrame(
        {"macro_f1_mean": [nan, 0.2, 0.1], "kind": ["x", "x", "planner"]}, index=[V.JUSTIFICATION, V.GOLD, "P"]
    )
    assert "no macro-F1 to compare (justification undefined" in VD.justification_line(t, 100)
    alone = pd.DataFrame({"macro_f1_mean": [0.3, 0.2], "kind": ["x", "x"]}, index=[V.JUSTIFICATION, V.GOLD])
    assert "(0.200) and no planner to compare with." in VD.justification_line(alone, 100)
    c = lambda s: f"AVeriTeC@0.25 ({s})"  # noqa: E731
    r = pd.DataFrame({c("classifier"): [0.3, nan], c("majority"): [0.2, 0.2], c("classifier, 2 classes"): [0.4, 0.5]},
                     index=["A", "B"])  # fmt: skip
    assert "higher than the 4-class ones for 1 of 1 planners (B without both scores)" in VD.rescored_line(r, 0.25)
    r[c("classifier")], r[c("majority")] = nan, nan
    none = VD.rescored_line(r, 0.25)
    assert "best undefined (no score), against undefined (no score)" in none and "no planner has both scores" in none
    s = pd.DataFrame({"scope": ["s", "s"], "planner": ["A", "B"], "main scope": [0.3, 0.4], "other scope": [0.3, nan],
                      "difference": [0.0, nan]})  # fmt: skip
    assert "0 of 1 planners score a higher" in VD.scope_sentence(s, "m", 100)
    assert "(B without a figure in both scopes, left out)." in VD.scope_sentence(s, "m", 100)
    g = pd.DataFrame({"retrieval gain %": [10.0, 5, 3, 1, 2], "ndcg@10": [0.5, 0.4, 0.3, 0.2, 0.1],
                      "macro_f1": [0.3, 0.3, 0.3, 0.3, 0.31], "verdict gain %": [1.0] * 5}, index=list("ABCDE"))  # fmt: skip
    assert VD.retrieval_line(g, "ndcg@10", (0.004, -0.1, 0.2), 0.01).endswith(
        ": 0.004 (bootstrap [-0.10, 0.20]; permutation p = 0.01): positive."
    )


def test_the_gold_gap_is_undefined_without_figures_and_read_as_printed():
    """The thirty-seventh pass: "+nan macro-F1: no gap" and "+0.001 macro-F1: no gap"."""
    t = lambda g, p: pd.DataFrame({"macro_f1_mean": [g, *p], "kind": ["gold"] + ["planner"] * len(p)},  # noqa: E731
                                  index=["gold"] + [f"p{i}" for i in range(len(p))])  # fmt: skip
    assert VD.gold_gap_line(t(float("nan"), [0.3])).endswith("undefined (no gold score or no planner to compare).")
    assert VD.gold_gap_line(t(0.3, [])).endswith("undefined (no gold score or no planner to compare).")
    assert VD.gold_gap_line(t(0.0008, [0.0003])).startswith(
        "- Gold evidence vs the best retrieved evidence: +0.001 macro-F1;"
    )


def test_learning_rates_that_differ_print_apart():
    """The forty-second pass: rates `same_rate` tells apart printed alike at `:g` ("learning rate 0.0001 ...
    does not train with it (learning rate 0.0001"; "2e-05: 0.400, 2e-05: 0.500")."""
    chosen = {"learning_rate": 1e-4 * (1 + 1e-7), "epochs": 3, "validation_macro_f1": 0.4}
    off = VD.recipe_sentence(chosen, {"learning_rate": 1e-4, "epochs": 3}, False)
    assert off.startswith("The sweep's pick: learning rate 0.00010000001, 3 epochs")
    assert "does not train with it** (learning rate 0.0001, 3 epochs)" in off
    table = pd.DataFrame(
        {"training_evidence": ["gold"] * 2, "seed": [0, 0], "epochs": [3, 3], "learning_rate": [2e-5, 2.0000001e-5],
         "best validation macro-F1": [0.4, 0.5]}
    )  # fmt: skip
    assert VD.learning_rate_sentence(table, {"seed": 0, "epochs": 3}).endswith("2e-05: 0.400, 2.0000001e-05: 0.500.")


def test_retrieval_line_reads_no_direction_of_a_rho_at_0_but_for_noise():
    """The forty-third pass: a ρ of 1e-17 printed 0.00 beside "positive", and an end of -1e-17 "-0.00"."""
    g = pd.DataFrame(
        {"retrieval gain %": [10.0, 5.0, 0.0], "verdict gain %": [2.0, 1.0, 0.0], "ndcg@10": [0.3, 0.25, 0.2],
         "macro_f1": [0.40, 0.38, 0.36]}, index=list("abc"),
    )  # fmt: skip
    assert VD.retrieval_line(g, "ndcg@10", (1e-17, -0.5, 0.5), 0.01).endswith(
        ": 0.00 (bootstrap [-0.50, 0.50]; permutation p = 0.01): no evidence of a relation."
    )
    assert "bootstrap [0.00, 0.50]" in VD.retrieval_line(g, "ndcg@10", (-1e-17, -1e-17, 0.5), 0.2)
    assert VD.retrieval_line(g, "ndcg@10", (0.3, 0.1, 0.5), 0.01).endswith("permutation p = 0.01): positive.")


def test_a_protocol_pick_below_the_printed_precision_is_said_so_and_gaps_print_no_minus_zero():
    """The forty-fourth pass: 0.5004 over 0.4996 read "level and the pick is the tie-break" (which keeps gold),
    and a gap of -0.0001 printed "-0.000 macro-F1: no gap"."""
    chosen = {"validation_macro_f1": {"gold": 0.4996, "mixed": 0.5004}, "training_evidence": "mixed",
              "seeds": {"gold": 3, "mixed": 3}}  # fmt: skip
    assert (
        "The two protocols are level as printed at three decimals; `mixed` leads `gold` only in further digits "
        "(0.5004 against 0.4996), and the pick rests on them."
    ) in VD.protocol_sentence(chosen, "mixed", pd.DataFrame())
    level = chosen | {"validation_macro_f1": {"gold": 0.5, "mixed": 0.5}, "training_evidence": "gold"}
    assert "the two protocols are level and the pick is the tie-break" in VD.protocol_sentence(
        level, "gold", pd.DataFrame()
    )
    t = pd.DataFrame(
        {"kind": ["gold", "planner", "justification"], "macro_f1_mean": [0.5, 0.5004, 0.5003]},
        index=["gold", "a", "gold_justification"],
    )
    assert VD.gold_gap_line(t).startswith("- Gold evidence vs the best retrieved evidence: -0.0004 macro-F1: no gap")
    assert "-0.0001 against the best planner's retrieved evidence" in VD.justification_line(t, 100)


def test_tied_leaders_power_and_seed_ranges_print_what_they_are():
    """The forty-ninth pass: "A, B and C (tied), gain 0.4% in retrieval" of +0.4%, +0.3% and -0.2%; "detects with
    100% power" of 0.996; "nan–nan" for a column no seed scored."""
    g = pd.DataFrame(
        {"ndcg@10": [0.301, 0.3005, 0.3], "retrieval gain %": [0.4, 0.3, -0.2], "verdict gain %": [1.0, 2.0, 0.0],
         "macro_f1": [0.5, 0.51, 0.49]},
        index=["A", "B", "C"],
    )  # fmt: skip
    line = VD.retrieval_line(g, "ndcg@10", (0.5, 0.1, 0.9), 0.2)
    assert "A, B and C (tied), each gain 0% in retrieval (whole percents) and 1.0%, 2.0% and 0.0% in macro-F1" in line
    assert "with 99.6% power" in VD.power_sentence({"a": 0.01, "b": 0.05}, {"a": 0.03, "b": 0.04}, "BASE", power=0.996)
    assert "with 80% power" in VD.power_sentence({"a": 0.01, "b": 0.05}, {"a": 0.03, "b": 0.04}, "BASE", power=0.8)
    nan = float("nan")
    spread = pd.DataFrame(
        {"mean": [0.5, nan, 0.4], "std": [0.01, nan, nan], "min": [0.49, nan, 0.4], "max": [0.51, nan, 0.4],
         "seeds": [3, 0, 1]},
        index=["dev macro-F1, gold", "dev macro-F1, retrieved", "dev macro-F1, mixed"],
    )  # fmt: skip
    text = VD.seed_spread_sentence(spread)
    assert "macro-F1, gold 0.490–0.510; macro-F1, retrieved no seed scored it; macro-F1, mixed 0.400 (one seed" in text
    assert "nan" not in text


def test_notebooks_08_and_09_read_notebook_07s_learning_check(tmp_path):
    """The forty-ninth pass: notebooks 08 and 09 tested again with their own resamples and alpha 0.05, and could
    say "has learned" beside notebook 07's "has not learned" (alpha 0.01) of one verifier."""
    from lib.cli import NamedError

    check = dict(
        gold_macro_f1=0.41, majority_macro_f1=0.3, difference=0.11, p_bootstrap=0.02, alpha=0.01, learned=False
    )
    path = tmp_path / "nli.json"
    path.write_text(json.dumps({"averitec": {"learning_check": check}}))
    assert VD.stored_learning_check(path) == check
    assert VD.learning_sentence(VD.stored_learning_check(path)).startswith("**Warning: the verifier has not learned.**")
    with pytest.raises(NamedError, match="nli.json.gone: missing; run stage nli_veracity"):
        VD.stored_learning_check(tmp_path / "nli.json.gone")
    path.write_text(json.dumps({"averitec": {}}))
    with pytest.raises(NamedError, match="nli.json: no averitec.learning_check"):
        VD.stored_learning_check(path)
    path.write_text(json.dumps({"averitec": {"learning_check": {"learned": True}}}))
    with pytest.raises(NamedError, match=r"learning_check lacks \['gold_macro_f1', 'majority_macro_f1', 'difference'"):
        VD.stored_learning_check(path)


def test_test_differences_are_shown_as_the_printed_levels_subtract():
    """The fiftieth pass (N 2): notebook 07's table printed 0.367 and 0.338 beside a delta of 0.028."""
    table = pd.DataFrame(
        {"macro_f1_mean": [0.3383, 0.3667, 0.40], "delta_macro_f1": [0.0, 0.3667 - 0.3383, 0.05]},
        index=["base", "a", "b"],
    )
    shown = VD.deltas_as_printed(table, table.loc["base"], {"delta_macro_f1": "macro_f1_mean"})
    assert shown["delta_macro_f1"].tolist() == pytest.approx([0.0, 0.029, 0.05])  # b: another subset, as tested
    assert table.loc["a", "delta_macro_f1"] == pytest.approx(0.0284)  # the frame itself keeps the exact test


def test_the_seed_spread_keeps_planner_ranges_only_for_the_tables_retrieval():
    """The fiftieth pass (N 3): the sweep's claim-scope ranges stood beside a global-scope table."""
    spread = pd.DataFrame(
        {"min": [0.44, 0.358], "max": [0.52, 0.367], "seeds": [3, 3]}, index=["dev gold", "dev planner:claim_only"]
    )
    claim = {"retriever": "bm25", "scope": "claim", "temporal": False, "fusion": "combmax_norm"}
    same = VD.seed_spread_sentence(spread, claim, dict(claim))
    assert "gold 0.440–0.520; planner:claim_only 0.358–0.367." in same and "left out" not in same
    other = VD.seed_spread_sentence(spread, claim, {**claim, "scope": "global"})
    assert (
        "gold 0.440–0.520 (the planners' ranges are left out: the sweep's scope 'claim' against this table's " in other
    )
    assert "scope 'global')." in other and "0.358" not in other
    unknown = VD.seed_spread_sentence(spread, None, claim)
    assert "the sweep records no retrieval setting" in unknown and "0.358" not in unknown


def test_the_seed_spread_names_what_differs_and_drops_every_range_at_another_k():
    """The fiftieth pass, second round (P 2, P 3): top-3 ranges stood beside a top-5 table; a fusion that differs
    was not named; with no range left the sentence still said "these ranges"."""
    spread = pd.DataFrame(
        {"min": [0.44, 0.358], "max": [0.52, 0.367], "seeds": [3, 3]}, index=["dev gold", "dev planner:claim_only"]
    )
    claim = {"retriever": "bm25", "scope": "claim", "temporal": False, "fusion": "combmax_norm", "k": 3}
    other_k = VD.seed_spread_sentence(spread, claim, {**claim, "k": 5})
    assert "0.440" not in other_k and "these ranges" not in other_k
    assert "(the sweep's k 3 against this table's k 5), so no seed range is shown for it." in other_k
    fusion = VD.seed_spread_sentence(spread, claim, {**claim, "fusion": "combsum"})
    assert (
        "gold 0.440–0.520 (the planners' ranges are left out: the sweep's fusion 'combmax_norm' against this " in fusion
    )
    only_planners = VD.seed_spread_sentence(spread.iloc[1:], claim, {**claim, "scope": "global"})
    assert "no seed range is shown" in only_planners and "ranged" not in only_planners


def test_test_differences_against_each_groups_own_baseline():
    """The fiftieth pass, second round (P 4): notebook 09's selections are tested against each planner's own
    relevance selection."""
    table = pd.DataFrame(
        {"planner": ["a", "a", "b"], "selection": ["relevance", "utility", "utility"], "accuracy": [0.6773, 0.6733, 0.5],
         "delta_accuracy": [0.0, 0.6733 - 0.6773, 0.5 - 0.4]},
    )  # fmt: skip
    base = pd.DataFrame({"accuracy": [0.6773, 0.4]}, index=["a", "b"])
    shown = VD.deltas_as_printed(table, base, {"delta_accuracy": "accuracy"}, by="planner")
    assert shown["delta_accuracy"].tolist() == pytest.approx([0.0, -0.004, 0.1])  # 0.673 - 0.677, not -0.003


def test_mixed_minus_gold_reads_as_the_printed_levels_subtract():
    """The fiftieth pass (R 5): "gold -0.233" under a table of 0.521 and 0.287 (-0.234 as printed)."""
    first = pd.DataFrame({"dev gold": [0.5214, 0.2874]}, index=["gold", "mixed"])
    spread = pd.DataFrame({"min": [0.44], "max": [0.52], "seeds": [3]}, index=["dev gold"])
    assert "gold -0.234 (beyond the range 0.440–0.520 over 3 seed(s)" in VD.mixed_sentence(first, spread)


def test_differences_of_levels_printed_alike_are_kept_apart_and_spreads_read_from_the_printed_levels():
    """The fifty-first pass (T 3, T 5, T 7): "+0.001" beside two levels printed 0.300; a spread "0.100 against
    0.100 (the same)" of printed levels 0.301 - 0.200 and 0.300 - 0.201; "changes dev macro-F1 by 0.000 (largest:
    +0.000, ...)" of no change."""
    first = pd.DataFrame(
        {"best validation macro-F1": [0.5, 0.5], "dev gold": [0.2996, 0.3004]}, index=["gold", "mixed"]
    )
    spread = pd.DataFrame({"mean": [0.3], "std": [0.0], "min": [0.2995], "max": [0.3005], "seeds": [3]},
                          index=["dev gold"])  # fmt: skip
    assert VD.mixed_sentence(first, spread) == (
        "Mixed minus gold training evidence, dev macro-F1: gold +0.0008 (within the range 0.2995–0.3005 over 3 seed(s) "
        "of the gold recipe)."
    )
    c = pd.DataFrame({"setting": ["a@claim", "b@claim"], "planner": ["A", "B"], "scope": ["claim"] * 2,
                      "main scope": [0.3006, 0.2004], "other scope": [0.3004, 0.2006], "difference": [-0.0002, 0.0002]})  # fmt: skip
    s = VD.scope_sentence(c, "global", 500)
    assert "1 of 2 planners score a higher macro-F1" in s and "is 0.099 there against 0.101 (narrower)" in s
    rows = []
    for p, k, a, b in [("A", 3, 0.3, 0.3), ("B", 3, 0.3, 0.3), ("A", 10, 0.4, 0.4)]:
        rows += [{"planner": p, "k": k, "how": "retrained", "macro_f1": a}, {"planner": p, "k": k, "how": "k=5 model", "macro_f1": b}]  # fmt: skip
    assert VD.retrain_sentence(pd.DataFrame(rows), 5) == (
        "Retraining at each k instead of reading the k = 5 model leaves dev macro-F1 unchanged in all 3 comparisons. "
        "One seed each: these are point estimates."
    )
    rows[0]["macro_f1"] = 0.3004
    moved = VD.retrain_sentence(pd.DataFrame(rows), 5)
    assert "(largest: +0.0004, A at k = 3); 1 of 3 differences are positive" in moved
