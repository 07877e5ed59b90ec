"""FER's question on a second dataset (notebook 09, section 5): does selecting evidence by the verifier's
feedback beat selecting it by relevance alone on CLIMATE-FEVER?

CLIMATE-FEVER gives every claim five Wikipedia sentences, each labelled by annotators SUPPORTS, REFUTES or
NOT_ENOUGH_INFO; the sentences labelled SUPPORTS or REFUTES are the claim's evidence, the judgements here
(claims whose five sentences are all NOT_ENOUGH_INFO have none). Per claim (`python -m lib.analysis.climate_fever`,
stage `climate_fever`):
1. Relevance: the five sentences ranked by the cosine similarity of claim and sentence under the retrieval
   encoder (params `retrieval.model`); the relevance selection is the top k.
2. Feedback: notebook 07's AVeriTeC verifier (named by stage `nli_planners`) reads the claim with each sentence
   alone, with no evidence, and with its evidence sentences; a sentence's utility is -KL(p_evidence || p_sentence),
   as on AVeriTeC (`lib.analysis.utility.add_feedback`).
3. The utility selection: the top k by the cross-fitted ridge model of `lib.analysis.utility` (same label-free
   features, folds over claims); the two oracles read the sentence labels and the true utility.
4. Scores (notebook 09): evidence precision, recall and F1 of each selection against the evidence sentences,
   and the verifier's accuracy and macro-F1 against the claim label, read in AVeriTeC's labels
   (`lib.data.climate_fever.TO_AVERITEC`).

The verifier was trained on AVeriTeC's claims, not on these: its verdicts here are out of domain, and both
selections are read by the same verifier, so the comparison between them is what this section measures.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib import models as M
from lib import outputs as OUT
from lib import timing as TM
from lib.analysis import utility as U
from lib.cli import ArgumentParser, nonempty_path, run_main
from lib.data import DataError
from lib.data import labels as LB
from lib.data.climate_fever import SENTENCES, TO_AVERITEC, ClimateClaim, load_climate_fever
from lib.params import section, study_params_only
from lib.paths import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE, from_repo
from lib.verifier import nli as N
from lib.verifier import veracity as V

CLIMATE_DIR = OUTPUTS_DIR / "climate_fever"
EVIDENCE_LABELS = ("SUPPORTS", "REFUTES")  # a sentence with one of these labels is evidence for its claim
PLANNER = "climate_fever"  # the `planner` column of the selections (lib.analysis.utility.selection_scores)


def sentence_id(position: int, j: int) -> str:
    """A sentence's id: the claim's position in the file and the sentence's position among its five."""
    return f"{position}:{j}"


def verifier_label(claim: ClimateClaim, label_set: str) -> str | None:
    """The claim's label in the verifier's label set (None where the set has no such class)."""
    return LB.map_label(TO_AVERITEC[claim.label], label_set)


def evidence_qrels(claims: Mapping[int, ClimateClaim]) -> dict[str, dict[str, int]]:
    """Qrels of the sentence labels: {claim position: {sentence id: 1}} for every SUPPORTS or REFUTES sentence
    (claims without one have an empty entry)."""
    return {
        str(i): {sentence_id(i, j): 1 for j, e in enumerate(c.evidences) if e.label in EVIDENCE_LABELS}
        for i, c in claims.items()
    }


def relevance_rows(claims: Mapping[int, ClimateClaim], similarity: Mapping[int, Sequence[float]]) -> pd.DataFrame:
    """One row per (claim, sentence): rank by `similarity` (descending; ties by position), reciprocal rank and
    score, the sentence's label and text."""
    rows = []
    for i, c in claims.items():
        sims = np.asarray(similarity[i], dtype=float)
        if len(sims) != len(c.evidences):  # shorter: sentences dropped without a word; longer: an IndexError
            raise ValueError(
                f"claim {i}: {len(sims)} similarities for its {len(c.evidences)} evidence sentences; one per sentence"
            )
        if not np.isfinite(sims).all():  # a NaN was ranked last without a word (as `lib.store.trec.rank` refuses)
            raise ValueError(f"claim {i}: similarities {sims.tolist()} hold a value that is not finite")
        order = np.argsort(-sims, kind="stable")
        for rank, j in enumerate(order, start=1):
            rows.append(
                {
                    "claim_id": i,
                    "doc_id": sentence_id(i, int(j)),
                    "rank": rank,
                    "reciprocal_rank": 1 / rank,
                    "score": float(sims[j]),
                    "sentence_label": c.evidences[j].label,
                    "text": c.evidences[j].text,
                }
            )
    return pd.DataFrame(rows)


