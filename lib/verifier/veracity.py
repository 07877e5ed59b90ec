"""Downstream veracity (notebook 07): what the planners' evidence does for the verifier.

`python -m lib.verifier.veracity planners` (stage `nli_planners`) -> `outputs/nli/planners/`
  The gold-evidence classifiers of stage `nli_averitec` (`lib.verifier.averitec`, every seed) on each
  planner's top-k retrieved documents, in one retrieval setting (params `nli_averitec.retrieval`), at the
  main k and, for the ablation planners, at every k of the ablation. Settings are `planner:<name>`.
  `predictions.parquet` has the training stage's columns; `averitec_predictions` reads both stages'.

The rest is the analysis of notebook 07: scores per setting, over seeds, paired tests.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib import models as MD
from lib import outputs as OUT
from lib import timing as TM
from lib.cli import ArgumentParser, nonempty_path, run_main
from lib.data import averitec
from lib.data import labels as LB
from lib.evaluation import significance as SIG
from lib.params import section, study_params_only
from lib.paths import DATA_DIR, PARAMS_FILE, STORE_DIR, repo_path
from lib.retrieval import runs as RU
from lib.store.build import load_store
from lib.verifier import nli as N
from lib.verifier.averitec import JUSTIFICATION, examples, gold_evidence  # noqa: F401  (re-exported for notebooks and lib.analysis.utility)
from lib.verifier.stages import (  # noqa: F401
    CLAIM_ONLY,
    GOLD,
    NAIVE,
    NLI_DIR,
    PLANNER,
    SNIPPETS,
    ensure_verifier,
    model_dir,
    prediction_rows,
)

PLANNERS_DIR = NLI_DIR / "planners"
SCOPE_MARK = "@"  # `planner:<name>@<scope>`: a planner's top-k from another scope than the main one


# --------------------------------------------------------------------------- the planners' evidence


def top_k_docs(run: pd.DataFrame, k: int) -> dict[int, tuple[str, ...]]:
    """{claim_id: doc_ids of the top-k documents} of one run configuration, best first."""
    if k < 1:
        raise ValueError(f"k = {k}: the number of documents must be >= 1")
    if run[RU.CONFIG_COLUMNS].drop_duplicates().shape[0] > 1:
        raise ValueError("top-k documents need one run configuration (plan, retriever, scope, temporal, fusion)")
    top = run[run["rank"] <= k].sort_values(["claim_id", "rank"])
    out: dict[int, list[str]] = {}
    for cid, did in zip(top["claim_id"].to_numpy(), top["doc_id"].astype(str).to_numpy()):
        out.setdefault(int(cid), []).append(did)
    return {cid: tuple(ids) for cid, ids in out.items()}


def top_k_evidence(run: pd.DataFrame, docs: pd.DataFrame, k: int) -> dict[int, tuple[str, ...]]:
    """{claim_id: texts of the top-k documents} of one run configuration (ranks ascending)."""
    text = dict(zip(docs["doc_id"], docs["text"]))
    return {cid: tuple(text[d] for d in ids) for cid, ids in top_k_docs(run, k).items()}


def planner_runs(
    paths: Sequence[Path | str], planners: Sequence[str], retrieval: Mapping[str, Any]
) -> dict[str, pd.DataFrame]:
    """Each planner's run in the one retrieval setting, from whichever runs file holds it (first wins)."""
    want = dict(
        retriever=retrieval["retriever"],
        scope=retrieval["scope"],
        temporal=bool(retrieval["temporal"]),
        fusion=retrieval["fusion"],
    )
    out: dict[str, pd.DataFrame] = {}
    for path in paths:
        if len(out) == len(planners):
            break
        if not Path(path).exists():
            raise FileNotFoundError(f"{path} is missing: run `dvc repro` for the retrieval stages first")
        frame = OUT.read_parquet(path, filters=[("plan", "in", [p for p in planners if p not in out])])
        sel = RU.select(frame, **want)
        for plan, group in sel.groupby("plan", sort=False):
            out.setdefault(str(plan), group)
    missing = [p for p in planners if p not in out]
    if missing:
        raise ValueError(f"no runs for planners {missing} with {want} in {[str(p) for p in paths]}")
    return {p: out[p] for p in planners}


