"""The retrieval runs of the study: every plan x retriever x scope x temporal setting x fusion, top `depth`.

Three DVC stages call this module:
- `python -m lib.retrieval.runs embed-documents`: document embeddings of the dense model,
  `outputs/embeddings/documents/<model>.{npy,json}` (the expensive step, cached by DVC per model).
- `python -m lib.retrieval.runs embed-queries`: embeddings of every query the plans need (CONCAT queries too).
- `python -m lib.retrieval.runs retrieve`: `outputs/runs/runs.parquet` (plan, retriever, scope, temporal, fusion,
  claim_id, doc_id, rank, score), `outputs/runs/answers.parquet` (the best document of every plan query:
  what `lib.averitec.evidence` pairs with it as its answer) and `outputs/runs/report.json` (plan fallbacks,
  temporal filter counts).

Notebooks 02-04 read these files; `runs_dict` turns one configuration into `{qid: {doc_id: score}}`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import pandas as pd
from pydantic import Field, model_validator
from tqdm import tqdm

from lib import compute as C
from lib import models as MD
from lib import outputs as OUT
from lib import timing as TM
from lib.cli import ArgumentParser, NamedError, data_folder, nonempty_path, run_main
from lib.data import averitec
from lib.evaluation.metrics import evaluate
from lib.params import (
    Device,
    NonNegInt,
    ParamsError,
    PosInt,
    Section,
    Separator,
    Text,
    flag_of,
    params_given,
    read_yaml,
    section,
    settings,
    subset,
)
from lib.paths import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE, STORE_DIR
from lib.planning import planners as P
from lib.retrieval import bm25 as BM
from lib.retrieval import dense as DN
from lib.retrieval import fusion as F
from lib.retrieval import retrievers as R
from lib.retrieval import temporal as TP
from lib.retrieval.vocabulary import CONFIG_COLUMNS, Fusion, RetrieverKind
from lib.store.build import claim_pools, load_store
from lib.store.scopes import Scope

# --------------------------------------------------------------------------- params


class FocusSection(Section):
    retriever: RetrieverKind
    scope: Scope


RUNS_DIR = OUTPUTS_DIR / "runs"
EMB_DOCS_DIR = DN.EMBEDDINGS_DIR / "documents"
EMB_QUERIES_DIR = DN.EMBEDDINGS_DIR / "queries"


class RunGrid(Section):
    """Params section `retrieval`: what to run (every plan x retriever x scope x temporal setting x fusion)."""

    params_complete = True

    plans: list[Text]
    retrievers: Annotated[list[RetrieverKind], Field(min_length=1)] = ["bm25", "dense"]
    scopes: Annotated[list[Scope], Field(min_length=1)] = ["claim", "global"]
    temporal: Annotated[list[bool], Field(min_length=1)] = [False, True]
    keep_undated: bool = True
    main_fusion: Fusion = "combmax_norm"
    all_fusions_for: list[Text] = ["oracle"]
    fusions: list[Fusion] = list(F.FUSIONS)
    depth: PosInt = 100
    rrf_k: NonNegInt = 60
    concat_separator: Separator = " "
    bm25: BM.BM25Params = BM.BM25Params()
    model: Text = MD.BUNDLED_MINILM
    max_seq_length: PosInt = 128
    batch_size: PosInt = 64
    workers: PosInt = 2
    global_index: DN.GlobalIndex = DN.GlobalIndex()

    @model_validator(mode="after")
    def _consistent(self) -> RunGrid:
        subset(self.all_fusions_for, self.plans, "all_fusions_for", "retrieval.plans")
        if self.global_index.approximate and self.global_index.candidates < self.depth:
            raise ValueError(
                f"retrieval.global_index.candidates ({self.global_index.candidates}) is below retrieval.depth "
                f"({self.depth}): a one-query plan could not fill its run"
            )
        return self

    def fusions_for(self, plan: str) -> list[str]:
        return list(dict.fromkeys([self.main_fusion] + (self.fusions if plan in self.all_fusions_for else [])))

    @property
    def needs_dense(self) -> bool:
        return any(R.KINDS[r].needs_dense for r in self.retrievers)

    @property
    def needs_bm25(self) -> bool:
        return any(R.KINDS[r].needs_bm25 for r in self.retrievers)


def load_plans(names: list[str], plans_dir: Path | str = P.PLANS_DIR, make: str | None = None) -> dict[str, P.Plan]:
    """The plans `names` from `plans_dir`; a missing one named with what makes it (`make`; by default the stage
    `plans` for the study's folder, the planners command into any other)."""
    plans = {}
    for name in names:
        path = Path(plans_dir) / f"{name}.jsonl"
        if not path.exists():
            if make is None and Path(plans_dir).resolve() == Path(P.PLANS_DIR).resolve():
                make = f"run `dvc repro plans` (or add {name} to params `planners`)"
            elif make is None:
                make = f"make it with `python -m lib.planning.planners --params FILE --out-dir {plans_dir}`"
            raise FileNotFoundError(f"{path} is missing: {make}")
        plans[name] = P.load_plan(path)
    return plans


def claim_queries(
    grid: RunGrid, resolved: Mapping[str, P.Plan], claim: averitec.Claim
) -> tuple[list[str], dict[str, str]]:
    """One claim's distinct query texts over all plans (CONCAT queries included) and each plan's CONCAT query."""
    queries: dict[str, None] = {}
    concat: dict[str, str] = {}
    for name, plan in resolved.items():
        queries.update(dict.fromkeys(plan[claim.claim_id]))
        if "concat" in grid.fusions_for(name):
            concat[name] = F.concat_query(claim.text, plan[claim.claim_id], grid.concat_separator)
            queries[concat[name]] = None
    return list(queries), concat


def queries_needed(grid: RunGrid, plans: Mapping[str, P.Plan], claims: list[averitec.Claim]) -> list[str]:
    """Every query text the grid runs: resolved plan queries and the CONCAT queries, each once."""
    resolved = {name: P.resolve(plan, claims)[0] for name, plan in plans.items()}
    # plan by plan, as the embeddings were first made: the encoder batches by length, so the order of
    # equal-length texts moves the vectors in the 7th decimal
    return list(
        dict.fromkeys(q for name in resolved for c in claims for q in claim_queries(grid, {name: resolved[name]}, c)[0])
    )


def query_embeddings(model: str, emb_dir: Path | str = EMB_QUERIES_DIR) -> dict[str, np.ndarray]:
    keys, emb = DN.load_embeddings(Path(emb_dir) / MD.model_slug(model), model)
    return dict(zip(keys, emb))


def document_embeddings(model: str, doc_ids: list[str], emb_dir: Path | str = EMB_DOCS_DIR) -> np.ndarray:
    keys, emb = DN.load_embeddings(Path(emb_dir) / MD.model_slug(model), model)
    if keys != doc_ids:
        raise NamedError(
            f"{Path(emb_dir) / MD.model_slug(model)}: the document embeddings are not those of the store's "
            f"{len(doc_ids):,} documents ({len(keys):,} embedded): embed that store (`dvc repro embed_documents` "
            "for the study's)"
        )
    return emb


def retrievers(
    grid: RunGrid,
    docs: pd.DataFrame,
    doc_emb: np.ndarray | None,
    query_emb: Mapping[str, np.ndarray] | None,
    encoder=None,
) -> dict[tuple[str, str], R.Retriever]:
    """{(retriever, scope): RetrieverKind} for the grid."""
    bm25 = BM.BM25.from_texts(docs["text"], grid.bm25) if grid.needs_bm25 else None
    dense = DN.DenseIndex(doc_emb, query_emb, encoder, grid.global_index) if grid.needs_dense else None
    pools = claim_pools(docs)
    return {
        (kind, scope): R.Retriever(kind, scope, bm25, dense, pools) for kind in grid.retrievers for scope in grid.scopes
    }


@dataclass
class _Job:
    """What every (retriever, scope) pass needs; module-level so that forked workers inherit it."""

    grid: RunGrid
    claims: list[averitec.Claim]
    plans: list[str]
    resolved: dict[str, P.Plan]
    retr: Mapping[tuple[str, str], R.Retriever]
    tiebreak: np.ndarray
    published: np.ndarray
    captured: np.ndarray


_JOB: _Job | None = None


def _groups(
    job: _Job, retriever: R.Retriever, cid: int, qlist: list[str], concat: Mapping[str, str]
) -> list[tuple[list[str], list[str], bool]]:
    """How one claim's work (its queries `qlist` and plans' CONCAT queries, `claim_queries`) splits into
    (plans, queries, answer the plain queries?) groups that share their candidates. Exact candidates do not
    depend on the queries: one group. With an approximate index each plan ranks only what its own queries
    found, and each plain query is answered from what it found alone (as `lib.planning.pursuit.Answerer` answers
    it), so no plan's run depends on the other plans run beside it."""
    if not retriever.approximate:
        return [(job.plans, qlist, True)]
    plain = dict.fromkeys(q for name in job.plans for q in job.resolved[name][cid])
    own = [
        ([name], list(dict.fromkeys([*job.resolved[name][cid], *([concat[name]] if name in concat else [])])), False)
        for name in job.plans
    ]
    return own + [([], [q], True) for q in plain]


def _retrieve_pass(
    pair: tuple[str, str],
) -> tuple[list[tuple], dict[str, np.ndarray], dict[str, int], list[tuple], dict[tuple, float]]:
    """All plans, temporal settings and fusions for one (retriever, scope) over every claim, the best
    document of every single query (the answer `lib.averitec.evidence` pairs with it), and each (plan, temporal,
    fusion)'s seconds: its own fusion plus its queries' share of the claim's scoring (per query). The
    temporal counts are over each claim's candidates (with an approximate index: the union of its groups')."""
    job, (kind, scope) = _JOB, pair
    grid, retriever = job.grid, job.retr[pair]
    configs: list[tuple] = []
    chunks: dict[str, list[np.ndarray]] = {"config": [], "claim_id": [], "row": [], "rank": [], "score": []}
    counts_sum: dict[str, int] = {}
    answers: list[tuple] = []
    seconds: dict[tuple, float] = {}
    for claim in job.claims:
        cid = claim.claim_id
        claim_qlist, concat = claim_queries(grid, job.resolved, claim)
        found = []
        for plans, qlist, answer in _groups(job, retriever, cid, claim_qlist, concat):
            start = time.perf_counter()
            cands = retriever.candidates(cid, qlist)
            status = TP.date_status(job.published[cands], job.captured[cands], claim.claim_date)
            found.append(cands)
            plain = {q for name in plans for q in job.resolved[name][cid]} if plans else set(qlist)
            where = {q: i for i, q in enumerate(qlist)}
            unfiltered = retriever.score(cid, qlist, cands)
            scored = time.perf_counter() - start
            for temporal in grid.temporal:
                start = time.perf_counter()
                keep = TP.temporal_mask(status, grid.keep_undated) if temporal else np.ones(len(cands), dtype=bool)
                rows = cands[keep]
                # a kind that normalises over the candidates (hybrid) scores a filtered candidate set anew
                scores = (
                    retriever.score(cid, qlist, rows)
                    if retriever.spec.candidate_dependent and temporal
                    else unfiltered[:, keep]
                )
                norm = F.minmax_rows(scores)  # per query, so it serves every plan's sub-matrix
                tb = job.tiebreak[rows]
                for qi, q in enumerate(qlist):
                    if answer and q in plain:  # CONCAT queries get no answer of their own
                        best = F.top_k(scores[qi], 1, tb)
                        if len(best):
                            answers.append((temporal, cid, q, int(rows[best[0]]), float(scores[qi, best[0]])))
                per_query = (scored + time.perf_counter() - start) / len(qlist)
                for name in plans:
                    idx = [where[q] for q in job.resolved[name][cid]]
                    for fusion in grid.fusions_for(name):
                        start = time.perf_counter()
                        if fusion == "concat":
                            fused = F.fuse(scores[[where[concat[name]]]], "concat")
                        else:
                            fused = F.fuse(scores[idx], fusion, tb, grid.depth, grid.rrf_k, norm=norm[idx])
                        top = F.top_k(fused, grid.depth, tb)
                        configs.append((name, kind, scope, temporal, fusion))
                        n = len(top)
                        chunks["config"].append(np.full(n, len(configs) - 1, dtype=np.int32))
                        chunks["claim_id"].append(np.full(n, cid, dtype=np.int32))
                        chunks["row"].append(rows[top])
                        chunks["rank"].append(np.arange(1, n + 1, dtype=np.int16))
                        chunks["score"].append(fused[top])
                        key = (name, temporal, fusion)
                        queries = 1 if fusion == "concat" else len(idx)
                        seconds[key] = seconds.get(key, 0.0) + time.perf_counter() - start + per_query * queries
        if len(found) > 1:  # the temporal counts are over the union of the groups' candidates
            union = np.unique(np.concatenate(found))
            status = TP.date_status(job.published[union], job.captured[union], claim.claim_date)
        for k, v in TP.temporal_report(status, grid.keep_undated).items():
            counts_sum[k] = counts_sum.get(k, 0) + v
    return configs, {k: np.concatenate(v) for k, v in chunks.items()}, counts_sum, answers, seconds


def retrieve(
    grid: RunGrid,
    docs: pd.DataFrame,
    claims: list[averitec.Claim],
    plans: Mapping[str, P.Plan],
    retr: Mapping[tuple[str, str], R.Retriever],
    progress: bool = True,
    workers: int = 1,
) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """Run the grid; returns the runs (top `depth` per claim and configuration), a report, and the
    answers: the best document of every plan query (retriever, scope, temporal, claim_id, query,
    doc_id, score).

    `workers` > 1 runs the (retriever, scope) passes in forked processes; the result is the same."""
    global _JOB
    doc_ids = docs["doc_id"].to_numpy()
    resolved, fallbacks = {}, {}
    for name, plan in plans.items():
        resolved[name], fallbacks[name] = P.resolve(plan, claims)
    _JOB = _Job(grid, list(claims), list(plans), resolved, retr, F.id_tiebreak(doc_ids), *TP.date_ordinals(docs))
    pairs = list(retr)
    bar = tqdm(total=len(pairs), desc="retrieve (retriever x scope passes)", disable=not progress)
    try:
        if workers > 1 and len(pairs) > 1:
            results = []
            for r in C.forked_map(_retrieve_pass, pairs, min(workers, len(pairs)), "retrieval"):
                results.append(r)
                bar.update()
        else:
            results = []
            for pair in pairs:
                results.append(_retrieve_pass(pair))
                bar.update()
    finally:
        bar.close()
        _JOB = None
    configs: list[tuple] = []
    parts: dict[str, list[np.ndarray]] = {"config": [], "claim_id": [], "row": [], "rank": [], "score": []}
    temporal_counts: dict[str, dict[str, int]] = {}
    approximate: dict[str, dict[str, int]] = {}  # passes whose candidates an approximate index found
    answer_rows = []
    for (kind, scope), (cfg, chunk, counts, answers, seconds) in zip(pairs, results):
        for (name, temporal, fusion), secs in seconds.items():
            TM.cost(
                name,
                "retrieval",
                secs,
                len(claims),
                f"{kind}/{scope}/{fusion}" + ("/temporal" if temporal else ""),
                how="measured: its fusion, plus its queries' share of each claim's scoring (per query)",
            )
        for k, v in chunk.items():
            parts[k].append(v + len(configs) if k == "config" else v)
        configs.extend(cfg)
        if retr[(kind, scope)].approximate:
            approximate[f"{kind}/{scope}"] = counts
        else:  # exact candidates are the same for every retriever of a scope
            temporal_counts.setdefault(scope, counts)
        answer_rows.extend((kind, scope, *a) for a in answers)
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    cfg = pd.DataFrame(configs, columns=CONFIG_COLUMNS)
    runs = pd.DataFrame(
        {
            col: pd.Categorical(cfg[col].to_numpy()[cat["config"]])
            if col != "temporal"
            else cfg[col].to_numpy(dtype=bool)[cat["config"]]
            for col in CONFIG_COLUMNS
        }
    )
    runs["claim_id"] = cat["claim_id"].astype(np.int32)
    runs["doc_id"] = pd.Categorical(doc_ids[cat["row"].astype(np.int64)])
    runs["rank"] = cat["rank"].astype(np.int16)
    runs["score"] = cat["score"].astype(np.float64)
    report = {
        "grid": grid.model_dump(),
        "claims": len(claims),
        "rows": len(runs),
        "fallbacks": {name: {"count": len(ids), "claim_ids": ids} for name, ids in fallbacks.items()},
        "temporal_filter": {**{k.split("/")[1]: v for k, v in approximate.items()}, **temporal_counts},
        **({"temporal_filter_approximate": approximate} if approximate else {}),
    }
    answers = pd.DataFrame(answer_rows, columns=["retriever", "scope", "temporal", "claim_id", "query", "row", "score"])
    answers["doc_id"] = doc_ids[answers["row"].to_numpy(dtype=np.int64)]
    return runs, report, answers.drop(columns="row")


def runs_dict(runs: pd.DataFrame, **config: Any) -> dict[str, dict[str, float]]:
    """One configuration as `{qid: {doc_id: score}}` (qid = str(claim_id)); keyword args select it, and a
    selection that still spans several configurations is an error (BM25 and dense scores were merged into one
    run, a document's score the last one read)."""
    sel = select(runs, **config)
    if sel.empty and (config or runs.empty):
        raise KeyError(f"no run with {config}")
    if open_ := {c: sel[c].unique() for c in CONFIG_COLUMNS if c in sel and sel[c].nunique(dropna=False) > 1}:
        raise ValueError(
            f"runs_dict({', '.join(f'{k}={v!r}' for k, v in config.items())}) selects "
            f"{len(sel.drop_duplicates([c for c in CONFIG_COLUMNS if c in sel]))} configurations: name "
            + "; ".join(f"{c} (one of {', '.join(sorted(map(str, v)))})" for c, v in open_.items())
        )
    out: dict[str, dict[str, float]] = {}
    for cid, did, score in zip(
        sel["claim_id"].to_numpy(), sel["doc_id"].astype(str).to_numpy(), sel["score"].to_numpy()
    ):
        if cid is pd.NA or cid is None:  # a nullable column's missing id was written as the query "<NA>"
            raise ValueError("runs_dict: a row has no claim id (expected the study's integer ids)")
        if isinstance(cid, float | np.floating):  # a merge that brought a NaN made the ids floats: "1.0" matched no
            if not float(cid).is_integer():  # qrels query (float32 ones too)
                raise ValueError(f"runs_dict: claim id {cid!r} is no whole number (expected the study's integer ids)")
            cid = int(cid)
        docs = out.setdefault(str(cid), {})
        if did in docs:  # a table concatenated twice, or ids 1 and "1": the last score replaced the first
            raise ValueError(f"runs_dict: claim {cid} holds document {did!r} twice in one configuration")
        docs[did] = float(score)
    return out


def select(frame: pd.DataFrame, **filters: Any) -> pd.DataFrame:
    """Rows whose columns match the filters (a value, or a list of accepted values)."""
    for col, value in filters.items():
        frame = frame[frame[col].isin(value if isinstance(value, (list, tuple, set)) else [value])]
    return frame


def configurations(runs: pd.DataFrame, **filters: Any) -> pd.DataFrame:
    """The distinct configurations (CONFIG_COLUMNS) in `runs`, optionally filtered (value or list)."""
    return select(runs[CONFIG_COLUMNS].drop_duplicates(), **filters).reset_index(drop=True)


def evaluate_grid(
    runs: pd.DataFrame,
    qrels: Mapping[str, Mapping[str, int]],
    measures: list[str],
    per_query: bool = False,
    **filters: Any,
) -> pd.DataFrame:
    """`lib.evaluation.metrics.evaluate` for every selected configuration: one row per configuration (or per
    configuration and claim with `per_query=True`, column `qid`)."""

    rows = []
    for key, group in select(runs, **filters).groupby(CONFIG_COLUMNS, observed=True, sort=False):
        run = runs_dict(group)
        config = dict(zip(CONFIG_COLUMNS, key))
        if per_query:
            for qid, values in evaluate(qrels, run, measures, per_query=True).items():
                rows.append({**config, "qid": qid, **values})
        else:
            rows.append({**config, **evaluate(qrels, run, measures)})
    return pd.DataFrame(rows)


def load_runs(runs_dir: Path | str = RUNS_DIR) -> tuple[pd.DataFrame, dict]:
    runs_dir = Path(runs_dir)
    if not (runs_dir / "runs.parquet").exists():
        raise FileNotFoundError(f"{runs_dir}/runs.parquet is missing: run `dvc repro runs` first")
    return OUT.read_parquet(runs_dir / "runs.parquet"), OUT.read_json(runs_dir / "report.json")


# --------------------------------------------------------------------------- stages


def output_root(
    out_dir: str | None,
    store_dir: str,
    data_dir: str,
    params: str | None = None,
    plans_dir: str | None = None,
    needs_plans: bool = True,
) -> Path:
    """Where the embeddings and runs go: the study's `outputs/` for its own store, data, plans and parameter
    file, else a named `--out-dir` (`lib.outputs.own_output`). Another data folder, or another parameter file whose
    `planners` section differs, needs the plans made from it (`--plans-dir`): the study's plans, made from the
    study's claims and settings, were read as the other input's."""
    given = (
        ("--store-dir", store_dir, STORE_DIR),
        ("--data-dir", data_dir, DATA_DIR),
        ("--plans-dir", plans_dir, P.PLANS_DIR),
        params_given(params),
    )
    root = OUT.own_output(out_dir, OUTPUTS_DIR, given, "its outputs/embeddings and outputs/runs")
    if not needs_plans:  # the documents' embeddings read no plan
        return root
    flag, read, _ = given[-1]
    make = "make its plans (python -m lib.planning.planners {} --out-dir FOLDER) and give --plans-dir FOLDER"
    if plans_dir is None and Path(data_dir).resolve() != DATA_DIR.resolve():
        raise NamedError(
            f"--data-dir {data_dir}: the study's plans (outputs/plans) are of the claims in data/: "
            + make.format(f"--data-dir {data_dir}")
        )
    # the other file checked first (a list or an empty file is named, not compared); the study's as written
    if read is not None and plans_dir is None and section("planners", read) != read_yaml(PARAMS_FILE)["planners"]:
        raise NamedError(
            f"{flag} {read}: its `planners` section is not the study's, whose plans outputs/plans holds: "
            + make.format(f"--params {read}")
        )
    return root


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.retrieval.runs", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("command", choices=["embed-documents", "embed-queries", "retrieve"])
    ap.add_argument("--params", type=nonempty_path, default=None, help="parameter file (default: params.yaml)")
    ap.add_argument("--store-dir", default=str(STORE_DIR))
    ap.add_argument("--data-dir", type=data_folder, default=str(DATA_DIR))
    ap.add_argument("--plans-dir", type=nonempty_path, default=None, help="default: the study's outputs/plans")
    ap.add_argument(
        "--device",
        type=flag_of(Device, "auto, cpu, mps, cuda or cuda:N"),
        default=None,
        help="encoder device (default: CUDA when present, else CPU)",
    )
    ap.add_argument(
        "--out-dir",
        type=nonempty_path,
        default=None,
        help="folder for embeddings/ and runs/ (default: the study's outputs/, for the study's own store and data only)",
    )
    args = ap.parse_args(argv)
    out_root = output_root(
        args.out_dir, args.store_dir, args.data_dir, args.params, args.plans_dir, args.command != "embed-documents"
    )
    plans_dir = args.plans_dir or P.PLANS_DIR
    args.params = args.params or str(PARAMS_FILE)
    runs_dir, docs_dir, queries_dir = (
        out_root / "runs",
        out_root / "embeddings" / "documents",
        out_root / "embeddings" / "queries",
    )
    if getattr(args, "device", None) not in (None, "auto", "cpu"):
        MD.pick_device(args.device)  # a device this machine lacks: refused before any work, whatever runs
    grid = settings("retrieval", args.params, RunGrid)
    if not grid.plans:
        raise ParamsError(args.params, ["retrieval.plans: no plan to run (name at least one)"])
    docs = load_store(args.store_dir).docs
    claims = averitec.load_averitec("dev", Path(args.data_dir) / "averitec" / "dev.json")
    start = time.perf_counter()
    slug = MD.model_slug(grid.model)
    if args.command in ("embed-documents", "embed-queries"):
        encoder = MD.load_encoder(grid.model, args.device, grid.max_seq_length)
        if args.command == "embed-documents":
            keys, out = docs["doc_id"].tolist(), docs_dir / slug
            emb = MD.encode(encoder, docs["text"].tolist(), grid.batch_size)
        else:
            keys, out = queries_needed(grid, load_plans(grid.plans, plans_dir), claims), queries_dir / slug
            emb = MD.encode(encoder, keys, grid.batch_size)
        DN.save_embeddings(out, keys, emb, grid.model)
        took = time.perf_counter() - start
        print(
            f"{args.command}: {len(keys):,} texts with {grid.model} in {took:.0f} s "
            f"({len(keys) / max(took, 1e-9):.0f}/s) -> {out}.npy"
        )
        return
    plans = load_plans(grid.plans, plans_dir)
    doc_emb = document_embeddings(grid.model, docs["doc_id"].tolist(), docs_dir) if grid.needs_dense else None
    q_emb = query_embeddings(grid.model, queries_dir) if grid.needs_dense else None
    runs, report, answers = retrieve(
        grid, docs, claims, plans, retrievers(grid, docs, doc_emb, q_emb), workers=grid.workers
    )
    took = time.perf_counter() - start  # printed and in the timing file (lib.timing), never in the report
    with OUT.together():
        OUT.write_parquet(runs, runs_dir / "runs.parquet", index=False)
        OUT.write_parquet(answers, runs_dir / "answers.parquet", index=False)
        OUT.write_json(runs_dir / "report.json", report)
    n_cfg = len(runs.groupby(CONFIG_COLUMNS, observed=True))
    print(f"retrieve: {n_cfg} configurations, {len(runs):,} ranked rows in {took:.1f} s -> {runs_dir}")


if __name__ == "__main__":
    run_main(main)
