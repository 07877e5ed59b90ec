"""Every error rule on hand-made cases; the quantities the rules read; the coding sheet and kappa."""

import re

import numpy as np
import pandas as pd
import pytest

from lib import sheets as SH
from lib.analysis import errors as ER
from lib.data import averitec


def case(**kw) -> ER.Case:
    """A wrong verdict whose retrieval found two relevant documents of three (an NLI error by default)."""
    base = dict(
        label="Supported",
        pred="Refuted",
        store_grades=(1, 2, 2),
        top_grades=(2, 1, 0),
        homogeneity=0.5,
        question_found=(2, 0),
        question_coverage=(0.9, 0.8),
    )
    return ER.Case(**{**base, **kw})


def test_right_verdicts_are_not_errors():
    assert ER.code(case(pred="Supported", store_grades=())) == ER.CORRECT


def test_evidence_unavailable_when_the_store_has_no_relevant_document():
    assert ER.code(case(store_grades=())) == ER.EVIDENCE_UNAVAILABLE
    assert ER.code(case(store_grades=(1, 1), top_grades=(1, 1, 0))) == ER.NLI_ERROR
    assert ER.code(case(store_grades=(1, 1), top_grades=(1, 1, 0)), ER.Rules(min_grade=2)) == ER.EVIDENCE_UNAVAILABLE


def test_possible_label_error_needs_a_consensus_on_the_predicted_label():
    six_of_seven = dict(consensus_label="Refuted", consensus_share=6 / 7, n_systems=7)
    assert ER.code(case(**six_of_seven)) == ER.LABEL_ERROR
    assert ER.code(case(**{**six_of_seven, "consensus_share": 5 / 7})) == ER.NLI_ERROR  # too few agree
    assert ER.code(case(**{**six_of_seven, "pred": "Not Enough Evidence"})) == ER.NLI_ERROR  # not our label
    assert ER.code(case(**{**six_of_seven, "n_systems": 2, "consensus_share": 1.0})) == ER.NLI_ERROR
    assert ER.code(case(**six_of_seven), ER.Rules(label_error_share=0.9)) == ER.NLI_ERROR


def test_missed_implicit_aspect_when_the_missed_questions_are_not_in_the_claim():
    c = case(top_grades=(0, 0, 1), question_found=(1, 0, 0), question_coverage=(0.9, 0.2, 0.4))
    assert ER.missed_coverage(c, 1) == pytest.approx(0.3)
    assert ER.code(c) == ER.IMPLICIT
    assert ER.code(c, ER.Rules(implicit_coverage=0.3)) == ER.NOISY  # 0.3 is not below 0.3


def test_near_duplicate_top_k_is_homogeneous_before_any_missed_aspect():
    # the claim copied three times (claim 4 of the study): near-duplicates, and the missed questions are implicit
    c = case(top_grades=(0, 0, 0), question_found=(0, 0), question_coverage=(0.1, 0.2), homogeneity=0.99)
    assert ER.code(c) == ER.HOMOGENEOUS
    assert ER.code(ER.Case(**{**c.__dict__, "homogeneity": 0.5})) == ER.IMPLICIT


def test_missed_explicit_aspect_is_homogeneous_or_noisy():
    c = case(top_grades=(0, 0, 0), question_found=(0,), question_coverage=(0.8,))
    assert ER.code(ER.Case(**{**c.__dict__, "homogeneity": 0.9})) == ER.HOMOGENEOUS
    assert ER.code(ER.Case(**{**c.__dict__, "homogeneity": 0.85})) == ER.HOMOGENEOUS  # at the threshold
    assert ER.code(c) == ER.NOISY
    assert ER.code(ER.Case(**{**c.__dict__, "homogeneity": float("nan")})) == ER.NOISY  # one document


def test_every_question_found_but_mostly_irrelevant_top_k_is_explicit():
    c = case(top_grades=(2, 0, 0), question_found=(2,), question_coverage=(0.1,))
    assert np.isnan(ER.missed_coverage(c, 1)) and ER.code(c) == ER.NOISY


def test_nli_error_at_and_above_the_found_share():
    assert ER.code(case()) == ER.NLI_ERROR  # 2 of 3 relevant
    assert ER.code(case(top_grades=(1, 0))) == ER.NLI_ERROR  # 1 of 2 is not below 0.5
    assert ER.code(case(top_grades=(1, 0, 0))) != ER.NLI_ERROR  # 1 of 3 is
    assert ER.code(case(top_grades=(1, 0, 0)), ER.Rules(found_share=1 / 3)) == ER.NLI_ERROR
    assert ER.code(case(top_grades=())) == ER.NOISY  # nothing retrieved


def test_rules_check_names_and_ranges():
    assert ER.Rules.model_validate({"homogeneity": 0.9}).homogeneity == 0.9
    with pytest.raises(ValueError, match="homogenity"):
        ER.Rules.model_validate({"homogenity": 0.9})
    with pytest.raises(ValueError, match="found_share"):
        ER.Rules.model_validate({"found_share": 2})


def test_content_words_coverage_homogeneity_and_consensus():
    assert ER.content_words("How many jobs were created in 2020?") == {"job", "creat", "2020"}
    assert ER.coverage("How many jobs were created in 2020?", "Biden created 10 million jobs in 2020") == 1.0
    assert ER.coverage("What did the WHO say about masks?", "Masks do not work, says a doctor") == pytest.approx(2 / 3)
    assert ER.coverage("Is it?", "anything") == 1.0
    assert ER.homogeneity(np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 3.0]])) == pytest.approx(1 / 3)
    assert np.isnan(ER.homogeneity(np.ones((1, 4))))
    assert ER.consensus(["Refuted", "Refuted", "Supported", None]) == ("Refuted", pytest.approx(2 / 3), 3)
    assert ER.consensus([None]) == (None, 0.0, 0)


