"""lib.evaluation.comparisons: top groups, effects with intervals, calls under other measures, spreads."""

import numpy as np
import pandas as pd
import pytest

from lib.evaluation import comparisons as CMP
from lib.evaluation import significance as SIG

A = np.array([1.0, 2.0, 3.0, 4.0, 5.0])


def test_top_group_keeps_a_tie_and_separates_a_loss():
    noise = np.array([0.1, -0.1, 0.2, 0.0, -0.2])
    table = pd.DataFrame({"b": A - 0.5 + noise, "a": A, "c": A})
    (g,) = CMP.top_groups({"s": table}).values()
    assert g.best == "a"  # equal means: by name
    assert list(g.means) == ["a", "c", "b"]
    # paired t-test of a - b = 0.5 - noise: t = 0.5 / (sd / sqrt(5)); Holm over the 2 tests doubles its p
    d = 0.5 - noise
    t = d.mean() / (d.std(ddof=1) / np.sqrt(5))
    from scipy.stats import t as student

    assert g.p == {"c": 1.0, "b": pytest.approx(2 * 2 * student.sf(t, 4))}
    assert g.tied == ["a", "c"]
    assert g.claims == 5


def test_holm_runs_over_every_setting_passed_together():
    table = pd.DataFrame({"a": A, "b": A - 1})
    fixed = lambda a, b: 0.025  # noqa: E731
    alone = CMP.top_groups({"s": table}, test=fixed)
    assert alone["s"].tied == ["a"]
    together = CMP.top_groups({"s": table, "t": table}, test=fixed)  # Holm: 2 x 0.025 = 0.05, not below
    assert together["s"].tied == ["a", "b"]
    assert CMP.comparisons_made(together) == 2


def test_top_groups_drop_claims_with_a_missing_score_and_refuse_empty_input():
    table = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [0.0, 5.0, 1.0]})
    assert CMP.top_groups({"s": table})["s"].claims == 2
    with pytest.raises(ValueError, match="no setting"):
        CMP.top_groups({})
    with pytest.raises(ValueError, match="no claim with every score"):
        CMP.top_groups({"s": pd.DataFrame({"a": [np.nan]})})


def _group(means, p):
    return CMP.TopGroup("s", means, p, claims=10)


def test_top_sentence_on_each_side():
    assert CMP.top_sentence(_group({"a": 0.5}, {})) == "a (0.500), the only method"
    assert CMP.top_sentence(_group({"a": 0.5, "b": 0.4}, {"b": 0.01})) == "a (0.500), ahead of every other"
    assert CMP.top_sentence(_group({"a": 0.5, "b": 0.4, "c": 0.1}, {"b": 0.3, "c": 0.01}), str.upper) == (
        "A (0.500), tied with B"
    )
    assert CMP.top_sentence(_group({"a": 0.5, "b": 0.4}, {"b": 0.05})) == (
        "a (0.500), but the other is not separable from it"
    )
    assert CMP.top_sentence(_group({"a": 0.5, "b": 0.4, "c": 0.3}, {"b": 0.05, "c": 0.2})) == (
        "a (0.500), but none of the 2 others is separable from it"
    )


def test_measures_sentence_says_judgement_dependent_only_when_the_groups_differ():
    same = {"ndcg@10": _group({"a": 0.5, "b": 0.4}, {"b": 0.01}), "bpref": _group({"a": 0.3, "b": 0.1}, {"b": 0.0})}
    assert CMP.same_top_group(same)
    assert CMP.measures_sentence(same) == "a under every measure (ndcg@10, bpref)"
    assert CMP.measures_sentence(same, str.upper, "variant") == "A under every variant (ndcg@10, bpref)"
    differ = {"ndcg@10": same["ndcg@10"], "bpref": _group({"b": 0.3, "a": 0.29, "c": 0.1}, {"a": 0.5, "c": 0.0})}
    assert not CMP.same_top_group(differ)
    assert CMP.measures_sentence(differ) == "judgement-dependent: ndcg@10: a; bpref: b and a"
    with pytest.raises(ValueError):
        CMP.same_top_group({})


