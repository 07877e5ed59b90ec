"""The verifier's sweeps: learning rate and epochs (`make sweep-verifier` -> `sweeps/verifier.json`) and the
training protocol (`make sweep-protocol` -> `sweeps/protocol.json`).

Each configuration trains the gold-evidence classifier of stage `nli_averitec` (same train claims, same
validation split, params `nli_averitec` with the swept keys replaced) and records its validation curve,
its calibration, and, for reading only, its dev macro-F1 on the gold evidence and on some planners'
retrieved top-k (the stage's retrieval setting). The default is picked on the validation split alone
(`pick`); notebook 07 shows the curves and checks that params.yaml holds the pick (`matches_pick`).

The sweep is too slow for the pipeline (one configuration is a full training, 5-10 min on 2 CPU cores),
so its result is committed, and each configuration is written as soon as it finishes: a killed sweep
keeps what it finished, and a rerun skips those configurations.

    python -m lib.verifier.sweep --learning-rates 2e-5 5e-5 1e-4 2e-4 --epochs 2 3
    python -m lib.verifier.sweep --at-pick --training-evidence mixed
    python -m lib.verifier.sweep --at-pick --seeds 1 2

The protocol sweep trains, at the picked learning rate and epochs, the thesis' protocol (`retrieved`: the
train claims' BM25 top-k from the open collection, their own gold answers left out) beside this study's
(`gold`), over seeds, and the retrieved protocol once more at each k of the k ablation (the thesis retrained
per k). Every run is also scored on the validation claims' retrieved evidence, the condition the verifier
is used in: `pick_protocol` chooses on that score alone.

    python -m lib.verifier.sweep --out sweeps/protocol.json --pick-from sweeps/verifier.json \
        --training-evidence gold retrieved --seeds 0 1 2 --ablation-ks 1 5 10
    python -m lib.verifier.sweep --out sweeps/protocol.json --pick-from sweeps/verifier.json \
        --training-evidence retrieved --ks 1 5 10
"""

from __future__ import annotations

import argparse
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib import outputs as OUT
from lib import timing as TM
from lib.cli import (
    ArgumentParser,
    NamedError,
    file_path,
    finite_real,
    first_line,
    nonempty_path,
    not_a_file,
    run_main,
    shown,
)
from lib.data import labels as LB
from lib.evaluation.printing import noise_equal, printed
from lib.params import PosInt, Seed, flag, flag_of, section
from lib.paths import DATA_DIR, PARAMS_FILE, ROOT, STORE_DIR
from lib.retrieval.bm25 import BM25Params
from lib.store.build import load_store
from lib.training import MAX_EPOCHS
from lib.verifier import nli as N
from lib.verifier import veracity as V
from lib.verifier.averitec import TRAINING_EVIDENCE, claims_of, examples, gold_evidence, training_evidence
from lib.verifier.retrieved_training import retrieved_evidence

SWEEP_FILE = ROOT / "sweeps" / "verifier.json"
SWEPT = ("learning_rate", "epochs", "training_evidence", "seed")
VALIDATION_RETRIEVED = "validation_retrieved"  # a run's macro-F1 on the validation claims' retrieved evidence


def config_id(c: Mapping[str, Any]) -> str:
    """A configuration's key in the sweep file, e.g. `lr=0.0001,epochs=2,evidence=gold,seed=0` (`,k=5` when the
    run records its k)."""
    key = f"lr={rate_text(c['learning_rate'])},epochs={c['epochs']},evidence={c['training_evidence']},seed={c['seed']}"
    return key + (f",k={c['k']}" if "k" in c else "")


def _run_key(c: Mapping[str, Any], file_k: Any) -> tuple:
    """A configuration as the sweep file holds it once: its k is the file's where it records none."""
    k = c.get("k", file_k)
    return (rate_text(c["learning_rate"]), int(c["epochs"]), c["training_evidence"], int(c["seed"]), k and int(k))


