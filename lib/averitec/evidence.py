"""From retrieval to AVeriTeC predictions, and the scores of every run (stage `averitec`).

A plan's queries become the questions; each query's best retrieved document (from
`outputs/runs/answers.parquet`, one retriever, scope and temporal setting) becomes its answer, with its
URL; at most `max_pairs` (10) pairs per claim, in plan order, in the official prediction format. The
verdict comes from a verdict source: `majority` (the most frequent train label), or `nli`, the
classifier of notebook 07 given the plan's own evidence (`lib.verifier.veracity.nli_verdicts`). The `averitec`
stage runs before the classifier is trained, so it uses `majority`; notebook 07 rescores the same
per-claim evidence scores with the classifier's verdicts (`with_verdicts`).

Duplication ablation: the shared-task paper observed that repeating QA pairs inflates the score (the
Hungarian assignment can match each copy to another gold pair). `duplicate=True` cycles a claim's pairs
up to `max_pairs`. It is off by default and only runs for the plans named in `averitec.duplicate_for`. The
overview's own experiment is also run exactly: the published runs named in `averitec.repeat_systems` with each
QA pair submitted `averitec.repeats` times in a row (3: two extra copies), as run `<name>__x<repeats>` (kind
`ablation`).

`python -m lib.averitec.evidence` writes `outputs/averitec/predictions/*.json` and scores them, the published
systems' runs and two references (gold against itself; "always Refuted, the claim as question and
answer") into `outputs/averitec/scores.parquet` (one row per run and claim).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping, Sequence
from itertools import cycle, islice
from pathlib import Path
from typing import Any

import pandas as pd

from lib import outputs as OUT
from lib.averitec import scoring as SC
from lib.averitec.section import VERDICT_SOURCES  # noqa: F401 (the verdict sources `verdicts` implements)
from lib.cli import ArgumentParser, NamedError, nonempty_path, run_main
from lib.data import averitec
from lib.data import labels as LB
from lib.params import section, study_params_only
from lib.paths import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE, STORE_DIR
from lib.planning import planners as P
from lib.retrieval.runs import RUNS_DIR, load_plans, select
from lib.store.build import load_store

# --------------------------------------------------------------------------- params

AVERITEC_DIR = OUTPUTS_DIR / "averitec"


def verdicts(
    source: str,
    claims: Sequence[averitec.Claim],
    train: Sequence[averitec.Claim],
    classifier: Mapping[int, str] | None = None,
) -> dict[int, str]:
    """A verdict per claim from a verdict source (see VERDICT_SOURCES); `nli` takes the classifier's
    predictions ({claim_id: label}, `lib.verifier.veracity.nli_verdicts`)."""
    if source == "majority":
        label = LB.majority_label(train)
        return {c.claim_id: label for c in claims}
    if source == "nli":
        if classifier is None:
            raise ValueError(
                "verdict source 'nli' needs the classifier's predictions: lib.verifier.veracity.nli_verdicts "
                "of the stage nli_averitec (notebook 07)"
            )
        missing = [c.claim_id for c in claims if c.claim_id not in classifier]
        if missing:
            raise ValueError(f"the classifier has no verdict for {len(missing)} claims (first: {missing[:5]})")
        return {c.claim_id: classifier[c.claim_id] for c in claims}
    raise ValueError(f"unknown verdict source {source!r} (available: {VERDICT_SOURCES})")


def with_verdicts(table: pd.DataFrame, labels: Mapping[int, str]) -> pd.DataFrame:
    """A per-claim score table (`lib.averitec.scoring.per_claim`) with other verdicts: the evidence scores stay,
    `pred_label` and `correct` follow `labels` ({claim_id: label})."""
    missing = set(table["claim_id"]) - set(labels)
    if missing:
        raise ValueError(f"no verdict for {len(missing)} claims of the table (first: {sorted(missing)[:5]})")
    pred = table["claim_id"].map(labels)
    return table.assign(pred_label=pred, correct=pred == table["label"])


def qa_predictions(
    plan: Mapping[int, Sequence[str]],
    answers: pd.DataFrame,
    docs: pd.DataFrame,
    claims: Sequence[averitec.Claim],
    labels: Mapping[int, str],
    max_pairs: int = SC.MAX_QUESTIONS,
    duplicate: bool = False,
) -> list[dict[str, Any]]:
    """Official-format predictions aligned with `claims`: each query with its best document as answer.

    `answers` holds one retriever/scope/temporal setting (columns claim_id, query, doc_id, and optionally
    answer: the text to submit where it is not the document's own, e.g. a pursuit's window); a query
    without an answer (nothing retrievable) is left out."""
    best = {(int(c), q): d for c, q, d in zip(answers["claim_id"], answers["query"], answers["doc_id"])}
    if len(best) != len(answers):
        raise ValueError("answers must hold one retriever, scope and temporal setting (duplicate claim/query)")
    text = dict(zip(docs["doc_id"], docs["text"]))
    url = dict(zip(docs["doc_id"], docs["url"]))
    own = {}
    if "answer" in answers:
        own = {
            (int(c), q): a
            for c, q, a in zip(answers["claim_id"], answers["query"], answers["answer"])
            if isinstance(a, str)
        }
    out = []
    for c in claims:
        pairs = [(q, best[(c.claim_id, q)]) for q in plan.get(c.claim_id, []) if (c.claim_id, q) in best]
        pairs = pairs[:max_pairs]
        if duplicate and pairs:
            pairs = list(islice(cycle(pairs), max_pairs))
        out.append(
            {
                "claim_id": c.claim_id,
                "label": labels[c.claim_id],
                "questions": [
                    {
                        "question": q,
                        "answers": [
                            {
                                "answer": own.get((c.claim_id, q), text[d]),
                                "answer_type": "Extractive",
                                "source_url": url[d],
                            }
                        ],
                    }
                    for q, d in pairs
                ],
            }
        )
    return out


def repeated(evidence: SC.Evidence, times: int) -> SC.Evidence:
    """A run's evidence for one claim with each QA pair `times` times in a row (the verdict unchanged): the
    overview's duplication experiment. The scorer still reads at most 10 pairs."""
    if times < 1:
        raise ValueError(f"repeats must be at least 1 (got {times})")

    def each(items: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(x for x in items for _ in range(times))

    return SC.Evidence(
        evidence.label,
        each(evidence.questions),
        each(evidence.strings),
        evidence.has_questions,
        evidence.claim_types,
        each(evidence.pairs),
    )


def save_predictions(
    preds: list[dict[str, Any]], path: Path | str, claims: Sequence[averitec.Claim]
) -> list[SC.Evidence]:
    """Write official-format predictions, and read them back as the scorer sees any prediction file (from the
    temporary file: inside `OUT.together` the file reaches `path` only with the stage's other outputs)."""
    with OUT.atomic(path) as tmp:
        tmp.write_text(json.dumps(preds, ensure_ascii=False) + "\n", encoding="utf-8")
        return SC.load_predictions(tmp, claims)


def score_run(
    preds: Sequence[SC.Evidence],
    refs: Sequence[SC.Evidence],
    claims: Sequence[averitec.Claim],
    jobs: int = 2,
    **columns: Any,
) -> pd.DataFrame:
    """`lib.averitec.scoring.per_claim` for one run, with `columns` (run, kind) and the QA pairs scored per claim."""
    t = SC.per_claim(preds, refs, [c.claim_id for c in claims], jobs=jobs)
    return t.assign(**columns, n_pairs=[len(p.strings[: SC.MAX_QUESTIONS]) for p in preds])


def reference_runs(claims: Sequence[averitec.Claim]) -> dict[str, list[SC.Evidence]]:
    """Two runs with known scores: gold against itself, and the trivial "always Refuted" run."""
    return {
        "reference_gold": [SC.reference_evidence(c) for c in claims],
        "reference_always_refuted": [
            SC.Evidence("Refuted", (c.text,), (SC.qa_string(c.text, c.text),)) for c in claims
        ],
    }


def score_all(
    settings: Mapping[str, Any],
    data_dir: Path | str = DATA_DIR,
    runs_dir: Path | str | None = None,
    store_dir: Path | str = STORE_DIR,
    plans_dir: Path | str = P.PLANS_DIR,
    out_dir: Path | str = AVERITEC_DIR,
) -> pd.DataFrame:
    """Build the planners' predictions, then score every run; returns (and writes) the per-claim table."""
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    runs_dir = Path(runs_dir) if runs_dir else RUNS_DIR
    claims = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    train = averitec.load_averitec("train", data_dir / "averitec" / "train.json")
    refs = [SC.reference_evidence(c) for c in claims]
    if settings["verdict_source"] == "nli":
        raise NamedError(
            "averitec.verdict_source 'nli': the averitec stage runs before the NLI classifier exists: keep verdict_source "
            "'majority' here; notebook 07 rescores these evidence scores with the classifier's verdicts"
        )
    labels = verdicts(settings["verdict_source"], claims, train)
    answers = OUT.read_parquet(runs_dir / "answers.parquet")
    sel = select(answers, retriever=settings["retriever"], scope=settings["scope"], temporal=bool(settings["temporal"]))
    if sel.empty:
        raise ValueError(
            f"no answers for {settings['retriever']}/{settings['scope']}/temporal={settings['temporal']} "
            "in outputs/runs/answers.parquet: is that setting in params `retrieval`?"
        )
    docs = load_store(store_dir).docs
    plans = load_plans(settings["plans"], plans_dir)
    (out_dir / "predictions").mkdir(parents=True, exist_ok=True)
    with OUT.together():  # predictions and scores replaced together: a failure or a stop leaves the old set whole
        return _score_runs(settings, plans, sel, docs, claims, refs, labels, data_dir, out_dir)


def _score_runs(
    settings: Mapping[str, Any],
    plans: Mapping[str, Any],
    sel: pd.DataFrame,
    docs: pd.DataFrame,
    claims: Sequence[averitec.Claim],
    refs: list[SC.Evidence],
    labels: Any,
    data_dir: Path,
    out_dir: Path,
) -> pd.DataFrame:
    """`score_all`'s runs: the planners' predictions written, every run scored, the table written."""
    runs: dict[str, tuple[str, list[SC.Evidence]]] = {}
    for name, plan in plans.items():
        resolved, _ = P.resolve(plan, claims)
        for dup in [False] + ([True] if name in settings.get("duplicate_for", []) else []):
            preds = qa_predictions(resolved, sel, docs, claims, labels, settings["max_pairs"], dup)
            run = f"{name}{'__duplicated' if dup else ''}"
            runs[run] = ("planner", save_predictions(preds, out_dir / "predictions" / f"{run}.json", claims))
    for name, file in settings["systems"].items():
        runs[name] = ("system", SC.load_predictions(data_dir / "averitec" / "systems" / file, claims))
    times = int(settings.get("repeats", 3))
    for name in settings.get("repeat_systems", []):
        runs[f"{name}__x{times}"] = ("ablation", [repeated(e, times) for e in runs[name][1]])
    for name, preds in reference_runs(claims).items():
        runs[name] = ("reference", preds)
    tables = []
    for run, (kind, preds) in runs.items():
        start = time.perf_counter()
        t = score_run(preds, refs, claims, settings.get("jobs", 2), run=run, kind=kind)
        tables.append(t)
        print(
            f"scored {run:34s} Q+A {t['qa'].mean():.4f}  accuracy {t['correct'].mean():.3f}  "
            f"({time.perf_counter() - start:.1f} s)"
        )
    table = pd.concat(tables, ignore_index=True)
    OUT.write_parquet(table, out_dir / "scores.parquet", index=False)
    return table


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.averitec.evidence",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    args = ap.parse_args(argv)
    study_params_only(
        args.params, "the outputs of stage `averitec`"
    )  # the study's folders: another file only through params.yaml
    score_all(section("averitec", args.params))


if __name__ == "__main__":
    run_main(main)
