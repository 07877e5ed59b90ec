"""Temperature scaling and reliability: exact values where the answer is known."""

import warnings

import numpy as np
import pytest

from lib.evaluation import calibration as CAL


def test_softmax_with_temperature_by_hand():
    p = CAL.softmax(np.array([[0.0, np.log(3.0)]]))
    np.testing.assert_allclose(p, [[0.25, 0.75]])
    np.testing.assert_allclose(CAL.softmax(np.array([[0.0, 2 * np.log(3.0)]]), 2.0), [[0.25, 0.75]])
    with pytest.raises(ValueError, match="temperature"):
        CAL.softmax(np.zeros((1, 2)), 0.0)


def test_nll_by_hand():
    assert CAL.nll(np.array([[0.0, np.log(3.0)]]), [1]) == pytest.approx(-np.log(0.75))
    assert CAL.nll(np.array([[0.0, 0.0, 0.0, 0.0]]), [2]) == pytest.approx(np.log(4))


def _sampled(n: int, scale: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Logits whose softmax is the true class distribution, multiplied by `scale` (gold drawn from the truth)."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 2, size=(n, 4))
    p = CAL.softmax(logits)
    gold = np.array([rng.choice(4, p=row) for row in p])
    return logits * scale, gold


@pytest.mark.parametrize("scale", [0.25, 1.0, 3.0])
def test_fit_temperature_recovers_the_scale(scale):
    logits, gold = _sampled(20000, scale)
    assert CAL.fit_temperature(logits, gold) == pytest.approx(scale, rel=0.05)


def test_temperature_scaling_lowers_nll_and_keeps_the_argmax():
    logits, gold = _sampled(5000, 0.2)  # timid: the verifier of the issue
    t = CAL.fit_temperature(logits, gold)
    assert t < 1
    assert CAL.nll(logits, gold, t) < CAL.nll(logits, gold)
    np.testing.assert_array_equal(CAL.softmax(logits, t).argmax(1), logits.argmax(1))
    before, after = CAL.softmax(logits), CAL.softmax(logits, t)
    assert CAL.expected_calibration_error(after, gold) < CAL.expected_calibration_error(before, gold)


def test_fit_temperature_refuses_misaligned_input():
    with pytest.raises(ValueError, match="logits"):
        CAL.fit_temperature(np.zeros((3, 2)), [0, 1])


def test_reliability_and_ece_by_hand():
    probs = np.array([[0.95, 0.05], [0.95, 0.05], [0.6, 0.4], [0.3, 0.7]])
    gold = [0, 1, 0, 1]
    table = CAL.reliability(probs, gold, bins=10)
    assert table["bin"].tolist() == [6, 7, 9]
    assert table["n"].tolist() == [1, 1, 2]
    assert table["accuracy"].tolist() == [1.0, 1.0, 0.5]
    np.testing.assert_allclose(table["confidence"], [0.6, 0.7, 0.95])
    # (1 * 0.4 + 1 * 0.3 + 2 * 0.45) / 4
    assert CAL.expected_calibration_error(probs, gold, bins=10) == pytest.approx(0.4)
    assert CAL.reliability(np.array([[1.0, 0.0]]), [0], bins=10)["bin"].tolist() == [9]  # p = 1 in the last bin


def test_uncalibrated_recovers_the_original_probabilities():
    logits, _ = _sampled(50, 1.0)
    np.testing.assert_allclose(CAL.uncalibrated(CAL.softmax(logits, 0.3), 0.3), CAL.softmax(logits), atol=1e-9)


# --- pinned by mutation testing (`make mutation`) -------------------------------------------------------


def test_softmax_and_nll_work_row_by_row_on_rows_of_any_scale():
    logits = np.array([[1000.0, 1001.0], [0.0, 1.0]])  # one huge row must not flush the other to 0/0
    p = 1 / (1 + np.e)
    assert np.allclose(CAL.softmax(logits), [[p, 1 - p], [p, 1 - p]])
    assert CAL.nll(logits, [1, 0]) == pytest.approx((np.log(1 + np.e) - 1 + np.log(1 + np.e)) / 2)
    assert CAL.nll(logits, np.array([1.0, 0.0])) == CAL.nll(logits, [1, 0])  # labels read as floats from a file


@pytest.mark.parametrize("gold", [[0, 5], [0, -1], [0, 0.5], [0, float("nan")]])
def test_a_gold_label_that_is_no_class_is_an_error(gold):
    """Label 5 of two classes gave an ECE of 0.9, and -1 was read as the last class."""
    probs = np.array([[0.9, 0.1], [0.2, 0.8]])
    with pytest.raises(ValueError, match=r"gold label .*: expected a class index from 0 to 1"):
        CAL.expected_calibration_error(probs, gold)
    with pytest.raises(ValueError, match=r"expected a class index"):
        CAL.fit_temperature(np.log(probs), gold)


def test_probabilities_holding_nan_are_an_error():
    with pytest.raises(ValueError, match=r"1 row\(s\) of probabilities hold NaN"):
        CAL.expected_calibration_error(np.array([[0.9, 0.1], [np.nan, np.nan]]), [0, 1])


def test_reliability_table_columns_bounds_and_default_bins():
    probs = np.array([[0.95, 0.05], [0.55, 0.45], [0.5, 0.5]])
    table = CAL.reliability(probs, [0, 1, 0])
    assert table.columns.tolist() == ["bin", "low", "high", "n", "confidence", "accuracy", "gap"]
    assert table[["bin", "low", "high", "n"]].values.tolist() == [[5, 0.5, 0.6, 2], [9, 0.9, 1.0, 1]]
    assert table["accuracy"].tolist() == [0.5, 1.0] and table["confidence"].tolist() == pytest.approx([0.525, 0.95])
    empty = CAL.reliability(np.zeros((0, 2)), [])
    assert empty.empty and empty.columns.tolist() == ["bin", "low", "high", "n", "confidence", "accuracy", "gap"]


def test_ece_uses_its_bins():
    probs = np.array([[0.62, 0.38], [0.68, 0.32], [0.9, 0.1]])
    gold = [0, 1, 0]
    # 10 bins: {0.62, 0.68} in bin 6 (acc 0.5, conf 0.65), 0.9 in bin 9 -> (2 * 0.15 + 1 * 0.1) / 3
    assert CAL.expected_calibration_error(probs, gold) == pytest.approx((2 * 0.15 + 0.1) / 3)
    # 11 bins would split 0.62 (bin 6) from 0.68 (bin 7); 2 bins put all three in bin 1
    assert CAL.expected_calibration_error(probs, gold, 2) == pytest.approx(abs(2 / 3 - 2.2 / 3))


def test_uncalibrated_handles_a_probability_of_zero_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = CAL.uncalibrated(np.array([[1.0, 0.0]]), 2.0)
    assert out.tolist() == [[1.0, 0.0]]


def test_no_example_leaves_the_calibration_error_undefined_and_bins_must_exist():
    """An empty input and `bins=0` ended in ZeroDivisionError."""
    assert np.isnan(CAL.expected_calibration_error(np.zeros((0, 3)), []))
    with pytest.raises(ValueError, match="bins must be a whole number of at least 1, got 0"):
        CAL.expected_calibration_error(np.full((2, 2), 0.5), [0, 1], bins=0)


def test_the_error_names_the_first_label_that_is_no_class_and_the_last_class():
    probs = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"^gold label 2: expected a class index from 0 to 1$"):
        CAL.reliability(probs, [1, 2, 0])  # 2 of two classes (0 and 1) is no class


