"""Where work that is a map over independent claims runs: this machine's processes, or a Ray cluster.

One parameter chooses (`compute.backend: local | ray`); nothing else changes. `local` runs the claims in
this process (`workers: 1`) or a process pool; `ray` runs each claim as a Ray task on the cluster at
`compute.address` (or at `$RAY_ADDRESS`, Ray's own setting; with neither, Ray starts an instance on this
machine). Ray schedules, retries lost workers and moves the results; this module only hands it the claims
and puts the results back in the claims' order, so both backends return the same list.
"""

from __future__ import annotations

import importlib.util
import logging
import multiprocessing as mp
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Literal, TypeVar, get_args

from pydantic import ConfigDict, model_validator
from tqdm import tqdm

from lib.cli import NamedError, die_with, env_bound, first_line
from lib.params import PosFloat, PosInt, Section, Text
from lib.paths import ROOT

# --------------------------------------------------------------------------- params

Backend = Literal["local", "ray"]


class ComputeSettings(Section):
    """Params section `compute`: where per-claim work runs. `backend`: local or ray; `workers`: local
    processes (1: this process), or the CPUs of a Ray instance started here; `address`: the Ray cluster
    (None: `$RAY_ADDRESS`, else a Ray instance on this machine); `cpus_per_task`: Ray's `num_cpus` per claim."""

    params_complete = True

    model_config = ConfigDict(frozen=True)

    backend: Backend = "local"
    workers: PosInt = 1
    address: Text | None = None
    cpus_per_task: PosFloat = 1.0

    @model_validator(mode="after")
    def _address_needs_ray(self) -> ComputeSettings:
        """An address with the local backend was ignored: the work ran here while the user meant a cluster."""
        if self.address is not None and self.backend != "ray":
            raise ValueError(
                f"address {self.address!r} is a Ray cluster's, and backend is {self.backend!r}: set backend ray "
                "(--backend ray) to use it, or leave address out"
            )
        return self


BACKENDS: tuple[str, ...] = get_args(Backend)
T = TypeVar("T")
R = TypeVar("R")
# not shipped to a remote cluster's workers with the code (`runtime_env.working_dir`)
NOT_SHIPPED = [".venv/", "data/", "outputs/", "reports/", "workspaces/", ".git/", ".dvc/cache/", "nltk_data/"]


RAY_CONNECT_TIMEOUT_S = 15.0  # how long a Ray address may take to answer before the stage gives up
# how long `ray.init` may take once the address answers (a local start, a cluster shipping this checkout):
# a port that answers but is no Ray cluster kept it waiting for good
RAY_INIT_TIMEOUT_S = 120.0
# how long Ray tasks may run with none of them finishing: workers that died as they started (an mmap refused
# under a memory limit) left the command at 0 of N claims for good. Raise it with $LIB_RAY_STALL_S.
RAY_STALL_S = env_bound("LIB_RAY_STALL_S", 1800)


class ComputeError(NamedError):
    """A compute setting that cannot work: an address that does not answer or cannot be read."""


def check_reachable(address: str, timeout_s: float = RAY_CONNECT_TIMEOUT_S) -> None:
    """A named error unless something answers at the Ray `address` (`[ray://]host:port`) within `timeout_s`
    seconds: Ray itself would wait for minutes at 0 of N claims. `auto` is left to Ray."""
    if address == "auto":
        return
    host, _, port = address.split("://", 1)[-1].rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:  # `:99999` "did not answer"
        raise ComputeError(f"compute.address {address!r}: expected [ray://]host:port, a port from 1 to 65535 (or auto)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            pass
    except OSError as err:
        raise ComputeError(
            f"the Ray cluster at {address!r} did not answer within {timeout_s:g} s ({err.strerror or err}); "
            "check compute.address or $RAY_ADDRESS"
        ) from None


def _ray(settings: ComputeSettings):
    """Ray, connected: to `address` (shipping this checkout's code, not its data) or a local instance. Ray's
    own log lines below errors are left out (a wall of retries came before the one error line), unless
    $RAY_BACKEND_LOG_LEVEL says otherwise."""
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")
    import ray

    if not ray.is_initialized():
        address = settings.address or os.environ.get("RAY_ADDRESS")
        if address:
            if address.startswith("ray://") and importlib.util.find_spec("grpc") is None:
                raise ComputeError(
                    f"compute.address {address!r}: the ray:// form needs Ray's client (pip install 'ray[client]'); "
                    "or give the cluster's host:port"
                )
            check_reachable(address)
            _connect(
                ray,
                address,
                runtime_env={"working_dir": str(ROOT), "excludes": NOT_SHIPPED},
                logging_level=logging.ERROR,  # "SIGTERM handler is not set" (it is ours) before the error line
            )
        else:
            _start_local(ray, min(settings.workers, usable_cpus()))  # as the local pool: no more than the CPUs here
    return ray


def _start_local(ray, workers: int) -> None:
    """A local Ray instance, started in this (the main) thread, with the command's SIGTERM and SIGINT
    handlers kept: Ray puts its own, which exited with status 15 and left its agents running. A signal that
    reaches Ray's handler while it starts is passed on to the command's (every child stopped, 143/130)."""
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}

    def pass_on(signum: int) -> None:
        if callable(handlers[signum]):
            handlers[signum](signum, None)  # lib.cli's: stops the children, Ray's too, and exits

    try:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    except SystemExit as stop:  # Ray's SIGTERM handler ran: sys.exit(15)
        if stop.code == signal.SIGTERM:
            pass_on(signal.SIGTERM)
        raise
    except KeyboardInterrupt:
        pass_on(signal.SIGINT)
        raise
    except Exception as err:  # noqa: BLE001 - Ray's own errors (a node that timed out starting, no memory left)
        raise ComputeError(
            f"a local Ray instance could not start ({type(err).__name__}: {first_line(err, 200)}); "
            "use compute.backend: local (the process pool), or give Ray more memory and time"
        ) from None
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)


