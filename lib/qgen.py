"""QGEN: a small seq2seq query generator distilled from the annotators' questions (AVeriTeC train).

The thesis fine-tuned flan-t5-large on oracle queries; no T5 weights ship offline, so the default warm-starts
an encoder-decoder from the bundled MiniLM (`EncoderDecoderModel.from_encoder_decoder_pretrained`, a BERT2BERT
model with new cross-attention). `qgen.model` takes any local path or Hugging Face name: an encoder-only
checkpoint is warm-started the same way, a seq2seq checkpoint (t5, bart) is fine-tuned as it is.

One model learns two tasks, told apart by a prefix (T5 habit):
- `plan: <claim>` -> all its gold questions ("q1? q2? q3?"): the QGEN planner (all questions at once);
- `next: <claim> || <q1> <a1> || ...` -> the next gold question, or `verdict: <label>` after the last
  pair: the question generator of multi-hop pursuit (`lib.pursuit`, Papelo's Seq+Seq), which stops
  when it writes a verdict. Answers in training are the gold answers; in pursuit, the retrieved ones.

CPU defaults (params `qgen`) keep training within about 15 minutes on 2 cores: a 3-layer decoder, a frozen
encoder, one epoch. `python -m lib.qgen` trains and saves to `outputs/models/qgen` (a DVC output).
"""
from __future__ import annotations

import argparse
import json
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from lib.config import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE, section
from lib.data import averitec
from lib.labels import AVERITEC_LABELS

MODEL_DIR = OUTPUTS_DIR / "models" / "qgen"
SEP = " || "
VERDICT = "verdict:"


@dataclass
class QGenSettings:
    """The `qgen` params section."""

    model: str = "sentence-transformers/all-MiniLM-L6-v2"  # encoder-only: warm-started BERT2BERT
    decoder_layers: int | None = 3      # warm-started decoder depth (None: as deep as the encoder)
    freeze_encoder: bool = True
    epochs: int = 1
    batch_size: int = 16
    learning_rate: float = 1e-4
    warmup: float = 0.05                # fraction of the steps with a linear warm-up
    max_source_tokens: int = 128
    max_target_tokens: int = 64
    history_pairs: int = 4              # most recent QA pairs shown to the next-question task
    answer_words: int = 30              # words kept of each answer in the history
    max_train_claims: int | None = None
    seed: int = 0
    device: str = "auto"                # auto: cuda when present
    num_beams: int = 4
    max_new_tokens: int = 64
    max_questions: int = 5              # questions kept from a QGEN plan

    @classmethod
    def from_params(cls, p: Mapping[str, Any] | None) -> "QGenSettings":
        p = dict(p or {})
        unknown = sorted(set(p) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"params qgen: unknown keys {unknown}")
        return cls(**p)


# --------------------------------------------------------------------------- the two tasks' texts

def _question(text: str) -> str:
    q = " ".join(text.split()).rstrip(" .")
    return q if q.endswith("?") else q + "?"


def plan_source(claim: str) -> str:
    return "plan: " + " ".join(claim.split())


def plan_target(questions: Sequence[str]) -> str:
    return " ".join(_question(q) for q in questions)


def next_source(claim: str, pairs: Sequence[tuple[str, str]], history_pairs: int = 4, answer_words: int = 30) -> str:
    """The claim and the most recent QA pairs (answers cut to `answer_words` words)."""
    shown = [f"{_question(q)} {' '.join(a.split()[:answer_words])}" for q, a in pairs[-history_pairs:]] if history_pairs else []
    return SEP.join(["next: " + " ".join(claim.split()), *shown])


def verdict_target(label: str) -> str:
    return f"{VERDICT} {label}"


def split_questions(text: str) -> list[str]:
    """Generated text -> distinct questions (split after each '?'; a tail without one is dropped)."""
    out, seen = [], set()
    for q in re.findall(r"[^?]*\?", text):
        q = " ".join(q.split()).replace(" ?", "?")
        if len(q) > 1 and q.lower() not in seen:
            seen.add(q.lower())
            out.append(q)
    return out