def test_paired_effects_give_each_case_its_interval_and_sign():
    eff = CMP.paired_effects(
        {"up": [1.0] * 5, "tie": [1.0, -1.0] * 5, "down": [-0.5] * 5 + [np.nan], "one": [-0.5, np.nan], "none": []}
    )
    assert eff.loc["up", ["mean Δ", "low", "high"]].tolist() == [1.0, 1.0, 1.0]
    assert eff["effect"].to_dict() == {
        "up": "positive",
        "tie": "indistinguishable from 0",
        "down": "negative",
        "one": "too few claims",  # one claim was a "negative" effect with a zero-width interval
        "none": "no claims",
    }
    assert eff["claims"].to_dict() == {"up": 5, "tie": 10, "down": 5, "one": 1, "none": 0}
    assert CMP.effect_counts(eff) == {"positive": 1, "negative": 1, "indistinguishable from 0": 1, "borderline": 0}


def test_an_interval_within_the_cross_cpu_tolerance_of_0_is_borderline():
    diffs = {("dense", "a"): [0.0005, 0.0006] * 5, ("bm25", "a"): [0.0005, 0.0006] * 5, ("bm25", "b"): [0.1, -0.1] * 5}
    tol = lambda case: 2e-3 if case[0] == "dense" else 1e-6  # noqa: E731
    eff = CMP.paired_effects(diffs, 200, tolerance=tol)
    assert eff["effect"].tolist() == ["borderline", "positive", "indistinguishable from 0"]
    edge = CMP.paired_effects({"x": [0.001] * 5}, 100, tolerance=0.001)  # an end exactly at the tolerance
    assert edge["effect"].tolist() == ["borderline"]
    assert CMP.paired_effects({"x": [0.001] * 5}, 100, tolerance=0.00099)["effect"].tolist() == ["positive"]
    assert CMP.paired_effects({"x": [-0.001] * 5}, 100, tolerance=0.001)["effect"].tolist() == ["borderline"]
    assert CMP.effect_counts(eff)["borderline"] == 1


def test_surviving_calls_need_the_same_significant_sign_under_every_other_measure():
    calls = {
        "ndcg@10": {"a": (-0.05, True), "b": (-0.04, True), "c": (-0.03, True), "d": (0.01, False)},
        "bpref": {"a": (-0.02, True), "b": (-0.01, False), "c": (0.02, True), "d": (0.05, True)},
    }
    assert CMP.surviving_calls(calls, "ndcg@10") == {"a": True, "b": False, "c": False}
    with pytest.raises(ValueError, match="primary"):
        CMP.surviving_calls(calls, "mrr")
    with pytest.raises(ValueError, match=r"the measures \['bpref'\] have no call for 'a'"):  # a bare KeyError
        CMP.surviving_calls({"ndcg@10": {"a": (0.1, True)}, "bpref": {}}, "ndcg@10")


def _scores(values: dict) -> pd.DataFrame:
    frame = pd.DataFrame(values)
    frame.columns = pd.MultiIndex.from_tuples([("s", m) for m in frame.columns])
    return frame


def test_spread_growth_finds_a_real_growth():
    # 20 claims where the two methods agree, 20 where b is 1 higher: only the true partition gives a spread of 1
    a = np.arange(40, dtype=float)
    scores = _scores({"a": a, "b": a + (np.arange(40) >= 20)})
    groups = {i: ("1" if i < 20 else "2") for i in range(40)}
    table, p = CMP.spread_growth(scores, groups, ["1", "2", "3"], n_permutations=200)
    assert table["claims"].tolist() == [20, 20]  # the empty group 3 is left out
    assert table["spread"].tolist() == [0.0, 1.0]
    assert p == pytest.approx(1 / 201)
    assert CMP.spread_sentence(table, p, "NDCG@10").endswith("grows more than the group sizes explain.")
    # the forty-seventh pass, third round: a claim without a group, or groups keyed by text, were a bare KeyError
    with pytest.raises(ValueError, match=r"39 claims have no group, e.g. 1 \(int; the groups' ids are int, str\)"):
        CMP.spread_growth(scores, {str(i): g for i, g in groups.items()} | {0: "1"}, ["1", "2"], n_permutations=200)


