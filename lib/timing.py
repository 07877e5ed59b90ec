"""Wall time of each pipeline stage, measured where it runs and kept apart from the study's numbers.

Every stage command in `dvc.yaml` is `python -m lib.timing run -- <command>`: the command runs as a
child process with the same arguments and environment, and when it succeeds the wall time lands in
`outputs/timings/<stage>.json` (the stage name is DVC's `DVC_STAGE`). A failed or killed command writes
nothing and keeps its exit status, so a timing file always belongs to a finished run. The timings are not
a DVC output and no stage reads them: they never make a stage stale, and `lib.closure` leaves this
module out of the stages' deps.

`python -m lib.timing table` prints the stages' timings (in `dvc.yaml` order) as a Markdown table;
`python -m lib.timing table --readme README.md` writes it between the README's timing markers, so the
README's table comes from a run, not from typing.

**The compute budget.** FEVER-8 bounded a system's cost (seconds per claim on named hardware). A stage
calls `cost(planner, kind, seconds, claims, ...)` for each planner's share of its work (kind: planning,
retrieval, verification); under the timer these lines go to a scratch file whose path the child reads
from `$LIB_TIMING_COSTS`, and the timing file of a finished stage gets them as `per_claim` with the
machine's `hardware()`. Outside the timer (tests, a notebook) `cost` records nothing. `lib.analysis.budget` reads
them back (notebook 06's cost against evidence quality).

**Other measured seconds** (a training's, a scorer's) go the same way: `measured(name, **seconds)` lands
under `measured` in the stage's timing file and `measurement(stage, name)` reads it back. No stage output
holds a wall-clock number, so a rerun that reproduces the numbers reproduces the files byte for byte and
leaves the stages after it up to date.
"""

from __future__ import annotations

import json
import numbers
import os
import platform
import re
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lib import outputs as OUT
from lib.cli import NamedError, die_with, first_line, not_a_file, outs_of, run_main, shown, writer_gone
from lib.closure import ROOT, stages

TIMINGS_DIR = ROOT / "outputs" / "timings"
BEGIN, END = "<!-- timings: begin (python -m lib.timing table --readme README.md) -->", "<!-- timings: end -->"


COSTS_ENV = "LIB_TIMING_COSTS"
KINDS = ("planning", "retrieval", "verification")
STOPS = (signal.SIGTERM, signal.SIGINT)
PARENT_POLL_SECONDS = 1.0  # how often the timer checks that the process that started it (DVC) still runs