def parse_next(text: str) -> tuple[str, str]:
    """("verdict", label) when the model wrote a verdict (mapped to an AVeriTeC label), else ("question", q)."""
    t = " ".join(text.split())
    m = re.match(r"verdict\s*:\s*", t, re.IGNORECASE)  # decoded BERT text reads "verdict : refuted"
    if m:
        said = t[m.end():].lower().replace(" / ", "/")
        for label in sorted(AVERITEC_LABELS, key=len, reverse=True):
            if said.startswith(label.lower()[:12]):
                return "verdict", label
        return "verdict", said
    qs = split_questions(t)
    return "question", qs[0] if qs else _question(t) if t else ""


def training_examples(claims: Sequence[averitec.Claim], s: QGenSettings) -> list[tuple[str, str]]:
    """(source, target) pairs of both tasks for every claim with gold questions."""
    out = []
    for c in claims:
        qa = [(q.text, " ".join(averitec.gold_answer_text(a) for a in q.answers[:1]) or averitec.NO_ANSWER) for q in c.questions
              if q.text.strip()]
        if not qa:
            continue
        out.append((plan_source(c.text), plan_target([q for q, _ in qa])))
        for i in range(len(qa) + 1):
            target = _question(qa[i][0]) if i < len(qa) else verdict_target(c.label)
            out.append((next_source(c.text, qa[:i], s.history_pairs, s.answer_words), target))
    return out


# --------------------------------------------------------------------------- model

def _device(name: str) -> str:
    import torch

    return ("cuda" if torch.cuda.is_available() else "cpu") if name == "auto" else name


def _quiet_transformers() -> None:
    from transformers.utils import logging

    logging.set_verbosity_error()  # warm-starting reports every new cross-attention weight as missing


def new_model(s: QGenSettings):
    """(model, tokenizer) to train: a seq2seq checkpoint as it is, an encoder-only one warm-started."""
    from transformers import (
        AutoConfig,
        AutoModelForSeq2SeqLM,
        AutoTokenizer,
        EncoderDecoderModel,
    )

    from lib.retrieval import resolve_model

    _quiet_transformers()
    path = resolve_model(s.model)
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