def _connect(ray, address: str, timeout_s: float = RAY_INIT_TIMEOUT_S, **kwargs: Any) -> None:
    """`ray.init(address=address, **kwargs)` bounded by `timeout_s`, a failure as one named line. It runs in
    a thread of its own, so a wait past the bound is given up (the thread is a daemon: it does not hold the
    exit) and Ray leaves this command's SIGTERM and SIGINT handlers in place. (A local start cannot run so:
    Ray ties the processes it starts to the thread that started them.)"""
    done, failed = threading.Event(), []

    def connect() -> None:
        try:
            ray.init(address=address, **kwargs)
        except Exception as err:  # noqa: BLE001 - named below, in the command's thread
            failed.append(err)
        finally:
            done.set()

    threading.Thread(target=connect, name="ray-init", daemon=True).start()
    if not done.wait(timeout_s):
        raise ComputeError(
            f"the Ray cluster at {address!r} did not connect within {timeout_s:g} s (a port that answers but is no "
            "Ray cluster?); check compute.address or $RAY_ADDRESS"
        )
    if failed:
        first = first_line(failed[0], 300)
        raise ComputeError(
            f"the Ray cluster at {address!r} could not be used ({type(failed[0]).__name__}: {first}); "
            "check compute.address or $RAY_ADDRESS, and whether the cluster wants an authentication token "
            "(Ray starts clusters with token authentication unless RAY_AUTH_MODE=disabled)"
        )


def map_claims(
    fn: Callable[[T], R], items: Sequence[T], settings: ComputeSettings = ComputeSettings(), desc: str = "claims"
) -> list[R]:
    """`[fn(item) for item in items]` on the chosen backend, in the items' order (`fn` must be a
    module-level function: it travels to other processes by name)."""
    items = list(items)
    bar = tqdm(total=len(items), desc=f"{desc} ({settings.backend})", disable=not items)
    try:
        if settings.backend == "ray":
            handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
            ray = _ray(settings)
            task = ray.remote(num_cpus=settings.cpus_per_task)(fn)
            refs = [task.remote(item) for item in items]
            pending, last = list(refs), time.monotonic()
            while pending:
                for s, handler in handlers.items():  # Ray's core worker puts its own SIGTERM handler back once
                    signal.signal(s, handler)  # tasks run (a stack dump, status 134, its workers orphaned)
                done, pending = ray.wait(pending, num_returns=1, timeout=WAKE_SECONDS)  # wakes for a signal
                if done:  # an update of 0 redrew the bar four times a second
                    bar.update(len(done))
                    last = time.monotonic()
                if time.monotonic() - last > RAY_STALL_S:
                    raise ComputeError(
                        f"no Ray task finished in {RAY_STALL_S} s ({len(pending)} of {len(refs)} {desc} left): its "
                        "workers may have died (Ray's logs: /tmp/ray/session_latest/logs); set $LIB_RAY_STALL_S "
                        "for longer tasks"
                    )
            return ray.get(refs)
        if settings.workers == 1 or len(items) < 2:
            out = []
            for item in items:
                out.append(fn(item))
                bar.update()
            return out
        out = []
        for r in forked_map(fn, items, min(settings.workers, len(items)), desc):
            out.append(r)
            bar.update()
        return out
    finally:
        bar.close()


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system says, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


WAKE_SECONDS = 0.25  # the longest a waiting command leaves a SIGTERM or SIGINT unhandled


def in_order(futures: Sequence[Future[R]]) -> Iterator[R]:
    """The futures' results in their order, waited for in short steps: a signal the system hands to another
    thread (the pool's manager, a queue's feeder) is handled by the main thread only when it wakes, and a wait
    without a timeout does not wake until the next result comes (a minute, for a long task). Futures not
    reached are cancelled when the reader stops early."""
    try:
        for future in futures:
            while not wait([future], timeout=WAKE_SECONDS).done:
                pass
            yield future.result()
    finally:
        for future in futures:
            future.cancel()


def forked_map(
    fn: Callable[[T], R], items: Iterable[T], workers: int, what: str, initializer: Callable[[], None] | None = None
) -> Iterator[R]:
    """`map(fn, items)` over `workers` forked processes, in the items' order (the workers inherit what the
    parent loaded, such as a module-level job). A worker that dies (killed, out of memory) ends the command
    with a `ComputeError` naming `what`, never a hang: `multiprocessing.Pool` waits forever for the task of a
    worker that was killed."""
    parent = os.getpid()
    if workers > (cpus := usable_cpus()):  # more processes than CPUs: no faster, each a copy of the parent's memory
        sys.stderr.write(f"note: {what}: {workers} workers asked for, {cpus} CPU(s) here: running {cpus}\n")
        workers = cpus

    def start() -> None:
        die_with(parent)
        if initializer is not None:
            initializer()

    try:
        with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"), initializer=start) as pool:
            yield from in_order([pool.submit(fn, item) for item in items])
    except BrokenProcessPool:
        raise ComputeError(
            f"{what}: a worker process died (killed, or out of memory?) before it finished; nothing was written, "
            "run the command again (with fewer workers if memory ran out)"
        ) from None
