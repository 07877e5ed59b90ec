"""The evidence and AVeriTeC scores of each run within groups of claims, as the shared-task overview breaks its
leaderboard down: its Table 4 (Q+A by the medium of the gold evidence and by the number of gold QA pairs) and
Table 5 (AVeriTeC score by claim type and by gold verdict). A claim in several groups counts in each of them."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from lib.cli import NamedError
from lib.data import averitec

# The overview's Table 4 columns and the dev split's `source_medium` values they stand for ("Audio" has none
# in dev; an empty medium belongs to no column).
MEDIA: dict[str, str] = {
    "Web text": "Text",
    "PDF": "PDF",
    "Web table": "Table",
    "Metadata": "Metadata",
    "Audio": "Audio",
    "Video": "Video",
    "Image/graphic": "Image",
    "Other": "Other",
}
PAIR_GROUPS: tuple[str, ...] = ("1", "2", "3+")  # Table 4: claims with 1, 2, 3 or more gold QA pairs


def gold_groups(claims: Sequence[averitec.Claim]) -> pd.DataFrame:
    """Per claim (column claim_id): `medium`, the Table 4 media of its gold answers (a sorted list, each once),
    and `gold_pairs`, its number of gold QA pairs as a Table 4 group ("1", "2", "3+")."""
    rows = []
    for c in claims:
        media = {_medium(a.source_medium, c.claim_id) for q in c.questions for a in q.answers}
        media.discard(None)
        n = len(c.questions)
        rows.append(
            {"claim_id": c.claim_id, "medium": sorted(media), "gold_pairs": PAIR_GROUPS[min(n, 3) - 1] if n else None}
        )
    return pd.DataFrame(rows, columns=["claim_id", "medium", "gold_pairs"])


_MEDIA_FOLDED = {" ".join(k.split()).casefold(): v for k, v in MEDIA.items()}


def _medium(source_medium: str | None, claim_id: object) -> str | None:
    """The Table 4 column of a gold answer's `source_medium`, matched ignoring case and spacing; None for an
    empty medium. Another spelling is named: a dropped answer would move its claim out of a column unseen."""
    if source_medium is None or not source_medium.strip():
        return None
    medium = _MEDIA_FOLDED.get(" ".join(source_medium.split()).casefold())
    if medium is None:
        raise NamedError(
            f"claim {claim_id}: a gold answer's source_medium {source_medium[:80]!r} is none of the overview's "
            f"Table 4 media {sorted(MEDIA)}"
        )
    return medium


def _mean_by(scores: pd.DataFrame, column: str, value: str) -> dict[str, dict[str, float]]:
    """{run: {group: mean of `value` over the run's claims in that group}}, rounded to 4 places."""
    t = scores.explode(column).dropna(subset=[column])
    out: dict[str, dict[str, float]] = {}
    for (run, group), g in t.groupby(["run", column], sort=True):
        out.setdefault(str(run), {})[str(group)] = round(float(g[value].mean()), 4)
    return out


def _require(scores: pd.DataFrame, columns: set[str]) -> None:
    missing = columns - set(scores.columns)
    if missing:
        raise KeyError(f"per-claim scores lack the columns {sorted(missing)}")


def averitec_by(scores: pd.DataFrame, column: str, level: float = 0.25) -> dict[str, dict[str, float]]:
    """{run: {group: AVeriTeC@level over the run's claims in that group}} from per-claim scores (columns run,
    qa, correct and `column`, a value or a list of values per claim), rounded to 4 places. A claim counts when
    its Q+A score is above `level` and its verdict is right."""
    _require(scores, {"run", "qa", "correct", column})
    # a missing verdict is not right (`astype(bool)` read NaN as True), as `scoring.summarise` counts it
    return _mean_by(scores.assign(counts=(scores["qa"] > level) & scores["correct"].eq(True)), column, "counts")


def qa_by(scores: pd.DataFrame, column: str) -> dict[str, dict[str, float]]:
    """{run: {group: mean Q+A score over the run's claims in that group}} (the overview's Table 4 measure, which
    its text calls retrieval performance), rounded to 4 places."""
    _require(scores, {"run", "qa", column})
    return _mean_by(scores, column, "qa")
