"""lib.site.checks: the exercise checks students run."""

from __future__ import annotations

import pytest

from lib.site import checks as CO

MISTAKES = {"divide by 10 instead of the number of relevant documents": 0.2}


def test_check_passes_within_tolerance_and_says_how_far_off_an_answer_is(capsys):
    CO.check("02.1", 0.5000001, 0.5, tol=1e-6)
    assert capsys.readouterr().out == "Exercise 02.1: correct.\n"
    with pytest.raises(
        AssertionError,
        match=r"Exercise 02.1: 0.51 is off by \+0.01 from the expected value \(tolerance 1e-06\); recheck",
    ):
        CO.check("02.1", 0.51, 0.5)
    with pytest.raises(AssertionError, match="no answer yet"):
        CO.check("02.1", None, 0.5)
    with pytest.raises(AssertionError, match="expected a number, got str"):
        CO.check("02.1", "half", 0.5)
    with pytest.raises(AssertionError, match="expected a number, got float nan"):
        CO.check("02.1", float("nan"), 0.5)
    CO.check("02.1", 3, 3, tol=0)  # exact counts
    with pytest.raises(AssertionError, match=r"4 is off by \+1"):
        CO.check("02.1", 4, 3, tol=0)


def test_an_expected_value_within_the_tolerance_of_0_is_checked_to_its_size():
    """Exercise 07.2's p-value of 2.25e-13 checked to 1e-9 passed a bare 0 (the twenty-sixth pass)."""
    p = 2.2519751041260646e-13
    assert CO.within(p, 1e-9) == pytest.approx(2.2519751041260646e-22) and CO.within(0.5, 1e-9) == 1e-9
    assert CO.within(0.0, 1e-9) == 1e-9 and CO.within(-1e-12, 1e-9) == pytest.approx(1e-21)
    assert CO.verdict(p * (1 + 1e-12), p, 1e-9) is None
    assert CO.verdict(0, p, 1e-9) == (
        "0 is off by -2.25e-13 from the expected value (tolerance 2.25198e-22: 1e-09 times the expected value, "
        "which is closer to 0 than 1e-09); recheck the steps in the task"
    )
    assert CO.verdict(1e-9, 1e-9, 1e-9) is None and CO.verdict(0, 1e-9, 1e-9) is not None  # at the edge, too
    assert CO.verdict(1e-9, 2e-9, 1e-9) is None  # just past it: the absolute tolerance
    # the mistakes are named and noted by the same scaled bound (the twenty-eighth pass: every answer near a tiny
    # p-value was "the one-sided p-value", and the teacher was told the check could not tell it apart)
    one_sided = {"use the one-sided p-value": 1e-7, "forget the correction": 0.0}
    assert CO.indistinct(2e-7, 1e-6, one_sided) == [] and CO.indistinct(0.5, 1.0, one_sided) == list(one_sided)
    assert CO.known_mistake(1e-7, 1e-6, one_sided, 2e-7) == "use the one-sided p-value"
    assert CO.known_mistake(0.0, 1e-6, one_sided, 2e-7) == "forget the correction"
    assert CO.known_mistake(5e-7, 1e-6, one_sided, 2e-7) is None  # was "the one-sided p-value"
    assert CO.known_mistake(5e-7, 1e-6, one_sided) == "use the one-sided p-value"  # no expected value: tol itself
    assert CO.known_mistake(3 * (1 + 2**-52), 0, {"count twice": 3}, 4) == "count twice"  # exact: a float's bits
    assert (
        CO.known_mistake(3.0000000001, 0, {"count twice": 3}, 4) is None
    )  # the forty-fifth pass: as `verdict` reads 0
    assert CO.known_mistake(3.1, 0, {"count twice": 3}, 4) is None


def test_a_hand_computation_to_three_decimals_passes_and_four_off_does_not():
    CO.check("03.1", 1.639, 1.6388888, CO.HAND)
    CO.check("03.1", 1.6385, 1.6388888, CO.HAND)
    with pytest.raises(AssertionError, match="off by"):
        CO.check("03.1", 1.64, 1.6388888 - 0.0004, CO.HAND)


