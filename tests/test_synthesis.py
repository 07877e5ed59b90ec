"""lib.analysis.synthesis: each sentence on both sides of its condition, and the findings of the committed metrics."""

import json
import re

import pandas as pd
import pytest

from lib.analysis import synthesis as SY
from lib.cli import NamedError
from lib.params import section


def test_compare_says_higher_lower_better_worse_or_level():
    assert SY.compare("A", 0.3, "B", 0.2, "NDCG@10") == "NDCG@10: A 0.300 against B 0.200, A higher by 50%"
    assert SY.compare("A", 0.15, "B", 0.2, "NDCG@10") == "NDCG@10: A 0.150 against B 0.200, A lower by 25%"
    assert SY.compare("A", 0.9, "B", 0.04, "share") == "share: A 0.900 against B 0.040, A higher (22.5×)"
    assert SY.compare("A", 0.1, "B", 0.4, "share") == "share: A 0.100 against B 0.400, A lower (0.2×)"
    assert SY.compare("A", 0.2, "B", 0.2, "NDCG@10") == "NDCG@10: A and B are level at 0.200"
    # level as printed: "higher by 0%" and "4.0×" of two figures printed alike said more than they show
    assert SY.compare("A", 0.3841, "B", 0.3839, "NDCG@10") == "NDCG@10: A and B are level at 0.384"
    assert SY.compare("A", 0.0004, "B", 0.0001, "share") == "share: A and B are level at 0.000"
    assert SY.compare("A", 0.3846, "B", 0.3844, "NDCG@10").endswith("A 0.385 against B 0.384, A higher by less than 1%")
    assert SY.compare("A", 1.5, "B", 7.0, "mean rank", lower_is_better=True).endswith("A better")
    assert SY.compare("A", 7.0, "B", 1.5, "mean rank", lower_is_better=True).endswith("A worse")


def test_interval_reads_the_sign_from_the_interval():
    assert SY.interval("rho", 0.15, 0.10, 0.19).endswith("positive: the interval excludes 0")
    assert SY.interval("rho", -0.15, -0.2, -0.1).endswith("negative: the interval excludes 0")
    assert SY.interval("rho", 0.02, -0.02, 0.07).endswith("indistinguishable from 0: the interval contains it")


def test_the_retrieval_verdict_sentence_reads_notebook_07s_one_computation():
    key = "averitec.retrieval_vs_verdict_spearman"
    nli = {
        f"{key}.rho": 0.46,
        f"{key}.low": -0.2,
        f"{key}.high": 0.85,
        f"{key}.permutation_p": 0.16,
        f"{key}.planners": 11,
    }
    weak = SY.retrieval_verdict_sentence(nli)
    assert weak == (
        "Retrieval against verdicts: Spearman's ρ = 0.46 over notebook 07's 11 planners, bootstrap [-0.20, 0.85] "
        "(permutation p = 0.16), no evidence of a rank relation at the 0.05 level"
    )
    strong = SY.retrieval_verdict_sentence({**nli, f"{key}.rho": -0.8, f"{key}.permutation_p": 0.01})
    assert strong.endswith("a negative rank relation at the 0.05 level")
    flat = SY.retrieval_verdict_sentence({**nli, f"{key}.low": float("nan"), f"{key}.permutation_p": float("nan")})
    assert "bootstrap" not in flat and flat.endswith(
        "no correlation can be read (one side is the same for every planner)"
    )


def test_significance_lists_both_groups():
    assert SY.significance({"A": True, "B": False}, "C") == "significantly different from C: A; not significant: B"
    assert SY.significance({"A": False}, "C") == "significantly different from C: none; not significant: A"
    assert SY.significance({"A": None, "B": True}, "C") == (  # the thirty-third pass: None was "not significant"
        "significantly different from C: B; not tested (too few claims): A"
    )


def test_findings_of_the_committed_metrics_cite_keys_that_exist():
    metrics = SY.load_metrics()
    found = SY.findings(metrics, section("averitec")["systems"]) + SY.limits(metrics)
    assert len(found) == 11
    for f in found:
        file, _, key = f.sources[0].partition(".json:")
        assert any(k == key or k.startswith(key + ".") for k in metrics[file]), f.sources[0]
        assert f.notebook() in SY.NOTEBOOK.values()