def test_one_bin_holds_every_example():
    probs = np.array([[0.9, 0.1], [0.3, 0.7]])
    table = CAL.reliability(probs, [0, 0], bins=1)
    assert table[["bin", "low", "high", "n"]].values.tolist() == [[0, 0.0, 1.0, 2]]
    assert CAL.expected_calibration_error(probs, [0, 0], bins=1) == pytest.approx(abs(0.5 - 0.8))


def test_probabilities_that_are_no_table_or_gold_labels_of_another_length_are_an_error():
    """A flat row of probabilities gave an ECE of NaN, and one gold label was broadcast over every row (0.35,
    the twenty-eighth pass): both are named."""
    message = r"^reliability: need \(n, classes\) probabilities and n gold labels, got {} and {}$"
    with pytest.raises(ValueError, match=message.format(r"\(2,\)", 1)):
        CAL.reliability(np.array([0.4, 0.6]), [1])  # one row of probabilities given flat
    probs = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])
    with pytest.raises(ValueError, match=message.format(r"\(4, 2\)", 1)):
        CAL.expected_calibration_error(probs, [0])
    with pytest.raises(ValueError, match=message.format(r"\(4, 2\)", 5)):
        CAL.reliability(probs, [0, 0, 1, 0, 1])
    assert CAL.reliability(probs, [0, 0, 1, 0])["n"].sum() == 4


def test_the_nan_error_counts_rows_not_values():
    probs = np.array([[np.nan, np.nan], [0.5, np.nan], [0.9, 0.1]])
    with pytest.raises(ValueError, match=r"^reliability: 2 row\(s\) of probabilities hold NaN$"):
        CAL.reliability(probs, [0, 1, 0])


