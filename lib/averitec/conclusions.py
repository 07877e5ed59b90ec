"""Notebook 05's conclusions, each sentence computed from the condition it states: a tie is named as a tie,
an undefined correlation is said to be undefined, and what a planner's lead means depends on where its
questions and the store's answers come from, not on which planner usually wins."""

from __future__ import annotations

import math

import pandas as pd

from lib.evaluation.comparisons import MIN_RANKED, and_list, end_text, highest, printed
from lib.evaluation.printing import difference_as_printed, noise_equal, signed_text, unsigned_zero
from lib.evaluation.significance import MIN_CLUSTERS

GOLD_QUESTIONS = frozenset({"oracle"})  # planners whose questions are the annotators' own (lib.planning.planners)


def same_claims(scores: pd.DataFrame) -> None:
    """Refuse per-claim scores whose runs cover different claims (columns `run`, `claim_id`): their means
    would compare runs over different claims as if over the same ones."""
    sets = scores.groupby("run", sort=False)["claim_id"].agg(frozenset)
    if sets.empty:
        raise ValueError("the scores hold no run")
    first = sets.index[0]
    for run, claims in sets.items():
        if claims != sets[first]:
            raise ValueError(
                f"run {run!r} is scored on {len(claims)} claims and run {first!r} on {len(sets[first])}, "
                f"{len(claims ^ sets[first])} claims scored in one and not the other (expected every run on the same claims: rerun "
                "the stage averitec)"
            )


def _all(values: pd.Series) -> str:
    return ", ".join(f"{n} {v:.3f}" for n, v in values.sort_values(ascending=False, kind="stable").items())


def best_system_sentence(systems: pd.DataFrame, col: str, level: float) -> str:
    """The best published system at an AVeriTeC level (rows: systems; columns `col`, `Q+A`, `accuracy`), every
    system's score after it; tied systems are named together."""
    top = highest(systems[col], ".3f") if len(systems) else []  # as printed: 0.3004 and 0.3001 tie
    if not top:
        return f"No published system has an AVeriTeC score at level {level:g}."
    if len(top) == 1:
        b = systems.loc[top[0]]
        head = (
            f"Best published system at level {level:g}: {top[0]} (AVeriTeC {b[col]:.3f}, Q+A {b['Q+A']:.3f}, "
            f"accuracy {b['accuracy']:.3f})"
        )
    else:
        head = (
            f"Best published systems at level {level:g}, tied: {and_list(top)} "
            f"(AVeriTeC {systems.loc[top[0], col]:.3f})"
        )
    return f"{head}; all systems: {_all(systems[col])}."


def correlation_sentence(systems: pd.DataFrame, within: pd.Series, weak: float = 0.2) -> str:
    """Spearman's ρ of mean Q+A and accuracy across systems (rows; at least `MIN_RANKED`), and the
    range of the per-claim ρ of Q+A score and correctness within each system (`within`, one per system; NaN
    where a system's scores or verdicts are constant). "Says little" only where every defined ρ is below
    `weak` in size."""
    complete = systems.dropna(subset=["Q+A", "accuracy"])  # a system without one figure counted: 3 systems, 2 pairs
    missing, systems = len(systems) - len(complete), complete
    n = len(systems)
    # no ρ (and no SciPy warning) of a side equal but for noise: 0.3 and 0.1 + 0.2 were ranked (ρ = 1.00)
    constant = any(all(noise_equal(v, systems[c].iloc[0]) for v in systems[c]) for c in ("Q+A", "accuracy"))
    rho = math.nan if constant or n < MIN_RANKED else systems["Q+A"].corr(systems["accuracy"], method="spearman")
    if n < MIN_RANKED:
        across = f"{n} systems are too few for a rank correlation of mean Q+A and accuracy"
    elif math.isnan(rho):
        across = f"across the {n} systems, mean Q+A or accuracy is constant: their rank correlation is undefined"
    else:
        across = f"across the {n} systems, mean Q+A and accuracy correlate with Spearman ρ = {unsigned_zero(format(rho, '.2f'))}"
    if missing:
        across += f" ({missing} more without a mean Q+A or an accuracy left out)"
    defined = within.dropna()
    if defined.empty:
        return f"{across[0].upper()}{across[1:]}; within a system the per-claim correlation is undefined (constant scores or verdicts)."
    undefined = len(within) - len(defined)
    out = (
        f"{across[0].upper()}{across[1:]}; within a system, the per-claim correlation of Q+A score and "
        f"correctness ranges from {unsigned_zero(format(defined.min(), '.2f'))} to {unsigned_zero(format(defined.max(), '.2f'))}"
        + (f" ({undefined} of {len(within)} systems undefined: constant scores or verdicts)" if undefined else "")
    )
    if printed(defined.abs().max(), ".2f") < weak:  # as printed: -0.199 shows as -0.20, not below 0.2
        return out + ": a claim's evidence score says little about whether its own verdict is right."
    return out + "."


