"""Where work that is a map over independent claims runs: this machine's processes, or a Ray cluster.

One parameter chooses (`compute.backend: local | ray`); nothing else changes. `local` runs the claims in
this process (`workers: 1`) or a process pool; `ray` runs each claim as a Ray task on the cluster at
`compute.address` (or at `$RAY_ADDRESS`, Ray's own setting; with neither, Ray starts an instance on this
machine). Ray schedules, retries lost workers and moves the results; this module only hands it the claims
and puts the results back in the claims' order, so both backends return the same list.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Literal, TypeVar, get_args

from tqdm import tqdm

from lib.params import PosFloat, PosInt, Section, Text
from lib.paths import ROOT

# --------------------------------------------------------------------------- params

Backend = Literal["local", "ray"]


class ComputeSection(Section):
    """Where per-claim work runs (lib.compute.ComputeSettings): this machine's processes or a Ray cluster."""

    backend: Backend
    workers: PosInt  # local processes (1: the stage's own process); Ray: CPUs of a local instance
    address: Text | None  # the Ray cluster (null: $RAY_ADDRESS, else a Ray instance on this machine)
    cpus_per_task: PosFloat


BACKENDS: tuple[str, ...] = get_args(Backend)
T = TypeVar("T")
R = TypeVar("R")
# not shipped to a remote cluster's workers with the code (`runtime_env.working_dir`)
NOT_SHIPPED = [".venv/", "data/", "outputs/", "reports/", "workspaces/", ".git/", ".dvc/cache/", "nltk_data/"]


@dataclass(frozen=True)
class ComputeSettings:
    """`backend`: local or ray; `workers`: local processes (1: this process); `address`: the Ray cluster
    (None: `$RAY_ADDRESS`, else a Ray instance on this machine); `cpus_per_task`: Ray's `num_cpus` per claim."""

    backend: str = "local"
    workers: int = 1
    address: str | None = None
    cpus_per_task: float = 1.0

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"compute.backend {self.backend!r}: expected one of {BACKENDS}")
        if self.workers < 1:
            raise ValueError(f"compute.workers must be >= 1 (got {self.workers})")
        if self.cpus_per_task <= 0:
            raise ValueError(f"compute.cpus_per_task must be > 0 (got {self.cpus_per_task})")


def from_params(p: dict) -> ComputeSettings:
    """The `compute` section of params.yaml (checked by lib.params) as settings."""
    return ComputeSettings(p["backend"], p["workers"], p["address"], p["cpus_per_task"])


def _ray(settings: ComputeSettings):
    """Ray, connected: to `address` (shipping this checkout's code, not its data) or a local instance."""
    import ray

    if not ray.is_initialized():
        address = settings.address or os.environ.get("RAY_ADDRESS")
        if address:
            ray.init(address=address, runtime_env={"working_dir": str(ROOT), "excludes": NOT_SHIPPED})
        else:
            ray.init(num_cpus=settings.workers, include_dashboard=False, log_to_driver=False)
    return ray


def map_claims(
    fn: Callable[[T], R], items: Sequence[T], settings: ComputeSettings = ComputeSettings(), desc: str = "claims"
) -> list[R]:
    """`[fn(item) for item in items]` on the chosen backend, in the items' order (`fn` must be a
    module-level function: it travels to other processes by name)."""
    items = list(items)
    bar = tqdm(total=len(items), desc=f"{desc} ({settings.backend})", disable=not items)
    try:
        if settings.backend == "ray":
            ray = _ray(settings)
            task = ray.remote(num_cpus=settings.cpus_per_task)(fn)
            refs = [task.remote(item) for item in items]
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                bar.update(len(done))
            return ray.get(refs)
        if settings.workers == 1 or len(items) < 2:
            out = []
            for item in items:
                out.append(fn(item))
                bar.update()
            return out
        with ProcessPoolExecutor(min(settings.workers, len(items))) as pool:
            out = []
            for r in pool.map(fn, items):
                out.append(r)
                bar.update()
            return out
    finally:
        bar.close()
