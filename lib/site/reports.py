"""What a rendered report must not show a reader: the clean-output rules of the executed notebooks.

An executed notebook is a course handout. Its outputs must not carry machine noise: absolute paths
(they name the machine, not the study), anything on stderr (kernel warnings with `/tmp/ipykernel_…`
paths, tqdm bars, "Loading weights" lines), "wrote …" progress prints, or raw floats such as
`0.8712827341322681` (numbers are rounded for reading; the metrics files keep full precision), no
figure that `lib.site.figures` finds unreadable (its `Figure check:` lines), and no figure without its
alternative text (`lib.site.figures.describe`, in the output's metadata). Every code cell must have run
(a skeleton or a half-run notebook is a finding) and none may show a traceback; a file nbformat cannot
read is a finding too.

`setup()` is every notebook's first call: the common look (seaborn theme, three decimals in tables),
library noise off, and the figure check on. `write_metrics()` writes a notebook's metrics file: whole or
not at all, and with no output of its own under the cell. `output()` says where a notebook writes a file:
where its parameter says when the pipeline runs it (`lib.site.execute` sets `PIPELINE_ENV`), and under
`scratch/` (git-ignored) when a reader runs it by hand, so a run in JupyterLab never overwrites the study's
tracked metrics or DVC outputs.

`python -m lib.site.reports outputs/notebooks/*.ipynb` lists every finding (notebook, cell, rule, excerpt) and
exits 1 when there is one; the test suite runs it on the notebooks of the fixture run.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from lib import outputs as OUT
from lib.cli import ArgumentParser, NamedError, run_main
from lib.models import quiet_transformers
from lib.params import SECTIONS, problems, section_model
from lib.paths import ROOT
from lib.site import figures
from lib.site.catalogue import read_notebook
from lib.site.figures import MARKER as FIGURE_CHECK

# Absolute paths under the usual roots of a machine (URLs such as https://x.org/2020/05/ do not match:
# the path must start the text or follow a space, quote, bracket or `=`).
ABSOLUTE_PATH = re.compile(
    r"(?:^|[\s'\"`(\[=:])(/(?:work|tmp|home|root|Users|opt|usr|var|mnt|private|srv|data)/[^\s'\"<>)\]]+)", re.M
)
PATTERNS = {
    "absolute_path": ABSOLUTE_PATH,
    "tqdm_bar": re.compile(r"\d+%\|[^|]*\|"),
    "loading_weights": re.compile(r"Loading weights", re.I),
    "wrote": re.compile(r"^\s*wrote\b", re.M | re.I),
    # A float with seven or more decimals, not part of a longer token (ids, hashes, version strings).
    "raw_float": re.compile(r"(?<![\w.])-?\d+\.\d{7,}(?:e[-+]?\d+)?(?![\w.])"),
}
RULES = (
    "stderr",
    "error",
    *PATTERNS,
    "figure_check",
    "figure_without_alt",
    "bad_figure",
    "not_executed",
    "partly_executed",
    "unreadable",
)


PIPELINE_ENV = "STUDY_PIPELINE_RUN"  # set by lib.site.execute for the notebook's kernel, to PIPELINE_FLAG
PIPELINE_FLAG = "1"
SCRATCH_DIR = ROOT / "scratch"  # where a notebook run by hand writes (git-ignored)


def output(path: Path | str) -> Path:
    """Where a notebook writes `path`: `path` itself when the pipeline runs the notebook, else the same
    relative path under `scratch/` (said once per call), so that a notebook run by hand writes nowhere
    tracked: not the committed metrics, not a DVC output. A path that would leave `scratch/` (`../x`) or
    lies elsewhere on the machine keeps only its name there."""
    path = Path(path)
    flag = os.environ.get(PIPELINE_ENV)
    if flag == PIPELINE_FLAG:
        return path
    if flag:
        raise ValueError(
            f"{PIPELINE_ENV}={flag!r}: only `python -m lib.site.execute` sets it (to {PIPELINE_FLAG!r}); unset it to "
            "run a notebook by hand (it then writes under scratch/)"
        )
    if path.is_absolute():
        path = path.resolve()
        rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else Path(path.name)
    else:
        rel = path
    out = (SCRATCH_DIR / rel).resolve()
    if not out.is_relative_to(SCRATCH_DIR.resolve()) or out == SCRATCH_DIR.resolve():
        out = SCRATCH_DIR / (path.resolve().name or "output")
    print(f"run by hand, not by the pipeline: writing {shown_path(out)}, not {shown_path(path)}")
    return out


def write_metrics(metrics: dict, path: Path | str, **dumps: object) -> None:
    """Write a notebook's metrics as indented JSON, through a temporary file renamed into place (a killed
    kernel leaves the previous file, never half of one). Returns nothing, so the cell shows nothing."""
    OUT.write_json(path, metrics, **dumps)


def shown_path(path: Path | str) -> str:
    """A path as a report shows it: relative to the repository root, or only its name when it lies
    elsewhere (a temporary folder in the tests): never the machine's absolute path."""
    path = Path(path)
    if not path.is_absolute():
        return path.as_posix()
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name