def test_spread_growth_reads_columns_by_setting_in_any_order():
    """Columns interleaved by setting gave a spread of 4.49 for one of 0.50: the reshape assumed them grouped."""
    rng = np.random.default_rng(0)
    values = {(s, m): rng.normal(size=30) + (m == "b") for s in ("x", "y") for m in ("a", "b")}
    grouped = pd.DataFrame(values)
    interleaved = grouped[[("x", "a"), ("y", "a"), ("x", "b"), ("y", "b")]]
    groups = {i: ("1" if i < 15 else "2") for i in range(30)}
    first = CMP.spread_growth(grouped, groups, ["1", "2"], n_permutations=50)
    second = CMP.spread_growth(interleaved, groups, ["1", "2"], n_permutations=50)
    pd.testing.assert_frame_equal(first[0], second[0])
    with pytest.raises(ValueError, match="every setting needs the same methods"):
        CMP.spread_growth(grouped.drop(columns=[("y", "b")]), groups, ["1", "2"])


def test_spread_growth_without_a_difference_is_not_a_finding():
    a = np.arange(12, dtype=float)
    scores = _scores({"a": a, "b": a})
    groups = {i: ("big" if i < 10 else "small") for i in range(12)}
    table, p = CMP.spread_growth(scores, groups, ["big", "small"], n_permutations=50)
    assert table["spread"].tolist() == [0.0, 0.0]
    assert p == 1.0
    assert CMP.spread_sentence(table, p, "NDCG@10").endswith(
        "no evidence that it grows beyond what the group sizes explain."
    )


def test_spread_growth_refuses_one_group_and_flat_columns():
    scores = _scores({"a": [1.0, 2.0], "b": [1.0, 3.0]})
    with pytest.raises(ValueError, match="at least two groups"):
        CMP.spread_growth(scores, {0: "x", 1: "x"}, ["x", "y"])
    with pytest.raises(ValueError, match="setting, method"):
        CMP.spread_growth(pd.DataFrame({"a": [1.0]}), {0: "x"}, ["x"])


def test_top_groups_take_the_adjusted_p_values_of_a_larger_family():
    table = pd.DataFrame({"a": A, "b": A - 1})
    raw = CMP.best_vs_rest({"s": table}, test=lambda a, b: 0.025)
    assert raw == {("s", "b"): 0.025}
    family = CMP.holm_map({**raw, "another test": 0.01})  # 0.01 x 2 = 0.02; 0.025 x 1, raised to 0.025
    assert family == {("s", "b"): pytest.approx(0.025), "another test": pytest.approx(0.02)}
    wider = CMP.holm_map({**raw, "t2": 0.02, "t3": 0.03})  # 0.02 x 3, then 0.025 x 2 raised to 0.06
    assert CMP.top_groups({"s": table}, adjusted=wider)["s"].tied == ["a", "b"]
    assert CMP.holm_map({}) == {}


def test_effects_agree_compares_the_call_of_every_case():
    a = CMP.paired_effects({"x": [1.0] * 6, "y": [1.0, -1.0] * 3})
    assert CMP.effects_agree(a, CMP.paired_effects({"y": [0.5, -0.5] * 3, "x": [2.0] * 6}))
    assert not CMP.effects_agree(a, CMP.paired_effects({"x": [1.0, -1.0] * 3, "y": [1.0, -1.0] * 3}))
    with pytest.raises(ValueError, match="different cases"):
        CMP.effects_agree(a, CMP.paired_effects({"x": [1.0]}))