def best_planner_sentence(
    planners: pd.DataFrame, col: str, verdict_source: str, include_gold: bool, name: dict[str, str]
) -> str:
    """The best planner (rows: display names; columns `run`, `col`, `Q+A`) and what its lead rests on: the
    annotators' questions (`GOLD_QUESTIONS`) and a store holding the gold answer texts (`include_gold`) make
    it an upper bound, said only where they hold. `name` maps run ids to display names."""
    verdicts = "the majority verdict" if verdict_source == "majority" else f"the `{verdict_source}` verdicts"
    top = highest(planners[col], ".3f") if len(planners) else []  # as printed
    if not top:
        return f"With {verdicts} for every claim, no planner was scored."
    score = f"AVeriTeC {planners.loc[top[0], col]:.3f}"
    if len(top) == 1:
        head = f"the best planner is {top[0]} ({score}, Q+A {planners.loc[top[0], 'Q+A']:.3f})"
    else:
        head = f"the best planners, tied, are {and_list(top)} ({score})"
    runs = set(planners.loc[top, "run"])
    gold_q = runs & GOLD_QUESTIONS
    if gold_q:
        who = and_list([name.get(r, r) for r in sorted(gold_q)])
        # tied with a system, the bound is the gold-question planner's score, not the tie's ("this is an upper bound")
        this = "this" if len(top) == 1 else f"{who}'s score"
        if include_gold:
            why = (
                f" {who} asks the annotators' own questions and the store holds the gold answer texts, so {this} is "
                "an upper bound, not a system: with `store.include_gold: false` the gold answers leave the store."
            )
        else:
            why = (
                f" {who} asks the annotators' own questions, so {this} is an upper bound on the questions, not a "
                "system (the store holds no gold answer texts: `store.include_gold: false`)."
            )
    elif include_gold:
        why = (
            f" {'Its' if len(top) == 1 else 'Their'} answers come from a store that holds the annotators' answer "
            "texts (`store.include_gold: true`), so they are read against the gold."
        )
    else:
        why = ""
    return f"With {verdicts} for every claim, {head}.{why}"


def rank_agreement_sentence(agree: dict[str, float], resamples: int) -> str:
    """Kendall's tau of the old and the new score over the runs (`lib.averitec.ev2r.rank_agreement`) with its
    interval, or why there is none: an undefined tau ("τ = nan (nan to nan)" otherwise), an interval with
    no defined resample, and how many of the `resamples` were left out as undefined."""
    head = f"Rank agreement of the old and the new score over {agree['runs']} runs"
    if agree["tau"] != agree["tau"]:
        return f"{head}: Kendall's τ is undefined (one score is the same for every run), so there is no interval."
    left = agree["undefined_resamples"]
    whole = isinstance(left, int | float) and not isinstance(left, bool) and float(left).is_integer()
    if not (whole and 0 <= left <= resamples):  # "1001 of the 1000 resamples" was printed
        raise ValueError(f"rank agreement: {left!r} of {resamples} resamples undefined; expected 0 to {resamples}")
    left = int(left)
    interval = agree["claims"] >= MIN_CLUSTERS and left < resamples
    # the estimate with the decimals that keep it apart from 0 where its interval excludes 0 ("0.00" beside -0.02
    # to -0.001 read as outside its own interval)
    excludes_0 = interval and (agree["high"] < 0 or agree["low"] > 0)
    shown_tau = end_text(agree["tau"], ".2f") if excludes_0 else unsigned_zero(format(agree["tau"], ".2f"))
    tau = f"{head}: Kendall's τ = {shown_tau}"
    if agree["claims"] < MIN_CLUSTERS:
        return f"{tau}, with no interval: {agree['claims']} claims are too few to resample (at least {MIN_CLUSTERS})."
    if left == resamples:
        return f"{tau}, with no interval: none of the {resamples} resamples of claims ranks the runs on both scores."
    out = f"{tau} (95% bootstrap interval over claims {end_text(agree['low'], '.2f')} to {end_text(agree['high'], '.2f')})"
    if left:
        out += f"; {left} of the {resamples} resamples leave a score the same for every run and are left out"
    return out + "."


