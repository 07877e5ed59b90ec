"""Confidence intervals and paired significance tests over per-claim scores.

Every test here is seeded, so a rerun gives the same intervals and p-values.
- `bootstrap_ci`: percentile bootstrap interval of a mean.
- `spearman_ci`: Spearman's rho with a percentile bootstrap interval (pairs resampled, or whole clusters
  of pairs, e.g. all planners of a claim, with `clusters`); `sign_of` reads the sign off an interval.
  Over a handful of items with ties, where many resamples have no correlation at all, the interval is
  undefined; `spearman_permutation` then tests rho against shuffled pairings instead.
- `paired_bootstrap`: two-sided paired bootstrap test of mean(a - b) = 0 (resampling the centred
  differences, Efron & Tibshirani's shift method).
- `randomisation_test`: two-sided approximate randomisation (sign flips of the paired differences).
- `paired_t`: the two-sided paired t-test, whose analytic p-value reaches the small values that a
  correction over a large family needs (a resampling test stops at `p_floor`).
- `paired_bootstrap_statistic`: the same test for a statistic that is not a mean of per-claim values
  (macro-F1 of two classifiers' predictions on the same claims).
- `paired_difference_se`, `minimum_detectable_difference`: the power analysis of those tests (the
  smallest true difference they detect with a given power).
- `mcnemar`: exact McNemar test of two classifiers' per-claim correctness.
- `holm`: Holm-Bonferroni adjusted p-values, for many comparisons against one baseline.
- `p_floor`, `p_floor_note`: the smallest p-value B resamples can give, 1/(B+1), and how to read it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import numpy as np
from pydantic import Field

from lib.evaluation.printing import TIE_TOLERANCE, noise_equal, p_text


def min_resamples(confidence: float = 0.95) -> int:
    """The fewest resamples whose percentile interval at `confidence` has a resample beyond each end,
    2 / (1 - confidence): 40 at 95%. With fewer, the ends are the extreme resamples or all one value
    (`n_resamples: 1` gave a "95%" interval of zero width that excluded its own mean)."""
    return math.ceil(round(2 / (1 - confidence), 9))


MIN_RESAMPLES = min_resamples(0.95)  # the least the params sections accept (their intervals are 95%)
# the most the params sections accept: memory is about 8 bytes x resamples x claims, twice over for a paired
# bootstrap (1,000,000 resamples asked notebook 02 for 3.7 GiB at once, more with more claims)
MAX_RESAMPLES = 100_000
Resamples = Annotated[int, Field(ge=MIN_RESAMPLES, le=MAX_RESAMPLES)]  # a params setting: resamples of a test


def enough_resamples(n_resamples: int, confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples < min_resamples(confidence):
        raise ValueError(
            f"n_resamples={n_resamples}: a {confidence:.0%} percentile interval needs at least "
            f"{min_resamples(confidence)} resamples (one beyond each end)"
        )


MIN_CLUSTERS = 5  # fewer independent units than this give no bootstrap interval


def bootstrap_ci(
    values: Sequence[float], n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """(mean, low, high) of the percentile bootstrap interval (at least `min_resamples` resamples); with
    fewer than `MIN_CLUSTERS` values no interval (NaN): one value gave a "95%" interval of zero width, read
    as a positive effect."""
    enough_resamples(n_resamples, confidence)
    x = np.asarray(values, dtype=float)
    if len(x) < MIN_CLUSTERS:
        return (float(x.mean()) if len(x) else float("nan"), float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, len(x), size=(n_resamples, len(x)))].mean(axis=1)
    alpha = (1 - confidence) / 2
    return float(x.mean()), float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


MAX_SKIPPED = 0.01  # share of resamples without a correlation above which a Spearman interval is undefined


def _correlated(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """x and y as aligned float arrays without NaN (a NaN has no rank: the permutation test returned its floor,
    p = 1/(B+1), for a NaN in x); infinities rank as the largest or smallest values."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"a correlation needs aligned values, got {x.shape} and {y.shape}")
    missing = np.isnan(x) | np.isnan(y)
    if missing.any():
        raise ValueError(
            f"a correlation needs a value on both sides of every pair; {int(missing.sum())} of {len(x)} pairs hold "
            f"NaN (the first at position {int(np.flatnonzero(missing)[0])})"
        )
    return x, y