def _claim(claim_id=0, label="Supported", text="The mayor cut taxes by 5% in 2019") -> averitec.Claim:
    ans = lambda url: averitec.Answer("an answer", "Extractive", url, "Web text")
    questions = (
        averitec.Question("Did the mayor cut taxes in 2019?", (ans("https://www.city.gov/budget"), ans(""))),
        averitec.Question("What was the inflation rate?", (ans("https://stats.org/cpi/"),)),
    )
    return averitec.Claim(claim_id, "dev", text, label, None, ("Numerical Claim",), (), "", None, None, None, questions)


def test_question_docs_follow_answers_and_their_urls():
    docs = ER.question_docs(_claim(), {0: "D0", 2: "D2"}, {"city.gov/budget": ["D5", "D6"], "stats.org/cpi": ["D2"]})
    assert docs == [{"D0": 2, "D5": 1, "D6": 1}, {"D2": 2}]


def test_cases_and_rules_end_to_end():
    claims = [_claim(0), _claim(1, "Refuted", "The mayor cut taxes by 5% in 2019 while the inflation rate rose")]
    docs = pd.DataFrame({"doc_id": ["D0", "D1", "D2", "D3"], "norm_url": ["city.gov/budget", "", "x.com/a", ""]})
    hits = pd.DataFrame(
        {"origin": ["gold", "gold", "system"], "claim_id": [0, 1, 0], "rank": [0, 2, 0], "doc_id": ["D1", "D3", "D2"]}
    )
    qrels = {"0": {"D0": 1, "D1": 2, "D2": 0}, "1": {"D0": 1, "D3": 2, "D2": 0}}
    vectors = np.array([[1.0, 0.0], [1.0, 0.1], [1.0, 0.0], [0.0, 1.0]])
    preds = pd.DataFrame(
        {
            "method": ["m", "m", "n"],
            "claim_id": [0, 1, 1],
            "label": ["Supported", "Refuted", "Refuted"],
            "pred": ["Refuted", "Supported", "Refuted"],
        }
    )
    top = {"m": {0: ("D0", "D2"), 1: ("D2", "D1")}, "n": {1: ("D3",)}}
    consensus = {0: ("Refuted", 1.0, 7)}
    table = ER.apply_rules(ER.cases(preds, top, claims, qrels, docs, hits, vectors, consensus))
    first = table.iloc[0]
    assert first["top_grades"] == (1, 0) and first["question_found"] == (1, 0) and first["homogeneity"] == 1.0
    assert first["code"] == ER.LABEL_ERROR and first["family"] == "unverifiable"
    second = table.iloc[1]  # nothing relevant in the top-2, both (explicit) questions missed, near-duplicates
    assert second["relevant_share"] == 0 and second["missed_questions"] == 2 and second["code"] == ER.HOMOGENEOUS
    assert table.iloc[2]["code"] == ER.CORRECT
    off = ER.Rules().model_copy(update={"homogeneity": 1.01})  # above every cosine: the rule off
    assert ER.apply_rules(table, off).iloc[1]["code"] == ER.NOISY
    dist = ER.distribution(table, "method")
    assert list(dist.columns) == list(ER.ERROR_CODES)
    assert dist.loc["m", ER.LABEL_ERROR] == 0.5 and dist.loc["m", ER.HOMOGENEOUS] == 0.5 and "n" not in dist.index
    assert ER.distribution(table, "method", normalise=False).loc["m"].sum() == 2


def test_coding_sheet_samples_claims_by_stratum_one_row_each_and_blind():
    # claims 0-5: a wrong for noisy on 0-4 (b too on 0 and 1, NLI error); claim 5 right for a, NLI error for b
    table = pd.DataFrame(
        {
            "method": ["a"] * 6 + ["b"] * 3,
            "claim_id": [0, 1, 2, 3, 4, 5, 0, 1, 5],
            "label": "Supported",
            "pred": "Refuted",
            "code": [ER.NOISY] * 5 + [ER.CORRECT] + [ER.NLI_ERROR] * 3,
        }
    )
    assert ER.claim_strata(table).to_dict() == {
        0: ER.NOISY,
        1: ER.NOISY,
        2: ER.NOISY,
        3: ER.NOISY,
        4: ER.NOISY,
        5: ER.NLI_ERROR,
    }
    claims = [_claim(i) for i in range(6)]
    evidence = {"a": {i: ("first", "second") for i in range(6)}, "b": {0: ("x",), 1: ("y",), 5: ("z",)}}
    sheet = ER.coding_sheet(table, claims, evidence, per_code=3, seed=0)
    assert list(sheet.columns) == [
        *ER.SHEET_COLUMNS,
        "prediction:a", "evidence:a", "code:a", "prediction:b", "evidence:b", "code:b", "comment",
    ]  # fmt: skip
    assert not any(c in sheet.columns for c in ("code", "stratum"))  # blind
    assert len(sheet) == 4 and sheet["claim_id"].is_unique  # 3 noisy claims and the only NLI-error one
    assert 5 in set(sheet["claim_id"]) and list(sheet["sheet_id"]) == [1, 2, 3, 4]
    five = sheet.set_index("claim_id").loc[5]
    assert five["prediction:a"] == "" and five["evidence:a"] == ""  # a was right on claim 5: nothing to code
    assert five["prediction:b"] == "Refuted" and five["evidence:b"] == "[1] z" and five["code:b"] == ""
    assert sheet.equals(ER.coding_sheet(table, claims, evidence, per_code=3, seed=0))
    seeds = {tuple(ER.coding_sheet(table, claims, evidence, per_code=3, seed=s)["claim_id"]) for s in range(5)}
    assert len(seeds) > 1