def setup(precision: int = 3) -> None:
    """What every notebook calls first: the common look (seaborn's whitegrid theme, `precision` decimals
    in tables), transformers' "Loading weights" bars and tqdm's missing-ipywidgets warning off (noise on
    stderr), and every displayed figure checked for readability (`lib.site.figures.install`)."""

    import seaborn as sns

    warnings.filterwarnings("ignore", message="IProgress not found")  # before transformers imports tqdm
    from transformers.utils import logging

    quiet_transformers()  # load-time reports
    logging.disable_progress_bar()  # and the "Loading weights" bars, which the stages may keep
    sns.set_theme(style="whitegrid", context="notebook")
    pd.set_option("display.precision", precision)
    figures.install()
    check_injected_parameters()


PARAMETERS_HEADER = "# Parameters ("  # how every notebook's own `parameters` cell begins (a test checks it)
INJECTED_HEADER = "# Parameters\n"  # how the cell papermill injects after it begins (its Python translator)


class ParameterError(NamedError, ValueError):
    """Papermill passed a parameter the notebook does not define: it only warns, and the notebook ran on its
    own default."""


def _assigned(source: str) -> set[str]:
    """The names a cell's top-level assignments bind (a cell that is no Python binds none)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        else:
            continue
        names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def _injected_and_defined(history: Sequence[str]) -> tuple[set[str], set[str] | None]:
    """(the names papermill's injected cell, the last in `history`, sets; the names the parameters cells run
    before it define, None when none ran); (set(), None) without an injected cell."""
    injected = [i for i, cell in enumerate(history) if isinstance(cell, str) and cell.startswith(INJECTED_HEADER)]
    if not injected:
        return set(), None
    before = history[: injected[-1]]
    defined = [_assigned(cell) for cell in before if isinstance(cell, str) and cell.startswith(PARAMETERS_HEADER)]
    return _assigned(history[injected[-1]]), set().union(*defined) if defined else None


def unknown_parameters(history: Sequence[str]) -> list[str]:
    """The names papermill's injected cell (the last in `history`, the kernel's `In`) sets that no parameters
    cell run before it defines; [] without an injected cell, or without a parameters cell to compare with."""
    injected, defined = _injected_and_defined(history)
    return [] if defined is None else sorted(injected - defined)


def check_injected_parameters() -> None:
    """A ParameterError naming every parameter papermill passed that the notebook's parameters cell does not
    define (`papermill nb.ipynb out.ipynb -f my.yaml` with a misspelt or misplaced key warned "Passed unknown
    parameter" and ran on the defaults, exit 0). Outside IPython, nothing to check."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with Jupyter
        return
    shell = get_ipython()
    history = getattr(shell, "user_ns", {}).get("In") if shell is not None else None
    if not isinstance(history, list):
        return
    unknown = unknown_parameters(history)
    if unknown:
        raise ParameterError(
            f"papermill passed parameter(s) {unknown} that this notebook's parameters cell does not define, so the "
            f"notebook would run on its own values; check the names and nesting of your parameters file (defined: "
            f"{sorted(_injected_and_defined(history)[1] or ())})"
        )
    problems = injected_value_problems(history, shell.user_ns)
    if problems:
        raise ParameterError(
            f"papermill passed value(s) that params.yaml would refuse: {'; '.join(problems)} (the same checks as "
            "`python -m lib.schema check`; a mapping you pass replaces the notebook's whole)"
        )


SECTION_OF_CELL = re.compile(r"section `(\w+)`")  # the section a parameters cell's header names


def injected_value_problems(history: Sequence[str], namespace: dict[str, Any]) -> list[str]:
    """What the section models (`lib.params`) refuse in the values papermill injected, with the notebook's own
    for the rest: its section's (named in its parameters cell's header) and each shared section passed whole
    (`judgements`, `averitec`). `-y 'without_gold: {plans: []}'` ended in a KeyError cells later, an unknown
    nested key was ignored; the models name both. A key left out of a mapping takes the model's default, as the
    README says of papermill files (params.yaml itself must write every key), and a shared section may leave
    out keys (the notebook reads what it needs); other sections are not read."""
    injected, defined = _injected_and_defined(history)
    header = next((c for c in history if isinstance(c, str) and c.startswith(PARAMETERS_HEADER)), "")
    own = SECTION_OF_CELL.search(header.partition("\n")[0])
    if not injected or defined is None or own is None or own.group(1) not in SECTIONS:
        return []
    name = own.group(1)
    fields = set(section_model(name).model_fields)
    shared = {k for k in defined - fields if k in SECTIONS}
    checks = [(name, {k: namespace[k] for k in defined & fields if k in namespace})] if injected & fields else []
    # a shared section passed whole; None (where a notebook takes one) reads params.yaml's own
    checks += [(k, namespace[k]) for k in sorted(shared & injected) if namespace.get(k) is not None]
    found: list[str] = []
    for section_name, raw in checks:
        try:
            section_model(section_name).model_validate(raw)
        except ValidationError as err:
            # a shared section's mapping may leave out keys the notebook does not read (the fixture study's do)
            found += [p for p in problems(err, (section_name,), raw) if section_name == name or "required key" not in p]
    return found


@dataclass(frozen=True)
class Finding:
    """One rule broken in one cell's outputs."""

    notebook: str
    cell: int  # index in the notebook
    rule: str  # one of RULES
    excerpt: str

    def __str__(self) -> str:
        return f"{self.notebook}: cell {self.cell}: {self.rule}: {self.excerpt!r}"


def _texts(output: dict) -> Iterator[tuple[str, str]]:
    """(kind, text) of one output: 'stdout' / 'stderr' for streams, else the MIME type of each text part."""
    if output.get("output_type") == "stream":
        yield output.get("name", "stdout"), "".join(output.get("text", ""))
        return
    if output.get("output_type") == "error":
        yield "error", "\n".join(output.get("traceback", []))
        return
    for mime, value in (output.get("data") or {}).items():
        if mime.startswith("text/") or mime in ("application/json",):
            yield mime, "".join(value) if isinstance(value, list) else str(value)


def _excerpt(text: str, start: int, end: int, width: int = 40) -> str:
    return text[max(0, start - width) : end + width].replace("\n", " ").strip()


def scan_text(kind: str, text: str) -> Iterator[tuple[str, str]]:
    """(rule, excerpt) for every rule one output text breaks: one finding per rule, except that each
    figure problem is its own finding, its whole line."""
    for line in text.splitlines():
        if line.startswith(FIGURE_CHECK):
            yield "figure_check", line[len(FIGURE_CHECK) :].strip()
    if kind == "stderr" and text.strip():
        yield "stderr", text.strip().splitlines()[0][:120]
    if kind == "error":  # a traceback under a cell: the cell failed
        yield "error", (text.strip().splitlines() or ["(no traceback)"])[-1][:120]
    for rule, pattern in PATTERNS.items():
        if kind == "text/html" and rule == "wrote":
            continue  # table cells may hold any text; the rule is about progress prints
        m = pattern.search(text)
        if m:
            yield rule, _excerpt(text, m.start(), m.end())


def not_run(cells: Sequence[Any]) -> tuple[int, str, str] | None:
    """(first cell, rule, message) where a notebook's code did not all run (a papermill skeleton, a copy
    cleared of its outputs), else None: such a notebook is no executed notebook."""
    code = [(i, c) for i, c in enumerate(cells) if c.cell_type == "code" and c.source.strip()]
    skipped = [i for i, c in code if c.get("execution_count") is None]
    if not code:  # an empty or markdown-only file: no study notebook has no code, so none of it ran
        return 0, "not_executed", "it has no code cell: not a notebook of the study"
    if len(skipped) == len(code):
        return 0, "not_executed", f"none of its {len(code)} code cells ran"
    if skipped:
        return skipped[0], "partly_executed", f"{len(skipped)} of its {len(code)} code cells did not run"
    return None


def scan_notebook(path: Path | str) -> list[Finding]:
    """Every clean-output rule broken in an executed notebook's outputs."""

    path = Path(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat's validation warnings: the error below says it
            nb = read_notebook(path)
        cells = list(nb.cells)
    except NamedError as err:  # not JSON, not a notebook, too large, a pipe: one finding, not a traceback
        return [Finding(path.name, 0, "unreadable", str(err).removeprefix(f"{path}: ")[:160])]
    found = []
    if ran := not_run(cells):
        found.append(Finding(path.name, *ran))
    for i, cell in enumerate(cells):
        for output in cell.get("outputs", []):
            if "image/png" in (output.get("data") or {}) and not figures.alt_of(output):
                found.append(Finding(path.name, i, "figure_without_alt", "a PNG output without alternative text"))
            if "image/png" in (output.get("data") or {}) and (bad := figures.png_problem(output["data"]["image/png"])):
                found.append(Finding(path.name, i, "bad_figure", bad))  # the site's thumbnail stopped on it
            for kind in sorted(k for k in (output.get("data") or {}) if k.startswith("image/") and k != "image/png"):
                found.append(  # a JPEG or SVG figure: no alternative text, no overlap check, no thumbnail
                    Finding(path.name, i, "bad_figure", f"an {kind} figure: the site shows and checks PNG figures only")
                )
            for kind, text in _texts(output):
                found.extend(Finding(path.name, i, rule, excerpt) for rule, excerpt in scan_text(kind, text))
    return found


def scan(paths: Iterable[Path | str]) -> list[Finding]:
    return [f for p in paths for f in scan_notebook(p)]


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.site.reports", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("notebooks", nargs="+", help="executed notebooks, e.g. outputs/notebooks/*.ipynb")
    args = ap.parse_args(argv)
    missing = [p for p in args.notebooks if not Path(p).exists()]
    if missing:
        raise SystemExit(f"error: no such notebook: {', '.join(missing)}")
    other = [p for p in args.notebooks if not Path(p).is_file()]  # a folder, or a pipe that would wait forever
    if other:
        raise SystemExit(f"error: not a notebook file (a folder, a pipe?): {', '.join(other)}")
    findings = scan(args.notebooks)
    for f in findings:
        print(f)
    print(f"{len(findings)} finding(s) in {len(args.notebooks)} notebook(s)")
    if findings:
        raise NamedError(f"{len(findings)} finding(s) in {len(args.notebooks)} notebook(s), listed above")


if __name__ == "__main__":
    run_main(main)
