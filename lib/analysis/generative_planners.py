"""Generative query planners compared (notebook 06): the tables, sentences and metrics of QGEN, multi-hop
pursuit, the MMR filter and the prompted planners against the study's baselines.

Reads what the generative stages wrote (`lib.planning.generative`): the stage report (`report`: the LLM's
counters, the planners skipped and why, how each pursuit stopped), the runs report (`runs_report`: the
grid, the plan statistics), QGEN's training report, the runs and the evidence scores. Planners are named
by their plan name (`claim_only`, `qgen`, `pursuit_seq_seq`, ...) and shown through `label`, a mapping
from plan name to display name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib.analysis import errors as ER
from lib.averitec import scoring as SC
from lib.data.averitec import Claim
from lib.evaluation import comparisons as CMP
from lib.evaluation import significance as SIG
from lib.evaluation.printing import difference_as_printed, p_text, printed, share_text
from lib.params import section
from lib.planning import generative as G
from lib.planning import mmr as MMR
from lib.planning import planners as P
from lib.planning.pursuit import FILL_UPS, Trace
from lib.retrieval import runs as RU

LLM_COUNTERS = ("requests", "cache_hits", "answered", "retries", "failures", "parse_failures")
STATS_COLUMNS = [
    "claims",
    "empty_plans",
    "queries_per_claim",
    "queries_per_claim_median",
    "tokens_per_query",
    "redundancy",
]


# --- 1-3. what ran, what QGEN cost, the plans ---------------------------------------------------------


def load_plans(order: Sequence[str], *folders: Path) -> dict[str, dict[int, list[str]]]:
    """Each planner's plan from the folders holding `<plan>.jsonl` (a later folder's plan wins)."""
    plans: dict[str, dict[int, list[str]]] = {}
    for folder in folders:
        plans |= RU.load_plans([p for p in order if (Path(folder) / f"{p}.jsonl").exists()], folder)
    return plans


def status(order: Sequence[str], skipped: Mapping[str, str], label: Mapping[str, str]) -> pd.DataFrame:
    """One row per planner: `ran`, or `skipped: <why>`."""
    rows = [{"planner": label[p], "status": "ran"} for p in order]
    rows += [{"planner": label[p], "status": f"skipped: {why}"} for p, why in skipped.items()]
    return pd.DataFrame(rows).set_index("planner")


def llm_sentence(report: Mapping[str, Any]) -> str:
    """The LLM endpoint's mode, model and counters, and what a run without one skipped."""
    llm = report["llm"]
    text = (
        f"LLM endpoint: mode `{llm['settings']['mode']}`, model `{llm['settings']['model']}`; "
        + ", ".join(f"{k.replace('_', ' ')} {llm[k]}" for k in LLM_COUNTERS)
        + ". "
    )
    if report["skipped"]:
        text += (
            "**No LLM was configured, so the prompted planners and the LLM pursuit variants are skipped**; set "
            "`llm.mode: live` with an endpoint (README) to run them, or `replay` with a cache of their answers."
        )
    return text


def qgen_cost(training: Mapping[str, Any], seconds: float | None = None) -> pd.Series:
    """What QGEN's training cost and where it ended (its training report)."""
    s = training["settings"]
    trainable, total = training["trainable_parameters"] / 1e6, training["parameters"] / 1e6
    return pd.Series(
        {
            "base model": s["model"],
            "device": training["device"],
            "train claims (fitting / validation)": f"{training['fit_claims']:,} / {training['validation_claims']:,}",
            "training examples (both tasks)": training["examples"],
            "of them ClaimDecomp decompositions": training["decomposition_examples"],
            "learning rate": s["learning_rate"],
            "steps run / planned": f"{training['steps_run']} / {training['steps']} ({s['epochs']} epochs at most)",
            "stopped early": training["stopped_early"],
            "best validation loss (step)": f"{training['best']['val_loss']:.3f} ({training['best']['step']})",
            "decoder layers": s["decoder_layers"],
            "encoder frozen": s["freeze_encoder"],
            "trainable / all parameters (M)": f"{trainable:.1f} / {total:.1f}",
            "training time (s)": "not measured here" if seconds is None else round(seconds, 1),
            "final training loss": round(training["loss_curve"][-1]["loss"], 3),
        }
    )