def duplication_sentence(dup: pd.DataFrame, col: str, level: float) -> str:
    """What submitting each QA pair twice did (`dup`: rows planners; columns `Q+A`, `Q+A (dup)`, `col`, `col (dup)`),
    its verb chosen from the gains as printed: "raised" was fixed text, beside +0.000 where a plan already held
    `max_pairs` pairs and duplicating changed nothing."""
    if dup.empty:
        return "No run was scored with its QA pairs duplicated."
    # each gain as the table's printed levels subtract (0.242 and 0.243: +0.001, where the exact +0.0002 printed
    # +0.000 beside "unchanged"); levels printed alike but apart: the exact gain, apart from 0 (`signed_text`)
    gains = {
        m: {p: difference_as_printed(r[f"{c} (dup)"] - r[c], r[f"{c} (dup)"], r[c]) for p, r in dup.iterrows()}
        for m, c in (("Q+A", "Q+A"), (f"AVeriTeC@{level:g}", col))
    }
    if undefined := sorted({p for g in gains.values() for p, v in g.items() if v != v}):  # "+nan" had a verb
        return f"Duplicating QA pairs cannot be read for {and_list(undefined)}: a score is missing (NaN)."
    shown = [v for g in gains.values() for v in g.values()]
    still = [noise_equal(v, 0.0) for v in shown]
    verb = "left" if all(still) else "raised" if all(v > 0 and not z for v, z in zip(shown, still)) else "changed"
    by = {m: ", ".join(f"{p} {signed_text(v)}" for p, v in g.items()) for m, g in gains.items()}
    if verb == "left":
        return f"Duplicating QA pairs left Q+A ({by['Q+A']}) and AVeriTeC@{level:g} ({by[f'AVeriTeC@{level:g}']}) unchanged."
    return (
        f"Duplicating QA pairs {verb} Q+A by {by['Q+A']} and AVeriTeC@{level:g} by {by[f'AVeriTeC@{level:g}']} "
        "without any new evidence."
    )


def copies_sentence(qa: pd.Series, pairs: list[tuple[str, str]], name) -> str:
    """POST-HOC planners (asking a published system's own questions) against the system they copy: each pair's
    Q+A, and how many score higher as printed ("0.340 against 0.340 ... 1 of 1 score higher" was decided on
    unprinted values)."""
    if not pairs:  # "...own questions: . 0 of 0 score higher"
        return "No POST-HOC planner ran beside the system it copies."
    if undefined := [p for pair in pairs for p in pair if qa[p] != qa[p]]:  # NaN "scores higher" of none
        return f"POST-HOC planners cannot be compared with the systems they copy: no Q+A for {and_list(undefined)}."
    higher = sum(printed(qa[p], ".3f") > printed(qa[s], ".3f") for p, s in pairs)
    return (
        "POST-HOC planners ask a published system's own questions: "
        + "; ".join(f"{name(p)} Q+A {qa[p]:.3f} against {s}'s {qa[s]:.3f}" for p, s in pairs)
        + f". {higher} of {len(pairs)} score higher than the system they copy."
    )
