"""Stage `nli_averitec` (`python -m lib.verifier.averitec`) -> `outputs/nli/averitec/`: the AVeriTeC verifier.

Train on AVeriTeC train, minus a stratified validation share for early stopping and temperature scaling.
The train split has no pooled store, so params `training_evidence` chooses the evidence: `gold` (the gold
QA answers), `mixed` (gold answers mixed with other claims' answers, to look like retrieved evidence) or
`retrieved` (the thesis' protocol: BM25's top-k of the open collection for the claim, its own gold answers
left out; stage `training_evidence` retrieves them, so that this training stage runs no retrieval code). `make sweep-protocol` compares `gold` and `retrieved` over seeds and per k (sweeps/protocol.json;
notebook 07 checks that params hold the protocol the validation split prefers). Predict the dev claims with:
- `naive`: the majority train label;
- `claim_only_no_evidence`: a classifier trained and tested on the claim alone;
- `gold`: the gold-evidence classifier on the dev claims' own gold answers (first k, every k of
  `ablation_ks`).
The planners' retrieved evidence goes through the saved gold-evidence models in stage `nli_planners`
(`python -m lib.verifier.veracity planners`), so a change to retrieval or planning never retrains.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import numpy as np
import pandas as pd
from pydantic import Field

from lib import outputs as OUT
from lib.cli import ArgumentParser, nonempty_path, run_main
from lib.data import averitec
from lib.data import labels as LB
from lib.data.labels import AveritecLabelSet
from lib.models import forget_weights, record_weights
from lib.params import PosInt, Section, Seed, Text, section, study_params_only
from lib.paths import DATA_DIR, PARAMS_FILE, repo_path
from lib.retrieval.vocabulary import Fusion, RetrieverKind
from lib.store.scopes import Scope
from lib.verifier import nli as N
from lib.verifier.nli import NLISettings
from lib.verifier.stages import (
    CLAIM_ONLY,
    GOLD,
    NAIVE,
    NLI_DIR,
    model_dir,
    naive_probabilities,
    prediction_rows,
    stratified_split,
    train_models,
)

# --------------------------------------------------------------------------- params

TrainingEvidence = Literal["gold", "mixed", "retrieved"]
# The gold-evidence classifier reading the fact-checkers' justification instead of the gold answers (the thesis'
# GOLD row is a classifier given the justification document: an upper bound on what evidence can give).
JUSTIFICATION = "gold_justification"


class MixedSection(Section):  # mixed_evidence below
    distractor_share: Annotated[float, Field(ge=0, le=1)]
    seed: Seed


class RunSelectionSection(Section):
    retriever: RetrieverKind
    scope: Scope
    temporal: bool
    fusion: Fusion


class NLIAveritecSection(Section):
    classifier: NLISettings
    seeds: Annotated[list[Seed], Field(min_length=1)]
    label_set: AveritecLabelSet
    training_evidence: TrainingEvidence
    mixed: MixedSection
    k: PosInt
    ablation_ks: list[PosInt]
    ablation_planners: list[Text]
    planners: Annotated[list[Text], Field(min_length=1)]
    runs: Annotated[list[Text], Field(min_length=1)]
    retrieval: RunSelectionSection
    scope_variants: list[Scope]  # other scopes whose top-k the verifier also reads (stage nli_planners)
    max_train_claims: PosInt | None
    max_dev_claims: PosInt | None


def gold_evidence(claim: averitec.Claim, k: int | None = None) -> tuple[str, ...]:
    """The claim's gold answer texts in question order (a Boolean answer's explanation where given),
    first `k` (all with None)."""
    if k is not None and k < 1:
        raise ValueError(f"k = {k}: the number of evidence pieces must be >= 1 (None: all)")
    texts = [averitec.gold_answer_text(a).strip() for q in claim.questions for a in q.answers]
    texts = [t for t in texts if t]
    return tuple(texts if k is None else texts[:k])


TRAINING_EVIDENCE: tuple[str, ...] = get_args(TrainingEvidence)


def justification_evidence(claims: Sequence[averitec.Claim]) -> dict[int, tuple[str, ...]]:
    """The fact-checkers' justification of each claim as one evidence piece (none where it is empty)."""
    return {c.claim_id: (c.justification.strip(),) if c.justification.strip() else () for c in claims}