def test_paired_effects_index_tuple_cases_by_level():
    eff = CMP.paired_effects({("bm25", "x"): [1.0] * 5, ("dense", "x"): [-1.0] * 5})
    assert eff.index.nlevels == 2
    assert eff.xs("x", level=1)["effect"].to_dict() == {"bm25": "positive", "dense": "negative"}


def test_a_comparison_no_test_could_run_separates_nothing():
    """One claim (a NaN p-value) made the best "ahead of every other"."""
    one = CMP.top_groups({"s": pd.DataFrame({"a": [0.9], "b": [0.1], "c": [0.5]})})["s"]
    assert one.tied == ["a", "c", "b"]
    few = CMP.top_groups({"s": pd.DataFrame({"a": [0.9, 0.8, 0.1], "b": [0.1, 0.2, 0.05]})}, test=SIG.paired_bootstrap)
    assert few["s"].tied == ["a", "b"] and "ahead of every other" not in CMP.top_sentence(few["s"])


def test_always_top_keeps_what_every_group_shares():
    g1 = _group({"a": 0.5, "b": 0.4, "c": 0.3}, {"b": 0.5, "c": 0.5})
    g2 = _group({"b": 0.5, "a": 0.4, "c": 0.3}, {"a": 0.5, "c": 0.01})
    assert CMP.always_top({"x": g1, "y": g2}) == ["a", "b"]
    assert CMP.always_top({"x": g1, "z": _group({"c": 0.9, "a": 0.1}, {"a": 0.0})}) == ["c"]
    assert (
        CMP.always_top({"x": _group({"a": 0.5, "b": 0.1}, {"b": 0.0}), "y": _group({"b": 0.5, "a": 0.1}, {"a": 0.0})})
        == []
    )
    with pytest.raises(ValueError):
        CMP.always_top({})


def test_per_claim_tables_pivot_each_group_and_measure():
    frame = pd.DataFrame(
        {
            "setting": ["s", "s", "s", "s", "t", "t"],
            "plan": ["a", "b", "a", "b", "a", "b"],
            "qid": ["1", "1", "2", "2", "1", "1"],
            "ndcg": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
            "bpref": [1.0, 0.0, 1.0, 0.0, 1.0, 0.0],
        }
    )
    tables = CMP.per_claim_tables(frame, "setting", "plan", ["ndcg", "bpref"])
    assert list(tables) == [("s", "ndcg"), ("s", "bpref"), ("t", "ndcg"), ("t", "bpref")]
    assert tables[("s", "ndcg")].loc["2"].to_dict() == {"a": 0.3, "b": 0.4}
    two = CMP.per_claim_tables(frame.assign(r="x"), ["r", "setting"], "plan", ["ndcg"])
    assert list(two) == [("x", "s", "ndcg"), ("x", "t", "ndcg")]


def test_borderline_sentence_names_the_cases_or_says_there_are_none():
    eff = CMP.paired_effects({("dense", "a"): [0.001] * 5, ("bm25", "a"): [0.5] * 5}, 100, tolerance=0.001)
    assert CMP.borderline_sentence({"temporal filter": eff}, "/".join) == (
        "1 interval(s) exclude 0 by less than their figure may move on another CPU (references/reproduction.yaml), "
        "so they are counted as no finding: temporal filter dense/a."
    )
    assert CMP.borderline_sentence({"x": eff[eff["effect"] != "borderline"]}).startswith("No interval ends within")


