"""Agreement between raters: Cohen's kappa, used for manual against automatic codes (notebook 08's
error codes, notebook 04's relevance judgements)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Cohen's kappa of two raters' codes for the same items (1.0 when both use one identical code)."""
    if len(a) != len(b):
        raise ValueError(f"kappa needs the same items from both raters, got {len(a)} and {len(b)}")
    if not len(a):
        return float("nan")
    if any(
        x is None or type(x).__name__ in ("NAType", "NaTType") for x in (*a, *b)
    ):  # "'<' not supported between NoneType and
        # str"; pd.NA: "boolean value of NA is ambiguous"
        raise ValueError("kappa: a code is None or NA (a blank cell?); every item needs a code from both raters")
    if any(x != x for x in (*a, *b)):  # NaN: equal to itself or not by object identity, kappa 1.0 or 0.0
        raise ValueError("kappa: a code is NaN (a blank cell?); every item needs a code from both raters")
    flags = {isinstance(x, bool | np.bool_) for x in (*a, *b)}
    if len(flags) > 1:  # 1 and True were counted as one code
        raise ValueError("kappa: codes mix true/false with other values; give every code as text")
    try:
        cats = sorted(set(a) | set(b))
    except TypeError:  # "'<' not supported between instances of 'int' and 'str'"
        kinds = sorted({type(x).__name__ for x in (*a, *b)})
        raise ValueError(f"kappa: codes of several kinds ({', '.join(kinds)}); give every code as text") from None
    idx = {c: i for i, c in enumerate(cats)}
    m = np.zeros((len(cats), len(cats)))
    for x, y in zip(a, b):
        m[idx[x], idx[y]] += 1
    n = m.sum()
    observed = np.trace(m) / n
    expected = float((m.sum(1) / n) @ (m.sum(0) / n))
    return 1.0 if expected == 1 else float((observed - expected) / (1 - expected))
