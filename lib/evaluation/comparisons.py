"""Comparisons a notebook may state as findings, each with its test.

- **Top groups** (`top_groups`): in each setting (a table of per-claim scores, one column per method), the
  method with the best mean and every method a paired test cannot separate from it, with Holm's correction
  over every comparison made at once (the family is what the caller passes: a notebook passes all its
  settings together). "Best" then names a group, and ties are reported as ties. The default test is the
  paired t-test (`lib.evaluation.significance.paired_t`): Holm over a hundred comparisons needs p-values
  below 0.0005, which a resampling test with 2,000 resamples cannot return.
- **Effects per case** (`paired_effects`): the mean per-claim difference of each case with its bootstrap
  interval and what the interval says about its sign, so that a count of cases comes with intervals; an
  interval that excludes 0 by less than its figure's cross-CPU tolerance is *borderline*, not a finding.
- **Calls under another measure** (`surviving_calls`): whether a significant difference under one measure is
  the same significant difference under others (e.g. the coverage-robust measures of `lib.evaluation.coverage`).
- **Spreads over groups of claims** (`spread_growth`): the best-minus-worst spread of method means grows in
  small groups with no real difference between methods, so spreads of groups of different sizes are compared
  against a permutation reference (the groups' labels shuffled over the claims, sizes kept).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from lib.evaluation import significance as SIG
from lib.evaluation.printing import TIE_TOLERANCE as TIE_TOLERANCE
from lib.evaluation.printing import apart as apart
from lib.evaluation.printing import end_text as end_text
from lib.evaluation.printing import p_text, unsigned_zero
from lib.evaluation.printing import printed as printed

ALPHA = 0.05


@dataclass(frozen=True)
class TopGroup:
    """One setting's methods by mean (best first) and the Holm-adjusted p of each against the best."""

    setting: str
    means: dict[str, float]
    p: dict[str, float]
    claims: int
    alpha: float = ALPHA

    @property
    def best(self) -> str:
        return next(iter(self.means))

    @property
    def tied(self) -> list[str]:
        """The best and every method not separated from it (adjusted p >= alpha, or no p at all: a test that
        could not run, one claim or fewer than `significance.MIN_CLUSTERS` for the bootstrap, separates
        nothing; its NaN read as "separated" made a one-claim best "ahead of every other"), best first."""
        return [m for m in self.means if m == self.best or not self.p[m] < self.alpha]


def _by_mean(table: pd.DataFrame) -> list[str]:
    means = table.mean()
    return sorted(map(str, table.columns), key=lambda m: (-means[m], m))


PairedTest = Callable[[Sequence[float], Sequence[float]], float]  # (a, b) -> two-sided p


def best_vs_rest(tables: Mapping[str, pd.DataFrame], test: PairedTest = SIG.paired_t) -> dict[tuple, float]:
    """{(setting, method): raw p} of each setting's best mean against each other method of the setting
    (tables as in `top_groups`)."""
    return _best_vs_rest(_prepared(tables), test)


def _best_vs_rest(prepared: Mapping[str, tuple[pd.DataFrame, list[str]]], test: PairedTest) -> dict[tuple, float]:
    return {
        (setting, m): float(test(table[order[0]], table[m]))
        for setting, (table, order) in prepared.items()
        for m in order[1:]
    }


def holm_map(pvalues: Mapping[Any, float]) -> dict[Any, float]:
    """Holm-adjusted p-values of a family given as {test: p} (`lib.evaluation.significance.holm`)."""
    keys = list(pvalues)
    return dict(zip(keys, (float(v) for v in SIG.holm([pvalues[k] for k in keys])))) if keys else {}


def _prepared(tables: Mapping[str, pd.DataFrame]) -> dict[str, tuple[pd.DataFrame, list[str]]]:
    if not tables:
        raise ValueError("top_groups: no setting to compare")
    out = {}
    for setting, table in tables.items():
        table = table.dropna()
        if table.shape[1] == 0 or table.empty:
            raise ValueError(f"top_groups: setting {setting!r} has no method or no claim with every score")
        table.columns = table.columns.map(str)
        out[setting] = (table, _by_mean(table))
    return out


def top_groups(
    tables: Mapping[str, pd.DataFrame],
    test: PairedTest = SIG.paired_t,
    alpha: float = ALPHA,
    adjusted: Mapping[tuple, float] | None = None,
) -> dict[str, TopGroup]:
    """{setting: TopGroup} for tables of per-claim scores (rows: claims, columns: methods; claims with a
    missing score are dropped). Each setting's best mean is tested against each other method of the setting
    (`best_vs_rest` with `test`), and Holm adjusts all those p-values together; or pass `adjusted`, the Holm-adjusted
    p-values of a larger family that holds these tests (`holm_map`), e.g. every test of a notebook."""
    prepared = _prepared(tables)
    if adjusted is None:
        adjusted = holm_map(_best_vs_rest(prepared, test))
    return {
        setting: TopGroup(
            setting=str(setting),
            means={m: float(table[m].mean()) for m in order},
            p={m: float(adjusted[(setting, m)]) for m in order[1:]},
            claims=len(table),
            alpha=alpha,
        )
        for setting, (table, order) in prepared.items()
    }


