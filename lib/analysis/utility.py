"""Relevance versus utility of evidence (notebook 09), after FER.

FER judges retrieved evidence by what it does to the verifier: the divergence between the verifier's
label distribution given the gold evidence and given the retrieved evidence. Here the verifier is the
gold-evidence classifier of notebook 07 (`outputs/nli/averitec/models/gold`, named by stage `nli_planners`), and per claim:
- `kl`: KL(p_gold || p_retrieved), in nats: how far the retrieved evidence moves the verdict
  distribution away from where the gold evidence puts it (0: the evidence is as useful as the gold);
- `drop`: p_gold(y*) - p_retrieved(y*), the loss in probability of the annotated label y*.

The selector (`python -m lib.analysis.utility`, stage `utility`) is the simplest honest form of FER's idea we
could justify on CPU. FER trains the retriever with the divergence as its loss; we keep the retriever
and rerank its coarse candidates with a model of the divergence:
1. Candidates: the top `candidates` documents of one planner's run (the retrieval setting of notebook 07).
2. Feedback: the verifier reads the claim with each candidate alone, with no evidence, and with the gold
   evidence; a candidate's utility is -KL(p_gold || p_candidate).
3. A ridge regression predicts the utility from label-free features (the retriever's rank and score,
   the verifier's distribution given the candidate, its entropy, and how far the candidate moves the
   verifier from its no-evidence distribution: KL(p_candidate || p_empty)). It is cross-fitted over claims
   (each claim's candidates are scored by a model fitted on the other folds), because the training
   split has no retrieved candidates in the store: only the dev claims have pools.
4. Selections of k documents: `relevance` (the retriever's top-k, the baseline), `utility` (the
   predicted utility's top-k), and two references that read the answers: `relevance_oracle` (by qrel
   grade) and `utility_oracle` (by the true utility). The verifier then reads each selection.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import pandas as pd
from pydantic import Field, model_validator

from lib import outputs as OUT
from lib import timing as TM
from lib.cli import ArgumentParser, nonempty_path, run_main
from lib.data import averitec
from lib.data import labels as LB
from lib.data.climate_fever import SENTENCES
from lib.evaluation.comparisons import MIN_RANKED, apart, end_text, printed, rho_text
from lib.evaluation.metrics import evaluate
from lib.evaluation.printing import noise_equal, p_text, share_shown, share_text, unsigned_zero
from lib.evaluation.significance import paired_bootstrap, sign_of
from lib.params import Device, PosFloat, PosInt, Section, Seed, Text, section, study_params_only
from lib.paths import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE, STORE_DIR, from_repo
from lib.retrieval.runs import runs_dict
from lib.store.build import load_store, qrels_dict
from lib.verifier import nli as N
from lib.verifier import veracity as V

# --------------------------------------------------------------------------- params


class ClimateFeverSection(Section):
    """`utility.climate_fever`: the same selector on CLIMATE-FEVER (stage `climate_fever`, notebook 09 section 5)."""

    k: PosInt  # sentences selected of each claim's five
    folds: Annotated[int, Field(ge=2)]
    alpha: PosFloat
    seed: Seed
    encoder: Text  # the relevance ranking's sentence encoder
    device: Device
    max_claims: PosInt | None

    @model_validator(mode="after")
    def _k_selects(self) -> ClimateFeverSection:
        if self.k >= SENTENCES:  # every selection would be all five: no comparison left
            raise ValueError(
                f"k = {self.k}: each claim has {SENTENCES} sentences, and a selection keeps fewer "
                f"(expected k < {SENTENCES})"
            )
        return self


class UtilitySection(Section):
    planners: Annotated[list[Text], Field(min_length=1)]
    runs: Annotated[list[Text], Field(min_length=1)]
    candidates: PosInt
    candidate_sweep: list[PosInt]
    k: PosInt
    folds: Annotated[int, Field(ge=2)]
    alpha: PosFloat
    seed: Seed
    device: Device
    max_claims: PosInt | None
    climate_fever: ClimateFeverSection

    @model_validator(mode="after")
    def _k_within_candidates(self) -> UtilitySection:
        if self.k > self.candidates:
            raise ValueError(
                f"k = {self.k} documents cannot be selected from {self.candidates} candidates "
                "(expected k <= candidates)"
            )
        return self


UTILITY_DIR = OUTPUTS_DIR / "utility"
SELECTIONS = ("relevance", "utility", "relevance_oracle", "utility_oracle")
EPS = 1e-6


def kl_divergence(p: np.ndarray, q: np.ndarray, eps: float = EPS) -> np.ndarray:
    """Row-wise KL(p || q) in nats; both rows are renormalised (float32 softmax sums miss 1 by ~1e-7,
    enough for a negative KL) and q is floored at `eps` first (0 log 0 = 0)."""
    p, q = np.atleast_2d(np.asarray(p, dtype=float)), np.atleast_2d(np.asarray(q, dtype=float))
    if p.shape != q.shape:
        raise ValueError(f"distributions of different shapes {p.shape} and {q.shape}")
    p = p / p.sum(axis=1, keepdims=True)
    q = np.clip(q, eps, None)
    q = q / q.sum(axis=1, keepdims=True)
    terms = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0) / q), 0.0)
    return terms.sum(axis=1)


def entropy(p: np.ndarray) -> np.ndarray:
    """Row-wise Shannon entropy in nats."""
    p = np.atleast_2d(np.asarray(p, dtype=float))
    return -np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)


def probability_columns(labels: Sequence[str]) -> list[str]:
    return [f"p:{lb}" for lb in labels]


def gold_label_probability(frame: pd.DataFrame, labels: Sequence[str]) -> np.ndarray:
    """Each row's probability of its own `label`."""
    probs = frame[probability_columns(labels)].to_numpy()
    idx = frame["label"].map({lb: i for i, lb in enumerate(labels)})
    if idx.isna().any():
        raise ValueError(f"labels outside {tuple(labels)}: {sorted(set(frame['label'][idx.isna()]))}")
    return probs[np.arange(len(frame)), idx.to_numpy(dtype=int)]