def test_a_failed_check_names_the_mistake_whose_value_the_answer_is():
    with pytest.raises(AssertionError, match=r"0.2 is off by -0.3 .*: that is the value you get when you divide by 10"):
        CO.check("02.1", 0.2, 0.5, CO.HAND, MISTAKES)
    with pytest.raises(AssertionError, match="recheck the steps"):  # another wrong value: no step named
        CO.check("02.1", 0.3, 0.5, CO.HAND, MISTAKES)
    assert CO.verdict(0.5, 0.5, CO.HAND, MISTAKES) is None


def test_an_example_that_cannot_tell_a_mistake_from_the_answer_is_named_for_the_teacher(capsys):
    assert CO.indistinct(0.0, CO.HAND, {"answer 0": 0.0, "divide by 10": 0.2}) == ["answer 0"]
    assert CO.indistinct(0.5, CO.HAND, MISTAKES) == []
    CO.check("02.1", 0.0, 0.0, CO.HAND, {"answer 0": 0.0})
    out = capsys.readouterr()
    assert out.out == "Exercise 02.1: correct.\n"
    assert out.err == "Note for the teacher: exercise 02.1's example cannot tell 'answer 0' from the right answer\n"


def test_a_hand_example_closer_to_0_than_three_decimals_is_named_for_the_teacher(capsys):
    """The twenty-ninth pass: exercise 09.2's expected value can fall in (0, 5e-4] (41 of 5,500 pairs of the
    data), where three decimals, which the task promises, cannot pass the scaled bound; no one was told."""
    CO.check("09.2", 3e-4, 3e-4, CO.HAND, {"other": 0.5})
    out = capsys.readouterr()
    assert out.err == (
        "Note for the teacher: exercise 09.2's expected value 0.0003 is closer to 0 than its tolerance 0.0005, so "
        "the check passes answers within 1.5e-07 only: an answer worked out by hand to three decimals fails; choose "
        "another example or ask for more decimals\n"
    )
    with pytest.raises(AssertionError, match=r"tolerance 1.5e-07: 0.0005 times the expected value"):
        CO.check("09.2", 0.0, 3e-4, CO.HAND)
    capsys.readouterr()
    for expected, tol in ((0.0006, CO.HAND), (2e-13, 1e-9), (0.0, CO.HAND)):  # a bound of its own size; computed
        CO.check("09.2", expected, expected, tol)
        assert "closer to 0" not in capsys.readouterr().err


def test_an_answer_at_the_tolerance_passes_and_a_non_finite_example_is_the_authors_error():
    """The thirty-fourth pass: 0.124 against 0.1235 is 0.0005000000000000004 apart in floats, and failed "off by
    +0.0005 ... (tolerance 0.0005)"; an expected inf or NaN failed every answer as "recheck the steps"."""
    assert CO.verdict(0.124, 0.1235, CO.HAND) is None and CO.verdict(0.501, 0.5005, CO.HAND) is None
    assert CO.verdict(0.1246, 0.1235, CO.HAND).startswith("0.1246 is off by +0.0011")
    for bad in (float("inf"), float("nan")):
        with pytest.raises(
            ValueError, match=rf"^the expected value is {bad}: a check compares an answer with a finite"
        ):
            CO.verdict(0.3, bad, 5e-4)


def test_a_huge_answer_is_far_off_and_a_tolerance_that_is_no_bound_is_the_authors_error():
    """The thirty-fifth pass: 10**400 was an OverflowError; a NaN or negative tolerance failed the right answer."""
    from fractions import Fraction

    import numpy as np

    assert CO.verdict(10**400, 1.0, 1e-6).startswith("inf is off by +inf")
    assert CO.verdict(Fraction(-(10**400)), 1.0, 1e-6).startswith("-inf is off by -inf")
    for tol in (float("nan"), -0.1, True, float("inf")):
        with pytest.raises(ValueError, match=r"^the tolerance is .*: a check needs a finite tolerance of at least 0"):
            CO.verdict(0.5, 0.5, tol)
    assert CO.verdict(0.5, 0.5, np.float32(1e-6)) is None and CO.verdict(0.5, 0.5, 0) is None


