"""Notebook 05's conclusion sentences, on both sides of each condition they state."""

import math

import pandas as pd
import pytest

from lib.averitec import conclusions as CN


def systems(averitec, qa, accuracy, names=None):
    names = names or [f"s{i}" for i in range(len(averitec))]
    return pd.DataFrame({"AVeriTeC@0.25": averitec, "Q+A": qa, "accuracy": accuracy}, index=names)


def test_same_claims_refuses_runs_over_different_claims():
    ok = pd.DataFrame({"run": ["a", "a", "b", "b"], "claim_id": [1, 2, 2, 1]})
    CN.same_claims(ok)
    with pytest.raises(
        ValueError, match="run 'b' is scored on 1 claims and run 'a' on 2, 1 claims scored in one and not the other"
    ):
        CN.same_claims(ok.iloc[:3])
    with pytest.raises(
        ValueError, match="run 'b' is scored on 2 claims and run 'a' on 2, 4 claims scored in one and not the other"
    ):
        CN.same_claims(pd.DataFrame({"run": ["a", "a", "b", "b"], "claim_id": [1, 2, 3, 4]}))
    with pytest.raises(ValueError, match="no run"):
        CN.same_claims(ok.iloc[:0])


def test_best_system_sentence_names_one_leader_or_a_tie():
    one = systems([0.5, 0.3], [0.4, 0.2], [0.7, 0.6], ["hero", "base"])
    assert CN.best_system_sentence(one, "AVeriTeC@0.25", 0.25) == (
        "Best published system at level 0.25: hero (AVeriTeC 0.500, Q+A 0.400, accuracy 0.700); "
        "all systems: hero 0.500, base 0.300."
    )
    tie = systems([0.5, 0.5, 0.1], [0.4, 0.3, 0.1], [0.7, 0.6, 0.5], ["x", "y", "z"])
    assert CN.best_system_sentence(tie, "AVeriTeC@0.25", 0.25) == (
        "Best published systems at level 0.25, tied: x and y (AVeriTeC 0.500); all systems: x 0.500, y 0.500, z 0.100."
    )
    assert CN.best_system_sentence(one.iloc[:0], "AVeriTeC@0.25", 0.25).startswith("No published system")


def test_correlation_sentence_says_undefined_where_it_is():
    three = systems([0.5, 0.3, 0.1], [0.4, 0.2, 0.1], [0.7, 0.6, 0.5])
    within = pd.Series([-0.05, 0.09, 0.01])
    assert CN.correlation_sentence(three, within) == (
        "Across the 3 systems, mean Q+A and accuracy correlate with Spearman ρ = 1.00; within a system, the "
        "per-claim correlation of Q+A score and correctness ranges from -0.05 to 0.09: a claim's evidence score "
        "says little about whether its own verdict is right."
    )
    strong = CN.correlation_sentence(three, pd.Series([0.1, 0.3, math.nan]))
    assert strong.endswith("ranges from 0.10 to 0.30 (1 of 3 systems undefined: constant scores or verdicts).")
    flat = systems([0.5, 0.3, 0.1], [0.4, 0.4, 0.4], [0.7, 0.6, 0.5])
    assert CN.correlation_sentence(flat, within).startswith(
        "Across the 3 systems, mean Q+A or accuracy is constant: their rank correlation is undefined;"
    )
    assert CN.correlation_sentence(three.iloc[:2], within).startswith(
        "2 systems are too few for a rank correlation of mean Q+A and accuracy;"
    )
    none = CN.correlation_sentence(three, pd.Series([math.nan] * 3))
    assert none.endswith("within a system the per-claim correlation is undefined (constant scores or verdicts).")
    assert "nan" not in none


def planners(runs, averitec, names):
    return pd.DataFrame({"run": runs, "AVeriTeC@0.25": averitec, "Q+A": [0.4] * len(runs)}, index=names)