def planners_stage(
    params: Mapping[str, Any],
    data_dir: Path | str = DATA_DIR,
    store_dir: Path | str = STORE_DIR,
    nli_dir: Path | str = NLI_DIR / "averitec",
    out_dir: Path | str = PLANNERS_DIR,
) -> pd.DataFrame:
    """Stage `nli_planners`: every planner's top-k documents through the saved gold-evidence classifiers."""
    p = dict(params)
    nli_dir, out_dir = Path(nli_dir), Path(out_dir)
    trained = json.loads((nli_dir / "report.json").read_text())
    label_set, labels, k, ks, seeds = (
        trained["label_set"],
        trained["labels"],
        trained["k"],
        trained["ks"],
        trained["seeds"],
    )
    dev = averitec.load_averitec("dev", Path(data_dir) / "averitec" / "dev.json")
    if trained.get("max_dev_claims"):
        dev = dev[: int(trained["max_dev_claims"])]
    docs = load_store(store_dir).docs
    runs = planner_runs(p["runs"], p["planners"], p["retrieval"])
    # the same planners' top-k from the other scopes named in `scope_variants` (settings `planner:<name>@<scope>`)
    other = [sc for sc in p.get("scope_variants", []) if sc != p["retrieval"]["scope"]]
    scoped = {sc: planner_runs(p["runs"], p["planners"], {**p["retrieval"], "scope": sc}) for sc in other}
    frames = []
    for seed in seeds:
        model, tok, training = N.load(model_dir(nli_dir, "gold", seed, seeds))  # this checkout's, by layout
        s = N.NLISettings.model_validate(training["settings"])
        jobs = [
            (name, kk, examples(dev, top_k_evidence(runs[name], docs, kk), label_set))
            for kk in ks
            for name in (p["planners"] if kk == k else p.get("ablation_planners", []))
        ] + [
            (f"{name}{SCOPE_MARK}{sc}", k, examples(dev, top_k_evidence(scoped[sc][name], docs, k), label_set))
            for sc in other
            for name in p["planners"]
        ]
        # one call: inputs shared between planners and between k are classified once
        start_call = time.perf_counter()
        probs = N.predict_proba(
            model, tok, [e for *_, exs in jobs for e in exs], s.max_length, s.eval_batch_size, s.max_claim_share
        )
        bounds = np.cumsum([0] + [len(exs) for *_, exs in jobs])
        main_jobs = {name: len(exs) for name, kk, exs in jobs if kk == k and SCOPE_MARK not in name}
        for name, secs in TM.shares(time.perf_counter() - start_call, main_jobs, int(bounds[-1])).items():
            TM.cost(
                name,
                "verification",
                secs,
                len(dev),
                f"k={k}, seed {seed}",
                MD.device_name(next(model.parameters()).device),
                "its inputs' share of one pooled classifier call (per input)",
            )
        for (name, kk, exs), lo, hi in zip(jobs, bounds, bounds[1:]):
            kind = "planner_scope" if SCOPE_MARK in name else "planner"
            frames.append(prediction_rows(PLANNER + name, kind, kk, seed, exs, probs[lo:hi], labels))
            print(f"seed {seed} k={kk:2d} {name:26s} accuracy {np.mean(frames[-1]['label'] == frames[-1]['pred']):.3f}")
    preds = pd.concat(frames, ignore_index=True)
    preds["claim_id"] = preds["uid"].astype(int)
    with OUT.together():  # the stage's outputs are replaced together, or none of them
        OUT.write_parquet(preds, out_dir / "predictions.parquet", index=False)
        report = {
            **{key: trained[key] for key in ("label_set", "labels", "k", "ks", "seeds", "dev_claims")},
            "verifier": repo_path(model_dir(nli_dir, "gold", seeds[0], seeds)),
            "planners": list(p["planners"]),
            "ablation_planners": list(p.get("ablation_planners", [])),
            "retrieval": dict(p["retrieval"]),
            "scope_variants": other,
        }
        OUT.write_json(out_dir / "report.json", report)
    return preds