def comparisons_made(groups: Mapping[str, TopGroup]) -> int:
    """How many tests Holm corrected for: each setting's best against each of its other methods."""
    return sum(len(g.means) - 1 for g in groups.values())


def and_list(items: Sequence[str], name: Callable[[str], str] = str) -> str:
    """ "A", "A and B", "A, B and C" (each item through `name`)."""
    items = [name(i) for i in items]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def top_sentence(group: TopGroup, name: Callable[[str], str] = str, fmt: str = ".3f") -> str:
    """The setting's best method as its test supports it: alone ahead, tied with some, or with none
    separated from it."""
    best = f"{name(group.best)} ({unsigned_zero(format(group.means[group.best], fmt), fmt)})"
    others = group.tied[1:]
    if len(group.means) == 1:
        return f"{best}, the only method"
    if not others:
        return f"{best}, ahead of every other"
    if len(group.tied) == len(group.means):
        others = len(group.means) - 1
        return f"{best}, but " + (
            "the other is not separable from it" if others == 1 else f"none of the {others} others is separable from it"
        )
    return f"{best}, tied with {and_list(others, name)}"


def highest(values: pd.Series, fmt: str | None = None) -> list[str]:
    """The names (index) sharing the highest value, in row order, NaN skipped; [] when no value is defined.
    A tie is named whole: `idxmax` names the first of the tied rows as if it led alone. With `fmt`, values
    compare as that format prints them: 0.3004 and 0.3001 at ".3f" are a tie at 0.300. Without, values equal
    but for floating-point noise tie (`TIE_TOLERANCE`: two means of the same recalls summed in another order
    are 0.20000000000000004 and 0.19999999999999998)."""
    values = pd.to_numeric(values, errors="coerce").dropna()
    if fmt is not None:
        values = values.map(lambda v: printed(v, fmt))
    if values.empty:
        return []
    top = values.max()
    return [str(n) for n, v in values.items() if v == top or math.isclose(v, top, rel_tol=TIE_TOLERANCE)]


def leader_phrase(values: pd.Series, fmt: str = ".3f", name: Callable[[str], str] = str) -> str | None:
    """ "X (v)" for one leader, "X and Y (tied at v)" for a tie, compared as printed; None when no value is
    defined."""
    top = highest(values, fmt)
    if not top:
        return None
    value = pd.to_numeric(values, errors="coerce").max()
    return f"{and_list(top, name)} ({'tied at ' if len(top) > 1 else ''}{unsigned_zero(format(value, fmt), fmt)})"


MIN_RANKED = 3  # a rank correlation of two items is +1 or -1 whatever they are


def rho_text(rho: float, n: int, fmt: str = ".2f") -> str:
    """A rank correlation over `n` items as a sentence may print it: the number, or "undefined" where it is
    NaN (a constant side) or rests on fewer than `MIN_RANKED` items (always +1 or -1)."""
    if n < MIN_RANKED or rho != rho:
        return f"undefined ({n} items)" if n < MIN_RANKED else "undefined (one side is constant)"
    return unsigned_zero(f"{rho:{fmt}}", fmt)  # never "-0.00" for a correlation that is 0 but for noise


def same_top_group(groups: Mapping[str, TopGroup]) -> bool:
    """Whether one setting's top group (the tied methods) is the same under every measure (the keys)."""
    if not groups:
        raise ValueError("same_top_group: no measure")
    return len({frozenset(g.tied) for g in groups.values()}) == 1


def measures_sentence(groups: Mapping[str, TopGroup], name: Callable[[str], str] = str, what: str = "measure") -> str:
    """One setting under several measures, or judgement variants (keys; `what` names them): the top group,
    or, where it changes, each key's group and the word *judgement-dependent*."""
    if same_top_group(groups):
        g = next(iter(groups.values()))
        return f"{and_list(g.tied, name)} under every {what} ({', '.join(map(str, groups))})"
    return "judgement-dependent: " + "; ".join(f"{m}: {and_list(g.tied, name)}" for m, g in groups.items())


BORDERLINE = "borderline"  # an interval that excludes 0 by less than the cross-CPU tolerance of its figure