def utility_table(preds: pd.DataFrame, labels: Sequence[str], reference: str, settings: Sequence[str]) -> pd.DataFrame:
    """Per (setting, claim): `kl` and `drop` against the `reference` rows (same claims, one k and seed),
    with both rows' correctness. `preds` holds notebook 07's predictions for one k and seed."""
    cols = probability_columns(labels)
    twice = preds[preds.duplicated(["setting", "claim_id"], keep=False)]
    if len(twice):  # several seeds or k: rows paired by claim alone mixed them (KL between two seeds' rows)
        first = twice.iloc[0]
        raise ValueError(
            f"utility_table: {len(twice)} rows share a (setting, claim), e.g. setting {first['setting']!r} claim "
            f"{first['claim_id']}: pass one k and seed"
        )
    ref = preds[preds["setting"] == reference].set_index("claim_id").sort_index()
    if ref.empty:
        raise ValueError(f"no {reference!r} rows to compare with")
    frames = []
    for setting in settings:
        ret = preds[preds["setting"] == setting].set_index("claim_id").sort_index()
        if not ret.index.equals(ref.index):
            raise ValueError(f"{setting} and {reference} cover different claims")
        frames.append(
            pd.DataFrame(
                {
                    "setting": setting,
                    "claim_id": ret.index,
                    "label": ret["label"].to_numpy(),
                    "kl": kl_divergence(ref[cols].to_numpy(), ret[cols].to_numpy()),
                    "drop": gold_label_probability(ref.reset_index(), labels)
                    - gold_label_probability(ret.reset_index(), labels),
                    "correct": (ret["pred"] == ret["label"]).to_numpy(),
                    "reference_correct": (ref["pred"] == ref["label"]).to_numpy(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def evidence_prf(selected: Sequence[str], relevant: set[str] | frozenset[str]) -> tuple[float, float, float]:
    """(precision, recall, F1) of a set of selected documents against the relevant ones; recall and F1
    are nan when nothing is relevant, precision is nan when nothing is selected."""
    hits = len(set(selected) & set(relevant))
    p = hits / len(selected) if len(selected) else float("nan")
    r = hits / len(relevant) if relevant else float("nan")
    if np.isnan(p) or np.isnan(r):
        return p, r, float("nan")
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def relevant_sets(qrels: Mapping[str, Mapping[str, int]]) -> dict[int, frozenset[str]]:
    """{claim_id: its relevant documents (grade >= 1)}."""
    return {int(q): frozenset(d for d, g in docs.items() if g >= 1) for q, docs in qrels.items()}


def per_claim_relevance(
    runs: Mapping[str, pd.DataFrame],
    views: Mapping[str, Mapping[str, Mapping[str, int]]],
    measures: Sequence[str],
) -> pd.DataFrame:
    """Per (planner, judgement view, claim) retrieval measures (`lib.evaluation.metrics` semantics). `views` maps a
    name to qrels, e.g. the judgement variants of `lib.store.judgements.variants`; claims without a relevant
    document in a view are left out of it."""

    rows = []
    for view, q in views.items():
        for planner, run in runs.items():
            per = evaluate(q, runs_dict(run), measures, per_query=True)
            rows.extend({"setting": planner, "view": view, "claim_id": int(cid), **vals} for cid, vals in per.items())
    return pd.DataFrame(rows)


def contrasts(table: pd.DataFrame, measure: str) -> dict[str, pd.DataFrame]:
    """The two kinds of disagreement between relevance and utility, most striking first:
    `relevant_but_useless`: top relevance (`measure` = 1) yet the verdict is wrong where the gold
    evidence got it right; `irrelevant_but_useful`: no relevant document (`measure` = 0) yet the
    verdict is right where the gold evidence got it wrong."""
    useless = table[(table[measure] >= 1.0) & ~table["correct"] & table["reference_correct"]]
    useful = table[(table[measure] == 0.0) & table["correct"] & ~table["reference_correct"]]
    return {
        "relevant_but_useless": useless.sort_values(["kl", "claim_id"], ascending=[False, True]),
        "irrelevant_but_useful": useful.sort_values(["drop", "claim_id"]),
    }


# --------------------------------------------------------------------------- the selector


FEATURES = ("reciprocal_rank", "score", "entropy", "confidence", "shift")


def feature_matrix(frame: pd.DataFrame, labels: Sequence[str]) -> np.ndarray:
    """Label-free features of each candidate: retrieval (reciprocal rank, score) and verifier feedback
    (its distribution, entropy, top probability, KL from its no-evidence distribution)."""
    return frame[[*FEATURES, *probability_columns(labels)]].to_numpy(dtype=float)


def fold_of(claim_ids: Sequence[int], folds: int, seed: int) -> dict[int, int]:
    """Seeded assignment of claims to folds (every claim's candidates stay together)."""
    ids = np.array(sorted(set(int(c) for c in claim_ids)))
    if folds < 2 or folds > len(ids):
        raise ValueError(f"need 2 <= folds <= claims, got {folds} folds for {len(ids)} claims")
    perm = np.random.default_rng(seed).permutation(len(ids))
    return {int(ids[j]): i % folds for i, j in enumerate(perm)}


def cross_fitted(
    x: np.ndarray, y: np.ndarray, groups: Sequence[int], folds: int, seed: int, alpha: float = 1.0
) -> np.ndarray:
    """Out-of-fold predictions of a standardised ridge regression; rows of one group share a fold."""
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    fold = fold_of(groups, folds, seed)
    f = np.array([fold[int(g)] for g in groups])
    out = np.zeros(len(y))
    for i in range(folds):
        model = make_pipeline(StandardScaler(), Ridge(alpha=alpha)).fit(x[f != i], y[f != i])
        out[f == i] = model.predict(x[f == i])
    return out


def select(frame: pd.DataFrame, by: str, k: int, ascending: bool = False) -> dict[int, tuple[str, ...]]:
    """{claim_id: the k candidates best by column `by`}, ties broken by retrieval rank."""
    order = frame.sort_values(["claim_id", by, "rank"], ascending=[True, ascending, True], kind="stable")
    return {int(c): tuple(g["doc_id"].head(k)) for c, g in order.groupby("claim_id", sort=True)}


def _probs_frame(frame: pd.DataFrame, probs: np.ndarray, labels: Sequence[str]) -> pd.DataFrame:
    for i, col in enumerate(probability_columns(labels)):
        frame[col] = probs[:, i]
    return frame


def candidate_feedback(
    model,
    tok,
    claims: Sequence[averitec.Claim],
    candidates: Mapping[int, Sequence[str]],
    scores: Mapping[tuple[int, str], float],
    texts: Mapping[str, str],
    labels: Sequence[str],
    s: N.NLISettings,
    label_set: str,
    gold_k: int,
) -> pd.DataFrame:
    """One row per (claim, candidate): retrieval rank and score, the verifier's distribution given the
    candidate alone, the features, and the utility -KL(p_gold || p_candidate)."""
    keep = [c for c in claims if LB.map_label(c.label, label_set) is not None and candidates.get(c.claim_id)]
    predict = lambda exs: N.predict_proba(
        model, tok, exs, s.max_length, s.eval_batch_size, s.max_claim_share, progress=True
    )
    p_empty = predict(V.examples(keep, None, label_set))
    p_gold = predict(V.examples(keep, {c.claim_id: V.gold_evidence(c, gold_k) for c in keep}, label_set))
    rows, exs = [], []
    for i, c in enumerate(keep):
        for rank, did in enumerate(candidates[c.claim_id], start=1):
            rows.append(
                {
                    "claim_id": c.claim_id,
                    "doc_id": did,
                    "rank": rank,
                    "reciprocal_rank": 1 / rank,
                    "score": scores[(c.claim_id, did)],
                    "label": LB.map_label(c.label, label_set),
                    "_i": i,
                }
            )
            exs.append(N.Example(str(c.claim_id), c.text, (texts[did],), rows[-1]["label"]))
    frame = pd.DataFrame(rows)
    at = frame.pop("_i").to_numpy()
    return add_feedback(frame, predict(exs), p_empty[at], p_gold[at], labels)


def add_feedback(
    frame: pd.DataFrame, p_doc: np.ndarray, p_empty: np.ndarray, p_gold: np.ndarray, labels: Sequence[str]
) -> pd.DataFrame:
    """The verifier's feedback on each candidate row (aligned arrays: its distribution given the candidate,
    given no evidence, given the gold evidence): the class probabilities, the features (entropy, top
    probability, shift from no evidence), the utility -KL(p_gold || p_candidate), and `helps` (whether the
    candidate raises the annotated `label`'s probability over no evidence)."""
    frame = _probs_frame(frame, p_doc, labels)
    frame["entropy"] = entropy(p_doc)
    frame["confidence"] = p_doc.max(axis=1)
    frame["shift"] = kl_divergence(p_doc, p_empty)
    frame["utility"] = -kl_divergence(p_gold, p_doc)
    y = frame["label"].map({lb: j for j, lb in enumerate(labels)}).to_numpy()
    frame["helps"] = p_doc[np.arange(len(frame)), y] > p_empty[np.arange(len(frame)), y]
    return frame


def selections(
    frame: pd.DataFrame, qrels: Mapping[str, Mapping[str, int]], k: int
) -> dict[str, dict[int, tuple[str, ...]]]:
    """The four selections of k candidates per claim (see the module docstring)."""
    graded = frame.assign(grade=[qrels.get(str(c), {}).get(d, 0) for c, d in zip(frame["claim_id"], frame["doc_id"])])
    return {
        "relevance": select(frame, "rank", k, ascending=True),
        "utility": select(frame, "predicted", k),
        "relevance_oracle": select(graded, "grade", k),
        "utility_oracle": select(frame, "utility", k),
    }


def selection_scores(
    sel: pd.DataFrame,
    views: Mapping[str, Mapping[str, Mapping[str, int]]],
    labels: Sequence[str],
    baseline: str = "relevance",
    n_resamples: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per (planner, selection): the verifier's accuracy and macro-F1 with paired tests against the
    `baseline` selection, and the evidence precision/recall/F1 of the selected documents under each
    judgement view (`views`: name -> qrels; means over the claims with a relevant document in that view),
    with `p_f1 (<view>)`, the paired bootstrap p of the evidence F1 against the `baseline` selection's."""
    relevant = {view: relevant_sets(q) for view, q in views.items()}
    rows = []
    for planner, group in sel.groupby("planner", sort=False):
        base = group[group["selection"] == baseline].set_index("claim_id").sort_index()
        ref = {  # the baseline selection's evidence P/R/F1 per view, what every selection is tested against
            view: np.array([evidence_prf(d, rel.get(c, frozenset())) for c, d in zip(base.index, base["doc_ids"])])
            for view, rel in relevant.items()
        }
        for name, g in group.groupby("selection", sort=False):
            g = g.set_index("claim_id").loc[base.index]
            row = {
                "planner": planner,
                "selection": name,
                "claims": len(g),
                "accuracy": float((g["pred"] == g["label"]).mean()),
                **V.paired_tests(list(g["label"]), list(g["pred"]), list(base["pred"]), labels, n_resamples, seed),
            }
            for view, rel in relevant.items():
                prf = np.array([evidence_prf(d, rel.get(c, frozenset())) for c, d in zip(g.index, g["doc_ids"])])
                keep = ~np.isnan(prf[:, 1])
                for j, m in enumerate(("precision", "recall", "f1")):
                    row[f"{m} ({view})"] = float(prf[keep, j].mean()) if keep.any() else float("nan")
                # the evidence F1 against the baseline selection's, claim by claim (paired bootstrap)
                row[f"p_f1 ({view})"] = (
                    paired_bootstrap(prf[keep, 2], ref[view][keep, 2], n_resamples, seed)
                    if keep.any()
                    else float("nan")
                )
            rows.append(row)
    return pd.DataFrame(rows)


SELECTION_COLUMNS = ["planner", "selection", "claim_id", "label", "pred", "doc_ids"]


def _verified(
    model,
    tok,
    s: N.NLISettings,
    claims: Sequence[averitec.Claim],
    chosen: Mapping[int, Sequence[str]],
    texts: Mapping[str, str],
    labels: Sequence[str],
    label_set: str,
) -> pd.DataFrame:
    """The verifier on one selection of the dev claims' documents (`verified`)."""
    exs = V.examples(claims, {c: [texts[d] for d in ids] for c, ids in chosen.items()}, label_set)
    return verified(model, tok, s, exs, chosen, labels)


def verified(
    model, tok, s: N.NLISettings, exs: Sequence[N.Example], chosen: Mapping[int, Sequence[str]], labels: Sequence[str]
) -> pd.DataFrame:
    """The verifier on one selection (`exs`: one example per claim, uid its claim id, the selected texts as
    evidence): per claim its gold label, prediction, the selected documents and the class probabilities."""
    probs = N.predict_proba(model, tok, exs, s.max_length, s.eval_batch_size, s.max_claim_share)
    rows = pd.DataFrame(
        {
            "claim_id": [int(e.uid) for e in exs],
            "label": [e.label for e in exs],
            "pred": [labels[i] for i in probs.argmax(1)],
            "doc_ids": [list(chosen[int(e.uid)]) for e in exs],
        }
    )
    return _probs_frame(rows, probs, labels)


def stage(
    params: Mapping[str, Any],
    data_dir: Path | str = DATA_DIR,
    store_dir: Path | str = STORE_DIR,
    planners_dir: Path | str = V.PLANNERS_DIR,
    out_dir: Path | str = UTILITY_DIR,
) -> dict[str, Any]:
    """Stage `utility`: candidate feedback, the cross-fitted selector and the verifier on each selection."""
    p = dict(params)
    start = time.perf_counter()
    data_dir, planners_dir, out_dir = Path(data_dir), Path(planners_dir), Path(out_dir)
    report_07 = OUT.read_json(planners_dir / "report.json")  # stage nli_planners: verifier, retrieval
    label_set, labels = report_07["label_set"], report_07["labels"]
    model, tok, training = N.load(from_repo(report_07["verifier"]), p.get("device", "auto"))
    s = N.NLISettings.model_validate({**training["settings"], "device": p.get("device", "auto")})
    dev = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    if p.get("max_claims"):
        dev = dev[: int(p["max_claims"])]
    store = load_store(store_dir)
    qrels = qrels_dict(store.qrels)
    texts = dict(zip(store.docs["doc_id"], store.docs["text"]))
    k, n_cand = int(p["k"]), int(p["candidates"])
    sizes = sorted({n_cand, *p.get("candidate_sweep", [])})  # FER's candidate-set size K (its Figure 2)
    frames, sel_rows, sweep_rows, feedback_calls = [], [], [], 0
    for planner, run in V.planner_runs(p["runs"], p["planners"], report_07["retrieval"]).items():
        t0 = time.perf_counter()
        run = run[run["claim_id"].isin([c.claim_id for c in dev])]
        cands = V.top_k_docs(run, sizes[-1])  # feedback once for the largest K: a candidate's row does not depend on K
        scores = {(int(c), str(d)): float(v) for c, d, v in zip(run["claim_id"], run["doc_id"], run["score"])}
        fed_all = candidate_feedback(model, tok, dev, cands, scores, texts, labels, s, label_set, int(report_07["k"]))
        feedback_calls += len(fed_all) + 2 * fed_all["claim_id"].nunique()  # each candidate, no evidence, gold
        for size in sizes:
            frame = fed_all[fed_all["rank"] <= size].reset_index(drop=True)
            frame["predicted"] = cross_fitted(
                feature_matrix(frame, labels),
                frame["utility"].to_numpy(),
                frame["claim_id"].to_numpy(),
                int(p["folds"]),
                int(p["seed"]),
                float(p["alpha"]),
            )
            frame.insert(0, "planner", planner)
            fed = set(frame["claim_id"])
            claims = [c for c in dev if c.claim_id in fed]
            rows = [
                _verified(model, tok, s, claims, chosen, texts, labels, label_set).assign(
                    planner=planner, selection=name, candidates=size
                )
                for name, chosen in selections(frame, qrels, min(k, size)).items()
            ]
            sweep_rows.extend(rows)
            if size == n_cand:
                frames.append(frame)
                sel_rows.extend(r.drop(columns="candidates") for r in rows)
        print(
            f"{planner}: {len(fed_all)} candidates (K up to {sizes[-1]}) for {fed_all['claim_id'].nunique()} claims "
            f"({time.perf_counter() - t0:.1f} s)"
        )
    candidates = pd.concat(frames, ignore_index=True)
    with OUT.together():  # the stage's outputs are replaced together, or none of them
        OUT.write_parquet(candidates, out_dir / "candidates.parquet", index=False)
        OUT.write_parquet(
            pd.concat(sel_rows, ignore_index=True)[SELECTION_COLUMNS + probability_columns(labels)],
            out_dir / "selections.parquet",
            index=False,
        )
        OUT.write_parquet(pd.concat(sweep_rows, ignore_index=True), out_dir / "candidate_sweep.parquet", index=False)
        report = {
            "verifier": report_07["verifier"],
            "label_set": label_set,
            "labels": list(labels),
            "k": k,
            "candidates": n_cand,
            "candidate_sweep": sizes,
            "planners": list(p["planners"]),
            "retrieval": report_07["retrieval"],
            "features": [*FEATURES, *probability_columns(labels)],
            "folds": int(p["folds"]),
            "alpha": float(p["alpha"]),
            "seed": int(p["seed"]),
            "device": str(model.device),
            "verifier_calls": int(feedback_calls + sum(len(f) for f in sweep_rows)),
        }
        TM.measured("verifier_calls", seconds=time.perf_counter() - start)  # the timing file, never the report
        OUT.write_json(out_dir / "report.json", report)
    return report


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.analysis.utility", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    args = ap.parse_args(argv)
    study_params_only(
        args.params, "the outputs of stage `utility`"
    )  # the study's folders: another file only through params.yaml
    settings = section("utility", args.params)  # checked before a training that may take minutes
    OUT.inputs_exist([V.PLANNERS_DIR / "report.json", *map(Path, settings["runs"])])  # so are the inputs
    V.ensure_verifier(args.params)  # a fresh clone has stage nli_averitec's record, not its weights
    print(json.dumps(stage(settings), indent=2))


if __name__ == "__main__":
    run_main(main)


# --------------------------------------------------------------------------- conclusion sentences (notebook 09)


def spread(probs: np.ndarray) -> float:
    """How much a verifier's label distribution varies across inputs: the standard deviation of each label's
    probability over the rows (inputs), averaged over labels. 0 for a verifier that answers every input with
    one distribution (its prior), however peaked that distribution is."""
    probs = np.asarray(probs, dtype=float)
    if probs.ndim != 2 or len(probs) < 2:
        raise ValueError(f"spread needs two or more rows of label probabilities, got shape {probs.shape}")
    return float(probs.std(axis=0).mean())


def scale_sentence(mean_top: float, n_labels: int, spread_: float, floor: float = 0.05, margin: float = 0.1) -> str:
    """Whether the verifier's distributions move with its input (`spread` at least `floor`), which every
    divergence below needs, and whether they are peaked (mean top probability beyond `margin` of uniform)."""
    uniform = 1 / n_labels
    if spread_ != spread_ or mean_top != mean_top:  # NaN fails every comparison: it read as "responds, peaked"
        return (
            "This verifier's scale is undefined here (no spread or mean top probability: no prediction to measure), "
            "so nothing can be said of whether it responds to its evidence."
        )
    head = f"its label probabilities vary across inputs by {spread_:.3f} (mean standard deviation)"
    shape = f"mean top probability {mean_top:.3f} (uniform: {uniform:.3g})"  # 1/3 is 0.333, not 0.33
    if printed(spread_, ".3f") < floor:  # as printed: 0.0499 shows as 0.050, not below 0.05
        return (
            f"This verifier barely responds to its evidence: {head}, below {floor}, and {shape}. It answers nearly "
            "every input with one distribution, so the divergences below measure noise around that distribution, "
            "not the use of evidence: read no conclusion of this notebook about utility on this build."
        )
    if round(printed(mean_top, ".3f") - printed(uniform, ".3g"), 9) < margin:  # as printed beside it
        return (
            f"This verifier responds to its evidence ({head}) but is nearly flat ({shape}): the divergences are "
            "small in absolute terms; rank correlations do not depend on that scale."
        )
    return f"This verifier responds to its evidence ({head}) and its distributions are peaked ({shape})."


def interval_call(low: float, high: float) -> str:
    """What an interval says of its sign (`sign_of`), or that there is none: an undefined interval (too few
    claims, a constant side) was read as "indistinguishable from 0"."""
    if low != low or high != high:
        return "undefined: no interval (too few claims or a constant side)"
    return sign_of(low, high)


def between_sentence(rho: float, p: float, n: int) -> str:
    """Notebook 09's correlation of mean NDCG@10 and mean -KL between planners, read through its permutation
    test; over fewer than 3 planners or with a constant side there is no rank correlation to read."""
    if n < MIN_RANKED or rho != rho or p != p:
        return f"mean NDCG@10 and mean -KL have no rank correlation to read over {n} planners ({rho_text(rho, n)})"
    return (
        f"mean NDCG@10 and mean -KL correlate at {rho_text(rho, n)} over {n} planners (permutation p = {p_text(p)}"
        f"{'' if p < 0.05 else ': no evidence of a relation'})"
    )


def selector_sentence(
    selected: Mapping[str, float],
    ranked: Mapping[str, float],
    oracle: Mapping[str, float],
    within: float,
    label: str,
    gold_share: float,
    alpha: float = 0.05,
    within_floor: float = 0.1,
    shift: float = 0.05,
) -> str:
    """What the utility selector did, each clause checked: `selected` and `ranked` hold the utility and the
    relevance selections' `macro_f1`, `evidence_f1` and `share` (of predictions with `label`), `selected` also
    `p` and `evidence_p` (paired bootstraps of macro-F1 and of per-claim evidence F1 against the relevance
    ranking); `oracle` the utility oracle's `evidence_f1`, always shown beside the selector's; `within` is the
    mean within-claim Spearman of predicted and true utility."""
    u, r, o = selected, ranked, oracle
    # each pair printed with the decimals that show which is larger (0.40004 against 0.4 printed "0.400 against
    # 0.400" beside "higher"); an undefined p is no finding, and equal values have no direction
    uf, rf = apart(u["macro_f1"], ".3f", r["macro_f1"]), apart(r["macro_f1"], ".3f", u["macro_f1"])
    if u["p"] != u["p"]:
        verdicts = "no test could be made (p undefined: too few claims or no difference in any resample)"
    elif noise_equal(u["macro_f1"], r["macro_f1"]):  # as `apart` ties them
        verdicts = "equal to the relevance ranking's: no difference to call significant"
    elif u["p"] < alpha:
        verdicts = (
            f"{'higher' if u['macro_f1'] > r['macro_f1'] else 'lower'} than the relevance ranking's, significantly"
        )
    else:
        verdicts = "not significantly different from the relevance ranking's"
    out = [
        f"Reranking by predicted utility gives macro-F1 {uf} against {rf} "
        f"(bootstrap p = {p_text(u['p'], alpha)}): {verdicts}."
    ]
    ue, re_ = apart(u["evidence_f1"], ".3f", r["evidence_f1"]), apart(r["evidence_f1"], ".3f", u["evidence_f1"])
    evidence = f"{ue} vs {re_}, p = {p_text(u['evidence_p'], alpha)}"
    oracle = f"; the utility oracle's, choosing by the true utility, is {o['evidence_f1']:.3f}"
    if u["evidence_p"] != u["evidence_p"]:
        out.append(f"Its evidence F1 against the qrels could not be tested ({evidence}: p undefined){oracle}.")
    elif noise_equal(u["evidence_f1"], r["evidence_f1"]):
        out.append(f"Its evidence F1 against the qrels is the relevance ranking's ({evidence}){oracle}.")
    elif u["evidence_p"] < alpha and u["evidence_f1"] < r["evidence_f1"]:
        out.append(f"Its evidence F1 against the qrels is significantly lower ({evidence}){oracle}.")
    elif u["evidence_p"] < alpha and u["evidence_f1"] > r["evidence_f1"]:
        out.append(f"Its evidence F1 against the qrels is significantly higher ({evidence}){oracle}.")
    else:
        out.append(  # the selector's test alone: the oracle's own difference is tested elsewhere (utility.json)
            f"Its evidence F1 against the qrels is not significantly different ({evidence}): the selector shows no "
            f"direction between what the verifier finds useful and what the qrels call relevant{oracle}."
        )
    if np.isnan(within):  # no candidate set with a defined rank correlation: no ranking to read
        out.append("The predicted utility's within-claim Spearman is undefined (no claim with varied utilities).")
    elif printed(within, ".3f") <= -within_floor:  # a clear ranking in reverse is no "barely ranks"
        out.append(
            f"The predicted utility ranks a claim's candidates against their true utility (mean within-claim "
            f"Spearman {within:.3f}): the selector prefers the candidates that help least."
        )
    elif printed(within, ".3f") < within_floor:  # as printed: 0.0996 shows as 0.100
        out.append(
            f"The predicted utility barely ranks a claim's candidates (mean within-claim Spearman {unsigned_zero(format(within, '.3f'))} "
            "against the true utility): the selector learned little about *which* candidate helps."
        )
    else:
        out.append(
            f"The predicted utility ranks a claim's candidates with a mean within-claim Spearman of {within:.3f}."
        )
    # the shares compared as printed (whole percents): 30.51% against 25.50% print 31% and 26%, within 5 points
    us, rs, gs = (share_shown(v) for v in (u["share"], r["share"], gold_share))  # kept off 0% and 100
    gap = round(us - rs, 9)
    if gap > shift + 1e-9 and us > gs:
        out.append(
            f'It predicts "{label}" for {share_text(u["share"])} of claims (relevance ranking {share_text(r["share"])}, gold labels '
            f"{share_text(gold_share)}): read a verdict gain as a shift towards that label rather than as better evidence."
        )
    elif abs(gap) <= shift + 1e-9:
        out.append(
            f'Its share of "{label}" verdicts, {share_text(u["share"])}, is within {shift * 100:g} percentage points of the relevance '
            f"ranking's ({share_text(r['share'])}): no shift towards that label."
        )
    elif gap < 0:  # far below: a shift away from the label, which "within" hid
        out.append(
            f'Its share of "{label}" verdicts falls to {share_text(u["share"])} (relevance ranking {share_text(r["share"])}, gold '
            f"labels {share_text(gold_share)}): a shift away from that label."
        )
    else:
        out.append(
            f'Its share of "{label}" verdicts rises to {share_text(u["share"])} (relevance ranking {share_text(r["share"])}) but '
            f"stays at or below the gold share ({share_text(gold_share)})."
        )
    return " ".join(out)


def grade_sentence(answers: Mapping[str, float], urls: Mapping[str, float]) -> str:
    """The relevance-utility correlation by kind of relevant document, each a {rho, low, high} with a
    cluster-bootstrap interval: grade 2 documents are the annotators' answers, the very texts the gold
    distribution is computed from, so a correlation there is partly built in; grade 1 (documents from the
    gold source URLs) is the test that is not."""

    def defined(r: Mapping[str, float]) -> bool:
        return r["rho"] == r["rho"]

    def ends(r: Mapping[str, float]) -> str | None:  # an end that excludes 0 with the decimals that show it
        if r["low"] != r["low"] or r["high"] != r["high"]:
            return None
        return f"[{end_text(r['low'], '.3f')}, {end_text(r['high'], '.3f')}]"

    if defined(answers):  # apart from 0 where its interval excludes 0 ("0.000 [-0.001, -0.0001]", as grade 1 was)
        excludes_0 = ends(answers) is not None and (answers["low"] > 0 or answers["high"] < 0)
        rho2 = end_text(answers["rho"], ".3f") if excludes_0 else unsigned_zero(format(answers["rho"], ".3f"))
        grade2 = (
            f"the annotators' answers (grade 2) give rho = {rho2} {ends(answers) or '(no interval)'}, "
            "but they are the texts the gold distribution is computed from, so that correlation is partly built in"
        )
    else:  # NaN: nothing judged at grade 2, or a constant side ("nan [nan, nan]" was printed)
        grade2 = (
            "the annotators' answers (grade 2) give no correlation (none is judged, e.g. without gold answers in "
            "the store, or one side is constant)"
        )
    call = sign_of(urls["low"], urls["high"]) if defined(urls) and ends(urls) else None
    if not defined(urls):
        grade1 = "no correlation (none is judged, or one side is constant)"
    elif call is None:
        grade1 = f"{unsigned_zero(format(urls['rho'], '.3f'))} (no interval)"
    else:  # the estimate, as its ends, apart from 0 beside the sign the interval gives
        grade1 = f"{end_text(urls['rho'], '.3f')} {ends(urls)} ({call})"
    head = (
        f"By kind of relevant document: {grade2}; the documents from the gold source URLs (grade 1), which "
        f"are not, give {grade1}"
    )
    if call == "positive":
        return head + ": relevance predicts utility beyond the circular part."
    if call == "negative":  # it read "no relation ... is shown" beside "(negative)" (the forty-fifth pass)
        return head + ": beyond the circular part, more relevant documents are *less* useful here."
    return head + ": beyond the circular part, no relation between relevance and utility is shown."


def alone_and_together(
    sel: pd.DataFrame, cands: pd.DataFrame, p_gold: pd.DataFrame, labels: Sequence[str]
) -> pd.DataFrame:
    """Utility measured two ways, per (planner, selection, claim): `alone`, the mean utility of the selected
    documents each read alone (what the selector learns and the utility oracle chooses by), and `together`,
    -KL(p_gold || p_selection) of the verifier reading them together (what the verdicts come from).
    `p_gold`: the gold-evidence distribution, indexed by claim id, with the probability columns."""
    cols = probability_columns(labels)
    missing = sorted(set(sel["claim_id"]) - set(p_gold.index))
    if missing:
        raise ValueError(f"alone_and_together: no gold-evidence distribution for claims {missing[:5]}")
    alone_of = cands.set_index(["planner", "claim_id", "doc_id"])["utility"]
    keys = [(p, c, d) for p, c, ids in zip(sel["planner"], sel["claim_id"], sel["doc_ids"]) for d in ids]
    absent = [k for k in keys if k not in alone_of.index]
    if absent:
        raise ValueError(f"alone_and_together: selected documents with no candidate feedback, e.g. {absent[:3]}")
    alone = [
        float(np.mean([alone_of[(p, c, d)] for d in ids]))
        for p, c, ids in zip(sel["planner"], sel["claim_id"], sel["doc_ids"])
    ]
    together = -kl_divergence(p_gold.loc[sel["claim_id"], cols].to_numpy(), sel[cols].to_numpy())
    return pd.DataFrame(
        {
            "planner": sel["planner"].to_numpy(),
            "selection": sel["selection"].to_numpy(),
            "claim_id": sel["claim_id"].to_numpy(),
            "alone": alone,
            "together": together,
        }
    )


def _signed(r: Mapping[str, float]) -> bool:
    """Whether an interval {low, high} excludes 0 (`sign_of`: an end at 0 but for noise does not)."""
    return sign_of(r["low"], r["high"]) != "indistinguishable from 0"


def together_sentence(
    name: str, alone: Mapping[str, float], together: Mapping[str, float], rho: Mapping[str, float] | None = None
) -> str:
    """Whether utility measured per document carries over to the documents read together: `alone` and
    `together` are selection `name`'s gain over the relevance selection under each way of measuring
    ({mean, low, high}, intervals over claims); `rho`, when given, the rank correlation of the two measures
    over (selection, claim) rows ({rho, low, high})."""
    defined = lambda r: r["low"] == r["low"] and r["high"] == r["high"]  # noqa: E731 - both ends, or no interval
    d = lambda r: (  # noqa: E731
        f"{end_text(r['mean'], '+.4f') if _signed(r) else unsigned_zero(format(r['mean'], '+.4f'), '+')} "
        f"[{end_text(r['low'], '+.4f')}, {end_text(r['high'], '+.4f')}]"  # apart from 0 beside a sign
        if defined(r)
        else f"{unsigned_zero(format(r['mean'], '+.4f'), '+')} (no interval)"  # no sign is read of it
    )
    head = f"{name} gains {d(alone)} nats of utility over the retriever's top k read alone, and {d(together)} read together"
    alone_call, call = sign_of(alone["low"], alone["high"]), sign_of(together["low"], together["high"])
    if not defined(alone) or not defined(together):  # too few claims: nothing to read
        out = f"{head}: with no interval on one side, nothing can be read of either gain."
    elif call == "negative" and alone_call == "negative":  # both measures agree: "misleads" said they did not
        out = f"{head}: read alone and read together they are *less* useful; both measures show the loss."
    elif call == "negative":
        out = f"{head}: read together they are *less* useful, so utility measured per document misleads here."
    elif alone_call == "negative" and call == "positive":  # the measures disagree in sign, the mirror of "misleads"
        out = (
            f"{head}: read alone they are *less* useful and read together they gain, so utility measured per "
            "document misleads here."
        )
    elif alone_call != "positive":
        lost = "a loss alone is shown" if alone_call == "negative" else "no gain alone is shown"
        out = f"{head}: {lost}, and read together " + ("they gain." if call == "positive" else "none either.")
    elif call == "positive":
        out = f"{head}: the gain carries over to the documents read together."
    else:
        out = f"{head}: read together, no gain is shown, so its gain per document does not carry over."
    if rho is not None and rho["rho"] == rho["rho"]:
        ends = (
            f"[{apart(rho['low'], '.3f', (-1.0, 0.0, 1.0))}, {apart(rho['high'], '.3f', (-1.0, 0.0, 1.0))}]"
            if rho["low"] == rho["low"] and rho["high"] == rho["high"]
            else "(no interval)"
        )
        # apart from 0 beside an interval, and from ±1 always (0.9999 read "1.000")
        shown = apart(rho["rho"], ".3f", (-1.0, 0.0, 1.0) if ends != "(no interval)" else (-1.0, 1.0))
        shown = unsigned_zero(shown)
        out += f" Per selection and claim, the two measures correlate at rho = {shown} {ends}."
    return out
