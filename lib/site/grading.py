"""Grading a class: students' copies of the exercise notebooks, or their answer sheets, into one table.

Every exercise check leaves a record in the executed notebook (`lib.site.checks.RECORD_MIME`): the answer,
the expected value, the tolerance and the typical mistakes. A student's copy is executed afresh (the kernel
runs from `--root`, which holds the pipeline's outputs that the checks compare with; a failing cell does not
stop the run) and its records are read; an answer sheet (`sheet` writes a blank one: one row per exercise,
the student fills in `answer`) is compared with the records of the reference notebooks the pipeline
executed.

    python -m lib.site.grading sheet --out answers.csv
    python -m lib.site.grading grade submissions/ --out grades.csv

A copy that defines its own `check` (or writes check records itself) is named, not graded.

Each cell of the table is `passed`, `off by +0.012` (with the mistake it matches, when it is a known one),
`not attempted`, or what stopped the check (`error: NameError ...`).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import resource
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
from jupyter_core.utils import ensure_async
from nbclient import NotebookClient
from pydantic import Field

from lib import outputs as OUT
from lib import sheets as SH
from lib.cli import ArgumentParser, NamedError, file_path, nonempty_path, run_main, shown
from lib.params import flag_of
from lib.paths import EXECUTED_DIR, NOTEBOOKS_DIR, ROOT
from lib.site import checks as CK
from lib.site.catalogue import read_notebook
from lib.site.checks import RECORD_MIME, as_number, known_mistake, offset_text, record_problem, verdict
from lib.site.course import CourseError, checked, exercises, task_number

PASSED, NOT_ATTEMPTED, PROBLEM = "passed", "not attempted", "cannot be graded"
SHEET_COLUMNS = ("exercise", "task", "answer")
CELL_TIMEOUT_S = 600
# What one copy's cells may print in all, and its kernel's data memory (RLIMIT_DATA: the address space, which
# CUDA reserves and the study's own kernels fill to 4.3 GB, says little of what they use). A `while True: print()`
# grew the grader by about 40 MB a second until the cell's timeout, and a copy's kernel had no bound at all. The
# study's executed notebooks hold at most 1.1 MB of outputs; their kernels' peaks are in the README (Grading).
MAX_OUTPUT_MB = 50
KERNEL_MEMORY_GB = 8  # the kernels of notebooks 02 and 07 peak at 1.9 and 2.8 GB (VmData, 2026-11-27)
Bound = Annotated[float, Field(gt=0, le=1_000_000, allow_inf_nan=False)]  # megabytes of output
# gigabytes of kernel memory: below 1 a kernel cannot start its threads (60 s of silence, then a traceback)
KernelBound = Annotated[float, Field(ge=1, le=1_000_000, allow_inf_nan=False)]
_MESSAGE_OVERHEAD = 500  # characters counted per output message besides its content (its dict, its cell entry)


class GradingError(NamedError, ValueError):
    """A submission or answer sheet that cannot be graded: names the file, the row and what was expected."""


def records(nb: Any) -> dict[str, dict]:
    """The check records of an executed notebook by exercise (the last one, when a check ran twice in its
    cell). An exercise that two cells record is a broken record: a check cell whose number was edited
    graded one exercise's answer against another's expected value and called that one "not attempted"."""
    found: dict[str, dict] = {}
    by_cell: dict[str, int] = {}
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            rec = out.get("data", {}).get(RECORD_MIME)
            if rec is None:
                continue
            number = rec.get("exercise") if isinstance(rec, dict) else None
            if isinstance(number, str) and by_cell.setdefault(number, i) != i:
                found[number] = {"exercise": number, "broken": f"recorded by cells {by_cell[number]} and {i}"}
            elif isinstance(number, str) and "broken" not in found.get(number, {}):
                found[number] = dict(rec)
            elif cell.get("cell_type") == "code" and (number := checked(cell.get("source", ""))):
                found[number] = {"exercise": number, "broken": shown(rec, 40)}  # edited by hand: said in its cell
    return found


def cell_errors(nb: Any) -> dict[str, str]:
    """The error each check cell stopped with before it could record, by exercise."""
    errors = {}
    for cell in nb.cells:
        if cell.cell_type != "code" or not (number := checked(cell.source)):
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                errors[number] = f"error: {out['ename']}: {out['evalue']}"[:200]
    return errors


def answer_problems(nb: Any) -> dict[str, str]:
    """By exercise, why its check read no answer of the exercise's own: no cell of code between its task (or
    the check before it) and its check, and no `answer =` in the check cell itself (the answer cell deleted or
    emptied: the check graded the previous exercise's `answer`), or a last such cell that stopped with an
    error before the check ran (a scratch cell's error above a good answer cell is the student's business)."""
    problems, start = {}, 0
    for i, cell in enumerate(nb.cells):
        source = cell.get("source", "")
        if cell.get("cell_type") == "markdown" and task_number(source):
            start = i + 1
        if cell.get("cell_type") != "code" or not (number := checked(source)):
            continue
        code = [c for c in nb.cells[start:i] if c.get("cell_type") == "code" and _has_code(c.get("source", ""))]
        error = (
            next((o for o in code[-1].get("outputs", []) if o.get("output_type") == "error"), None) if code else None
        )
        if not code and not _ANSWER_SET.search(source):
            problems[number] = f"{NOT_ATTEMPTED} (no answer cell before its check, which read an earlier answer)"
        elif error is not None:
            problems[number] = f"error before its check: {error.get('ename')}: {error.get('evalue')}"[:200]
        start = i + 1
    return problems


_ANSWER_SET = re.compile(r"^[^\S\n]*answer\s*(?::[^=\n]*)?=(?!=)", re.M)  # `answer = ...` (or annotated)


def _has_code(source: str) -> bool:
    """Whether a cell holds code, not only blank lines and comments (an emptied answer cell is no answer)."""
    return any(line.strip() and not line.lstrip().startswith("#") for line in source.splitlines())


# a copy that defines its own `check` (or writes check records itself) could record any answer as passed:
# `check` rebound at the start of a line (def, =, del, for, a tuple's target), by name (`as check`, `:=`),
# or by the means that rebind names unseen (`globals()['check'] = ...` passed a wrong answer, `exec`,
# `setattr`, a function's `__code__`); not a sandbox, the ways known. The indent is white space within
# the line (`^\s*` ran on across lines: 3 s on 20 KB of blank lines).
# A name of `lib.site.checks` assigned through its module (`C.display = ...`: the record's answer rewritten on
# its way out) is one of these: every name the module holds, so a name added to it is covered.
_CHECKS_NAMES = "|".join(sorted((n for n in vars(CK) if not n.startswith("__")), key=len, reverse=True))
_TAMPERING = re.compile(
    r"^[^\S\n]*+(def\s+check\b|check\s*=[^=]|(\w+\.)+(" + _CHECKS_NAMES + r")\s*=[^=]"
    r"|(from|import)\s.*\bas\s+(check|display)\b|del\s+check\b|for\s+check\b|\(?[^\S\n]*+\*?check\s*,"
    r"|(\w++[^\S\n]*+,[^\S\n]*+)++\*?check\s*(,.*)?=[^=])"
    r"|RECORD_MIME|vnd\.factcheck-study|\bas\s+check\b|\bcheck\s*:="
    r"|(?<![.\w])(exec|eval|compile|__import__|setattr|delattr)\s*\(|(?<![.\w])(globals|vars|locals)\s*\(\s*\)"
    r"|__builtins__|\bbuiltins\b|\bimportlib\b|\bsys\s*\.\s*modules\b|__(code|globals|defaults|kwdefaults)__"
    r"|\b(display_pub|display_formatter)\b",  # IPython's own display path, below the check's `display`
    re.M,
)


def tampered(nb: Any) -> str | None:
    """Where a copy replaces the course's check or writes check records itself (cell and line), or None."""
    for i, cell in enumerate(nb.cells):
        if cell.get("cell_type") == "code" and (m := _TAMPERING.search(cell.get("source", ""))):
            return f"code cell {i} replaces the course's check ({shown(m.group(0).strip(), 60)})"
    return None


def status(record: Mapping[str, Any] | None, error: str | None = None) -> str:
    """One cell of the table: passed, off by how much (and the known mistake), not attempted, or the error."""
    if record is None:
        return error or NOT_ATTEMPTED
    if "broken" in record:
        return f"a check record that is not the check's ({record['broken']})"
    if "no_reference" in record:  # graded against its own record, it passed whatever its cells set
        return f"{PROBLEM}: exercise {record['no_reference']} is in no reference notebook"
    if not record.get("attempted", True):
        return NOT_ATTEMPTED
    if problem := record_problem({"exercise": "", **record}):  # edited by hand or cut short: said in its cell
        return f"a check record that is not the check's ({problem})"
    problem = verdict(record["answer"], record["expected"], record["tol"], record.get("mistakes"))
    if problem is None:
        return PASSED
    if as_number(record["answer"]) is None:  # none given as a number, or NaN (once "off by +nan")
        return "not a number"
    off = f"off by {offset_text(as_number(record['answer']), float(record['expected']), record['tol'])}"
    known = known_mistake(record["answer"], record["tol"], record.get("mistakes"), record["expected"])
    return f"{off} ({known})" if known else off


class _BoundedClient(NotebookClient):
    """nbclient's client with a bound on what a copy's cells print in all: past it the kernel is interrupted,
    the rest of the output dropped and no later cell run (`cut_cell` says where)."""

    def __init__(self, nb: Any, max_output_chars: int, **kwargs: Any) -> None:
        super().__init__(nb, **kwargs)
        self.output_left = max_output_chars
        self.cut_cell: int | None = None

    def output(self, outs: list, msg: dict, display_id: str | None, cell_index: int) -> Any:
        if self.cut_cell is not None:
            return None
        size = len(json.dumps(msg.get("content"), default=str, ensure_ascii=False).encode("utf-8", "replace"))
        self.output_left -= size + _MESSAGE_OVERHEAD  # UTF-8 bytes: `\u00e9` escapes counted `é` six times
        if self.output_left >= 0:
            return super().output(outs, msg, display_id, cell_index)
        self.cut_cell = cell_index
        asyncio.ensure_future(ensure_async(self.km.interrupt_kernel()))  # the cell stops with KeyboardInterrupt
        return None

    async def async_execute_cell(self, cell: Any, cell_index: int, *args: Any, **kwargs: Any) -> Any:
        if self.cut_cell is not None:
            return cell
        return await super().async_execute_cell(cell, cell_index, *args, **kwargs)


def _kernel_limit(memory_gb: float):  # noqa: ANN202 - Popen's preexec_fn
    """Run in the kernel's process before it starts: its data memory bounded (a MemoryError in the cell)."""
    limit = int(memory_gb * 2**30)

    def bound() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))

    return bound