def question_quality(
    plans: Mapping[str, Mapping[int, Sequence[str]]],
    claims: Sequence[Claim],
    order: Sequence[str],
    label: Mapping[str, str],
) -> pd.DataFrame:
    """Whether a planner's questions are usable queries, per planner over `claims`: the share of claims with an
    empty plan, questions per claim, its most common question and the share of claims that ask it (a
    generic question asked everywhere finds the same documents for every claim), and the copy rate: the
    share of the questions' content words that the claim contains (`lib.analysis.errors.coverage`). Empty
    plans and questions per claim are `lib.planning.planners.plan_stats` of the case-folded distinct questions."""
    rows = []
    for p in order:
        plan = plans.get(p, {})
        asked = [list(dict.fromkeys(q.strip().lower() for q in plan.get(c.claim_id, []))) for c in claims]
        stats = P.plan_stats(dict(enumerate(asked)))
        counts = pd.Series([q for qs in asked for q in qs], dtype=object).value_counts()
        cover = [ER.coverage(q, c.text) for c, qs in zip(claims, asked) for q in qs]
        rows.append(
            {
                "planner": label[p],
                "empty plans": stats["empty_plans"] / stats["claims"],
                "questions per claim": stats["queries_per_claim"],
                "most common question": counts.index[0] if len(counts) else "",
                "claims asking it": counts.iloc[0] / len(claims) if len(counts) else 0.0,
                "copy rate": float(np.mean(cover)) if cover else float("nan"),
            }
        )
    return pd.DataFrame(rows).set_index("planner")


def generic_share_sentence(quality: pd.DataFrame, name: str, threshold: float = 0.2) -> str:
    """Whether one question dominates a planner's plans: its most common question asked for at least
    `threshold` of the claims (the planner has collapsed onto it) or not."""
    row = quality.loc[name]
    if row["questions per claim"] == 0:
        return f"{name} wrote no question at all: every plan is empty."
    # the share with the decimals that show its side of the threshold (19.6% printed "20%" beside "no single")
    share = f'"{row["most common question"]}" is asked for {CMP.apart(row["claims asking it"], ".0%", (0.0, threshold, 1.0))} of the claims'
    if row["claims asking it"] >= threshold:
        return f"{name} has collapsed onto a generic question: {share}."
    return f"No single question dominates {name}'s plans: its most common one, {share}."


def repeat_stop_sentence(stops: Mapping[str, int], name: str, alternatives: int) -> str:
    """How many of a pursuit's claims stopped because every candidate question had been asked already (Papelo's
    pursuit stops on a verdict; a generator that repeats itself stops it early), on either side of half."""
    total = sum(stops.values())
    repeat = stops.get("repeat", 0)
    if not total:
        return f"{name} pursued no claim."
    text = f"{name}: {repeat} of {total} pursuits ({CMP.apart(repeat / total, '.0%', (0.0, 0.5, 1.0))}) stopped on a repeated question"
    if repeat * 2 >= total:
        return (
            text + f", at least half: at those steps all {alternatives} candidate questions the generator offered "
            "(its beam outputs) had been asked already, so the pursuit could not go on."
        )
    return text + f", fewer than half; {stops.get('verdict', 0)} stopped on the generator's verdict."


def plan_examples(
    plans: Mapping[str, Mapping[int, Sequence[str]]],
    claims: Sequence[Claim],
    planner: str,
    n: int,
    label: Mapping[str, str],
) -> pd.DataFrame:
    """The first `n` claims with the annotators' questions next to a planner's (deterministic: claim order)."""
    rows = [
        {
            "claim": c.text,
            "annotators' questions": " ".join(q.text for q in c.questions),
            label[planner]: " ".join(plans[planner].get(c.claim_id, [])) or "(empty plan)",
        }
        for c in list(claims)[:n]
    ]
    return pd.DataFrame(rows, index=pd.Index([c.claim_id for c in list(claims)[:n]], name="claim_id"))


