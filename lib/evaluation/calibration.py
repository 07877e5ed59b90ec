"""Calibrated verifier probabilities: temperature scaling and the reliability of predicted probabilities.

A classifier is *calibrated* when, among the inputs it gives a top probability of about 0.7, about 70%
are right. Temperature scaling (Guo et al., 2017, "On Calibration of Modern Neural Networks") divides the
logits by one number T fitted on held-out data by minimising the negative log-likelihood: T > 1 softens
over-confident probabilities, T < 1 sharpens timid ones (a verifier whose top probability hovers at
0.3 over four classes), and the argmax, hence every verdict and macro-F1, is unchanged.

The expected calibration error (ECE) is the support-weighted mean gap between accuracy and mean top
probability over equal-width confidence bins (`reliability`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from lib.cli import finite_real, shown

T_BOUNDS = (0.05, 20.0)  # the search range of the temperature


def check_temperature(temperature: float, what: str = "temperature") -> float:
    """`temperature` as a float when it is a finite real number above 0 (`lib.cli.finite_real`), else a
    ValueError naming `what` (an infinite temperature gave every class the same probability; 0 a division by
    zero)."""
    if not (finite_real(temperature) and temperature > 0):
        raise ValueError(f"{what} must be a finite number above 0, got {shown(temperature)}")
    return float(temperature)


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Row-wise softmax of `logits / temperature`, numerically stable."""
    z = np.asarray(logits, dtype=float) / check_temperature(temperature)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _gold(gold: Sequence[int], classes: int) -> np.ndarray:
    """The gold labels as class indices; one outside 0..classes-1 is a ValueError (-1 was read as the last
    class, 5 of four as wrong: an ECE of 0.9 for labels that are no class)."""
    g = np.asarray(gold, dtype=float)  # labels read as floats from a file (1.0) are class 1
    ok = (g == np.round(g)) & (g >= 0) & (g < classes)
    if not ok.all():
        raise ValueError(f"gold label {g[~ok][0]:g}: expected a class index from 0 to {classes - 1}")
    return g.astype(int)


def nll(logits: np.ndarray, gold: Sequence[int], temperature: float = 1.0) -> float:
    """Mean negative log-likelihood of the gold classes under `softmax(logits / temperature)` (one gold label per
    row: fewer gave a negative NLL, and a temperature of 0, -1 or inf a number, as `check_temperature` refuses)."""
    z = np.asarray(logits, dtype=float) / check_temperature(temperature)
    if z.ndim != 2 or len(z) != len(gold):
        raise ValueError(f"nll: {len(gold)} gold labels for logits of shape {z.shape}; expected one per row")
    g = _gold(gold, z.shape[1])
    m = z.max(axis=1, keepdims=True)
    log_norm = (m + np.log(np.exp(z - m).sum(axis=1, keepdims=True)))[:, 0]
    return float(np.mean(log_norm - z[np.arange(len(g)), g]))


def fit_temperature(logits: np.ndarray, gold: Sequence[int]) -> float:
    """The temperature minimising the validation NLL (bounded scalar search over log T, deterministic)."""
    from scipy.optimize import minimize_scalar

    logits = np.asarray(logits, dtype=float)
    if logits.ndim != 2 or len(logits) != len(gold) or not len(gold) or logits.shape[1] < 2:
        raise ValueError(
            f"need (n, classes) logits of 2 or more classes and n gold labels, got {logits.shape} and {len(gold)}"
        )
    bad = ~np.isfinite(logits).all(axis=1)
    if bad.any():  # a NaN logit made every NLL NaN, and the search returned a temperature all the same
        raise ValueError(
            f"{int(bad.sum())} row(s) of logits are not finite (row {int(np.flatnonzero(bad)[0])}): no temperature fits them"
        )
    lo, hi = np.log(T_BOUNDS)
    res = minimize_scalar(lambda t: nll(logits, gold, float(np.exp(t))), bounds=(lo, hi), method="bounded")
    return float(np.exp(res.x))


def reliability(probs: np.ndarray, gold: Sequence[int], bins: int = 10) -> pd.DataFrame:
    """Per confidence bin (equal width over [0, 1]): examples, mean top probability, accuracy, and the gap.

    Bins without examples are left out; the top probability p falls in the bin b with b / bins <= p < (b + 1) /
    bins (the last bin also takes 1), compared with the edges as the table prints them."""
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"reliability: bins must be a whole number of at least 1, got {bins!r}")
    probs = np.asarray(probs, dtype=float)
    if len(probs) == 0:  # no example: no accuracy, no confidence (ECE undefined)
        return pd.DataFrame(columns=["bin", "low", "high", "n", "confidence", "accuracy", "gap"])
    if probs.ndim != 2 or len(gold) != len(probs):  # one gold label was broadcast over every row; 1-D gave NaN
        raise ValueError(
            f"reliability: need (n, classes) probabilities and n gold labels, got {probs.shape} and {len(gold)}"
        )
    if np.isnan(probs).any():  # a row of NaN was dropped from the bins after a RuntimeWarning
        raise ValueError(f"reliability: {int(np.isnan(probs).any(axis=1).sum())} row(s) of probabilities hold NaN")
    # non-negative and summing to 1 (so each at most 1), within what rounding to 4 decimals leaves
    off = (probs < 0).any(axis=1) | (np.abs(probs.sum(axis=1) - 1) > 1e-3)
    if off.any():  # logits were binned at "confidence 2.0", rows with a negative maximum dropped: ECE 0.9
        raise ValueError(
            f"reliability: {int(off.sum())} row(s) are no probabilities (row {int(np.flatnonzero(off)[0])}: each row "
            "needs values in [0, 1] that sum to 1, within 0.001; logits or scores need a softmax first)"
        )
    conf, pred = probs.max(axis=1), probs.argmax(axis=1)
    right = pred == _gold(gold, probs.shape[1])
    which = np.minimum((conf * bins).astype(int), bins - 1)
    # against the edges the table prints (b / bins): 0.57 * 100 is 56.99999999999999, so floor put 0.57 in the
    # bin that ends at 0.57, and a product rounded up the other way
    which = which + (((which + 1) / bins <= conf) & (which < bins - 1)) - (which / bins > conf)
    rows = []
    for b in range(bins):
        mask = which == b
        if mask.any():
            rows.append(
                {
                    "bin": b,
                    "low": b / bins,
                    "high": (b + 1) / bins,
                    "n": int(mask.sum()),
                    "confidence": float(conf[mask].mean()),
                    "accuracy": float(right[mask].mean()),
                }
            )
    frame = pd.DataFrame(rows, columns=["bin", "low", "high", "n", "confidence", "accuracy"])
    frame["gap"] = frame["accuracy"] - frame["confidence"]
    return frame


def expected_calibration_error(probs: np.ndarray, gold: Sequence[int], bins: int = 10) -> float:
    """Support-weighted mean |accuracy - confidence| over the bins of `reliability`."""
    table = reliability(probs, gold, bins)
    if table.empty:
        return float("nan")  # undefined without examples, never 0
    return float((table["n"] * table["gap"].abs()).sum() / table["n"].sum())


def uncalibrated(probs: np.ndarray, temperature: float) -> np.ndarray:
    """The probabilities before temperature scaling, recovered from calibrated ones: the softmax of
    `temperature * log p` is the softmax of the original logits."""
    t = check_temperature(temperature, "the calibration temperature")
    return softmax(np.log(np.clip(np.asarray(probs, dtype=float), 1e-300, None)), 1.0 / t)