def test_filled_sheet_and_agreement(tmp_path):
    assert ER.read_filled_sheet(tmp_path / "none.csv") is None
    path = tmp_path / "filled.csv"
    sheet = pd.DataFrame(
        {
            "sheet_id": [1, 2],
            "claim_id": [0, 1],
            "code:a": [ER.NOISY, " " + ER.NLI_ERROR],
            "code:b": [ER.NLI_ERROR, ""],
        }
    )
    sheet.to_csv(path, index=False)
    filled = ER.read_filled_sheet(path)
    assert filled[["method", "claim_id", "manual_code"]].values.tolist() == [
        ["a", 0, ER.NOISY],
        ["a", 1, ER.NLI_ERROR],
        ["b", 0, ER.NLI_ERROR],
    ]  # blank cells are not coded yet; spaces stripped
    auto = pd.DataFrame(
        {"method": ["a", "a", "b", "b"], "claim_id": [0, 1, 0, 1], "code": [ER.NOISY, ER.NOISY, ER.NLI_ERROR, ER.NOISY]}
    )
    agree = ER.agreement(filled, auto)
    assert agree.loc["all", "items"] == 3 and agree.loc["all", "agreement"] == pytest.approx(2 / 3)
    assert agree.loc["b", "kappa"] == 1.0
    right = auto.assign(code=[ER.NOISY, ER.NOISY, ER.CORRECT, ER.NOISY])
    with pytest.raises(
        ValueError, match=r"\.csv: codes for verdicts that are right \(sheet_id \d+ column code:b\); leave"
    ):
        ER.agreement(filled, right)  # the file and the row named, as every other sheet error does
    typo = filled.assign(method=filled["method"].replace({"b": "bb"}))  # a column code:bb on the sheet
    with pytest.raises(ValueError, match=r"column\(s\) code:bb: no such method \(the study's: a, b\)"):
        ER.agreement(typo, auto)
    with pytest.raises(
        ValueError, match=r"codes for verdicts the automatic coding has not \(sheet_id \d+ column code:a, sheet"
    ):
        ER.agreement(filled, auto[auto["claim_id"] == 1])
    sheet.assign(**{"code:a": ["noisy", ""]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"row sheet_id 1, column code:a: unknown manual code 'noisy'"):
        ER.read_filled_sheet(path)
    pd.concat([sheet, sheet.iloc[[0]]]).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"rows 2 and 4: claim_id 0 coded twice"):
        ER.read_filled_sheet(path)
    pd.concat([sheet, sheet.iloc[[0]].assign(claim_id=" 00", sheet_id=9)]).to_csv(path, index=False)
    with pytest.raises(
        ValueError, match=r"rows 2 and 4: claim_id 0 coded twice"
    ):  # the same claim, written another way
        ER.read_filled_sheet(path)
    sheet.assign(claim_id=["0", "x1"]).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"row 3: claim_id = 'x1'; expected a dev claim id"):
        ER.read_filled_sheet(path)
    sheet[["sheet_id", "claim_id"]].to_csv(path, index=False)
    with pytest.raises(ValueError, match="needs code:<method> columns"):
        ER.read_filled_sheet(path)
    # the claim_id cells of two rows swapped (a column edited alone): codes move to other claims silently
    sheet.assign(claim_id=[1, 0]).to_csv(path, index=False)
    with pytest.raises(
        ValueError, match=r"row 2: sheet_id 1 with claim_id 1 is not a row of the coding sheet \(2 rows"
    ):
        ER.read_filled_sheet(path, written=sheet)
    sheet.assign(sheet_id=["01", "2"]).to_csv(path, index=False)
    assert len(ER.read_filled_sheet(path, written=sheet)) == 3  # `01` is row 1


def test_main_source_sentence_on_both_sides_of_the_condition():
    assert ER.largest_family({"retrieval": 0.5, "NLI": 0.3, "unverifiable": 0.2}) == "retrieval"
    assert ER.largest_family({"retrieval": 0.4, "NLI": 0.4, "unverifiable": 0.2}) is None
    shares = {"retrieval": 0.5, "NLI": 0.3, "unverifiable": 0.2}
    holds = [shares, {"retrieval": 0.45, "NLI": 0.35, "unverifiable": 0.2}]
    assert ER.main_source_sentence(shares, holds) == (
        "The rules code retrieval as the largest family (50%), and it stays the largest in all 2 settings of the "
        "threshold sweep."
    )
    flips = [*holds, {"retrieval": 0.3, "NLI": 0.6, "unverifiable": 0.1}]
    assert ER.main_source_sentence(shares, flips).endswith(
        "it is the largest in 2 of the 3 settings of the threshold sweep."
    )
    tie = {"retrieval": 0.4, "NLI": 0.4, "unverifiable": 0.2}
    assert ER.main_source_sentence(tie, [tie]) == (
        "No single family of codes is the largest at the default thresholds: retrieval 40%, NLI 40%, unverifiable 20%."
    )


def test_unjudged_evidence_when_most_of_the_top_k_was_never_judged():
    c = case(top_grades=(0, 0, 0), question_found=(0,), question_coverage=(0.8,), top_judged=(True, False, False))
    assert ER.judged_share(c) == pytest.approx(1 / 3)
    assert ER.code(c) == ER.UNJUDGED and ER.FAMILY[ER.UNJUDGED] == "coverage"
    judged = ER.Case(**{**c.__dict__, "top_judged": (True, True, False)})  # 2 of 3 judged: a retrieval code
    assert ER.code(judged) == ER.NOISY
    # relevant evidence found: unjudged neighbours do not matter
    assert ER.code(case(top_judged=(True, True, False))) == ER.NLI_ERROR
    assert ER.judged_share(case()) == 1.0  # unknown: as before, every document judged


def test_a_right_verdict_gets_the_code_it_would_get_if_it_were_wrong():
    right = case(pred="Supported", top_grades=(0, 0, 0), question_found=(0,), question_coverage=(0.8,))
    assert ER.code(right) == ER.CORRECT
    assert ER.code(right, if_wrong=True) == ER.NOISY
    # the label-error rule needs the systems to agree on the prediction against the label: never for a right one
    flagged = ER.Case(**{**right.__dict__, "consensus_label": "Refuted", "consensus_share": 1.0, "n_systems": 7})
    assert ER.code(flagged, if_wrong=True) == ER.NOISY


def _coded(rows):
    """A table as apply_rules leaves it: (claim, correct, rule family) per row."""
    return pd.DataFrame(
        [{"method": f"m{i}", "claim_id": c, "correct": ok, "rule_family": f} for i, (c, ok, f) in enumerate(rows)]
    ).assign(code=lambda t: np.where(t["correct"], ER.CORRECT, "x"))


