"""lib.data.labels: label vocabularies, reductions and the one verdict-text matcher."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lib.data import labels as LB


@pytest.mark.parametrize(
    "text, said",
    [
        ("verdict : refuted", "refuted"),
        ("Verdict: Not Enough Evidence.", "Not Enough Evidence."),
        ("I think so. VERDICT - supported", "supported"),
        ("who said it?", None),
        ("verdicts are hard", None),
    ],
)
def test_said_verdict(text, said):
    assert LB.said_verdict(text) == said


@pytest.mark.parametrize(
    "said, label",
    [
        ("refuted", "Refuted"),
        ("Refuted, because NASA said so", "Refuted"),
        ("conflicting evidence / cherrypicking", "Conflicting Evidence/Cherrypicking"),
        ("conflicting evidence", None),
        ("not enough evidence", "Not Enough Evidence"),
        ("not supported", None),
        ("", None),
    ],
)
def test_match_label_on_letters_only(said, label):
    assert LB.match_label(said) == label


def test_majority_label_breaks_ties_alphabetically():
    assert LB.majority_label([SimpleNamespace(label=x) for x in ["b", "a", "b", "a", "c"]]) == "a"
    assert LB.majority_label([SimpleNamespace(label=x) for x in ["b", "a", "b"]]) == "b"
