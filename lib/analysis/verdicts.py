"""Verdicts from each kind of evidence (notebook 07): the tables, sentences and metrics of the downstream
veracity study, computed from the verifier stages' outputs.

The stages (`lib.verifier`) train the classifiers and write one prediction per (setting, k, seed, claim):
the frame `av` (AVeriTeC dev) or `qt` (QuanTemp test), with columns `setting`, `kind`, `k`, `seed`,
`claim_id`, `label`, `pred` and one probability `p:<label>` per class. This module only reads them: the
training costs, the sweep's pick, calibration, the comparison with the baseline, label-set reductions,
retrieval gains against verdict gains, the rescored AVeriTeC evidence, the published QuanTemp systems, and
the sentences of the conclusion, each from a function that checks what it states.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib.averitec import evidence as E
from lib.averitec import scoring as SC
from lib.cli import NamedError
from lib.data import labels as LB
from lib.evaluation import calibration as CAL
from lib.evaluation import comparisons as CMP
from lib.evaluation import significance as SIG
from lib.evaluation.printing import (
    difference_as_printed,
    difference_text,
    noise_equal,
    p_text,
    printed_difference,
    share_shown,
    share_text,
    signed_text,
    unsigned_zero,
)
from lib.retrieval import runs as RU
from lib.verifier import nli as N
from lib.verifier import sweep as VS
from lib.verifier import veracity as V

Namer = Callable[[str], str]
TEST_COLUMNS = ["setting", "k", "delta_macro_f1", "mde_macro_f1", "p_bootstrap", "delta_accuracy", "p_mcnemar"]
METRICS = ("accuracy", "macro_f1", "weighted_f1")
REDUCTIONS = ("averitec4", "averitec3", "averitec2")  # the AVeriTeC label sets, finest first


def epochs_text(n: int) -> str:
    """'1 epoch', '3 epochs'."""
    return f"{n} epoch" + ("" if int(n) == 1 else "s")


# --- 1. training costs ---------------------------------------------------------------------------------


def training_table(
    report: Mapping[str, Any], measured: Mapping[str, Mapping[str, float]] | None = None
) -> pd.DataFrame:
    """One row per trained classifier of a stage report: model, hardware, input lengths, steps, the best
    validation macro-F1 and the training time. The times come from the stage's timing file (`measured`,
    `lib.timing`), keyed as the report's `training`; a classifier not trained on this machine shows none."""
    rows = {}
    for key, r in report["training"].items():
        took = (measured or {}).get(key) or {}
        rows[key] = {
            "model": r["settings"]["model"],
            "device": r["device"],
            "dtype": r["dtype"],
            "max length": r["settings"]["max_length"],
            "mean input tokens": r["mean_input_tokens"],
            "inputs cut at max length": r["truncated_share"],
            "steps run / planned": f"{r['steps_run']} / {r['steps_planned']}",
            "stopped early": r["stopped_early"],
            "best validation macro-F1": r["best"]["macro_f1"],
            "train examples/s": took.get("examples_per_second", "not measured here"),
            "training time (s)": took.get("train_seconds", "not measured here"),
        }
    return pd.DataFrame(rows).T


def learning_check(
    preds: pd.DataFrame, label_set: str, k: int, n_resamples: int = 2000, seed: int = 0, alpha: float = 0.05
) -> dict[str, Any]:
    """Has the verifier learned? Its verdicts from the gold evidence (at the main `k`, as the comparison table
    shows them: the GOLD rows repeat per k of the k sweep) against always answering the most frequent train
    label (NAIVE), first seed, paired bootstrap on macro-F1: `learned` when GOLD is higher and the difference
    is significant at `alpha`. A verifier that has not learned reads every input alike, so no comparison of
    evidence through its verdicts means anything."""
    naive_k = preds.loc[preds["setting"] == V.NAIVE, "k"]
    if naive_k.empty or not (preds["setting"] == V.GOLD).any():
        raise ValueError(f"the learning check needs the {V.GOLD!r} and {V.NAIVE!r} settings' predictions")
    tests = V.against_baseline(preds, (V.NAIVE, naive_k.iloc[0]), label_set, n_resamples, seed, alpha)
    gold_rows = tests[(tests["setting"] == V.GOLD) & tests["k"].isin([-1, k])]
    if gold_rows.empty:
        raise ValueError(f"the learning check found no {V.GOLD!r} predictions at k = {k}")
    gold = gold_rows.iloc[0]
    delta, p = float(gold["delta_macro_f1"]), float(gold["p_bootstrap"])
    ours, naive = float(gold["macro_f1"]), float(gold["macro_f1"]) - delta
    return {  # each macro-F1 apart from the other where they differ (0.30004 and 0.30001 were both 0.3)
        "gold_macro_f1": float(CMP.apart(ours, ".4f", naive)),
        "majority_macro_f1": float(CMP.apart(naive, ".4f", ours)),
        # kept with the decimals that hold their side of 0 and of alpha: p = 100/2001 was stored and printed 0.05
        # beside "learned" (p < alpha); `learned` reads what is stored
        "difference": float(CMP.end_text(delta, ".4f")),
        "p_bootstrap": float(CMP.apart(p, ".4f", alpha)),
        "alpha": alpha,
        "learned": bool(float(CMP.end_text(delta, ".4f")) > 0 and float(CMP.apart(p, ".4f", alpha)) < alpha),
    }


def stored_learning_check(nli_metrics: Path | str) -> dict[str, Any]:
    """Notebook 07's learning check as nli.json records it: notebooks 08 and 09 reread it rather than test again
    with their own resamples and alpha (the banners could disagree about one verifier: "has learned" under 0.05
    in 08 and 09, "has not learned" under `nli_veracity.alpha` 0.01 in 07 and 10)."""
    try:
        check = json.loads(Path(nli_metrics).read_text())["averitec"]["learning_check"]
    except FileNotFoundError:
        raise NamedError(f"{nli_metrics}: missing; run stage nli_veracity (notebook 07) first") from None
    except (KeyError, TypeError, ValueError) as err:
        raise NamedError(f"{nli_metrics}: no averitec.learning_check ({err}); rerun stage nli_veracity") from None
    wanted = ("gold_macro_f1", "majority_macro_f1", "difference", "p_bootstrap", "alpha", "learned")
    if not isinstance(check, dict) or (missing := [k for k in wanted if k not in check]):
        raise NamedError(
            f"{nli_metrics}: averitec.learning_check lacks {missing if isinstance(check, dict) else wanted}"
        )
    return check


def learning_sentence(check: Mapping[str, Any]) -> str:
    """The first lines of every notebook that reads the verifier: whether it learned, and if not, what
    cannot be concluded from its verdicts."""
    gold, major, p = check["gold_macro_f1"], check["majority_macro_f1"], check["p_bootstrap"]
    # each figure with the decimals that keep it apart from what it is read against ("0.300 against 0.300
    # (difference +0.000, ... p 0.05), significantly below ... at alpha 0.05" of 0.3 - 0.3004 at p = 0.04996)
    # and their difference as the two printed figures subtract ("0.521 against 0.189 (difference +0.331)" of the
    # exact 0.3314 read as a slip beside them)
    shown = CMP.apart(gold, ".3f", major), CMP.apart(major, ".3f", gold)
    decimals = max(len(t.partition(".")[2]) for t in shown)
    figures = (
        f"with the gold answers as evidence it reaches macro-F1 {shown[0]} against {shown[1]} for always answering "
        f"the most frequent label (difference {difference_text(gold, major, f'.{decimals}f')}, paired bootstrap p "
        f"{p_text(p, check['alpha'])})"
    )
    if check["learned"]:
        return f"**The verifier has learned:** {figures}, so its verdicts depend on the evidence it reads."
    if any(v != v for v in (gold, major, p)):  # no test ran: "not distinguishable from guessing" was read from NaN
        return (
            "**Warning: whether the verifier has learned is not tested here** (a macro-F1 or the paired bootstrap is "
            "undefined: too few claims). None of the comparisons of evidence through verdicts below can be "
            "concluded from this build: read them as a walk-through of the method."
        )
    if check["difference"] < 0 and check["p_bootstrap"] < check["alpha"]:  # worse than guessing, significantly
        return (
            f"**Warning: the verifier is worse than guessing.** {figures[0].upper()}{figures[1:]}, significantly "
            f"below always answering the most frequent label at alpha {check['alpha']:g}. None of the comparisons of "
            "evidence through verdicts below can be concluded from this build: read them as a walk-through of the "
            "method."
        )
    return (
        f"**Warning: the verifier has not learned.** {figures[0].upper()}{figures[1:]}, not distinguishable "
        f"from guessing at alpha {check['alpha']:g}. Its verdicts barely depend on the evidence, so none of "
        "the comparisons of evidence through verdicts below (planners, k, scopes, utility, error codes) can "
        "be concluded from this build: read them as a walk-through of the method."
    )


