"""QGEN training (stage `qgen`): a small seq2seq query generator distilled from the annotators' questions
(AVeriTeC train), on both tasks of `lib.planning.qgen_text`.

The thesis fine-tuned flan-t5-large on oracle queries; no T5 weights ship offline, so the default warm-starts
an encoder-decoder from the bundled MiniLM (`EncoderDecoderModel.from_encoder_decoder_pretrained`, a BERT2BERT
model with new cross-attention). `qgen.model` takes any local path or Hugging Face name: an encoder-only
checkpoint is warm-started the same way, a seq2seq checkpoint (t5, bart) is fine-tuned as it is.
Answers in training are the gold answers; in pursuit, the retrieved ones.

CPU defaults (params `qgen`) keep training within about 15 minutes on 2 cores: a 3-layer decoder, a frozen
encoder, at most two epochs, with early stopping on the loss of held-out train claims (the checkpoint with
the lowest validation loss is kept). `python -m lib.planning.qgen_training` trains and saves to `outputs/models/qgen`;
`lib.planning.qgen.Generator` loads it. The stage's output is the record `training.json`, committed with the
code (a fresh clone finds the stage up to date and skips the training); the weights stay on the machine that
trained them, and `lib.planning.qgen.ensure_weights` runs this training where stage generative_plans needs
them and finds none for the record (`lib.models.holds_weights`).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import ConfigDict, Field
from tqdm import tqdm

from lib import outputs as OUT
from lib import timing as TM
from lib import training as TR
from lib.cli import ArgumentParser, data_folder, nonempty_path, run_main
from lib.data import averitec, claimdecomp
from lib.models import named_model, pick_device, quiet_transformers, record_weights, resolve_model
from lib.params import Device, NonNegInt, PosFloat, PosInt, Section, Seed, Text, params_given, settings
from lib.paths import DATA_DIR, PARAMS_FILE
from lib.planning.qgen_text import (
    MODEL_DIR,
    as_question,
    next_source,
    plan_source,
    plan_target,
    verdict_target,
)

# ClaimDecomp's splits whose decompositions join training with `claimdecomp: true` (the study plans AVeriTeC dev
# claims, so neither split is evaluated on; its few-shot examples come from dev too)
CLAIMDECOMP_SPLITS = ("dev", "test")

# --------------------------------------------------------------------------- params


class QGenSettings(Section):
    """Params section `qgen` (params.yaml is the one source of its values)."""

    model_config = ConfigDict(frozen=True)

    model: Text  # encoder-only: warm-started BERT2BERT; or a seq2seq checkpoint
    decoder_layers: PosInt | None  # warm-started decoder depth (None: as deep as the encoder)
    freeze_encoder: bool
    epochs: TR.Epochs
    batch_size: PosInt
    learning_rate: PosFloat
    warmup: Annotated[float, Field(ge=0, lt=1)]  # fraction of the steps with a linear warm-up
    max_source_tokens: PosInt
    max_target_tokens: PosInt
    history_pairs: NonNegInt  # most recent QA pairs shown to the next-question task
    answer_words: PosInt  # words kept of each answer in the history
    max_train_claims: PosInt | None
    validation_fraction: Annotated[float, Field(gt=0, lt=1)]  # train claims held out for early stopping
    eval_every: PosFloat  # epochs between validation losses
    patience: PosInt  # validation losses without a better one before training stops
    claimdecomp: bool  # ClaimDecomp's human decompositions join the `plan:` task (data/claimdecomp)
    seed: Seed
    device: Device  # auto: cuda when present


def decomposition_examples(claims: Sequence[claimdecomp.ClaimDecompClaim]) -> list[tuple[str, str]]:
    """(source, target) `plan:` pairs from ClaimDecomp: each annotator's yes/no sub-questions of a claim."""
    return [
        (plan_source(c.text), plan_target(a.questions))
        for c in claims
        for a in c.annotations
        if any(q.strip() for q in a.questions)
    ]


def split_claims(
    claims: Sequence[averitec.Claim], fraction: float, seed: int
) -> tuple[list[averitec.Claim], list[averitec.Claim]]:
    """(fit, validation) claims: a seeded random `fraction` of the claims held out, both in input order."""
    if not 0 < fraction < 1:
        raise ValueError(f"validation fraction must be in (0, 1), got {fraction}")
    n_val = max(1, round(fraction * len(claims)))
    if n_val >= len(claims):
        raise ValueError(f"{len(claims)} claims cannot be split into fitting and validation claims")
    held = set(np.random.default_rng(seed).permutation(len(claims))[:n_val].tolist())
    return [c for i, c in enumerate(claims) if i not in held], [c for i, c in enumerate(claims) if i in held]


