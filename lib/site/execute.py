"""Execute a numbered notebook with papermill, its parameters from one `params.yaml` section.

`python -m lib.site.execute 01_knowledge_store --section knowledge_store --with judgements` executes
`notebooks/01_knowledge_store.ipynb` with the parameters of that section into `outputs/notebooks/`
(`--with judgements` adds a shared section whole, as the parameter `judgements`). Every parameter must be
one the notebook's `parameters` cell defines. Source notebooks stay without outputs; executed copies are
pipeline outputs. Rendering them is `lib.site.render`'s work, so an edit to the site reruns no notebook.

A notebook's `parameters` cell holds the values the pipeline passes (`stage_parameters`; a test compares
them), so a notebook opened and run by hand computes what the pipeline computes; it then writes under
`scratch/`, not into the study's outputs (`lib.site.reports.output`): only a run from here sets
`lib.site.reports.PIPELINE_ENV` for the kernel.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import re
import shutil
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbstripout import strip_output

from lib import outputs as OUT
from lib.cli import (
    CLEANUPS,
    ArgumentParser,
    NamedError,
    first_line,
    made_by,
    nonempty_path,
    not_a_file,
    outs_of,
    run_main,
    stages_of,
)
from lib.params import (
    KERNEL_PARAMS_ENV,
    SECTIONS,
    ParamsError,
    PosInt,
    flag_of,
    section,
    section_model,
    settings,
    study_params_only,
)
from lib.paths import EXECUTED_DIR, NOTEBOOKS_DIR, PARAMS_FILE, ROOT
from lib.site.banner import params_banner
from lib.site.catalogue import read_notebook
from lib.site.reports import PIPELINE_ENV, PIPELINE_FLAG, SCRATCH_DIR, shown_path

# What changes from one run to the next without the study changing: papermill's times and durations (and the
# machine's paths in its notebook metadata), the kernel's per-cell timestamps. Stripped with nbstripout in its
# keep-output mode, so the executed notebooks, committed with the code, are the same bytes when rerun.
VOLATILE = ("metadata.papermill", "cell.metadata.execution", "cell.metadata.papermill")
# Python's default repr of an object shown beside a rich form (a pandas Styler beside its HTML table): it holds
# a memory address, new on every run, and tells a reader nothing.
OBJECT_REPR = re.compile(r"<[\w.]+(?: object)? at 0x[0-9a-f]+>")
DEFAULT_TIMEOUT_S = 1800  # per cell: a hung kernel fails the stage instead of blocking it


class NotebookFailed(NamedError, RuntimeError):
    """A notebook cell raised: names the notebook, the cell and the exception in one line."""


def run_notebook(
    name: str,
    parameters: dict[str, Any],
    out_dir: Path | str = EXECUTED_DIR,
    notebooks_dir: Path | str = NOTEBOOKS_DIR,
    timeout_s: int = DEFAULT_TIMEOUT_S,
    banner: str | None = None,
    failed_dir: Path | str = SCRATCH_DIR,
    params_file: Path | str | None = None,
) -> Path:
    """Execute `notebooks/<name>.ipynb` with `parameters` from the repository root; return the output path.
    A `banner` becomes the executed notebook's first cell. A cell that raises stops the run with one line
    (`NotebookFailed`: the cell and the exception); the run with its traceback is kept in `failed_dir`
    (git-ignored `scratch/`), never in place of the last good executed notebook. With `params_file`, the
    notebook's own `section(...)` calls read that file too (`lib.params.KERNEL_PARAMS_ENV`)."""
    import papermill as pm

    if Path(name).name != name or name in ("", ".", ".."):  # `../outputs/notebooks/05_…` ran an executed copy
        raise NamedError(f"notebook {name!r}: expected the name of a notebook in {shown_path(notebooks_dir)}/, no path")
    src = Path(notebooks_dir) / f"{name}.ipynb"
    if not src.exists():
        raise FileNotFoundError(f"no notebook {src}")
    out = Path(out_dir) / f"{name}.ipynb"
    OUT.refuse_targets([out], [src])  # `name` given as a path can make the executed copy the source itself
    read_notebook(src)  # a damaged notebook is one line naming it, not papermill's traceback
    check_parameters(src, parameters)
    metrics = ROOT / parameters["metrics_path"] if "metrics_path" in parameters else None
    if metrics is not None:  # `metrics_path: README.md` replaced the README, `...: <an input>` that input
        if metrics.exists() and not metrics.is_file():  # /dev/null took the metrics, and the notebook was replaced
            raise NamedError(f"metrics_path {metrics}: {not_a_file('the path of a JSON file')}")
        OUT.refuse_targets([metrics], [src, out])  # nor the executed notebook, written over the metrics at the end
        OUT.refuse_stage_outputs([metrics], own=made_by(EXECUTED_DIR / f"{name}.ipynb"))
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    start = time.perf_counter()
    before = {k: os.environ.get(k) for k in (PIPELINE_ENV, KERNEL_PARAMS_ENV)}
    os.environ[PIPELINE_ENV] = PIPELINE_FLAG  # the kernel inherits it: the notebook writes the study's outputs
    if params_file is not None:  # and reads the parameter file the command was given, for every section
        os.environ[KERNEL_PARAMS_ENV] = str(Path(params_file).resolve())
    # papermill writes its notebook as it goes (a skeleton first): it writes a temporary file, renamed over
    # `out` only once every cell has run, so a stopped run never leaves a half-executed notebook in place
    with _one_run(name), OUT.atomic(out) as tmp, warnings.catch_warnings(), _kept(*written_outputs(name, parameters)):
        warnings.filterwarnings("ignore", message="The specified file .* does not end in one of")  # the temporary
        try:
            pm.execute_notebook(
                str(src),
                str(tmp),
                parameters=parameters,
                cwd=str(ROOT),
                kernel_name="python3",
                execution_timeout=timeout_s,
                progress_bar=False,
                log_output=False,
            )
        except pm.PapermillExecutionError as err:
            kept = OUT.write_bytes(Path(failed_dir) / f"{name}.failed.ipynb", tmp.read_bytes())
            what = (str(err.evalue).strip().splitlines() or [""])[0][:300]
            raise NotebookFailed(
                f"notebook {name}: cell [{err.exec_count}] stopped with {err.ename}: {what} "
                f"(the run with its traceback: {shown_path(kept)})"
            ) from None
        except (CellTimeoutError, DeadKernelError) as err:  # a cell past --timeout, a kernel that died
            kept = OUT.write_bytes(Path(failed_dir) / f"{name}.failed.ipynb", tmp.read_bytes())
            hint = f" (--timeout {timeout_s} s per cell)" if isinstance(err, CellTimeoutError) else ""
            raise NotebookFailed(
                f"notebook {name}: {type(err).__name__}{hint}: {first_line(err, 200)} (the run so far: "
                f"{shown_path(kept)})"
            ) from None
        finally:
            for key, value in before.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        nb = nbformat.read(tmp, as_version=4)
        if banner:
            nb.cells.insert(0, nbformat.v4.new_markdown_cell(f"> {banner}", id="profile-banner"))
        nbformat.write(settle(nb, parameters), tmp)
    print(f"{name}: executed in {time.perf_counter() - start:.1f} s -> {out}")
    return out


