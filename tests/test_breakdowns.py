"""Scores by group of claims: hand-counted tables, multi-group claims, the threshold edge, the gold groups."""

import pandas as pd
import pytest

from lib.averitec.breakdowns import averitec_by, gold_groups, qa_by
from lib.cli import NamedError
from lib.data import averitec


def test_scores_by_type_and_verdict_counted_by_hand():
    scores = pd.DataFrame(
        {
            "run": ["a", "a", "a", "b"],
            "qa": [0.5, 0.25, 0.9, 0.3],
            "correct": [True, True, False, True],
            "claim_types": [["N", "QV"], ["N"], ["QV"], []],
            "label": ["Refuted", "Refuted", "Supported", "Refuted"],
        }
    )
    # a: N holds claims 0 (counts) and 1 (0.25 is not above 0.25); QV holds 0 (counts) and 2 (wrong verdict)
    assert averitec_by(scores, "claim_types") == {"a": {"N": 0.5, "QV": 0.5}}  # b's claim has no type
    assert averitec_by(scores, "label") == {"a": {"Refuted": 0.5, "Supported": 0.0}, "b": {"Refuted": 1.0}}
    assert averitec_by(scores, "label", level=0.2)["a"] == {"Refuted": 1.0, "Supported": 0.0}
    with pytest.raises(KeyError, match=r"lack the columns \['medium'\]"):
        averitec_by(scores, "medium")


def test_qa_by_averages_the_evidence_score_per_group():
    scores = pd.DataFrame({"run": ["a", "a", "a"], "qa": [0.5, 0.2, 0.9], "medium": [["Text", "PDF"], ["Text"], []]})
    assert qa_by(scores, "medium") == {"a": {"PDF": 0.5, "Text": 0.35}}  # the third claim has no medium
    with pytest.raises(KeyError, match=r"lack the columns \['gold_pairs'\]"):
        qa_by(scores, "gold_pairs")


def test_gold_groups_read_the_media_and_the_number_of_gold_pairs():
    def claim(cid, media):
        questions = tuple(
            averitec.Question(f"Q{i}?", tuple(averitec.Answer("a", "Extractive", "u", m) for m in ms))
            for i, ms in enumerate(media)
        )
        return averitec.Claim(cid, "dev", "c", "Refuted", None, (), (), "", None, None, None, questions)

    claims = [
        claim(0, [["Web text"], ["Web text", "PDF"]]),  # two pairs; Text once
        claim(1, [["Audio"], [""], ["Image/graphic"], ["Metadata"]]),  # four pairs -> 3+; the empty medium is no column
        claim(2, []),
    ]
    g = gold_groups(claims)
    assert g["claim_id"].tolist() == [0, 1, 2]
    assert g["medium"].tolist() == [["PDF", "Text"], ["Audio", "Image", "Metadata"], []]
    assert g["gold_pairs"].iloc[:2].tolist() == ["2", "3+"] and pd.isna(g["gold_pairs"].iloc[2])  # no gold pair
    # the forty-seventh pass, third round: another spelling of a medium dropped the answer unseen
    assert gold_groups([claim(3, [["web  TEXT"], [" pdf"], [None]])])["medium"].tolist() == [["PDF", "Text"]]
    with pytest.raises(NamedError, match=r"claim 4: a gold answer's source_medium 'Webpage' is none of the"):
        gold_groups([claim(4, [["Web text"], ["Webpage"]])])


def test_a_missing_verdict_is_not_counted_right():
    """The thirty-first pass: `astype(bool)` read a NaN `correct` as True."""
    s = pd.DataFrame({"run": ["r", "r"], "qa": [0.5, 0.5], "correct": [True, float("nan")], "label": ["S", "S"]})
    assert averitec_by(s, "label") == {"r": {"S": 0.5}}
