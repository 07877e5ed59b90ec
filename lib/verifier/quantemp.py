"""Stage `nli_quantemp` (`python -m lib.verifier.quantemp`) -> `outputs/nli/quantemp/`: the QuanTemp verifier.

The QuanTemp validation claims with their BM25 snippets, a seeded stratified 80/20 split, 3-way labels:
`naive`, `claim_only_no_evidence`, `bm25_snippets`; a taxonomy classifier (MiniLM embeddings plus
logistic regression, cross-validated) labels the test claims statistical / temporal / interval /
comparison; and the published QuanTemp systems' test predictions matched to the gold-labelled subset.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import pandas as pd
from pydantic import Field, model_validator

from lib import models as MD
from lib import outputs as OUT
from lib.cli import ArgumentParser, nonempty_path, run_main, shown
from lib.data import labels as LB
from lib.data import quantemp
from lib.params import (
    FileName,
    OpenShare,
    PlanName,
    PosInt,
    Section,
    Seed,
    Text,
    one_name_per_file,
    section,
    study_params_only,
)
from lib.paths import DATA_DIR, PARAMS_FILE
from lib.verifier import nli as N
from lib.verifier.nli import NLISettings
from lib.verifier.stages import (
    CLAIM_ONLY,
    NAIVE,
    NLI_DIR,
    SNIPPETS,
    naive_probabilities,
    prediction_rows,
    stratified_split,
    train_models,
)

# --------------------------------------------------------------------------- params


class TaxonomySection(Section):
    model: Text
    folds: Annotated[int, Field(ge=2)]
    seed: Seed


GPT4O = "gpt4o_gold_article"  # the system whose predictions come with the gold-labelled test subset


class NLIQuanTempSection(Section):
    classifier: NLISettings
    seeds: Annotated[list[Seed], Field(min_length=1)]
    k: Annotated[int, Field(ge=1, le=3)]  # the file has at most three snippets per claim
    test_fraction: OpenShare
    split_seed: Seed
    max_claims: PosInt | None
    taxonomy: TaxonomySection
    published: dict[PlanName, FileName]  # {system: its test predictions in data/quantemp/}

    @model_validator(mode="after")
    def _one_name_per_file(self) -> NLIQuanTempSection:
        one_name_per_file(self.published, "nli_quantemp.published")  # one system's predictions twice, as two systems
        if GPT4O in self.published:  # its rows were pooled with GPT-4o's, which come with the gold subset
            raise ValueError(f"nli_quantemp.published: {GPT4O!r} is the name of GPT-4o's predictions (the gold subset's); "
                             "give the system a name of its own")  # fmt: skip
        return self


def norm_claim(text: str) -> str:
    """A claim text for matching across QuanTemp files: quotes and whitespace dropped, lower case."""
    return re.sub(r"\s+", " ", re.sub(r"[\"“”‘’']", "", text)).strip().lower()


def taxonomy_classifier(
    claims: Sequence[quantemp.TaxonomyClaim], encoder, folds: int = 5, seed: int = 0, C: float = 1.0
) -> tuple[Any, dict[str, Any]]:
    """Logistic regression on normalised sentence embeddings of the labelled claims: (fitted model,
    stratified k-fold cross-validated accuracy and macro-F1, with the per-fold values)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_validate

    x = MD.encode(encoder, [c.text for c in claims], progress=False)
    y = np.array([c.taxonomy for c in claims])
    clf = LogisticRegression(C=C, max_iter=2000)
    cv = cross_validate(
        clf, x, y, cv=StratifiedKFold(folds, shuffle=True, random_state=seed), scoring=["accuracy", "f1_macro"]
    )
    clf.fit(x, y)
    counts = pd.Series(y).value_counts()
    return clf, {
        "claims": len(claims),
        "folds": folds,
        "class_counts": counts.to_dict(),
        "majority_share": float(counts.iloc[0] / len(y)),
        "cv_accuracy": float(cv["test_accuracy"].mean()),
        "cv_accuracy_sd": float(cv["test_accuracy"].std()),
        "cv_macro_f1": float(cv["test_f1_macro"].mean()),
        "cv_accuracy_folds": cv["test_accuracy"].tolist(),
    }


def conflicting_predictions(preds: Sequence[Any]) -> list[str]:
    """The claims (normalised text, in file order) that a prediction file gives two or more different verdicts;
    `published_systems` scores each by its first row."""
    verdicts: dict[str, set[str]] = {}
    for pr in preds:
        verdicts.setdefault(norm_claim(pr.text), set()).add(pr.label)
    return [k for k, v in verdicts.items() if len(v) > 1]