def mixed_evidence(
    claims: Sequence[averitec.Claim], k: int, distractor_share: float, seed: int
) -> dict[int, tuple[str, ...]]:
    """Training evidence that looks like retrieved evidence: k pieces per claim, in random order.

    The claim's own gold answers come first (without "No answer could be found.", the text of an
    unanswerable question, which no retrieved sentence contains); each of them is replaced, with
    probability `distractor_share`, by a gold answer of another claim in `claims` (a sentence of the
    store that is not the claim's own: the train answers are the store's distractors), and the slots its
    answers do not fill are distractors too. Deterministic for a seed."""
    if k < 1:
        raise ValueError(f"k = {k}: the number of evidence pieces must be >= 1")
    if not 0 <= distractor_share <= 1:
        raise ValueError(f"distractor_share must be in [0, 1], got {distractor_share}")
    rng = np.random.default_rng(seed)
    own = {
        c.claim_id: [
            averitec.gold_answer_text(a).strip()
            for q in c.questions
            for a in q.answers
            if a.answer_type != "Unanswerable" and averitec.gold_answer_text(a).strip()
        ][:k]
        for c in claims
    }
    pool = [(cid, t) for cid, texts in own.items() for t in texts]
    if len({cid for cid, _ in pool}) < 2:
        raise ValueError("mixed evidence needs answers from at least two claims (the distractors are other claims')")
    out = {}
    for c in claims:
        pieces = [t if rng.random() >= distractor_share else None for t in own[c.claim_id]]
        pieces += [None] * (k - len(pieces))
        for i, t in enumerate(pieces):
            while t is None:
                cid, text = pool[int(rng.integers(len(pool)))]
                t = text if cid != c.claim_id else None
            pieces[i] = t
        out[c.claim_id] = tuple(pieces[i] for i in rng.permutation(k))
    return out


RETRIEVED_FILE = NLI_DIR / "training_evidence.parquet"  # stage `training_evidence` (lib.verifier.retrieved_training)


def save_retrieved(evidence: Mapping[int, Sequence[str]], path: Path | str) -> None:
    """Claims' retrieved evidence as a table: claim_id, rank (from 1), text."""
    rows = [(cid, rank, t) for cid, texts in evidence.items() for rank, t in enumerate(texts, start=1)]
    OUT.write_parquet(pd.DataFrame(rows, columns=["claim_id", "rank", "text"]), path, index=False)


