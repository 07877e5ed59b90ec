"""Figures as a reader sees them: a number as its format prints it, and a figure printed with the decimals
that keep it apart from a threshold it is read against. Without scipy or pandas, so the scorer's sentences
can use it without the statistics code becoming a dep of the scoring stages."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

TIE_TOLERANCE = 1e-12  # relative: far above the noise of summing a few thousand floats, far below any printed digit


def noise_equal(a: float, b: float) -> bool:
    """Equal but for floating-point noise (`TIE_TOLERANCE`, or 1e-15 apart near 0): 0.1 + 0.2 and 0.3."""
    return math.isclose(a, b, rel_tol=TIE_TOLERANCE, abs_tol=1e-15)


def printed(value: float, fmt: str) -> float:
    """A number as `format(value, fmt)` shows it, read back: what a reader compares (0.3004 at ".3f" is 0.3,
    0.30004 at ".1%" is 0.3)."""
    return _read(format(value, fmt))


def _read(text: str) -> float:
    """A printed figure read back: thousands separators dropped, a percent as a fraction."""
    text = text.replace(",", "")
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def apart(value: float, fmt: str, other: float | Sequence[float] = 0.0) -> str:
    """`value` as `fmt` prints it, with more decimals where `fmt` would print it as `other` (a threshold, or 0)
    while it is not: the side of the threshold a sentence reads from it must be visible in its figure (60.04 s
    against a 60 s budget is "60.04", 0.0004 at ".3f" is "0.0004", not "0.000" beside "positive"). Past 12
    decimals the figure is given in scientific notation. `other` may be several thresholds (each compared as
    printed too: 0.19 - 0.01 is 0.18000000000000002)."""
    others = [other] if isinstance(other, int | float) else list(other)
    at = any(noise_equal(value, o) for o in others)  # on one: as printed
    decimals = re.search(r"\.(\d+)", fmt)
    while value == value and not at and decimals and printed(value, fmt) in {printed(o, fmt) for o in others}:
        if int(decimals[1]) >= 12:  # scientific, with the digits that keep it apart (5.00e-03 read as 0.005)
            digits = 2
            while digits < 17 and printed(value, f".{digits}e") in {printed(o, f".{digits}e") for o in others}:
                digits += 1
            sign = "+" if "+" in fmt else ""  # a percent format: the figure in percent (5e-15 is "5.00e-13%")
            return f"{value * 100:{sign}.{digits}e}%" if fmt.endswith("%") else f"{value:{sign}.{digits}e}"
        fmt = fmt.replace(decimals[0], f".{int(decimals[1]) + 1}", 1)
        decimals = re.search(r"\.(\d+)", fmt)
    return unsigned_zero(format(value, fmt), fmt)


def unsigned_zero(text: str, fmt: str = "") -> str:
    """A printed figure that reads 0 without a minus sign ("-0.000" of -1e-17, noise at 0), "+0.000" where `fmt`
    signs every figure."""
    if text.startswith("-") and _read(text) == 0:  # "-0.0%" too
        return ("+" if "+" in fmt else "") + text[1:]
    return text


def printed_difference(a: float, b: float, fmt: str = ".3f", fmt_b: str | None = None) -> float:
    """a - b as a reader subtracts the figures printed with `fmt` (and `fmt_b` for b, default `fmt`): 0.123 - 0.101
    is 0.022 where the exact difference 0.02298 printed 0.023 beside them; NaN where either is undefined."""
    return printed(a, fmt.lstrip("+")) - printed(b, (fmt_b or fmt).lstrip("+"))


def difference_as_printed(delta: float, a: float, b: float, fmt: str = ".3f") -> float:
    """A test's difference `delta` as the printed `a` and `b` subtract where it is `a - b` (0.367 and 0.338 differ
    by 0.029, where the exact 0.0284 printed 0.028 beside them), the exact `delta` where the two print alike but
    differ (0.3004 and 0.2996 both print 0.300: +0.0008, which `signed_text` prints, not 0 beside a test that
    separates them); `delta` itself where it is not their difference (a test on the claims two systems share,
    or on one seed of several)."""
    if delta == delta and math.isclose(delta, a - b, rel_tol=1e-9, abs_tol=1e-12):
        shown = printed_difference(a, b, fmt)
        return delta if shown == 0 and not noise_equal(a, b) else shown
    return delta


def signed_text(value: float, fmt: str = "+.3f") -> str:
    """A signed figure (a difference) as `fmt` (fixed decimals or a percent) prints it, never "-0.000"; one nearer
    0 than one printed step but not 0 with the decimals that keep it apart from 0 and under that step ("+0.0008",
    not "+0.000" read as no difference nor "+0.001" read as a step between two levels printed alike); "undefined"
    for NaN."""
    if value != value:
        return "undefined"
    decimals, kind = re.fullmatch(r"\+?\.(\d+)([f%])", fmt).groups()
    decimals = int(decimals)
    step = 10.0 ** -(decimals + (2 if kind == "%" else 0))
    if noise_equal(value, 0.0) or abs(value) >= step * (1 - 1e-9):
        return unsigned_zero(format(value, f"+.{decimals}{kind}"), "+")
    for more in range(decimals + 1, 13):
        text = apart(value, f"+.{more}{kind}", 0.0)
        if abs(_read(text)) < step:
            return text
    return apart(value, f"+.12{kind}", 0.0)


def difference_text(a: float, b: float, fmt: str = ".3f") -> str:
    """a - b, signed, beside the figures `a` and `b` printed with `fmt`: the difference of the printed figures
    (0.582 and 0.503 differ by "+0.079" where the exact 0.0798 printed "+0.080"); where the two print alike but
    differ, the exact difference under one printed step ("-0.0008" beside 0.100 and 0.100: `signed_text`);
    "+0.000" only where they are equal; "undefined" where either is (it printed "+nan")."""
    plain = fmt.lstrip("+")
    return signed_text(difference_as_printed(a - b, a, b, plain), "+" + plain)


def difference_shown(delta: float, a: float, b: float, fmt: str = ".3f") -> str:
    """A test's difference `delta` as a sentence prints it beside the printed `a` and `b` (`difference_as_printed`,
    `signed_text`): as `difference_text` where it is `a - b`, else `delta` itself."""
    return signed_text(difference_as_printed(delta, a, b, fmt.lstrip("+")), "+" + fmt.lstrip("+"))


def p_text(p: float | None, alpha: float = 0.05) -> str:
    """A p-value as the study prints it: three significant digits, with the decimals that keep it apart from
    `alpha` (0.0005, the floor of 2,000 resamples, is "0.0005", never "0.000" or "5e-04" beside a sentence's
    "p = 0.0005")."""
    return "nan" if p is None or p != p else apart(p, ".3g", alpha)  # None: a test that was not made


def points_text(value: float, fmt: str = "+.1%", unit: str = " percentage points") -> str:
    """A difference of two shares in percentage points, apart from 0 (59.4% against 57.4% is "+1.9 percentage
    points"; "+1.9%" beside "higher by 46%" read as a relative change); `unit=""` for the bare figure, as an
    interval's ends print after their difference has named the unit."""
    return apart(value, fmt, 0.0).removesuffix("%") + unit


def end_text(value: float, fmt: str) -> str:
    """An interval's end as `fmt` prints it, apart from 0 where it is not 0 (`apart`)."""
    return apart(value, fmt, 0.0)


def share_text(value: float, fmt: str = ".0%") -> str:
    """A share as a sentence prints it: `fmt`, with the decimals that keep it off 0% and 100% unless it is one
    (0.996 printed "100%" beside "in every group", 0.003 "0%" beside a code that fired)."""
    return apart(value, fmt, (0.0, 1.0))


def share_shown(value: float, fmt: str = ".0%") -> float:
    """`share_text` read back: what a reader compares (30.1% and 30.4% are one share; 99.6% is not 100%)."""
    return _read(share_text(value, fmt)) if value == value else value


def shares_apart(a: float, b: float) -> tuple[str, str, str]:
    """Two shares and their difference a - b as a sentence prints them: the difference in percentage points to a
    tenth (apart from 0, `points_text`); the shares in whole percents, or with the decimals whose difference reads
    as that difference and that keep a share off 0% and 100% unless it is one (30% and 30% stood beside "+0.8%",
    30% and 28% beside "+1.0%", 0.99951 read "100%")."""
    if a != a or b != b:  # "nan%" beside the other share in scientific notation
        return (
            "undefined" if a != a else share_text(a, ".0%"),
            "undefined" if b != b else share_text(b, ".0%"),
            "undefined",
        )
    a, b = a + 0.0, b + 0.0  # -0.0 printed "-0%"
    diff = points_text(0.0 if noise_equal(a, b) else a - b)  # equal but for noise: no sign to read
    for d in range(7):
        fmt = f".{d}%"
        shown_a, shown_b = printed(a, fmt), printed(b, fmt)
        apart_if_unequal = shown_a != shown_b or noise_equal(a, b)
        off_ends = all(noise_equal(v, shown) or shown not in (0.0, 1.0) for v, shown in ((a, shown_a), (b, shown_b)))
        if apart_if_unequal and off_ends and printed(shown_a - shown_b, "+.1%") == printed(a - b, "+.1%"):
            return f"{a:{fmt}}", f"{b:{fmt}}", diff
    for digits in range(2, 18):  # closer than 6 decimals of a percent: scientific, with the digits that part them
        shown_a, shown_b = f"{a * 100:.{digits}e}%", f"{b * 100:.{digits}e}%"
        if shown_a != shown_b or noise_equal(a, b):
            return shown_a, shown_b, diff
    return f"{a * 100:.17e}%", f"{b * 100:.17e}%", diff
