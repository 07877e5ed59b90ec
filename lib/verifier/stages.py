"""What the verifier's training stages share (`lib.verifier.averitec`, `lib.verifier.quantemp`): the settings'
names, seeded stratified splits, training every variant for every seed, and prediction rows.

Each training stage writes `predictions.parquet` (one row per setting, k, seed and claim, with class
probabilities), every seed's models under `models/`, and `report.json` (training curves,
examples/second, timings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib import models as MD
from lib.paths import OUTPUTS_DIR
from lib.verifier import nli as N

NLI_DIR = OUTPUTS_DIR / "nli"
# Verifier settings: references, and `planner:<name>` for a planner's top-k retrieved documents
# (display names in `lib.site.display.SETTING_NAMES`).
NAIVE, CLAIM_ONLY, GOLD, SNIPPETS = "naive", "claim_only_no_evidence", "gold", "bm25_snippets"
PLANNER = "planner:"


def stratified_split(labels: Sequence[str], test_fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """Seeded stratified (train, test) index lists, each sorted."""
    from sklearn.model_selection import train_test_split

    if not 0 < test_fraction < 1:
        raise ValueError(f"test fraction must be in (0, 1), got {test_fraction}")
    idx = np.arange(len(labels))
    a, b = train_test_split(idx, test_size=test_fraction, random_state=seed, stratify=list(labels))
    return sorted(a.tolist()), sorted(b.tolist())


def prediction_rows(
    setting: str,
    kind: str,
    k: int | None,
    seed: int,
    exs: Sequence[N.Example],
    probs: np.ndarray,
    labels: Sequence[str],
) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "setting": setting,
            "kind": kind,
            "k": -1 if k is None else k,
            "seed": seed,
            "uid": [e.uid for e in exs],
            "label": [e.label for e in exs],
            "pred": [labels[i] for i in probs.argmax(1)],
            "n_evidence": [len(e.evidence) for e in exs],
        }
    )
    for i, lb in enumerate(labels):
        frame[f"p:{lb}"] = probs[:, i]
    return frame


def naive_probabilities(exs: Sequence[N.Example], label: str, labels: Sequence[str]) -> np.ndarray:
    probs = np.zeros((len(exs), len(labels)))
    probs[:, list(labels).index(label)] = 1.0
    return probs


def model_dir(out_dir: Path | str, name: str, seed: int, seeds: Sequence[int]) -> Path:
    """Where a trained variant is saved: `models/<name>` for the first seed, `models/<name>-seed<k>` after."""
    return Path(out_dir) / "models" / (name if seed == seeds[0] else f"{name}-seed{seed}")


def ensure_verifier(params: Path | str, nli_dir: Path | str = NLI_DIR / "averitec") -> None:
    """Train the AVeriTeC verifier as stage `nli_averitec` does where `nli_dir/models` holds no weights for
    its `report.json` (a fresh clone: the stage commits its predictions and report, not its weights)."""
    nli_dir = Path(nli_dir)
    MD.ensure_weights(
        nli_dir / "models", nli_dir / "report.json", ["-m", "lib.verifier.averitec", "--params", str(params)]
    )


def train_models(
    variants: Mapping[str, tuple[list[N.Example], list[N.Example]]],
    labels: Sequence[str],
    s: N.NLISettings,
    seeds: Sequence[int],
    models_dir: Path,
) -> dict[tuple[str, int], tuple[Any, Any, dict]]:
    """Train every variant for every seed; each is saved (see `model_dir`)."""
    out = {}
    for seed in seeds:
        for name, (fit, val) in variants.items():
            print(f"[{name}, seed {seed}] {len(fit)} training and {len(val)} validation examples")
            out[(name, seed)] = N.train(
                fit,
                val,
                labels,
                s.model_copy(update={"seed": seed}),
                model_dir(models_dir.parent, name, seed, seeds),
                measure_as=f"{name}/seed{seed}",  # the report's key (`training`), in the stage's timing file
            )
    return out
