"""The headline figures without the gold answers in the store (stage `without_gold`).

The pooled store holds the dev annotators' gold answers as documents (`store.include_gold: true`), as the
shared task's knowledge store was built to contain the gold evidence. Every headline of the study rests on
that: ORACLE's questions find their own gold answers. This stage rebuilds the store with
`include_gold: false` (only the published systems' retrieved sentences, relevant by their URL), reruns BM25 for
the plans in `synthesis.without_gold.plans` in each scope of `synthesis.without_gold.scopes` (no temporal filter, the main
fusion), and scores their AVeriTeC evidence as the stage `averitec` does (the best sentence per question in
the claim's pool, the majority verdict). Notebook 10 sets these figures beside the main run's.

`python -m lib.analysis.without_gold` writes `outputs/without_gold/predictions/<plan>.json` (official format),
`outputs/without_gold/scores.parquet` (per plan and claim) and `outputs/metrics/without_gold.json`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from lib import compute as C
from lib import outputs as OUT
from lib.averitec import evidence as E
from lib.averitec import scoring as SC
from lib.cli import ArgumentParser, NamedError, nonempty_path, run_main
from lib.data import averitec
from lib.params import section, study_params_only
from lib.paths import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE
from lib.planning import planners as P
from lib.retrieval import runs as RU
from lib.store.build import StoreSettings, build_store, qrels_dict

OUT_DIR = OUTPUTS_DIR / "without_gold"
METRICS_PATH = OUTPUTS_DIR / "metrics" / "without_gold.json"
MEASURES = ["ndcg@10", "recall@10", "recall@100", "p@10", "mrr"]
RETRIEVER = "bm25"  # the study's focus retriever, and the one whose best sentence answers a question
VERDICT = "majority"  # the verdict its evidence is scored with (params averitec.verdict_source must match)


def answering_setting(averitec: Mapping[str, Any], scopes: Sequence[str]) -> None:
    """The main run's evidence setting (params `averitec`) must be one this stage answers in, so that notebook 10
    sets like beside like: BM25 without the temporal filter, the majority verdict, a scope of
    `synthesis.without_gold.scopes` (a scope left out scored every plan's evidence 0.0 from empty answers)."""
    differ = [
        f"averitec.{key} = {averitec[key]!r} (this stage: {want!r})"
        for key, want in (("retriever", RETRIEVER), ("temporal", False), ("verdict_source", VERDICT))
        if averitec[key] != want
    ]
    if averitec["scope"] not in scopes:
        differ.append(f"averitec.scope = {averitec['scope']!r} is not in synthesis.without_gold.scopes {list(scopes)}")
    if differ:
        raise NamedError(
            "without_gold answers as the main run does, so that the two are compared like for like: "
            + "; ".join(differ)
        )


def run(
    params: Mapping[str, Any],
    data_dir: Path | str = DATA_DIR,
    plans_dir: Path | str = P.PLANS_DIR,
    out_dir: Path | str = OUT_DIR,
    metrics_path: Path | str = METRICS_PATH,
    progress: bool = True,
) -> dict[str, Any]:
    """Build the store without the gold answers, retrieve, evaluate and score; returns the metrics written.
    `params`: the sections of READS (the plans and scopes are `synthesis.without_gold`)."""
    start = time.perf_counter()
    wg, av = params["synthesis"]["without_gold"], params["averitec"]
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    answering_setting(av, wg["scopes"])
    store_settings = StoreSettings.model_validate({**params["store"], "include_gold": False})
    store = build_store(store_settings, data_dir, C.ComputeSettings.model_validate(params["compute"]))
    claims = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    plans = RU.load_plans(wg["plans"], plans_dir)
    grid = RU.RunGrid.model_validate(
        {
            **params["retrieval"],
            "plans": list(wg["plans"]),
            "retrievers": [RETRIEVER],
            "scopes": list(wg["scopes"]),
            "temporal": [False],
            "all_fusions_for": [],
        }
    )
    docs = store.docs
    runs, _, answers = RU.retrieve(
        grid, docs, claims, plans, RU.retrievers(grid, docs, None, None), progress=progress, workers=grid.workers
    )
    qrels = qrels_dict(store.qrels)
    judged = {q for q, rel in qrels.items() if any(g > 0 for g in rel.values())}
    table = RU.evaluate_grid(runs, qrels, MEASURES)
    retrieval = {
        f"{RETRIEVER}/{scope}": {
            m: {str(r["plan"]): round(float(r[m]), 4) for r in g.to_dict("records")} for m in MEASURES
        }
        for scope, g in table.groupby("scope", sort=False)
    }
    sel = RU.select(answers, retriever=RETRIEVER, scope=av["scope"], temporal=False)
    if sel.empty:  # every plan's evidence scored 0.0 from empty answer lists, exit 0
        raise NamedError(f"without_gold: no answers for {RETRIEVER}/{av['scope']} in the rebuilt store's runs")
    train = averitec.load_averitec("train", data_dir / "averitec" / "train.json")
    labels = E.verdicts(VERDICT, claims, train)
    refs = [SC.reference_evidence(c) for c in claims]
    tables, evidence = [], {}
    (out_dir / "predictions").mkdir(parents=True, exist_ok=True)
    # every output (each plan's predictions, the scores, the metrics) is replaced together, or none of them: a
    # stop while scoring the second plan left new predictions beside the old scores
    with OUT.together():
        for name, plan in plans.items():
            preds = E.qa_predictions(P.resolve(plan, claims)[0], sel, docs, claims, labels, av["max_pairs"])
            evid = E.save_predictions(preds, out_dir / "predictions" / f"{name}.json", claims)
            t = E.score_run(evid, refs, claims, av.get("jobs", 2), run=name)
            tables.append(t)
            sm = SC.summarise(t, [0.25])
            evidence[name] = {"qa": round(sm["qa"], 4), "averitec@0.25": round(sm["averitec"]["0.25"], 4)}
            if progress:
                print(f"without gold: scored {name:24s} Q+A {sm['qa']:.4f}")
        for stale in sorted((out_dir / "predictions").glob("*.json")):  # a plan no longer in the params
            if stale.stem not in plans:
                OUT.remove(stale)
        OUT.write_parquet(pd.concat(tables, ignore_index=True), out_dir / "scores.parquet", index=False)
        metrics = {
            "store": {
                "include_gold": False,
                "documents": int(len(docs)),
                "claims": len(claims),
                "claims_with_relevant": sum(str(c.claim_id) in judged for c in claims),
            },
            "fusion": grid.main_fusion,
            "retrieval": retrieval,
            "evidence": evidence,
            "answers": {"retriever": RETRIEVER, "scope": av["scope"], "temporal": False, "verdict": VERDICT},
        }
        OUT.write_json(metrics_path, metrics)
    if progress:
        print(f"without_gold: {len(docs):,} documents, done in {time.perf_counter() - start:.0f} s")
    return metrics


# The params sections this stage reads (dvc.yaml declares them).
READS = ("synthesis", "store", "compute", "retrieval", "averitec")


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.analysis.without_gold",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    args = ap.parse_args(argv)
    study_params_only(
        args.params, "the outputs of stage `without_gold`"
    )  # the study's folders: another file only through params.yaml
    run({name: section(name, args.params) for name in READS})


if __name__ == "__main__":
    run_main(main)
