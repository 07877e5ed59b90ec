"""lib.site.checks: the exercise checks students run."""

from __future__ import annotations

import pytest

from lib.site import checks as CO


def test_check_passes_within_tolerance_and_names_what_is_wrong(capsys):
    CO.check("02.1", 0.5000001, 0.5, tol=1e-6)
    assert capsys.readouterr().out == "Exercise 02.1: correct.\n"
    with pytest.raises(AssertionError, match=r"Exercise 02.1: 0.51 is not the expected value \(tolerance 1e-06\)"):
        CO.check("02.1", 0.51, 0.5)
    with pytest.raises(AssertionError, match="no answer yet"):
        CO.check("02.1", None, 0.5)
    with pytest.raises(AssertionError, match="expected a number, got str"):
        CO.check("02.1", "half", 0.5)
    with pytest.raises(AssertionError, match="not the expected value"):
        CO.check("02.1", float("nan"), 0.5)
    CO.check("02.1", 3, 3, tol=0)  # exact counts
