"""QA predictions from retrieval answers, verdict sources, the duplication ablation, and scoring all runs."""

import pandas as pd
import pytest
from conftest import FIXTURE_DATA

from lib.averitec import evidence as E
from lib.averitec import scoring as SC
from lib.data import averitec
from lib.data import labels as LB


@pytest.fixture(scope="module")
def claims():
    return averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")


DOCS = pd.DataFrame(
    {
        "doc_id": ["d1", "d2"],
        "text": ["The moon is rock.", "Growth was 5%."],
        "url": ["https://nasa.gov/moon", "https://stats.example.org/growth"],
    }
)
ANSWERS = pd.DataFrame({"claim_id": [0, 0, 1], "query": ["Q1?", "Q2?", "G?"], "doc_id": ["d1", "d1", "d2"]})


def test_each_query_is_paired_with_its_best_document(claims):
    preds = E.qa_predictions(
        {0: ["Q1?", "Q2?", "no answer?"], 1: ["G?"]},
        ANSWERS,
        DOCS,
        claims,
        {0: "Refuted", 1: "Supported", 2: "Refuted"},
    )
    assert preds[0]["questions"] == [
        {
            "question": "Q1?",
            "answers": [
                {"answer": "The moon is rock.", "answer_type": "Extractive", "source_url": "https://nasa.gov/moon"}
            ],
        },
        {
            "question": "Q2?",
            "answers": [
                {"answer": "The moon is rock.", "answer_type": "Extractive", "source_url": "https://nasa.gov/moon"}
            ],
        },
    ]
    assert preds[1]["label"] == "Supported" and len(preds[1]["questions"]) == 1
    assert preds[2]["questions"] == []  # no plan, no pairs


def test_pairs_are_capped_and_duplication_is_an_explicit_ablation(claims):
    many = pd.DataFrame({"claim_id": [0] * 12, "query": [f"Q{i}?" for i in range(12)], "doc_id": ["d1"] * 12})
    labels = {c.claim_id: "Refuted" for c in claims}
    plan = {0: [f"Q{i}?" for i in range(12)], 1: []}
    assert len(E.qa_predictions(plan, many, DOCS, claims, labels)[0]["questions"]) == 10
    two = E.qa_predictions({0: ["Q1?", "Q2?"]}, ANSWERS, DOCS, claims, labels)
    dup = E.qa_predictions({0: ["Q1?", "Q2?"]}, ANSWERS, DOCS, claims, labels, duplicate=True)
    assert len(two[0]["questions"]) == 2 and [q["question"] for q in dup[0]["questions"]] == ["Q1?", "Q2?"] * 5
    with pytest.raises(ValueError, match="one retriever"):
        E.qa_predictions(plan, pd.concat([ANSWERS, ANSWERS]), DOCS, claims, labels)


def test_repeated_submits_each_pair_in_a_row_and_keeps_the_verdict():
    e = SC.Evidence(
        "Refuted", ("Q1?", "Q2?"), ("Q1? A1.", "Q2? A2."), True, ("Numerical Claim",), (("Q1?", "A1."), ("Q2?", "A2."))
    )
    r = E.repeated(e, 3)
    assert r.questions == ("Q1?",) * 3 + ("Q2?",) * 3 and r.strings == ("Q1? A1.",) * 3 + ("Q2? A2.",) * 3
    assert r.pairs == (("Q1?", "A1."),) * 3 + (("Q2?", "A2."),) * 3
    assert (r.label, r.has_questions, r.claim_types) == ("Refuted", True, ("Numerical Claim",))
    assert E.repeated(e, 1) == e
    with pytest.raises(ValueError, match="at least 1"):
        E.repeated(e, 0)


def test_repeat_systems_must_be_published_runs():
    from lib.averitec.section import AveritecSection
    from lib.params import section

    good = section("averitec")
    with pytest.raises(ValueError, match=r"repeat_systems names \['nope'\]"):
        AveritecSection.model_validate({**good, "repeat_systems": ["nope"]})


def test_verdict_sources(claims):
    train = averitec.load_averitec("train", FIXTURE_DATA / "averitec" / "train.json")
    assert LB.majority_label(claims) == min(
        set(c.label for c in claims), key=lambda lb: (-sum(c.label == lb for c in claims), lb)
    )
    assert set(E.verdicts("majority", claims, train).values()) == {LB.majority_label(train)}
    with pytest.raises(ValueError, match="unknown verdict source 'oracle'"):
        E.verdicts("oracle", claims, train)
    with pytest.raises(ValueError, match="needs the classifier's predictions"):
        E.verdicts("nli", claims, train)
    by_classifier = {c.claim_id: "Supported" for c in claims}
    assert E.verdicts("nli", claims, train, by_classifier) == by_classifier
    with pytest.raises(ValueError, match="no verdict for 1 claims"):
        E.verdicts("nli", claims, train, {c.claim_id: "Supported" for c in claims[1:]})


def test_with_verdicts_keeps_evidence_scores_and_rescores_labels():
    table = pd.DataFrame(
        {
            "claim_id": [0, 1, 2],
            "q_only": [0.2] * 3,
            "qa": [0.3, 0.1, 0.5],
            "label": ["Refuted", "Supported", "Refuted"],
            "pred_label": ["Refuted"] * 3,
            "correct": [True, False, True],
            "claim_types": [[], [], []],
        }
    )
    out = E.with_verdicts(table, {0: "Supported", 1: "Supported", 2: "Refuted"})
    assert out["correct"].tolist() == [False, True, True] and out["qa"].tolist() == [0.3, 0.1, 0.5]
    assert SC.summarise(out, [0.25])["averitec"]["0.25"] == pytest.approx(1 / 3)  # only claim 2: right and qa > 0.25
    assert table["pred_label"].tolist() == ["Refuted"] * 3  # the input is unchanged
    with pytest.raises(ValueError, match="no verdict for 1 claims"):
        E.with_verdicts(table, {0: "Supported", 1: "Supported"})


def test_reference_runs_score_as_expected(claims):
    refs = [SC.reference_evidence(c) for c in claims]
    runs = E.reference_runs(claims)
    gold = SC.per_claim(runs["reference_gold"], refs)
    assert (gold["correct"]).all() and (gold["qa"] > 0.9).all()
    trivial = SC.per_claim(runs["reference_always_refuted"], refs)
    assert list(trivial["pred_label"]) == ["Refuted"] * len(claims)