def test_a_missing_metric_names_its_file_and_key(tmp_path):
    metrics = SY.load_metrics()
    del metrics["errors"]["family_share.NLI"]
    with pytest.raises(KeyError, match=r"errors.json has no metric 'family_share.NLI'"):
        SY.findings(metrics, ["hero_70b"])
    with pytest.raises(KeyError, match=r"averitec.json has no metric 'runs.nobody.averitec@0.25'"):
        SY.findings(SY.load_metrics(), ["nobody"])
    (tmp_path / "store.json").write_text(json.dumps({}))
    with pytest.raises(FileNotFoundError, match="query_planning.json is missing"):
        SY.load_metrics(tmp_path)


def test_the_best_published_run_is_found_not_named():
    metrics = SY.load_metrics()
    metrics["averitec"]["runs.baseline.averitec@0.25"] = 0.99
    scoring = next(f for f in SY.findings(metrics, ["hero_70b", "baseline"]) if f.topic == "scoring")
    assert "the best of the 2 published runs at AVeriTeC@0.25 is baseline (0.990)" in scoring.sentence


def test_the_completeness_limit_states_the_share_that_rests_on_gold_answers():
    metrics = SY.load_metrics()
    metrics["store"].update({"claims_with_relevant_share": 0.9, "claims_with_relevant_without_gold_share": 0.3})
    assert "for 60.0% of the claims every relevant document in it is a gold answer" in SY.limits(metrics)[0].sentence
    # the forty-seventh pass: the rebuilt store's measured share (42.6%) beside this estimate (36.4%) read as one
    assert "an estimated 30.0%" in SY.limits(metrics)[0].sentence
    assert "The store rebuilt without them, which retrieves other documents in their place, gives 42.6% of claims" in (
        SY.limits(metrics)[0].sentence
    )
    assert "store rebuilt" not in SY.limits({k: v for k, v in metrics.items() if k != "without_gold"})[0].sentence
    assert (
        "cover its pool (what systems retrieved for it"
        in SY.limits({**metrics, "store": {**metrics["store"], "settings.source": "pooled"}})[0].sentence
    )
    metrics["store"]["settings.source"] = "knowledge_store"
    assert "no other passage of other claims' pages" in SY.limits(metrics)[0].sentence
    metrics["store"]["claims_with_relevant_without_gold_share"] = 0.95
    with pytest.raises(ValueError, match="more than with them"):
        SY.limits(metrics)


def test_store_table_sets_both_store_settings_side_by_side():
    m = {
        "query_planning": {"ndcg@10.bm25/claim.oracle": 0.4, "recall@100.bm25/global.oracle": 0.8},
        "averitec": {"runs.oracle.qa": 0.5, "runs.oracle.averitec@0.25": 0.54, **MAIN_ANSWERS},
        "without_gold": {
            **REBUILT_ANSWERS,
            "retrieval.bm25/claim.ndcg@10.oracle": 0.2,
            "retrieval.bm25/global.recall@100.oracle": 0.6,
            "evidence.oracle.qa": 0.37,
            "evidence.oracle.averitec@0.25": 0.3,
        },
    }
    t = SY.store_table(m, ["oracle"])
    assert t.loc["oracle", ("AVeriTeC@0.25", SY.WITH_GOLD)] == 0.54
    assert t.loc["oracle", ("AVeriTeC@0.25", SY.WITHOUT_GOLD)] == 0.3
    assert t.loc["oracle", ("NDCG@10 (BM25, claim pool)", SY.WITHOUT_GOLD)] == 0.2
    with pytest.raises(KeyError, match="has no metric 'ndcg@10.bm25/claim.claim_only'"):
        SY.store_table(m, ["claim_only"])
    # the forty-ninth pass: a dense main run beside the rebuilt store's BM25 read as what the gold answers did
    m["averitec"]["setting.retriever"] = "dense"
    with pytest.raises(NamedError, match=r"averitec.json answers with \{'retriever': 'dense'.*not comparable"):
        SY.store_table(m, ["oracle"])


MAIN_ANSWERS = {"setting.retriever": "bm25", "setting.scope": "claim", "setting.temporal": False,
                "setting.verdict_source": "majority"}  # fmt: skip
REBUILT_ANSWERS = {"answers.retriever": "bm25", "answers.scope": "claim", "answers.temporal": False,
                   "answers.verdict": "majority"}  # fmt: skip