def spearman_ci(
    x: Sequence[float],
    y: Sequence[float],
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    clusters: Sequence[Any] | None = None,
) -> tuple[float, float, float]:
    """(rho, low, high): Spearman's rank correlation and its percentile bootstrap interval. Resamples
    whose x or y is constant have no correlation; when more than `MAX_SKIPPED` of them are, the interval
    is undefined (NaN): the kept resamples would all hold the few values that vary (e.g. one method against
    ten ties), and their interval would start at the estimate itself.

    With `clusters` (one id per value, e.g. the claim of each claim-planner pair) the bootstrap resamples
    whole clusters, as the sampling design does: pairs of one claim are not independent, and resampling
    them one by one gives intervals that are too narrow."""
    from scipy.stats import spearmanr

    enough_resamples(n_resamples, confidence)
    x, y = _correlated(x, y)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return (float("nan"),) * 3
    if clusters is None:
        members = [np.array([i]) for i in range(len(x))]
    else:
        if len(clusters) != len(x):
            raise ValueError(f"clusters need one id per value, got {len(clusters)} for {len(x)} values")
        if any(c != c for c in clusters):  # NaN is not an id: it would be one cluster or many
            raise ValueError("cluster ids must not be NaN")
        first: dict[Any, int] = {}  # clusters numbered in order of first appearance
        ids = np.array([first.setdefault(c, len(first)) for c in clusters])
        order = np.argsort(ids, kind="stable")
        members = np.split(order, np.flatnonzero(np.diff(ids[order])) + 1)
    rho = float(spearmanr(x, y).statistic)
    if (
        clusters is not None and len(members) < MIN_CLUSTERS
    ):  # too few units to resample: no interval rather than a zero-width one
        return rho, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    rhos = []
    for pick in rng.integers(0, len(members), size=(n_resamples, len(members))):
        idx = np.concatenate([members[i] for i in pick])
        if np.ptp(x[idx]) > 0 and np.ptp(y[idx]) > 0:
            rhos.append(spearmanr(x[idx], y[idx]).statistic)
    if len(rhos) < (1 - MAX_SKIPPED) * n_resamples:
        return rho, float("nan"), float("nan")
    alpha = (1 - confidence) / 2
    return rho, float(np.quantile(rhos, alpha)), float(np.quantile(rhos, 1 - alpha))


def spearman_permutation(x: Sequence[float], y: Sequence[float], n_resamples: int = 2000, seed: int = 0) -> float:
    """Two-sided permutation p-value of Spearman's rho: how often pairing x with a shuffled y gives a rho at
    least as far from 0 (NaN when x or y is constant or there are fewer than 3 pairs)."""
    from scipy.stats import spearmanr

    x, y = _correlated(x, y)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    observed = abs(spearmanr(x, y).statistic)
    rng = np.random.default_rng(seed)
    null = np.array([abs(spearmanr(x, rng.permutation(y)).statistic) for _ in range(n_resamples)])
    return float((np.sum(null >= observed - 1e-12) + 1) / (n_resamples + 1))


def sign_of(low: float, high: float) -> str:
    """What a confidence interval says about the sign of its quantity: `positive`, `negative` or
    `indistinguishable from 0` (also for an interval that is not a number). An end that is 0 but for
    floating-point noise (`noise_equal`) is 0, as the sentences print it: an end of 1e-17 was "positive" beside
    a printed 0.000."""
    if low > 0 and not noise_equal(low, 0.0):
        return "positive"
    if high < 0 and not noise_equal(high, 0.0):
        return "negative"
    return "indistinguishable from 0"


def p_floor(n_resamples: int) -> float:
    """The smallest p-value a resampling test here can return, 1 / (B + 1): the observed data count as one
    of the B + 1 samples, so "p = 1/(B+1)" reads "p <= 1/(B+1)", never "p = 0"."""
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    return 1 / (n_resamples + 1)


def p_floor_note(n_resamples: int, alpha: float = 0.05, family: int = 1) -> str:
    """The sentence notebooks print under a table of resampling p-values, from the check it states: whether the
    floor 1/(B+1), times the `family` of tests Holm adjusts together, is below `alpha` (40 resamples over three
    Holm-adjusted planners cannot reach 0.05: "more resamples would not change a decision" was false there)."""
    floor = p_floor(n_resamples)
    head = (
        f"With B = {n_resamples:,} resamples the smallest p-value these tests can give is 1/(B+1) = "
        f"{p_text(floor, alpha)}: a p-value at that floor means *at most* that"
    )
    adjusted = f"; Holm over {family} tests multiplies the smallest by {family}" if family > 1 else ""
    if floor * family < alpha:
        return f"{head}{adjusted}, and more resamples would only lower the floor, not change a decision at {alpha:g}."
    return (
        f"{head}{adjusted}, which is not below {alpha:g}: no test here can be significant at this B, and more "
        "resamples could change a decision."
    )