def execute(
    path: Path,
    root: Path,
    timeout_s: int = CELL_TIMEOUT_S,
    max_output_mb: float = MAX_OUTPUT_MB,
    kernel_memory_gb: float = KERNEL_MEMORY_GB,
) -> Any:
    """A student's copy executed from `root`, every cell run even after an error, within the bounds above.

    The client runs in a thread of its own: in the main thread nbclient takes SIGTERM and SIGINT for itself,
    stops the kernel and lets grading go on to the next copy (and write a table); there, the command's own
    handlers stop everything (kernels included) and exit 143/130."""
    nb = read_notebook(path)
    client = _BoundedClient(
        nb,
        int(max_output_mb * 2**20),
        timeout=timeout_s,
        allow_errors=True,
        resources={"metadata": {"path": str(root)}},
    )
    failed: list[BaseException] = []

    def run() -> None:
        try:
            client.execute(preexec_fn=_kernel_limit(kernel_memory_gb))
        except BaseException as err:  # noqa: BLE001 - raised again in the command's thread
            failed.append(err)

    worker = threading.Thread(target=run, name="grading-kernel", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.2)  # short waits: a signal's handler runs between them
    if failed:
        raise failed[0]
    if client.cut_cell is not None:
        raise GradingError(
            f"{path}: code cell {client.cut_cell} printed past {max_output_mb:g} MB of output "
            "(--max-output-mb); stopped there, not graded"
        )
    return nb