def test_store_sentence_counts_falls_and_reads_the_lead_on_both_sides():
    import pandas as pd

    def table(with_, without):
        cols = pd.MultiIndex.from_tuples([("AVeriTeC@0.25", SY.WITH_GOLD), ("AVeriTeC@0.25", SY.WITHOUT_GOLD)])
        return pd.DataFrame(
            list(zip(with_, without)), index=["ORACLE", "CLAIM-ONLY"], columns=cols
        )  # display names, as notebook 10

    s = SY.store_sentence(table([0.54, 0.11], [0.30, 0.10]), 0.994, 0.426)
    assert s == (
        "With the gold answers in the store 99.4% of dev claims have a relevant document; without them 42.6%. "
        "Without them, AVeriTeC@0.25 falls for 2 of 2 plans; ORACLE, the best with them (0.5400), scores 0.3000, "
        "and its lead over the next plan shrinks (+0.4300 to +0.2000)."
    )
    s = SY.store_sentence(table([0.20, 0.11], [0.30, 0.10]), 0.9, 0.4)
    assert "falls for 1 of 2 plans" in s and "lead over the next plan grows (+0.0900 to +0.2000)" in s
    assert "stays (+0.2500 to +0.2500)" in SY.store_sentence(table([0.5, 0.25], [0.75, 0.5]), 0.9, 0.4)
    # the committed run's case: equal to the printed precision, not beyond it
    assert "stays (+0.3260 to +0.3260)" in SY.store_sentence(table([0.54, 0.214], [0.482, 0.156]), 0.9, 0.4)
    # a lead turned negative was said to "shrink": the best with the gold answers is no longer the best
    lost = SY.store_sentence(table([0.54, 0.214], [0.100, 0.156]), 0.9, 0.4)
    assert lost.endswith("and it loses the lead to CLAIM-ONLY (+0.3260 to -0.0560).")
    one = SY.store_sentence(table([0.54, 0.214], [0.5, 0.2]).iloc[:1], 0.9, 0.4)
    assert one.endswith("and there is no other plan to lead.")


def test_store_sentence_names_a_tie_for_the_best_as_a_tie():
    import pandas as pd

    cols = pd.MultiIndex.from_tuples([("AVeriTeC@0.25", SY.WITH_GOLD), ("AVeriTeC@0.25", SY.WITHOUT_GOLD)])
    tied = pd.DataFrame([[0.5, 0.2], [0.5, 0.3], [0.1, 0.1]], index=["A", "B", "C"], columns=cols)
    s = SY.store_sentence(tied, 0.9, 0.4)
    assert s.endswith("with them A and B tie as the best (0.5000), so no plan has a lead to keep or lose.")
    assert "falls for 2 of 3 plans" in s
    with pytest.raises(ValueError, match="no plan has an AVeriTeC score"):
        SY.store_sentence(tied.iloc[:0], 0.9, 0.4)


def test_store_shares_are_read_over_the_same_claims_or_refused():
    m = {
        "store": {"claims_with_relevant_share": 0.994, "dataset.dev.claims": 500},
        "without_gold": {"store.claims": 500, "store.claims_with_relevant": 213},
    }
    assert SY.store_shares(m) == (0.994, 0.426)
    m["without_gold"]["store.claims"] = 100
    with pytest.raises(NamedError, match="store.json counts 500 dev claims and without_gold.json 100"):
        SY.store_shares(m)
    m["store"]["dataset.dev.claims"] = m["without_gold"]["store.claims"] = 0
    with pytest.raises(NamedError, match="counts 0 dev claims"):
        SY.store_shares(m)


def test_store_sentence_reads_ties_after_and_as_printed():
    import pandas as pd

    cols = pd.MultiIndex.from_tuples([("AVeriTeC@0.25", SY.WITH_GOLD), ("AVeriTeC@0.25", SY.WITHOUT_GOLD)])

    def t(with_, without):
        return pd.DataFrame(list(zip(with_, without)), index=["ORACLE", "CLAIM-ONLY", "BLOOM"], columns=cols)

    assert "it loses the lead to CLAIM-ONLY and BLOOM (+0.1000 to -0.0500)" in SY.store_sentence(
        t([0.3, 0.2, 0.1], [0.1, 0.15, 0.15]), 0.9, 0.4
    )
    assert "its lead is gone: it ties with CLAIM-ONLY (+0.1000 to +0.0000)" in SY.store_sentence(
        t([0.3, 0.2, 0.1], [0.15, 0.15, 0.05]), 0.9, 0.4
    )
    # 0.30004 and 0.30001 print alike: a tie, not a lead of +0.0000
    assert "ORACLE and CLAIM-ONLY tie as the best (0.3000)" in SY.store_sentence(
        t([0.30004, 0.30001, 0.1], [0.2, 0.19, 0.05]), 0.9, 0.4
    )