def batches(n_lengths: Sequence[int], batch_size: int, seed: int) -> list[list[int]]:
    """Shuffled batches of similar source length (less padding): shuffle, sort within windows of 50
    batches, shuffle the batches. Deterministic for a seed."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(n_lengths))
    window = batch_size * 50
    out = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start:start + window], key=lambda i: (n_lengths[i], i))
        out.extend(chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size))
    return [out[i] for i in rng.permutation(len(out))]


def train(s: QGenSettings, claims: Sequence[averitec.Claim], out_dir: Path | str = MODEL_DIR, progress: bool = True
          ) -> dict[str, Any]:
    """Fine-tune on both tasks; saves the model, its tokenizer and `training.json` (loss curve, time)."""
    import torch
    from tqdm import tqdm

    torch.manual_seed(s.seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
    device = _device(s.device)
    claims = list(claims)[: s.max_train_claims] if s.max_train_claims else list(claims)
    examples = training_examples(claims, s)
    model, tok = new_model(s)
    if s.freeze_encoder:
        for p in model.get_encoder().parameters():
            p.requires_grad = False
    model.to(device).train()
    lengths = [len(src.split()) for src, _ in examples]
    steps = [b for _ in range(s.epochs) for b in batches(lengths, s.batch_size, s.seed + _)]
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=s.learning_rate)
    warm = max(1, int(s.warmup * len(steps)))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda i: min((i + 1) / warm, max(0.0, (len(steps) - i) / max(1, len(steps) - warm))))
    curve, start, running = [], time.perf_counter(), []
    bar = tqdm(steps, desc="train qgen", disable=not progress)
    for i, idx in enumerate(bar):
        src = tok([examples[j][0] for j in idx], padding=True, truncation=True, max_length=s.max_source_tokens,
                  return_tensors="pt").to(device)
        labels = tok([examples[j][1] for j in idx], padding=True, truncation=True, max_length=s.max_target_tokens,
                     return_tensors="pt").input_ids
        labels[labels == tok.pad_token_id] = -100
        loss = model(input_ids=src.input_ids, attention_mask=src.attention_mask, labels=labels.to(device)).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        running.append(loss.item())
        if (i + 1) % 25 == 0 or i + 1 == len(steps):
            curve.append({"step": i + 1, "loss": float(np.mean(running))})
            bar.set_postfix(loss=f"{curve[-1]['loss']:.3f}")
            running = []
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    report = {"settings": asdict(s), "device": device, "claims": len(claims), "examples": len(examples),
              "steps": len(steps), "seconds": round(time.perf_counter() - start, 1), "loss_curve": curve,
              "trainable_parameters": int(sum(p.numel() for p in params)),
              "parameters": int(sum(p.numel() for p in model.parameters()))}
    (out_dir / "training.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


class Generator:
    """A trained QGEN model: `plans(claims)` and `next(sources)`; batched, beam search, deterministic."""

    def __init__(self, model_dir: Path | str = MODEL_DIR, settings: QGenSettings | None = None):
        import torch
        from transformers import (
            AutoConfig,
            AutoModelForSeq2SeqLM,
            AutoTokenizer,
            EncoderDecoderModel,
        )

        _quiet_transformers()
        model_dir = Path(model_dir)
        if not (model_dir / "config.json").exists():
            raise FileNotFoundError(f"{model_dir} holds no trained model: run `dvc repro qgen` (python -m lib.qgen)")
        self.s = settings or QGenSettings.from_params(json.loads((model_dir / "training.json").read_text())["settings"])
        self.device = _device(self.s.device)
        cls = EncoderDecoderModel if AutoConfig.from_pretrained(model_dir).model_type == "encoder-decoder" \
            else AutoModelForSeq2SeqLM
        self.model = cls.from_pretrained(model_dir).to(self.device).eval()
        self.tok = AutoTokenizer.from_pretrained(model_dir)
        self._torch = torch

    def generate(self, sources: Sequence[str], num_return: int = 1, batch_size: int = 32,
                 max_new_tokens: int | None = None) -> list[list[str]]:
        """`num_return` beam outputs per source (best first)."""
        out: list[list[str]] = []
        beams = max(self.s.num_beams, num_return)
        with self._torch.inference_mode():
            for i in range(0, len(sources), batch_size):
                enc = self.tok(list(sources[i:i + batch_size]), padding=True, truncation=True,
                               max_length=self.s.max_source_tokens, return_tensors="pt").to(self.device)
                ids = self.model.generate(input_ids=enc.input_ids, attention_mask=enc.attention_mask,
                                          num_beams=beams, num_return_sequences=num_return, do_sample=False,
                                          max_new_tokens=max_new_tokens or self.s.max_new_tokens)
                texts = self.tok.batch_decode(ids, skip_special_tokens=True)
                out.extend(texts[j:j + num_return] for j in range(0, len(texts), num_return))
        return out

    def plans(self, claims: Sequence[averitec.Claim], batch_size: int = 32) -> dict[int, list[str]]:
        """The QGEN plan of each claim: up to `max_questions` distinct questions."""
        texts = self.generate([plan_source(c.text) for c in claims], batch_size=batch_size)
        return {c.claim_id: split_questions(t[0])[: self.s.max_questions] for c, t in zip(claims, texts)}

    def next_source(self, claim: averitec.Claim, pairs: Sequence[tuple[str, str]]) -> str:
        return next_source(claim.text, pairs, self.s.history_pairs, self.s.answer_words)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m lib.qgen", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", default=str(PARAMS_FILE))
    ap.add_argument("--data-dir", default=str(DATA_DIR))
    ap.add_argument("--out-dir", default=str(MODEL_DIR))
    args = ap.parse_args(argv)
    s = QGenSettings.from_params(section("qgen", args.params))
    claims = averitec.load_averitec("train", Path(args.data_dir) / "averitec" / "train.json")
    report = train(s, claims, args.out_dir)
    print(f"qgen: {report['examples']:,} examples from {report['claims']:,} train claims, {report['steps']} steps "
          f"on {report['device']} in {report['seconds']} s; final loss {report['loss_curve'][-1]['loss']:.3f} "
          f"-> {args.out_dir}")


if __name__ == "__main__":
    main()