@contextmanager
def _one_run(name: str, locks_dir: Path = SCRATCH_DIR / "locks") -> Iterator[None]:
    """One run of a notebook at a time in a checkout: two wrote the same metrics file, and the one stopped put
    the old metrics back over the finished one's, beside its executed notebook."""
    locks_dir.mkdir(parents=True, exist_ok=True)
    lock = locks_dir / f"{name}.lock"
    with open(lock, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise NamedError(
                f"notebook {name}: another run of it is in progress in this checkout (it holds {shown_path(lock)}); "
                "wait for it to end, or stop it"
            ) from None
        yield


# the parameters that name what a notebook writes (notebook 04's curves and judging sheet, notebook 08's codes)
OUTPUT_PARAMETERS = ("metrics_path", "out_dir", "plots_dir", "judging.sheet_path")
MAX_KEPT_BYTES = 256 * 2**20  # what `_kept` copies aside at most: a folder past it is refused, not read whole


def written_outputs(name: str, parameters: Mapping[str, Any]) -> tuple[list[Path], list[Path]]:
    """What a notebook's run writes besides its executed copy: its stage's other outputs (DVC's: a stopped
    run may leave them as they were before it), and the paths its parameters name (`OUTPUT_PARAMETERS`, which
    a `--params` copy may point anywhere)."""
    executed = EXECUTED_DIR / f"{name}.ipynb"
    stage = made_by(executed)
    owned = (
        [ROOT / out for out in outs_of(stages_of(ROOT / "dvc.yaml")[stage]) if ROOT / out != executed] if stage else []
    )
    named = []
    for key in OUTPUT_PARAMETERS:
        value: Any = parameters
        for part in key.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        if isinstance(value, str) and value:
            named.append(ROOT / value)
    owned = list(dict.fromkeys(p.resolve() for p in owned))
    return owned, [p for p in dict.fromkeys(p.resolve() for p in named) if p not in owned]


@contextmanager
def _kept(owned: list[Path], named: list[Path] = ()) -> Iterator[None]:
    """The files at `owned` and `named` (files or folders) as they were before the run, put back when the run
    fails or is stopped: a notebook writes its outputs midway, and the executed notebook only at its end, so
    a stopped run left new metrics (or notebook 08's new error codes) beside the old notebook. In the stage's
    own outputs (`owned`) files the run added are removed again, and a folder it made; in a folder a
    parameter names (`named`: anywhere, even `.`), only the files that were there are put back and nothing
    else is touched (removing what appeared there deleted a user's file and the run's own failure report)."""
    saved = {p: _snapshot(p) for p in [*owned, *named]}

    def restore() -> None:
        for path, before in saved.items():
            mine = path in owned
            if before is None:  # absent before the run: the file a parameter names goes, a folder only if owned
                if mine and path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                elif path.is_file():
                    path.unlink()
                continue
            now = _snapshot(path) or {}
            for stray in set(now) - set(before) if mine else ():
                stray.unlink(missing_ok=True)
            for file, data in before.items():
                if now.get(file) != data:
                    OUT.write_bytes(file, data)

    CLEANUPS.append(restore)  # a signal: `lib.cli` runs it before the exit
    try:
        yield
    except BaseException:
        restore()
        raise
    finally:
        CLEANUPS.remove(restore)


def _snapshot(path: Path) -> dict[Path, bytes] | None:
    """{file: bytes} of a file or of every file in a folder; None when nothing is there. A folder holding
    more than `MAX_KEPT_BYTES` is refused (`out_dir: .` read the whole checkout into memory)."""
    if path.is_file():
        return {path: path.read_bytes()}
    if not path.is_dir():
        return None
    files = [f for f in sorted(path.rglob("*")) if f.is_file()]
    if sum(f.stat().st_size for f in files) > MAX_KEPT_BYTES:
        raise NamedError(
            f"{path}: holds over {MAX_KEPT_BYTES // 2**20} MiB, too much to keep aside while the notebook writes "
            "into it; name a folder of the notebook's own outputs"
        )
    return {f: f.read_bytes() for f in files}


def metrics_read_or_written(parameters: Mapping[str, Any]) -> dict[str, str]:
    """{path: sha256} of the metrics file a notebook writes (`metrics_path`) or of every file it reads
    (`metrics_dir`, notebook 10): what an executed notebook's numbers come from."""
    paths = [ROOT / parameters["metrics_path"]] if "metrics_path" in parameters else []
    if "metrics_dir" in parameters:
        paths += sorted((ROOT / parameters["metrics_dir"]).glob("*.json"))
    return {shown_path(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


def settle(nb: nbformat.NotebookNode, parameters: Mapping[str, Any]) -> nbformat.NotebookNode:
    """An executed notebook as the study keeps it: its outputs (without an `OBJECT_REPR` beside a rich form),
    counts and cell ids (a fixed one for papermill's injected parameters cell), without the `VOLATILE`
    metadata, and with `metadata.study` holding the parameters it ran with and the sha256 of the metrics it
    wrote or read (`metrics_read_or_written`), so a test can tell a committed executed notebook from a stale one."""
    strip_output(nb, keep_output=True, keep_count=True, keep_id=True, extra_keys=list(VOLATILE))
    for cell in nb.cells:
        if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
            cell["id"] = "injected-parameters"  # papermill draws a random id on every run
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            plain = data.get("text/plain")
            if plain is not None and len(data) > 1 and OBJECT_REPR.fullmatch("".join(plain).strip()):
                del data["text/plain"]  # the rich form stays
    nb.metadata["study"] = {"parameters": dict(parameters), "metrics": metrics_read_or_written(parameters)}
    return nb


def check_parameters(notebook: Path, parameters: Mapping[str, Any]) -> None:
    """Every parameter must be defined in the notebook's `parameters` cell: papermill only warns about
    the others, and the notebook would silently run with its own default instead."""
    import papermill as pm

    defined = pm.inspect_notebook(str(notebook))
    unknown = sorted(set(parameters) - set(defined))
    if unknown:
        raise ValueError(
            f"{notebook}: parameter(s) {unknown} are not defined in its parameters cell (defined: {sorted(defined)})"
        )


def check_sections(notebook: Path, parameters: Mapping[str, Any]) -> None:
    """A `params.yaml` section the notebook's `parameters` cell copies (`judgements = {...}`) must be passed:
    the command would run on the cell's copy, whatever `params.yaml` says (a default of None reads the
    section itself). The command's check; a caller of `run_notebook` passes what it means."""
    import papermill as pm

    defined = pm.inspect_notebook(str(notebook))
    copied = sorted(
        name
        for name, spec in defined.items()
        if name in SECTIONS and name not in parameters and spec["default"].strip() != "None"
    )
    if copied:
        flags = " ".join(f"--with {name}" for name in copied)
        raise ValueError(
            f"{notebook}: parameter(s) {copied} are params.yaml sections its parameters cell only copies; "
            f"pass them ({flags}, as the stage's command in dvc.yaml does)"
        )


def stage_parameters(name: str, shared: list[str] | tuple[str, ...] = (), params: Path | str = PARAMS_FILE) -> dict:
    """The parameters a stage passes its notebook: params section `name`, and each `shared` section whole
    as the parameter of that name (`--with`)."""
    if twice := sorted({s for s in shared if list(shared).count(s) > 1}):
        raise ValueError(f"--with {' '.join(twice)}: given twice; name each shared section once")
    parameters = section(name, params)
    for other in shared:
        if other in parameters:
            raise ValueError(f"section {name!r} already has a parameter {other!r}; --with {other} would hide it")
        parameters[other] = section(other, params)
    return parameters


def cross_check(name: str, params: Path | str = PARAMS_FILE) -> None:
    """`ParamsError` with every problem when section `name` disagrees with another section it depends on
    (its model's `cross_check`, `lib.site.sections`): refused before the notebook starts, not inside it."""
    check = getattr(section_model(name), "cross_check", None)
    problems = check(section(name, params), lambda other: settings(other, params)) if check else []
    if problems:
        raise ParamsError(params, problems)


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.site.execute", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("name", help="notebook name without .ipynb, e.g. 01_knowledge_store")
    ap.add_argument("--section", required=True, help="params.yaml section holding its parameters")
    ap.add_argument(
        "--with",
        dest="shared",
        action="append",
        default=[],
        metavar="SECTION",
        help="a shared params.yaml section passed whole as the parameter of that name (e.g. judgements)",
    )
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    ap.add_argument("--timeout", type=flag_of(PosInt), default=DEFAULT_TIMEOUT_S, help="seconds per cell")
    args = ap.parse_args(argv)
    if not (NOTEBOOKS_DIR / f"{args.name}.ipynb").is_file():  # "01_x.ipynb" read as "01_x.ipynb.ipynb", errno text
        known = sorted(nb.stem for nb in NOTEBOOKS_DIR.glob("[0-9]*.ipynb"))
        raise SystemExit(f"error: {args.name}: no notebook notebooks/{args.name}.ipynb; give a name without .ipynb, "
                         f"one of {', '.join(known)}")  # fmt: skip
    try:
        parameters = stage_parameters(args.section, args.shared, args.params)
        cross_check(args.section, args.params)
        study_params_only(args.params, "the study's executed notebook and its metrics file")  # checked, then refused
        check_parameters(NOTEBOOKS_DIR / f"{args.name}.ipynb", parameters)
        check_sections(NOTEBOOKS_DIR / f"{args.name}.ipynb", parameters)
    except (ValueError, KeyError, FileNotFoundError) as err:  # ParamsError is a ValueError
        raise SystemExit(f"error: {err.args[0] if isinstance(err, KeyError) else err}") from None
    run_notebook(
        args.name, parameters, timeout_s=args.timeout, banner=params_banner(args.params), params_file=args.params
    )


if __name__ == "__main__":
    run_main(main)