def test_the_best_published_run_is_named_with_its_ties():
    m = SY.load_metrics()
    systems = ["hero_8b", "hero_70b", "baseline"]
    for name in ("hero_8b", "hero_70b"):
        m["averitec"][f"runs.{name}.averitec@0.25"] = 0.6
    scoring = next(f for f in SY.findings(m, systems) if "published runs" in f.sentence)
    assert (
        "the best of the 3 published runs at AVeriTeC@0.25 are hero_8b and hero_70b, tied at 0.600" in scoring.sentence
    )
    assert {"averitec.json:runs.hero_8b.averitec@0.25", "averitec.json:runs.hero_70b.averitec@0.25"} <= set(
        scoring.sources
    )
    none = next(f for f in SY.findings(m, []) if "published run" in f.sentence)
    assert "no published run is scored" in none.sentence


def test_undefined_intervals_and_correlations_are_said_to_be_so():
    nan = float("nan")
    assert SY.interval("x", nan, nan, nan) == (
        "x is undefined with no 95% interval (too few claims, or a constant side): nothing to read of its sign"
    )
    assert SY.interval("x", 0.4, nan, nan).startswith("x is 0.400 with no 95% interval")
    key = "averitec.retrieval_vs_verdict_spearman"
    two = {f"{key}.rho": 1.0, f"{key}.low": nan, f"{key}.high": nan, f"{key}.permutation_p": 1.0, f"{key}.planners": 2}
    assert "Spearman's ρ = undefined (2 items) over notebook 07's 2 planners" in SY.retrieval_verdict_sentence(two)
    none = two | {f"{key}.rho": nan, f"{key}.planners": 5}
    assert "ρ = undefined (one side is constant) over notebook 07's 5 planners" in SY.retrieval_verdict_sentence(none)
    # p < 0.05 beside a ρ printed "undefined" gave it a direction (the thirty-second pass)
    assert SY.retrieval_verdict_sentence(two | {f"{key}.permutation_p": 0.01}).endswith(
        "(permutation p = 0.01): no direction can be read of an undefined correlation"
    )


def test_store_sentence_reads_the_gaps_from_the_printed_figures():
    """0.30006 over 0.30004 prints 0.3001 over 0.3000: a lead of +0.0001 both times, not "its lead is gone"."""
    import pandas as pd

    def table(with_, without):
        cols = pd.MultiIndex.from_tuples([("AVeriTeC@0.25", SY.WITH_GOLD), ("AVeriTeC@0.25", SY.WITHOUT_GOLD)])
        return pd.DataFrame(list(zip(with_, without)), index=["A", "B"], columns=cols)

    kept = SY.store_sentence(table([0.30006, 0.30004], [0.20006, 0.20004]), 0.99, 0.4)
    assert kept.endswith(
        "A, the best with them (0.3001), scores 0.2001, and its lead over the next plan stays (+0.0001 to +0.0001)."
    )
    grew = SY.store_sentence(table([0.30006, 0.30004], [0.20006, 0.19994]), 0.99, 0.4)
    assert grew.endswith("its lead over the next plan grows (+0.0001 to +0.0002).")
    level = SY.store_sentence(table([0.30006, 0.30004], [0.20004, 0.20001]), 0.99, 0.4)  # 0.2000 and 0.2000
    assert level.endswith("its lead is gone: it ties with B (+0.0001 to +0.0000).")
    assert "falls for 2 of 2 plans" in level
    same = SY.store_sentence(table([0.30006, 0.30004], [0.30009, 0.30001]), 0.99, 0.4)  # 0.3001 and 0.3000 again
    assert "falls for 0 of 2 plans" in same


def test_an_interval_end_that_excludes_0_is_printed_so_and_ratios_are_of_printed_figures():
    assert SY.interval("rho", 0.05, 0.0004, 0.1) == (
        "rho is 0.050 (95% interval 0.0004 to 0.100), positive: the interval excludes 0"
    )
    assert SY.interval("rho", -0.05, -0.1, -0.0004).startswith(
        "rho is -0.050 (95% interval -0.100 to -0.0004), negative"
    )
    assert SY.compare("A", 0.004, "B", 0.153, "m") == "m: A 0.004 against B 0.153, A lower (0.026×)"
    assert SY.compare("A", 0.0015, "B", 0.0010, "m") == "m: A 0.002 against B 0.001, A higher (2.0×)"
    assert SY.compare("A", 0.0004, "B", 0.153, "m") == "m: A 0.000 against B 0.153, A lower"