def test_huge_whole_numbers_in_a_record_or_a_check_are_named():
    """The thirty-sixth pass: 10**400 as an answer, an expected value or a tolerance was an OverflowError."""
    assert CO.record_problem({"exercise": "x", "expected": 0.5, "tol": 0.001, "answer": 10**400}) is None
    assert CO.record_problem({"exercise": "x", "expected": 10**400, "tol": 0.001, "answer": 0.5}).startswith(
        "field expected"
    )
    with pytest.raises(ValueError, match=r"^the tolerance is 100000000000\.\.\. \(401 digits\): a check needs"):
        CO.verdict(0.5, 0.5, 10**400)
    with pytest.raises(ValueError, match=r"^the expected value is 100000000000\.\.\. \(401 digits\): a check"):
        CO.verdict(0.5, 10**400, 0.001)


def test_a_mistake_beyond_a_float_is_the_authors_error():
    with pytest.raises(ValueError, match=r"^the mistake 'x' is 100000000000\.\.\. \(401 digits\): a typical wrong"):
        CO.verdict(0.5, 0.4, 1e-3, {"x": 10**400})


def test_a_failed_answer_and_its_offset_print_past_the_bound():
    """The thirty-ninth pass: 0.12400001 against 0.1235 within 0.0005 failed "0.124 is off by +0.0005", which
    reads as within the tolerance, and 1.0000001 against 1 failed as "1"."""
    assert CO.verdict(0.12400001, 0.1235, 0.0005).startswith(
        "0.12400001 is off by +0.00050001 from the expected value (tolerance 0.0005)"
    )
    assert CO.verdict(1.0000001, 1.0, 0.0).startswith(
        "1.0000001 is off by +1e-07 from the expected value (tolerance 0)"
    )
    assert CO.verdict(0.2, 0.1235, 0.0005).startswith("0.2 is off by +0.0765")  # far off: the short figures
    assert CO.offset_text(0.12400001, 0.1235, 0.0005) == "+0.00050001"
    # the forty-first pass: two finite values too far apart for a float printed "off by -inf"
    assert CO.offset_text(-1e308, 1e308, 0.1) == "-2.00e+308"


def test_a_mistake_the_check_passes_is_named_to_the_teacher(capsys):
    """The forty-second pass: 0.124 against 0.1235 within 0.0005 passes the check (the bound read with a
    float's slack), yet `indistinct` read the bound without it and said nothing."""
    assert CO.verdict(0.124, 0.1235, 0.0005, {"x": 0.124}) is None
    assert CO.indistinct(0.1235, 0.0005, {"x": 0.124, "y": 0.12401}) == ["x"]
    CO.check("1.1", 0.124, 0.1235, 0.0005, {"x": 0.124})
    assert "cannot tell 'x' from the right answer" in capsys.readouterr().err
    assert CO.known_mistake(0.1245, 0.0005, {"x": 0.124}, 0.1235) == "x"  # 0.0005 apart in floats' slack


def test_a_tolerance_never_prints_as_the_failed_answer():
    """The forty-second pass: 1.23457e-05 "off by +1.235e-05 (tolerance 1.23457e-05)", the tolerance printed
    to six figures like the answer it failed."""
    assert CO.verdict(1.23457e-5, 0.0, 1.2345678e-5) == (
        "1.23457e-05 is off by +1.235e-05 from the expected value (tolerance 1.234568e-05); recheck the steps in "
        "the task"
    )
    assert CO.verdict(0.2, 0.1235, 0.0005).endswith("(tolerance 0.0005); recheck the steps in the task")


def test_an_exact_check_takes_a_floats_last_bits():
    """The forty-fifth pass: 0.1 + 0.2 against 0.3 at tolerance 0 failed "off by +5.55e-17", where the mistakes
    at the same bound took float noise."""
    assert CO.verdict(0.1 + 0.2, 0.3, 0.0) is None
    assert CO.verdict(0.31, 0.3, 0.0).startswith("0.31 is off by +0.01")
    assert CO.indistinct(0.3, 0.0, {"sum": 0.1 + 0.2, "other": 0.31}) == ["sum"]
