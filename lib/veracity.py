"""Downstream veracity (notebook 07): what the planners' evidence does for an NLI classifier.

Two DVC stages, both through `lib.nli`:

`python -m lib.veracity averitec` (stage `nli_averitec`) -> `outputs/nli/averitec/`
  Train on AVeriTeC train (the train split has no pooled store, so its evidence is the gold QA answers),
  minus a stratified validation share for early stopping; test on dev with:
  - `naive`: the majority train label;
  - `claim_only_no_evidence`: a classifier trained and tested on the claim alone;
  - `gold`: the gold-evidence classifier on the dev claims' own gold answers (first k);
  - `planner:<name>`: the same classifier on each planner's top-k retrieved documents (one retrieval
    setting, params `nli_averitec.retrieval`), k = `k` plus the ablation over `ablation_ks`.
  The thesis trained and tested on the *same kind* of evidence (retrieved for both); here training sees
  gold answers and testing sees retrieved sentences: a distribution shift the notebook discusses.

`python -m lib.veracity quantemp` (stage `nli_quantemp`) -> `outputs/nli/quantemp/`
  The QuanTemp validation claims with their BM25 snippets, a seeded stratified 80/20 split, 3-way labels:
  `naive`, `claim_only_no_evidence`, `bm25_snippets`; a taxonomy classifier (MiniLM embeddings plus
  logistic regression, cross-validated) labels the test claims statistical / temporal / interval /
  comparison; and the published QuanTemp systems' test predictions matched to the gold-labelled subset.

Each stage writes `predictions.parquet` (one row per setting, k, seed and claim, with class
probabilities), the first seed's models under `models/`, and `report.json` (training curves,
examples/second, timings).
"""
from __future__ import annotations

import argparse
import json
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from lib import evidence as E
from lib import nli as N
from lib import runs as RU
from lib.config import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE, STORE_DIR, section
from lib.data import averitec, quantemp
from lib.store import load_store

NLI_DIR = OUTPUTS_DIR / "nli"
NAIVE, CLAIM_ONLY, GOLD, SNIPPETS = "naive", "claim_only_no_evidence", "gold", "bm25_snippets"
PLANNER = "planner:"
SETTING_LABELS = {NAIVE: "NAIVE (majority class)", CLAIM_ONLY: "CLAIM-ONLY-NO-EVIDENCE", GOLD: "GOLD evidence",
                  SNIPPETS: "BM25 snippets (QuanTemp corpus)"}


def setting_label(setting: str) -> str:
    """Display name of a setting; planners by their planner names (`lib.generative.label`)."""
    if setting.startswith(PLANNER):
        from lib.generative import label

        return label(setting[len(PLANNER):])
    return SETTING_LABELS.get(setting, setting)


