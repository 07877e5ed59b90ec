"""lib.data.labels: label vocabularies, reductions and the one verdict-text matcher."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
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
        # the forty-eighth pass: inside a question it is no verdict; at a sentence's start it is
        ("what was the court verdict: refuted or upheld?", None),
        ("was the verdict - guilty in the trial?", None),
        ("Final verdict: refuted", "refuted"),
        ("Was it said?\nVerdict: supported", "supported"),
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


# --- pinned by mutation testing (`make mutation`) -------------------------------------------------------


@pytest.mark.parametrize(
    "label, scheme, canonical",
    [
        ("supported", "averitec", "Supported"),
        ("CONFLICTING EVIDENCE / CHERRYPICKING", "averitec", "Conflicting Evidence/Cherrypicking"),
        ("conflicting", "averitec", "Conflicting Evidence/Cherrypicking"),
        ("Not enough info", "averitec", "Not Enough Evidence"),
        ("Half True/False", "quantemp", "Conflicting"),
        ("true", "quantemp", "True"),
    ],
)
def test_normalise_label(label, scheme, canonical):
    assert LB.normalise_label(label, scheme) == canonical


def test_normalise_label_defaults_to_averitec_and_names_what_it_expected():
    assert LB.normalise_label("refuted") == "Refuted"
    with pytest.raises(ValueError, match=r"^unknown averitec label 'True' \(expected one of \['Conflicting Evidence"):
        LB.normalise_label("True")
    with pytest.raises(
        ValueError, match=r"^unknown quantemp label 'Supported' \(expected one of \['Conflicting', 'False', 'True'\]\)$"
    ):
        LB.normalise_label("Supported", "quantemp")
    with pytest.raises(ValueError, match="^unknown averitec label 3 "):
        LB.normalise_label(3)


def test_map_label_in_every_label_set():
    nee, conf = "Not Enough Evidence", "Conflicting Evidence/Cherrypicking"
    assert [LB.map_label(x, "averitec4") for x in LB.AVERITEC_LABELS] == list(LB.AVERITEC_LABELS)
    assert [LB.map_label(x, "averitec3") for x in ("Supported", nee, conf)] == ["Supported", LB.OTHER, LB.OTHER]
    assert [LB.map_label(x, "averitec2") for x in ("Refuted", nee, conf)] == ["Refuted", None, None]
    assert LB.map_label("False", "quantemp3") == "False"
    with pytest.raises(
        ValueError,
        match=r"^label 'Not Enough Evidence' does not belong to label set 'quantemp3' \('True', 'False', 'Conflicting'\)$",
    ):
        LB.map_label(nee, "quantemp3")
    with pytest.raises(ValueError, match=r"^label 'True' does not belong to label set 'averitec3'"):
        LB.map_label("True", "averitec3")
    with pytest.raises(
        ValueError,
        match=r"^unknown label set 'averitec5' \(available: \['averitec2', 'averitec3', 'averitec4', 'quantemp3'\]\)$",
    ):
        LB.map_label("Supported", "averitec5")


def test_collapse_sums_merged_classes_and_renormalises_dropped_ones():
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.3, 0.1, 0.1], [0.0, 0.0, 0.0, 0.0]])  # S, R, NEE, C
    assert np.allclose(LB.collapse(probs, "averitec4", "averitec4"), probs)
    assert np.allclose(LB.collapse(probs, "averitec4", "averitec3"), [[0.1, 0.2, 0.7], [0.5, 0.3, 0.2], [0, 0, 0]])
    two = LB.collapse(probs, "averitec4", "averitec2")  # NEE and C dropped, S and R renormalised
    assert np.allclose(two, [[1 / 3, 2 / 3], [0.625, 0.375], [0.0, 0.0]])
    assert np.allclose(LB.collapse(np.array([[2.0, 2.0, 0.0, 0.0]]), "averitec4", "averitec3"), [[0.5, 0.5, 0.0]])
    three = np.array([[0.2, 0.2, 0.6], [0.1, 0.3, 0.6]])  # a 3-way classifier read in the 2-way set
    assert np.allclose(LB.collapse(three, "averitec3", "averitec2"), [[0.5, 0.5], [0.25, 0.75]])
    assert LB.map_label(LB.OTHER, "averitec2") is None and LB.map_label(LB.OTHER, "averitec3") == LB.OTHER


def test_match_label_prefers_the_longest_label_not_the_last_in_order():
    labels = ("Half-True", "Half True/False")  # same letters at the start; alphabetical order puts Half-True last
    assert LB.match_label("half true/false", labels) == "Half True/False"
    assert LB.match_label("half-true", labels) == "Half-True"


def test_said_verdict_needs_the_word_verdict():
    assert LB.said_verdict("the overdict: refuted") is None
    assert LB.said_verdict("(verdict:refuted") == "refuted"


def test_an_exact_label_is_one_of_the_vocabulary_as_written():
    """For files a scorer reads: normalising "refUTed!!" to Refuted scored it right (the thirtieth pass)."""
    assert LB.exact_label("Refuted") == "Refuted" and LB.exact_label("Conflicting", "quantemp") == "Conflicting"
    with pytest.raises(
        ValueError,
        match=r"^unknown averitec label 'refUTed!!' \(expected one of \['Supported', "
        r"'Refuted', 'Not Enough Evidence', 'Conflicting Evidence/Cherrypicking'\]\); write it as "
        r"'Refuted' \(labels are compared as exact strings\)$",
    ):
        LB.exact_label("refUTed!!")
    with pytest.raises(
        ValueError,
        match=r"^unknown quantemp label 'Mostly' \(expected one of \['True', 'False', "
        r"'Conflicting'\]\)$",
    ):  # no label it could be: no hint
        LB.exact_label("Mostly", "quantemp")
    with pytest.raises(ValueError, match="write it as 'Conflicting'"):
        LB.exact_label("half true/false", "quantemp")
    with pytest.raises(ValueError, match=r"unknown averitec label 5 "):
        LB.exact_label(5)
