"""Benchmark: vectorised BM25 and fusion against straightforward implementations, same process, same inputs.

`make bench` (or `python -m benchmarks.bench_retrieval`) needs the pipeline's store and plans. It prints:
1. BM25 over the whole collection for every distinct sub-query of the dev decomposition plans (ORACLE-QUERIES,
   BLOOM-QG, HEURISTIC; POST-HOC question sets are references, not plans): `lib.retrieval.bm25.BM25`
   (one sparse product per batch) versus rank_bm25's `BM25Okapi.get_scores` (one query at a time), with
   the largest absolute score difference;
2. fusion of each claim's sub-query scores (ORACLE-QUERIES, BM25, whole collection): `lib.retrieval.fusion.fuse`
   (arrays) versus `benchmarks.reference.fuse_dicts` (dicts, document by document), checking that both
   give the same top-100 ranking and scores.
3. the global scope's dense index: faiss' approximate `ivf` and `hnsw` indexes (`retrieval.global_index`)
   against the exact flat index, over the store's document embeddings, for the same sub-queries: build
   and search seconds and the share of the flat top-k each finds (recall@k).
Lines 1 and 2 end with the speed ratio (reference time / vectorised time); line 3 with the search speed
ratio (flat search time / approximate search time).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from rank_bm25 import BM25Okapi
from tqdm import tqdm

from benchmarks.reference import fuse_dicts, ranked
from lib.data import averitec
from lib.params import section
from lib.planning import planners as P
from lib.retrieval import bm25 as BM
from lib.retrieval import dense as DN
from lib.retrieval import fusion as F
from lib.retrieval.runs import document_embeddings, load_plans, query_embeddings
from lib.store.build import load_store


def bench_bm25(texts: list[str], queries: list[str], batch: int) -> None:
    start = time.perf_counter()
    ours = BM.BM25.from_texts(texts)
    build_ours = time.perf_counter() - start
    start = time.perf_counter()
    ref = BM25Okapi([BM.tokenize(t) for t in texts])
    build_ref = time.perf_counter() - start
    t_ours = t_ref = 0.0
    max_diff = 0.0
    for i in tqdm(range(0, len(queries), batch), desc="bm25 batches"):
        chunk = queries[i : i + batch]
        start = time.perf_counter()
        s_ours = ours.scores(chunk)
        t_ours += time.perf_counter() - start
        start = time.perf_counter()
        s_ref = np.stack([ref.get_scores(BM.tokenize(q)) for q in chunk])
        t_ref += time.perf_counter() - start
        max_diff = max(max_diff, float(np.abs(s_ours - s_ref).max()))
    print(f"BM25 index build over {len(texts):,} documents: vectorised {build_ours:.2f} s, rank_bm25 {build_ref:.2f} s")
    print(
        f"BM25 scoring of {len(queries):,} sub-queries x {len(texts):,} documents: vectorised {t_ours:.2f} s, "
        f"rank_bm25 get_scores {t_ref:.2f} s, max |diff| {max_diff:.2e} -> ratio {t_ref / t_ours:.1f}x"
    )
    if max_diff >= 1e-9:
        raise SystemExit(f"BM25 scores differ by {max_diff:.2e} (>= 1e-9)")


def bench_fusion(texts: list[str], doc_ids: np.ndarray, plan: P.Plan, methods: list[str], depth: int) -> None:
    bm25 = BM.BM25.from_texts(texts)
    tiebreak = F.id_tiebreak(doc_ids)
    matrices = [bm25.scores(qs) for qs in plan.values()]
    ids = doc_ids.tolist()
    t_ours = t_ref = 0.0
    for method in methods:
        for scores in tqdm(matrices, desc=f"fusion {method}", leave=False):
            start = time.perf_counter()
            fused = F.fuse(scores, method, tiebreak, depth)
            top = F.top_k(fused, depth, tiebreak)
            t_ours += time.perf_counter() - start
            start = time.perf_counter()
            ref = fuse_dicts([dict(zip(ids, row)) for row in scores], method, depth)
            ref_top = ranked(ref)[:depth]
            t_ref += time.perf_counter() - start
            if [ids[j] for j in top] != ref_top or not np.allclose(fused[top], [ref[d] for d in ref_top], atol=1e-12):
                raise SystemExit(f"fusion {method}: vectorised and reference rankings differ")
    print(
        f"Fusion of {len(matrices)} claims' sub-query scores x {len(texts):,} documents, {len(methods)} methods "
        f"({', '.join(methods)}): vectorised {t_ours:.2f} s, dict-based {t_ref:.2f} s, identical top-{depth} "
        f"-> ratio {t_ref / t_ours:.1f}x"
    )


def bench_global_index(
    doc_emb: np.ndarray, query_emb: dict[str, np.ndarray], queries: list[str], settings: dict, k: int
) -> None:
    """Each approximate index's top k and top `candidates` (what a run rescores) against the flat top k."""
    queries = [q for q in queries if q in query_emb]
    c = max(k, settings["candidates"])
    timings, found = {}, {}
    for kind in DN.GLOBAL_INDEXES:
        start = time.perf_counter()
        index = DN.DenseIndex(doc_emb, query_emb, index=DN.GlobalIndex(**{**settings, "kind": kind}))
        build = time.perf_counter() - start
        start = time.perf_counter()
        found[kind] = index.search(queries, c)[1]
        timings[kind] = (build, time.perf_counter() - start)
    exact = found["flat"][:, :k]
    for kind in DN.GLOBAL_INDEXES[1:]:
        top, cands = found[kind][:, :k], found[kind]
        recall = np.mean([len(set(a) & set(e)) / k for a, e in zip(top, exact)])
        within = np.mean([len(set(a) & set(e)) / k for a, e in zip(cands, exact)])
        (b, t), t_flat = timings[kind], timings["flat"][1]
        print(
            f"Global index {kind} over {len(doc_emb):,} documents, {len(queries):,} sub-queries: build {b:.2f} s, "
            f"top-{c} search {t:.2f} s (flat {t_flat:.2f} s); of the flat top {k}, {recall:.4f} in its top {k}, "
            f"{within:.4f} in its {c} candidates -> ratio {t_flat / t:.1f}x"
        )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--plans", nargs="+", default=["oracle", "bloom_qg", "heuristic"], help="plans whose sub-queries to score"
    )
    ap.add_argument("--max-queries", type=int, default=None, help="seeded sample of sub-queries (default: all)")
    ap.add_argument("--batch", type=int, default=500, help="sub-queries per vectorised batch")
    ap.add_argument("--fusion-plan", default="oracle")
    args = ap.parse_args(argv)
    grid = section("retrieval")
    docs = load_store().docs
    texts, doc_ids = docs["text"].tolist(), docs["doc_id"].to_numpy()
    claims = averitec.load_averitec("dev")
    plans = load_plans(sorted(set(args.plans) | {args.fusion_plan}))
    queries = list(
        dict.fromkeys(q for name in args.plans for qs in P.resolve(plans[name], claims)[0].values() for q in qs)
    )
    if args.max_queries and args.max_queries < len(queries):
        queries = random.Random(0).sample(queries, args.max_queries)
    print(f"plans {', '.join(args.plans)}: {len(queries):,} distinct sub-queries")
    bench_bm25(texts, queries, args.batch)
    plan = P.resolve(plans[args.fusion_plan], claims)[0]
    bench_fusion(texts, doc_ids, plan, [m for m in F.FUSIONS if m != "concat"], grid.get("depth", 100))
    model = grid["model"]
    bench_global_index(
        document_embeddings(model, doc_ids.tolist()),
        query_embeddings(model),
        queries,
        grid["global_index"],
        grid.get("depth", 100),
    )


if __name__ == "__main__":
    main()