def test_an_estimate_beside_its_sign_is_printed_apart_from_0():
    """The thirty-second pass: "is 0.000 (95% interval 0.0001 to 0.001), positive"."""
    assert SY.interval("The gain", 0.0004, 0.0001, 0.0007).startswith("The gain is 0.0004 (95% interval 0.0001 to")
    assert SY.interval("The gain", -0.0004, -0.0007, -0.0001).startswith("The gain is -0.0004 (95% interval -0.001")
    assert SY.interval("The gain", 0.25, 0.1, 0.4).startswith("The gain is 0.250 (95% interval 0.100 to 0.400)")


def test_an_undefined_interval_in_the_metrics_is_said_to_be_so_and_a_small_difference_shows_its_side():
    """The thirty-third pass: notebook 09's NaN interval ends (written where there is none) stopped the synthesis
    as "an edited file?"; an errors baseline of +0.4% printed "+0%, positive"."""
    metrics = SY.load_metrics()
    systems = section("averitec")["systems"]
    c = "spearman.official|ndcg@10|correct"
    metrics["utility"].update({f"{c}.low": float("nan"), f"{c}.high": float("nan")})
    metrics["errors"].update(
        {"baseline.retrieval.wrong verdicts": 0.584, "baseline.retrieval.right verdicts": 0.58,
         "baseline.retrieval.call": "positive"}
    )  # fmt: skip
    found = {f.topic: f.sentence for f in SY.findings(metrics, systems)}
    assert found["utility"].endswith(
        "with no 95% interval (too few claims, or a constant side): nothing to read of its sign"
    )
    assert "(difference +0.4 percentage points, positive over claims)" in found["errors"]
    metrics["utility"][f"{c}.low"] = float("inf")  # an undefined value is NaN; anything else is still refused
    with pytest.raises(NamedError, match=r"utility.json: metric '.*correct.low' is inf, expected a finite number"):
        SY.findings(metrics, systems)


def test_a_tests_call_in_the_metrics_is_true_false_or_null():
    """The thirty-fourth pass: the text "false", "no" and NaN counted as significant."""
    systems = section("averitec")["systems"]
    for bad in ("false", float("nan"), 1):
        metrics = SY.load_metrics()
        key = next(k for k in metrics["retrieval"] if k.startswith("significant_vs_baseline."))
        metrics["retrieval"][key] = bad
        with pytest.raises(
            NamedError, match=rf"retrieval\.json: metric '{re.escape(key)}' is .*, expected true, false or null"
        ):
            SY.findings(metrics, systems)


def test_the_store_sentence_refuses_a_missing_score():
    """The thirty-fifth pass: "its lead over the next plan stays (+0.100 to +nan)"."""
    import pandas as pd

    col = "AVeriTeC@0.25"
    t = pd.DataFrame(
        {(col, SY.WITH_GOLD): [0.40, 0.30], (col, SY.WITHOUT_GOLD): [0.35, float("nan")]}, index=["a", "b"]
    )
    with pytest.raises(ValueError, match=r"^store_sentence: no AVeriTeC@0\.25 for b on one of the stores \(NaN\)$"):
        SY.store_sentence(t, 0.5, 0.2)


def test_a_rho_beside_its_direction_shows_its_sign_and_zero_has_none():
    """The thirty-seventh pass: "ρ = 0.00 ... a positive rank relation", and ρ = 0 called negative."""
    k = "averitec.retrieval_vs_verdict_spearman"
    nli = {f"{k}.rho": 0.004, f"{k}.low": -0.1, f"{k}.high": 0.2, f"{k}.permutation_p": 0.01, f"{k}.planners": 10}
    assert "Spearman's ρ = 0.004 over" in SY.retrieval_verdict_sentence(nli)
    assert SY.retrieval_verdict_sentence(nli | {f"{k}.rho": 0.0}).endswith(
        "no evidence of a rank relation at the 0.05 level"
    )


def test_the_completeness_gap_is_the_printed_shares_difference():
    """The forty-second pass: 12.349% and 10.051% printed 12.3% and 10.1% beside a gap of "2.3%"; two shares
    that print alike get the decimals that tell them apart."""
    metrics = SY.load_metrics()
    metrics["store"].update({"claims_with_relevant_share": 0.12349, "claims_with_relevant_without_gold_share": 0.10051})
    sentence = SY.limits(metrics)[0].sentence
    assert (
        sentence.startswith("12.3% of the dev claims") and "an estimated 10.1%, so for 2.2% of the claims" in sentence
    )
    metrics["store"].update({"claims_with_relevant_share": 0.12349, "claims_with_relevant_without_gold_share": 0.12341})
    assert (
        "12.35% of the dev claims" in (s := SY.limits(metrics)[0].sentence) and "an estimated 12.34%, so for 0.01%" in s
    )