def grade_notebook(
    path: Path,
    root: Path,
    run: bool = True,
    reference: Mapping[str, dict] | None = None,
    bounds: Mapping[str, float] | None = None,
) -> dict[str, str]:
    """Exercise -> status for one student's copy (executed afresh unless `run` is False, within `bounds`:
    `execute`'s keywords). The answer is the copy's; the expected value, the tolerance and the mistakes are
    the `reference` records' where given (a copy's own record holds what its cells said: a solution cell that
    set `HAND = 10.0` passed anything)."""
    try:
        nb = execute(path, root, **(bounds or {})) if run else read_notebook(path)
    except NamedError as exc:  # not a notebook (named by the reader): say so, grade the rest
        raise GradingError(str(exc)) from None
    except Exception as exc:  # a copy whose kernel died: say so, grade the rest
        raise GradingError(f"{path}: could not be run as a notebook ({type(exc).__name__}: {exc})") from exc
    numbers = {e.number for e in exercises(nb)}
    numbers |= {n for c in nb.cells if c.get("cell_type") == "code" and (n := checked(c.get("source", "")))}
    if not numbers:  # an empty notebook, or another one: a row of blanks said nothing
        raise GradingError(f"{path}: no exercise of the course in it (an empty notebook, or another one?)")
    if problem := tampered(nb):  # its records say what its own code wanted them to say
        raise GradingError(f"{path}: {problem}; such a copy cannot be graded")
    if reference is not None:  # every exercise of the copy's notebook(s), also one whose task cell was deleted
        numbers |= {n for n in reference if n.split(".")[0] in {m.split(".")[0] for m in numbers}}
    found, errors = records(nb), cell_errors(nb)
    if not run and found and (cell := _stub_without_its_error(nb)) is not None:
        raise GradingError(  # a student copy with the reference's outputs pasted in passed every exercise
            f"{path}: code cell {cell} still raises the exercise's stub, yet the copy holds check records: its saved "
            "outputs are not its cells' own; grade it without --no-run"
        )
    for n, rec in found.items():
        if reference is not None and "broken" not in rec:  # never the copy's own expected value and tolerance
            ref = reference.get(n)
            found[n] = (
                {**rec, **{k: ref.get(k) for k in ("expected", "tol", "mistakes")}} if ref else {"no_reference": n}
            )
    stale = answer_problems(nb)  # an answer left by an earlier exercise was graded as this one's
    return {n: _graded(found.get(n), errors.get(n), stale.get(n)) for n in sorted(numbers, key=_exercise_order)}