def planner_minus_baseline(
    focus_table: pd.DataFrame, planner: str, baseline: str, measures: Sequence[str], label: Mapping[str, str]
) -> pd.DataFrame:
    """A planner minus the baseline on each measure in every retriever and scope of the grid (`focus_table`
    indexed by plan, retriever, scope); the difference as the two figures printed at three decimals subtract
    (0.5826 and 0.5024 beside "+0.080", and "-0.000" beside "reaches ... (0.300 against 0.300)")."""
    a = focus_table.xs(planner, level="plan")[list(measures)]
    b = focus_table.xs(baseline, level="plan")[list(measures)]
    shown = lambda v: printed(v, ".3f")  # noqa: E731
    difference = a.map(shown) - b.map(shown)
    out = pd.concat({label[planner]: a, label[baseline]: b, "difference": difference}, axis=1)
    return out.swaplevel(axis=1).sort_index(axis=1, level=0, sort_remaining=False)


def target_sentence(
    focus_table: pd.DataFrame, planner: str, baseline: str, retriever: str, scope: str, label: Mapping[str, str]
) -> str:
    """Whether the planner reaches the baseline's NDCG@10 in one retriever and scope (issue target: QGEN at
    least CLAIM-ONLY's NDCG@10 with BM25 in the global scope)."""
    a = focus_table.loc[(planner, retriever, scope), "ndcg@10"]
    b = focus_table.loc[(baseline, retriever, scope), "ndcg@10"]
    if a != a or b != b:  # NaN "stays below" any value
        return (
            f"{label[planner]} against {label[baseline]}'s NDCG@10 with {retriever} in the {scope} scope: undefined "
            f"({_score_text(a)} against {_score_text(b)}; no run to score)."  # "nan against 0.300"
        )
    verdict = "reaches" if _shown(a) >= _shown(b) else "stays below"  # as printed
    return (
        f"{label[planner]} {verdict} {label[baseline]}'s NDCG@10 with {retriever} in the {scope} scope "
        f"({a:.3f} against {b:.3f})."
    )


def plan_statistics(
    plan_stats: Mapping[str, Mapping[str, float]],
    order: Sequence[str],
    label: Mapping[str, str],
    reference: Mapping[str, float],
    reference_name: str,
) -> pd.DataFrame:
    """One row per planner (and one for `reference`, e.g. the published ClaimDecomp questions): queries
    and tokens, empty plans, redundancy (present only when a dense retriever embedded the queries)."""
    stats = pd.DataFrame({label[p]: plan_stats[p] for p in order}).T
    stats.loc[reference_name] = pd.Series(reference)
    return stats.reindex(columns=STATS_COLUMNS)


def rate_text(value: float) -> str:
    """A copy rate (a share of claim words a plan's questions repeat) at two decimals, kept off 0 and 1 unless it
    is one (0.996 printed "1.00" beside CLAIM-ONLY's exact 1.00); "undefined" where no question was asked (NaN)."""
    return "undefined" if value != value else share_text(value, ".2f")


THESIS_QUERIES_PER_CLAIM = 6.76  # the thesis' MMR-filtered oracle queries per QuanTemp claim (its query statistics)


def plan_stats_sentence(stats: pd.DataFrame, reference: Mapping[str, float], oracle: str) -> str:
    """The thesis' query statistics beside the published ClaimDecomp questions and the annotators' (`oracle`:
    the display name of the gold-question planner)."""
    return (
        f"The thesis reports {THESIS_QUERIES_PER_CLAIM} queries per claim and 8.51 tokens per query for its (MMR-filtered) oracle queries "
        f"on QuanTemp. The published ClaimDecomp questions of the QuanTemp test claims have "
        f"{reference['queries_per_claim']:.2f} queries per claim and {reference['tokens_per_query']:.2f} tokens per query; "
        f"AVeriTeC's gold questions (ORACLE-QUERIES) {stats.loc[oracle, 'queries_per_claim']:.2f} and "
        f"{stats.loc[oracle, 'tokens_per_query']:.2f}. Redundancy is the mean pairwise cosine similarity of a "
        "claim's queries (MiniLM), over claims with two or more."
    )


# --- 4. retrieval ---------------------------------------------------------------------------------------