def test_highest_names_every_tied_leader_and_skips_undefined_values():
    assert CMP.highest(pd.Series({"a": 0.2, "b": 0.5, "c": 0.5})) == ["b", "c"]
    assert CMP.highest(pd.Series({"a": 0.2, "b": 0.5})) == ["b"]
    assert CMP.highest(pd.Series({"a": np.nan, "b": 0.1})) == ["b"]  # NaN is no value, not the highest
    assert CMP.highest(pd.Series({"a": np.nan})) == []
    assert CMP.highest(pd.Series(dtype=float)) == []
    assert CMP.leader_phrase(pd.Series({"a": 0.2, "b": 0.5})) == "b (0.500)"
    assert CMP.leader_phrase(pd.Series({"a": 0.5, "b": 0.5}), ".1%") == "a and b (tied at 50.0%)"
    assert CMP.leader_phrase(pd.Series({"a": 0.5, "b": 0.5, "c": 0.5}), name=str.upper) == "A, B and C (tied at 0.500)"
    assert CMP.leader_phrase(pd.Series({"a": np.nan})) is None


def test_rho_text_says_undefined_below_three_items_or_for_a_constant_side():
    assert CMP.rho_text(0.8312, 11) == "0.83"
    assert CMP.rho_text(1.0, 2) == "undefined (2 items)"  # two items are always +1 or -1
    assert CMP.rho_text(float("nan"), 5) == "undefined (one side is constant)"
    assert CMP.rho_text(-0.5, 3, ".3f") == "-0.500"
    assert CMP.and_list(["a"]) == "a" and CMP.and_list(["a", "b", "c"], str.upper) == "A, B and C"


def test_values_compare_and_print_as_their_format_shows_them():
    """A leader and a sign are read from the printed figures (the twenty-sixth pass: 0.3004 named the best over a
    printed-alike 0.3001; an interval end 0.0004 printed 0.000 beside "positive")."""
    assert CMP.printed(0.3004, ".3f") == 0.3 and CMP.printed(0.30004, ".1%") == 0.3
    assert CMP.printed(1234.5, ",.0f") == 1234.0 and CMP.printed(-0.0004, ".3f") == 0
    assert CMP.highest(pd.Series({"a": 0.3004, "b": 0.3001, "c": 0.2})) == ["a"]
    assert CMP.highest(pd.Series({"a": 0.3004, "b": 0.3001, "c": 0.2}), ".3f") == ["a", "b"]
    assert CMP.leader_phrase(pd.Series({"a": 0.3004, "b": 0.3001})) == "a and b (tied at 0.300)"
    assert CMP.leader_phrase(pd.Series({"a": 0.3006, "b": 0.3001})) == "a (0.301)"
    assert CMP.end_text(0.0004, ".3f") == "0.0004" and CMP.end_text(-0.00004, ".3f") == "-0.00004"
    assert CMP.end_text(0.00004, "+.1%") == "+0.004%" and CMP.end_text(0.1, ".3f") == "0.100"
    assert CMP.end_text(0.0, ".3f") == "0.000" and CMP.end_text(float("nan"), ".3f") == "nan"


def test_a_spread_that_prints_alike_does_not_grow():
    """The thirtieth pass: 0.1196 and 0.1204 printed 0.120 and 0.120 beside "the spread grows"."""
    table = pd.DataFrame(
        {"spread": [0.1196, 0.1204], "claims": [10, 400], "spread under permutation": [0.05, 0.04]}, index=["1", "2"]
    )
    # the test found the change beyond random groups' (which shrink by 0.010): said so, without "grows"
    assert CMP.spread_sentence(table, 0.0005, "NDCG@10").endswith(
        ": the spread does not grow as printed, but random groups of those sizes shrink it more, so the last group's "
        "spread is wider than its size explains."
    )
    assert CMP.spread_sentence(table, 0.5, "NDCG@10").endswith(
        "no evidence that it grows beyond what the group sizes explain."
    )
    grows = table.assign(spread=[0.1196, 0.1214])
    assert CMP.spread_sentence(grows, 0.0005, "NDCG@10").endswith("the spread grows more than the group sizes explain.")
    # the tenth review (T 10): a significant test of a smaller shrink than random groups' was "no evidence"
    shrinks = pd.DataFrame(
        {"claims": [12, 300], "spread": [0.100, 0.090], "spread under permutation": [0.150, 0.060]}, index=["1", "5"]
    )
    assert "the spread does not grow as printed, but random groups" in CMP.spread_sentence(shrinks, 0.001, "x")
    assert CMP.spread_sentence(shrinks, 0.2, "x").endswith(
        "no evidence that it grows beyond what the group sizes explain."
    )