def test_best_planner_sentence_says_upper_bound_only_for_the_annotators_questions():
    names = {"oracle": "ORACLE-QUERIES", "claim_only": "CLAIM-ONLY"}
    oracle = planners(["oracle", "claim_only"], [0.54, 0.2], ["ORACLE-QUERIES", "CLAIM-ONLY"])
    s = CN.best_planner_sentence(oracle, "AVeriTeC@0.25", "majority", True, names)
    assert s.startswith(
        "With the majority verdict for every claim, the best planner is ORACLE-QUERIES (AVeriTeC 0.540, Q+A 0.400)."
    )
    assert (
        "asks the annotators' own questions and the store holds the gold answer texts, so this is an upper bound" in s
    )
    no_gold = CN.best_planner_sentence(oracle, "AVeriTeC@0.25", "majority", False, names)
    assert "upper bound on the questions" in no_gold and "holds the gold answer texts, so" not in no_gold
    # another planner ahead: its questions are not the annotators'
    other = planners(["oracle", "claim_only"], [0.2, 0.54], ["ORACLE-QUERIES", "CLAIM-ONLY"])
    s = CN.best_planner_sentence(other, "AVeriTeC@0.25", "majority", True, names)
    assert "best planner is CLAIM-ONLY" in s and "annotators' own questions" not in s
    assert s.endswith("(`store.include_gold: true`), so they are read against the gold.")
    assert CN.best_planner_sentence(other, "AVeriTeC@0.25", "majority", False, names).endswith("Q+A 0.400).")
    tie = planners(["oracle", "claim_only"], [0.5, 0.5], ["ORACLE-QUERIES", "CLAIM-ONLY"])
    s = CN.best_planner_sentence(tie, "AVeriTeC@0.25", "nli", True, names)
    assert s.startswith(
        "With the `nli` verdicts for every claim, the best planners, tied, are ORACLE-QUERIES and CLAIM-ONLY (AVeriTeC 0.500)."
    )
    assert CN.best_planner_sentence(tie.iloc[:0], "AVeriTeC@0.25", "majority", True, names).endswith(
        "no planner was scored."
    )
    # the thirty-eighth pass: a tie of ORACLE and CLAIM-ONLY was "an upper bound, not a system" as a whole
    assert s.endswith(
        "ORACLE-QUERIES asks the annotators' own questions and the store holds the gold answer texts, so "
        "ORACLE-QUERIES's score is an upper bound, not a system: with `store.include_gold: false` the gold answers "
        "leave the store."
    )
    two = planners(["a", "claim_only"], [0.5, 0.5], ["A", "CLAIM-ONLY"])
    assert CN.best_planner_sentence(two, "AVeriTeC@0.25", "nli", True, names).endswith(
        " Their answers come from a store that holds the annotators' answer texts (`store.include_gold: true`), "
        "so they are read against the gold."
    )


def test_best_system_and_planner_are_read_as_printed():
    """0.3004 and 0.3001 print alike: a tie, not X alone (the twenty-sixth pass)."""
    systems = pd.DataFrame(
        {"AVeriTeC": [0.3004, 0.3001, 0.2], "Q+A": [0.4, 0.41, 0.3], "accuracy": [0.5, 0.5, 0.4]}, index=list("XYZ")
    )
    assert CN.best_system_sentence(systems, "AVeriTeC", 0.25).startswith(
        "Best published systems at level 0.25, tied: X and Y (AVeriTeC 0.300)"
    )
    planners = pd.DataFrame(
        {"run": ["a", "b"], "AVeriTeC": [0.3004, 0.3001], "Q+A": [0.4, 0.41]}, index=["BLOOM", "OTHER"]
    )
    assert "the best planners, tied, are BLOOM and OTHER (AVeriTeC 0.300)" in CN.best_planner_sentence(
        planners, "AVeriTeC", "majority", False, {}
    )


def test_a_within_system_correlation_that_prints_at_the_weak_bound_is_not_called_weak():
    systems = pd.DataFrame({"Q+A": [0.1, 0.2, 0.3], "accuracy": [0.3, 0.2, 0.1]}, index=list("abc"))
    printed_at_bound = CN.correlation_sentence(systems, pd.Series([0.1, -0.199, 0.05]))  # prints -0.20
    assert printed_at_bound.endswith("ranges from -0.20 to 0.10.")
    below = CN.correlation_sentence(systems, pd.Series([0.1, -0.194, 0.05]))  # prints -0.19
    assert below.endswith("says little about whether its own verdict is right.")