def published_systems(
    systems: Mapping[str, str], data_dir: Path | str = DATA_DIR
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The published QuanTemp systems' test predictions on the gold-labelled test subset, matched by
    normalised claim text; GPT-4o's predictions come with the subset. One row per system and matched claim."""
    data_dir = Path(data_dir)
    gold = quantemp.load_quantemp_gold_subset(data_dir / "quantemp" / "test_subset_gold_with_article.csv")
    by_text: dict[str, quantemp.GoldArticleClaim] = {}
    duplicates = 0
    for g in gold:
        key = norm_claim(g.text)
        duplicates += key in by_text
        by_text.setdefault(key, g)
    rows = [
        {"system": GPT4O, "row_id": g.row_id, "claim": g.text, "label": g.label, "pred": g.gpt4o_label}
        for g in by_text.values()
    ]
    counts = {
        "gold_subset": len(gold),
        "distinct_gold_claims": len(by_text),
        "duplicate_gold_claims": duplicates,
        "matched": {GPT4O: len(by_text)},
    }
    for name, file in systems.items():
        preds = quantemp.load_quantemp_predictions(data_dir / "quantemp" / file)
        if conflicts := [k for k in conflicting_predictions(preds) if k in by_text]:
            # the published files list some test claims twice, a few with two verdicts: the rule is stated, and
            # the claims named, not left to the file's order without a word
            print(
                f"{file}: {len(conflicts)} gold-subset claim(s) predicted twice with different verdicts, each scored "
                f"by its first row (e.g. {shown(by_text[conflicts[0]].text, 80)})",
                file=sys.stderr,
            )
        seen = set()
        for pr in preds:
            key = norm_claim(pr.text)
            if key in by_text and key not in seen:
                seen.add(key)
                g = by_text[key]
                rows.append({"system": name, "row_id": g.row_id, "claim": g.text, "label": g.label, "pred": pr.label})
        counts["matched"][name] = len(seen)
        counts.setdefault("predictions", {})[name] = len(preds)
    return pd.DataFrame(rows), counts


def quantemp_stage(
    params: Mapping[str, Any], data_dir: Path | str = DATA_DIR, out_dir: Path | str = NLI_DIR / "quantemp"
) -> pd.DataFrame:
    """Stage `nli_quantemp`: split, train, predict; taxonomy classes; published systems."""
    p = dict(params)
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    s = N.NLISettings.model_validate(p["classifier"])
    seeds, labels = list(p["seeds"]), LB.LABEL_SETS["quantemp3"]
    claims = quantemp.load_quantemp_val(data_dir / "quantemp" / "val_claims_bm25_evidence.json")
    if p.get("max_claims"):
        claims = claims[: int(p["max_claims"])]
    train_idx, test_idx = stratified_split([c.label for c in claims], p["test_fraction"], p["split_seed"])
    train, test = [claims[i] for i in train_idx], [claims[i] for i in test_idx]
    fit_idx, val_idx = stratified_split([c.label for c in train], s.validation_fraction, s.seed)

    def exs(cs: Sequence[quantemp.QuanTempClaim], with_evidence: bool) -> list[N.Example]:
        return [N.Example(str(c.claim_id), c.text, c.snippets[: p["k"]] if with_evidence else (), c.label) for c in cs]

    variants = {
        name: (exs([train[i] for i in fit_idx], ev), exs([train[i] for i in val_idx], ev))
        for name, ev in (("claim_only", False), ("bm25_snippets", True))
    }
    models = train_models(variants, labels, s, seeds, out_dir / "models")
    test_claim, test_ev = exs(test, False), exs(test, True)
    frames = [
        prediction_rows(
            NAIVE,
            "reference",
            None,
            seeds[0],
            test_claim,
            naive_probabilities(test_claim, LB.majority_label(train), labels),
            labels,
        )
    ]
    for seed in seeds:
        for name, setting, inputs in (("claim_only", CLAIM_ONLY, test_claim), ("bm25_snippets", SNIPPETS, test_ev)):
            model, tok, _ = models[(name, seed)]
            probs = N.predict_proba(model, tok, inputs, s.max_length, s.eval_batch_size, s.max_claim_share)
            frames.append(
                prediction_rows(
                    setting,
                    "reference" if name == "claim_only" else "retrieved",
                    None if name == "claim_only" else p["k"],
                    seed,
                    inputs,
                    probs,
                    labels,
                )
            )
    preds = pd.concat(frames, ignore_index=True)
    preds["claim_id"] = preds["uid"].astype(int)
    encoder = MD.load_encoder(p["taxonomy"]["model"], None, 128)
    clf, tax_report = taxonomy_classifier(
        quantemp.load_quantemp_taxonomy(data_dir / "quantemp" / "taxonomy_labelled_claims.csv"),
        encoder,
        p["taxonomy"]["folds"],
        p["taxonomy"]["seed"],
    )
    tax = dict(zip([c.claim_id for c in test], clf.predict(MD.encode(encoder, [c.text for c in test], progress=False))))
    preds["taxonomy"] = preds["claim_id"].map(tax)
    preds["has_snippets"] = preds["claim_id"].map({c.claim_id: bool(c.snippets) for c in test})
    published, counts = published_systems(p["published"], data_dir)
    with OUT.together():  # the stage's outputs are replaced together, or none of them
        OUT.write_parquet(preds, out_dir / "predictions.parquet", index=False)
        OUT.write_parquet(published, out_dir / "published.parquet", index=False)
        report = {
            "labels": list(labels),
            "k": p["k"],
            "seeds": seeds,
            "claims": len(claims),
            "train_claims": len(fit_idx),
            "validation_claims": len(val_idx),
            "test_claims": len(test),
            "test_without_snippets": int(sum(not c.snippets for c in test)),
            "training": {f"{name}/seed{seed}": rep for (name, seed), (_, _, rep) in models.items()},
            "taxonomy": tax_report,
            "published": counts,
        }
        OUT.write_json(out_dir / "report.json", report)
    return preds


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.verifier.quantemp",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    args = ap.parse_args(argv)
    study_params_only(
        args.params, "the outputs of stage `nli_quantemp`"
    )  # the study's folders: another file only through params.yaml
    quantemp_stage(section("nli_quantemp", args.params))


if __name__ == "__main__":
    run_main(main)