def paired_effects(
    diffs: Mapping[Any, Sequence[float]],
    n_resamples: int = 2000,
    seed: int = 0,
    tolerance: float | Callable[[Any], float] = 0.0,
) -> pd.DataFrame:
    """One row per case of per-claim differences: mean Δ, the 95% bootstrap interval (low, high), claims,
    and `effect` (`lib.evaluation.significance.sign_of`: positive, negative or indistinguishable from 0).
    An interval whose end nearest 0 lies within `tolerance` of it (a number, or one per case: how far the
    figure may move on another CPU, `lib.reproduction.tolerance`) is `borderline`: its sign may not
    reproduce elsewhere, so it is not stated as a finding."""
    rows = []
    for case, d in diffs.items():
        d = np.asarray(d, dtype=float)
        d = d[~np.isnan(d)]
        mean, low, high = SIG.bootstrap_ci(d, n_resamples, seed=seed)
        rows.append({"case": case, "mean Δ": mean, "low": low, "high": high, "claims": len(d)})
    out = pd.DataFrame(rows, columns=["case", "mean Δ", "low", "high", "claims"]).set_index("case")
    tol = tolerance if callable(tolerance) else (lambda _case: float(tolerance))
    effects = []
    for case, lo, hi, claims in zip(out.index, out["low"], out["high"], out["claims"]):
        sign = "no claims" if not claims else "too few claims" if np.isnan(lo) else SIG.sign_of(lo, hi)
        near = min(abs(lo), abs(hi)) if sign in ("positive", "negative") else np.inf
        effects.append(BORDERLINE if near <= tol(case) else sign)
    out["effect"] = effects
    if len(out) and all(isinstance(c, tuple) for c in out.index):  # tuple cases: one index level each
        out.index = pd.MultiIndex.from_tuples(out.index)
    return out


def effect_counts(effects: pd.DataFrame) -> dict[str, int]:
    """How many cases of a `paired_effects` table are positive, negative, indistinguishable from 0 and
    borderline."""
    return {
        e: int((effects["effect"] == e).sum()) for e in ("positive", "negative", "indistinguishable from 0", BORDERLINE)
    }


def borderline_sentence(effects: Mapping[str, pd.DataFrame], name: Callable[[Any], str] = str) -> str:
    """The borderline cases of a notebook's `paired_effects` tables ({what: table}), named, or that there are
    none: they are counted neither as positive nor as negative anywhere."""
    cases = [f"{what} {name(case)}" for what, t in effects.items() for case in t.index[t["effect"] == BORDERLINE]]
    if not cases:
        return "No interval ends within the cross-CPU tolerance of 0 (references/reproduction.yaml)."
    return (
        f"{len(cases)} interval(s) exclude 0 by less than their figure may move on another CPU "
        f"(references/reproduction.yaml), so they are counted as no finding: {'; '.join(cases)}."
    )


def surviving_calls(calls: Mapping[str, Mapping[str, tuple[float, bool]]], primary: str) -> dict[str, bool]:
    """{method: survives} for each significant call under the `primary` measure: whether every other
    measure of `calls` ({measure: {method: (Δ mean, significant)}}) also calls it significant, same sign."""
    if primary not in calls:
        raise ValueError(f"surviving_calls: no calls under the primary measure {primary!r}")
    out = {}
    for method, (delta, significant) in calls[primary].items():
        if not significant:
            continue
        lacking = [measure for measure, other in calls.items() if method not in other]
        if lacking:
            raise ValueError(f"surviving_calls: the measures {lacking} have no call for {method!r}")
        out[method] = all(
            other[method][1] and np.sign(other[method][0]) == np.sign(delta)
            for measure, other in calls.items()
            if measure != primary
        )
    return out