def test_an_interval_end_at_0_but_for_noise_reads_no_sign():
    """The forty-second pass: an end of 1e-17 printed 0.000 beside "positive: the interval excludes 0", a ρ of
    1e-17 printed 0.00 beside "a positive rank relation", and -1e-17 printed "-0.000"."""
    assert SY.interval("rho", 0.05, 1e-17, 0.1) == (
        "rho is 0.050 (95% interval 0.000 to 0.100), indistinguishable from 0: the interval contains it"
    )
    assert SY.interval("rho", 0.05, 1e-6, 0.1).endswith("positive: the interval excludes 0")  # a real end keeps it
    assert SY.interval("rho", -1e-17, -0.1, 0.1).startswith("rho is 0.000 (")
    key = "averitec.retrieval_vs_verdict_spearman"
    nli = {f"{key}.rho": 1e-17, f"{key}.low": -1e-17, f"{key}.high": 0.1, f"{key}.permutation_p": 0.01}
    sentence = SY.retrieval_verdict_sentence({**nli, f"{key}.planners": 8})
    assert "ρ = 0.00 " in sentence and "bootstrap [0.00, 0.10]" in sentence
    assert sentence.endswith("no evidence of a rank relation at the 0.05 level")
    assert "ρ = 0.00 " in SY.retrieval_verdict_sentence({**nli, f"{key}.rho": -1e-17, f"{key}.planners": 8})
    assert SY.retrieval_verdict_sentence({**nli, f"{key}.rho": 0.3, f"{key}.planners": 8}).endswith(
        "a positive rank relation at the 0.05 level"
    )


def test_compare_prints_no_minus_zero_and_no_ratio_of_negative_figures():
    """The forty-second pass: "level at -0.000", and -0.1 against -0.2 read "higher (0.5×)"."""
    assert SY.compare("A", -0.0001, "B", 0.0, "M") == "M: A and B are level at 0.000"
    assert SY.compare("A", -0.1, "B", -0.2, "M") == "M: A -0.100 against B -0.200, A higher"
    assert SY.compare("A", -0.0004, "B", 0.002, "M") == "M: A 0.000 against B 0.002, A lower"
    assert SY.compare("A", 0.384, "B", 0.153, "M") == "M: A 0.384 against B 0.153, A higher (2.5×)"


def test_compare_of_an_undefined_figure_reads_no_direction_and_limits_keep_shares_off_0_and_1():
    """The forty-third pass: "A nan against B 0.300, A lower"; 99.96% and 0.04% printed "100.0%" and "0.0%"
    with a gap of "100.0%"."""
    nan = float("nan")
    assert (
        SY.compare("A", nan, "B", 0.3, "NDCG")
        == "NDCG: A undefined against B 0.300: no comparison of an undefined figure"
    )
    assert SY.compare("A", 0.3, "B", nan, "NDCG").endswith("B undefined: no comparison of an undefined figure")
    metrics = SY.load_metrics()
    metrics["store"].update({"claims_with_relevant_share": 0.9996, "claims_with_relevant_without_gold_share": 0.0004})
    assert SY.limits(metrics)[0].sentence.startswith(
        "99.96% of the dev claims have a relevant document; without the annotators' own answers as documents, this "
        "store's judgements give an estimated 0.04%, so for 99.92% of the claims"
    )
    assert SY.interval("x", -1e-17, nan, nan).startswith("x is 0.000 with no 95% interval")
    key = "averitec.retrieval_vs_verdict_spearman"
    nli = {f"{key}.rho": -1e-17, f"{key}.low": -0.5, f"{key}.high": 0.5, f"{key}.permutation_p": 0.5}
    assert "ρ = 0.00 over notebook 07's planners" in SY.retrieval_verdict_sentence({**nli, f"{key}.planners": None})


