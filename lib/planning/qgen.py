"""QGEN inference: a trained QGEN model (stage `qgen`, `lib.planning.qgen_training`) writing query plans and
next questions. Beam search and output lengths are inference settings (params `generative.qgen`); the
texts' shapes (source length, history) are the model's own, read from its `training.json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import ConfigDict

from lib import models as MD
from lib import outputs as OUT
from lib.cli import NamedError
from lib.data import averitec
from lib.models import pick_device, quiet_transformers
from lib.params import Device, NonNegInt, PosInt, Section
from lib.paths import DATA_DIR, PARAMS_FILE
from lib.planning.qgen_text import MODEL_DIR, VERDICT, next_source, plan_questions, plan_source

# --------------------------------------------------------------------------- params


class Decoding(Section):
    """How QGEN writes (params `generative.qgen`): inference only, so changing it never retrains QGEN."""

    params_complete = True

    model_config = ConfigDict(frozen=True)

    num_beams: PosInt
    max_new_tokens: PosInt
    max_questions: PosInt  # questions kept from a QGEN plan
    no_repeat_ngram_size: NonNegInt = 0  # no word-piece n-gram of this size twice in an output (0: allowed)
    device: Device = "auto"  # auto: cuda when present


def ensure_weights(params: Path | str, data_dir: Path | str = DATA_DIR, model_dir: Path | str = MODEL_DIR) -> None:
    """Train QGEN as stage `qgen` does where `model_dir` holds no weights for its `training.json` (a fresh
    clone: the stage commits its record, not its weights)."""
    study_model = Path(model_dir).resolve() == Path(MODEL_DIR).resolve()
    other = Path(params).resolve() != PARAMS_FILE.resolve() or Path(data_dir).resolve() != DATA_DIR.resolve()
    if study_model and other and not MD.holds_weights(model_dir, Path(model_dir) / "training.json"):
        # qgen_training refuses the study's model folder for another input, with advice for a flag callers lack
        raise NamedError(
            f"{model_dir}: no QGEN weights, and they are trained from the study's params.yaml and data/ only: run "
            "`dvc repro qgen` (or `python -m lib.planning.qgen_training`) first, then this command"
        )
    cmd = ["-m", "lib.planning.qgen_training", "--params", str(params), "--data-dir", str(data_dir)]
    MD.ensure_weights(model_dir, Path(model_dir) / "training.json", [*cmd, "--out-dir", str(model_dir)])


class Generator:
    """A trained QGEN model: `plans(claims)` and `next(sources)`; batched, beam search, deterministic."""

    def __init__(self, decoding: Decoding, model_dir: Path | str = MODEL_DIR):
        import torch
        from transformers import (
            AutoConfig,
            AutoModelForSeq2SeqLM,
            AutoTokenizer,
            EncoderDecoderModel,
        )

        quiet_transformers()
        model_dir = Path(model_dir)
        if not MD.holds_weights(model_dir, model_dir / "training.json"):
            raise NamedError(
                f"{model_dir} holds no weights for its training.json (a fresh clone has the record only):"
                " run `python -m lib.planning.qgen_training` (stage qgen's training)"
            )
        trained = OUT.read_json(model_dir / "training.json")["settings"]
        self.decoding = decoding
        self.max_source_tokens = int(trained["max_source_tokens"])
        self.history_pairs, self.answer_words = int(trained["history_pairs"]), int(trained["answer_words"])
        self.device = pick_device(decoding.device)
        cls = (
            EncoderDecoderModel
            if AutoConfig.from_pretrained(model_dir).model_type == "encoder-decoder"
            else AutoModelForSeq2SeqLM
        )
        self.model = cls.from_pretrained(model_dir).to(self.device).eval()
        self.tok = AutoTokenizer.from_pretrained(model_dir)
        self._torch = torch

    def _encode(self, sources: Sequence[str]):
        return self.tok(
            list(sources), padding=True, truncation=True, max_length=self.max_source_tokens, return_tensors="pt"
        ).to(self.device)

    def generate(
        self, sources: Sequence[str], num_return: int = 1, batch_size: int = 32, max_new_tokens: int | None = None
    ) -> list[list[str]]:
        """`num_return` beam outputs per source (best first)."""
        out: list[list[str]] = []
        beams = max(self.decoding.num_beams, num_return)
        with self._torch.inference_mode():
            for i in range(0, len(sources), batch_size):
                enc = self._encode(sources[i : i + batch_size])
                ids = self.model.generate(
                    input_ids=enc.input_ids,
                    attention_mask=enc.attention_mask,
                    num_beams=beams,
                    num_return_sequences=num_return,
                    do_sample=False,
                    max_new_tokens=max_new_tokens or self.decoding.max_new_tokens,
                    no_repeat_ngram_size=self.decoding.no_repeat_ngram_size,
                )
                texts = self.tok.batch_decode(ids, skip_special_tokens=True)
                out.extend(texts[j : j + num_return] for j in range(0, len(texts), num_return))
        return out

    def plans(self, claims: Sequence[averitec.Claim], batch_size: int = 32) -> dict[int, list[str]]:
        """The QGEN plan of each claim: up to `max_questions` distinct questions (`plan_questions` over the
        beam outputs, so a plan is empty only when the model writes nothing at all)."""
        texts = self.generate(
            [plan_source(c.text) for c in claims], num_return=self.decoding.num_beams, batch_size=batch_size
        )
        return {c.claim_id: plan_questions(t, self.decoding.max_questions) for c, t in zip(claims, texts)}

    def next_source(self, claim: averitec.Claim, pairs: Sequence[tuple[str, str]]) -> str:
        return next_source(claim.text, pairs, self.history_pairs, self.answer_words)

    def verdict_probability(self, sources: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """P(the output starts with `verdict`) for each `next:` source: the model's own stop decision, read
        from its first decoding step. Beam search cannot make this decision: it compares whole sequences,
        and a 4-token verdict beats any 12-token question on total log-probability."""
        torch = self._torch
        first_id = self.tok(VERDICT.rstrip(":"), add_special_tokens=False).input_ids[0]
        start = self.model.generation_config.decoder_start_token_id
        out = []
        with torch.inference_mode():
            for i in range(0, len(sources), batch_size):
                enc = self._encode(sources[i : i + batch_size])
                dec = torch.full((len(enc.input_ids), 1), start, dtype=torch.long, device=self.device)
                logits = self.model(
                    input_ids=enc.input_ids, attention_mask=enc.attention_mask, decoder_input_ids=dec
                ).logits
                out.append(torch.softmax(logits[:, 0, :].float(), dim=-1)[:, first_id].cpu().numpy())
        return np.concatenate(out) if out else np.zeros(0)