def read_sweep(path: Path | str = SWEEP_FILE) -> dict[str, Any]:
    """The sweep file, or an empty sweep when there is none; a file without `runs` is refused by name."""
    path = Path(path)
    if not path.exists():
        return {"runs": []}
    if not path.is_file():  # a pipe waited for a writer (`--out` with `--at-pick` hung before any training)
        raise ValueError(f"{path}: {not_a_file('a sweep file (JSON, written by lib.verifier.sweep)')}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError, RecursionError) as err:  # a JSON error is a ValueError: named, no traceback
        raise ValueError(f"{path}: not a sweep file ({type(err).__name__}: {first_line(str(err), 120)})") from None
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        raise ValueError(f"{path}: expected an object with a `runs` list (a file written by lib.verifier.sweep)")
    if data.get("k") is not None and not _whole(data["k"], 1):
        raise ValueError(f"{path}: k = {shown(data['k'], 40)}; expected a whole number of at least 1")  # true read as 1
    for i, run in enumerate(data["runs"]):
        if not isinstance(run, dict):
            raise ValueError(f"{path}: run {i}: expected an object, got {shown(run, 40)}")
        missing = [k for k in (*SWEPT, "best", "curve", "dev") if k not in run]
        if missing:
            raise ValueError(f"{path}: run {i} lacks {missing}")
        # the values `pick` reads, checked here (a learning rate "2e-5" or `best: null` was a traceback, and a NaN
        # validation macro-F1 was picked or not by the order of the runs)
        # epochs 2.5 trained 2 epochs (`int`), a learning rate of -1 was refused only after the store had loaded
        for key, ok, expected in (
            ("learning_rate", lambda v: finite_real(v) and v > 0, "a number above 0"),
            ("epochs", lambda v: _whole(v, 1) and v <= MAX_EPOCHS, f"a whole number from 1 to {MAX_EPOCHS}"),
            ("seed", lambda v: _whole(v, 0), "a whole number of at least 0"),
            ("k", lambda v: _whole(v, 1), "a whole number of at least 1"),
        ):
            if (key in run or key != "k") and not ok(run[key]):  # a run's own k is optional
                raise ValueError(f"{path}: run {i}: {key} = {shown(run[key], 40)}; expected {expected}")
        run["epochs"], run["seed"] = int(run["epochs"]), int(run["seed"])  # 2.0 named its configuration "epochs=2.0"
        if "k" in run:  # k 5.0 named the configuration "k=5.0" beside a k of 5
            run["k"] = int(run["k"])
        if not isinstance(run["curve"], list) or not all(isinstance(pt, dict) for pt in run["curve"]):
            raise ValueError(f"{path}: run {i}: curve = {shown(run['curve'], 40)}; expected a list of points (objects)")
        if (
            j := next(
                (j for j, pt in enumerate(run["curve"]) if not all(k in pt for k in ("step", "epoch", "loss"))), None
            )
        ) is not None:
            raise ValueError(
                f"{path}: run {i}: curve[{j}] = {shown(run['curve'][j], 60)}; a point needs step, epoch and loss"
            )
        dev = run["dev"]
        if not isinstance(dev, dict) or not all(
            isinstance(d, dict) and finite_real(d.get("macro_f1")) for d in dev.values()
        ):
            raise ValueError(
                f'{path}: run {i}: dev = {shown(dev, 60)}; expected {{<setting>: {{"macro_f1": <a finite number>, ...}}}}'
            )
        if run.get(VALIDATION_RETRIEVED) is not None and not finite_real(run[VALIDATION_RETRIEVED]):
            raise ValueError(
                f"{path}: run {i}: {VALIDATION_RETRIEVED} = {shown(run[VALIDATION_RETRIEVED], 40)}; expected a finite "
                "number or null"
            )
        best = run["best"]
        if not isinstance(best, dict) or not finite_real(best.get("macro_f1")):
            raise ValueError(
                f'{path}: run {i}: best = {shown(best, 60)}; expected {{"macro_f1": <a finite number>, ...}}'
            )
        if "step" not in best:
            raise ValueError(f"{path}: run {i}: best = {shown(best, 60)}; expected a step beside the macro-F1")
        if not isinstance(run["training_evidence"], str):
            raise ValueError(
                f"{path}: run {i}: training_evidence = {shown(run['training_evidence'], 40)}; expected a name"
            )
    _each_once(data, path)
    return data


def _each_once(data: Mapping[str, Any], path: Path) -> None:
    """Refuse a configuration recorded twice (two sweep files merged): its seed counted as two in the seed
    spread, and `pick` took whichever copy scored higher."""
    by_rest: dict[tuple, list[tuple[float, int]]] = {}
    for i, run in enumerate(data["runs"]):
        k = run["k"] if "k" in run else data.get("k")
        rest = (run["epochs"], run["training_evidence"], run["seed"], k and int(k))
        by_rest.setdefault(rest, []).append((float(run["learning_rate"]), i))
    # learning rates are one as `same_rate` reads them (a key printed at 12 figures kept 2e-05 and 2e-05 * (1 +
    # 1e-11) apart); sorted, any two that are one sit side by side
    for rates in by_rest.values():
        rates.sort()
        for (a, i), (b, j) in zip(rates, rates[1:]):
            if same_rate(a, b):
                first, second = sorted((i, j))
                raise ValueError(
                    f"{path}: runs {first} and {second} are one configuration ({config_id(data['runs'][second])}); "
                    "a sweep records each once"
                )


def _whole(value: Any, least: int) -> bool:
    """A whole number (an int, or a float such as 2.0) of at least `least`."""
    return finite_real(value) and float(value).is_integer() and value >= least


def _write(data: Mapping[str, Any], path: Path) -> None:
    """Atomic: the old file stays whole until the new one is complete."""
    OUT.write_json(path, data, indent=1)


def own_k(sweep: Mapping[str, Any]) -> dict[str, Any]:
    """The sweep with only the runs trained at its own k (a run stored without k was trained at it): the runs
    of its recipes. A run retrained at another k (`--ks 3 10`) is another experiment: read with these it was a
    second figure for the picked rate, a second line in the curves and a second row of the pick."""
    k = sweep.get("k")
    return dict(sweep) if k is None else {**sweep, "runs": [r for r in sweep["runs"] if r.get("k", k) == k]}


def pick(sweep: Mapping[str, Any], training_evidence: str = "gold") -> dict[str, Any]:
    """The configuration with the best validation macro-F1 among the first seed's runs with this training
    evidence at the sweep's k (ties: the lower learning rate, then fewer epochs). Dev numbers play no part; a
    run trained at another k (`--ks 3 10`) is no recipe for this k."""
    k = sweep.get("k")
    runs = [r for r in own_k(sweep)["runs"] if r["training_evidence"] == training_evidence]
    if not runs:
        at = f" at its k = {k}" if k is not None else ""
        raise ValueError(f"the sweep has no run with training evidence {training_evidence!r}{at}")
    first_seed = min(r["seed"] for r in runs)
    runs = [r for r in runs if r["seed"] == first_seed]
    # ties within floating-point noise, not by rounding buckets (0.4999996 and 0.5000004 were tied at 0.5, and
    # the lower score picked, while 0.5000004 and 0.5000006 were not)
    top = max(r["best"]["macro_f1"] for r in runs)
    tied = [r for r in runs if noise_equal(r["best"]["macro_f1"], top)]
    best = min(tied, key=lambda r: (r["learning_rate"], r["epochs"]))
    return {k: best[k] for k in SWEPT} | {"validation_macro_f1": best["best"]["macro_f1"]}


def matches_pick(sweep: Mapping[str, Any], nli_params: Mapping[str, Any]) -> bool:
    """Whether params `nli_averitec` train with the sweep's pick (learning rate and epochs)."""
    chosen = pick(sweep, "gold")
    c = N.NLISettings.model_validate(nli_params["classifier"])
    return bool(same_rate(c.learning_rate, chosen["learning_rate"])) and c.epochs == chosen["epochs"]


def rate_text(rate: float) -> str:
    """A learning rate as printed: short ("2e-05"), with the ten significant figures that keep apart any two
    rates `same_rate` tells apart (at `:g` 2e-05 and 2.0000001e-05 printed alike beside "params.yaml and the
    sweep disagree", and named one configuration)."""
    return f"{rate:.10g}"


def same_rate(a: Any, b: Any) -> Any:
    """Whether learning rates are one (element-wise): equal to 1e-9 relative, nothing absolute (`np.isclose`'s
    default 1e-8 made 5e-9 and 1e-8 one rate, and a difference under 1e-12 made 1e-13 and 5e-13 one)."""
    return np.isclose(a, b, rtol=1e-9, atol=0)


def runs_table(sweep: Mapping[str, Any]) -> pd.DataFrame:
    """One row per configuration: the swept keys, the best validation macro-F1 and where, the last
    training loss, the temperature, and each dev setting's macro-F1 (for reading, not for picking)."""
    rows = []
    for r in sweep["runs"]:
        row = {k: r[k] for k in SWEPT} | {"k": r.get("k", sweep.get("k"))}
        row["best validation macro-F1"] = r["best"]["macro_f1"]
        row["validation macro-F1, retrieved evidence"] = r.get(VALIDATION_RETRIEVED, float("nan"))
        row["at epoch"] = next((pt["epoch"] for pt in r["curve"] if pt["step"] == r["best"]["step"]), float("nan"))
        full = loss_points(pd.DataFrame(r["curve"])) if r["curve"] else pd.DataFrame()
        row["last training loss"] = full["loss"].iloc[-1] if len(full) else float("nan")
        row["temperature"] = (r.get("calibration") or {}).get("temperature", float("nan"))
        row |= {f"dev {name}": v["macro_f1"] for name, v in r["dev"].items()}
        rows.append(row)
    order = ["training_evidence", "seed", "epochs", "learning_rate"]
    return pd.DataFrame(rows).sort_values(order, ignore_index=True) if rows else pd.DataFrame(rows)


def loss_points(curve: pd.DataFrame) -> pd.DataFrame:
    """The evaluations whose training loss is a mean over at least half the usual number of steps: the
    evaluation at the very end of training often follows the previous one by a few steps, and the mean
    loss of 3 batches is noise, not a point of the curve."""
    steps = curve["step"].diff().fillna(curve["step"])
    return curve[steps >= 0.5 * steps.median()]


def curves(sweep: Mapping[str, Any], full_intervals: bool = False) -> pd.DataFrame:
    """The validation curves, long: one row per configuration and evaluation (with `full_intervals`,
    only the evaluations whose training loss averages a full interval of steps)."""
    frames = [
        (loss_points(pd.DataFrame(r["curve"])) if full_intervals else pd.DataFrame(r["curve"])).assign(
            **{k: r[k] for k in SWEPT}
        )
        for r in sweep["runs"]
        if r["curve"]
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def seed_spread(sweep: Mapping[str, Any], chosen: Mapping[str, Any]) -> pd.DataFrame:
    """Mean, standard deviation, min and max over seeds of each dev macro-F1 of the chosen recipe
    (learning rate, epochs, training evidence) at the sweep's k; `seeds` counts the seeds with a value in each
    row's column. Runs retrained at another k (the protocol sweep's k ablation) are not seeds of the recipe:
    they widened its range, and each was counted as a seed."""
    table = runs_table(own_k(sweep))
    sel = table[
        same_rate(table["learning_rate"], chosen["learning_rate"])
        & (table["epochs"] == chosen["epochs"])
        & (table["training_evidence"] == chosen["training_evidence"])
    ] if len(table) else table  # fmt: skip
    if len(sel) and sweep.get("k") is None and sel["k"].nunique(dropna=False) > 1:
        ks = sorted(int(k) for k in sel["k"].dropna().unique())
        raise ValueError(f"the recipe's runs were trained at several k ({ks}) and the sweep names none")
    if len(sel) and sel["seed"].duplicated().any():
        twice = int(sel["seed"][sel["seed"].duplicated()].iloc[0])
        raise ValueError(f"seed {twice} of the recipe is recorded twice: one seed would count as two")
    cols = [c for c in sel.columns if c.startswith("dev ")]
    out = sel[cols].agg(["mean", "std", "min", "max"]).T
    out["seeds"] = sel[cols].notna().sum().astype(int)  # the seeds with a value: a run without one is no seed of it
    return out


def within_seed_range(delta: float, spread: pd.DataFrame, column: str, fmt: str | None = None) -> bool:
    """Whether a difference is no larger than the range (max - min) over seeds of one recipe in `column`
    (a `seed_spread` table); with a single seed there is no range and nothing counts as within it. With `fmt`,
    the difference and the range's ends compare as that format prints them (+0.030 against a range printed
    0.500–0.530 is within it, though 0.0302 exceeds 0.5300 - 0.5004)."""
    if column not in spread.index:
        raise ValueError(f"no seed spread for {column!r} (have {list(spread.index)})")
    row = spread.loc[column]
    if fmt is None:
        return bool(row["seeds"] > 1 and abs(delta) <= row["max"] - row["min"])
    width = round(printed(row["max"], fmt) - printed(row["min"], fmt), 9)  # 0.530 - 0.500: 0.030, not 0.0300000001
    return bool(row["seeds"] > 1 and printed(abs(delta), fmt) <= width + 1e-9)


def _runs_at_k(sweep: Mapping[str, Any], k: int | None) -> tuple[pd.DataFrame, int | None]:
    """`runs_table` rows trained at k (default: the sweep's k), and that k (None when the sweep has no run)."""
    table = runs_table(sweep)
    if table.empty:
        return table, None
    k = sweep.get("k") if k is None else k
    if k is None:
        raise ValueError("the sweep names no k: pass the k of the runs to compare")
    return table[table["k"] == int(k)], int(k)


def protocol_runs(sweep: Mapping[str, Any], k: int | None = None) -> pd.DataFrame:
    """`runs_table` rows trained at k (default: the sweep's k) with a validation score on retrieved evidence."""
    runs, _ = _runs_at_k(sweep, k)
    return runs[runs["validation macro-F1, retrieved evidence"].notna()] if len(runs) else runs


def pick_protocol(sweep: Mapping[str, Any], k: int | None = None) -> dict[str, Any]:
    """The training evidence whose runs at k score best, averaged over seeds, on the validation claims'
    retrieved evidence (the condition the verifier is used in); a tie keeps `gold`. Dev numbers play no part."""
    runs, k = _runs_at_k(sweep, k)
    table = runs[runs["validation macro-F1, retrieved evidence"].notna()] if len(runs) else runs
    if table.empty:
        raise ValueError(
            "the sweep has no run scored on the validation claims' retrieved evidence (make sweep-protocol)"
        )
    if "gold" not in set(runs["training_evidence"]):  # the other protocol won at a k where gold never ran
        raise ValueError(
            f"the sweep has no run with training evidence 'gold' at k = {k}: "
            "the pick cannot be made against it (train the protocol sweep at this k)"
        )
    if "gold" not in set(table["training_evidence"]):  # the reference, dropped in silence
        raise ValueError(
            "the sweep's runs with training evidence 'gold' have no score on the validation claims' retrieved "
            "evidence: the pick cannot be made against them (rerun make sweep-protocol)"
        )
    seeds = table.groupby("training_evidence")["seed"].agg(lambda x: tuple(sorted(set(x))))
    if seeds.nunique() > 1:  # a mean over other seeds: a dropped low-scoring seed could flip the pick
        raise ValueError(
            "the protocols' scored runs cover different seeds ("
            + "; ".join(f"{ev}: {', '.join(map(str, sd))}" for ev, sd in seeds.items())
            + "): compare them over the same seeds (rerun make sweep-protocol)"
        )
    means = table.groupby("training_evidence")["validation macro-F1, retrieved evidence"].mean()
    top = means.max()  # ties within floating-point noise keep `gold` (rounding to 6 decimals tied 0.4999996 and
    tied = [ev for ev in means.index if noise_equal(means[ev], top)]  # 0.5000004, and split 0.50000049 from ...51)
    best = "gold" if "gold" in tied else max(tied)
    return {
        "training_evidence": best,
        "validation_macro_f1": {ev: float(v) for ev, v in means.items()},
        "seeds": table.groupby("training_evidence")["seed"].nunique().astype(int).to_dict(),
    }


def matches_protocol(sweep: Mapping[str, Any], nli_params: Mapping[str, Any]) -> bool:
    """Whether params `nli_averitec` train on the evidence the protocol sweep picked."""
    return nli_params["training_evidence"] == pick_protocol(sweep, int(nli_params["k"]))["training_evidence"]


def protocol_table(sweep: Mapping[str, Any], k: int | None = None) -> pd.DataFrame:
    """One row per training evidence at k: seeds, then for the validation score on retrieved evidence and each
    dev macro-F1 at that k, the mean over seeds and the range (max - min; none with one seed)."""
    table = protocol_runs(sweep, k)
    cols = ["validation macro-F1, retrieved evidence"] + [
        c for c in table.columns if c.startswith("dev ") and "@k=" not in c and table[c].notna().any()
    ]
    grouped = table.groupby("training_evidence")
    out = pd.concat(
        {"mean": grouped[cols].mean(), "range": grouped[cols].max() - grouped[cols].min()}, axis=1
    ).swaplevel(axis=1)
    out = out[[(c, stat) for c in cols for stat in ("mean", "range")]]
    seeds = grouped["seed"].nunique()
    for c in cols:  # one seed with a value has no range (seeds without one counted for it gave a 0.000 range)
        valued = table[table[c].notna()].groupby("training_evidence")["seed"].nunique().reindex(out.index, fill_value=0)
        out.loc[valued < 2, (c, "range")] = float("nan")
    out.insert(0, ("seeds", ""), seeds)
    return out


def k_table(sweep: Mapping[str, Any], evidence: str = "retrieved", seed: int = 0) -> pd.DataFrame:
    """Dev macro-F1 of each planner at each k, two ways, for one training evidence and seed: `retrained`, the
    model trained at that k (the thesis' ablation), and `k=<k> model`, the model of the sweep's k read at that
    k (the pipeline's ablation). Long: planner, k, how, macro_f1."""
    base = int(sweep["k"])
    rows = []
    for r in sweep["runs"]:
        if r["training_evidence"] != evidence or r["seed"] != seed or VALIDATION_RETRIEVED not in r:
            continue
        rk = int(r.get("k", base))
        for key, v in r["dev"].items():
            if not key.startswith("planner:"):
                continue
            name, _, at = key.removeprefix("planner:").partition("@k=")
            if at:
                rows.append({"planner": name, "k": int(at), "how": f"k={base} model", "macro_f1": v["macro_f1"]})
            else:
                rows.append({"planner": name, "k": rk, "how": "retrained", "macro_f1": v["macro_f1"]})
                if rk == base:
                    rows.append({"planner": name, "k": rk, "how": f"k={base} model", "macro_f1": v["macro_f1"]})
    cols = ["planner", "k", "how", "macro_f1"]
    return pd.DataFrame(rows, columns=cols).sort_values(cols[:3], ignore_index=True)


def _scores(model, tok, s: N.NLISettings, sets: Mapping[str, Sequence[N.Example]], labels) -> dict[str, Any]:
    """Macro-F1, predicted label counts and mean top probability of each example set."""
    out = {}
    for name, exs in sets.items():
        probs = N.predict_proba(model, tok, exs, s.max_length, s.eval_batch_size, s.max_claim_share)
        gold = [labels.index(e.label) for e in exs]
        pred = probs.argmax(1)
        out[name] = {
            "macro_f1": N.macro_f1(gold, pred, len(labels)),
            "predicted": {lb: int((pred == i).sum()) for i, lb in enumerate(labels)},
            "mean_top_probability": float(probs.max(1).mean()),
        }
    return out


def _dev_scores(
    model,
    tok,
    s: N.NLISettings,
    dev,
    p: Mapping[str, Any],
    runs: Mapping[str, pd.DataFrame],
    k: int,
    ablation_ks: Sequence[int] = (),
    docs: pd.DataFrame | None = None,
) -> dict[str, Any]:
    """Macro-F1 on dev with gold evidence and with each planner's retrieved top-k (`runs`: {planner: its run},
    read once by the sweep); with `ablation_ks`, also each planner's top-k' for every k' there
    (`planner:<name>@k=<k'>`: this model read at another k, as the pipeline's k ablation reads the k = 3 model)."""
    labels = LB.LABEL_SETS[p["label_set"]]
    sets = {"gold": examples(dev, {c.claim_id: gold_evidence(c, k) for c in dev}, p["label_set"])}
    if runs:
        docs = load_store(STORE_DIR).docs if docs is None else docs
        for name, run in runs.items():
            sets[f"planner:{name}"] = examples(dev, V.top_k_evidence(run, docs, k), p["label_set"])
            for kk in ablation_ks:
                if kk != k:
                    sets[f"planner:{name}@k={kk}"] = examples(dev, V.top_k_evidence(run, docs, kk), p["label_set"])
    return _scores(model, tok, s, sets, labels)


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "lib"], cwd=ROOT, capture_output=True, text=True)
        return head.stdout.strip() + ("+dirty lib/" if dirty.stdout.strip() else "")
    except OSError:
        return "unknown"