def by_judgements(runs: pd.DataFrame, variants: Mapping[str, Mapping], label: Mapping[str, str]) -> pd.DataFrame:
    """NDCG@10 and Recall@100 of each planner's run under each judgement variant (columns: variant, measure)."""
    return pd.concat(
        {
            view: RU.evaluate_grid(runs, q, ["ndcg@10", "recall@100"])
            .assign(planner=lambda d: d["plan"].map(label))
            .set_index("planner")[["ndcg@10", "recall@100"]]
            for view, q in variants.items()
        },
        axis=1,
        names=["judgements", "measure"],
    )


def against_baseline(
    per_claim: pd.DataFrame, baseline: str, label: Mapping[str, str], n_resamples: int, seed: int
) -> pd.DataFrame:
    """Each planner's mean NDCG@10 (`per_claim`: claims x plans), its difference to `baseline` as the printed
    means subtract (the baseline's mean in the column's name), the paired bootstrap p-value and Holm's adjustment
    over the planners."""
    others = [p for p in per_claim.columns if p != baseline]
    base = per_claim[baseline].mean()
    tests = pd.DataFrame(
        {
            "planner": [label[p] for p in others],
            "mean NDCG@10": [per_claim[p].mean() for p in others],
            f"difference to {label[baseline]} ({base:.3f})": [
                # as the printed means subtract; two printed alike: the exact one under one step (-0.0003, not +0.000)
                difference_as_printed(per_claim[p].mean() - base, per_claim[p].mean(), base)
                for p in others
            ],
            "paired bootstrap p": [
                SIG.paired_bootstrap(per_claim[p], per_claim[baseline], n_resamples, seed) for p in others
            ],
        }
    ).set_index("planner")
    tests["Holm-adjusted p"] = SIG.holm(tests["paired bootstrap p"])
    return tests


# --- 5. evidence scores ---------------------------------------------------------------------------------


def evidence_table(
    scores: pd.DataFrame, levels: Sequence[float], order: Sequence[str], label: Mapping[str, str]
) -> pd.DataFrame:
    """Per planner (in `order`): its kind, Q-only and Q+A evidence scores, pairs per claim and the AVeriTeC
    score at each level."""
    rows = []
    for run, g in scores.groupby("run", sort=False):
        sm = SC.summarise(g, levels)
        rows.append(
            {
                "planner": label.get(run, run),
                "kind": g["kind"].iloc[0],
                "Q-only": sm["q_only"],
                "Q+A": sm["qa"],
                "pairs/claim": g["n_pairs"].mean(),
                **{f"AVeriTeC@{lv:g}": sm["averitec"][f"{lv:g}"] for lv in levels},
            }
        )
    return pd.DataFrame(rows).set_index("planner").loc[[label[p] for p in order]]


# --- 6. multi-hop pursuit -------------------------------------------------------------------------------


def questions_asked(traces: Mapping[str, Sequence[Trace]], label: Mapping[str, str]) -> pd.DataFrame:
    """One row per (pursuit, claim): how many questions the pursuit asked (the fill-up paraphrases not counted)."""
    return pd.DataFrame([{"pursuit": label[p], "questions": len(t.pursued)} for p, ts in traces.items() for t in ts])


def fill_up_table(scores: pd.DataFrame, pursuit: str, level: float) -> pd.DataFrame:
    """Papelo's fill-up ablations of one pursuit (runs `<pursuit>__<variant>`, `lib.planning.pursuit.FILL_UPS`):
    pairs per claim, Q+A and the AVeriTeC score at `level` of each variant, in that order."""
    rows = {}
    for variant in FILL_UPS:
        g = scores[scores["run"] == f"{pursuit}__{variant}"]
        if g.empty:
            raise ValueError(f"no scores for {pursuit}__{variant}: rerun the stage generative_runs")
        sm = SC.summarise(g, [level])
        rows[variant] = {
            "pairs/claim": g["n_pairs"].mean(),
            "Q+A": sm["qa"],
            f"AVeriTeC@{level:g}": sm["averitec"][f"{level:g}"],
        }
    return pd.DataFrame(rows).T


