"""lib.analysis.synthesis: each sentence on both sides of its condition, and the findings of the committed metrics."""

import json

import pytest

from lib.analysis import synthesis as SY
from lib.params import section


def test_compare_says_higher_lower_better_worse_or_level():
    assert SY.compare("A", 0.3, "B", 0.2, "NDCG@10") == "NDCG@10: A 0.300 against B 0.200, A higher by 50%"
    assert SY.compare("A", 0.15, "B", 0.2, "NDCG@10") == "NDCG@10: A 0.150 against B 0.200, A lower by 25%"
    assert SY.compare("A", 0.9, "B", 0.04, "share") == "share: A 0.900 against B 0.040, A higher (22.5×)"
    assert SY.compare("A", 0.1, "B", 0.4, "share") == "share: A 0.100 against B 0.400, A lower (0.2×)"
    assert SY.compare("A", 0.2, "B", 0.2, "NDCG@10") == "NDCG@10: A and B are level at 0.200"
    assert SY.compare("A", 1.5, "B", 7.0, "mean rank", lower_is_better=True).endswith("A better")
    assert SY.compare("A", 7.0, "B", 1.5, "mean rank", lower_is_better=True).endswith("A worse")


def test_interval_reads_the_sign_from_the_interval():
    assert SY.interval("rho", 0.15, 0.10, 0.19).endswith("positive: the interval excludes 0")
    assert SY.interval("rho", -0.15, -0.2, -0.1).endswith("negative: the interval excludes 0")
    assert SY.interval("rho", 0.02, -0.02, 0.07).endswith("indistinguishable from 0: the interval contains it")


def test_association_needs_evidence_for_a_rank_relation():
    strong = SY.association(list(range(10)), [x * 2 for x in range(10)], "x and y")
    assert strong.startswith("x and y: Spearman's ρ = 1.00 over 10 pairs") and "a positive rank relation" in strong
    weak = SY.association([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], "x and y")
    assert "no evidence of a rank relation at the 0.05 level" in weak
    with pytest.raises(ValueError, match="at least 3 aligned pairs"):
        SY.association([1, 2], [1, 2], "x")


def test_significance_lists_both_groups():
    assert SY.significance({"A": True, "B": False}, "C") == "significantly different from C: A; not significant: B"
    assert SY.significance({"A": False}, "C") == "significantly different from C: none; not significant: A"


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
    assert "for 60.0% of the claims every relevant document is a gold answer" in SY.limits(metrics)[0].sentence
    assert (
        "cover its pool (what systems retrieved for it"
        in SY.limits({**metrics, "store": {**metrics["store"], "settings.source": "pooled"}})[0].sentence
    )
    metrics["store"]["settings.source"] = "knowledge_store"
    assert "no other passage of other claims' pages" in SY.limits(metrics)[0].sentence
    metrics["store"]["claims_with_relevant_without_gold_share"] = 0.95
    with pytest.raises(ValueError, match="more than with them"):
        SY.limits(metrics)
