"""The AVeriTeC score by group of claims: a hand-counted table, multi-type claims, the threshold edge."""

import pandas as pd
import pytest

from lib.averitec.breakdowns import averitec_by


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