def stage(
    params: Mapping[str, Any],
    data_dir: Path | str = DATA_DIR,
    planners_dir: Path | str = V.PLANNERS_DIR,
    out_dir: Path | str = CLIMATE_DIR,
) -> dict[str, Any]:
    """Stage `climate_fever`: relevance ranking, the verifier's feedback, the cross-fitted selector and the
    verifier on each selection -> candidates.parquet, selections.parquet, report.json."""
    p = U.ClimateFeverSection.model_validate(dict(params))
    start = time.perf_counter()
    data_dir, planners_dir, out_dir = Path(data_dir), Path(planners_dir), Path(out_dir)
    path = data_dir / "climate_fever" / "climate-fever.jsonl"
    loaded = load_climate_fever(path)
    if p.max_claims:
        loaded = loaded[: p.max_claims]
    few = [n for n, c in enumerate(loaded) if len(c.evidences) <= p.k]
    if few:  # every selection of such a claim is all its sentences: it counted in the means, compared nothing
        raise DataError(
            path, few[0], "evidences", f"{len(loaded[few[0]].evidences)} sentences, not more than k = {p.k} "
            f"(utility.climate_fever.k): no selection to compare ({len(few)} such claims; CLIMATE-FEVER gives "
            f"each claim {SENTENCES})"
        )  # fmt: skip
    report_07 = json.loads((planners_dir / "report.json").read_text())  # stage nli_planners: the verifier
    label_set, labels = report_07["label_set"], list(report_07["labels"])
    model, tok, training = N.load(from_repo(report_07["verifier"]), p.device)
    s = N.NLISettings.model_validate({**training["settings"], "device": p.device})
    claims = {i: c for i, c in enumerate(loaded) if verifier_label(c, label_set) is not None and c.evidences}
    if len(claims) < p.folds:
        raise ValueError(f"{len(claims)} CLIMATE-FEVER claims in the verifier's label set: fewer than {p.folds} folds")
    encoder = M.load_encoder(p.encoder, None if p.device == "auto" else p.device)
    ids = list(claims)
    claim_emb = M.encode(encoder, [claims[i].text for i in ids])
    sent_emb = M.encode(encoder, [e.text for i in ids for e in claims[i].evidences])
    bounds = np.cumsum([0] + [len(claims[i].evidences) for i in ids])
    similarity = {i: sent_emb[lo:hi] @ claim_emb[n] for n, (i, lo, hi) in enumerate(zip(ids, bounds, bounds[1:]))}
    frame_label = {i: verifier_label(claims[i], label_set) for i in ids}
    frame = relevance_rows(claims, similarity)
    frame["label"] = frame["claim_id"].map(frame_label)
    qrels = evidence_qrels(claims)
    texts = dict(zip(frame["doc_id"], frame["text"]))

    def predict(evidence: Mapping[int, Sequence[str]]) -> np.ndarray:
        exs = [N.Example(str(i), claims[i].text, tuple(evidence.get(i, ())), frame_label[i]) for i in ids]
        return N.predict_proba(model, tok, exs, s.max_length, s.eval_batch_size, s.max_claim_share, progress=True)

    at = {i: n for n, i in enumerate(ids)}
    p_empty = predict({})
    p_gold = predict({i: [texts[d] for d in sorted(qrels[str(i)])] for i in ids})
    sentence_exs = [
        N.Example(str(c), claims[c].text, (t,), lb)
        for c, t, lb in zip(frame["claim_id"], frame["text"], frame["label"])
    ]
    p_doc = N.predict_proba(model, tok, sentence_exs, s.max_length, s.eval_batch_size, s.max_claim_share, progress=True)
    rows_at = frame["claim_id"].map(at).to_numpy()
    frame = U.add_feedback(frame, p_doc, p_empty[rows_at], p_gold[rows_at], labels)
    frame["predicted"] = U.cross_fitted(
        U.feature_matrix(frame, labels),
        frame["utility"].to_numpy(),
        frame["claim_id"].to_numpy(),
        p.folds,
        p.seed,
        p.alpha,
    )
    frame.insert(0, "planner", PLANNER)
    sel = []
    for name, chosen in U.selections(frame, qrels, p.k).items():
        exs = [N.Example(str(i), claims[i].text, tuple(texts[d] for d in chosen[i]), frame_label[i]) for i in ids]
        sel.append(U.verified(model, tok, s, exs, chosen, labels).assign(planner=PLANNER, selection=name))
    with OUT.together():  # the stage's outputs are replaced together, or none of them
        OUT.write_parquet(frame, out_dir / "candidates.parquet", index=False)
        OUT.write_parquet(
            pd.concat(sel, ignore_index=True)[U.SELECTION_COLUMNS + U.probability_columns(labels)],
            out_dir / "selections.parquet",
            index=False,
        )
        report = {
            "verifier": report_07["verifier"],
            "label_set": label_set,
            "labels": labels,
            "label_map": dict(TO_AVERITEC),
            "claims_in_file": len(loaded),
            "claims": len(claims),
            "claims_with_evidence": sum(1 for q in qrels.values() if q),
            "sentences": len(frame),
            "k": p.k,
            "encoder": p.encoder,
            "features": [*U.FEATURES, *U.probability_columns(labels)],
            "folds": p.folds,
            "alpha": p.alpha,
            "seed": p.seed,
            "verifier_calls": int(len(frame) + 2 * len(ids) + len(sel) * len(ids)),
        }
        TM.measured("verifier_calls", seconds=time.perf_counter() - start)  # the timing file, never the report
        OUT.write_json(out_dir / "report.json", report)
    return report


def load_qrels(out_dir: Path | str = CLIMATE_DIR) -> dict[str, dict[str, int]]:
    """The sentence-label qrels of a stage run, from its candidates (what notebook 09 scores against)."""
    frame = OUT.read_parquet(Path(out_dir) / "candidates.parquet", columns=["claim_id", "doc_id", "sentence_label"])
    out: dict[str, dict[str, int]] = {str(c): {} for c in frame["claim_id"].unique()}
    for c, d, lb in zip(frame["claim_id"], frame["doc_id"], frame["sentence_label"]):
        if lb in EVIDENCE_LABELS:
            out[str(c)][d] = 1
    return out


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.analysis.climate_fever",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    args = ap.parse_args(argv)
    study_params_only(
        args.params, "the outputs of stage `climate_fever`"
    )  # the study's folders: another file only through params.yaml
    settings = section("utility", args.params)["climate_fever"]  # checked before a training of minutes
    V.ensure_verifier(args.params)  # a fresh clone has stage nli_averitec's record, not its weights
    print(json.dumps(stage(settings), indent=2))


if __name__ == "__main__":
    run_main(main)