def stratified_split(labels: Sequence[str], test_fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """Seeded stratified (train, test) index lists, each sorted."""
    from sklearn.model_selection import train_test_split

    if not 0 < test_fraction < 1:
        raise ValueError(f"test fraction must be in (0, 1), got {test_fraction}")
    idx = np.arange(len(labels))
    a, b = train_test_split(idx, test_size=test_fraction, random_state=seed, stratify=list(labels))
    return sorted(a.tolist()), sorted(b.tolist())


# --------------------------------------------------------------------------- AVeriTeC inputs


def gold_evidence(claim: averitec.Claim, k: int | None = None) -> tuple[str, ...]:
    """The claim's gold answer texts in question order (a Boolean answer's explanation where given),
    first `k` (all with None)."""
    if k is not None and k < 1:
        raise ValueError(f"k = {k}: the number of evidence pieces must be >= 1 (None: all)")
    texts = [averitec.gold_answer_text(a).strip() for q in claim.questions for a in q.answers]
    texts = [t for t in texts if t]
    return tuple(texts if k is None else texts[:k])


def top_k_docs(run: pd.DataFrame, k: int) -> dict[int, tuple[str, ...]]:
    """{claim_id: doc_ids of the top-k documents} of one run configuration, best first."""
    if k < 1:
        raise ValueError(f"k = {k}: the number of documents must be >= 1")
    if run[RU.CONFIG_COLUMNS].drop_duplicates().shape[0] > 1:
        raise ValueError("top-k documents need one run configuration (plan, retriever, scope, temporal, fusion)")
    top = run[run["rank"] <= k].sort_values(["claim_id", "rank"])
    out: dict[int, list[str]] = {}
    for cid, did in zip(top["claim_id"].to_numpy(), top["doc_id"].astype(str).to_numpy()):
        out.setdefault(int(cid), []).append(did)
    return {cid: tuple(ids) for cid, ids in out.items()}


def top_k_evidence(run: pd.DataFrame, docs: pd.DataFrame, k: int) -> dict[int, tuple[str, ...]]:
    """{claim_id: texts of the top-k documents} of one run configuration (ranks ascending)."""
    text = dict(zip(docs["doc_id"], docs["text"]))
    return {cid: tuple(text[d] for d in ids) for cid, ids in top_k_docs(run, k).items()}


def examples(claims: Sequence[averitec.Claim], evidence: Mapping[int, Sequence[str]] | None, label_set: str,
             prefix: str = "") -> list[N.Example]:
    """Classifier examples; `evidence=None` gives the claim alone. Claims whose label is not in the
    label set (2-way: NEE, Conflicting) are left out."""
    out = []
    for c in claims:
        label = N.map_label(c.label, label_set)
        if label is not None:
            ev = () if evidence is None else tuple(evidence.get(c.claim_id, ()))
            out.append(N.Example(f"{prefix}{c.claim_id}", c.text, ev, label))
    return out


def planner_runs(paths: Sequence[Path | str], planners: Sequence[str], retrieval: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Each planner's run in the one retrieval setting, from whichever runs file holds it (first wins)."""
    want = dict(retriever=retrieval["retriever"], scope=retrieval["scope"], temporal=bool(retrieval["temporal"]),
                fusion=retrieval["fusion"])
    out: dict[str, pd.DataFrame] = {}
    for path in paths:
        if len(out) == len(planners):
            break
        if not Path(path).exists():
            raise FileNotFoundError(f"{path} is missing: run `dvc repro` for the retrieval stages first")
        frame = pd.read_parquet(path, filters=[("plan", "in", [p for p in planners if p not in out])])
        sel = RU.select(frame, **want)
        for plan, group in sel.groupby("plan", sort=False):
            out.setdefault(str(plan), group)
    missing = [p for p in planners if p not in out]
    if missing:
        raise ValueError(f"no runs for planners {missing} with {want} in {[str(p) for p in paths]}")
    return {p: out[p] for p in planners}


def _rows(setting: str, kind: str, k: int | None, seed: int, exs: Sequence[N.Example], probs: np.ndarray,
          labels: Sequence[str]) -> pd.DataFrame:
    frame = pd.DataFrame({"setting": setting, "kind": kind, "k": -1 if k is None else k, "seed": seed,
                          "uid": [e.uid for e in exs], "label": [e.label for e in exs],
                          "pred": [labels[i] for i in probs.argmax(1)], "n_evidence": [len(e.evidence) for e in exs]})
    for i, lb in enumerate(labels):
        frame[f"p:{lb}"] = probs[:, i]
    return frame


def _naive(exs: Sequence[N.Example], label: str, labels: Sequence[str]) -> np.ndarray:
    probs = np.zeros((len(exs), len(labels)))
    probs[:, list(labels).index(label)] = 1.0
    return probs


def _train_models(variants: Mapping[str, tuple[list[N.Example], list[N.Example]]], labels: Sequence[str],
                  s: N.NLISettings, seeds: Sequence[int], models_dir: Path) -> dict[tuple[str, int], tuple[Any, Any, dict]]:
    """Train every variant for every seed; the first seed's models are saved."""
    out = {}
    for seed in seeds:
        for name, (fit, val) in variants.items():
            print(f"[{name}, seed {seed}] {len(fit)} training and {len(val)} validation examples")
            out[(name, seed)] = N.train(fit, val, labels, replace(s, seed=seed),
                                        models_dir / name if seed == seeds[0] else None)
    return out


def averitec_stage(params: Mapping[str, Any], data_dir: Path | str = DATA_DIR, store_dir: Path | str = STORE_DIR,
                   out_dir: Path | str = NLI_DIR / "averitec") -> pd.DataFrame:
    """Stage `nli_averitec`: train the claim-only and gold-evidence classifiers, predict every setting."""
    p = dict(params)
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    start = time.perf_counter()
    s = N.NLISettings.from_params(p["classifier"])
    label_set, k, seeds = p["label_set"], int(p["k"]), list(p["seeds"])
    labels = N.LABEL_SETS[label_set]
    train = averitec.load_averitec("train", data_dir / "averitec" / "train.json")
    dev = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    if p.get("max_train_claims"):
        train = train[: int(p["max_train_claims"])]
    if p.get("max_dev_claims"):
        dev = dev[: int(p["max_dev_claims"])]
    train = [c for c in train if N.map_label(c.label, label_set) is not None]
    fit_idx, val_idx = stratified_split([c.label for c in train], s.validation_fraction, s.seed)
    fit, val = [train[i] for i in fit_idx], [train[i] for i in val_idx]
    variants = {
        "claim_only": (examples(fit, None, label_set), examples(val, None, label_set)),
        "gold": (examples(fit, {c.claim_id: gold_evidence(c, k) for c in fit}, label_set),
                 examples(val, {c.claim_id: gold_evidence(c, k) for c in val}, label_set)),
    }
    models = _train_models(variants, labels, s, seeds, out_dir / "models")
    docs = load_store(store_dir).docs
    runs = planner_runs(p["runs"], p["planners"], p["retrieval"])
    ks = sorted({k, *p.get("ablation_ks", [])})
    frames = []
    naive_label = N.map_label(E.majority_label(train), label_set)
    dev_claim = examples(dev, None, label_set)
    frames.append(_rows(NAIVE, "reference", None, seeds[0], dev_claim, _naive(dev_claim, naive_label, labels), labels))
    for seed in seeds:
        model, tok, _ = models[("claim_only", seed)]
        frames.append(_rows(CLAIM_ONLY, "reference", None, seed, dev_claim,
                            N.predict_proba(model, tok, dev_claim, s.max_length, s.eval_batch_size, s.max_claim_share), labels))
        model, tok, _ = models[("gold", seed)]
        for kk in ks:
            inputs = {GOLD: examples(dev, {c.claim_id: gold_evidence(c, kk) for c in dev}, label_set)}
            for name in p["planners"] if kk == k else p.get("ablation_planners", []):
                inputs[PLANNER + name] = examples(dev, top_k_evidence(runs[name], docs, kk), label_set)
            for setting, exs in inputs.items():
                t0 = time.perf_counter()
                probs = N.predict_proba(model, tok, exs, s.max_length, s.eval_batch_size, s.max_claim_share)
                frames.append(_rows(setting, "gold" if setting == GOLD else "planner", kk, seed, exs, probs, labels))
                print(f"seed {seed} k={kk:2d} {setting:34s} accuracy {np.mean(frames[-1]['label'] == frames[-1]['pred']):.3f}"
                      f" ({time.perf_counter() - t0:.1f} s)")
    preds = pd.concat(frames, ignore_index=True)
    preds["claim_id"] = preds["uid"].astype(int)
    out_dir.mkdir(parents=True, exist_ok=True)
    preds.to_parquet(out_dir / "predictions.parquet", index=False)
    report = {"label_set": label_set, "labels": list(labels), "k": k, "ks": ks, "seeds": seeds,
              "train_claims": len(fit), "validation_claims": len(val), "dev_claims": len(dev),
              "naive_label": naive_label, "retrieval": dict(p["retrieval"]),
              "training": {f"{name}/seed{seed}": rep for (name, seed), (_, _, rep) in models.items()},
              "seconds": round(time.perf_counter() - start, 1)}
    (out_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    return preds


# --------------------------------------------------------------------------- QuanTemp


def norm_claim(text: str) -> str:
    """A claim text for matching across QuanTemp files: quotes and whitespace dropped, lower case."""
    return re.sub(r"\s+", " ", re.sub(r"[\"“”‘’']", "", text)).strip().lower()


def taxonomy_classifier(claims: Sequence[quantemp.TaxonomyClaim], encoder, folds: int = 5, seed: int = 0,
                        C: float = 1.0) -> tuple[Any, dict[str, Any]]:
    """Logistic regression on normalised sentence embeddings of the labelled claims: (fitted model,
    stratified k-fold cross-validated accuracy and macro-F1, with the per-fold values)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_validate

    from lib import retrieval as R

    x = R.encode(encoder, [c.text for c in claims], progress=False)
    y = np.array([c.taxonomy for c in claims])
    clf = LogisticRegression(C=C, max_iter=2000)
    cv = cross_validate(clf, x, y, cv=StratifiedKFold(folds, shuffle=True, random_state=seed),
                        scoring=["accuracy", "f1_macro"])
    clf.fit(x, y)
    counts = pd.Series(y).value_counts()
    return clf, {"claims": len(claims), "folds": folds, "class_counts": counts.to_dict(),
                 "majority_share": float(counts.iloc[0] / len(y)),
                 "cv_accuracy": float(cv["test_accuracy"].mean()), "cv_accuracy_sd": float(cv["test_accuracy"].std()),
                 "cv_macro_f1": float(cv["test_f1_macro"].mean()), "cv_accuracy_folds": cv["test_accuracy"].tolist()}


def published_systems(systems: Mapping[str, str], data_dir: Path | str = DATA_DIR) -> tuple[pd.DataFrame, dict[str, Any]]:
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
    rows = [{"system": "gpt4o_gold_article", "row_id": g.row_id, "claim": g.text, "label": g.label,
             "pred": g.gpt4o_label} for g in by_text.values()]
    counts = {"gold_subset": len(gold), "distinct_gold_claims": len(by_text), "duplicate_gold_claims": duplicates,
              "matched": {"gpt4o_gold_article": len(by_text)}}
    for name, file in systems.items():
        preds = quantemp.load_quantemp_predictions(data_dir / "quantemp" / file)
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


def quantemp_stage(params: Mapping[str, Any], data_dir: Path | str = DATA_DIR,
                   out_dir: Path | str = NLI_DIR / "quantemp") -> pd.DataFrame:
    """Stage `nli_quantemp`: split, train, predict; taxonomy classes; published systems."""
    from lib import retrieval as R

    p = dict(params)
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    start = time.perf_counter()
    s = N.NLISettings.from_params(p["classifier"])
    seeds, labels = list(p["seeds"]), N.LABEL_SETS["quantemp3"]
    claims = quantemp.load_quantemp_val(data_dir / "quantemp" / "val_claims_bm25_evidence.json")
    if p.get("max_claims"):
        claims = claims[: int(p["max_claims"])]
    train_idx, test_idx = stratified_split([c.label for c in claims], p["test_fraction"], p["split_seed"])
    train, test = [claims[i] for i in train_idx], [claims[i] for i in test_idx]
    fit_idx, val_idx = stratified_split([c.label for c in train], s.validation_fraction, s.seed)

    def exs(cs: Sequence[quantemp.QuanTempClaim], with_evidence: bool) -> list[N.Example]:
        return [N.Example(str(c.claim_id), c.text, c.snippets[: p["k"]] if with_evidence else (), c.label) for c in cs]

    variants = {name: (exs([train[i] for i in fit_idx], ev), exs([train[i] for i in val_idx], ev))
                for name, ev in (("claim_only", False), ("bm25_snippets", True))}
    models = _train_models(variants, labels, s, seeds, out_dir / "models")
    test_claim, test_ev = exs(test, False), exs(test, True)
    frames = [_rows(NAIVE, "reference", None, seeds[0], test_claim,
                    _naive(test_claim, E.majority_label(train), labels), labels)]
    for seed in seeds:
        for name, setting, inputs in (("claim_only", CLAIM_ONLY, test_claim), ("bm25_snippets", SNIPPETS, test_ev)):
            model, tok, _ = models[(name, seed)]
            probs = N.predict_proba(model, tok, inputs, s.max_length, s.eval_batch_size, s.max_claim_share)
            frames.append(_rows(setting, "reference" if name == "claim_only" else "retrieved",
                                None if name == "claim_only" else p["k"], seed, inputs, probs, labels))
    preds = pd.concat(frames, ignore_index=True)
    preds["claim_id"] = preds["uid"].astype(int)
    encoder = R.load_encoder(p["taxonomy"]["model"], None, 128)
    clf, tax_report = taxonomy_classifier(quantemp.load_quantemp_taxonomy(data_dir / "quantemp" / "taxonomy_labelled_claims.csv"),
                                          encoder, p["taxonomy"]["folds"], p["taxonomy"]["seed"])
    tax = dict(zip([c.claim_id for c in test], clf.predict(R.encode(encoder, [c.text for c in test], progress=False))))
    preds["taxonomy"] = preds["claim_id"].map(tax)
    preds["has_snippets"] = preds["claim_id"].map({c.claim_id: bool(c.snippets) for c in test})
    published, counts = published_systems(p["published"], data_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    preds.to_parquet(out_dir / "predictions.parquet", index=False)
    published.to_parquet(out_dir / "published.parquet", index=False)
    report = {"labels": list(labels), "k": p["k"], "seeds": seeds, "claims": len(claims), "train_claims": len(fit_idx),
              "validation_claims": len(val_idx), "test_claims": len(test),
              "test_without_snippets": int(sum(not c.snippets for c in test)),
              "training": {f"{name}/seed{seed}": rep for (name, seed), (_, _, rep) in models.items()},
              "taxonomy": tax_report, "published": counts, "seconds": round(time.perf_counter() - start, 1)}
    (out_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    return preds


# --------------------------------------------------------------------------- analysis (notebook 07)


def _gold_set(target: str) -> str:
    """The label set gold is read in: the target set, except that the 2-way reduction is scored against
    3-way gold (its NEE/Conflicting claims stay in, as a class it never predicts)."""
    return "averitec3" if target == "averitec2" else target


def evaluation_labels(target: str) -> tuple[str, ...]:
    """The classes metrics are computed over (see `_gold_set`)."""
    return N.LABEL_SETS[_gold_set(target)]


def read_labels(preds: pd.DataFrame, source: str, target: str | None = None) -> tuple[list[str], list[str]]:
    """(gold, predicted) labels of a predictions frame, read in the `target` label set (default: as trained)."""
    target = target or source
    probs = preds[[f"p:{lb}" for lb in N.LABEL_SETS[source]]].to_numpy()
    collapsed = N.collapse(probs, source, target) if target != source else probs
    pred = [N.LABEL_SETS[target][i] for i in collapsed.argmax(1)]
    return [N.map_label(g, _gold_set(target)) for g in preds["label"]], pred


def setting_scores(preds: pd.DataFrame, source: str, target: str | None = None,
                   by: Sequence[str] = ("setting", "kind", "k", "seed")) -> pd.DataFrame:
    """Accuracy, macro-F1, weighted-F1 and per-class F1 for every group of `by` (one row each)."""
    labels = evaluation_labels(target or source)
    rows = []
    for key, group in preds.groupby(list(by), sort=False, dropna=False):
        gold, pred = read_labels(group, source, target)
        sc = N.classification_scores(gold, pred, labels)
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))), "n": sc["n"],
                     "accuracy": sc["accuracy"], "macro_f1": sc["macro_f1"], "weighted_f1": sc["weighted_f1"],
                     **{f"f1:{lb}": v["f1"] for lb, v in sc["per_class"].items()}})
    return pd.DataFrame(rows)


def over_seeds(scores: pd.DataFrame, metrics: Sequence[str] = ("accuracy", "macro_f1", "weighted_f1"),
               by: Sequence[str] = ("setting", "kind", "k")) -> pd.DataFrame:
    """Mean and standard deviation over seeds (sd is NaN with one seed) and the number of seeds."""
    g = scores.groupby(list(by), sort=False)
    out = g[list(metrics)].agg(["mean", "std"])
    out.columns = [f"{m}_{stat}" for m, stat in out.columns]
    return out.assign(seeds=g.size()).reset_index()


def paired_tests(gold: Sequence[str], pred_a: Sequence[str], pred_b: Sequence[str], labels: Sequence[str],
                 n_resamples: int = 2000, seed: int = 0) -> dict[str, float]:
    """Predictions a against b on the same claims: a's macro-F1, the macro-F1 difference with its paired
    bootstrap p-value, the accuracy difference with McNemar's p-value."""
    from lib import significance as SIG

    index = {lb: i for i, lb in enumerate(labels)}
    g, a, b = (np.array([index[x] for x in v]) for v in (gold, pred_a, pred_b))

    def f1(gold_: np.ndarray, pred: np.ndarray) -> float:
        return N.macro_f1(gold_, pred, len(labels))

    diff, p_boot = SIG.paired_bootstrap_statistic(g, a, b, f1, n_resamples, seed)
    return {"macro_f1": f1(g, a), "delta_macro_f1": diff, "p_bootstrap": p_boot,
            "delta_accuracy": float(np.mean(a == g) - np.mean(b == g)), "p_mcnemar": SIG.mcnemar(a == g, b == g)}


def against_baseline(preds: pd.DataFrame, baseline: tuple[str, int], source: str, n_resamples: int = 2000,
                     seed: int = 0, alpha: float = 0.05, target: str | None = None) -> pd.DataFrame:
    """`paired_tests` of every (setting, k) of the first seed against `baseline` (setting, k) on the same
    claims; `significant` marks a bootstrap p-value below `alpha`."""
    first = preds[preds["seed"] == preds["seed"].min()]
    base = first[(first["setting"] == baseline[0]) & (first["k"] == baseline[1])].set_index("claim_id")
    if base.empty:
        raise ValueError(f"no predictions for the baseline {baseline}")
    labels = evaluation_labels(target or source)
    _, base_pred = read_labels(base.reset_index(), source, target)
    rows = []
    for (setting, k), group in first.groupby(["setting", "k"], sort=False):
        gold, pred = read_labels(group.set_index("claim_id").loc[base.index].reset_index(), source, target)
        t = paired_tests(gold, pred, base_pred, labels, n_resamples, seed)
        rows.append({"setting": setting, "k": k, **t, "significant": bool(t["p_bootstrap"] < alpha)})
    return pd.DataFrame(rows)


def nli_verdicts(preds: pd.DataFrame, setting: str, k: int, seed: int | None = None) -> dict[int, str]:
    """{claim_id: predicted label} of one setting (the first seed unless given): the `nli` verdict source."""
    seed = preds["seed"].min() if seed is None else seed
    sel = preds[(preds["setting"] == setting) & (preds["k"] == k) & (preds["seed"] == seed)]
    if sel.empty:
        raise ValueError(f"no classifier predictions for {setting} (k={k}, seed {seed})")
    return dict(zip(sel["claim_id"].astype(int), sel["pred"]))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m lib.veracity", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", choices=["averitec", "quantemp"])
    ap.add_argument("--params", default=str(PARAMS_FILE))
    ap.add_argument("--section", help="params section (default nli_<dataset>)")
    args = ap.parse_args(argv)
    p = section(args.section or f"nli_{args.dataset}", args.params)
    (averitec_stage if args.dataset == "averitec" else quantemp_stage)(p)


if __name__ == "__main__":
    main()