def _paired(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired tests need aligned scores, got {a.shape} and {b.shape}")
    d = a - b
    if np.isnan(d).any():  # the resampling tests called a NaN difference significant (p at its floor)
        raise ValueError(
            f"paired tests need a score on both sides of every pair; {int(np.isnan(d).sum())} of {len(d)} pairs "
            "hold NaN (an item missing from one run?)"
        )
    if np.isinf(d).any():  # an infinite score (a KL divergence) has no mean difference to test
        raise ValueError(
            f"paired tests need finite scores; {int(np.isinf(d).sum())} of {len(d)} pairs differ by an infinite amount"
        )
    # a difference of floating-point noise is none (as `printing.apart` ties figures): the same scores summed in
    # another order differed by 1e-17 per claim, and the paired t-test found them apart at p = 0.04 (constant
    # noise: p = 0). Noise is relative to the scores' scale, one bound for every pair of the test.
    scale = max(float(np.abs(a).max(initial=0.0)), float(np.abs(b).max(initial=0.0)))
    return np.where(np.abs(d) <= TIE_TOLERANCE * scale, 0.0, d)


def paired_bootstrap(a: Sequence[float], b: Sequence[float], n_resamples: int = 10000, seed: int = 0) -> float:
    """Two-sided p-value of mean(a - b) = 0 (a p-value of 1 when every difference is 0). Fewer than
    `MIN_CLUSTERS` pairs give no test (NaN): the resampled means of three pairs never reach the observed
    one, and the p-value sat at its floor whatever the data (one pair: 1e-4)."""
    d = _paired(a, b)
    if len(d) < MIN_CLUSTERS:
        return float("nan")
    if not d.any():
        return 1.0
    observed = abs(d.mean())
    rng = np.random.default_rng(seed)
    centred = d - d.mean()
    means = centred[rng.integers(0, len(d), size=(n_resamples, len(d)))].mean(axis=1)
    return float((np.sum(np.abs(means) >= observed) + 1) / (n_resamples + 1))


def randomisation_test(a: Sequence[float], b: Sequence[float], n_resamples: int = 10000, seed: int = 0) -> float:
    """Two-sided p-value from random sign flips of the paired differences; no pairs, no test (NaN)."""
    d = _paired(a, b)
    if len(d) == 0:
        return float("nan")
    if not d.any():
        return 1.0
    observed = abs(d.mean())
    rng = np.random.default_rng(seed)
    signs = rng.choice([-1.0, 1.0], size=(n_resamples, len(d)))
    means = np.abs((signs * d).mean(axis=1))
    # a flip whose mean equals the observed one but for rounding counts; the slack is relative (an absolute
    # 1e-15 counted every flip of differences of 1e-16)
    return float((np.sum(means >= observed - TIE_TOLERANCE * np.abs(d).max()) + 1) / (n_resamples + 1))


def paired_t(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the paired t-test of mean(a - b) = 0: 1 when every difference is 0, 0 when every
    difference is the same non-zero value, NaN (no test) with fewer than two pairs."""
    from scipy.stats import ttest_1samp

    d = _paired(a, b)
    if len(d) < 2:
        return float("nan")
    if not d.any():
        return 1.0
    if np.ptp(d) == 0:
        return 0.0
    return float(ttest_1samp(d, 0.0).pvalue)


def paired_bootstrap_statistic(
    gold: Sequence,
    pred_a: Sequence,
    pred_b: Sequence,
    statistic: Callable[[np.ndarray, np.ndarray], float],
    n_resamples: int = 10000,
    seed: int = 0,
) -> tuple[float, float]:
    """(observed statistic(a) - statistic(b), two-sided p-value) by resampling claims with replacement.

    The null distribution is the resampled differences shifted by the observed one (as in
    `paired_bootstrap`, which this equals when `statistic` is a mean of per-claim values)."""
    gold, a, b = np.asarray(gold), np.asarray(pred_a), np.asarray(pred_b)
    if not (len(gold) == len(a) == len(b)):
        raise ValueError(f"paired tests need aligned predictions, got {len(gold)}, {len(a)} and {len(b)}")
    if len(gold) == 0:  # no claims, no test: NaN, as `mcnemar` (1.0 read "no difference")
        return float("nan"), float("nan")
    observed = statistic(gold, a) - statistic(gold, b)
    if np.array_equal(a, b):
        return float(observed), 1.0
    if len(gold) < MIN_CLUSTERS:  # as `paired_bootstrap`: a p-value at its floor whatever the data
        return float(observed), float("nan")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(gold), size=(n_resamples, len(gold)))
    diffs = np.array([statistic(gold[i], a[i]) - statistic(gold[i], b[i]) for i in idx])
    p = (np.sum(np.abs(diffs - observed) >= abs(observed) - 1e-12) + 1) / (n_resamples + 1)
    return float(observed), float(p)


def paired_difference_se(
    gold: Sequence,
    pred_a: Sequence,
    pred_b: Sequence,
    statistic: Callable[[np.ndarray, np.ndarray], float],
    n_resamples: int = 2000,
    seed: int = 0,
) -> float:
    """Bootstrap standard error of statistic(a) - statistic(b), claims resampled with replacement (the
    spread `paired_bootstrap_statistic` tests against)."""
    gold, a, b = np.asarray(gold), np.asarray(pred_a), np.asarray(pred_b)
    if not (len(gold) == len(a) == len(b)) or len(gold) < 2:
        raise ValueError(f"need at least two aligned predictions, got {len(gold)}, {len(a)} and {len(b)}")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(gold), size=(n_resamples, len(gold)))
    diffs = np.array([statistic(gold[i], a[i]) - statistic(gold[i], b[i]) for i in idx])
    return float(diffs.std(ddof=1))


def minimum_detectable_difference(se: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true difference a two-sided test at level `alpha` detects with probability `power`
    when its estimate has standard error `se` (normal approximation): (z_{1-alpha/2} + z_power) * se.
    At alpha 0.05 and power 0.8 that is 2.80 standard errors."""
    from scipy.stats import norm

    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError(f"alpha and power must be in (0, 1), got {alpha} and {power}")
    if se < 0:
        raise ValueError(f"a standard error cannot be negative, got {se}")
    return float((norm.ppf(1 - alpha / 2) + norm.ppf(power)) * se)


def mcnemar(correct_a: Sequence[bool], correct_b: Sequence[bool]) -> float:
    """Two-sided exact McNemar p-value: a binomial test on the claims exactly one of the two gets right.
    No claims at all is no test: NaN (as `bootstrap_ci` of nothing), where 1.0 would read "no difference"."""
    from scipy.stats import binomtest

    a, b = _outcomes(correct_a, "correct_a"), _outcomes(correct_b, "correct_b")
    if a.shape != b.shape:
        raise ValueError(f"paired tests need aligned outcomes, got {a.shape} and {b.shape}")
    if a.size == 0:
        return float("nan")
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
    if only_a + only_b == 0:
        return 1.0
    return float(binomtest(only_a, only_a + only_b, 0.5).pvalue)


def _outcomes(values: Sequence[bool], what: str) -> np.ndarray:
    """Right-or-wrong outcomes as booleans: True/False, or numbers with any non-zero right; NaN (read as right)
    and anything else (text, None) are named."""
    for i, v in enumerate(np.ravel(np.asarray(values, dtype=object))):
        if not isinstance(v, (bool, int, float, np.bool_, np.number)) or v != v:
            shown = v.item() if isinstance(v, np.generic) else v
            raise ValueError(f"{what}: outcomes are True/False (or 1/0), got {shown!r} at position {i}")
    return np.asarray(values, dtype=bool)


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (monotone, capped at 1), in the input order. An undefined test (NaN)
    stays undefined and counts among the tests; a p-value outside [0, 1] is a ValueError (-0.1 was adjusted to
    -0.2)."""
    p = np.asarray(pvalues, dtype=float)
    off = (p < 0) | (p > 1)
    if off.any():
        raise ValueError(f"Holm's adjustment needs p-values in [0, 1], got {p[off][0]:g}")
    order = np.argsort(p, kind="stable")
    m = len(p)
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out
