"""Stage `training_evidence` (`python -m lib.verifier.retrieved_training`) -> `outputs/nli/training_evidence.parquet`:
the AVeriTeC train claims' retrieved evidence, for the verifier's `retrieved` training protocol (the thesis trained
its verifier on retrieved evidence; `nli_averitec.training_evidence`).

A train claim's evidence is its top documents of the open collection (every document of the store) by BM25 with
the claim as the query, its own gold answers left out: the store holds the train claims' gold answers as
distractors, so a train claim would otherwise find its own answers and train on gold evidence again. Train claims
have no planner's plans, so this is CLAIM-ONLY's evidence. The retrieval runs here, in its own stage, so that
editing a retriever reruns this stage and retrains the verifier only if the evidence it wrote changed.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib.cli import ArgumentParser, nonempty_path, run_main
from lib.data import averitec
from lib.params import section, study_params_only
from lib.paths import DATA_DIR, PARAMS_FILE, STORE_DIR
from lib.retrieval.bm25 import BM25, BM25Params
from lib.store.build import doc_id_for, load_store
from lib.store.passages import clean_text
from lib.store.urls import normalise_url
from lib.verifier.averitec import RETRIEVED_FILE, save_retrieved


def gold_doc_ids(claim: averitec.Claim) -> set[str]:
    """The document ids the claim's gold answers get in a store (as `lib.store.build.gold_candidates` and `pool`
    make them, whether or not the answer became a document): how a claim's own answers are found among the
    distractors."""
    return {
        doc_id_for(normalise_url(a.source_url), clean_text(averitec.gold_answer_text(a)))
        for q in claim.questions
        for a in q.answers
    }


def retrieved_evidence(
    claims: Sequence[averitec.Claim], docs: pd.DataFrame, depth: int, bm25: BM25Params = BM25Params(), batch: int = 256
) -> dict[int, tuple[str, ...]]:
    """Each claim's top `depth` documents of the open collection (every document of the store) by BM25 with the
    claim as the query, its own gold answers left out: training evidence retrieved the way the dev claims'
    is (the thesis trained its verifier on retrieved evidence). The store holds the train claims' gold answers
    as distractors, so a train claim would otherwise find its own answers and train on gold evidence again.
    Ties keep the store's document order."""
    if depth < 1:
        raise ValueError(f"depth = {depth}: the number of evidence pieces must be >= 1")
    if docs.empty:
        raise ValueError("retrieved evidence needs a store with documents")
    index = BM25.from_texts(docs["text"], bm25)
    texts = docs["text"].to_numpy()
    row_of = {d: i for i, d in enumerate(docs["doc_id"])}
    out: dict[int, tuple[str, ...]] = {}
    for start in range(0, len(claims), batch):
        chunk = claims[start : start + batch]
        for c, scores in zip(chunk, index.scores([c.text for c in chunk])):
            own = [row_of[d] for d in gold_doc_ids(c) if d in row_of]
            scores[own] = -np.inf
            top = np.argsort(-scores, kind="stable")[:depth]
            out[c.claim_id] = tuple(texts[top][np.isfinite(scores[top])])
    return out


def depth_of(params: Mapping[str, Any]) -> int:
    """Documents kept per claim: the largest k the verifier trains or is read at (params `nli_averitec`)."""
    return max([int(params["k"]), *map(int, params.get("ablation_ks", []))])


def stage(
    params: Mapping[str, Any],
    bm25: BM25Params = BM25Params(),
    data_dir: Path | str = DATA_DIR,
    store_dir: Path | str = STORE_DIR,
    out: Path | str = RETRIEVED_FILE,
) -> dict[int, tuple[str, ...]]:
    """Stage `training_evidence`: every train claim's top `depth_of(params)` documents, written to `out`."""
    train = averitec.load_averitec("train", Path(data_dir) / "averitec" / "train.json")
    evidence = retrieved_evidence(train, load_store(store_dir).docs, depth_of(params), bm25)
    save_retrieved(evidence, out)
    return evidence


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.verifier.retrieved_training",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    args = ap.parse_args(argv)
    study_params_only(
        args.params, "the outputs of stage `training_evidence`"
    )  # the study's folders: another file only through params.yaml
    evidence = stage(section("nli_averitec", args.params), BM25Params(**section("retrieval", args.params)["bm25"]))
    print(f"{len(evidence)} train claims' retrieved evidence -> {RETRIEVED_FILE}")


if __name__ == "__main__":
    run_main(main)
