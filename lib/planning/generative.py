"""The generative planners of notebook 06, as two DVC stages.

`python -m lib.planning.generative plans` (stage `generative_plans`) writes `outputs/generative/plans/<name>.jsonl`:
- `qgen`: QGEN's `plan:` task (`lib.planning.qgen`), all questions at once;
- `pursuit_seq_seq`: multi-hop pursuit with QGEN's `next:` task (`lib.planning.pursuit`); its traces (questions,
  answers, why it stopped) go to `outputs/generative/traces/<name>.jsonl`;
- `mmr_pool`: the MMR filter (`lib.planning.mmr`) over the union of existing plans (params `generative.mmr_pool`),
  no LLM; it uses the justification, so it is oracle-informed;
- with `llm.mode` replay or live: `claimdecomp`, `pgmfc`, `all_at_once`, `agq` (MMR-filtered; the raw
  candidates as `agq_unfiltered`), `pursuit_seq_llm`, `pursuit_llm_llm`. With `off` they are skipped and
  `report.json` says so.

`python -m lib.planning.generative runs` (stage `generative_runs`) retrieves with those plans and the baselines
(`lib.retrieval.runs.retrieve`, a small grid) and scores their QA predictions (`lib.averitec.evidence`, `lib.averitec.scoring`):
`outputs/generative/{runs,answers,scores}.parquet` and `runs_report.json`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd
from pydantic import Field, model_validator

from lib import models as MD
from lib import outputs as OUT
from lib import timing as TM
from lib.averitec import evidence as E
from lib.averitec import scoring as SC
from lib.cli import ArgumentParser, NamedError, nonempty_path, run_main
from lib.data import averitec, claimdecomp
from lib.params import NonNegInt, PosInt, Section, Share, Text, section, study_params_only
from lib.paths import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE, STORE_DIR
from lib.planning import mmr as MMR
from lib.planning import planners as P
from lib.planning import prompted as PR
from lib.planning import pursuit as PU
from lib.planning.llm import LLM, LLMSettings
from lib.planning.mmr import MMRSection
from lib.planning.prompted import Prompted
from lib.planning.qgen import MODEL_DIR, Decoding, Generator, ensure_weights
from lib.retrieval import runs as RU
from lib.retrieval.vocabulary import RetrieverKind
from lib.store.build import load_store
from lib.store.scopes import Scope

# --------------------------------------------------------------------------- params

PursuitVariant = Literal["seq_seq", "seq_llm", "llm_llm"]  # question generator + answerer (PURSUITS)


class PursuitSection(Section):
    variants: list[PursuitVariant]
    max_questions: PosInt
    fill_up: PU.FillUp  # none | repeat | paraphrase (Papelo's Algorithm 1)
    alternatives: PosInt
    stop_threshold: Share | None
    retriever: RetrieverKind
    scope: Scope
    query: PU.Query  # claim_and_question (Papelo's search) | question
    window: NonNegInt  # passages of the best one's page read with it


class GenerativeSection(Section):
    max_claims: PosInt | None
    prompted: list[Prompted]
    claimdecomp_examples: NonNegInt
    mmr: MMRSection
    mmr_pool: Annotated[list[Text], Field(min_length=1)]
    qgen: Decoding
    pursuit: PursuitSection


class AnswersSection(Section):
    retriever: RetrieverKind
    scope: Scope


class GenerativeRunsSection(Section):
    baselines: list[Text]
    retrievers: Annotated[list[RetrieverKind], Field(min_length=1)]
    scopes: Annotated[list[Scope], Field(min_length=1)]
    temporal: Annotated[list[bool], Field(min_length=1)]
    answers: AnswersSection

    @model_validator(mode="after")
    def _answers_are_run(self) -> GenerativeRunsSection:
        """The evidence is answered from runs this stage makes (without the temporal filter): an answer setting
        outside the grid scored every plan's evidence 0.0 from empty answer lists, exit 0."""
        missing = [
            f"answers.{key} {value!r} is not in {where} {list(grid)}"
            for key, value, where, grid in (
                ("retriever", self.answers.retriever, "retrievers", self.retrievers),
                ("scope", self.answers.scope, "scopes", self.scopes),
                ("temporal", False, "temporal", self.temporal),
            )
            if value not in grid
        ]
        if missing:
            raise ValueError("; ".join(missing).replace("answers.temporal False", "the answers' temporal False"))
        return self


GEN_DIR = OUTPUTS_DIR / "generative"
PURSUITS = {"seq_seq": ("seq", "seq"), "seq_llm": ("seq", "llm"), "llm_llm": ("llm", "llm")}