def test_the_rank_agreement_sentence_says_when_tau_or_its_interval_is_undefined():
    """The twenty-ninth pass: notebook 05 printed "τ = nan (... nan to nan)"."""
    nan = math.nan
    base = {"tau": 0.6, "low": 0.2, "high": 0.9, "runs": 5, "claims": 40, "undefined_resamples": 0}
    assert CN.rank_agreement_sentence(base, 1000) == (
        "Rank agreement of the old and the new score over 5 runs: Kendall's τ = 0.60 (95% bootstrap interval over "
        "claims 0.20 to 0.90)."
    )
    some = CN.rank_agreement_sentence(base | {"undefined_resamples": 3}, 1000)
    assert some.endswith(
        "0.20 to 0.90); 3 of the 1000 resamples leave a score the same for every run and are left out."
    )
    none = CN.rank_agreement_sentence(base | {"low": nan, "high": nan, "undefined_resamples": 10}, 10)
    assert none.endswith(
        "τ = 0.60, with no interval: none of the 10 resamples of claims ranks the runs on both scores."
    )
    undefined = CN.rank_agreement_sentence(base | {"tau": nan, "low": nan, "high": nan}, 1000)
    assert undefined.endswith(
        "Kendall's τ is undefined (one score is the same for every run), so there is no interval."
    )
    assert "nan" not in undefined + none
    few = CN.rank_agreement_sentence(base | {"claims": 4, "low": nan, "high": nan}, 1000)
    assert few.endswith("τ = 0.60, with no interval: 4 claims are too few to resample (at least 5).")
    assert "0.20 to 1.00)" in CN.rank_agreement_sentence(base | {"claims": 5, "high": 1.0}, 1000)  # at the bound


def test_a_system_without_an_accuracy_is_no_pair_of_the_correlation():
    """The thirty-second pass: "Across the 3 systems ... ρ = 1.00" rested on 2 pairs."""
    nan = math.nan
    three = pd.DataFrame({"Q+A": [0.3, 0.4, 0.5], "accuracy": [0.6, nan, 0.7]}, index=list("xyz"))
    assert CN.correlation_sentence(three, pd.Series([0.1, 0.05])).startswith(
        "2 systems are too few for a rank correlation of mean Q+A and accuracy (1 more without a mean Q+A or an "
        "accuracy left out); within"
    )
    four = pd.DataFrame({"Q+A": [0.3, 0.4, 0.5, 0.6], "accuracy": [0.6, nan, 0.8, 0.7]}, index=list("xyzw"))
    assert CN.correlation_sentence(four, pd.Series([0.3])).startswith(
        "Across the 3 systems, mean Q+A and accuracy correlate with Spearman ρ = 0.50 (1 more"
    )


def test_the_duplication_and_copies_sentences_read_their_figures_as_printed():
    """The thirty-third pass: "raised Q+A by CLAIM-ONLY +0.000" was fixed text; "0.340 against 0.340 ... 1 of 1
    score higher" was decided on unprinted values."""
    col = "AVeriTeC@0.25"
    dup = pd.DataFrame({"Q+A": [0.2, 0.3], "Q+A (dup)": [0.281, 0.324], col: [0.1, 0.2], f"{col} (dup)": [0.188, 0.206]},
                       index=["CLAIM-ONLY", "ORACLE"])  # fmt: skip
    assert CN.duplication_sentence(dup, col, 0.25) == (
        "Duplicating QA pairs raised Q+A by CLAIM-ONLY +0.081, ORACLE +0.024 and AVeriTeC@0.25 by CLAIM-ONLY +0.088, "
        "ORACLE +0.006 without any new evidence."
    )
    same = dup.assign(**{"Q+A (dup)": dup["Q+A"], f"{col} (dup)": dup[col]})
    assert CN.duplication_sentence(same, col, 0.25) == (
        "Duplicating QA pairs left Q+A (CLAIM-ONLY +0.000, ORACLE +0.000) and AVeriTeC@0.25 (CLAIM-ONLY +0.000, "
        "ORACLE +0.000) unchanged."
    )
    # the fifty-first pass (T 4): a gain under the printed precision was "+0.000 ... unchanged"; one the printed
    # levels show (0.242 to 0.243) was the exact +0.0002 rounded to +0.000
    tiny = dup.assign(**{"Q+A (dup)": dup["Q+A"] + 0.0001, f"{col} (dup)": dup[col]})
    assert CN.duplication_sentence(tiny, col, 0.25) == (
        "Duplicating QA pairs changed Q+A by CLAIM-ONLY +0.0001, ORACLE +0.0001 and AVeriTeC@0.25 by CLAIM-ONLY "
        "+0.000, ORACLE +0.000 without any new evidence."
    )
    shown = pd.DataFrame({"Q+A": [0.2424], "Q+A (dup)": [0.2426], col: [0.1104], f"{col} (dup)": [0.1106]}, index=["H"])
    assert CN.duplication_sentence(shown, col, 0.25) == (
        "Duplicating QA pairs raised Q+A by H +0.001 and AVeriTeC@0.25 by H +0.001 without any new evidence."
    )
    assert CN.duplication_sentence(same.assign(**{f"{col} (dup)": [0.15, 0.2]}), col, 0.25).startswith(
        "Duplicating QA pairs changed Q+A by"
    )
    assert CN.duplication_sentence(dup.iloc[:0], col, 0.25) == "No run was scored with its QA pairs duplicated."
    qa = pd.Series({"post_hoc_hero_qa": 0.3404, "hero_8b": 0.3401, "post_hoc_fever8": 0.382, "fever8": 0.346})
    assert CN.copies_sentence(qa, [("post_hoc_hero_qa", "hero_8b"), ("post_hoc_fever8", "fever8")], str) == (
        "POST-HOC planners ask a published system's own questions: post_hoc_hero_qa Q+A 0.340 against hero_8b's "
        "0.340; post_hoc_fever8 Q+A 0.382 against fever8's 0.346. 1 of 2 score higher than the system they copy."
    )