def hardware() -> dict[str, Any]:
    """The machine, named: CPU model, cores, memory (GPUs are named by the stage, as each cost's `device`)."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        memory = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        memory = None
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": memory, "machine": platform.machine()}


def cost(
    planner: str,
    kind: str,
    seconds: float,
    claims: int,
    part: str = "",
    device: str = "cpu",
    how: str = "measured",
) -> dict[str, Any]:
    """Record `planner`'s `seconds` of `kind` work over `claims` claims in this stage's timing file.

    `part` says which piece of the stage (a retriever and scope), `how` whether the seconds were measured
    for the planner alone or are its share of pooled work. Returns the record; writes it only under the
    timer (`$LIB_TIMING_COSTS` set)."""
    if kind not in KINDS:
        raise ValueError(f"cost kind {kind!r}: expected one of {KINDS}")
    real = isinstance(seconds, numbers.Real) and not isinstance(seconds, bool)  # numpy's floats too
    count = isinstance(claims, numbers.Integral) and not isinstance(claims, bool)
    if not (real and count and _amount(float(seconds)) and claims >= 0):
        raise ValueError(
            f"cost of {planner!r}: seconds {seconds!r} and claims {claims!r} must be finite, non-negative numbers "
            "(claims a count)"
        )
    rec = {
        "planner": planner,
        "kind": kind,
        "part": part,
        "seconds": round(float(seconds), 4),
        "claims": int(claims),
        "seconds_per_claim": round(float(seconds) / claims, 6) if claims else None,
        "device": device,
        "how": how,
    }
    _append(rec)
    return rec


def _append(rec: dict[str, Any]) -> None:
    """One line into the timer's scratch file, when the command runs under the timer. `$LIB_TIMING_COSTS` set
    by hand to another file (a pipe waited for a reader; a params file got JSON lines appended) is refused."""
    path = os.environ.get(COSTS_ENV)
    if not path:
        return
    if not path.endswith(".costs.tmp") or not os.path.isfile(path):  # the timer makes it before the command runs
        raise NamedError(
            f"${COSTS_ENV}: {shown(path, 80)}: not the timer's scratch file (a regular <stage>.costs.tmp file the "
            "timer made); unset it (`python -m lib.timing run -- ...` sets it)"
        )
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(rec) + "\n")


_MEASURED: dict[str, dict[str, float]] = {}


def measured(name: str, **values: float) -> dict[str, float]:
    """Record `name`'s measured seconds (`values`: seconds, examples per second...) in this stage's timing
    file, under `measured` (under the timer only, as `cost`), and in this process (`measurements()`)."""
    if not all(_amount(v) for v in values.values()):  # the check a timing file's reader makes (measured_in)
        raise ValueError(f"measured {name!r}: {values} must be finite, non-negative numbers")
    rec = {k: round(float(v), 2) for k, v in values.items()}
    _MEASURED[name] = rec
    _append({"measured": name, "values": rec})
    return rec


def measurements() -> dict[str, dict[str, float]]:
    """What `measured` recorded in this process, by name (the sweeps read their trainings' seconds here)."""
    return dict(_MEASURED)


def measured_in(stage: str, out_dir: Path | str = TIMINGS_DIR) -> dict[str, dict[str, float]]:
    """Everything `measured` recorded in `stage`'s timing file, by name; empty where the stage has not run
    on this machine (a fresh clone that found it up to date, a fixture study)."""
    path = Path(out_dir) / f"{stage}.json"
    if not path.exists():
        return {}
    measured = _record(path).get("measured", {})
    if not (
        isinstance(measured, dict)
        and all(isinstance(v, dict) and all(_amount(x) for x in v.values()) for v in measured.values())
    ):
        raise NamedError(f"{path}: `measured` is not {{name: {{what: number}}}}; remove the file, or rerun its stage")
    return measured


def measurement(stage: str, name: str, out_dir: Path | str = TIMINGS_DIR) -> dict[str, float] | None:
    """`name`'s measured values in `stage`'s timing file (`measured_in`); None where there are none."""
    return measured_in(stage, out_dir).get(name)


def in_seconds(values: Mapping[str, float] | None) -> str:
    """` in 12.3 s` for a `measurement`, ` (not timed on this machine)` where there is none, or ` (its seconds
    not recorded)` where the stage recorded other values only, for a sentence."""
    if not values:
        return " (not timed on this machine)"
    return f" in {values['seconds']:.1f} s" if "seconds" in values else " (its seconds not recorded)"


def shares(seconds: float, units: Mapping[str, float], processed: float | None = None) -> dict[str, float]:
    """Each planner's share of pooled work: `seconds / processed` per unit (query, input) times its units.

    `processed` defaults to the sum of the units; pass the number of units actually processed when
    planners' units were pooled into one call, so a planner's share is what its units cost there."""
    total = sum(units.values()) if processed is None else processed
    if total < 0 or any(u < 0 for u in units.values()):
        raise ValueError(f"units must not be negative: {dict(units)}, processed {processed}")
    return {name: seconds * u / total if total else 0.0 for name, u in units.items()}


def record(
    stage: str,
    seconds: float,
    command: list[str],
    out_dir: Path | str = TIMINGS_DIR,
    per_claim: list[dict] | None = None,
    measured: Mapping[str, Mapping[str, float]] | None = None,
) -> Path:
    """Write `<out_dir>/<stage>.json` (atomically: a reader never sees half a file)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{stage}.json"
    body = {
        "stage": stage,
        "seconds": round(seconds, 1),
        "command": " ".join(command),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "hardware": hardware(),
    }
    if per_claim:
        body["per_claim"] = per_claim
    if measured:
        body["measured"] = dict(measured)
    return OUT.write_json(path, body)


def run(command: list[str], stage: str | None = None, out_dir: Path | str = TIMINGS_DIR) -> int:
    """Run `command`; on success record its wall time under `stage` (default `$DVC_STAGE`; none: not recorded)."""
    if not command or not command[0].strip():  # `run -- ""` (an unset variable) was "Permission denied"
        what = "no command" if not command else "an empty command name"
        print(f"error: {what} after `run --`; usage: python -m lib.timing run -- <command ...>", file=sys.stderr)
        return 2
    stage = stage or os.environ.get("DVC_STAGE")
    if stage and (not re.fullmatch(r"[A-Za-z0-9_@.-]{1,100}", stage) or stage[0] in ".-"):
        # a stage name becomes a file name under out_dir: never a path that leaves it, nor an option's look
        print(
            f"error: stage name {shown(stage, 60)}: expected up to 100 letters, digits, '_', '-', '.', '@'",
            file=sys.stderr,
        )
        return 2
    if stage and Path(out_dir) == TIMINGS_DIR and stage not in stages():  # its file would join the study's table
        print(f"error: stage name {stage!r} ($DVC_STAGE): dvc.yaml has no such stage", file=sys.stderr)
        return 2
    env = dict(os.environ)
    costs = None
    if stage:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        sweep_costs(out_dir)
        # its own scratch file: two timers of one stage at once each lost lines to the other's clean-up;
        # the timer's pid in its name, so one a killed timer left is known as stale (`sweep_costs`)
        fd, name = tempfile.mkstemp(dir=out_dir, prefix=f".{stage}.{os.getpid()}.", suffix=".costs.tmp")
        os.close(fd)
        costs = Path(name)
        env[COSTS_ENV] = str(costs)
    start = time.perf_counter()
    try:
        try:
            me = os.getpid()  # the command dies with the timer, killed outright (SIGKILL runs no clean-up)
            child = subprocess.Popen(command, env=env, preexec_fn=lambda: die_with(me, signal.SIGTERM))
        except FileNotFoundError as err:
            print(f"error: cannot run {command[0]!r}: {err}", file=sys.stderr)
            return 127
        # a signal goes on to the command, which stops itself cleanly (lib.cli); the timer waits for it
        passed: list[int] = []

        def pass_on(signum: int, _frame: Any) -> None:
            passed.append(signum)
            child.send_signal(signum)

        before = {sig: signal.signal(sig, pass_on) for sig in STOPS}
        try:
            code = _wait(child, os.getppid())
        finally:
            for sig, handler in before.items():
                signal.signal(sig, handler)
        if code < 0 and -code not in passed:  # killed outright (SIGKILL: the out-of-memory killer), no word said
            print(
                f"error: {shown(command[0], 60)} was killed by {signal.Signals(-code).name}"
                + (" (out of memory? the system's out-of-memory killer sends it)" if -code == signal.SIGKILL else ""),
                file=sys.stderr,
            )
        if code < 0:  # killed by a signal: the shell's status for it (143 for SIGTERM), not 256 - signal
            code = 128 - code
        if code != 0 and stage:
            restore_outputs(stage)
            checkout_hint(stage)
        if code == 0 and stage:
            per_claim, took = read_costs(costs)
            record(stage, time.perf_counter() - start, command, out_dir, per_claim, took)
        return code
    finally:
        if costs is not None:
            costs.unlink(missing_ok=True)


def sweep_costs(out_dir: Path | str) -> list[Path]:
    """Remove the costs scratch files of timers that are gone (killed by SIGKILL, which runs no clean-up),
    known by the pid in their names; a live timer's file is left alone. Returns those removed."""
    removed = []
    for path in Path(out_dir).glob(".*.costs.tmp"):
        pid = path.name.removesuffix(".costs.tmp").rsplit(".", 2)[-2]
        if writer_gone(pid) and path.is_file():
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def _wait(child: subprocess.Popen, parent: int, every: float = PARENT_POLL_SECONDS) -> int:
    """The child's exit status. When the process that started the timer dies first (DVC stopped by a
    signal it does not pass on), the child is stopped as by SIGTERM, so no stage goes on writing its
    outputs after `dvc repro` has returned."""
    while True:
        try:
            return child.wait(timeout=every)
        except subprocess.TimeoutExpired:
            if os.getppid() != parent:
                child.send_signal(signal.SIGTERM)
                return child.wait()


def checkout_hint(stage: str, root: Path = ROOT) -> list[str]:
    """After a failed or stopped stage: name the DVC-cached outputs that are missing (DVC removes them
    before the run) and the command that puts back the last committed ones. Returns those paths."""
    tracked = set(tracked_outputs(stage, root))
    gone = [p for p in outs_of(stages().get(stage, {})) if p not in tracked and not (root / p).exists()]
    if gone:
        shown = ", ".join(gone[:3]) + (f" and {len(gone) - 3} more" if len(gone) > 3 else "")
        print(
            f"stage {stage} did not finish and DVC removed its outputs ({shown}); `dvc checkout {stage}` puts back "
            "the last committed ones",
            file=sys.stderr,
        )
    return gone


def read_costs(path: Path) -> tuple[list[dict], dict[str, dict[str, float]]]:
    """The scratch file's `cost` records (`per_claim`) and `measured` values, by name. The command has
    succeeded: a line it garbled is named on stderr and left out, and the stage's timing is kept."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.exists() else []
    per_claim, took = [], {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            rec = None
        if _measured_line(rec):
            took[rec["measured"]] = rec["values"]
        elif _cost_line(rec):
            per_claim.append(rec)
        else:
            print(f"warning: {path.name} line {n} is no cost record; left out of the timing file", file=sys.stderr)
    return per_claim, took


def _cost_line(rec: Any) -> bool:
    """A cost line as `cost` writes it: every field, each of its kind (notebook 06 reads them all)."""
    texts = ("planner", "part", "device", "how")
    return (
        isinstance(rec, dict)
        and all(isinstance(rec.get(k), str) for k in texts)
        and rec.get("kind") in KINDS
        and _amount(rec.get("seconds"))
        and isinstance(rec.get("claims"), int)
        and _amount(rec["claims"])
        and (rec.get("seconds_per_claim") is None or _amount(rec["seconds_per_claim"]))
    )


def _measured_line(rec: Any) -> bool:
    """A `measured` line as `measured` writes it: a name and {what: number}."""
    return (
        isinstance(rec, dict)
        and isinstance(rec.get("measured"), str)
        and isinstance(rec.get("values"), dict)
        and all(_amount(v) for v in rec["values"].values())
    )


def tracked_outputs(stage: str, root: Path = ROOT) -> list[str]:
    """The git-tracked files among a stage's outputs (its `cache: false` metrics, plots and notebooks)."""
    outs = outs_of(stages().get(stage, {}))
    if not outs:
        return []
    listed = subprocess.run(["git", "ls-files", "--", *map(str, outs)], cwd=root, capture_output=True, text=True)
    return listed.stdout.split() if listed.returncode == 0 else []


def restore_outputs(stage: str, root: Path = ROOT) -> list[str]:
    """After a failed or stopped stage: put back the committed version of each git-tracked output that DVC
    removed before the run, so a stop never leaves a committed metrics file or executed notebook missing.
    Returns the restored paths; when git cannot, says in one line how to."""
    gone = [p for p in tracked_outputs(stage, root) if not (root / p).exists()]
    if not gone:
        return []
    done = subprocess.run(["git", "checkout", "HEAD", "--", *gone], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        print(  # after the command's own `error:` line: one error, and this the way back
            f"stage {stage} did not finish and git could not restore the {len(gone)} committed file(s) DVC removed "
            f"({first_line(done.stderr.strip() or 'no reason given', 120)}); restore them with `git checkout HEAD -- "
            f"{' '.join(gone)}`",
            file=sys.stderr,
        )
        return []
    print(f"stage {stage} did not finish: restored the committed {', '.join(gone)}", file=sys.stderr)
    return gone


def read(out_dir: Path | str = TIMINGS_DIR) -> dict[str, dict]:
    """{stage: timing record} of every timing file; one that is not a timing record is an error naming it."""
    if Path(out_dir).exists() and not Path(out_dir).is_dir():  # it read as "no stage ran here", exit 0
        raise NamedError(f"{out_dir}: not a folder; expected the folder of the stages' timing files")
    return {path.stem: _record(path) for path in sorted(Path(out_dir).glob("*.json"))}


MAX_TIMING_BYTES = 10_000_000  # a stage's timing file is a few kilobytes


def _record(path: Path) -> dict:
    """One timing file's record; one that is not a timing record is an error naming it (a pipe, a device or a
    file over `MAX_TIMING_BYTES` before it is read: a FIFO named `x.json` hung `timing table`)."""
    try:
        st = path.stat()
    except OSError:
        st = None  # missing: the read below names it
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise NamedError(f"{path}: {not_a_file('a timing file')}; remove it")
    if st is not None and st.st_size > MAX_TIMING_BYTES:
        raise NamedError(f"{path}: {st.st_size:,} bytes, not a timing file (at most {MAX_TIMING_BYTES:,}); remove it")
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError, RecursionError) as err:
        raise NamedError(f"{path}: not a timing file ({type(err).__name__}); remove it, or rerun its stage") from None
    if not (
        isinstance(rec, dict)
        and _amount(rec.get("seconds"))
        and _timestamp(rec.get("finished"))
        and isinstance(rec.get("cpus"), int)
        and not isinstance(rec.get("cpus"), bool)
        and rec["cpus"] >= 1
    ):
        raise NamedError(f"{path}: not a timing record (seconds, finished, cpus); remove it, or rerun its stage")
    costs = rec.get("per_claim", [])  # optional, but each as `cost` writes it (notebook 06 sums them)
    if (
        not isinstance(costs, list)
        or (bad := next((i for i, c in enumerate(costs) if not _cost_line(c)), None)) is not None
    ):
        where = "not a list" if not isinstance(costs, list) else f"entry {bad}: {shown(json.dumps(costs[bad]), 80)}"
        raise NamedError(
            f"{path}: per_claim {where}; expected cost records (planner, kind, part, device, how as text; seconds, "
            "claims and seconds_per_claim as numbers of at least 0), as the timer writes them; remove it, or rerun "
            "its stage"
        )
    machine = rec.get("hardware", {})  # optional (older files), but as `hardware()` writes it where present
    if not isinstance(machine, dict) or not isinstance(machine.get("cpu", ""), str):
        raise NamedError(
            f"{path}: hardware: expected a mapping with the CPU's name (cpu: text), as the timer writes it; remove "
            "it, or rerun its stage"
        )
    return rec


def _timestamp(value: Any) -> bool:
    """An ISO date and time in UTC as the timer writes one, `YYYY-MM-DDTHH:MM:SS+00:00` (`yesterday` went into the
    table, and `23:30-05:00` was shown as 23:30 UTC: the table prints the text)."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?\+00:00", value):
        return False
    try:
        return bool(datetime.fromisoformat(value))
    except ValueError:
        return False


MAX_AMOUNT = 1e15  # far past any measurement (seconds, counts, rates): a sum of values near 1e308 overflows to inf


def _amount(value: Any) -> bool:
    """A number a timing file may hold: finite, not negative and at most `MAX_AMOUNT` (not `true`, not NaN)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= MAX_AMOUNT


def _minutes(seconds: float) -> str:
    """ "12.3 s" or "19 min 05.0 s", rounded to a tenth first (1199.99999 s printed "19 min 60.0 s")."""
    tenths = round(seconds * 10)
    return f"{tenths // 600} min {tenths % 600 / 10:04.1f} s" if tenths >= 600 else f"{tenths / 10:.1f} s"


def table(order: list[str] | None = None, out_dir: Path | str = TIMINGS_DIR) -> str:
    """The timings as a Markdown table, stages in `order` (then any others), with the total."""
    timings = read(out_dir)
    if not timings:
        raise NamedError(f"no timing files in {out_dir}: run the pipeline (`make pipeline`) first")
    if order is not None and (stray := sorted(set(timings) - set(order))):  # a backup copy joined the total
        raise NamedError(
            f"{Path(out_dir) / stray[0]}.json: no stage of dvc.yaml is named so (a copy?); remove it, or move it "
            "out of the timings folder"
        )
    names = [s for s in order or [] if s in timings] + sorted(set(timings) - set(order or []))
    rows = ["| stage | wall time | finished (UTC) |", "|---|---:|---|"]
    rows += [
        f"| `{s}` | {_minutes(timings[s]['seconds'])} | {timings[s]['finished'][:16].replace('T', ' ')} |"
        for s in names
    ]
    # a stage DVC found up to date never ran here (the QuanTemp verifier, whose results are committed)
    rows += [f"| `{s}` | not run here (up to date) | |" for s in order or [] if s not in timings]
    cpus = {t["cpus"] for t in timings.values()}
    total = sum(t["seconds"] for t in timings.values())
    rows.append(
        f"| **all {len(names)} stages** | **{_minutes(total)}** | on {'/'.join(map(str, sorted(cpus)))} cores |"
    )
    return "\n".join(rows)


def write_readme(readme: Path | str, text: str) -> None:
    """Replace what lies between the README's timing markers with `text`, its lines ended as the begin marker's
    line is; every byte outside them is kept (its line endings too)."""
    readme = Path(readme)
    if readme.exists() and not readme.is_file():  # a pipe would wait for a writer
        raise NamedError(f"{readme}: {not_a_file('the README to write the table into')}")
    try:
        body = readme.read_bytes().decode("utf-8")  # not read_text: its newline translation rewrote every \r\n
    except FileNotFoundError:
        raise NamedError(f"{readme}: no such file; expected the README to write the table into") from None
    except UnicodeDecodeError as err:
        raise NamedError(f"{readme}: not UTF-8 text (byte {err.start}: {err.reason})") from None
    if BEGIN not in body or END not in body:
        raise NamedError(f"{readme}: the markers {BEGIN!r} and {END!r} are missing")
    if body.count(BEGIN) > 1 or body.count(END) > 1:  # the second table was left out of date without a word
        raise NamedError(f"{readme}: the timing markers appear more than once; keep one table between one pair")
    if body.index(END) < body.index(BEGIN):
        raise NamedError(f"{readme}: the marker {END!r} comes before {BEGIN!r}; put the table's markers in order")
    head, rest = body.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    # the begin marker line's own ending (a CRLF README got LF lines; a CR-only one too)
    nl = "\r\n" if rest.startswith("\r\n") else "\r" if rest.startswith("\r") else "\n"
    table = nl.join(text.split("\n"))
    OUT.write_bytes(readme, f"{head}{BEGIN}{nl}{table}{nl}{END}{tail}".encode())


def stage_order() -> list[str]:
    """Stage names in `dvc.yaml` order."""
    return list(stages())


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: python -m lib.timing run -- <command ...> | table [--readme README.md]"
    if args in (["-h"], ["--help"]) or (args[:1] in (["run"], ["table"]) and args[1:2] in (["-h"], ["--help"])):
        # asked for, also after a subcommand: the usage on stdout, status 0
        print(usage)
        return 0
    if args[:2] == ["run", "--"]:
        return run(args[2:])
    if args[:1] == ["table"] and args[1:] in ([], ["--readme", args[-1]]):
        if len(args) == 3 and not args[2].strip():  # an unset variable: it named the current folder, `.`
            print("error: --readme: an empty path; expected the README to write the table into", file=sys.stderr)
            return 2
        if not read():
            print(f"no stage timings in {TIMINGS_DIR} (no stage ran here)")
            return 0
        text = table(stage_order())
        if len(args) == 3:
            write_readme(args[2], text)
            print(f"wrote the timing table into {args[2]}")
        else:
            print(text)
        return 0
    print(f"error: {usage}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    run_main(main)