def test_the_store_sentence_keeps_shares_off_0_and_100_and_limits_read_noise_as_equal():
    """The forty-fourth pass: 0.9996 and 0.0004 printed "100.0%" and "0.0%" in notebook 10's store sentence, and
    0.1 + 0.2 against 0.3 printed "30.000000000000%"."""
    col = "AVeriTeC@0.25"
    table = pd.DataFrame({(col, SY.WITH_GOLD): [0.4, 0.3], (col, SY.WITHOUT_GOLD): [0.35, 0.3]}, index=["a", "b"])
    assert SY.store_sentence(table, 0.9996, 0.0004).startswith(
        "With the gold answers in the store 99.96% of dev claims have a relevant document; without them 0.04%."
    )
    metrics = SY.load_metrics()
    metrics["store"].update({"claims_with_relevant_share": 0.1 + 0.2, "claims_with_relevant_without_gold_share": 0.3})
    assert SY.limits(metrics)[0].sentence.startswith("30.0% of the dev claims") and "for 0.0% of the claims" in (
        SY.limits(metrics)[0].sentence
    )


def test_the_errors_finding_prints_both_shares_as_their_difference_reads():
    """The forty-fifth pass: 29.5% of the wrong verdicts against "29%" of the right ones beside "+0.02%"."""
    metrics = SY.load_metrics()
    e = metrics["errors"]
    e["baseline.retrieval.wrong verdicts"], e["baseline.retrieval.right verdicts"] = 0.2951, 0.2949
    systems = [k.split(".")[1] for k in metrics["averitec"] if k.startswith("runs.") and k.endswith(".averitec@0.25")]
    sentence = next(f.sentence for f in SY.findings(metrics, systems) if f.topic == "errors")
    assert (
        "code 29.51% of the wrong verdicts as retrieval, against 29.49% of the right ones (difference +0.02 percentage points"
        in (sentence)
    )


def test_the_planners_finding_names_notebook_04s_setting_and_each_direction():
    """The forty-seventh pass: "significantly different" stood beside "BLOOM-QG higher" from another setting."""
    metrics = SY.load_metrics()
    r = metrics["retrieval"]
    where = f"{r['setting.retriever']}/{r['setting.scope']}"
    assert where == "bm25/global"
    base = r["bootstrap_ci.CLAIM-ONLY"][0]
    planners = next(f for f in SY.findings(metrics, section("averitec")["systems"]) if "notebook 04's" in f.sentence)
    assert "(BM25, open collection, NDCG@10)" in planners.sentence
    # the forty-ninth pass: a direction for every significant call (the curves' four planners had one), read from
    # the means it tested, against the baseline it tested against
    r["significant_vs_baseline.BLOOM-QG"] = r["significant_vs_baseline.POST-HOC (fever8)"] = True
    for value, word in ((base + 0.1, "higher"), (base - 0.05, "lower")):
        r["bootstrap_ci.BLOOM-QG"] = [value, value - 0.01, value + 0.01]
        found = next(f for f in SY.findings(metrics, section("averitec")["systems"]) if "notebook 04's" in f.sentence)
        assert f"BLOOM-QG ({word}, " in found.sentence and "POST-HOC (fever8) (higher, 0.087 against 0.101" not in (
            found.sentence
        )
        assert "POST-HOC (fever8) (lower, 0.087 against 0.101)" in found.sentence
    r["setting.baseline"] = "oracle"  # the tests against ORACLE-QUERIES were printed as CLAIM-ONLY's
    found = next(f for f in SY.findings(metrics, section("averitec")["systems"]) if "notebook 04's" in f.sentence)
    assert "significantly different from ORACLE-QUERIES: " in found.sentence
    del r["bootstrap_ci.BLOOM-QG"]
    with pytest.raises(NamedError, match="retrieval.json: no bootstrap_ci mean for BLOOM-QG or for the baseline"):
        SY.findings(metrics, section("averitec")["systems"])


def test_compare_keeps_a_share_of_the_difference_off_100_and_prints_shares_as_shares():
    """The forty-eighth pass: a ratio of 1.996 read "higher by 100%", and notebook 10 printed notebook 08's
    family shares 0.9996 and 0.0004 as "1.000" and "0.000" where notebook 08 prints them off 0% and 100%."""
    assert SY.compare("A", 0.499, "B", 0.25, "X") == "X: A 0.499 against B 0.250, A higher by 99.6%"
    assert SY.compare("r", 0.5882, "n", 0.0212, "Share", fmt=".1%") == "Share: r 58.8% against n 2.1%, r higher (28.0×)"
    assert SY.compare("r", 0.9996, "n", 0.0004, "Share", fmt=".1%") == "Share: r 99.96% against n 0.04%, r higher"
    assert SY.compare("r", 0.5, "n", 0.5, "Share", fmt=".1%") == "Share: r and n are level at 50.0%"


