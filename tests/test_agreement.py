"""Cohen's kappa, by hand and against scikit-learn."""

import numpy as np
import pytest

from lib.evaluation import agreement as AG


def test_cohen_kappa_by_hand_and_against_scikit_learn():
    assert AG.cohen_kappa(["x", "x", "y", "y"], ["x", "y", "y", "y"]) == pytest.approx(0.5)
    assert AG.cohen_kappa(["x", "x"], ["x", "x"]) == 1.0
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(0)
    a, b = rng.choice(list("abcd"), 200), rng.choice(list("abcd"), 200)
    b[:120] = a[:120]
    assert AG.cohen_kappa(list(a), list(b)) == pytest.approx(cohen_kappa_score(a, b))
    with pytest.raises(ValueError):
        AG.cohen_kappa(["x"], ["x", "y"])
    assert AG.cohen_kappa([1, 0, 1, 1], [1, 0, 0, 1]) == pytest.approx(0.5)  # integer codes too
    assert np.isnan(AG.cohen_kappa([], []))


def test_cohen_kappa_with_a_code_only_one_rater_uses():
    # 4 items; rater b also uses "c". Table rows a, cols b: (x,x)=2, (y,y)=1, (y,c)=1
    a, b = ["x", "x", "y", "y"], ["x", "x", "y", "c"]
    observed, expected = 3 / 4, (2 / 4) * (2 / 4) + (2 / 4) * (1 / 4)
    assert AG.cohen_kappa(a, b) == pytest.approx((observed - expected) / (1 - expected))
    with pytest.raises(ValueError, match=r"^kappa needs the same items from both raters, got 2 and 1$"):
        AG.cohen_kappa(["x", "y"], ["x"])
    assert np.isnan(AG.cohen_kappa([], []))


def test_a_nan_code_is_an_error_not_a_kappa():
    """NaN codes gave kappa 1.0 or 0.0 depending on whether the NaN was one object."""
    nan = float("nan")
    with pytest.raises(
        ValueError, match=r"^kappa: a code is NaN \(a blank cell\?\); every item needs a code from both raters$"
    ):
        AG.cohen_kappa([nan] * 3, [nan] * 3)
    with pytest.raises(ValueError, match="kappa: a code is NaN"):
        AG.cohen_kappa(["a", "b", "a"], ["a", float("nan"), "a"])


def test_a_blank_or_mixed_code_is_named():
    """The forty-fifth pass: a None code was "'<' not supported between NoneType and str", and 1 and True one
    code."""
    for a, b, message in (
        (["a", None], ["a", "b"], "a code is None"),
        ([1, True], [True, 1], "mix true/false"),
        (["a", 1], ["a", "b"], r"codes of several kinds \(int, str\)"),
    ):
        with pytest.raises(ValueError, match=message):
            AG.cohen_kappa(a, b)


def test_a_pandas_na_code_is_named():
    """The forty-seventh pass, third round: pd.NA ended in "boolean value of NA is ambiguous"."""
    import pandas as pd

    with pytest.raises(ValueError, match="a code is None or NA"):
        AG.cohen_kappa(pd.array([1, None, 0], dtype="Int64"), [1, 0, 0])