def test_baseline_compares_wrong_and_right_verdicts_by_claim():
    # claims 0-9 wrong and retrieval; claims 10-19 right, half retrieval: 100% against 50%
    rows = [(c, False, "retrieval") for c in range(10)] + [
        (c, True, "retrieval" if c < 15 else "NLI") for c in range(10, 20)
    ]
    b = ER.baseline(_coded(rows), n_resamples=400)
    r = b.loc["retrieval"]
    assert (r["wrong verdicts"], r["right verdicts"], r["difference"]) == (1.0, 0.5, 0.5)
    assert (r["claims (wrong)"], r["claims (right)"]) == (10, 5)
    assert r["low"] > 0 and r["call"] == "positive"
    assert b.loc["NLI", "call"] == "negative" and b.loc["coverage", "difference"] == 0.0
    assert ER.baseline_sentence(r, "A retrieval code").endswith("more common behind wrong verdicts.")
    assert ER.baseline_sentence(b.loc["NLI"], "An NLI code").endswith("less common behind wrong verdicts.")


def test_baseline_calls_a_code_that_fits_right_verdicts_as_often_uninformative():
    rows = [(c, c % 2 == 0, "retrieval") for c in range(20)]  # every verdict, right or wrong, is retrieval
    b = ER.baseline(_coded(rows), n_resamples=200)
    assert b.loc["retrieval", "difference"] == 0.0 and b.loc["retrieval", "call"] == "indistinguishable from 0"
    assert ER.baseline_sentence(b.loc["retrieval"], "A retrieval code") == (
        "A retrieval code fits 100% of the wrong verdicts and 100% of the right ones (+0.0 percentage points, 95% interval "
        "[+0.0, +0.0], claims resampled): the rules find it as often behind right verdicts, so it does not "
        "locate the errors."
    )
    with pytest.raises(ValueError, match="both wrong and right"):
        ER.baseline(_coded([(0, True, "NLI")]))


def test_grouped_counts_claims_and_merges_rows_on_few_claims():
    table = pd.DataFrame(
        {
            "claim_id": [0, 0, 0, 1, 2, 3, 4],  # claim 0 wrong for three methods: three verdicts, one claim
            "label": ["A", "A", "A", "A", "B", "C", "C"],
            "code": [ER.NOISY, ER.NOISY, ER.NLI_ERROR, ER.NOISY, ER.NLI_ERROR, ER.CORRECT, ER.NOISY],
        }
    )
    assert ER.claims_behind(table, "label").to_dict() == {"A": 2, "B": 1, "C": 1}
    g = ER.grouped(table, "label", min_claims=2)
    assert list(g.index) == ["A", "other (2 with < 2 claims)"]
    assert g.loc["A", "claims"] == 2 and g.loc["A", "wrong verdicts"] == 4
    assert g.loc["A", ER.NOISY] == 0.75
    other = g.loc["other (2 with < 2 claims)"]
    assert (other["claims"], other["wrong verdicts"], other[ER.NOISY], other[ER.NLI_ERROR]) == (2, 2, 0.5, 0.5)
    assert list(ER.grouped(table, "label").index) == ["A", "B", "C"]


def test_kappa_and_confusion_on_a_sheet_coded_by_hand():
    auto = pd.DataFrame(
        {
            "method": ["m"] * 6,
            "claim_id": range(6),
            "code": [ER.NOISY, ER.NOISY, ER.NOISY, ER.NLI_ERROR, ER.NLI_ERROR, ER.UNJUDGED],
        }
    )
    filled = auto.assign(manual_code=[ER.NOISY, ER.NOISY, ER.NLI_ERROR, ER.NLI_ERROR, ER.NLI_ERROR, ER.NOISY])
    # by hand: p_o = 4/6; manual noisy 3, NLI 3; automatic noisy 3, NLI 2, unjudged 1
    # p_e = (3*3 + 3*2 + 0*1) / 36 = 15/36; kappa = (24/36 - 15/36) / (21/36) = 9/21
    agree = ER.agreement(filled.drop(columns="code"), auto)
    assert agree.loc["all", "kappa"] == pytest.approx(9 / 21)
    table = ER.confusion(filled.drop(columns="code"), auto)
    assert list(table.index) == list(ER.ERROR_CODES) and list(table.columns) == list(ER.ERROR_CODES)
    assert table.loc[ER.NOISY, ER.NOISY] == 2 and table.loc[ER.NLI_ERROR, ER.NOISY] == 1
    assert table.loc[ER.NOISY, ER.UNJUDGED] == 1 and table.to_numpy().sum() == 6


def test_the_coding_guide_quotes_every_code_definition():
    from lib.paths import ROOT

    guide = " ".join((ROOT / "annotations" / "README.md").read_text().split())
    for c, text in ER.DEFINITIONS.items():
        assert f"`{c}`: {text}" in guide, c
    assert set(ER.DEFINITIONS) == set(ER.ERROR_CODES)


def test_source_sentence_on_both_sides():
    rows = [(c, False, "NLI") for c in range(10)] + [(c, True, "retrieval") for c in range(10, 20)]
    base = ER.baseline(_coded(rows), n_resamples=200)
    assert ER.source_sentence(base) == (
        "Wrong verdicts read evidence coded NLI (+100.0 percentage points) more often than right verdicts do (95% interval over "
        "claims): that is where the rules locate the errors."
    )
    same = ER.baseline(_coded([(c, c % 2 == 0, "retrieval") for c in range(20)]), n_resamples=200)
    assert ER.source_sentence(same).startswith("No family of codes is more common behind wrong verdicts")