def test_methods_apart_only_by_floating_point_noise_are_not_separated():
    """The thirty-second pass: "A (0.300), ahead of every other" of 0.1 + 0.2 against 0.3 on every claim."""
    group = CMP.top_groups({"s": pd.DataFrame({"A": [0.1 + 0.2] * 6, "B": [0.3] * 6})})["s"]
    assert CMP.top_sentence(group) == "A (0.300), but the other is not separable from it"


def test_apart_in_scientific_notation_keeps_the_digits_that_tell_a_value_from_its_threshold():
    """The fortieth pass: past 12 decimals `apart` printed 0.00500000000001 as 5.00e-03 beside a count of moves
    "more than 0.005"; a value far from every threshold keeps the short form."""
    assert CMP.apart(0.00500000000001, ".4f", (0.0, 0.005)) == "5.00000000001e-03"
    assert CMP.apart(1e-14, ".3f", 0.0) == "1.00e-14"
    assert CMP.apart(0.0051, ".4f", 0.005) == "0.0051"


def test_leaders_and_the_best_method_print_no_minus_zero():
    """The forty-third pass: "tied at -0.000" and "a (-0.000), ahead of every other"."""
    assert CMP.leader_phrase(pd.Series({"a": -1e-17, "b": -2e-17})) == "a and b (tied at 0.000)"
    group = CMP.TopGroup("s", {"a": -1e-17, "b": -0.2}, {"b": 0.001}, 10)
    assert CMP.top_sentence(group) == "a (0.000), ahead of every other"


def test_a_difference_is_the_printed_figures_difference():
    """The forty-seventh pass, third round (F 3): notebook 02 printed "0.582 and 0.503 (+0.080)", the exact
    difference beside two figures whose difference reads 0.079."""
    from lib.evaluation.printing import difference_text

    assert difference_text(0.58234, 0.50254) == "+0.079" and f"{0.58234 - 0.50254:+.3f}" == "+0.080"
    assert difference_text(0.2159, 0.1011) == "+0.115" and difference_text(0.123, 0.5) == "-0.377"
    # both print 0.100: the exact difference under one printed step (the fifty-first pass, T 3 and T 7: "+0.000"
    # hid a difference a test may separate; "+0.001" read as a step between them)
    assert difference_text(0.0996, 0.1004) == "-0.0008" and difference_text(0.1, 0.1) == "+0.000"
    assert difference_text(0.1004, 0.1005, ".4f") == "-0.0001" and difference_text(0.25, 0.5, "+.1%") == "-25.0%"
    assert difference_text(float("nan"), 0.5) == "undefined" == difference_text(0.5, float("nan"))  # was "+nan"


def test_a_tests_difference_reads_as_its_printed_levels_subtract():
    """The fiftieth pass (N 2, N 7): 0.367 against 0.338 stood beside a difference of 0.028 (the exact 0.0284)."""
    from lib.evaluation.printing import difference_as_printed

    assert difference_as_printed(0.3667 - 0.3383, 0.3667, 0.3383) == pytest.approx(0.029)  # exact 0.0284
    assert difference_as_printed(0.05, 0.3667, 0.3383) == 0.05  # not the two levels' difference: as tested
    nan = float("nan")
    assert difference_as_printed(nan, 0.3, 0.2) != difference_as_printed(nan, 0.3, 0.2)  # undefined stays so
    assert difference_as_printed(0.3004 - 0.2996, 0.3004, 0.2996) == pytest.approx(0.0008)  # alike: the exact one
    assert difference_as_printed(0.1 + 0.2 - 0.3, 0.1 + 0.2, 0.3) == 0.0  # noise is no difference