def _graded(record: Mapping[str, Any] | None, error: str | None, stale: str | None) -> str:
    """The status of one exercise of a copy: why its answer is not its own where that is so (unless the copy
    left the exercise untouched or its record is broken, which `status` says), else `status`."""
    if stale is None or (
        record is not None
        and not (record.get("attempted", True) and record.keys().isdisjoint({"broken", "no_reference"}))
    ):
        return status(record, error)
    return stale


def _stub_without_its_error(nb: Any) -> int | None:
    """The first code cell that still holds a solution stub's `raise NotImplementedError(...)` (the course's
    copies for a class) but whose saved outputs hold no error: outputs it cannot have produced."""
    for i, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code" or "raise NotImplementedError(" not in cell.get("source", ""):
            continue
        if not any(out.get("output_type") == "error" for out in cell.get("outputs", [])):
            return i
    return None


def _exercise_order(number: str) -> tuple[int, ...]:
    """ "10.2" before "10.10"."""
    return tuple(int(p) if p.isdigit() else 0 for p in number.split("."))


def reference_folder(root: Path | str) -> Path:
    """Where the executed notebooks of the checkout or workspace `root` are (the default reference)."""
    return Path(root) / EXECUTED_DIR.relative_to(ROOT)


def reference_records(reference: Path) -> dict[str, dict]:
    """The records of every executed notebook in `reference` (the pipeline's), by exercise."""
    found: dict[str, dict] = {}
    where: dict[str, Path] = {}
    for path in sorted(reference.glob("[0-9][0-9]_*.ipynb")):
        for number, rec in records(read_notebook(path)).items():
            if number in found:  # a stale copy beside the notebook graded against whichever sorted last
                raise GradingError(
                    f"{reference}: exercise {number} is recorded by {where[number].name} and {path.name}; keep one "
                    "executed notebook per exercise in the reference folder"
                )
            found[number], where[number] = rec, path
    if not found:
        raise GradingError(f"{reference}: no executed notebook with exercise checks (run the pipeline first)")
    return found


_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def read_sheet(path: Path) -> dict[str, Any]:
    """Exercise -> answer from an answer sheet (CSV with columns `exercise` and `answer`; empty = none)."""
    try:  # read as every filled sheet is (lib.sheets): field counts, repeated columns, encodings, blank rows
        sheet = SH.read_sheet(path, [], "answer sheet")
    except SH.SheetError as exc:
        raise GradingError(str(exc)) from None
    missing = {"exercise", "answer"} - set(sheet.columns)
    if missing:
        raise GradingError(f"{path}: an answer sheet needs the columns exercise and answer; missing {sorted(missing)}")
    answers: dict[str, Any] = {}
    for row, number, answer in zip(sheet.index, sheet["exercise"], sheet["answer"]):  # cells come stripped
        if number in answers:
            raise GradingError(f"{path}, row {row + 2}: exercise {number} is answered twice")
        answers[number] = answer or None
    return answers


def _course_number(number: str, reference: Mapping[str, Any], path: Path) -> str:
    """A sheet's exercise number as the course writes it: a spreadsheet saves `01.2` as the number `1.2` (and
    a whole sheet went ungraded); `1.2` is taken for `01.2` unless it could also be `01.20` cut short."""
    m = re.fullmatch(r"(\d)\.(\d+)", number)
    if number in reference or not m:
        return number
    padded = f"0{number}"
    if f"{padded}0" in reference:
        raise GradingError(f"{path}: exercise {number} could be {padded} or {padded}0 (a spreadsheet drops zeros)")
    return padded


def grade_sheet(path: Path, reference: Mapping[str, dict]) -> dict[str, str]:
    """Exercise -> status for one answer sheet, against the reference records."""
    answers: dict[str, Any] = {}
    written: dict[str, str] = {}  # how the sheet spells each exercise, to name both spellings of one answered twice
    for number, answer in read_sheet(path).items():
        if (course := _course_number(number, reference, path)) in answers:  # `01.1` and `1.1` both
            raise GradingError(f"{path}: exercise {course} is answered twice (as {written[course]} and as {number})")
        answers[course], written[course] = answer, number
    unknown = sorted(set(answers) - set(reference))
    if unknown:
        raise GradingError(f"{path}: no such exercise {unknown}; known: {sorted(reference)}")
    graded = {}
    for number, rec in sorted(reference.items()):
        answer = answers.get(number)
        value = as_number(float(answer)) if answer is not None and _PLAIN_NUMBER.fullmatch(answer) else None
        attempted = answer is not None
        if attempted and (value is None or math.isinf(value)):  # `1e400` read as inf was "off by +inf"
            graded[number] = f"not a number: {shown(answer, 60)}"
            continue
        graded[number] = status({**rec, "answer": value, "attempted": attempted})
    return graded


def grade(
    folder: Path | str,
    root: Path | str = ROOT,
    reference: Path | str | None = None,
    run: bool = True,
    bounds: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """One row per submission (a notebook copy or an answer sheet under `folder`), one column per exercise;
    `bounds` as `execute` takes them (`max_output_mb`, `kernel_memory_gb`)."""
    folder, root = Path(folder), Path(root)
    if not folder.is_dir():
        raise GradingError(f"{folder}: not a folder of submissions")
    files = sorted(  # `E_UPPER.CSV` was left out without a word
        p for p in folder.rglob("*") if p.suffix.lower() in (".ipynb", ".csv") and ".ipynb_checkpoints" not in p.parts
    )
    if not files:
        raise GradingError(f"{folder}: no notebook (.ipynb) or answer sheet (.csv) to grade")
    ref = reference_records(Path(reference or reference_folder(root)))
    rows = {}
    for path in files:
        name = str(path.relative_to(folder))
        try:
            sheet = path.suffix.lower() == ".csv"
            rows[name] = grade_sheet(path, ref) if sheet else grade_notebook(path, root, run, ref, bounds)
        except (GradingError, CourseError) as err:  # one broken submission: named in its row, the rest graded
            rows[name] = {PROBLEM: str(err)}
    table = pd.DataFrame.from_dict(rows, orient="index").sort_index(axis=1).fillna("")
    if PROBLEM in table:  # last, where a reader of the table looks for it
        table = table[[c for c in table.columns if c != PROBLEM] + [PROBLEM]]
    table.index.name = "submission"
    return table


def write_sheet(out: Path | str, notebooks_dir: Path | str = NOTEBOOKS_DIR) -> Path:
    """A blank answer sheet: one row per exercise of the course, the task's first sentence, an empty answer."""
    rows = []
    for path in sorted(Path(notebooks_dir).glob("[0-9][0-9]_*.ipynb")):
        for ex in exercises(path):
            rows.append({"exercise": ex.number, "task": ex.task.split(". ")[0][:160], "answer": ""})
    out = Path(out)
    OUT.write_csv(pd.DataFrame(rows, columns=list(SHEET_COLUMNS)), out, index=False)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(prog="python -m lib.site.grading", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sheet", help="write a blank answer sheet (CSV) for the class")
    s.add_argument("--out", type=lambda t: Path(file_path(t)), default=Path("answers.csv"))
    g = sub.add_parser("grade", help="grade a folder of students' notebook copies and answer sheets")
    g.add_argument("folder", type=lambda t: Path(nonempty_path(t)))  # "" (an unset variable) graded the checkout
    g.add_argument(
        "--root",
        type=lambda t: Path(nonempty_path(t)),
        default=ROOT,
        help="the checkout or workspace whose outputs the checks read",
    )
    g.add_argument(
        "--reference",
        type=lambda t: Path(nonempty_path(t)),
        help="executed notebooks whose records hold the expected values (default ROOT/outputs/notebooks)",
    )
    g.add_argument("--no-run", action="store_true", help="read the copies' saved outputs instead of running them")
    g.add_argument("--out", type=lambda t: Path(file_path(t)), help="also write the table as CSV")
    g.add_argument(
        "--max-output-mb",
        type=flag_of(Bound),
        default=MAX_OUTPUT_MB,
        help="what one copy's cells may print in all; past it the copy is stopped and not graded",
    )
    g.add_argument(
        "--kernel-memory-gb",
        type=flag_of(KernelBound),
        default=KERNEL_MEMORY_GB,
        help="data memory of a copy's kernel (at least 1); past it a cell fails with MemoryError",
    )
    args = ap.parse_args(argv)
    if args.command == "sheet":
        OUT.refuse_targets([args.out])
        OUT.refuse_stage_outputs([args.out])
        if args.out.exists():  # a student's filled sheet has this name as often as not
            raise NamedError(f"{args.out}: exists (a filled answer sheet?); remove it or name another file")
        print(f"wrote {write_sheet(args.out)}")
        return
    reference = args.reference or reference_folder(args.root)  # the default too: another root's notebooks
    OUT.refuse_targets([args.out], [args.folder, reference])  # never over a student's sheet or a reference
    OUT.refuse_stage_outputs([args.out])
    root = args.root.resolve()
    if root != ROOT.resolve():  # the graded study's data, outputs and files too (a workspace's dev.json was replaced)
        OUT.refuse_targets([args.out], data_dir=root / "data")
        if (root / "dvc.yaml").is_file():
            OUT.refuse_stage_outputs([args.out], dvc_yaml=root / "dvc.yaml")
    bounds = {"max_output_mb": args.max_output_mb, "kernel_memory_gb": args.kernel_memory_gb}
    table = grade(args.folder, args.root, reference, run=not args.no_run, bounds=bounds)
    with pd.option_context("display.max_colwidth", 80, "display.width", 200):
        print(table.to_string())
    if args.out:
        OUT.write_csv(table, args.out)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    run_main(main)