def test_share_intervals_resample_claims_within_each_group():
    table = pd.DataFrame(
        {
            "method": ["a", "a", "a", "b", "b", "b"],
            "claim_id": [1, 2, 3, 1, 2, 3],
            "code": [ER.NOISY, ER.NOISY, ER.CORRECT, ER.NLI_ERROR, ER.NOISY, ER.CORRECT],
        }
    )
    table["family"] = table["code"].map(ER.FAMILY)
    s = ER.share_intervals(table, "method", n_resamples=300)
    a, b = s.loc[("a", "retrieval")], s.loc[("b", "retrieval")]
    assert (a["share"], a["claims"]) == (1.0, 2) and np.isnan(a["low"]) and np.isnan(a["high"])  # 2 < MIN_CLUSTERS
    assert (b["share"], b["claims"]) == (0.5, 2) and np.isnan(b["low"]) and np.isnan(b["high"])
    five = pd.DataFrame(
        {
            "method": ["a"] * 5 + ["b"] * 6,
            "claim_id": [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6],
            "code": [ER.NOISY] * 5 + [ER.NLI_ERROR, ER.NOISY] * 3,
        }
    )
    five["family"] = five["code"].map(ER.FAMILY)
    f = ER.share_intervals(five, "method", n_resamples=300)
    a, b = f.loc[("a", "retrieval")], f.loc[("b", "retrieval")]
    assert (a["share"], a["low"], a["high"], a["claims"]) == (1.0, 1.0, 1.0, 5)  # every resample: all retrieval
    assert (b["share"], b["claims"]) == (0.5, 6) and 0 <= b["low"] < 0.5 < b["high"] <= 1
    assert s.loc[("b", "NLI"), "share"] == 0.5 and s.loc[("a", "coverage"), "share"] == 0.0
    assert list(s.xs("a").index) == list(ER.FAMILIES)
    pooled = ER.share_intervals(table.assign(all="all"), "all", "code", n_resamples=300)
    assert pooled.loc[("all", ER.NOISY), "share"] == 0.75 and pooled.loc[("all", ER.NOISY), "claims"] == 2
    with pytest.raises(ValueError, match="no wrong verdicts"):
        ER.share_intervals(table[table["code"] == ER.CORRECT], "method")


def test_extremes_sentence_on_both_sides_of_overlap():
    frame = lambda lo_b: pd.DataFrame(  # noqa: E731
        {"share": [0.2, 0.9], "low": [0.1, lo_b], "high": [0.3, 0.95], "claims": [12, 30]}, index=["x", "y"]
    )
    disjoint = ER.extremes_sentence(frame(0.8), "retrieval share", str.upper)
    assert disjoint == (
        "The retrieval share ranges from 20% [10%, 30%] (X, 12 claims) to 90% [80%, 95%] (Y, 30 claims): the two "
        "intervals are disjoint (the extremes of 2 groups, picked after seeing them, no correction), so these two "
        "differ in it."
    )
    assert ER.extremes_sentence(frame(0.25), "retrieval share").endswith("no difference between the groups is shown.")


@pytest.mark.parametrize("name", ["Code:b", "CODE:b", "code_b", "code b", "code-b", "codes:b", "b code", "B Code"])
def test_a_code_column_renamed_is_named_not_read_as_a_comment(tmp_path, name):
    """`Code:oracle`, `code_oracle` or `oracle code` was read as a comment: that method's codes left the agreement."""
    path = tmp_path / "filled.csv"
    frame = {"sheet_id": [1], "claim_id": [0], "code:a": [ER.NOISY], "prediction:b": ["x"], name: [ER.NLI_ERROR]}
    pd.DataFrame(frame).to_csv(path, index=False)
    with pytest.raises(SH.SheetError, match=rf"filled.csv: column '{name}' looks like the code column of b; name it"):
        ER.read_filled_sheet(path)


def test_other_columns_of_a_filled_sheet_are_kept_as_comments(tmp_path):
    path = tmp_path / "filled.csv"
    frame = {
        "sheet_id": [1],
        "claim_id": [0],
        "code:a": [ER.NOISY],
        "coder": ["ann"],
        "comment": ["x"],
        "codename": [""],
        "Code notes": ["a notes column names no method"],
    }
    pd.DataFrame(frame).to_csv(path, index=False)
    assert ER.read_filled_sheet(path)["method"].tolist() == ["a"]


def test_extremes_sentence_when_every_group_or_an_end_is_tied():
    same = pd.DataFrame(
        {"share": [0.2] * 3, "low": [0.1] * 3, "high": [0.3] * 3, "claims": [10] * 3}, index=list("ABC")
    )
    assert (
        ER.extremes_sentence(same, "share") == "The share is 20% in every one of the 3 groups: no difference to show."
    )
    ends = pd.DataFrame(
        {"share": [0.1, 0.1, 0.9], "low": [0.05, 0.0, 0.85], "high": [0.15, 0.9, 0.95], "claims": [10, 2, 30]},
        index=list("ABC"),
    )
    s = ER.extremes_sentence(ends, "share")
    # both groups at the low end named, and the wider interval of the two (B's) decides: it overlaps C's
    assert s.startswith("The share ranges from 10% (A, B, tied) to 90% [85%, 95%] (C, 30 claims)")
    assert s.endswith("no difference between the groups is shown.")


def test_a_zero_share_of_few_claims_is_no_bound():
    """0 of 3 claims at a true rate of 30% happens a third of the time: its [0%, 0%] interval was read as disjoint."""
    few = pd.DataFrame(
        {"share": [0.0, 0.3], "low": [0.0, 0.24], "high": [0.0, 0.36], "claims": [3, 200]}, index=["A", "B"]
    )
    assert ER.extremes_sentence(few, "retrieval share").endswith("no difference between the groups is shown.")
    many = few.assign(claims=[233, 200])  # 3 / 233 = 1.3% < 24%
    assert "the two intervals are disjoint" in ER.extremes_sentence(many, "retrieval share")