def test_a_signed_figure_under_one_printed_step_is_kept_apart_from_0_and_under_the_step():
    """The fifty-first pass (T 1, T 2, T 7): "+0.000 (positive)", an interval end "+0.000" beside "negative", and
    "+0.001" beside two levels both printed 0.300."""
    from lib.evaluation.printing import difference_shown, signed_text

    assert signed_text(0.0008) == "+0.0008" and signed_text(-0.0002) == "-0.0002" and signed_text(0.00096) == "+0.00096"
    assert signed_text(0.001) == "+0.001" and signed_text(0.0009999999999999) == "+0.001"  # a step, but for noise
    assert signed_text(0.1234) == "+0.123" and signed_text(-1e-17) == "+0.000" and signed_text(0.0) == "+0.000"
    assert signed_text(float("nan")) == "undefined" and signed_text(0.00004, "+.1%") == "+0.004%"
    assert signed_text(0.0012, "+.4f") == "+0.0012"  # a step at four decimals is one
    # a test's difference beside its levels: as they print, the exact one where they print alike, else as tested
    assert difference_shown(0.4123 - 0.4118, 0.4123, 0.4118) == "+0.0005"
    assert difference_shown(0.4126 - 0.4118, 0.4126, 0.4118) == "+0.001"  # 0.413 - 0.412
    assert difference_shown(0.01, 0.4, 0.3) == "+0.010" and difference_shown(float("nan"), 0.4, 0.3) == "undefined"


def test_a_p_value_prints_its_floor_and_its_side_of_alpha():
    """The fiftieth pass (N 4, N 9): 0.0005 printed "0.000" in one table and "0.0" in another."""
    from lib.evaluation.printing import p_text

    assert p_text(0.0004998) == "0.0005"
    assert p_text(0.0025) == "0.0025"
    assert p_text(0.04996) == "0.04996"  # 0.05 as .3g, beside alpha 0.05: the side shown
    assert p_text(0.04996, alpha=0.01) == "0.05"
    assert p_text(float("nan")) == "nan"


def test_a_difference_of_shares_is_in_percentage_points():
    """The fiftieth pass (N 5): "+1.9%" beside "higher by 46%" read as a relative change."""
    from lib.evaluation.printing import points_text, shares_apart

    assert points_text(0.5936 - 0.5742) == "+1.9 percentage points"
    assert points_text(0.06, "+.0%") == "+6 percentage points"
    assert points_text(0.0004, "+.0%") == "+0.04 percentage points"  # apart from 0
    assert shares_apart(0.5936, 0.5742) == ("59.36%", "57.42%", "+1.9 percentage points")
    # the fifty-first pass (T 11): "-0%" of -0.0, and "nan%" beside the other share in scientific notation
    assert shares_apart(-0.0, 0.0) == ("0%", "0%", "+0.0 percentage points")
    assert shares_apart(float("nan"), 0.2) == ("undefined", "20%", "undefined")
    assert shares_apart(0.5, float("nan")) == ("50%", "undefined", "undefined")


def test_a_percent_below_every_fixed_decimal_prints_in_percent():
    """The fiftieth pass, second round (P 1): 5e-15 at "+.1%" printed "5.00e-15" (a fraction, no "%"), and the
    interval end cut to "5.00e-1" read as 0.5 points."""
    from lib.evaluation.printing import apart, p_text, points_text

    assert apart(5e-15, "+.1%", 0.0) == "+5.00e-13%"
    assert points_text(5e-15) == "+5.00e-13 percentage points"
    assert apart(5e-15, ".3f", 0.0) == "5.00e-15"
    assert p_text(None) == "nan"  # a test that was not made (P 5)