def training_examples(claims: Sequence[averitec.Claim], s: QGenSettings) -> list[tuple[str, str]]:
    """(source, target) pairs of both tasks for every claim with gold questions."""
    out = []
    for c in claims:
        qa = [
            (q.text, " ".join(averitec.gold_answer_text(a) for a in q.answers[:1]) or averitec.NO_ANSWER)
            for q in c.questions
            if q.text.strip()
        ]
        if not qa:
            continue
        out.append((plan_source(c.text), plan_target([q for q, _ in qa])))
        for i in range(len(qa) + 1):
            target = as_question(qa[i][0]) if i < len(qa) else verdict_target(c.label)
            out.append((next_source(c.text, qa[:i], s.history_pairs, s.answer_words), target))
    return out


# --------------------------------------------------------------------------- model


def new_model(s: QGenSettings):
    """(model, tokenizer) to train: a seq2seq checkpoint as it is, an encoder-only one warm-started."""
    from transformers import (
        AutoConfig,
        AutoModelForSeq2SeqLM,
        AutoTokenizer,
        EncoderDecoderModel,
    )

    quiet_transformers()
    path = resolve_model(s.model)
    with named_model(s.model):
        tok = AutoTokenizer.from_pretrained(path)
        if getattr(AutoConfig.from_pretrained(path), "is_encoder_decoder", False):
            return AutoModelForSeq2SeqLM.from_pretrained(path), tok
        kwargs = {"decoder_num_hidden_layers": s.decoder_layers} if s.decoder_layers else {}
        model = EncoderDecoderModel.from_encoder_decoder_pretrained(path, path, **kwargs)
    model.config.decoder_start_token_id = tok.cls_token_id
    model.config.eos_token_id = tok.sep_token_id
    model.config.pad_token_id = tok.pad_token_id
    model.generation_config.decoder_start_token_id = tok.cls_token_id
    model.generation_config.eos_token_id = tok.sep_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    return model, tok


def encoder_states(model, tok, sources: Sequence[str], max_tokens: int, device: str, batch_size: int = 64) -> list:
    """Each source's hidden states from the (frozen) encoder in eval mode, unpadded, computed once.

    A frozen encoder is a fixed function of its input, so training need not run it again every step
    (it was a third of QGEN's step time on 2 CPU cores). Float32, about 1 GB for the default 11k examples."""
    import torch

    ids = tok(list(sources), truncation=True, max_length=max_tokens)["input_ids"]
    order = sorted(range(len(ids)), key=lambda i: (len(ids[i]), i))
    out: list = [None] * len(ids)
    encoder = model.get_encoder().eval()
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            batch = tok.pad({"input_ids": [ids[i] for i in idx]}, return_tensors="pt").to(device)
            hidden = encoder(**batch).last_hidden_state
            for row, i in enumerate(idx):
                out[i] = hidden[row, : len(ids[i])].clone()
    return out


def _stack(states: Sequence[Any]):
    """(hidden, attention mask): a batch of unpadded encoder states, zero-padded to the longest."""
    import torch

    hidden = torch.nn.utils.rnn.pad_sequence(list(states), batch_first=True)
    mask = torch.zeros(hidden.shape[:2], dtype=torch.long, device=hidden.device)
    for row, h in enumerate(states):
        mask[row, : len(h)] = 1
    return hidden, mask


def target_loss(model, hidden, mask, labels):
    """Mean token cross-entropy of `labels` (-100: padding) given encoder states: what the model's own
    loss computes. A BERT decoder (the default BERT2BERT) applies its vocabulary-sized head to the target
    tokens only, not to the padding (60% of the positions with mixed plan / question / verdict targets);
    other architectures use the model's loss."""
    import torch
    from transformers.modeling_outputs import BaseModelOutput

    decoder = getattr(model, "decoder", None)
    if not (hasattr(decoder, "bert") and hasattr(decoder, "cls")):
        return model(encoder_outputs=BaseModelOutput(last_hidden_state=hidden), attention_mask=mask, labels=labels).loss
    from transformers.models.encoder_decoder.modeling_encoder_decoder import shift_tokens_right

    start, pad = model.config.decoder_start_token_id, model.config.pad_token_id
    if getattr(model, "enc_to_dec_proj", None) is not None:
        hidden = model.enc_to_dec_proj(hidden)
    states = decoder.bert(
        input_ids=shift_tokens_right(labels, pad, start), encoder_hidden_states=hidden, encoder_attention_mask=mask
    ).last_hidden_state
    keep = labels != -100
    return torch.nn.functional.cross_entropy(decoder.cls(states[keep]), labels[keep])


