"""The AVeriTeC score of each run within groups of claims, as the shared-task overview breaks its leaderboard
down (its Table 5: by claim type and by gold verdict). A claim with several types counts in each of them."""

from __future__ import annotations

import pandas as pd


def averitec_by(scores: pd.DataFrame, column: str, level: float = 0.25) -> dict[str, dict[str, float]]:
    """{run: {group: AVeriTeC@level over the run's claims in that group}} from per-claim scores (columns run,
    qa, correct and `column`, a value or a list of values per claim), rounded to 4 places. A claim counts when
    its Q+A score is above `level` and its verdict is right."""
    missing = {"run", "qa", "correct", column} - set(scores.columns)
    if missing:
        raise KeyError(f"per-claim scores lack the columns {sorted(missing)}")
    t = scores.assign(counts=(scores["qa"] > level) & scores["correct"].astype(bool)).explode(column)
    t = t.dropna(subset=[column])
    out: dict[str, dict[str, float]] = {}
    for (run, group), g in t.groupby(["run", column], sort=True):
        out.setdefault(str(run), {})[str(group)] = round(float(g["counts"].mean()), 4)
    return out