def spread_growth(
    scores: pd.DataFrame,
    groups: Mapping[str, str],
    order: Sequence[str],
    n_permutations: int = 2000,
    seed: int = 0,
) -> tuple[pd.DataFrame, float]:
    """Does the best-minus-worst spread of method means grow from the first group of claims to the last?

    `scores`: rows = claims (index: claim id), columns = (setting, method) pairs; `groups`: claim id ->
    group label, `order`: the labels from first to last (empty groups are left out). The spread of a group
    is max - min of the methods' means over its claims, averaged over settings. Returns a table per group
    (claims, observed spread, its mean under permutation: what groups of that size give when the labels
    carry no information) and the one-sided permutation p of (last - first) being as large as observed."""
    if not isinstance(scores.columns, pd.MultiIndex) or scores.columns.nlevels != 2:
        raise ValueError("spread_growth: columns must be (setting, method) pairs")
    # grouped by setting, each with the same methods: the reshape below assumed it (interleaved columns gave a
    # spread of 4.49 for one of 0.50)
    scores = scores.dropna().sort_index(axis=1, level=0, sort_remaining=True)
    methods = {s: tuple(scores[s].columns) for s in scores.columns.get_level_values(0).unique()}
    if len(set(methods.values())) != 1:
        raise ValueError(f"spread_growth: every setting needs the same methods, got {methods}")
    if missing := [q for q in scores.index if q not in groups]:  # a KeyError of the first (ids of another type?)
        kinds = sorted({type(g).__name__ for g in groups}) or ["none"]
        raise ValueError(
            f"spread_growth: {len(missing)} claims have no group, e.g. {missing[0]!r} ({type(missing[0]).__name__}; "
            f"the groups' ids are {', '.join(kinds)})"
        )
    labels = np.array([groups[q] for q in scores.index], dtype=object)
    present = [g for g in order if (labels == g).any()]
    if len(present) < 2:
        raise ValueError(f"spread_growth: needs claims in at least two groups, got {present}")
    settings = list(dict.fromkeys(scores.columns.get_level_values(0)))
    x = scores.to_numpy(dtype=float)  # claims x (setting, method)
    n_methods = x.shape[1] // len(settings)

    def spreads(lab: np.ndarray) -> np.ndarray:
        onehot = np.stack([(lab == g) for g in present]).astype(float)
        means = (onehot / onehot.sum(axis=1, keepdims=True)) @ x  # groups x (setting, method)
        means = means.reshape(len(present), len(settings), n_methods)
        return (means.max(axis=2) - means.min(axis=2)).mean(axis=1)

    observed = spreads(labels)
    rng = np.random.default_rng(seed)
    null = np.stack([spreads(rng.permutation(labels)) for _ in range(n_permutations)])
    growth, null_growth = observed[-1] - observed[0], null[:, -1] - null[:, 0]
    p = float((np.sum(null_growth >= growth - 1e-15) + 1) / (n_permutations + 1))
    table = pd.DataFrame(
        {
            "claims": [int((labels == g).sum()) for g in present],
            "spread": observed,
            "spread under permutation": null.mean(axis=0),
        },
        index=pd.Index(present, name="group"),
    )
    return table, p


def spread_sentence(table: pd.DataFrame, p: float, what: str, alpha: float = ALPHA) -> str:
    """The finding `spread_growth` supports: the spread grows beyond what group sizes alone give, or not."""
    first, last = table.index[0], table.index[-1]
    head = (
        f"The best-minus-worst spread of {what} is {table.loc[first, 'spread']:.3f} for group {first} "
        f"({table.loc[first, 'claims']} claims) and {table.loc[last, 'spread']:.3f} for group {last} "
        f"({table.loc[last, 'claims']} claims); groups of those sizes drawn at random give "
        f"{table.loc[first, 'spread under permutation']:.3f} and {table.loc[last, 'spread under permutation']:.3f} "
        f"(permutation p = {p_text(p, alpha)})"
    )
    grows = printed(table.loc[last, "spread"], ".3f") > printed(table.loc[first, "spread"], ".3f")  # as shown
    if p < alpha and grows:
        return head + ": the spread grows more than the group sizes explain."
    if p < alpha:  # the test is of the change against random groups': a smaller shrink than theirs is beyond them
        return (
            head + ": the spread does not grow as printed, but random groups of those sizes shrink it more, so the "
            "last group's spread is wider than its size explains."
        )
    return head + ": no evidence that it grows beyond what the group sizes explain."


def effects_agree(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Whether two `paired_effects` tables (e.g. one measure and its coverage-robust variant) call every
    case the same: positive, negative or indistinguishable from 0."""
    if set(a.index) != set(b.index):
        raise ValueError("effects_agree: the two tables hold different cases")
    return bool((a["effect"] == b.loc[a.index, "effect"]).all())


def always_top(groups: Mapping[Any, TopGroup]) -> list[str]:
    """The methods in every group's top group (e.g. every setting under every measure), best first in the
    first group: the part of a "best" finding that no setting or measure changes."""
    if not groups:
        raise ValueError("always_top: no group")
    common = set.intersection(*(set(g.tied) for g in groups.values()))
    return [m for m in next(iter(groups.values())).means if m in common]


def per_claim_tables(
    frame: pd.DataFrame, by: str | Sequence[str], method: str, measures: Sequence[str], claim: str = "qid"
) -> dict[tuple, pd.DataFrame]:
    """{(group..., measure): per-claim scores, rows claims and columns methods} from a long table with one
    row per group, method and claim (e.g. `lib.retrieval.runs.evaluate_grid(..., per_query=True)`): the
    input `top_groups` takes."""
    by = [by] if isinstance(by, str) else list(by)
    return {
        (*(key if isinstance(key, tuple) else (key,)), m): g.pivot_table(index=claim, columns=method, values=m)
        for key, g in frame.groupby(by if len(by) > 1 else by[0], sort=False)
        for m in measures
    }