def averitec_predictions(
    nli_dir: Path | str = NLI_DIR / "averitec", planners_dir: Path | str = PLANNERS_DIR
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The AVeriTeC dev predictions of both stages (reference settings, then planners) and their reports
    merged (the planner stage's keys win: `retrieval`, `planners`, `verifier`)."""
    frames, report = [], {}
    for folder in (Path(nli_dir), Path(planners_dir)):
        for name in ("predictions.parquet", "report.json"):
            if not (folder / name).exists():
                raise FileNotFoundError(f"{folder / name} is missing: run `dvc repro nli_averitec nli_planners`")
        frames.append(OUT.read_parquet(folder / "predictions.parquet"))
        report.update(json.loads((folder / "report.json").read_text()))
    return pd.concat(frames, ignore_index=True), report


# --------------------------------------------------------------------------- analysis (notebook 07)


def _gold_set(target: str) -> str:
    """The label set gold is read in: the target set, except that the 2-way reduction is scored against
    3-way gold (its NEE/Conflicting claims stay in, as a class it never predicts)."""
    return "averitec3" if target == "averitec2" else target


def evaluation_labels(target: str) -> tuple[str, ...]:
    """The classes metrics are computed over (see `_gold_set`)."""
    return LB.LABEL_SETS[_gold_set(target)]


def read_labels(preds: pd.DataFrame, source: str, target: str | None = None) -> tuple[list[str], list[str]]:
    """(gold, predicted) labels of a predictions frame, read in the `target` label set (default: as trained)."""
    target = target or source
    probs = preds[[f"p:{lb}" for lb in LB.LABEL_SETS[source]]].to_numpy()
    collapsed = LB.collapse(probs, source, target) if target != source else probs
    pred = [LB.LABEL_SETS[target][i] for i in collapsed.argmax(1)]
    return [LB.map_label(g, _gold_set(target)) for g in preds["label"]], pred


def setting_scores(
    preds: pd.DataFrame, source: str, target: str | None = None, by: Sequence[str] = ("setting", "kind", "k", "seed")
) -> pd.DataFrame:
    """Accuracy, macro-F1, weighted-F1 and per-class F1 for every group of `by` (one row each)."""
    labels = evaluation_labels(target or source)
    rows = []
    for key, group in preds.groupby(list(by), sort=False, dropna=False):
        gold, pred = read_labels(group, source, target)
        sc = N.classification_scores(gold, pred, labels)
        rows.append(
            {
                **dict(zip(by, key if isinstance(key, tuple) else (key,))),
                "n": sc["n"],
                "accuracy": sc["accuracy"],
                "macro_f1": sc["macro_f1"],
                "weighted_f1": sc["weighted_f1"],
                **{f"f1:{lb}": v["f1"] for lb, v in sc["per_class"].items()},
            }
        )
    return pd.DataFrame(rows)


def over_seeds(
    scores: pd.DataFrame,
    metrics: Sequence[str] = ("accuracy", "macro_f1", "weighted_f1"),
    by: Sequence[str] = ("setting", "kind", "k"),
) -> pd.DataFrame:
    """Mean and standard deviation over seeds (sd is NaN with one seed) and the number of seeds."""
    g = scores.groupby(list(by), sort=False)
    out = g[list(metrics)].agg(["mean", "std"])
    out.columns = [f"{m}_{stat}" for m, stat in out.columns]
    return out.assign(seeds=g.size()).reset_index()


def paired_tests(
    gold: Sequence[str],
    pred_a: Sequence[str],
    pred_b: Sequence[str],
    labels: Sequence[str],
    n_resamples: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> dict[str, float]:
    """Predictions a against b on the same claims: a's macro-F1, the macro-F1 difference with its paired
    bootstrap p-value, standard error and minimum detectable difference (at `alpha` with `power`), the
    accuracy difference with McNemar's p-value."""

    index = {lb: i for i, lb in enumerate(labels)}
    g, a, b = (np.array([index[x] for x in v]) for v in (gold, pred_a, pred_b))

    def f1(gold_: np.ndarray, pred: np.ndarray) -> float:
        return N.macro_f1(gold_, pred, len(labels))

    diff, p_boot = SIG.paired_bootstrap_statistic(g, a, b, f1, n_resamples, seed)
    se = SIG.paired_difference_se(g, a, b, f1, n_resamples, seed) if len(g) > 1 else float("nan")
    return {
        "macro_f1": f1(g, a),
        "delta_macro_f1": diff,
        "p_bootstrap": p_boot,
        "se_delta_macro_f1": se,
        "mde_macro_f1": SIG.minimum_detectable_difference(se, alpha, power) if se == se else float("nan"),
        "delta_accuracy": float(np.mean(a == g) - np.mean(b == g)),
        "p_mcnemar": SIG.mcnemar(a == g, b == g),
    }


def against_baseline(
    preds: pd.DataFrame,
    baseline: tuple[str, int],
    source: str,
    n_resamples: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
    target: str | None = None,
    power: float = 0.8,
) -> pd.DataFrame:
    """`paired_tests` of every (setting, k) of the first seed against `baseline` (setting, k) on the same
    claims; `significant` marks a bootstrap p-value below `alpha`; `mde_macro_f1` is the smallest
    difference the test detects with `power`."""
    first = preds[preds["seed"] == preds["seed"].min()]
    base = first[(first["setting"] == baseline[0]) & (first["k"] == baseline[1])].set_index("claim_id")
    if base.empty:
        raise ValueError(f"no predictions for the baseline {baseline}")
    labels = evaluation_labels(target or source)
    _, base_pred = read_labels(base.reset_index(), source, target)
    rows = []
    for (setting, k), group in first.groupby(["setting", "k"], sort=False):
        gold, pred = read_labels(group.set_index("claim_id").loc[base.index].reset_index(), source, target)
        t = paired_tests(gold, pred, base_pred, labels, n_resamples, seed, alpha, power)
        p = t["p_bootstrap"]  # NaN (too few claims): no test, where `p < alpha` recorded "not significant"
        rows.append({"setting": setting, "k": k, **t, "significant": bool(p < alpha) if p == p else None})
    return pd.DataFrame(rows)


def nli_verdicts(
    preds: pd.DataFrame,
    setting: str,
    k: int,
    seed: int | None = None,
    source: str | None = None,
    target: str | None = None,
) -> dict[int, str]:
    """{claim_id: predicted label} of one setting (the first seed unless given): the `nli` verdict source.
    With `target`, the `source`-set classifier's probabilities are read in that coarser set (`read_labels`):
    `averitec2` keeps the better of Supported and Refuted, as Papelo's 2-class verdicts."""
    seed = preds["seed"].min() if seed is None else seed
    sel = preds[(preds["setting"] == setting) & (preds["k"] == k) & (preds["seed"] == seed)]
    if sel.empty:
        raise ValueError(f"no classifier predictions for {setting} (k={k}, seed {seed})")
    if target is None:
        return dict(zip(sel["claim_id"].astype(int), sel["pred"]))
    if source is None:
        raise ValueError("reading the verdicts in another label set needs the classifier's own (source)")
    return dict(zip(sel["claim_id"].astype(int), read_labels(sel, source, target)[1]))


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.verifier.veracity",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("command", choices=["planners"])
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    args = ap.parse_args(argv)
    study_params_only(
        args.params, "the outputs of stage `nli_planners`"
    )  # the study's folders: another file only through params.yaml
    settings = section("nli_averitec", args.params)  # checked before a training that may take minutes
    ensure_verifier(args.params)  # a fresh clone has stage nli_averitec's record, not its weights
    planners_stage(settings)


if __name__ == "__main__":
    run_main(main)
