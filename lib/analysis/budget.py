"""The compute budget: seconds per claim of every planner, by kind of work, on the hardware that ran it.

FEVER-8 (2025) bounded a system's cost: open-weight models, one 23 GB GPU, at most 60 s per claim on
average. This study's stages record each planner's share of their work in their timing files
(`lib.timing.cost`): *planning* (writing the queries), *retrieval* (scoring and fusing them), *verification*
(the classifier on the retrieved evidence). Those files are measurements of one machine, not DVC outputs:
they are absent where outputs came from DVC's cache, and a rerun elsewhere writes other numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from lib import timing as TM
from lib.evaluation.comparisons import and_list, apart, highest
from lib.evaluation.printing import noise_equal

KINDS = TM.KINDS
FEVER8_SECONDS_PER_CLAIM = 60.0  # FEVER-8's limit, on one 23 GB GPU
COLUMNS = ["stage", "planner", "kind", "part", "seconds", "claims", "seconds_per_claim", "device", "how"]


def describe_hardware(hw: Mapping[str, Any] | None, device: str | None = "cpu") -> str:
    """'Intel Xeon ... (2 cores, 22.9 GiB)', with the GPU in front when the work ran on one."""
    if not hw:
        return "unknown machine"
    text = f"{hw.get('cpu')} ({hw.get('cores')} cores, {hw.get('memory_gib')} GiB)"
    return text if device in ("cpu", "", None) else f"{device} on {text}"


def planner_costs(timings_dir: Path | str = TM.TIMINGS_DIR) -> pd.DataFrame:
    """Every timing file's per-planner costs, one row each, with the stage, when it finished and where.

    Empty (with the columns) when no stage recorded any."""
    rows = [
        {"stage": stage, **c, "finished": t["finished"], "hardware": describe_hardware(t.get("hardware"), c["device"])}
        for stage, t in TM.read(timings_dir).items()
        for c in t.get("per_claim", [])
    ]
    return pd.DataFrame(rows, columns=[*COLUMNS, "finished", "hardware"])


def per_planner(costs: pd.DataFrame, planners: Sequence[str], retrieval_part: str) -> pd.DataFrame:
    """Seconds per claim of each planner: planning, retrieval (the configuration `retrieval_part`, e.g.
    `bm25/claim/combmax_norm`), verification (the mean over the classifier's seeds), their total, and
    which kinds no stage recorded (`missing`). Where two stages recorded the same work (the baselines'
    retrieval in `retrieve` and `generative_runs`), the later one counts."""
    want = costs[(costs["kind"] != "retrieval") | (costs["part"] == retrieval_part)]
    want = want[want["planner"].isin(planners)].sort_values("finished")
    latest = want.groupby(["planner", "kind"])["finished"].transform("max")
    want = want[want["finished"] == latest]
    table = want.pivot_table(index="planner", columns="kind", values="seconds_per_claim", aggfunc="mean")
    table = table.reindex(index=list(planners), columns=list(KINDS))
    table["total"] = table[list(KINDS)].sum(axis=1, min_count=1)
    table["missing"] = [", ".join(k for k in KINDS if pd.isna(table.loc[p, k])) for p in table.index]
    hardware = want.groupby("planner")["hardware"].agg(lambda h: "; ".join(dict.fromkeys(h)))
    table["hardware"] = hardware.reindex(table.index).fillna("")
    return table


def within_budget(table: pd.DataFrame, limit: float = FEVER8_SECONDS_PER_CLAIM) -> str:
    """A sentence on which planners (`per_planner`'s rows, by index) stay within `limit` seconds per claim;
    planners with a kind of work unrecorded are named apart, not counted."""
    complete = table[table["missing"] == ""]["total"].dropna()
    partial = [str(p) for p in table.index if table.loc[p, "missing"] != ""]
    tail = f" Not counted, some work unrecorded: {', '.join(partial)}." if partial else ""
    if complete.empty:
        return (
            "No planner's planning, retrieval and verification were all recorded here, so nothing can be said about the budget."
            + tail
        )
    # over the limit, not by floating-point noise (20 + 20 + 20.000000000000004 s printed "60 s" beside "over it")
    over = complete[(complete > limit) & ~complete.map(lambda v: noise_equal(v, limit))]
    head = f"{len(complete) - len(over)} of {len(complete)} planners stay within {limit:g} s per claim"
    if over.empty:
        shown = complete.map(lambda v: float(_seconds(v, limit).replace(",", "")))
        top = highest(shown)  # as printed; idxmax named the first of tied planners alone
        who = f"the costliest, {top[0]}, takes" if len(top) == 1 else f"the costliest, {and_list(top)}, each take"
        return f"{head}; {who} {_seconds(complete.max(), limit)} s.{tail}"
    return (
        f"{head}; over it: "
        + ", ".join(f"{p} ({_seconds(s, limit)} s)" for p, s in over.sort_values().items())
        + "."
        + tail
    )


def _seconds(value: float, limit: float) -> str:
    """Seconds as a sentence prints them: 3 significant digits, whole seconds with thousands separators from
    100 s on ("1.23e+03" was printed), and the decimals that show which side of `limit` they lie on (60.04 s
    over a 60 s budget was printed "60 s")."""
    return apart(value, ",.0f" if value >= 100 else ".3g", limit)
