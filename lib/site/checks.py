"""The checks students run in the notebooks' exercises: `check("02.1", answer, expected)`.

Kept apart from the course builder (`lib.site.course`), so a notebook depends on these few lines only and an
edit to the site reruns no notebook.
"""

from __future__ import annotations

import math
from typing import Any


def check(number: str, answer: Any, expected: float, tol: float = 1e-6) -> None:
    """Exercise `number`'s check: `answer` must be a number within `tol` of `expected` (a value the notebook
    computed). Prints one line when it passes; raises AssertionError saying what is wrong when it does not."""
    if answer is None:
        raise AssertionError(f"Exercise {number}: no answer yet (the answer is None)")
    try:
        value = float(answer)
    except (TypeError, ValueError):
        raise AssertionError(f"Exercise {number}: expected a number, got {type(answer).__name__} {answer!r}") from None
    if math.isnan(value) or not abs(value - float(expected)) <= tol:
        raise AssertionError(
            f"Exercise {number}: {value:.6g} is not the expected value (tolerance {tol:g}); "
            "recheck the steps in the task"
        )
    print(f"Exercise {number}: correct.")