def embed_texts(texts: Sequence[str], encoder, known: Mapping[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Normalised embeddings of the distinct texts, taken from `known` where present (the same vectors as
    the retrieval runs), the rest encoded in one batch."""
    known = known or {}
    out = {t: known[t] for t in dict.fromkeys(texts) if t in known}
    missing = [t for t in dict.fromkeys(texts) if t not in out]
    if missing:
        out.update(zip(missing, MD.encode(encoder, missing, progress=False)))
    return out


def mmr_plan(
    candidates: Mapping[int, Sequence[str]],
    claims: Sequence[averitec.Claim],
    emb: Mapping[str, np.ndarray],
    params: MMR.MMRParams,
    use_justification: bool = True,
) -> dict[int, list[str]]:
    """The MMR-filtered candidates of each claim, in selection order."""
    plan = {}
    for c in claims:
        qs = P.distinct(candidates.get(c.claim_id, []))
        if not qs:
            plan[c.claim_id] = []
            continue
        just = emb[c.justification] if use_justification and c.justification.strip() else None
        kept, _ = MMR.mmr_filter(np.stack([emb[q] for q in qs]), emb[c.text], just, params)
        plan[c.claim_id] = [qs[i] for i in kept]
    return plan


def mmr_inputs(
    pool_names: Sequence[str],
    claims: Sequence[averitec.Claim],
    plans_dir: Path | str,
    encoder,
    known: Mapping[str, np.ndarray] | None = None,
) -> tuple[dict[int, list[str]], dict[str, np.ndarray]]:
    """The MMR-POOL candidates (the union of the named plans, per claim) and the embeddings the filter
    needs: claims, justifications and candidates."""
    pool_plans = RU.load_plans(list(pool_names), plans_dir)
    pool = {c.claim_id: [q for plan in pool_plans.values() for q in plan.get(c.claim_id, [])] for c in claims}
    texts = (
        [c.text for c in claims]
        + [c.justification for c in claims if c.justification.strip()]
        + [q for qs in pool.values() for q in qs]
        + [q for qs in pool.values() for q in P.distinct(qs)]  # as `mmr_plan` looks them up ("a  b" as "a b")
    )
    return pool, embed_texts(texts, encoder, known)


def pursuit_answerer(
    settings: Mapping[str, Any],
    docs: pd.DataFrame,
    retrieval: Mapping[str, Any],
    claims: Sequence[averitec.Claim],
    encoder=None,
) -> PU.Answerer:
    """The retriever whose best document answers each pursuit question (params generative.pursuit), built
    by `lib.retrieval.runs.retrievers` from the `retrieval` params narrowed to that retriever and scope."""
    kind, scope = settings.get("retriever", "bm25"), settings.get("scope", "claim")
    grid = RU.RunGrid.model_validate(
        {**retrieval, "plans": [], "retrievers": [kind], "scopes": [scope], "all_fusions_for": []}
    )
    doc_emb = q_emb = None
    if grid.needs_dense:
        doc_emb = RU.document_embeddings(grid.model, docs["doc_id"].tolist())
        q_emb = RU.query_embeddings(grid.model)
    return PU.Answerer(
        RU.retrievers(grid, docs, doc_emb, q_emb, encoder)[(kind, scope)],
        docs,
        {c.claim_id: c.text for c in claims},
        settings.get("query", "claim_and_question"),
        settings.get("window", 0),
    )


def build(
    params: Mapping[str, Any],
    data_dir: Path | str = DATA_DIR,
    store_dir: Path | str = STORE_DIR,
    plans_dir: Path | str = P.PLANS_DIR,
    model_dir: Path | str | None = None,
    out_dir: Path | str = GEN_DIR,
    emb_dir: Path | str = RU.EMB_QUERIES_DIR,
    cache_path: Path | str | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """The `generative_plans` stage: writes the plans, the pursuit traces and `report.json`."""

    g, retrieval = params["generative"], params["retrieval"]
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    claims = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    claims = claims[: g["max_claims"]] if g.get("max_claims") else claims
    llm = LLM(LLMSettings.model_validate(params["llm"]), cache_path, stage="generative_plans")
    llm.cache.path.parent.mkdir(parents=True, exist_ok=True)
    llm.cache.path.touch()  # a DVC output even when llm.mode is off
    docs = load_store(store_dir).docs
    encoder = MD.load_encoder(retrieval["model"], None, retrieval.get("max_seq_length"))
    # the vectors of the retrieval runs where a text has one (stage embed_queries)
    known = (
        RU.query_embeddings(retrieval["model"], emb_dir)
        if (Path(emb_dir) / f"{MD.model_slug(retrieval['model'])}.npy").exists()
        else {}
    )
    plans: dict[str, dict[int, list[str]]] = {}
    traces: dict[str, list[PU.Trace]] = {}
    # each planner's seconds go to the stage's timing file (TM.cost), never to the report: outputs hold no wall time
    report: dict[str, Any] = {"claims": len(claims), "skipped": {}, "prompted": {}}

    encoder_device = MD.device_name(getattr(encoder, "device", None))
    how = {
        "mmr_pool": "measured: MMR over the pool's queries (the pool planners' own cost not included)",
        **{f"pursuit_{v}": "measured: questions and the retrieval that answers them" for v in PURSUITS},
    }

    def timed(name: str, start: float, device: str = encoder_device) -> None:
        seconds = time.perf_counter() - start
        TM.cost(name, "planning", seconds, len(claims), "generative_plans", device, how.get(name, "measured"))

    start = time.perf_counter()
    generator = Generator(Decoding.model_validate(g["qgen"]), model_dir or MODEL_DIR)
    plans["qgen"] = generator.plans(claims)
    generator_device = MD.device_name(generator.device)  # QGEN and the pursuits run on the generator's device
    timed("qgen", start, generator_device)

    mmr = MMR.MMRParams(**g.get("mmr", {}))
    start = time.perf_counter()
    pool, emb = mmr_inputs(g.get("mmr_pool", []), claims, plans_dir, encoder, known)
    plans["mmr_pool"] = mmr_plan(pool, claims, emb, mmr)
    timed("mmr_pool", start)

    answerer = pursuit_answerer(g["pursuit"], docs, retrieval, claims, encoder)
    sources = {
        "seq": PU.SeqSource(
            generator, g["pursuit"].get("alternatives", 4), stop_threshold=g["pursuit"].get("stop_threshold", 0.5)
        )
    }
    if llm.enabled:
        sources["llm"] = PU.LLMSource(llm)
        examples = PR.decomposition_examples(
            claimdecomp.load_claimdecomp("dev", data_dir / "claimdecomp" / "dev.jsonl")
        )
        ex_emb = MD.encode(encoder, [t for t, _ in examples], progress=False)
        k = g.get("claimdecomp_examples", 3)

        def examples_for(c: averitec.Claim) -> list[tuple[str, list[str]]]:
            return [examples[i] for i in PR.nearest(emb[c.text], ex_emb, k)]

        for kind in g.get("prompted", []):
            start = time.perf_counter()
            plan, counts = PR.prompted_plan(
                llm, kind, claims, examples_for if kind == "claimdecomp" else None, progress
            )
            report["prompted"][kind] = counts
            if kind == "agq":
                plans["agq_unfiltered"] = plan
                emb.update(embed_texts([q for qs in plan.values() for q in qs], encoder, known))
                plan = mmr_plan(plan, claims, emb, mmr)
            plans[kind] = plan
            timed(kind, start)
    else:
        for kind in g.get("prompted", []):
            report["skipped"][kind] = "llm.mode is off"
    for variant in g["pursuit"].get("variants", ["seq_seq"]):
        first, nxt = PURSUITS[variant]
        if first not in sources or nxt not in sources:
            report["skipped"][f"pursuit_{variant}"] = "llm.mode is off"
            continue
        start = time.perf_counter()
        t = PU.pursue(
            claims,
            sources[first],
            sources[nxt],
            answerer,
            g["pursuit"].get("max_questions", 5),
            True,  # the traces keep the paraphrase fill-up for the ablations; the plan takes it when `fill_up`
            progress,
        )
        traces[f"pursuit_{variant}"] = t
        plans[f"pursuit_{variant}"] = PU.as_plan(t, g["pursuit"].get("fill_up", "paraphrase") == "paraphrase")
        report.setdefault("pursuit_stops", {})[f"pursuit_{variant}"] = PU.stop_counts(t)
        timed(f"pursuit_{variant}", start, generator_device)

    (out_dir / "plans").mkdir(parents=True, exist_ok=True)
    (out_dir / "traces").mkdir(parents=True, exist_ok=True)
    report["plans"] = {name: P.plan_stats(plan) for name, plan in plans.items()}
    report["llm"] = llm.report()
    with OUT.together():  # plans, traces and report replaced together; a plan or trace this run did not make goes
        for kind, made in (("plans", plans), ("traces", traces)):  # (it was read as current by the runs stage)
            for old in sorted((out_dir / kind).glob("*.jsonl")):
                if old.stem not in made and old.is_file() and not old.is_symlink():
                    OUT.remove(old)
        for name, plan in plans.items():
            P.save_plan(plan, out_dir / "plans" / f"{name}.jsonl")
        for name, ts in traces.items():
            lines = (json.dumps(t.to_json(), ensure_ascii=False) for t in ts)
            OUT.write_lines(out_dir / "traces" / f"{name}.jsonl", lines)
        OUT.write_json(out_dir / "report.json", report)
    return report


def made_plans(gen_dir: Path | str) -> list[str]:
    """The generative plans the last `generative plans` run made, as its report names them (a plan file left by an
    earlier run with `llm.mode` on was scored beside the new ones, and cut the claims to its coverage)."""
    path = Path(gen_dir) / "report.json"
    if not path.is_file():
        raise NamedError(f"{path}: missing; run stage generative_plans (`dvc repro generative_plans`) first")
    report = OUT.read_json(path)
    plans = report.get("plans") if isinstance(report, dict) else None
    if not isinstance(plans, dict):
        raise NamedError(f"{path}: no `plans` mapping; rerun stage generative_plans")
    return list(plans)


def load_traces(path: Path | str) -> list[PU.Trace]:
    with open(path, encoding="utf-8") as f:
        return [PU.Trace.from_json(json.loads(line)) for line in f if line.strip()]


def run_grid(params: Mapping[str, Any], plan_names: Sequence[str]) -> RU.RunGrid:
    """The `retrieval` grid narrowed by `generative_runs` (retrievers, scopes, temporal) for these plans."""
    r, gr = dict(params["retrieval"]), params["generative_runs"]
    r.update(
        plans=list(plan_names),
        retrievers=gr["retrievers"],
        scopes=gr["scopes"],
        temporal=gr["temporal"],
        all_fusions_for=[],
    )
    return RU.RunGrid.model_validate(r)


def runs_and_scores(
    params: Mapping[str, Any],
    data_dir: Path | str = DATA_DIR,
    store_dir: Path | str = STORE_DIR,
    plans_dir: Path | str = P.PLANS_DIR,
    gen_dir: Path | str = GEN_DIR,
    progress: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The `generative_runs` stage: retrieval runs and AVeriTeC scores of the baselines and generative plans."""
    gr, av = params["generative_runs"], params["averitec"]
    data_dir, gen_dir = Path(data_dir), Path(gen_dir)
    claims = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    generated = sorted(made_plans(gen_dir))  # the plans the last `generative plans` made, not every file there
    plans = {
        **RU.load_plans(gr["baselines"], plans_dir),
        **RU.load_plans(generated, gen_dir / "plans", "rerun stage generative_plans"),
    }
    claims = [c for c in claims if all(c.claim_id in plans[g] for g in generated)] if generated else claims
    grid = run_grid(params, list(plans))
    start = time.perf_counter()
    docs = load_store(store_dir).docs
    doc_emb = q_emb = encoder = None
    if grid.needs_dense:
        doc_emb = RU.document_embeddings(grid.model, docs["doc_id"].tolist())
        encoder = MD.load_encoder(grid.model, None, grid.max_seq_length)
        q_emb = embed_texts(RU.queries_needed(grid, plans, claims), encoder, RU.query_embeddings(grid.model))
    runs, report, answers = RU.retrieve(
        grid, docs, claims, plans, RU.retrievers(grid, docs, doc_emb, q_emb), progress=progress, workers=grid.workers
    )
    TM.measured("retrieval", seconds=time.perf_counter() - start)
    # plan statistics (notebook 06), with redundancy when a dense retriever ran (it embedded every query already)
    ids = {c.claim_id for c in claims}
    report["plan_stats"] = {
        name: P.plan_stats(
            {cid: P.distinct(qs) for cid, qs in plan.items() if cid in ids},
            None if q_emb is None else lambda qs: np.stack([q_emb[q] for q in qs]),
        )
        for name, plan in plans.items()
    }
    sel = RU.select(answers, retriever=gr["answers"]["retriever"], scope=gr["answers"]["scope"], temporal=False)
    if sel.empty:  # every plan's evidence scored 0.0 from empty answer lists
        raise NamedError(f"generative_runs.answers: no answers for {gr['answers']} in this stage's runs")
    train = averitec.load_averitec("train", data_dir / "averitec" / "train.json")
    labels = E.verdicts(av["verdict_source"], claims, train)
    refs = [SC.reference_evidence(c) for c in claims]
    (gen_dir / "predictions").mkdir(parents=True, exist_ok=True)
    # every output (each run's predictions, the runs, answers, scores and report) is replaced together, or none
    # of them: a stop while scoring left new prediction files beside the old scores
    with OUT.together():
        tables = []
        trace_files = {p.stem: p for p in sorted((gen_dir / "traces").glob("*.jsonl")) if p.stem in plans}
        for name, plan in plans.items():
            if name in trace_files:  # a pursuit is scored with its own answers, below
                continue
            resolved, _ = P.resolve(plan, claims)
            preds = E.qa_predictions(resolved, sel, docs, claims, labels, av["max_pairs"])
            evid = E.save_predictions(preds, gen_dir / "predictions" / f"{name}.json", claims)
            t = E.score_run(
                evid,
                refs,
                claims,
                av.get("jobs", 2),
                run=name,
                kind="baseline" if name in gr["baselines"] else "generative",
            )
            tables.append(t)
            if progress:
                print(f"scored {name:24s} Q+A {t['qa'].mean():.4f}")
        # each pursuit with its own answers (the claim-and-question search, the window), as its `fill_up` setting
        # says, and Papelo's fill-up ablations of it from the same traces (kind `ablation`)
        max_questions = params["generative"]["pursuit"]["max_questions"]
        main_variant = PU.FILL_UP_VARIANT[params["generative"]["pursuit"]["fill_up"]]
        for path in trace_files.values():
            traces = [t for t in load_traces(path) if t.claim_id in ids]
            hop_sel = PU.hop_answers(traces)
            # a claim the pursuit asked nothing falls back to its text, answered as in the runs
            asked = set(zip(hop_sel["claim_id"], hop_sel["query"]))
            rest = sel[[k not in asked for k in zip(sel["claim_id"], sel["query"])]]
            hop_sel = pd.concat([hop_sel, rest[["claim_id", "query", "doc_id"]]], ignore_index=True)
            for variant, (plan, pairs, cycled) in PU.fill_up_variants(traces, max_questions, av["max_pairs"]).items():
                preds = E.qa_predictions(P.resolve(plan, claims)[0], hop_sel, docs, claims, labels, pairs, cycled)
                names = [f"{path.stem}__{variant}"] + ([path.stem] if variant == main_variant else [])
                for name in names:
                    evid = E.save_predictions(preds, gen_dir / "predictions" / f"{name}.json", claims)
                    kind = "ablation" if "__" in name else "generative"
                    tables.append(E.score_run(evid, refs, claims, av.get("jobs", 2), run=name, kind=kind))
                    if progress:
                        print(f"scored {name:24s} Q+A {tables[-1]['qa'].mean():.4f}")
        scores = pd.concat(tables, ignore_index=True)
        report.update(claims_scored=len(claims))
        TM.measured("runs", seconds=time.perf_counter() - start)
        scored = set(scores["run"])
        for stale in sorted((gen_dir / "predictions").glob("*.json")):  # a run no longer made (a plan left out)
            if stale.stem not in scored:
                OUT.remove(stale)
        OUT.write_parquet(runs, gen_dir / "runs.parquet", index=False)
        OUT.write_parquet(answers, gen_dir / "answers.parquet", index=False)
        OUT.write_parquet(scores, gen_dir / "scores.parquet", index=False)
        OUT.write_json(gen_dir / "runs_report.json", report, default=str)
    return runs, scores


# The params sections each command reads (its stage in dvc.yaml declares them).
READS = {
    "plans": ("generative", "retrieval", "llm"),
    "runs": ("generative_runs", "retrieval", "averitec", "generative"),  # generative: the pursuit's max_questions
}


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.planning.generative",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("command", choices=["plans", "runs"])
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    args = ap.parse_args(argv)
    study_params_only(
        args.params, f"the outputs of stage `generative_{args.command}`"
    )  # the study's folders: another file only through params.yaml
    params = {name: section(name, args.params) for name in READS[args.command]}
    if args.command == "plans":
        # its key and cache checked before a training of minutes
        LLM(LLMSettings.model_validate(params["llm"]), stage="generative_plans")
        ensure_weights(args.params)  # a fresh clone has QGEN's record (stage qgen), not its weights
        rep = build(params)
        for name, s in rep["plans"].items():
            print(
                f"{name:28s} {s['queries_per_claim']:5.2f} queries/claim, {s['tokens_per_query']:5.2f} "
                f"tokens/query, {s['empty_plans']} empty"
            )
        for name, why in rep["skipped"].items():
            print(f"skipped {name}: {why}")
    else:
        runs_and_scores(params)


if __name__ == "__main__":
    run_main(main)
