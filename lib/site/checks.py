"""The checks students run in the notebooks' exercises: `check("02.1", answer, expected, HAND, mistakes)`.

Each check knows the typical wrong answers of its exercise (`mistakes`: what was done wrong, and the value it
gives, computed by the notebook beside the right one). A failed check says how far off the answer is and,
when the answer is one of those values, which step went wrong. In a notebook run each check also leaves a
record (`RECORD_MIME`, invisible in the rendered pages) with the answer, the expected value, the tolerance and
the mistakes: the tests read it to show that every check tells its mistakes from the right answer, and
`python -m lib.site.grading` reads it to grade students' copies.

Kept apart from the course builder (`lib.site.course`), so a notebook depends on these few lines only and an
edit to the site reruns no notebook.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from IPython.core.interactiveshell import InteractiveShell
from IPython.display import display

HAND = 5e-4  # an answer worked out by hand and typed to three decimals passes
RECORD_MIME = "application/vnd.factcheck-study.exercise+json"
TEACHER_NOTE = "Note for the teacher"  # on stderr, so the report check (lib.site.reports) lists it


def as_number(answer: Any) -> float | None:
    """The answer as a float, or None when it cannot be read as a number (NaN included; True and False too,
    which Python would read as 1 and 0: `answer = True` is no fraction; and a text, which `float` reads
    generously: `"1_000"`)."""
    if type(answer).__name__ in ("bool", "bool_", "str", "str_", "bytes"):  # `"1_0"` read as 10
        return None
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return None
    except OverflowError:  # an integer or fraction beyond a float's range (10**400): a number, infinitely far off
        return math.inf if answer > 0 else -math.inf
    return None if math.isnan(value) else value


def _number(value: Any, finite: bool = True) -> bool:
    """A number as a check record holds it (not `true`, not text): an expected value, a tolerance or a
    mistake is finite; an answer may be infinite, or None where none was given (`finite=False`)."""
    if not finite and value is None:
        return True
    number = isinstance(value, int | float) and not isinstance(value, bool)
    try:
        return number and (math.isfinite(value) or not finite)
    except OverflowError:  # a whole number beyond a float's range: an answer infinitely far off, no bound or example
        return not finite


def _finite_real(value: Any) -> bool:
    """A real number (numpy's too), not a bool, finite; a whole number beyond a float's range is not."""
    try:
        return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    except OverflowError:
        return False


def _shown_number(value: Any) -> str:
    """A number for a message, a whole number too long for one line by its length."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:12]}... ({len(text)} digits)"


def record_problem(record: Any) -> str | None:
    """What makes a check record one the check did not write (an output edited by hand or cut short): the
    first field that is wrong and its value, or None. The grader and the teacher's pages read records alike."""
    if not isinstance(record, Mapping):
        return f"not an object: {type(record).__name__}"
    if not isinstance(record.get("exercise"), str):
        return f"field exercise: {record.get('exercise')!r:.40}"
    bad = [k for k in ("expected", "tol") if not _number(record.get(k))]
    bad += [] if _number(record.get("answer"), finite=False) else ["answer"]
    mistakes = record.get("mistakes") or {}
    bad += [] if isinstance(mistakes, Mapping) and all(_number(v) for v in mistakes.values()) else ["mistakes"]
    return f"field {bad[0]}: {record.get(bad[0])!r:.40}" if bad else None


def verdict(answer: Any, expected: float, tol: float, mistakes: Mapping[str, float] | None = None) -> str | None:
    """Why `answer` fails the check (None when it passes): not attempted, not a number, or off by how much,
    with the step that gives exactly that value when it is one of the exercise's `mistakes`."""
    if answer is None:
        return "no answer yet (the answer is None)"
    value = as_number(answer)
    if value is None:
        return f"expected a number, got {type(answer).__name__} {answer!r}"
    if not (_finite_real(tol) and tol >= 0):
        raise ValueError(
            f"the tolerance is {_shown_number(tol)}: a check needs a finite tolerance of at least 0 (the author's error)"
        )
    if not _finite_real(expected):
        raise ValueError(
            f"the expected value is {_shown_number(expected)}: a check compares an answer with a finite number (the "
            "exercise's example has none to check; its author must choose another)"
        )
    if bad := next((w for w, v in (mistakes or {}).items() if not _finite_real(v)), None):  # an OverflowError
        raise ValueError(
            f"the mistake {bad!r} is {_shown_number(mistakes[bad])}: a typical wrong step's value must be a finite "
            "number (the author's error)"
        )
    expected = float(expected)  # every answer failed "off by +nan ... recheck the steps" of a NaN: the example's fault
    if _within_bound(value - expected, expected, tol):  # at the bound passes
        return None
    answer_s, offset_s = answer_text(value, expected, tol), offset_text(value, expected, tol)
    off = f"{answer_s} is off by {offset_s} from the expected value ({tolerance_text(expected, tol, (answer_s, offset_s))})"
    known = known_mistake(value, tol, mistakes, expected)
    if known:
        return f"{off}: that is the value you get when you {known}"
    return f"{off}; recheck the steps in the task"


def answer_text(value: float, expected: float, tol: float) -> str:
    """A failed answer with the significant digits (6 at least) that put it past the bound as printed:
    1.0000001 against 1 was printed "1", and 0.12400001 against 0.1235 within 0.0005 "0.124"."""
    digits = 6
    while digits < 17 and _within_bound(float(f"{value:.{digits}g}") - expected, expected, tol):
        digits += 1
    return f"{value:.{digits}g}"


def offset_text(value: float, expected: float, tol: float) -> str:
    """How far a failed answer lies from the expected value, with the significant digits that put it past the
    bound as printed (3 at least): 0.12400001 against 0.1235 was "off by +0.0005" beside "tolerance 0.0005"."""
    off, digits = value - expected, 3
    if math.isinf(off) and math.isfinite(value) and math.isfinite(expected):  # -1e308 - 1e308: "off by -inf"
        return f"{Decimal(value) - Decimal(expected):+.3g}"
    while digits < 17 and _within_bound(float(f"{off:.{digits}g}"), expected, tol):
        digits += 1
    return f"{off:+.{digits}g}"


def _within_bound(distance: float, expected: float, tol: float) -> bool:
    """Whether an answer `distance` from `expected` passes: within the bound, the bound itself included (0.124
    against 0.1235 is 0.0005000000000000004 apart in floats). The one reading of the bound: the check, the
    digits a failed answer is printed with, and the mistakes it cannot tell from the right answer."""
    return _within(distance, within(expected, tol), expected)


def _within(distance: float, bound: float, near: float) -> bool:
    """`distance` within `bound`, the bound included with a float's slack (see `_within_bound`); an exact check
    (bound 0) still takes a float's last bits, four units in the last place of `near` (0.1 + 0.2 against 0.3
    failed "off by +5.55e-17 ... (tolerance 0)")."""
    return abs(distance) <= max(bound * (1 + 1e-9), 4 * math.ulp(near))


def within(expected: float, tol: float) -> float:
    """How far an answer may lie from `expected`: `tol`, or `tol` times the expected value's size where that
    lies within `tol` of 0 but is not 0 (a p-value of 2e-13 checked to 1e-9 passed a bare 0: the check could
    not tell a blank answer from the right one)."""
    return tol * abs(expected) if 0 < abs(expected) <= tol else tol


def tolerance_text(expected: float, tol: float, shown: Sequence[str] = ()) -> str:
    """The bound an answer is checked by, as a student or teacher reads it: "tolerance 0.0005", or, where
    `within` scales it, the bound applied with why ("tolerance 1e-09" printed beside a check that passed only
    answers within 2.25e-22). The bound gets the digits that keep it apart from the `shown` figures of a
    failed answer (its value and offset)."""
    bound = within(float(expected), tol)
    if bound == tol:
        return f"tolerance {_bound_text(tol, shown)}"
    return f"tolerance {_bound_text(bound, shown)}: {tol:g} times the expected value, which is closer to 0 than {tol:g}"


def _bound_text(bound: float, shown: Sequence[str]) -> str:
    """A bound with six significant digits, more where it would print as one of the `shown` figures without
    being it (a tolerance of 1.2345678e-05 printed "1.23457e-05", the very figure of the answer it failed)."""
    figures = {abs(float(f)) for f in shown}
    digits = 6
    while digits < 17 and float(f"{bound:.{digits}g}") in figures and bound not in figures:
        digits += 1
    return f"{bound:.{digits}g}"


def known_mistake(
    value: float, tol: float, mistakes: Mapping[str, float] | None, expected: float | None = None
) -> str | None:
    """The first of the exercise's typical wrong steps whose value `value` equals, within the bound the check
    passes answers by (`within(expected, tol)`: a tiny p-value's raw tolerance named every answer near it as a
    mistake), if any; an exact check (bound 0) still takes a float's last bits."""
    bound = within(float(expected), tol) if expected is not None else tol
    return next(
        (w for w, wrong in (mistakes or {}).items() if _within(value - float(wrong), bound, float(wrong))), None
    )


def indistinct(expected: float, tol: float, mistakes: Mapping[str, float] | None) -> list[str]:
    """The mistakes whose value passes the check: an example that cannot tell them from the right answer."""
    # the bound `verdict` passes an answer by, read as it reads it (0.124 against 0.1235 within 0.0005 passed
    # the check and was not named here)
    return [
        w
        for w, wrong in (mistakes or {}).items()
        if _within_bound(float(wrong) - float(expected), float(expected), tol)
    ]


def check(
    number: str, answer: Any, expected: float, tol: float = 1e-6, mistakes: Mapping[str, float] | None = None
) -> None:
    """Exercise `number`'s check: `answer` must be a number within `tol` of `expected` (a value the notebook
    computed). Prints one line when it passes; raises AssertionError saying what is wrong when it does not.
    `mistakes` maps a typical wrong step ("divide by 10 instead of ...") to the value it gives."""
    problem = verdict(answer, expected, tol, mistakes)
    if InteractiveShell.initialized():  # a notebook: leave the record for the tests and the grader
        record = {
            "exercise": number,
            "answer": as_number(answer),
            "attempted": answer is not None,
            "expected": float(expected),
            "tol": tol,
            "passed": problem is None,
            "mistakes": {what: float(wrong) for what, wrong in (mistakes or {}).items()},
        }
        # an HTML comment beside it: JupyterLab and the code host render that (nothing), not a "no renderer" note
        display({RECORD_MIME: record, "text/html": f"<!-- exercise {number}: check record -->"}, raw=True)
    for what in indistinct(expected, tol, mistakes):
        print(
            f"{TEACHER_NOTE}: exercise {number}'s example cannot tell '{what}' from the right answer",
            file=sys.stderr,
        )
    bound = within(float(expected), tol)
    if tol >= HAND and bound != tol:  # "three decimals" promised, and they cannot pass
        print(
            f"{TEACHER_NOTE}: exercise {number}'s expected value {float(expected):.3g} is closer to 0 than its "
            f"tolerance {tol:g}, so the check passes answers within {bound:.3g} only: an "
            "answer worked out by hand to three decimals fails; choose another example or ask for more decimals",
            file=sys.stderr,
        )
    if problem is not None:
        raise AssertionError(f"Exercise {number}: {problem}")
    print(f"Exercise {number}: correct.")