def batch_loss(model, tok, examples: Sequence[tuple[str, str]], idx: Sequence[int], memory, s: QGenSettings, device):
    """The mean target-token loss of a batch: from the cached states of a frozen encoder (`memory`), else
    through the encoder (trained with the decoder)."""
    texts = [examples[j][1] for j in idx]
    labels = tok(texts, padding=True, truncation=True, max_length=s.max_target_tokens, return_tensors="pt")
    labels = labels.input_ids.to(device)
    labels[labels == tok.pad_token_id] = -100
    if memory is not None:
        return target_loss(model, *_stack([memory[j] for j in idx]), labels)
    src = tok(
        [examples[j][0] for j in idx],
        padding=True,
        truncation=True,
        max_length=s.max_source_tokens,
        return_tensors="pt",
    ).to(device)
    hidden = model.get_encoder()(input_ids=src.input_ids, attention_mask=src.attention_mask).last_hidden_state
    return target_loss(model, hidden, src.attention_mask, labels)


def validation_loss(model, tok, examples: Sequence[tuple[str, str]], memory, s: QGenSettings, device) -> float:
    """Mean teacher-forced loss over the validation examples (dropout off), batch by batch."""
    import torch

    if not examples:
        return float("nan")
    model.eval()
    total, n = 0.0, 0
    with torch.inference_mode():
        order = sorted(range(len(examples)), key=lambda i: (len(examples[i][0]), i))
        for start in range(0, len(order), 64):
            idx = order[start : start + 64]
            total += float(batch_loss(model, tok, examples, idx, memory, s, device)) * len(idx)
            n += len(idx)
    model.train()
    if memory is not None:
        model.get_encoder().eval()
    return total / n