def test_the_largest_family_and_small_differences_as_printed():
    s = ER.main_source_sentence({"retrieval": 0.502, "NLI": 0.498}, [{"retrieval": 0.5, "NLI": 0.5}], "rows")
    assert s.startswith("No single family of codes is the largest at the default thresholds")
    # the sweep's rows read as printed too, and no row is no test (the thirty-second pass: "in all 0 settings")
    shares = {"retrieval": 0.6, "NLI": 0.4}
    assert ER.main_source_sentence(shares, [shares, {"retrieval": 0.504, "NLI": 0.496}], "rows").endswith(
        "it is the largest in 1 of the 2 rows."
    )
    assert ER.main_source_sentence(shares, [], "rows") == (
        "The rules code retrieval as the largest family (60%); with no rows to vary the thresholds, its stability "
        "is not tested."
    )
    # printed with a decimal (notebook 08 prints its family shares so), read with it: 50.2% leads 49.8%
    s = ER.main_source_sentence({"retrieval": 0.502, "NLI": 0.498}, [{"retrieval": 0.504, "NLI": 0.496}], "rows", ".1%")
    assert s == "The rules code retrieval as the largest family (50.2%), and it stays the largest in all 1 rows."
    base = pd.DataFrame({"call": ["positive"], "difference": [0.004]}, index=["retrieval"])
    assert "coded retrieval (+0.4 percentage points) more often" in ER.source_sentence(base)
    assert "coded retrieval (+6.0 percentage points) more often" in ER.source_sentence(base.assign(difference=0.06))


def test_too_few_claims_give_no_interval_and_a_share_of_one_its_rule_of_three():
    """The twenty-sixth pass: one claim each side gave "+100.0% [+100.0%, +100.0%]: more common behind wrong
    verdicts"; a 100% share of five claims had a zero-width interval read as disjoint from 90% [84%, 96%]."""
    two = ER.baseline(_coded([(1, False, "retrieval"), (1, True, "NLI")]), n_resamples=200)
    assert two.loc["retrieval", "call"] == ER.NO_INTERVAL and np.isnan(two.loc["retrieval", "low"])
    assert ER.baseline_sentence(two.loc["retrieval"], "a retrieval code") == (
        "a retrieval code fits 100% of the wrong verdicts and 0% of the right ones (+100.0 percentage points; no interval: fewer "
        "than 5 claims): too few claims to say whether it locates the errors."
    )
    assert ER.source_sentence(two) == (
        "Fewer than 5 claims: too few for an interval, so nothing can be said of where the errors come from."
    )
    five = ER.baseline(_coded([(c, c < 3, "retrieval" if c >= 3 else "NLI") for c in range(5)]), n_resamples=200)
    assert ER.NO_INTERVAL not in set(five["call"])
    shares = pd.DataFrame(
        {"share": [0.9, 1.0], "low": [0.84, 1.0], "high": [0.96, 1.0], "claims": [100, 5]}, index=["B", "A"]
    )
    assert ER.extremes_sentence(shares, "retrieval share").endswith(
        "to 100% [40%, 100%] (A, 5 claims, an end by the rule of three): the intervals overlap, so no difference "
        "between the groups is shown."
    )
    shares.loc["A", "claims"] = 60  # 1 - 3/60 = 0.95, below 0.96: still overlapping
    assert "overlap" in ER.extremes_sentence(shares, "retrieval share")
    shares.loc["A", "claims"] = 100  # 0.97 > 0.96: disjoint
    assert "the two intervals are disjoint" in ER.extremes_sentence(shares, "retrieval share")
    shares.loc["A", ["low", "high", "claims"]] = [np.nan, np.nan, 3]
    shares.loc["A", "share"] = 0.99
    assert ER.extremes_sentence(shares, "retrieval share") == (
        "The retrieval share ranges from 90% [84%, 96%] (B, 100 claims) to 99% (no interval; A, 3 claims): an end "
        "rests on fewer than 5 claims, too few for an interval, so no difference between the groups is shown."
    )


def test_a_group_without_an_interval_is_never_called_apart_by_the_rule_of_three():
    """The thirtieth pass: a 4-claim group with share 0 got 3 / 4 as its upper end, and "(no interval; A, 4
    claims)" stood beside "the two intervals are disjoint"."""
    ret = next(c for c in ER.ERROR_CODES if ER.FAMILY[c] == "retrieval")
    rows = [{"method": "A", "claim_id": f"a{i}", "code": ER.NLI_ERROR} for i in range(4)]
    rows += [{"method": "B", "claim_id": f"c{i}", "code": ret} for i in range(100)]
    t = pd.DataFrame(rows).assign(family=lambda d: d["code"].map(ER.FAMILY))
    ci = ER.share_intervals(t, "method", "family", 200, seed=0)
    text = ER.extremes_sentence(ci.xs("retrieval", level="family"), "retrieval share")
    assert "(no interval; A, 4 claims)" in text
    assert text.endswith(
        f"an end rests on fewer than {ER.MIN_CLUSTERS} claims, too few for an interval, so no difference between the groups is shown."
    )


def test_a_small_share_difference_shows_its_side_of_zero():
    """The thirtieth pass: "+0.0%" beside "more common behind wrong verdicts"."""
    row = pd.Series({"wrong verdicts": 0.3003, "right verdicts": 0.3, "difference": 0.0003, "low": 0.0001,
                     "high": 0.0006, "call": "positive"})  # fmt: skip
    assert "(+0.03 percentage points, 95% interval [+0.01, +0.1]" in ER.baseline_sentence(row, "retrieval")
    base = pd.DataFrame([{"difference": 4e-5, "call": "positive"}], index=["retrieval"])
    assert "coded retrieval (+0.004 percentage points) more often" in ER.source_sentence(base)
    assert "(+6.0 percentage points)" in ER.source_sentence(base.assign(difference=0.06))
    # the fifty-first pass (T 6): one precision for the one difference, as the row's sentence prints it
    assert "(+1.9 percentage points)" in ER.source_sentence(base.assign(difference=0.59451 - 0.57549))


def test_an_undefined_share_leaves_the_largest_family_undefined_in_any_order():
    """The thirty-sixth pass: `max` over a NaN share named a family or none by the order of the keys."""
    for shares in ({"a": 0.6, "b": float("nan")}, {"b": float("nan"), "a": 0.6}):
        assert ER.largest_family(shares) is None
        assert ER.main_source_sentence(shares, [{"a": 0.6, "b": 0.4}], "rows") == (
            "The largest family of codes is undefined at the default thresholds (no share for b)."
        )