def stop_verdicts(
    traces: Mapping[str, Sequence[Trace]], claims: Mapping[int, Claim], label: Mapping[str, str]
) -> pd.DataFrame:
    """Per pursuit: how many claims it stopped with a verdict of its own, how often that verdict is right,
    and the share of the most frequent gold label among them (what always guessing it would score)."""
    rows = []
    for p, ts in traces.items():
        said = [(t.stop_verdict, claims[t.claim_id].label) for t in ts if t.stop_verdict]
        gold = pd.Series([g for _, g in said])
        rows.append(
            {
                "pursuit": label[p],
                "claims with a stop verdict": len(said),
                "its verdict is right": np.mean([v == g for v, g in said]) if said else np.nan,
                "majority label's share": gold.value_counts(normalize=True).max() if said else np.nan,
            }
        )
    return pd.DataFrame(rows).set_index("pursuit")


# --- 7. the MMR filter ----------------------------------------------------------------------------------


def mmr_sweep(
    pool: Mapping[int, Sequence[str]],
    claims: Sequence[Claim],
    emb: Mapping[str, np.ndarray],
    base: MMR.MMRParams,
    gammas: Sequence[float],
) -> pd.DataFrame:
    """Queries the MMR filter keeps per claim for each threshold γ and each reading of λ (α and λ as in
    `base`)."""
    return pd.DataFrame(
        [
            {
                "lambda weights": lw,
                "gamma": gamma,
                "kept per claim": np.mean(
                    [
                        len(qs)
                        for qs in G.mmr_plan(pool, claims, emb, MMR.MMRParams(base.alpha, base.lam, gamma, lw)).values()
                    ]
                ),
            }
            for lw in MMR.LAMBDA_WEIGHTS
            for gamma in gammas
        ]
    )


def candidates_per_claim(pool: Mapping[int, Sequence[str]]) -> float:
    """Distinct candidate questions per claim in the MMR pool."""
    return float(np.mean([len(P.distinct(qs)) for qs in pool.values()]))


# --- 8. worked examples ---------------------------------------------------------------------------------


