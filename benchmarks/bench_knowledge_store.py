"""Benchmark: per-claim BM25 over a knowledge store in the official layout, this project's against rank_bm25's.

`make bench` (or `python -m benchmarks.bench_knowledge_store`) needs the pipeline's store (its documents
are the synthetic store's sentences) and writes a synthetic store of `--claims` claims x `--pages` pages x
`--sentences` sentences (default 20 x 1,000 x 50: a million sentences) under `outputs/benchmarks/`. Each
claim's queries are its text and the annotators' questions (ORACLE-QUERIES). Per claim, in the same
process, on the same passages:

- **rank_bm25**, the straightforward approach (the 2024 and 2025 baselines'): tokenise, one `BM25Okapi`
  per claim, `get_scores` per query, top 100;
- **this project, first run** (`lib.retrieval.per_claim.retrieve_claim` with an index folder): build the
  claim's vectorised BM25 index, save it under its content address, score all queries in one product;
- **this project, index built** (what every later planner, setting and rerun pays): load the index and
  score.

Both rank the same top 100 for every query (the benchmark stops if not). It prints seconds per claim,
sentences indexed per second, the ratios, each approach's peak memory on one claim (tracemalloc, a
separate pass), and how the time grows with pages per claim; the numbers go to
`outputs/benchmarks/knowledge_store.json` (a timing file, not a metrics file).
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
import tracemalloc
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi
from tqdm import tqdm

from lib.data import averitec
from lib.data import knowledge_store as KS
from lib.paths import DATA_DIR, OUTPUTS_DIR, STORE_DIR
from lib.retrieval import bm25 as BM
from lib.retrieval import per_claim as K
from lib.store import passages as PS
from lib.store.build import load_store

OUT_DIR = OUTPUTS_DIR / "benchmarks"
DEPTH = 100


def rank_bm25_claim(texts: list[str], queries: list[str]) -> list[np.ndarray]:
    bm = BM25Okapi([BM.tokenize(t) for t in texts])
    return [K.top_k(bm.get_scores(BM.tokenize(q)), DEPTH) for q in queries]


def ours_claim(texts: list[str], queries: list[str], index_dir: Path) -> tuple[np.ndarray, bool]:
    top, _, loaded = K.retrieve_claim(texts, queries, DEPTH, index_dir=index_dir)
    return top, loaded


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def peak_mib(fn, *args) -> float:
    tracemalloc.start()
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def run(store: Path, queries: dict[int, list[str]], index_dir: Path, desc: str) -> dict[str, float]:
    """Seconds (summed over claims) of each approach, with the top-100 check."""
    files = KS.claim_files(store)
    shutil.rmtree(index_dir, ignore_errors=True)
    total = {"read": 0.0, "rank_bm25": 0.0, "first_run": 0.0, "index_built": 0.0, "sentences": 0, "claims": 0}
    for cid in tqdm(sorted(queries), desc=desc):
        passages, t_read = timed(PS.claim_passages, store, cid, files[cid])
        texts, qs = passages["text"].tolist(), queries[cid]
        ref, t_ref = timed(rank_bm25_claim, texts, qs)
        (first, loaded1), t_first = timed(ours_claim, texts, qs, index_dir)
        (again, loaded2), t_again = timed(ours_claim, texts, qs, index_dir)
        if loaded1 or not loaded2:
            raise SystemExit(f"claim {cid}: the index was not built once and then loaded")
        for qi, q in enumerate(qs):
            if not (np.array_equal(first[qi], ref[qi]) and np.array_equal(again[qi], ref[qi])):
                raise SystemExit(f"claim {cid}, query {q!r}: top-{DEPTH} differs from rank_bm25's")
        for key, value in (("read", t_read), ("rank_bm25", t_ref), ("first_run", t_first), ("index_built", t_again)):
            total[key] += value
        total["sentences"] += len(texts)
        total["claims"] += 1
    return total


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--claims", type=int, default=20)
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--sentences", type=int, default=50)
    ap.add_argument("--growth", type=int, nargs="+", default=[250, 500, 1000], help="pages per claim to time")
    ap.add_argument("--growth-claims", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--store-dir", default=str(STORE_DIR), help="the pooled store whose documents are drawn")
    ap.add_argument("--out-dir", default=str(OUT_DIR))
    ap.add_argument("--data-dir", default=str(DATA_DIR))
    args = ap.parse_args(argv)
    out_dir = Path(args.out_dir)
    source = K.source_texts(load_store(args.store_dir).docs["text"])
    dev = averitec.load_averitec("dev", Path(args.data_dir) / "averitec" / "dev.json")[: args.claims]
    queries = {c.claim_id: [c.text, *dict.fromkeys(q.text for q in c.questions)] for c in dev}
    work = out_dir / "knowledge_store"
    store = work / f"store_{args.claims}x{args.pages}x{args.sentences}"
    if not store.exists():
        print(f"writing a synthetic store: {args.claims} claims x {args.pages} pages x {args.sentences} sentences")
        K.synthesise(store, source, list(queries), args.pages, args.sentences, args.seed)
    main_run = run(store, queries, work / "index", "claims")
    n, c = main_run["sentences"], main_run["claims"]
    per = {k: main_run[k] / c for k in ("read", "rank_bm25", "first_run", "index_built")}
    ratio_first, ratio_built = per["rank_bm25"] / per["first_run"], per["rank_bm25"] / per["index_built"]
    q_per_claim = sum(map(len, queries.values())) / len(queries)
    print(
        f"\n{c} claims, {n / c:,.0f} sentences and {q_per_claim:.1f} queries per claim; identical top-{DEPTH} for every query"
    )
    print(f"reading a claim's file (both approaches): {per['read']:.3f} s per claim")
    rows = [
        ("rank_bm25 (BM25Okapi per claim, get_scores per query)", per["rank_bm25"], 1.0),
        ("this project, first run (index built and saved)", per["first_run"], ratio_first),
        ("this project, index built (loaded, then scored)", per["index_built"], ratio_built),
    ]
    print("| approach | seconds per claim | sentences per second | ratio to rank_bm25 |\n|---|---:|---:|---:|")
    for name, secs, ratio in rows:
        print(f"| {name} | {secs:.3f} | {n / c / secs:,.0f} | {ratio:.1f}x |")
    files = KS.claim_files(store)
    first_cid = sorted(queries)[0]
    texts = PS.claim_passages(store, first_cid, files[first_cid])["text"].tolist()
    memory = {
        "rank_bm25": peak_mib(rank_bm25_claim, texts, queries[first_cid]),
        "first_run": peak_mib(K.retrieve_claim, texts, queries[first_cid], DEPTH, BM.BM25Params(), work / "memory"),
        "index_built": peak_mib(K.retrieve_claim, texts, queries[first_cid], DEPTH, BM.BM25Params(), work / "memory"),
    }
    shutil.rmtree(work / "memory", ignore_errors=True)
    print("peak memory on one claim (MiB, tracemalloc): " + ", ".join(f"{k} {v:.0f}" for k, v in memory.items()))
    growth = []
    for pages in args.growth:
        g_store = work / f"store_{args.growth_claims}x{pages}x{args.sentences}"
        g_queries = dict(list(queries.items())[: args.growth_claims])
        if not g_store.exists():
            K.synthesise(g_store, source, list(g_queries), pages, args.sentences, args.seed)
        t = run(g_store, g_queries, work / "index_growth", f"{pages} pages")
        growth.append({"pages": pages, **{k: t[k] / t["claims"] for k in ("rank_bm25", "first_run", "index_built")}})
    print("\nhow time per claim grows with pages per claim (seconds; per 1,000 sentences in brackets)")
    print("| pages per claim | rank_bm25 | first run | index built |\n|---:|---:|---:|---:|")
    for g in growth:
        k_sent = g["pages"] * args.sentences / 1000
        print(
            f"| {g['pages']:,} | "
            + " | ".join(f"{g[k]:.3f} ({g[k] / k_sent:.4f})" for k in ("rank_bm25", "first_run", "index_built"))
            + " |"
        )
    target = 20.0
    print(
        f"\ntarget {target:g}x per claim: first run {ratio_first:.1f}x ({'met' if ratio_first >= target else 'not met'}), "
        f"index built {ratio_built:.1f}x ({'met' if ratio_built >= target else 'not met'})"
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    out = {
        "store": {"claims": args.claims, "pages": args.pages, "sentences": args.sentences, "seed": args.seed},
        "queries_per_claim": q_per_claim,
        "seconds_per_claim": per,
        "ratio": {"first_run": ratio_first, "index_built": ratio_built},
        "peak_mib_one_claim": memory,
        "growth": growth,
    }
    (out_dir / "knowledge_store.json").write_text(json.dumps(out, indent=2) + "\n")
    print(f"-> {out_dir / 'knowledge_store.json'}")


if __name__ == "__main__":
    main()