def test_undefined_sweep_rows_and_shares_are_left_out_and_named():
    """The thirty-seventh pass: a NaN sweep row counted as a setting the family lost; a NaN share's group counted
    in "every one of the 3 groups", and every share NaN an IndexError."""
    nan = float("nan")
    s = ER.main_source_sentence({"a": 0.6, "b": 0.4}, [{"a": 0.6, "b": 0.4}, {"a": nan, "b": 0.3}], "rows")
    assert s.endswith("it stays the largest in all 1 rows (1 more without every share left out).")
    shares = pd.DataFrame({"share": [0.3, 0.3, nan], "low": [0.2, 0.2, nan], "high": [0.4, 0.4, nan], "claims": [40, 40, 0]},
                          index=list("abc"))  # fmt: skip
    assert ER.extremes_sentence(shares, "share of X") == (
        "The share of X is 30% in every one of the 2 groups (c without a share): no difference to show."
    )
    none = shares.assign(share=nan, low=nan, high=nan)
    assert (
        ER.extremes_sentence(none, "share of X")
        == "The share of X is undefined in every group (a, b, c): no share to compare."
    )


def test_extremes_print_the_rule_of_three_end_they_test():
    """The forty-third pass: shares of 0 and 1 over 5 claims printed [0%, 0%] and [100%, 100%] beside "the
    intervals overlap": the test reads 3 / claims (60%) in place of the zero-width end."""
    rows = [{"method": "A", "claim_id": f"a{i}", "code": ER.NOISY, "family": "retrieval"} for i in range(5)] + [
        {"method": "B", "claim_id": f"b{i}", "code": ER.NLI_ERROR, "family": "NLI"} for i in range(5)
    ]
    shares = ER.share_intervals(pd.DataFrame(rows), "method").xs("retrieval", level="family")
    assert ER.extremes_sentence(shares, "retrieval share") == (
        "The retrieval share ranges from 0% [0%, 60%] (B, 5 claims, an end by the rule of three) to 100% [40%, 100%] "
        "(A, 5 claims, an end by the rule of three): the intervals overlap, so no difference between the groups is "
        "shown."
    )


@pytest.mark.parametrize(
    "wrong, right, shown",
    [
        (0.304, 0.296, ("30.4%", "29.6%", "+0.8 percentage points")),  # the forty-third pass: "30% and 30% (+0.8%)"
        (0.305, 0.294, ("30.5%", "29.4%", "+1.1 percentage points")),  # "30% and 29% (+1.1%)"
        (
            59 / 200,
            57 / 200,
            ("29.5%", "28.5%", "+1.0 percentage points"),
        ),  # the forty-fourth: "30% and 28% (+2.0%)" beside [+0.5%, +1.5%]
        (0.5912, 0.5812, ("59%", "58%", "+1.0 percentage points")),  # whole percents where they read as the difference
        (0.59363, 0.57416, ("59.36%", "57.42%", "+1.9 percentage points")),
        (0.3004, 0.3001, ("30.04%", "30.01%", "+0.03 percentage points")),
        (0.3, 0.3, ("30%", "30%", "+0.0 percentage points")),
    ],
)
def test_baseline_shares_print_with_the_difference_they_make(wrong, right, shown):
    assert ER.shares_apart(wrong, right) == shown
    row = pd.Series(
        {"wrong verdicts": wrong, "right verdicts": right, "difference": wrong - right, "low": 0.002, "high": 0.015,
         "call": "positive"}
    )  # fmt: skip
    assert ER.baseline_sentence(row, "X").startswith(f"X fits {shown[0]} of the wrong verdicts and {shown[1]} of the "
                                                      f"right ones ({shown[2]}, 95% interval")  # fmt: skip


def test_the_largest_family_is_a_tie_only_within_noise():
    """The forty-third pass: `np.isclose`'s 1e-5 tied 47.5002% and 47.4998%, which print 48% and 47%."""
    assert ER.largest_family({"retrieval": 0.475002, "NLI": 0.474998, "coverage": 0.05}) == "retrieval"
    assert ER.largest_family({"retrieval": 0.1 + 0.2, "NLI": 0.3, "coverage": 0.4}) == "coverage"
    assert ER.largest_family({"retrieval": 0.1 + 0.2, "NLI": 0.3}) is None  # equal but for noise
    assert ER.main_source_sentence({"retrieval": 0.475002, "NLI": 0.474998, "coverage": 0.05}, []).startswith(
        "The rules code retrieval as the largest family (48%)"
    )


def test_the_baseline_and_share_intervals_need_enough_resamples():
    """The forty-seventh pass, third round: 1 resample gave a zero-width "95% interval" excluding its own
    estimate, and a call; 0 an IndexError."""
    table = pd.DataFrame(
        [{"claim_id": c, "correct": c % 2 == 0, "rule_family": "retrieval", "code": "x", "family": "retrieval"}
         for c in range(10)]
    )  # fmt: skip
    for n in (0, 1):
        with pytest.raises(ValueError, match=f"n_resamples={n}: a 95% percentile interval needs at least"):
            ER.baseline(table, n_resamples=n)
        with pytest.raises(ValueError, match=f"n_resamples={n}"):
            ER.share_intervals(table, "claim_id", n_resamples=n)


def test_shares_closer_than_the_last_fixed_decimal_print_apart():
    """The forty-seventh pass, third round: 0.5 and 0.5 - 1e-11 printed "50.00000000%" twice beside a difference."""
    a, b, diff = ER.shares_apart(0.5, 0.5 - 1e-11)
    assert a != b and diff == "+0.000000001 percentage points"