def extremes(gain: pd.Series, n: int) -> list:
    """The claims of the `n` largest gains (largest first) then the `n` smallest (smallest first), no claim on
    both sides (of three gains, the middle one was shown as a largest and a smallest), and none where every gain
    is the same (no largest or smallest to show)."""
    gain = gain.dropna().sort_values()
    if n <= 0 or gain.nunique() < 2:
        return []
    n = min(n, len(gain) // 2)
    return list(gain.index[len(gain) - n :][::-1]) + list(gain.index[:n])


def example(
    claim: Claim,
    ndcg: Mapping[str, float],
    qgen_plan: Sequence[str],
    label: Mapping[str, str],
    setting: str,
    pursuit: tuple[str, Trace] | None = None,
) -> str:
    """One claim as markdown: its label and text, NDCG@10 of QGEN, the baseline and ORACLE (`ndcg`: plan ->
    value, baseline after qgen), the gold questions, QGEN's plan, and the pursuit's questions and answers."""
    scores = ", ".join(f"{'QGEN' if p == 'qgen' else label[p]} {v:.3f}" for p, v in ndcg.items())
    lines = [
        f"**Claim {claim.claim_id}** ({claim.label}): {claim.text}",
        f"NDCG@10 ({setting}): {scores}",
        "- gold questions: " + " · ".join(q.text for q in claim.questions),
        "- QGEN: " + (" · ".join(qgen_plan) or "(no question: falls back to the claim)"),
    ]
    if pursuit:
        name, trace = pursuit
        hops = " · ".join(f"{h.question} → _{h.answer[:90]}_" for h in trace.pursued)
        lines.append(f"- {label[name]}: {hops} [stop: {trace.stop}]")
    return "\n".join(lines)


# --- the metrics file and the conclusion ---------------------------------------------------------------


def metrics(
    report: Mapping[str, Any],
    runs_report: Mapping[str, Any],
    training: Mapping[str, Any],
    focus_table: pd.DataFrame,
    evidence: pd.DataFrame,
    order: Sequence[str],
    label: Mapping[str, str],
    measures: Sequence[str],
    level: float,
    mmr_plans: Mapping[int, Sequence[str]],
) -> dict[str, Any]:
    """`outputs/metrics/generative.json` (`focus_table`: the retrieval table indexed by plan, retriever,
    scope; `evidence`: `evidence_table`)."""
    grid = runs_report["grid"]
    return {
        "llm_mode": report["llm"]["settings"]["mode"],
        "skipped": report["skipped"],
        "qgen_training": {
            "steps": training["steps"],
            "steps_run": training["steps_run"],
            "final_loss": round(training["loss_curve"][-1]["loss"], 4),
            "best_validation_loss": round(training["best"]["val_loss"], 4),
        },
        "retrieval": {
            p: {
                f"{r}/{sc}": {m: round(focus_table.loc[(p, r, sc), m], 4) for m in measures}
                for r in grid["retrievers"]
                for sc in grid["scopes"]
            }
            for p in order
        },
        "evidence": {
            p: {
                "qa": round(evidence.loc[label[p], "Q+A"], 4),
                "q_only": round(evidence.loc[label[p], "Q-only"], 4),
                f"averitec@{level:g}": round(evidence.loc[label[p], f"AVeriTeC@{level:g}"], 4),
            }
            for p in order
        },
        "plan_stats": {p: {k: round(v, 4) for k, v in runs_report["plan_stats"][p].items()} for p in order},
        "pursuit_stops": report.get("pursuit_stops", {}),
        "mmr_kept_per_claim": round(float(np.mean([len(v) for v in mmr_plans.values()])), 4),
    }


def _best_generative(values: pd.Series, generative: Sequence[str], label: Mapping[str, str], measure: str) -> str:
    """ "the best generative planner by M is X (v)", or the planners tied at the top, named whole."""
    top = CMP.highest(values[list(generative)], ".3f")  # as printed
    if not top:  # every one NaN: an IndexError
        return f"no generative planner has a {measure} (no run to score)"
    if len(top) == 1:
        return f"the best generative planner by {measure} is {label[top[0]]} ({values[top[0]]:.3f})"
    return f"the best generative planners by {measure} are {CMP.and_list(top, label.__getitem__)}, tied ({values[top[0]]:.3f})"


def _shown(value: float) -> float:
    """A score as the sentences print it (3 decimals). `round` of a numpy float rounds its value times 1,000 (0.2005
    to 0.2, printed 0.201), so figures are compared as `format` prints them."""
    return CMP.printed(value, ".3f")


def beats(a: float, b: float) -> bool:
    """Whether a score leads another as the sentences print them (3 decimals): 0.3004 does not beat 0.3001."""
    return _shown(a) > _shown(b)


def _score_text(value: float) -> str:
    """A score at 3 decimals, or "undefined" for NaN (no run to score) where "nan" was printed."""
    return "undefined" if value != value else f"{value:.3f}"


def focus_lines(
    f: pd.DataFrame,
    generative: Sequence[str],
    baseline: str,
    setting: str,
    tests: pd.DataFrame,
    label: Mapping[str, str],
) -> list[str]:
    """The best generative planner by NDCG@10 in the setting in focus (`f`: the retrieval table of that
    setting, indexed by plan) against the baselines, how many beat `baseline`, and their tests."""
    ndcg = f["ndcg@10"]
    better = [p for p in generative if beats(ndcg[p], ndcg[baseline])]
    against = [f"{label[baseline]} {_score_text(ndcg[baseline])}"] + [
        f"{name} {_score_text(ndcg[p])}"
        for p, name in (("bloom_qg", "BLOOM-QG"), ("oracle", "ORACLE-QUERIES"))
        if p in ndcg.index
    ]  # the baselines that ran (params `generative_runs.baselines`)
    unscored = [label[p] for p in generative if ndcg[p] != ndcg[p]]
    if ndcg[baseline] != ndcg[baseline]:  # NaN is beaten by none: "0 of 2 beat it" was read from no number
        beat = f"No generative planner can be said to beat {label[baseline]}, whose NDCG@10 is undefined (no run to score)."
    else:
        # as printed: the tests of the next line say which lead is more than the claims' noise
        beat = f"{len(better)} of {len(generative)} generative planners score above {label[baseline]} as printed" + (
            f" ({', '.join(label[p] for p in better)})." if better else "."
        )
        if unscored:
            beat += f" {CMP.and_list(unscored)} {'has' if len(unscored) == 1 else 'have'} no NDCG@10 (no run to score)."
    return [
        f"- Setting in focus ({setting}): {_best_generative(ndcg, generative, label, 'NDCG@10')}, "
        f"against {CMP.and_list(against)}. {beat}",
        f"- Significance against {label[baseline]} (paired bootstrap, Holm): "
        + ", ".join(
            _significance_text(label[p], tests.loc[label[p], "Holm-adjusted p"], ndcg[p] - ndcg[baseline])
            for p in generative
        )
        + ".",
    ]


def _significance_text(name: str, p: float, difference: float, alpha: float = 0.05) -> str:
    """One planner's Holm-adjusted test as the focus lines print it: its p (its side of `alpha` shown, as the table
    prints it) and, where significant, the direction of the difference, which the table's three decimals may print
    as +0.000; "not tested" where too few claims allowed none ("p = nan")."""
    if p != p:
        return f"{name} not tested (too few claims)"
    if p < alpha and difference == difference and difference != 0:
        return f"{name} p = {p_text(p, alpha)} ({'above' if difference > 0 else 'below'})"
    return f"{name} p = {p_text(p, alpha)}"


def pursuit_line(
    f: pd.DataFrame, evidence: pd.DataFrame, label: Mapping[str, str], pursuit: str = "pursuit_seq_seq"
) -> str:
    """Multi-hop pursuit against QGEN (the same model, all questions at once) on NDCG@10 and on Q+A: ahead
    on both, on one (named), or on neither, as printed; no paired test is made here, and the sentence says so."""
    ndcg = {p: f.loc[p, "ndcg@10"] for p in (pursuit, "qgen")}
    qa = {p: evidence.loc[label[p], "Q+A"] for p in (pursuit, "qgen")}
    undefined = [m for m, v in (("NDCG@10", ndcg), ("Q+A", qa)) if any(x != x for x in v.values())]
    # compared as printed (3 decimals): 0.0111 against 0.011 is no lead
    ahead = [m for m, v in (("NDCG@10", ndcg), ("Q+A", qa)) if _shown(v[pursuit]) > _shown(v["qgen"])]
    level = [m for m, v in (("NDCG@10", ndcg), ("Q+A", qa)) if _shown(v[pursuit]) == _shown(v["qgen"])]
    if undefined:  # NaN is ahead on nothing: "does not carry over" was read from no number
        verdict = f" — undefined on {' and '.join(undefined)} (no run to score): nothing can be said of the pursuit."
    elif len(level) == 2:
        verdict = " — level on both as printed: neither is ahead (point estimates, not tested)."
    elif len(ahead) == 2:  # no paired test between the two here: a direction, not a finding
        verdict = " — pursuit is ahead on both as printed (point estimates, not tested), the direction Papelo found with GPT-4o."
    elif ahead:
        verdict = (
            f" — pursuit is ahead on {ahead[0]} only as printed (point estimates, not tested): Papelo's direction on "
            "one count with this small model."
        )
    else:
        verdict = (
            " — pursuit is ahead on neither as printed (point estimates, not tested): no sign of Papelo's advantage "
            "with this small model."
        )
    return (
        f"- Multi-hop pursuit vs all at once (same model): {label[pursuit]} NDCG@10 {ndcg[pursuit]:.3f} and Q+A "
        f"{qa[pursuit]:.3f}; QGEN {ndcg['qgen']:.3f} and {qa['qgen']:.3f}" + verdict
    )


def evidence_line(
    evidence: pd.DataFrame,
    generative: Sequence[str],
    baseline: str,
    label: Mapping[str, str],
    include_gold: bool | None = None,
) -> str:
    """The best generative planner by Q+A against the baselines that ran, and the oracle's upper bound where the
    pool holds its gold answers (`include_gold`; None: params `store.include_gold`)."""
    if include_gold is None:
        include_gold = bool(section("store")["include_gold"])
    qa = evidence["Q+A"]
    by_plan = pd.Series({p: qa[label[p]] for p in generative}, dtype=float)
    shown = [f"{label[baseline]} {qa[label[baseline]]:.3f}"]
    if label.get("bloom_qg") in qa.index:
        shown.append(f"BLOOM-QG {qa[label['bloom_qg']]:.3f}")
    if label.get("oracle") in qa.index:
        shown.append(
            f"ORACLE-QUERIES {qa[label['oracle']]:.3f} "
            + (
                "(its gold answers are in the pool: an upper bound)"
                if include_gold
                else "(no gold answers in the pool)"
            )
        )
    return f"- Evidence score: {_best_generative(by_plan, generative, label, 'Q+A')}; {', '.join(shown)}."


def claim_scope_line(
    claim_scope: pd.DataFrame,
    baseline: str,
    retriever: str,
    qgen_text: str,
    train_questions: Sequence[str],
    label: Mapping[str, str],
    pursuit: str = "pursuit_seq_seq",
    focus_winners: Sequence[str] | None = None,
) -> str:
    """What the claim's own pool says (`claim_scope`: the retrieval table of `retriever` in the claim scope,
    indexed by plan): QGEN and the pursuit against the baseline, and the annotators' most generic question.
    The story is "another" where the planners that beat the baseline differ from those of the setting in focus
    (`focus_winners`; None: as where none beat it there)."""
    ndcg = claim_scope["ndcg@10"]
    winners = [p for p in ("qgen", pursuit) if beats(ndcg[p], ndcg[baseline])]
    other = set(winners) != {p for p in focus_winners or () if p in ("qgen", pursuit)}
    top = pd.Series([q.strip().lower() for q in train_questions]).value_counts()
    figures = (
        f"with {retriever} in each claim's own pool, QGEN reaches NDCG@10 {_score_text(ndcg['qgen'])} and "
        f"{label[pursuit]} {_score_text(ndcg[pursuit])}, against {label[baseline]} {_score_text(ndcg[baseline])}"
    )
    if any(ndcg[p] != ndcg[p] for p in ("qgen", pursuit, baseline)):  # NaN beats nothing and is beaten by none
        return f"- The claim scope tells no story: {figures}; a score that is undefined (no run to score) is compared with none."
    return (
        f"- The claim scope tells {'another' if other else 'the same'} story: {figures}. {qgen_text} The most "
        f'frequent question among the annotators\' train questions is generic ("{top.index[0]}", {top.iloc[0]} of '
        f"{len(train_questions):,}). "
        + (
            "In a pool that holds the annotators' answers, such questions find them; in the whole collection they "
            "find anything."
            if winners
            else "Here they do not find the annotators' answers in the claim's pool either."
        )
    )


def budget_lines(training: Mapping[str, Any], seconds: float | None, mmr_kept: float, candidates: float) -> list[str]:
    """What QGEN's training budget means for its rank, and what the MMR filter kept of its candidates, beside the
    thesis' count after the same filter. `seconds`: the training's wall time from the stage's timing file (None:
    not trained on this machine)."""
    took = (  # 25 s printed "for 0 min"
        "" if seconds is None else f"for {seconds / 60:.0f} min " if seconds >= 90 else f"for {seconds:.0f} s "
    )
    thesis = THESIS_QUERIES_PER_CLAIM
    if mmr_kept != mmr_kept or candidates != candidates:  # no claim planned: np.mean([]) has no side of 6.76
        return [
            _budget_line(training, took),
            "- The MMR filter with the thesis' numbers has no count to read (no claim was planned: undefined).",
        ]
    # both counts at two decimals, apart where they differ ("keeps 4.00 of 4.0" where some were dropped), and
    # compared with the thesis' count as printed ("6.755 ... as many as 6.76" was read at two decimals)
    kept, of = CMP.apart(mmr_kept, ".2f", candidates), CMP.apart(candidates, ".2f", mmr_kept)
    if float(kept) == thesis:  # the same count as the thesis': nothing says the threshold fails
        against = f"as many as the thesis' {thesis} oracle queries per claim."
    else:
        side = "fewer" if float(kept) < thesis else "more"
        against = f"{side} than the thesis' {thesis} oracle queries per claim: the threshold does not carry its count to this encoder."
    return [
        _budget_line(training, took),
        f"- The MMR filter with the thesis' numbers keeps {kept} of {of} candidate questions per claim, {against}",
    ]


def _budget_line(training: Mapping[str, Any], took: str) -> str:
    """What QGEN's training budget means for its rank (`budget_lines`)."""
    return (
        f"- The thesis found QGEN best downstream with flan-t5-large; here QGEN is a {training['parameters'] / 1e6:.0f}M-"
        f"parameter model trained {took}on {training['device']}, so its rank among the "
        "planners says more about this budget than about the idea."
    )