def load_retrieved(path: Path | str) -> dict[int, tuple[str, ...]]:
    """{claim_id: texts in rank order} from `save_retrieved`'s table; a missing file is named."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no retrieved training evidence (run stage training_evidence)")
    table = OUT.read_parquet(path).sort_values(["claim_id", "rank"], kind="stable")
    return {int(c): tuple(g["text"]) for c, g in table.groupby("claim_id", sort=True)}


def training_evidence(
    claims: Sequence[averitec.Claim],
    k: int,
    kind: str,
    mixed: Mapping[str, Any] | None = None,
    retrieved: Mapping[int, Sequence[str]] | None = None,
) -> dict[int, tuple[str, ...]]:
    """The evidence the gold-evidence classifier trains (and early-stops) on: `gold` (the first k gold
    answers, `gold_evidence`), `mixed` (`mixed_evidence` with params `mixed`) or `retrieved` (the first k of
    `retrieved`, from `lib.verifier.retrieved_training`: the thesis' protocol)."""
    if kind == "gold":
        return {c.claim_id: gold_evidence(c, k) for c in claims}
    if kind == "mixed":
        m = dict(mixed or {})
        return mixed_evidence(claims, k, float(m["distractor_share"]), int(m["seed"]))
    if kind == "retrieved":
        if retrieved is None:
            raise ValueError(
                "training evidence 'retrieved' needs the claims' retrieved documents (stage training_evidence)"
            )
        missing = [c.claim_id for c in claims if c.claim_id not in retrieved]
        if missing:
            raise ValueError(f"no retrieved evidence for claim {missing[0]} ({len(missing)} claims without)")
        return {c.claim_id: tuple(retrieved[c.claim_id])[:k] for c in claims}
    raise ValueError(f"training evidence {kind!r}: expected one of {TRAINING_EVIDENCE}")


def examples(
    claims: Sequence[averitec.Claim], evidence: Mapping[int, Sequence[str]] | None, label_set: str, prefix: str = ""
) -> list[N.Example]:
    """Classifier examples; `evidence=None` gives the claim alone. Claims whose label is not in the
    label set (2-way: NEE, Conflicting) are left out."""
    out = []
    for c in claims:
        label = LB.map_label(c.label, label_set)
        if label is not None:
            ev = () if evidence is None else tuple(evidence.get(c.claim_id, ()))
            out.append(N.Example(f"{prefix}{c.claim_id}", c.text, ev, label))
    return out


def claims_of(
    params: Mapping[str, Any], data_dir: Path | str = DATA_DIR
) -> tuple[list[averitec.Claim], list[averitec.Claim], list[averitec.Claim], list[averitec.Claim]]:
    """(train, fit, validation, dev) claims of params `nli_averitec`: the train claims in the label set
    split into the fitting share and the stratified validation share (seeded by the classifier's seed)."""
    data_dir = Path(data_dir)
    s = N.NLISettings.model_validate(params["classifier"])
    train = averitec.load_averitec("train", data_dir / "averitec" / "train.json")
    dev = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    if params.get("max_train_claims"):
        train = train[: int(params["max_train_claims"])]
    if params.get("max_dev_claims"):
        dev = dev[: int(params["max_dev_claims"])]
    train = [c for c in train if LB.map_label(c.label, params["label_set"]) is not None]
    fit_idx, val_idx = stratified_split([c.label for c in train], s.validation_fraction, s.seed)
    return train, [train[i] for i in fit_idx], [train[i] for i in val_idx], dev


def averitec_stage(
    params: Mapping[str, Any],
    data_dir: Path | str = DATA_DIR,
    out_dir: Path | str = NLI_DIR / "averitec",
    retrieved_file: Path | str = RETRIEVED_FILE,
) -> pd.DataFrame:
    """Stage `nli_averitec`: train the claim-only and gold-evidence classifiers (every seed saved), and
    predict the dev claims' reference settings: majority label, claim alone, gold evidence at every k.
    The planners' evidence is stage `nli_planners` (`lib.verifier.veracity`), so new runs never retrain."""
    p = dict(params)
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    s = N.NLISettings.model_validate(p["classifier"])
    label_set, k, seeds = p["label_set"], int(p["k"]), list(p["seeds"])
    kind = p.get("training_evidence", "gold")
    labels = LB.LABEL_SETS[label_set]
    train, fit, val, dev = claims_of(p, data_dir)
    retrieved = load_retrieved(retrieved_file) if kind == "retrieved" else None
    variants = {
        "claim_only": (examples(fit, None, label_set), examples(val, None, label_set)),
        "gold": (
            examples(fit, training_evidence(fit, k, kind, p.get("mixed"), retrieved), label_set),
            examples(val, training_evidence(val, k, kind, p.get("mixed"), retrieved), label_set),
        ),
    }
    forget_weights(out_dir / "models")  # the models are replaced one by one: no record vouches for a mix
    models = train_models(variants, labels, s, seeds, out_dir / "models")
    ks = sorted({k, *p.get("ablation_ks", [])})
    naive_label = LB.map_label(LB.majority_label(train), label_set)
    dev_claim = examples(dev, None, label_set)
    frames = [
        prediction_rows(
            NAIVE, "reference", None, seeds[0], dev_claim, naive_probabilities(dev_claim, naive_label, labels), labels
        )
    ]
    for seed in seeds:
        model, tok, _ = models[("claim_only", seed)]
        frames.append(
            prediction_rows(
                CLAIM_ONLY,
                "reference",
                None,
                seed,
                dev_claim,
                N.predict_proba(model, tok, dev_claim, s.max_length, s.eval_batch_size, s.max_claim_share),
                labels,
            )
        )
        model, tok, _ = models[("gold", seed)]
        per_k = [examples(dev, {c.claim_id: gold_evidence(c, kk) for c in dev}, label_set) for kk in ks]
        # one call: inputs equal at several k (few answers, or truncated) are classified once
        probs = N.predict_proba(
            model, tok, [e for exs in per_k for e in exs], s.max_length, s.eval_batch_size, s.max_claim_share
        )
        bounds = np.cumsum([0] + [len(exs) for exs in per_k])
        for kk, exs, lo, hi in zip(ks, per_k, bounds, bounds[1:]):
            frames.append(prediction_rows(GOLD, "gold", kk, seed, exs, probs[lo:hi], labels))
        # the upper bound of the thesis' GOLD row: the same classifier given the fact-checkers' justification
        just = examples(dev, justification_evidence(dev), label_set)
        probs = N.predict_proba(model, tok, just, s.max_length, s.eval_batch_size, s.max_claim_share)
        frames.append(prediction_rows(JUSTIFICATION, "justification", None, seed, just, probs, labels))
    preds = pd.concat(frames, ignore_index=True)
    preds["claim_id"] = preds["uid"].astype(int)
    with OUT.together():  # the stage's outputs are replaced together, or none of them
        OUT.write_parquet(preds, out_dir / "predictions.parquet", index=False)
        report = {
            "label_set": label_set,
            "labels": list(labels),
            "k": k,
            "ks": ks,
            "training_evidence": kind,
            "mixed": p.get("mixed") if kind == "mixed" else None,
            "seeds": seeds,
            "train_claims": len(fit),
            "validation_claims": len(val),
            "dev_claims": len(dev),
            "dev_claims_without_justification": sum(1 for c in dev if not c.justification.strip()),
            "max_dev_claims": p.get("max_dev_claims"),
            "naive_label": naive_label,
            "models": {f"{name}/seed{seed}": repo_path(model_dir(out_dir, name, seed, seeds)) for name, seed in models},
            "training": {f"{name}/seed{seed}": rep for (name, seed), (_, _, rep) in models.items()},
        }
        OUT.write_json(out_dir / "report.json", report)
    record_weights(out_dir / "models", out_dir / "report.json")  # the weights stay here; the record is committed
    return preds


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.verifier.averitec",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    args = ap.parse_args(argv)
    study_params_only(
        args.params, "the outputs of stage `nli_averitec`"
    )  # the study's folders: another file only through params.yaml
    averitec_stage(section("nli_averitec", args.params))


if __name__ == "__main__":
    run_main(main)