def test_values_that_are_no_probabilities_are_an_error():
    """The thirty-third pass: logits were binned at confidence 2.0, rows with a negative maximum dropped, and an
    ECE of 0.9 printed."""
    logits = np.array([[2.0, -1.0, 0.5], [-0.3, -0.8, -2.0], [-1.0, -0.2, -0.5], [0.2, 0.1, 0.0]])
    with pytest.raises(ValueError, match=r"^reliability: 4 row\(s\) are no probabilities \(row 0: each row needs"):
        CAL.expected_calibration_error(logits, [0, 1, 1, 0])
    with pytest.raises(ValueError, match=r"^reliability: 1 row\(s\) are no probabilities \(row 1:"):
        CAL.reliability(np.array([[0.5, 0.5], [np.inf, 0.0]]), [0, 1])
    assert CAL.expected_calibration_error(CAL.softmax(logits), [0, 1, 1, 0]) > 0  # after a softmax: read
    with pytest.raises(ValueError, match=r"^reliability: 1 row\(s\) are no probabilities \(row 0:"):
        CAL.reliability(np.array([[1.5, -0.5], [0.5, 0.5]]), [0, 1])  # summing to 1, but no probabilities


def test_probabilities_rounded_to_4_decimals_are_read():
    """The thirty-fourth pass: a row summing to 1.0001 (probabilities rounded to 4 decimals) was refused."""
    rounded = np.array([[0.3334, 0.3333, 0.3334], [0.5, 0.5, 0.0]])
    assert len(CAL.reliability(rounded, [0, 1])) == 2


def test_a_probability_on_a_bin_edge_falls_in_the_bin_it_opens():
    """The thirty-eighth pass: 0.57 * 100 is 56.99999999999999, so 0.57 went to the bin [0.56, 0.57)."""
    for top, bins, b in ((0.57, 100, 57), (0.29, 100, 29), (0.58, 50, 29), (0.3, 10, 3), (1.0, 10, 9), (0.5, 2, 1)):
        rest = (1 - top) / 3
        table = CAL.reliability(np.array([[top, rest, rest, rest]]), [0], bins=bins)
        assert table["bin"].tolist() == [b], (top, bins)
        assert table["low"].iloc[0] <= top and (top < table["high"].iloc[0] or top == 1.0)
    assert CAL.reliability(np.array([[0.5999999999999999, 0.4000000000000001]]), [0])["bin"].tolist() == [5]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_logits_that_are_not_finite_fit_no_temperature(bad):
    """A NaN or infinite logit made every NLL NaN, and the search returned T = 0.493 with no error."""
    logits = np.array([[2.0, 0.1, -1.0], [0.3, 1.2, 0.0], [bad, 0.0, 1.0], [1.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match=r"^1 row\(s\) of logits are not finite \(row 2\)"):
        CAL.fit_temperature(logits, [0, 1, 2, 0])


def test_one_class_fits_no_temperature():
    """Every temperature gives one class probability 1: the search returned its upper bound, 20."""
    with pytest.raises(ValueError, match="2 or more classes"):
        CAL.fit_temperature(np.ones((3, 1)), [0, 0, 0])


@pytest.mark.parametrize("bad", [0, 0.0, -2.0, np.nan, np.inf, "warm", None, True])
def test_a_temperature_that_is_none_is_named(bad):
    """0 was a ZeroDivisionError in `uncalibrated`, -2 was named as its reciprocal (-0.5), an infinite one
    gave every class the same probability."""
    with pytest.raises(ValueError, match=r"^the calibration temperature must be a (finite )?number above 0, got "):
        CAL.uncalibrated(np.array([[0.5, 0.5]]), bad)
    with pytest.raises(ValueError, match=r"^temperature must be a"):
        CAL.softmax(np.zeros((1, 2)), bad)


@pytest.mark.parametrize("bins", [2.5, True, "10"])
def test_bins_must_be_a_whole_number(bins):
    with pytest.raises(ValueError, match=r"^reliability: bins must be a whole number of at least 1, got "):
        CAL.reliability(np.array([[0.5, 0.5]]), [0], bins=bins)
    assert CAL.check_temperature(np.float32(2.0)) == 2.0


def test_nll_needs_one_gold_label_per_row_and_a_temperature_above_0():
    """The forty-seventh pass, third round: fewer gold labels gave a negative NLL; 0, -1 and inf gave numbers."""
    logits = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match=r"nll: 1 gold labels for logits of shape \(3, 2\)"):
        CAL.nll(logits, [0])
    for t in (0, -1, float("inf")):
        with pytest.raises(ValueError, match="temperature must be a finite number above 0"):
            CAL.nll(logits, [0, 1, 0], t)