def sweep(
    learning_rates: Sequence[float],
    epochs: Sequence[int],
    evidence: Sequence[str],
    seeds: Sequence[int],
    planners: Sequence[str],
    params: Mapping[str, Any],
    out: Path | str = SWEEP_FILE,
    data_dir: Path | str = DATA_DIR,
    ks: Sequence[int] | None = None,
    ablation_ks: Sequence[int] = (),
    bm25: BM25Params = BM25Params(),
    store_dir: Path | str = STORE_DIR,
) -> dict[str, Any]:
    """Train every configuration not yet in `out`, writing the file after each. `ks`: train at each of these
    k (default: params' k, and the run records no k); `ablation_ks`: also score the dev planners at these k."""
    out = Path(out)
    data = read_sweep(out)
    p = dict(params)
    k = int(p["k"])
    # a run stored without `k` was trained at the file's k (as `_each_once` reads it): `--ks 3` under `k: 3` retrained
    done = {_run_key(r, data.get("k", k)) for r in data["runs"]}
    _, fit, val, dev = claims_of(p, data_dir)
    labels = LB.LABEL_SETS[p["label_set"]]
    header = {
        "what": "gold-evidence verifier of stage nli_averitec; picked on validation macro-F1 (lib.verifier.sweep.pick)",
        "base_classifier": dict(p["classifier"]),
        "k": k,
        "label_set": p["label_set"],
        "mixed": dict(p["mixed"]),
        "retrieval": dict(p["retrieval"]),
        "training_retrieval": {"retriever": "bm25", "scope": "global", "query": "claim", "own_gold": "excluded"}
        | bm25.model_dump(),
        "fit_claims": len(fit),
        "validation_claims": len(val),
        "dev_claims": len(dev),
    }
    if changed := [k_ for k_, v in header.items() if data["runs"] and k_ != "what" and k_ in data and data[k_] != v]:
        raise NamedError(  # the old runs were kept under the new header: k=3 runs read as k=10, label sets mixed
            f"{out}: its runs were trained with other settings ({', '.join(changed)} differ from params.yaml's "
            "nli_averitec now); resuming would record them as trained with these. Move the file aside (or give "
            "--out) to start a new sweep, or set params back"
        )
    runs = {}  # read before training: an unknown planner was refused only after the first configuration trained
    if planners:
        try:
            found = V.planner_runs(p["runs"], planners, p["retrieval"])
            runs = {name: found[name] for name in planners}  # in the order given, as the dev scores are stored
        except (ValueError, FileNotFoundError) as err:
            raise NamedError(f"--planners {' '.join(planners)}: {err}") from err
    docs = load_store(store_dir).docs
    retrieved = retrieved_evidence(fit + val, docs, max([k, *(ks or [])]), bm25)
    data.update(header)
    grid = [
        {"learning_rate": float(lr), "epochs": int(e), "training_evidence": ev, "seed": int(sd)}
        | ({"k": int(kk)} if kk is not None else {})
        for kk in (ks or [None])
        for sd in seeds
        for ev in evidence
        for e in epochs
        for lr in learning_rates
    ]
    seen: dict[tuple, str] = {}
    for (
        c
    ) in grid:  # a value given twice (`--seeds 0 0`, 1e-4 and 0.0001) trained one run twice, a file its reader refused
        if (key := _run_key(c, k)) in seen:
            raise NamedError(
                f"{config_id(c)}: given twice (as {seen[key]}); give each learning rate, epoch count, seed and k once"
            )
        seen[key] = config_id(c)
    for c in grid:
        if _run_key(c, k) in done:
            print(f"{config_id(c)}: in {out} already")
            continue
        s = N.NLISettings.model_validate(
            {**p["classifier"], "learning_rate": c["learning_rate"], "epochs": c["epochs"], "seed": c["seed"]}
        )
        kind, mixed, kc = c["training_evidence"], p["mixed"], c.get("k", k)
        train_set = examples(fit, training_evidence(fit, kc, kind, mixed, retrieved), p["label_set"])
        validation = examples(val, training_evidence(val, kc, kind, mixed, retrieved), p["label_set"])
        val_retrieved = examples(val, training_evidence(val, kc, "retrieved", retrieved=retrieved), p["label_set"])
        print(f"{config_id(c)}: {len(train_set)} training, {len(validation)} validation examples")
        model, tok, rep = N.train(train_set, validation, labels, s)
        run = {
            **c,
            "commit": _commit(),
            "curve": rep["curve"],
            "best": rep["best"],
            "steps_planned": rep["steps_planned"],
            "steps_run": rep["steps_run"],
            "calibration": rep["calibration"],
            "train_seconds": TM.measurements()["training"]["train_seconds"],
            VALIDATION_RETRIEVED: _scores(model, tok, s, {"v": val_retrieved}, labels)["v"]["macro_f1"],
            "dev": _dev_scores(model, tok, s, dev, p, runs, kc, ablation_ks, docs),
        }
        data["runs"].append(run)
        _write(data, out)
        print(
            f"{config_id(c)}: best validation macro-F1 {rep['best']['macro_f1']:.3f}; dev gold {run['dev']['gold']['macro_f1']:.3f}"
        )
    return data


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.verifier.sweep", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--learning-rates",
        type=flag(N.NLISettings, "learning_rate"),
        nargs="+",
        default=None,
        help="default: 2e-5 5e-5 1e-4 2e-4",
    )
    ap.add_argument("--epochs", type=flag(N.NLISettings, "epochs"), nargs="+", default=None, help="default: 2 3")
    ap.add_argument("--training-evidence", nargs="+", default=["gold"], choices=list(TRAINING_EVIDENCE))
    ap.add_argument("--ks", type=flag_of(PosInt), nargs="+", default=None, help="train at each k (default: params' k)")
    ap.add_argument(
        "--ablation-ks", type=flag_of(PosInt), nargs="*", default=[], help="also score the dev planners at these k"
    )
    ap.add_argument("--seeds", type=flag_of(Seed), nargs="+", default=[0])
    ap.add_argument("--planners", nargs="*", default=["claim_only", "oracle"], help="dev retrieved evidence to score")
    ap.add_argument("--out", type=file_path, default=str(SWEEP_FILE))
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    ap.add_argument(
        "--at-pick", action="store_true", help="train at the learning rate and epochs the sweep in --out picked so far"
    )
    ap.add_argument(
        "--pick-from", default=None, help="train at the pick of this sweep file (e.g. sweeps/verifier.json)"
    )
    args = ap.parse_args(argv)
    OUT.refuse_targets([args.out], [args.params, args.pick_from])  # the sweep file grows: never data/ or an input
    learning_rates, epochs = args.learning_rates or [2e-5, 5e-5, 1e-4, 2e-4], args.epochs or [2, 3]
    # read as an empty sweep: "no run with ... 'gold'"; a pipe or a folder is named by `read_sweep` (it was "no such file")
    if args.pick_from and not Path(args.pick_from).exists():
        raise NamedError(
            f"--pick-from {args.pick_from}: no such file (expected a sweep file, e.g. sweeps/verifier.json)"
        )
    if args.at_pick or args.pick_from:
        given = [f for f, v in (("--learning-rates", args.learning_rates), ("--epochs", args.epochs)) if v is not None]
        if given:  # the pick replaced them without a word
            raise NamedError(
                f"{' and '.join(given)} with --at-pick or --pick-from: the pick sets them; give one or the other"
            )
        try:
            chosen = pick(read_sweep(args.pick_from or args.out))
        except ValueError as err:  # read_sweep names the file; pick's own errors did not
            text = str(err)
            where = str(args.pick_from or args.out)
            raise NamedError(text if text.startswith(where) else f"{where}: {text}") from None
        learning_rates, epochs = [chosen["learning_rate"]], [chosen["epochs"]]
    sweep(
        learning_rates,
        epochs,
        args.training_evidence,
        args.seeds,
        args.planners,
        section("nli_averitec", args.params),
        args.out,
        ks=args.ks,
        ablation_ks=args.ablation_ks,
        bm25=BM25Params(**section("retrieval", args.params)["bm25"]),
    )


if __name__ == "__main__":
    run_main(main)