def test_the_duplication_and_copies_sentences_say_when_a_score_is_missing():
    """The thirty-fourth pass: "changed Q+A by p0 +nan", "n Q+A nan ... 0 of 1 score higher" and, with no pair,
    "own questions: . 0 of 0 score higher"."""
    d = pd.DataFrame([[0.3, math.nan, 0.2, 0.2]], columns=["Q+A", "Q+A (dup)", "c", "c (dup)"], index=["p0"])
    assert (
        CN.duplication_sentence(d, "c", 0.25) == "Duplicating QA pairs cannot be read for p0: a score is missing (NaN)."
    )
    qa = pd.Series({"n": math.nan, "s": 0.34})
    assert CN.copies_sentence(qa, [("n", "s")], str) == (
        "POST-HOC planners cannot be compared with the systems they copy: no Q+A for n."
    )
    assert CN.copies_sentence(qa, [], str) == "No POST-HOC planner ran beside the system it copies."


def test_small_differences_and_correlations_print_no_minus_zero():
    """The forty-fourth pass: "left Q+A (a -0.000, ...) unchanged", "τ = -0.00", "ranges from -0.00"."""
    dup = pd.DataFrame(
        {"Q+A": [0.3, 0.4], "Q+A (dup)": [0.3 - 1e-17, 0.4], "x": [0.2, 0.1], "x (dup)": [0.2, 0.1]}, index=["a", "b"]
    )
    assert CN.duplication_sentence(dup, "x", 0.25).startswith("Duplicating QA pairs left Q+A (a +0.000, b +0.000)")
    below = dup.assign(**{"Q+A (dup)": [0.2999, 0.4]})  # under the printed precision: apart from 0, not "-0.000"
    assert CN.duplication_sentence(below, "x", 0.25).startswith(
        "Duplicating QA pairs changed Q+A by a -0.0001, b +0.000"
    )
    agree = {"runs": 5, "tau": -0.004, "claims": 100, "undefined_resamples": 0, "low": -0.004, "high": 0.3}
    assert CN.rank_agreement_sentence(agree, 1000).endswith(
        "Kendall's τ = 0.00 (95% bootstrap interval over claims -0.004 to 0.30)."
    )
    systems = pd.DataFrame({"Q+A": [0.3, 0.2, 0.1, 0.4], "accuracy": [0.5, 0.6, 0.4, 0.45]}, index=list("abcd"))
    within = pd.Series([-0.004, 0.1, 0.05, 0.02], index=list("abcd"))
    assert "correctness ranges from 0.00 to 0.10" in CN.correlation_sentence(systems, within)


def test_a_side_equal_but_for_noise_has_no_rank_correlation():
    """The forty-fifth pass: mean Q+A 0.3, 0.1 + 0.2 and 0.30000000000000010 were ranked: "ρ = 1.00"."""
    systems = pd.DataFrame(
        {"Q+A": [0.3, 0.1 + 0.2, 0.30000000000000010], "accuracy": [0.5, 0.6, 0.7]}, index=list("abc")
    )
    assert "mean Q+A or accuracy is constant: their rank correlation is undefined" in CN.correlation_sentence(
        systems, pd.Series([0.1, -0.1, 0.05], index=list("abc"))
    )


def test_rank_agreement_prints_tau_apart_from_0_beside_an_interval_without_0_and_refuses_impossible_counts():
    """The forty-seventh pass, third round: tau -0.004 printed "0.00" beside "-0.02 to -0.001", and "1001 of the
    1000 resamples" was printed."""
    agree = {"runs": 10, "tau": -0.004, "claims": 100, "undefined_resamples": 0, "low": -0.02, "high": -0.001}
    assert "τ = -0.004 (95% bootstrap interval over claims -0.02 to -0.001)" in CN.rank_agreement_sentence(agree, 1000)
    with pytest.raises(ValueError, match="1001 of 1000 resamples undefined"):
        CN.rank_agreement_sentence({**agree, "undefined_resamples": 1001}, 1000)