def train(
    s: QGenSettings,
    claims: Sequence[averitec.Claim],
    out_dir: Path | str = MODEL_DIR,
    progress: bool = True,
    decompositions: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """Fine-tune on both tasks (plus `decompositions`, extra `plan:` pairs, when given) with early stopping
    on the validation loss of held-out train claims; saves the best checkpoint, its tokenizer and
    `training.json` (training and validation curves, time)."""
    import torch

    TR.seed_everything(s.seed)
    device = pick_device(s.device)
    claims = list(claims)[: s.max_train_claims] if s.max_train_claims else list(claims)
    fit, val = split_claims(claims, s.validation_fraction, s.seed)
    examples = training_examples(fit, s) + list(decompositions)
    val_examples = training_examples(val, s)
    model, tok = new_model(s)
    model.to(device).train()
    memory = val_memory = None
    if s.freeze_encoder:
        for p in model.get_encoder().parameters():
            p.requires_grad = False
        memory = encoder_states(model, tok, [src for src, _ in examples], s.max_source_tokens, device)
        val_memory = encoder_states(model, tok, [src for src, _ in val_examples], s.max_source_tokens, device)
        model.get_encoder().eval()
    lengths = [len(src.split()) for src, _ in examples]
    per_epoch = TR.epoch_batches(lengths, s.batch_size, s.seed, s.epochs)
    steps = [b for epoch in per_epoch for b in epoch]
    eval_steps = max(1, round(s.eval_every * len(per_epoch[0])))
    params = [p for p in model.parameters() if p.requires_grad]
    opt = TR.adamw(model.named_parameters(), s.learning_rate, weight_decay=0.01, no_decay=())  # torch's default decay
    sched = TR.warmup_decay(opt, s.warmup, len(steps))
    curve, validation, start, running = [], [], time.perf_counter(), []
    best: dict[str, Any] = {"val_loss": float("inf"), "step": 0}
    best_state, bad_evals = None, 0
    bar = tqdm(steps, desc="train qgen", disable=not progress)
    for i, idx in enumerate(bar):
        running.append(TR.step(batch_loss(model, tok, examples, idx, memory, s, device), params, opt, sched))
        if (i + 1) % 25 == 0 or i + 1 == len(steps):
            curve.append({"step": i + 1, "loss": float(np.mean(running))})
            bar.set_postfix(loss=f"{curve[-1]['loss']:.3f}")
            running = []
        if (i + 1) % eval_steps == 0 or i + 1 == len(steps):
            loss = validation_loss(model, tok, val_examples, val_memory, s, device)
            validation.append({"step": i + 1, "epoch": round((i + 1) / len(per_epoch[0]), 3), "val_loss": loss})
            if loss < best["val_loss"]:
                best, bad_evals = {"val_loss": loss, "step": i + 1}, 0
                best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            else:
                bad_evals += 1
            if bad_evals >= s.patience:
                break
    if running:
        curve.append({"step": i + 1, "loss": float(np.mean(running))})
    if best_state is not None:
        with torch.no_grad():
            model.load_state_dict(best_state)
    report = {
        "settings": s.model_dump(),
        "device": device,
        "claims": len(claims),
        "fit_claims": len(fit),
        "validation_claims": len(val),
        "examples": len(examples),
        "decomposition_examples": len(decompositions),
        "validation_examples": len(val_examples),
        "steps": len(steps),
        "steps_run": i + 1,
        "stopped_early": i + 1 < len(steps),
        "best": best,
        "loss_curve": curve,
        "validation_curve": validation,
        "trainable_parameters": int(sum(p.numel() for p in params)),
        "parameters": int(sum(p.numel() for p in model.parameters())),
    }
    TM.measured("qgen", seconds=time.perf_counter() - start)  # the timing file, not the report (lib.timing)
    with OUT.atomic_dir(out_dir) as folder:  # the model, its tokenizer and report whole, or the old ones
        model.save_pretrained(folder)
        tok.save_pretrained(folder)
        OUT.write_json(folder / "training.json", report)
        record_weights(folder, folder / "training.json")  # the weights stay here; the record is committed
    return report


def build(s: QGenSettings, data_dir: Path | str = DATA_DIR, out_dir: Path | str = MODEL_DIR) -> dict[str, Any]:
    """Stage `qgen`: train on AVeriTeC train (and ClaimDecomp's decompositions with `claimdecomp`)."""
    data_dir = Path(data_dir)
    claims = averitec.load_averitec("train", data_dir / "averitec" / "train.json")
    decompositions = (
        [
            pair
            for split in CLAIMDECOMP_SPLITS
            for pair in decomposition_examples(
                claimdecomp.load_claimdecomp(split, data_dir / "claimdecomp" / f"{split}.jsonl")
            )
        ]
        if s.claimdecomp
        else []
    )
    return train(s, claims, out_dir, decompositions=decompositions)


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.planning.qgen_training",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--params", type=nonempty_path, default=None, help="parameter file (default: params.yaml)")
    ap.add_argument("--data-dir", type=data_folder, default=str(DATA_DIR))
    ap.add_argument("--out-dir", type=nonempty_path, default=None, help="default: the study's model folder")
    args = ap.parse_args(argv)
    # the model folder replaces what is there: another data folder or parameter file only into a named folder,
    # never data/, an input, the code or another stage's output
    given = (("--data-dir", args.data_dir, DATA_DIR), params_given(args.params))
    args.out_dir = OUT.own_output(args.out_dir, MODEL_DIR, given, "the study's QGEN model", own="qgen")
    # replaced whole once trained: a new or empty folder, or an earlier QGEN model (its training record)
    OUT.replaceable_folder(args.out_dir, "training.json", "QGEN model", ("settings", "steps_run", "loss_curve"))
    report = build(settings("qgen", args.params or PARAMS_FILE, QGenSettings), args.data_dir, args.out_dir)
    print(
        f"qgen: {report['examples']:,} examples from {report['fit_claims']:,} train claims"
        f" ({report['decomposition_examples']} ClaimDecomp), {report['steps_run']} of {report['steps']} steps on"
        f" {report['device']} in {TM.measurements()['qgen']['seconds']} s; best validation loss {report['best']['val_loss']:.3f}"
        f" at step {report['best']['step']} -> {args.out_dir}"
    )


if __name__ == "__main__":
    run_main(main)