def test_the_most_frequent_code_prints_apart_from_the_runner_up():
    """The forty-seventh pass (D 7): "*noisy retrieval* (33%)" was named most frequent beside unjudged evidence,
    also printed 33% (0.3328 and 0.3290)."""
    shares = {"unjudged evidence": 0.3290, "noisy retrieval": 0.3328, "NLI error": 0.02}
    assert ER.top_code_sentence(shares) == (
        "The most frequent code is *noisy retrieval* (33.3%), ahead of *unjudged evidence* (32.9%)."
    )
    assert ER.top_code_sentence({"a": 0.6, "b": 0.4}) == "The most frequent code is *a* (60%), ahead of *b* (40%)."
    tie = {"a": 0.1 + 0.2, "b": 0.3, "c": 0.4}
    assert ER.top_code_sentence(tie) == "The most frequent code is *c* (40%), ahead of *a* (30%)."
    assert ER.top_code_sentence({"a": 0.1 + 0.2, "b": 0.3}) == "The most frequent codes are *a* and *b* (30% each)."
    assert ER.top_code_sentence({"a": 1.0}) == "Every wrong verdict has the code *a* (100%)."
    assert ER.top_code_sentence({"a": 0.999, "b": 0.001}) == (
        "The most frequent code is *a* (99.9%), ahead of *b* (0.1%)."
    )
    assert (
        ER.top_code_sentence({"a": float("nan"), "b": 0.5}) == "The most frequent code is undefined (no share for a)."
    )
    assert ER.top_code_sentence({}) == "No wrong verdict was coded."
    # the forty-eighth pass: with no wrong verdict every share is 0, and seven codes were "the most frequent"
    assert ER.top_code_sentence({c: 0.0 for c in ER.ERROR_CODES}) == "No wrong verdict was coded."
    assert ER.main_source_sentence({f: 0.0 for f in ER.FAMILIES}, []) == (
        "No wrong verdict was coded, so no family of codes is the largest."
    )


def test_leaders_are_the_names_tied_for_the_largest_share_but_for_noise():
    """One home for "which codes (families) lead": `largest_family` and `top_code_sentence` each had their own."""
    assert ER.leaders({"a": 0.2, "b": 0.4750, "c": 0.4749}) == ["b"]  # np.isclose tied these; noise does not
    assert ER.leaders({"a": 0.3, "b": 0.3 + 1e-15, "c": 0.1}) == ["b", "a"]
    assert ER.leaders({"a": 0.1, "b": 0.5}) == ["b"] and ER.leaders({}) == []


def test_the_baseline_table_shows_differences_as_its_printed_shares_subtract():
    """The fiftieth pass (R 2): 0.594 and 0.574 beside a difference of 0.019."""
    base = pd.DataFrame(
        {"wrong verdicts": [0.5936, 0.3], "right verdicts": [0.5741, 0.2], "difference": [0.5936 - 0.5741, 0.5]},
        index=["retrieval", "other"],
    )
    shown = ER.baseline_shown(base)
    assert shown["difference"].tolist() == pytest.approx([0.020, 0.5])  # the second is no difference of the two
    assert base.loc["retrieval", "difference"] == pytest.approx(0.0195)  # the table itself keeps the exact one


def test_the_baseline_table_prints_with_the_decimals_that_keep_each_difference_inside_its_interval():
    """The fifty-first pass (T 2): 0.595 - 0.575 = +0.020 beside an interval ending at +0.019 (the exact 0.0190
    lies inside it), and interval ends of "+0.000" beside "positive"."""
    cols = ["wrong verdicts", "right verdicts", "difference", "low", "high", "call"]
    rows = [[0.59451, 0.57549, 0.59451 - 0.57549, 0.004, 0.0193, "positive"],
            [0.5004, 0.4996, 0.0008, 0.0002, 0.0015, "positive"]]  # fmt: skip
    base = pd.DataFrame(rows, columns=cols, index=["a", "b"])
    assert ER.baseline_decimals(base) == 4  # at 3: +0.020 outside [+0.004, +0.019]
    assert ER.baseline_decimals(base.iloc[1:]) == 3  # its levels print alike: the exact +0.0008, inside
    html = ER.baseline_table(base, "t").to_html()
    for cell in (">0.5945<", ">0.5755<", ">+0.0190<", ">+0.0193<", ">+0.0008<", ">+0.0002<"):
        assert cell in html, cell
    three = ER.baseline_table(base.iloc[1:], "u").to_html()
    assert ">0.500<" in three and ">+0.0008<" in three and ">+0.0002<" in three and "+0.000<" not in three
    undefined = base.assign(low=float("nan"), high=float("nan"))  # too few claims: no interval to hold it
    assert ER.baseline_decimals(undefined) == 3


def test_the_baseline_table_reads_its_ends_and_shares_as_it_prints_them():
    """The fifty-first pass, second round (V 1, V 6): "+0.001" beside ends printed "+0.0002" and "+0.0009" (the
    check read the end at three decimals, the table printed it with more), and shares of 0.0004 and 0.9996 printed
    "0.000" and "1.000" beside a sentence's 0.04% and 99.96%."""
    small = pd.DataFrame({"wrong verdicts": [0.3008, 0.5], "right verdicts": [0.3002, 0.4], "difference": [0.0006, 0.1],
                          "low": [0.0002, 0.05], "high": [0.0009, 0.15], "call": ["positive"] * 2}, index=["NLI", "r"])  # fmt: skip
    assert ER.baseline_decimals(small) == 4
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", ER.baseline_table(small, "x").to_html())
    assert cells[:5] == ["0.3008", "0.3002", "+0.0006", "+0.0002", "+0.0009"]
    ends = pd.DataFrame({"wrong verdicts": [1 / 2500, 0.9996], "right verdicts": [0.0, 0.9], "difference": [1 / 2500, 0.0996],
                         "low": [0.0, 0.05], "high": [0.0012, 0.15], "call": ["x", "positive"]}, index=["NLI", "r"])  # fmt: skip
    assert ER.baseline_decimals(ends) == 4  # 0.0004 and 0.9996 off 0 and 1; 0.0 is 0
    assert ER.baseline_decimals(ends.assign(**{"wrong verdicts": [0.25, 0.5]}, difference=[0.25, -0.4])) == 3