def test_table_1_reads_the_retrieval_figure_of_the_runs_the_verifier_read():
    """The forty-eighth pass: Table 1 set NDCG@10 of bm25/claim (the focus) beside verdicts from bm25/global,
    and ORACLE's retrieval gain read +151% where notebook 07 measured +114%."""
    qp = {"fusion": "combmax_norm", "ndcg@10.bm25/claim.oracle": 0.3, "ndcg@10.bm25/global.oracle": 0.2}
    nli = {f"averitec.retrieval.{k}": v for k, v in
           {"retriever": "bm25", "scope": "global", "temporal": False, "fusion": "combmax_norm"}.items()}  # fmt: skip
    assert SY.verdict_retrieval(nli, qp) == "bm25/global"
    assert SY.verdict_retrieval(nli | {"averitec.retrieval.scope": "claim"}, qp) == "bm25/claim"
    with pytest.raises(NamedError, match=r"nli.json: averitec.retrieval has no fusion: rerun stage nli_veracity"):
        SY.verdict_retrieval({k: v for k, v in nli.items() if not k.endswith("fusion")}, qp)
    for temporal in (True, None, 0.0, "false"):  # the forty-ninth pass: None and 0.0 were read as False
        with pytest.raises(NamedError, match=f"read bm25/global with temporal={temporal!r}.*no retrieval figure here"):
            SY.verdict_retrieval(nli | {"averitec.retrieval.temporal": temporal}, qp)
    with pytest.raises(NamedError, match="fusion 'rrf'; query_planning.json scores temporal=False and fusion 'combmax"):
        SY.verdict_retrieval(nli | {"averitec.retrieval.fusion": "rrf"}, qp)
    with pytest.raises(NamedError, match="fusion None; query_planning.json scores temporal=False and fusion None"):
        SY.verdict_retrieval(nli | {"averitec.retrieval.fusion": None}, {k: v for k, v in qp.items() if k != "fusion"})
    with pytest.raises(NamedError, match=r"query_planning.json: no ndcg@10.dense/global, the setting the verifier"):
        SY.verdict_retrieval(nli | {"averitec.retrieval.retriever": "dense"}, qp)


def test_shares_are_level_only_where_both_print_alike_and_the_verdict_tests_are_named():
    """The forty-ninth pass: "level at 100.0%" of 100% and 99.96%; notebook 10 printed every verdict test as
    "against CLAIM-ONLY, p < 0.05" whatever nli_veracity.baseline and .alpha were."""
    assert (
        SY.compare("A", 1.0, "B", 0.9996, "share", fmt=".1%")
        == "share: A 100.0% against B 99.96%, A higher by less than 1%"
    )
    assert SY.compare("A", 0.0004, "B", 0.0001, "share", fmt=".1%") == "share: A 0.04% against B 0.01%, A higher"
    assert SY.compare("A", 0.3001, "B", 0.3004, "share", fmt=".1%") == "share: A and B are level at 30.0%"
    metrics = SY.load_metrics()
    assert SY.verdict_tests(metrics) == ("planner:claim_only", "CLAIM-ONLY", 0.05)
    metrics["nli"] |= {"averitec.baseline": "planner:heuristic", "averitec.alpha": 0.01}
    found = [f.sentence for f in SY.findings(metrics, section("averitec")["systems"]) if f.topic == "verdicts"]
    assert any(
        s.startswith("Planners' top-k evidence against the HEURISTIC evidence (paired bootstrap on macro-F1, p < 0.01")
        for s in found
    )
    del metrics["nli"]["averitec.alpha"]
    with pytest.raises(KeyError, match="nli.json has no metric 'averitec.alpha'"):
        SY.verdict_tests(metrics)


def test_the_store_figures_print_as_the_metrics_files_hold_them():
    """The fiftieth pass: notebook 10 printed the stored 0.5025 (of 0.50254, printed 0.503 by notebook 02) as 0.502:
    a figure rounded to 4 decimals and again to 3. Its table and sentence print the 4 decimals stored."""
    col = "AVeriTeC@0.25"
    table = pd.DataFrame(
        {(col, SY.WITH_GOLD): [0.5025, 0.2425], (col, SY.WITHOUT_GOLD): [0.4895, 0.2]}, index=["a", "b"]
    )
    assert SY.STORED == ".4f"
    assert SY.store_sentence(table, 0.9, 0.4).endswith(
        "a, the best with them (0.5025), scores 0.4895, and its lead over the next plan grows (+0.2600 to +0.2895)."
    )
    assert f"{0.5025:{SY.STORED}}" == "0.5025"  # not re-rounded to 0.502