def training_curves(reports: Mapping[str, Mapping[str, Any]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(validation curve, loss points) of every classifier of `reports` ({dataset: stage report}), each
    row with `model` = "<dataset>: <classifier>". The loss points leave out a final evaluation a few steps
    after the previous one (`lib.verifier.sweep.loss_points`): its mean loss is noise."""
    trained = [
        (f"{ds}: {key}", pd.DataFrame(r["curve"])) for ds, rep in reports.items() for key, r in rep["training"].items()
    ]
    curves = pd.concat([c.assign(model=m) for m, c in trained])
    losses = pd.concat([VS.loss_points(c).assign(model=m) for m, c in trained])
    return curves, losses


# --- 2. the training recipe (the sweep) ---------------------------------------------------------------


def trained_settings(report: Mapping[str, Any]) -> dict[str, Any]:
    """The settings the pipeline's gold-evidence classifier (first seed) was trained with."""
    return report["training"][f"gold/seed{report['seeds'][0]}"]["settings"]


def recipe_sentence(chosen: Mapping[str, Any], trained: Mapping[str, Any], in_use: bool) -> str:
    """The sweep's pick, and whether the pipeline trains with it."""
    pick = (
        f"The sweep's pick: learning rate {VS.rate_text(chosen['learning_rate'])}, {epochs_text(chosen['epochs'])} (validation "
        f"macro-F1 {chosen['validation_macro_f1']:.3f}). "
    )
    if in_use:
        return pick + "The pipeline's classifiers train with it (params `nli_averitec.classifier`)."
    return pick + (
        f"**The pipeline's classifier does not train with it** (learning rate {VS.rate_text(trained['learning_rate'])}, "
        f"{epochs_text(trained['epochs'])}): params.yaml and the sweep disagree."
    )


def sweep_data_sentence(sweep: Mapping[str, Any], report: Mapping[str, Any]) -> str:
    """Which data a committed sweep's tables come from, and whether this build's verifier saw the same: a
    sweep runs outside the pipeline on the study's data, so a smaller build (the classroom profile) shows the
    study's sweep, not its own."""
    counts = {"training": "fit_claims", "validation": "validation_claims", "dev": "dev_claims"}
    here = {"training": report.get("train_claims"), "validation": report.get("validation_claims")}
    here["dev"] = report.get("dev_claims")
    theirs = ", ".join(f"{sweep[key]:,} {part}" for part, key in counts.items() if key in sweep)
    text = f"The sweep ran outside the pipeline on {theirs} claims."
    differ = [part for part, key in counts.items() if key in sweep and here.get(part) not in (None, sweep[key])]
    if differ:
        ours = ", ".join(f"{here[part]:,} {part}" for part in counts if here.get(part) is not None)
        text += (
            f" This build's verifier saw {ours} claims, so the sweep's tables and figures below are the study's, "
            "not this build's: they explain the recipe, they do not describe this build's model."
        )
    return text


def learning_rate_sentence(sweep_table: pd.DataFrame, chosen: Mapping[str, Any]) -> str:
    """Validation macro-F1 by learning rate at the chosen number of epochs (gold evidence, chosen seed)."""
    same = sweep_table[
        (sweep_table["training_evidence"] == "gold")
        & (sweep_table["seed"] == chosen["seed"])
        & (sweep_table["epochs"] == chosen["epochs"])
    ].set_index("learning_rate")["best validation macro-F1"]
    return (
        f"With {epochs_text(chosen['epochs'])}, validation macro-F1 by learning rate: "
        + ", ".join(f"{VS.rate_text(lr)}: {f1:.3f}" for lr, f1 in same.items())
        + "."
    )


def sweep_curves(sweep: Mapping[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(validation curves, loss points over full intervals) of the gold-evidence runs of the first seed,
    each with the display columns `learning rate` and `epochs planned`."""
    sweep = VS.own_k(sweep)  # a run at another k drew its points into the recipe's line
    cur = VS.curves(sweep)
    cur = cur[(cur["training_evidence"] == "gold") & (cur["seed"] == cur["seed"].min())].copy()
    cur["learning rate"] = cur["learning_rate"].map(VS.rate_text)
    cur["epochs planned"] = cur["epochs"].astype(str)
    full = VS.curves(sweep, full_intervals=True)
    full = full.merge(cur[[*VS.SWEPT, "step", "learning rate", "epochs planned"]], on=[*VS.SWEPT, "step"])
    return cur, full


def at_pick(sweep_table: pd.DataFrame, chosen: Mapping[str, Any]) -> pd.DataFrame:
    """The sweep's rows at the chosen learning rate, epochs and seed, one per training evidence."""
    return sweep_table[
        VS.same_rate(sweep_table["learning_rate"], chosen["learning_rate"])
        & (sweep_table["epochs"] == chosen["epochs"])
        & (sweep_table["seed"] == chosen["seed"])
    ].set_index("training_evidence")


def dev_columns(table: pd.DataFrame) -> list[str]:
    """The sweep table's dev macro-F1 columns (`dev <evidence>`)."""
    return [c for c in table.columns if c.startswith("dev ")]


def predicted_classes(sweep: Mapping[str, Any], chosen: Mapping[str, Any]) -> pd.DataFrame:
    """How many dev claims the chosen configuration predicts in each class, per (training evidence, dev
    evidence)."""
    return pd.DataFrame(
        {
            (r["training_evidence"], where): r["dev"][where]["predicted"]
            for r in VS.own_k(sweep)["runs"]  # at another k, the last run's counts replaced the recipe's
            if VS.same_rate(r["learning_rate"], chosen["learning_rate"])
            and r["epochs"] == chosen["epochs"]
            and r["seed"] == chosen["seed"]
            for where in r["dev"]
        }
    ).T


def mixed_sentence(first_seed: pd.DataFrame, spread: pd.DataFrame) -> str:
    """Mixed minus gold training evidence on each dev column, each said to lie within or beyond the gold
    recipe's range over seeds."""
    if "mixed" not in first_seed.index:
        return "The sweep has no run with mixed training evidence at the chosen learning rate."
    effect = []
    for col in dev_columns(first_seed):
        mixed, gold = first_seed.loc["mixed", col], first_seed.loc["gold", col]
        # as the table's printed levels subtract (0.287 - 0.521: -0.234); levels printed alike: the exact one, under
        # one printed step (0.3004 - 0.2996: +0.0008, not "+0.001" beside 0.300 and 0.300)
        d = difference_as_printed(mixed - gold, mixed, gold)
        seeds = int(spread.loc[col, "seeds"])
        if d != d:  # "+nan (beyond the range ...)"
            effect.append(f"{col[4:]} undefined (no dev score of the mixed or the gold run)")
            continue
        if seeds < 2:  # one seed has no range: "beyond" it was said of +0.000
            how_many = "one seed" if seeds == 1 else "no seed with a score"
            effect.append(
                f"{col[4:]} {difference_text(mixed, gold)} ({how_many} of the gold recipe: no range over seeds to set it "
                "against)"
            )
            continue
        # as printed: +0.030 against a range printed 0.500–0.530 is within it (0.0302 was "beyond"); a difference
        # printed with more decimals (+0.0004) is read at those (it was "within" a range of 0 read at three)
        text = difference_text(mixed, gold)
        fmt = f".{len(text.split('.')[1])}f" if "." in text and "e" not in text else ".3f"
        where = "within" if VS.within_seed_range(d, spread, col, fmt) else "beyond"
        # the range at the decimals the decision read it at (the spread table printed 0.300-0.300 beside "within")
        lo, hi = spread.loc[col, "min"], spread.loc[col, "max"]
        effect.append(
            f"{col[4:]} {text} ({where} the range {lo:{fmt}}–{hi:{fmt}} over {seeds} seed(s) of the gold recipe)"
        )
    return "Mixed minus gold training evidence, dev macro-F1: " + "; ".join(effect) + "."


PROTOCOL_SCORE = "validation macro-F1, retrieved evidence"  # what the protocol sweep picks on (lib.verifier.sweep)


def protocol_sentence(chosen: Mapping[str, Any], trained_on: str, table: pd.DataFrame) -> str:
    """The protocol sweep's pick (`lib.verifier.sweep.pick_protocol`) with each protocol's mean on the validation
    claims' retrieved evidence, whether the gap to the runner-up exceeds both protocols' ranges over seeds
    (`table`: `protocol_table`), and whether the pipeline trains with the pick (`trained_on`)."""
    means, best = chosen["validation_macro_f1"], chosen["training_evidence"]
    parts = "; ".join(f"`{ev}` {m:.3f} ({chosen['seeds'][ev]} seed(s))" for ev, m in means.items())
    out = [f"Mean validation macro-F1 on retrieved evidence by training evidence: {parts}. The pick: `{best}`."]
    others = [ev for ev in means if ev != best]
    if others:
        second = max(means[ev] for ev in others)
        tied = [ev for ev in others if means[ev] == second]  # every runner-up at that mean is checked
        other = tied[0]
        # the gap between the means as printed: 0.5004 and 0.4996 both print 0.500, a gap of 0.000, not 0.001
        gap = CMP.printed(means[best], ".3f") - CMP.printed(means[other], ".3f")
        if round(gap, 3) == 0 and noise_equal(means[best], means[other]):  # equal: the pick is the tie-break
            out.append(
                f"The gap over `{other}` is {gap:.3f}: the two protocols are level and the pick is the tie-break."
            )
        elif round(gap, 3) == 0:  # 0.5004 over 0.4996 was "level ... the tie-break", which keeps gold
            a, b = CMP.apart(means[best], ".3f", means[other]), CMP.apart(means[other], ".3f", means[best])
            out.append(
                f"The two protocols are level as printed at three decimals; `{best}` leads `{other}` only in further digits "
                f"({a} against {b}), and the pick rests on them."
            )
        elif min(chosen["seeds"][ev] for ev in (best, other)) < 2:
            out.append(
                f"The gap over `{other}`, {gap:.3f}, rests on one seed of at least one protocol: no range to set it against."
            )
        else:
            widest = max(float(table.loc[ev, (PROTOCOL_SCORE, "range")]) for ev in (best, *tied))
            if round(gap, 3) > round(widest, 3):  # as printed: 0.030 is not larger than 0.030
                out.append(
                    f"The gap over `{other}`, {gap:.3f}, is larger than either protocol's range over seeds "
                    f"(at most {widest:.3f})."
                )
            else:
                out.append(
                    f"The gap over `{other}`, {gap:.3f}, is within a protocol's range over seeds ({widest:.3f}): "
                    "the seeds do not separate the protocols, and the pick is the better mean only."
                )
    if trained_on == best:
        out.append("The pipeline trains with it (params `nli_averitec.training_evidence`).")
    else:
        out.append(f"**The pipeline trains on `{trained_on}`**: params.yaml and the protocol sweep disagree.")
    return " ".join(out)


def _positive(differences: pd.Series) -> int:
    """How many differences print above 0 (`printing.signed_text`, which prints +0.0004 as "+0.0004", not
    "+0.000"): floating-point noise at 0 is none ("1 of 1 differences are positive" beside "+0.000")."""
    return int(sum(v == v and v > 0 and not noise_equal(v, 0.0) for v in differences))


def retrain_sentence(k_table: pd.DataFrame, base_k: int) -> str:
    """What retraining per k does against reading the k = `base_k` model at each k (`k_table`: long, from
    `lib.verifier.sweep.k_table`): mean and largest difference of dev macro-F1, and how many are positive."""
    wide = k_table.pivot_table(index=["planner", "k"], columns="how", values="macro_f1")
    reused = f"k={base_k} model"
    if "retrained" not in wide or reused not in wide:
        return "The protocol sweep has no retrained-per-k runs to compare."
    pairs = wide[["retrained", reused]].dropna()
    pairs = pairs[pairs.index.get_level_values("k") != base_k]
    if pairs.empty:
        return "The protocol sweep has no retrained-per-k runs to compare."
    # as the k table's printed levels subtract; levels printed alike but apart: the exact difference (+0.0004)
    d = pd.Series(
        [difference_as_printed(a - b, a, b) for a, b in zip(pairs["retrained"], pairs[reused])], index=pairs.index
    )
    if all(noise_equal(v, 0.0) for v in d):  # "changes ... by 0.000 (largest: +0.000, ...)" of no change
        return (
            f"Retraining at each k instead of reading the k = {base_k} model leaves dev macro-F1 unchanged in all "
            f"{len(d)} comparisons. One seed each: these are point estimates."
        )
    top = d.abs().max()
    largest = "; ".join(
        f"{signed_text(d[i])}, {i[0]} at k = {i[1]}" for i in d.index if math.isclose(abs(d[i]), top, rel_tol=1e-9)
    )
    return (
        f"Retraining at each k instead of reading the k = {base_k} model changes dev macro-F1 by "
        f"{signed_text(d.abs().mean()).lstrip('+')} on average (largest: {largest}); {_positive(d)} of {len(d)} "
        "differences are positive. One seed each: these are point estimates."
    )


def seed_spread_sentence(
    spread: pd.DataFrame, sweep_evidence: Mapping[str, Any] | None = None, evidence: Mapping[str, Any] | None = None
) -> str:
    """The range of the gold recipe's dev macro-F1 over the sweep's seeds (empty with one seed). The planners'
    ranges are of the top-k the sweep read (`sweep_evidence`: its retrieval setting and `k`); where that is not the
    evidence of the table the sentence qualifies (`evidence`, the same keys), they are left out (every range, gold's
    too, where k differs: k gold answers are read) and the sentence names what differs (the sweep's claim-scope
    CLAIM-ONLY ranged 0.358-0.367 beside a global-scope table whose CLAIM-ONLY read 0.338)."""
    if spread["seeds"].max() <= 1:
        return ""

    def spread_text(r: pd.Series) -> str:  # a column no seed (or one) scored has no range ("nan–nan", "0.500–0.500")
        if r["seeds"] == 0:
            return "no seed scored it"
        if r["seeds"] == 1:
            return f"{r['min']:.3f} (one seed: no range)"
        return f"{r['min']:.3f}–{r['max']:.3f}"

    seeds = int(spread["seeds"].max())
    keys, differ = evidence_differences(sweep_evidence, evidence)
    if "k" in keys:  # k gold answers too: every range is of other evidence
        shown = spread.iloc[:0]
    else:
        shown = spread[~spread.index.str.startswith(f"dev {V.PLANNER}")] if differ else spread
    if shown.empty:
        return (
            f"**Seed spread.** The pipeline trains one seed; the sweep trained this recipe with {seeds} seeds (Table 4), "
            f"but on other evidence than this table's ({differ}), so no seed range is shown for it."
        )
    left_out = f" (the planners' ranges are left out: {differ})" if differ else ""
    return (
        f"**Seed spread.** The pipeline trains one seed; the sweep trained this recipe with {seeds} "
        "seeds (Table 4), and their dev macro-F1 ranged: "
        + "; ".join(f"{idx[4:]} {spread_text(r)}" for idx, r in shown.iterrows())
        + left_out
        + ". A difference between settings smaller than these ranges is within what a change of seed does."
    )


def evidence_differences(
    sweep_evidence: Mapping[str, Any] | None, evidence: Mapping[str, Any] | None
) -> tuple[list[str], str]:
    """The keys in which the retrieved evidence the sweep read differs from a table's (retriever, scope, temporal
    filter, fusion, k), and the clause that says so; none and "" where nothing does or no table's evidence is
    given."""
    if evidence is None:
        return [], ""
    if sweep_evidence is None:
        return [], "the sweep records no retrieval setting"
    keys = sorted(set(sweep_evidence) | set(evidence), key=lambda k: (k != "k", k))
    differ = [k for k in keys if sweep_evidence.get(k) != evidence.get(k)]
    if not differ:
        return [], ""
    side = lambda setting: ", ".join(f"{k} {setting.get(k)!r}" for k in differ)  # noqa: E731
    return differ, f"the sweep's {side(sweep_evidence)} against this table's {side(evidence)}"


# --- 3. calibration ------------------------------------------------------------------------------------


def gold_calibration(report: Mapping[str, Any]) -> dict[str, Any]:
    """The temperature scaling of the gold-evidence classifier (first seed); an error when it was off."""
    cal = report["training"][f"gold/seed{report['seeds'][0]}"].get("calibration")
    if not cal:
        raise ValueError("the gold-evidence classifier was trained without calibration (classifier.calibrate: false)")
    return cal


def calibration(
    av: pd.DataFrame, label_set: str, k: int, settings: Sequence[str], temperature: float, name: Namer = str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(ECE table, reliability bins) of each setting's first-seed verdicts at k, before temperature scaling
    (T = 1, recovered exactly from the saved probabilities and T) and after."""
    labels = list(LB.LABEL_SETS[label_set])
    first = av[(av["seed"] == av["seed"].min()) & av["k"].isin([-1, k])]
    rel_rows, ece_rows = [], {}
    for setting in settings:
        sel = first[first["setting"] == setting]
        after = sel[[f"p:{lb}" for lb in labels]].to_numpy()
        gold = [labels.index(x) for x in sel["label"]]
        for when, probs in (
            ("before (T = 1)", CAL.uncalibrated(after, temperature)),
            (f"after (T = {temperature:.2f})", after),
        ):
            rel_rows.append(CAL.reliability(probs, gold).assign(setting=name(setting), when=when))
            ece_rows[(name(setting), when)] = {
                "ECE": CAL.expected_calibration_error(probs, gold),
                "mean top probability": float(probs.max(1).mean()),
                "accuracy": float(np.mean(probs.argmax(1) == np.asarray(gold))),
            }
    return pd.DataFrame(ece_rows).T, pd.concat(rel_rows, ignore_index=True)


def validation_calibration_sentence(cal: Mapping[str, Any]) -> str:
    """NLL and ECE on the validation split, where T was fitted, before and after."""
    nll, ece = cal["validation_nll"], cal["validation_ece"]
    return (
        f"Validation split (where T was fitted): NLL {nll['before']:.3f} → {nll['after']:.3f}, "
        f"ECE {ece['before']:.3f} → {ece['after']:.3f}."
    )


# --- 4. the comparison with the baseline ---------------------------------------------------------------


def comparison_table(main: pd.DataFrame, tests: pd.DataFrame, label_set: str, name: Namer = str) -> pd.DataFrame:
    """Per (setting, k): the metrics over seeds, the paired tests against the baseline, the per-class F1,
    a display name and a `mark` (*) on significant differences."""
    table = V.over_seeds(main).merge(tests[[*TEST_COLUMNS, "significant"]], on=["setting", "k"], how="left")
    per_class = main.groupby("setting", sort=False)[[f"f1:{lb}" for lb in LB.LABEL_SETS[label_set]]].mean()
    table = table.join(per_class, on="setting")
    table.insert(0, "setting name", table["setting"].map(name))
    table["mark"] = np.where(table["significant"].eq(True), "*", "")
    return table


def deltas_as_printed(
    table: pd.DataFrame, base: pd.Series | pd.DataFrame, columns: Mapping[str, str], by: str | None = None
) -> pd.DataFrame:
    """`table` with each test's difference column (a key of `columns`) as its level column (the value) subtracts
    once printed, against the baseline's row `base` (with `by`: `base` holds one baseline row per value of that
    column, e.g. each planner's own relevance selection): a reader sees 0.367 - 0.338 = 0.029, not the exact 0.028
    (`difference_as_printed`; a difference that is not of the two levels stays as tested)."""
    out = table.copy()
    rows = [base] * len(table) if by is None else [base.loc[key] for key in table[by]]
    for delta, level in columns.items():
        out[delta] = [difference_as_printed(d, a, float(b[level])) for d, a, b in zip(table[delta], table[level], rows)]
    return out


def power_sentence(
    deltas: Mapping[str, float],
    mde: Mapping[str, float],
    baseline: str,
    power: float = 0.8,
    significant: Mapping[str, bool] | None = None,
) -> str:
    """What "no significant difference" means here: how many of the settings' macro-F1 differences from the
    baseline are smaller than the minimum detectable difference (MDE) of their own paired test. A setting
    whose verdicts equal the baseline's on every claim (difference and MDE 0) is counted apart: no test can
    tell two identical lists apart. So is a setting its test found significant (`significant`): power
    qualifies a non-significance only, and a significant difference can be smaller than the MDE (which is
    what the test detects 80% of the time, not the least it can detect). Each difference is compared with its
    own MDE, and the sentence gives the range of the MDEs it compares with, never a median that a difference
    could exceed."""
    significant = dict(significant or {})
    if not deltas or set(deltas) != set(mde) or not set(significant) <= set(deltas):
        raise ValueError("need the same non-empty settings in deltas and mde (and no other in significant)")
    found = [s for s in deltas if significant.get(s) is True]
    identical = [s for s in deltas if deltas[s] == 0 and mde[s] == 0 and s not in found]
    # no MDE (too few claims for the test) or no difference: nothing to weigh ("nan to nan" was counted as reached)
    untestable = [s for s in deltas if (mde[s] != mde[s] or deltas[s] != deltas[s]) and s not in found]
    tested = [s for s in deltas if s not in identical and s not in untestable and s not in found]
    # as printed: |Δ| 0.0199 against an MDE of 0.0201 print alike (0.020), and a difference that prints as its
    # test's MDE reaches it
    below = [s for s in tested if CMP.printed(abs(deltas[s]), ".3f") < CMP.printed(mde[s], ".3f") or deltas[s] == 0]
    reach = [s for s in tested if s not in below]
    parts = []
    if found:
        parts.append(
            f"{len(found)} of {len(deltas)} differences from {baseline} are significant; power is weighed for the "
            "others only."
        )
    if identical:
        parts.append(
            f"{len(identical)} of {len(deltas)} settings give the same verdict as {baseline} on every claim: no "
            "test can tell them apart."
        )
    if untestable:
        parts.append(
            f"{len(untestable)} of {len(deltas)} settings have no defined difference from {baseline} or no minimum "
            "detectable difference (too few claims for the test): nothing can be said of their power."
        )
    if below:
        span = f"|Δ| up to {max(abs(deltas[s]) for s in below):.3f}"
        mdes = f"{min(mde[s] for s in below):.3f} to {max(mde[s] for s in below):.3f} macro-F1"
        which = f"All {len(below)}" if not reach else f"{len(below)} of {len(tested)}"
        rest = "other " if identical or untestable or found else ""
        parts.append(
            f"{which} {rest}differences from {baseline} ({span}) are each smaller than the smallest difference "
            f"their own paired test detects with {share_text(power)} power ({mdes}): their non-significance says the test "
            "cannot see differences this small, not that the settings are equal."
        )
    if reach:
        mdes = f"{min(mde[s] for s in reach):.3f} to {max(mde[s] for s in reach):.3f} macro-F1"
        parts.append(
            f"{len(reach)} of {len(tested)} differences from {baseline} reach the smallest difference their own test "
            f"detects with {share_text(power)} power ({mdes})."
        )
    return " ".join(parts)


def power_paragraph(table: pd.DataFrame, baseline: str, power: float, name: Namer = str) -> str:
    """`power_sentence` over the planners other than the baseline."""
    compared = table[(table["kind"] == "planner") & (table["setting"] != baseline)]
    return power_sentence(
        dict(zip(compared["setting name"], compared["delta_macro_f1"])),
        dict(zip(compared["setting name"], compared["mde_macro_f1"])),
        name(baseline),
        power,
        dict(zip(compared["setting name"], compared["significant"].eq(True))),
    )


def confusion(av: pd.DataFrame, setting: str, k: int, label_set: str) -> pd.DataFrame:
    """The first seed's confusion matrix of one setting (rows gold, columns predicted), short labels."""
    labels = LB.LABEL_SETS[label_set]
    first = av[av["seed"] == av["seed"].min()]
    sel = first[(first["setting"] == setting) & first["k"].isin([-1, k])]
    cm = N.classification_scores(sel["label"].tolist(), sel["pred"].tolist(), labels)["confusion"]
    short = [
        lb.split("/")[0].replace("Not Enough Evidence", "NEE").replace("Conflicting Evidence", "Conflicting")
        for lb in labels
    ]
    return pd.DataFrame(cm, index=short, columns=short)


# --- 5-6. label-set reductions and the k ablation ------------------------------------------------------


def reductions(av: pd.DataFrame, label_set: str, k: int, settings: Sequence[str], name: Namer = str) -> pd.DataFrame:
    """Accuracy and macro-F1 over seeds of the classifier read in its own label set and every coarser one
    (a 4-way classifier in the 4-, 3- and 2-way sets), for the `settings` that ran (in that order)."""
    at_k = av[av["k"].isin([-1, k])]
    present = [s for s in settings if s in set(at_k["setting"])]
    red = pd.concat(
        {
            t: V.over_seeds(V.setting_scores(at_k, label_set, t))
            .set_index("setting")
            .loc[present, ["accuracy_mean", "macro_f1_mean"]]
            for t in REDUCTIONS[REDUCTIONS.index(label_set) :]
        },
        axis=1,
    )
    red.index = red.index.map(name)
    return red


def merged_class_sentence(av: pd.DataFrame, setting: str, k: int, label_set: str, name: Namer = str) -> str:
    """In the 3-way reading, the share of one setting's verdicts and of gold in the merged class, and what
    that says about the collapse rule."""
    rows = av[(av["setting"] == setting) & (av["k"] == k)]
    if rows.empty:  # "nan% ... (gold: nan%). The collapse rule does not favour the merged class here"
        return (
            f"In the 3-way reading, the {name(setting)} setting has no verdicts at k = {k}: its share in the merged "
            "class is undefined."
        )
    gold, pred = V.read_labels(rows, label_set, "averitec3")
    p_share, g_share = np.mean(np.array(pred) == LB.OTHER), np.mean(np.array(gold) == LB.OTHER)
    favours = share_shown(p_share) > share_shown(g_share)  # as printed: 50.1% against 49.9% is level
    return (
        f"In the 3-way reading, {share_text(p_share)} of the {name(setting)} claims go to the merged class (gold: "
        f"{share_text(g_share)}). "
        + (
            "Summing two probabilities that the class-weighted loss has pushed up favours the merged class, so this "
            "reading says more about the collapse rule than about the evidence; "
            if favours
            else "The collapse rule does not favour the merged class here; "
        )
        + "training on the 3-way set directly (`nli_averitec.label_set: averitec3`) is the cleaner comparison."
    )


def k_ablation(scores: pd.DataFrame, name: Namer = str) -> pd.DataFrame:
    """Metrics over seeds per (setting, k > 0), with a display name and `drawn`: whether the setting ran
    at more than one k (a line needs two points). The other scopes' settings (`planner_scope`, one k) are
    left out: §4 compares them."""
    abl = V.over_seeds(scores[(scores["k"] > 0) & (scores["kind"] != "planner_scope")])
    abl["setting name"] = abl["setting"].map(name)
    abl["drawn"] = abl.groupby("setting")["k"].transform("nunique") > 1
    return abl


# --- 7-8. retrieval gains and the rescored AVeriTeC evidence ------------------------------------------


def retrieval_gains(
    runs: pd.DataFrame,
    qrels: Mapping,
    answer_match: Mapping,
    table: pd.DataFrame,
    baseline: str,
    measure: str,
    name: Namer = str,
) -> pd.DataFrame:
    """Per planner (display names as index): `measure` of its run under the study's qrels and under the
    answer-match variant, its macro-F1, and both relative gains (%) over the baseline planner."""
    strip = len(V.PLANNER)
    planners = [s[strip:] for s in table["setting"].unique() if s.startswith(V.PLANNER)]

    def measured(q: Mapping) -> pd.Series:
        return RU.evaluate_grid(runs, q, [measure], plan=planners).set_index("plan")[measure]

    ret = measured(qrels)
    f1 = table.set_index("setting")["macro_f1_mean"]
    gains = pd.DataFrame(
        {
            measure: ret,
            "macro_f1": f1.rename(lambda s: s[strip:] if s.startswith(V.PLANNER) else s).reindex(ret.index),
            f"{measure} (answer_match)": measured(answer_match).reindex(ret.index),
        }
    )
    b = baseline[strip:]
    for gain, column in (("retrieval gain %", measure), ("verdict gain %", "macro_f1")):
        base = gains.loc[b, column]  # a baseline at 0 leaves no relative gain: undefined, not inf% (or nan% of 0/0)
        gains[gain] = 100 * (gains[column] / base - 1) if base and base == base else np.nan
    gains.index = gains.index.map(lambda p: name(V.PLANNER + p))
    return gains


def rescored(
    evidence: pd.DataFrame,
    av: pd.DataFrame,
    dev: Sequence,
    train: Sequence,
    k: int,
    level: float,
    name: Namer = str,
    label_set: str = "averitec4",
) -> pd.DataFrame:
    """Per planner with scored evidence: Q+A, accuracy and the AVeriTeC score at `level` with the majority
    verdict (notebook 05), with the classifier's verdict from the planner's own evidence (k pieces), and with
    that verdict reduced to two classes (Supported or Refuted, Papelo's choice; the `label_set` classifier's
    probabilities read in `averitec2`)."""
    at_k = av["setting"][av["k"] == k].unique()
    planners = [s[len(V.PLANNER) :] for s in at_k if s.startswith(V.PLANNER)]
    dev = [c for c in dev if c.claim_id in set(av["claim_id"])]
    col = f"{level:g}"
    rows = {}
    for p in planners:
        t = evidence[(evidence["run"] == p) & evidence["claim_id"].isin(av["claim_id"])]
        if t.empty:
            continue
        verdicts = E.verdicts("nli", dev, train, V.nli_verdicts(av, V.PLANNER + p, k))
        two = E.verdicts("nli", dev, train, V.nli_verdicts(av, V.PLANNER + p, k, None, label_set, "averitec2"))
        maj, cls = SC.summarise(t, [level]), SC.summarise(E.with_verdicts(t, verdicts), [level])
        cls2 = SC.summarise(E.with_verdicts(t, two), [level])
        rows[name(V.PLANNER + p)] = {
            "Q+A": maj["qa"],
            "accuracy (majority)": maj["accuracy"],
            "accuracy (classifier)": cls["accuracy"],
            "accuracy (classifier, 2 classes)": cls2["accuracy"],
            f"AVeriTeC@{col} (majority)": maj["averitec"][col],
            f"AVeriTeC@{col} (classifier)": cls["averitec"][col],
            f"AVeriTeC@{col} (classifier, 2 classes)": cls2["averitec"][col],
        }
    return pd.DataFrame(rows).T


# --- 9-10. QuanTemp ------------------------------------------------------------------------------------


def taxonomy_sentence(report: Mapping[str, Any]) -> str:
    """The taxonomy classifier's cross-validated quality against the majority guess, and the test claims
    without a snippet."""
    tax = report["taxonomy"]
    return (
        f"Taxonomy classifier (MiniLM embeddings + logistic regression) on {tax['claims']} labelled claims: "
        f"{tax['folds']}-fold cross-validated accuracy **{tax['cv_accuracy']:.3f}** (sd {tax['cv_accuracy_sd']:.3f}), "
        f"macro-F1 {tax['cv_macro_f1']:.3f}; always guessing the largest class scores {tax['majority_share']:.3f}. "
        f"Class counts: {tax['class_counts']}. {report['test_without_snippets']} of {report['test_claims']} "
        f"test claims have no BM25 snippet."
    )


def by_taxonomy(qt: pd.DataFrame, name: Namer = str) -> tuple[pd.DataFrame, pd.Series]:
    """(macro-F1 over seeds per setting and predicted claim type, test claims per type)."""
    by_tax = V.over_seeds(
        V.setting_scores(qt, "quantemp3", by=("setting", "taxonomy", "seed")), by=("setting", "taxonomy")
    )
    by_tax["setting name"] = by_tax["setting"].map(name)
    return by_tax, qt[qt["setting"] == "naive"]["taxonomy"].value_counts()


def published_table(published: pd.DataFrame, baseline: str, n_resamples: int, seed: int) -> pd.DataFrame:
    """Each published QuanTemp system on the claims it matched: accuracy, macro- and weighted-F1, and the
    paired tests against `baseline` on the claims both matched."""
    labels = LB.LABEL_SETS["quantemp3"]
    base = published[published["system"] == baseline].set_index("row_id")
    rows = []
    for system, g in published.groupby("system", sort=False):
        sc = N.classification_scores(g["label"].tolist(), g["pred"].tolist(), labels)
        row = {"system": system, "matched claims": len(g), **{m: sc[m] for m in METRICS}}
        common = g.set_index("row_id").index.intersection(base.index)
        if system != baseline and len(common):
            gg = g.set_index("row_id").loc[common]
            t = V.paired_tests(
                gg["label"].tolist(), gg["pred"].tolist(), base.loc[common, "pred"].tolist(), labels, n_resamples, seed
            )
            row.update({k: t[k] for k in ("delta_macro_f1", "p_bootstrap", "p_mcnemar")})
        rows.append(row)
    return pd.DataFrame(rows).set_index("system")


def published_sentence(counts: Mapping[str, Any]) -> str:
    """How many gold-labelled test claims each published system matched."""
    return (
        f"{counts['gold_subset']} gold-labelled test claims ({counts['distinct_gold_claims']} distinct); "
        + ", ".join(f"`{s}` matched {n} of them by normalised claim text" for s, n in counts["matched"].items())
        + "."
    )


# --- the conclusion ------------------------------------------------------------------------------------


def against_none(tests: pd.DataFrame, planners: Sequence[str], k: int) -> dict[str, int]:
    """How many `planners` score significantly higher, lower, or tie with the no-evidence classifier
    (`tests`: `against_baseline` with that baseline)."""
    t = tests[tests["setting"].isin(planners) & (tests["k"] == k)]
    sig = t["significant"].eq(True)
    higher, lower = int((sig & (t["delta_macro_f1"] > 0)).sum()), int((sig & (t["delta_macro_f1"] < 0)).sum())
    return {"higher": higher, "lower": lower, "tie": len(planners) - higher - lower}


def gold_gap_line(t: pd.DataFrame) -> str:
    """Gold evidence against the best planner's retrieved evidence, in macro-F1 (`t`: the comparison table
    indexed by setting); levels that print alike at three decimals have no gap."""
    best = t.loc[t["kind"] == "planner", "macro_f1_mean"].max()
    gold = t.loc["gold", "macro_f1_mean"]
    if gold != gold or best != best:  # an undefined gold score or no planner row: "+nan ... no gap"
        return "- Gold evidence vs the best retrieved evidence: undefined (no gold score or no planner to compare)."
    text = f"- Gold evidence vs the best retrieved evidence: {difference_text(gold, best)} macro-F1"
    gap = printed_difference(gold, best)  # decided as the levels print: 0.300 and 0.300 have no gap (+0.0008 exact)
    if gap > 0.0005:
        return (
            text + "; the classifier was trained on gold answers, so part of this gap is the train/test shift of §11."
        )
    if gap < -0.0005:
        return text + ": the best planner's retrieved evidence scores higher than the gold (point estimates)."
    return text + ": no gap at three decimals, the retrieved evidence does as well as the gold."


def justification_line(t: pd.DataFrame, n_claims: int) -> str:
    """The fact-checkers' justification against the gold answers (`t`: the comparison table indexed by
    setting, over `n_claims` dev claims): the upper bound the thesis' GOLD row stands for, read here by the
    gold-answer classifier. Point estimates: the sentence says so."""
    just, gold = t.loc[V.JUSTIFICATION, "macro_f1_mean"], t.loc[V.GOLD, "macro_f1_mean"]
    best = t.loc[t["kind"] == "planner", "macro_f1_mean"].max()
    if just != just or gold != gold:  # NaN was "level with" the gold answers
        return (
            f"- The fact-checkers' justification (the thesis' GOLD row): no macro-F1 to compare "
            f"({'justification' if just != just else 'gold answers'} undefined: no verdict scored)."
        )
    j, g = CMP.printed(just, ".3f"), CMP.printed(gold, ".3f")  # as printed (numpy's round(0.2005, 3) is 0.2)
    order = "above" if j > g else "below" if j < g else "level with"
    against = (  # no planner row: "+nan against the best planner"
        f"{difference_text(just, best)} against the best planner's retrieved evidence"
        if best == best
        else "no planner to compare with"
    )
    return (
        f"- The fact-checkers' justification (the thesis' GOLD row): macro-F1 {just:.3f}, {order} the gold answers "
        f"({gold:.3f}) and {against}. The classifier read it "
        "as one evidence piece after training on gold answers; the thesis trained its GOLD model on the "
        f"justification itself. Point estimates on {n_claims} dev claims, not tested."
    )


def scope_comparison(scores: pd.DataFrame, k: int, name: Namer = str) -> pd.DataFrame:
    """Each planner's macro-F1 (mean over seeds) with its top-k from the main scope and from every other scope
    that ran (settings `planner:<name>@<scope>`), and the difference, one row per planner."""
    at_k = V.over_seeds(scores[scores["k"] == k])
    scoped = at_k[at_k["kind"] == "planner_scope"]
    rows = []
    for setting, f1 in zip(scoped["setting"], scoped["macro_f1_mean"]):
        main, _, scope = setting.partition(V.SCOPE_MARK)
        main_f1 = at_k.loc[at_k["setting"] == main, "macro_f1_mean"]
        if len(main_f1):
            main_f1 = float(main_f1.iloc[0])
            rows.append({"setting": setting, "planner": name(main), "scope": scope, "main scope": main_f1,
                         "other scope": f1, "difference": f1 - main_f1})  # fmt: skip
    return pd.DataFrame(rows, columns=["setting", "planner", "scope", "main scope", "other scope", "difference"])


def scope_sentence(comparison: pd.DataFrame, main_scope: str, n_claims: int) -> str:
    """How the planners fare when they read from another scope: how many gain, and whether the spread
    between planners (best minus worst macro-F1) narrows or widens; point estimates over `n_claims` dev
    claims, which the sentence says."""
    if comparison.empty:
        return "No other retrieval scope was read (params `nli_averitec.scope_variants`)."
    out = []
    for scope, g in comparison.groupby("scope", sort=False):
        scored = g["main scope"].notna() & g["other scope"].notna()  # a planner without a figure is left out, named
        missing = [str(p) for p in g.loc[~scored, "planner"]] if "planner" in g else [str(i) for i in g.index[~scored]]
        g = g[scored]
        if g.empty:
            out.append(f"From the {scope} scope no planner has a macro-F1 in both scopes ({CMP.and_list(missing)}).")
            continue
        # as the table's printed levels read: 0.301 - 0.200 against 0.300 - 0.201 is 0.101 against 0.099, not 0.100
        # twice from the exact spreads
        main, other = (g[c].map(lambda v: CMP.printed(v, ".3f")) for c in ("main scope", "other scope"))
        a, b = round(other.max() - other.min(), 3), round(main.max() - main.min(), 3)
        trend = "wider" if a > b else "narrower" if a < b else "the same"
        differences = pd.Series(
            [difference_as_printed(o - m, o, m) for o, m in zip(g["other scope"], g["main scope"])], index=g.index
        )
        spread = (
            f"the spread between planners is {a:.3f} there against {b:.3f} ({trend})"
            if len(g) > 1
            else "one planner has no spread to compare"
        )
        out.append(
            f"From the {scope} scope, {_positive(differences)} of {len(g)} planners score a higher "
            f"macro-F1 than from the {main_scope} scope (mean difference {signed_text(differences.mean())}); {spread}"
            + (f" ({CMP.and_list(missing)} without a figure in both scopes, left out)." if missing else ".")
        )
    return " ".join(out) + f" (Point estimates on {n_claims} dev claims, not tested.)"


def top_group(
    preds: pd.DataFrame,
    settings: Sequence[str],
    k: int,
    source: str,
    n_resamples: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
) -> CMP.TopGroup:
    """Of `settings`, the one with the best macro-F1 at `k` on the first seed and every setting that the paired
    bootstrap of macro-F1 against it (`lib.verifier.veracity.against_baseline`, which reads the first seed),
    with Holm over these comparisons, cannot separate from it: "the best planner" as a tested group. The
    order and the means shown are the first seed's, the seed the test reads."""
    if not settings:
        raise ValueError("top_group: no setting to compare")
    sub = preds[preds["setting"].isin(settings) & (preds["k"] == k)]
    first = sub[sub["seed"] == sub["seed"].min()]
    missing = [s for s in settings if s not in set(first["setting"])]
    if missing:
        raise ValueError(f"top_group: no predictions at k = {k} for {missing}")
    f1 = V.setting_scores(first, source).set_index("setting")["macro_f1"]
    order = sorted(settings, key=lambda s: (-f1[s], s))
    best, others = order[0], order[1:]
    tests = V.against_baseline(sub, (best, k), source, n_resamples, seed, alpha).set_index("setting")
    adjusted = SIG.holm([tests.loc[s, "p_bootstrap"] for s in others]) if others else []
    return CMP.TopGroup(
        setting=f"k = {k}",
        means={s: float(f1[s]) for s in order},
        p={s: float(a) for s, a in zip(others, adjusted)},
        claims=int(first[first["setting"] == best]["claim_id"].nunique()),
        alpha=alpha,
    )


def conclusion(
    t: pd.DataFrame,
    baseline: str,
    k: int,
    alpha: float,
    vs_none: Mapping[str, int],
    power_text: str,
    top: CMP.TopGroup,
    name: Namer = str,
) -> list[str]:
    """The AVeriTeC lines of the conclusion: the settings' macro-F1, the planners' top group (`top_group`),
    the planners against no evidence and against the baseline (`t`: the comparison table indexed by setting)."""
    plans = t[t["kind"] == "planner"]
    f = plans["macro_f1_mean"]
    sig = [name(s) for s in plans.index if s != baseline and plans["significant"].eq(True)[s]]
    none = t.loc["claim_only_no_evidence", "macro_f1_mean"]
    return [
        f"- AVeriTeC dev, k = {k}: macro-F1 NAIVE {t.loc['naive', 'macro_f1_mean']:.3f}, CLAIM-ONLY-NO-EVIDENCE {none:.3f}, "
        f"GOLD evidence {t.loc['gold', 'macro_f1_mean']:.3f}, {name(baseline)} retrieval "
        f"{t.loc[baseline, 'macro_f1_mean']:.3f}; the best planner: {CMP.top_sentence(top, name)} (paired bootstrap against "
        f"it, Holm over {CMP.comparisons_made({top.setting: top})}).",
        f"- Against the classifier that sees no evidence at all ({none:.3f}; paired bootstrap, p < {alpha}), "
        f"{vs_none['higher']} of {len(plans)} planners' evidence scores significantly higher, {vs_none['lower']} lower, "
        f"and {vs_none['tie']} are indistinguishable from it; planners span {f.min():.3f}–{f.max():.3f}, a range of "
        f"{CMP.printed(f.max(), '.3f') - CMP.printed(f.min(), '.3f'):.3f}.",  # the ends as printed beside it
        f"- Against {name(baseline)} (paired bootstrap of macro-F1, p < {alpha}): "
        + (
            f"{len(sig)} planner(s) differ significantly: {', '.join(sig)}."
            if sig
            else "no planner differs significantly."
        )
        + " "
        + power_text,
    ]


def recipe_line(chosen: Mapping[str, Any], in_use: bool, temperature: float, ece: pd.DataFrame) -> str:
    """The sweep's recipe, whether the pipeline uses it, and what temperature scaling does to the dev ECE of
    gold-evidence verdicts (`ece`: `calibration`'s table, gold first, before then after)."""
    return (
        f"- Recipe: the validation sweep picks learning rate {VS.rate_text(chosen['learning_rate'])} and {epochs_text(chosen['epochs'])}"
        + (" (the pipeline's setting)" if in_use else " (**not** the pipeline's setting)")
        + f"; temperature scaling (T = {temperature:.2f}) moves the dev ECE of gold-evidence verdicts from "
        f"{ece.iloc[0]['ECE']:.3f} to {ece.iloc[1]['ECE']:.3f} without changing a verdict."
    )


def _largest_gain(gains: pd.DataFrame, measure: str, top: Sequence[str]) -> str:
    if not top:
        return f"no planner has a {measure} to compare"
    if not np.isfinite(gains.loc[top[0], "retrieval gain %"]):  # the baseline scores 0: "inf%", "nan%", "tied"
        return (
            f"no relative {measure} gain is defined (the baseline's {measure} is 0 or undefined); the largest {measure}: "
            f"{CMP.leader_phrase(gains[measure])}"
        )
    retrieval = f"{CMP.end_text(gains.loc[top[0], 'retrieval gain %'], '.0f')}%"
    if len(top) == 1:
        return (
            f"the planner with the largest {measure} gain, {top[0]}, gains {retrieval} in retrieval and "
            f"{_verdict_gain(gains.loc[top[0], 'verdict gain %'])} in macro-F1"
        )
    verdict = CMP.and_list([_verdict_gain(gains.loc[t, "verdict gain %"]) for t in top])
    # tied as whole percents print, so their gain is said at that precision ("tied, gain 0.4%" of +0.4%, +0.3%
    # and -0.2%: the first one's figure with the decimals that told them apart)
    tied = f"{unsigned_zero(format(gains.loc[top[0], 'retrieval gain %'], '.0f'))}%"
    return (
        f"the planners with the largest {measure} gain, {CMP.and_list(top)} (tied), each gain {tied} in retrieval "
        f"(whole percents) and {verdict} in macro-F1"
    )


def _verdict_gain(value: float) -> str:
    """A relative macro-F1 gain in words: "5.0%", "-0.01%" (not "-0.0%"), or undefined where the baseline's
    macro-F1 is 0 ("nan%")."""
    if value != value:
        return "an undefined gain (the baseline's macro-F1 is 0 or undefined)"
    return f"{CMP.end_text(value, '.1f')}%"


def _best(values: pd.Series) -> str:
    """ "A 0.300", or "A and B tied at 0.300": the best of a column, a tie named whole."""
    top = CMP.highest(values, ".3f")  # as printed: 0.3004 and 0.3001 tie at 0.300
    if not top:  # every one NaN: an IndexError
        return "undefined (no score)"
    if len(top) == 1:
        return f"{top[0]} {values[top[0]]:.3f}"
    return f"{CMP.and_list(top)} tied at {values[top[0]]:.3f}"


def retrieval_line(gains: pd.DataFrame, measure: str, rho: tuple[float, float, float], p: float) -> str:
    """The planner with the largest retrieval gain, its verdict gain, and the rank correlation of retrieval
    and macro-F1 over the planners: its bootstrap interval where one is defined, and the permutation test's
    p (`lib.evaluation.significance.spearman_permutation`), which alone decides the direction over a handful
    of planners."""
    # a tie named whole, the gains compared as printed (whole percents); a baseline at 0 leaves no gain to print
    finite = gains["retrieval gain %"].where(np.isfinite(pd.to_numeric(gains["retrieval gain %"], errors="coerce")))
    top = CMP.highest(finite, ".0f") or CMP.highest(gains[measure], ".3f")
    r, lo, hi = rho
    interval = (
        "no bootstrap interval" if np.isnan(lo) else f"bootstrap [{CMP.end_text(lo, '.2f')}, {CMP.end_text(hi, '.2f')}]"
    )
    test = "no permutation test" if np.isnan(p) else f"permutation p = {p_text(p)}"
    if np.isnan(p):
        call = "no correlation can be read (one side is the same for every planner)"
    elif CMP.rho_text(r, len(gains)).startswith("undefined"):  # no direction of a ρ printed "undefined"
        call = "no direction can be read of an undefined correlation"
    elif p < 0.05 and not noise_equal(r, 0.0):  # a ρ of 1e-17 printed 0.00 beside "positive"
        call = "positive" if r > 0 else "negative"
    else:
        call = "no evidence of a relation"
    return (
        f"- Retrieval vs verdicts: {_largest_gain(gains, measure, top)} (the thesis: 74% became 6.6%). Spearman correlation of {measure} and macro-F1 over the "
        f"{len(gains)} planners, whose macro-F1 spans {gains['macro_f1'].max() - gains['macro_f1'].min():.3f}: "
        f"{CMP.end_text(r, '.2f') if call in ('positive', 'negative') else CMP.rho_text(r, len(gains))} "  # apart from 0
        f"({interval}; {test}): {call}."
    )


def rescored_line(table: pd.DataFrame, level: float) -> str:
    """The best AVeriTeC score with the classifier's verdicts against the best with the majority verdict, and
    the 2-class reading against the 4-class one; point estimates, which the sentence says."""
    cls, maj = table[f"AVeriTeC@{level:g} (classifier)"], table[f"AVeriTeC@{level:g} (majority)"]
    two = table[f"AVeriTeC@{level:g} (classifier, 2 classes)"]
    both = cls.notna() & two.notna()  # a planner without one of the scores is compared with nothing
    higher = _positive((two.map(lambda v: CMP.printed(v, ".3f")) - cls.map(lambda v: CMP.printed(v, ".3f")))[both])
    unscored = [str(p) for p in table.index[~both]]
    best_majority = f"{maj.max():.3f}" if maj.notna().any() else "undefined (no score)"
    return (
        f"- AVeriTeC@{level:g} with the classifier's verdicts: best {_best(cls)}, against "
        f"{best_majority} at best with the majority verdict. Read in two classes (Supported or Refuted, as "
        f"Papelo), the best is {_best(two)}; "
        + (
            f"the 2-class verdicts score higher than the 4-class ones for {higher} of {int(both.sum())} planners"
            if both.any()
            else "no planner has both scores to compare"
        )
        + (f" ({CMP.and_list(unscored)} without both scores)" if unscored and both.any() else "")
        + " (point estimates, not tested)."
    )


def quantemp_lines(qt_t: pd.DataFrame, report: Mapping[str, Any], published: pd.DataFrame) -> list[str]:
    """The QuanTemp lines of the conclusion: the settings' macro-F1, the taxonomy classifier, the published
    systems (`qt_t`: the QuanTemp comparison table indexed by setting)."""
    counts = report["published"]
    return [
        f"- QuanTemp: macro-F1 NAIVE {qt_t.loc['naive', 'macro_f1_mean']:.3f}, claim only "
        f"{qt_t.loc['claim_only_no_evidence', 'macro_f1_mean']:.3f}, with BM25 snippets "
        f"{qt_t.loc['bm25_snippets', 'macro_f1_mean']:.3f} (p = {p_text(qt_t.loc['bm25_snippets', 'p_bootstrap'])}); the "
        f"taxonomy classifier's cross-validated accuracy is {report['taxonomy']['cv_accuracy']:.3f}.",
        f"- Published QuanTemp systems on {counts['gold_subset']} gold claims: macro-F1 "
        + ", ".join(f"{s} {r['macro_f1']:.3f}" for s, r in published.iterrows())
        + ".",
    ]


# --- the metrics file ----------------------------------------------------------------------------------


def averitec_metrics(
    report: Mapping[str, Any],
    t: pd.DataFrame,
    baseline: str,
    reduced: pd.DataFrame,
    ablation: pd.DataFrame,
    rho: tuple[float, float, float, float],
    temperature: float,
    ece: pd.DataFrame,
    chosen: Mapping[str, Any],
    in_use: bool,
    rescored_table: pd.DataFrame,
    level: float,
) -> dict[str, Any]:
    """The AVeriTeC part of `outputs/metrics/nli.json` (`t`: the comparison table indexed by setting; `rho`: the
    retrieval-verdict Spearman, its bootstrap interval and its permutation p)."""
    others = [s for s in t.index if s != baseline]
    return {
        "label_set": report["label_set"],
        "k": report["k"],
        "seeds": report["seeds"],
        "settings": {s: {m: float(t.loc[s, f"{m}_mean"]) for m in METRICS} for s in t.index},
        "against_baseline": {
            s: {
                "delta_macro_f1": float(t.loc[s, "delta_macro_f1"]),
                "p_bootstrap": float(t.loc[s, "p_bootstrap"]),
                "p_mcnemar": float(t.loc[s, "p_mcnemar"]),
                "significant": None if pd.isna(t.loc[s, "significant"]) else bool(t.loc[s, "significant"]),
            }
            for s in others
        },
        "reductions": {
            target: {n: float(v) for n, v in reduced[(target, "macro_f1_mean")].items()}
            for target in dict.fromkeys(reduced.columns.get_level_values(0))
            if target != report["label_set"]
        },
        "ablation_macro_f1": {
            f"{s}@{k}": float(v) for s, k, v in zip(ablation["setting"], ablation["k"], ablation["macro_f1_mean"])
        },
        "retrieval_vs_verdict_spearman": dict(zip(("rho", "low", "high", "permutation_p"), map(float, rho))),
        "mde_macro_f1": {
            s: float(t.loc[s, "mde_macro_f1"]) for s in others if t.loc[s, "mde_macro_f1"] == t.loc[s, "mde_macro_f1"]
        },
        "calibration": {
            "temperature": float(temperature),
            "dev_ece": {f"{s}|{w}": float(v) for (s, w), v in ece["ECE"].items()},
        },
        "sweep_pick": {key: chosen[key] for key in ("learning_rate", "epochs")} | {"in_use": bool(in_use)},
        f"averitec@{level:g}_classifier": {
            p: float(v) for p, v in rescored_table[f"AVeriTeC@{level:g} (classifier)"].items()
        },
        # the classifier's verdicts read in two classes (Papelo's 2-class verdicts against its 4-class ablation)
        f"averitec@{level:g}_classifier_2class": {
            p: float(v) for p, v in rescored_table[f"AVeriTeC@{level:g} (classifier, 2 classes)"].items()
        },
        "accuracy_classifier_2class": {
            p: float(v) for p, v in rescored_table["accuracy (classifier, 2 classes)"].items()
        },
    }


def quantemp_metrics(
    qt_t: pd.DataFrame, by_tax: pd.DataFrame, report: Mapping[str, Any], published: pd.DataFrame
) -> dict[str, Any]:
    """The QuanTemp part of `outputs/metrics/nli.json` (`qt_t`: the comparison table indexed by setting)."""
    return {
        "settings": {s: {m: float(qt_t.loc[s, f"{m}_mean"]) for m in METRICS} for s in qt_t.index},
        "by_taxonomy_macro_f1": {
            f"{s}/{tx}": float(v) for s, tx, v in zip(by_tax["setting"], by_tax["taxonomy"], by_tax["macro_f1_mean"])
        },
        "taxonomy_cv_accuracy": report["taxonomy"]["cv_accuracy"],
        "published": {
            s: {"matched": int(r["matched claims"]), "macro_f1": float(r["macro_f1"]), "accuracy": float(r["accuracy"])}
            for s, r in published.iterrows()
        },
    }
