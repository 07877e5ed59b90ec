"""Whether a pipeline run reproduced the committed numbers: exactly on the machine kind that made them,
within a tolerance per metric family elsewhere.

Floating-point kernels differ between CPUs (AVX-512 or not, another vendor's BLAS paths), so a fresh clone on
another CPU can move dense and hybrid retrieval figures in the fourth decimal while every BM25 figure stays
the same. `references/reproduction.yaml` records the machine kind that made the committed metrics and plot
data, and the tolerance of each metric family (first matching pattern wins, a glob over `file:dotted.key`).
The check, after Anserini's regressions:
- on the recorded machine kind every file must be byte for byte the committed one;
- elsewhere every number is OK (within its tolerance), OKish (within 1.5 times it) or FAIL, and every
  categorical result (a verdict word, a flag, a list of methods) that changed is listed apart: a changed
  conclusion is never a rounding matter;
- a call written `borderline` (an interval ending within its tolerance of the threshold) on one side and a
  firm call on the other is listed as `borderline`, not failed: the word said that the CPU may decide it;
  between two firm calls a change fails;
- a family marked `trained` (the outputs of a model trained by the pipeline: QGEN, the verifiers, and what is
  computed from their outputs) has no tolerance: training follows another path on another CPU, so elsewhere
  its numbers are listed as `trained` and its changed categorical results as `changed (trained)`, reported and
  counted, not failed. On the recorded machine kind they are byte for byte like every other file.

`python -m lib.reproduction check` (`make check-pipeline`) compares `outputs/metrics/*.json` and
`outputs/plots/*.csv` with the committed ones (`git show HEAD:<path>`) and exits 1 on a FAIL or a changed
categorical result. On the recorded kind it also compares the committed executed notebooks and pages
(`outputs/notebooks/*`) byte for byte, except those the reference lists under `measured` (a notebook that
shows this run's measured seconds); elsewhere it counts the notebooks that differ, whose numbers are the ones
compared above. `python -m lib.reproduction machine` prints this machine's kind, the value to record.
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import io
import json
import math
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from lib.cli import ArgumentParser, NamedError, finite_real, run_main
from lib.data import DuplicateKey, no_duplicate_keys, not_utf8, within_size
from lib.evaluation.comparisons import BORDERLINE
from lib.params import ParamsError, read_yaml
from lib.paths import ROOT

REFERENCE = ROOT / "references" / "reproduction.yaml"
CHECKED = ("outputs/metrics/*.json", "outputs/plots/*.csv")
NOTEBOOKS = ("outputs/notebooks/*",)  # executed notebooks and the explorer page, committed with the code
OKISH = 1.5  # a difference up to this many tolerances is OKish: reported, not failed
TRAINED, CHANGED_TRAINED = "trained", "changed (trained)"  # a `trained` family's number / categorical result
FLAGS = ("avx512f", "avx2", "fma")  # instruction sets that change which kernels the numeric libraries run


class ReproductionError(NamedError, ValueError):
    """A reference file or a committed file that cannot be read: names the file."""


def machine_kind(cpuinfo: str | None = None) -> dict[str, Any]:
    """This machine's kind as far as numbers go: the CPU model name and which of `FLAGS` it has."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            cpuinfo = ""
    model, flags = "unknown", set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and model == "unknown":
            model = value.strip()
        elif key.strip() == "flags" and not flags:
            flags = set(value.split())
    return {"cpu": model, "flags": [f for f in FLAGS if f in flags]}


def _tolerance(value: Any) -> bool:
    """A finite number >= 0 (`true` was 1.0 and `.inf` called every difference `trained`)."""
    return finite_real(value) and value >= 0  # 10**400 raised OverflowError: a traceback


def load_reference(path: Path | str = REFERENCE) -> dict[str, Any]:
    """The recorded machine kind, the default tolerance and the families, checked."""
    path = Path(path)
    try:
        ref = read_yaml(path)  # YAML 1.2: 1e-6 is a number, as a reader of the file expects
    except ParamsError as err:
        raise ReproductionError(f"cannot read the reproduction reference: {err}") from None
    problems = []
    if not isinstance(ref, dict) or not isinstance(ref.get("machine"), dict):
        raise ReproductionError(f"{path}: expected a mapping with `machine`, `default` and `families`")
    machine = ref["machine"]
    flags = machine.get("flags")
    if set(machine) != {"cpu", "flags"} or not isinstance(machine["cpu"], str) or not machine["cpu"].strip():
        problems.append(
            f"machine: expected cpu (text) and flags (a list of {'/'.join(FLAGS)}), as `machine` prints them"
        )
    elif not isinstance(flags, list) or flags != [f for f in FLAGS if f in flags] or len(set(flags)) != len(flags):
        # another order made the recording machine "not the recorded kind", read to tolerances only
        problems.append(f"machine.flags: expected a list of {', '.join(FLAGS)} in that order, as `machine` prints them")
    if not _tolerance(ref.get("default")):
        problems.append("default: expected a tolerance >= 0")
    if not isinstance(ref.get("families") or [], list):
        problems.append("families: expected a list of {match, tolerance} (or {match, trained})")
    for i, fam in enumerate(ref.get("families") if isinstance(ref.get("families"), list) else []):
        if not isinstance(fam, dict) or not isinstance(fam.get("match"), str):
            problems.append(f"families[{i}].match: expected a glob over file:dotted.key")
        elif fam.get("trained") is not None:
            if not isinstance(fam["trained"], str) or not fam["trained"].strip() or "tolerance" in fam:
                problems.append(f"families[{i}].trained: expected the reason (text) and no tolerance")
        elif not _tolerance(fam.get("tolerance")):
            problems.append(f"families[{i}].tolerance: expected a number >= 0 (or `trained: <reason>`)")
    measured = ref.get("measured", [])
    if not isinstance(measured, list) or not all(isinstance(m, str) and m.strip() for m in measured):
        problems.append("measured: expected a list of file globs (notebooks that show measured seconds)")
    if problems:
        raise ReproductionError(f"{path}: " + "; ".join(problems))
    return ref


def family(key: str, ref: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The first family whose glob matches `file:dotted.key`, or None (the default applies)."""
    return next((fam for fam in ref.get("families") or [] if fnmatch.fnmatchcase(key, fam["match"])), None)


def tolerance(key: str, ref: Mapping[str, Any]) -> float:
    """The tolerance of `file:dotted.key`: its family's, else the default; a `trained` family's is infinite
    (its numbers are reported, not bounded, off the recorded machine)."""
    fam = family(key, ref)
    if fam is None:
        return float(ref["default"])
    return math.inf if fam.get("trained") else float(fam["tolerance"])


def case_tolerances(reference: Path | str = REFERENCE) -> Callable[[Any], float]:
    """How far the figure of a case may move on another CPU, for `lib.evaluation.comparisons.paired_effects`:
    a case (a tuple of its setting's parts, e.g. ("dense", "claim", "oracle"), or a string) gets the tolerance
    of the first family whose glob matches its parts joined by `/`."""
    ref = load_reference(reference)
    return lambda case: tolerance("/".join(map(str, case if isinstance(case, tuple) else (case,))), ref)


def leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key, value) of every leaf of parsed JSON; a list of names is one leaf (a group)."""
    if isinstance(value, Mapping) and not value:  # an empty object is a leaf: a key that vanished is named
        yield prefix, {}
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from leaves(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, list) and value and not all(isinstance(x, str) for x in value):
        for i, v in enumerate(value):
            yield from leaves(v, f"{prefix}[{i}]")
    else:
        yield prefix, value


def csv_leaves(text: str) -> Iterator[tuple[str, Any]]:
    """(row.column, value) of a plot-data CSV (first column the row key), numbers parsed. A column named twice, a
    row key given twice or a row of another width is a `ValueError`: read into one dict, a changed row put before
    the real one, or an extra cell, was compared with nothing ("equals the committed one")."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return
    header = rows[0]
    if (twice := next((h for i, h in enumerate(header) if h in header[:i]), None)) is not None:
        raise ValueError(f"the column {twice!r} is named twice")
    keys: set[str] = set()
    for n, row in enumerate(rows[1:], start=2):
        if not row:  # a blank line (pandas skips it too)
            continue
        if len(row) != len(header):
            raise ValueError(f"row {n} has {len(row)} cells where the header has {len(header)}")
        if row[0] in keys:
            raise ValueError(f"row {n}: the row key {row[0]!r} is given twice")
        keys.add(row[0])
        for col, cell in zip(header[1:], row[1:]):
            try:
                value: Any = float(cell)
            except ValueError:
                value = cell
            yield f"{row[0]}.{col}", value


def _parsed(name: str, text: str, side: str = "") -> dict[str, Any]:
    """A file's leaves; errors name the file and `side` (the committed or the produced one)."""
    label = f"{name} ({side})" if side else name
    try:
        pairs = (
            csv_leaves(text) if name.endswith(".csv") else leaves(json.loads(text, object_pairs_hook=no_duplicate_keys))
        )
        out: dict[str, Any] = {}
        for key, value in pairs:  # two leaves of one dotted key: the first was compared with nothing
            if key in out:
                raise ValueError(f"two values flatten to the key {key!r} (a key with a dot beside a nested one)")
            out[key] = value
        return out
    except json.JSONDecodeError as err:
        raise ReproductionError(f"{label}: not JSON: {err}") from None
    except (DuplicateKey, ValueError) as err:  # a repeated key or a ragged CSV: compared with nothing
        raise ReproductionError(f"{label}: {err}") from None
    except RecursionError:  # a traceback
        raise ReproductionError(f"{label}: malformed JSON: nested deeper than Python can read") from None


def _group(v: Any) -> Any:
    """A list of names (a group of methods, ordered by means that may swap on another CPU) in one order, each name
    as often as it is listed (a set took ["x", "x", "y"] for ["x", "y"])."""
    return tuple(sorted(v)) if isinstance(v, list) and all(isinstance(x, str) for x in v) else v


def _is_number(v: Any) -> bool:
    """A number compared within a tolerance; a whole number beyond a float's range is compared exactly, as a
    categorical value (float() of it was an OverflowError traceback)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    try:
        float(v)
    except OverflowError:
        return False
    return True


def _typed(value: Any) -> str:
    """A value with its kind, where two of different kinds would print alike: `number 0.994`, `text '0.994'`."""
    kinds = {bool: "flag", int: "number", float: "number", str: "text", list: "list", dict: "mapping"}
    return f"{kinds.get(type(value), type(value).__name__)} {value!r}" if value is not None else "null"


def compare(committed: Mapping[str, str], produced: Mapping[str, str], ref: Mapping[str, Any]) -> pd.DataFrame:
    """Every leaf of the produced files against the committed ones ({file name: text} each): one row per
    number that differs (status OK, OKish or FAIL against its tolerance) and per categorical value that
    changed (status `changed`), and a row for each file or key on one side only (`missing` / `new`)."""
    rows = []
    for name in sorted(set(committed) | set(produced)):
        if name not in produced or name not in committed:
            rows.append({"file": name, "key": "", "status": "missing" if name not in produced else "new"})
            continue
        old, new = _parsed(name, committed[name], "committed"), _parsed(name, produced[name], "produced")
        for key in list(old) + [k for k in new if k not in old]:
            row = {"file": name, "key": key, "committed": old.get(key), "produced": new.get(key)}
            if key not in new or key not in old:
                rows.append(row | {"status": "missing" if key not in new else "new"})
            elif _is_number(old[key]) and _is_number(new[key]):
                a, b = float(old[key]), float(new[key])
                if a == b or (math.isnan(a) and math.isnan(b)):
                    continue
                tol, diff = tolerance(f"{Path(name).name}:{key}", ref), abs(a - b)  # file:key, as documented
                if math.isinf(tol):
                    status = TRAINED
                else:
                    status = "OK" if diff <= tol else "OKish" if diff <= OKISH * tol else "FAIL"
                rows.append(row | {"difference": b - a, "tolerance": tol, "status": status})
            elif _group(old[key]) != _group(new[key]) or type(old[key]) is not type(new[key]):  # a group of tied
                # methods: its order is no result; `true` become `1` (True == 1 in Python) is a change
                trained = (family(f"{Path(name).name}:{key}", ref) or {}).get("trained")
                if trained:
                    status = CHANGED_TRAINED
                elif BORDERLINE in (old[key], new[key]):  # the noise the word says may decide the call did
                    status = BORDERLINE
                else:
                    status = "changed"
                if type(old[key]) is not type(new[key]):  # 0.994 against "0.994" printed alike beside "changed"
                    row |= {"committed": _typed(old[key]), "produced": _typed(new[key])}
                rows.append(row | {"status": status})
    columns = ["file", "key", "committed", "produced", "difference", "tolerance", "status"]
    return pd.DataFrame(rows, columns=columns)


def verdict(table: pd.DataFrame) -> tuple[bool, str]:
    """(passed, the sentence): a run passes when no number FAILs and no categorical value, file or key changed."""
    counts = table["status"].value_counts().to_dict()
    bad = sum(counts.get(s, 0) for s in ("FAIL", "changed", "missing", "new"))
    statuses = ("OK", "OKish", BORDERLINE, TRAINED, CHANGED_TRAINED, "FAIL", "changed", "missing", "new")
    parts = ", ".join(f"{counts[s]} {s}" for s in statuses if counts.get(s))
    if not len(table):
        return True, "every number and every categorical result equals the committed one"
    head = f"{len(table)} value(s) differ from the committed ones ({parts})"
    if bad:
        return False, f"{head}: not reproduced"
    trained = counts.get(TRAINED, 0) + counts.get(CHANGED_TRAINED, 0)
    if trained:
        return True, (
            f"{head}: reproduced within the tolerances of references/reproduction.yaml, except the outputs of "
            f"models trained here ({trained}, {counts.get(CHANGED_TRAINED, 0)} of them categorical), which another "
            "CPU trains differently"
        )
    return True, f"{head}: reproduced within the tolerances of references/reproduction.yaml"


def committed_files(patterns: Sequence[str] = CHECKED, root: Path = ROOT, rev: str = "HEAD") -> dict[str, str]:
    """{path: text} of the files matching `patterns` at git revision `rev`."""
    out = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev], cwd=root, capture_output=True, text=True)
    if out.returncode != 0:
        raise ReproductionError(f"{root}: git ls-tree {rev} failed: {out.stderr.strip()}")
    paths = [p for p in out.stdout.splitlines() if any(fnmatch.fnmatchcase(p, pat) for pat in patterns)]
    files = {}
    for p in paths:
        data = subprocess.run(["git", "show", f"{rev}:{p}"], cwd=root, capture_output=True, check=True).stdout
        try:
            files[p] = data.decode("utf-8")
        except UnicodeDecodeError as err:  # a traceback named no file
            raise ReproductionError(
                f"{p} (committed, {rev}): not UTF-8 text (byte {err.start:,}: {err.reason})"
            ) from None
    return files


def differing(committed: Mapping[str, str], produced: Mapping[str, str]) -> list[str]:
    """The paths whose text differs between the two, or that only one of them has, sorted."""
    return sorted(p for p in set(committed) | set(produced) if committed.get(p) != produced.get(p))


def produced_files(patterns: Sequence[str] = CHECKED, root: Path = ROOT) -> dict[str, str]:
    """{path: text} of the working tree's files matching `patterns` (each bounded and UTF-8, or named)."""
    return {p.relative_to(root).as_posix(): _text(p) for pat in patterns for p in sorted(root.glob(pat)) if p.is_file()}


def _text(path: Path) -> str:
    within_size(path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:  # a metrics file edited or damaged: named, never a traceback
        raise not_utf8(path, err.reason) from None


def check(root: Path = ROOT, reference: Path | str = REFERENCE, kind: Mapping[str, Any] | None = None) -> int:
    """The check of `make check-pipeline`: exact on the recorded machine kind, tolerances elsewhere."""
    ref = load_reference(reference)
    kind = dict(kind or machine_kind())
    same = kind == ref["machine"]
    committed, produced = committed_files(root=root), produced_files(root=root)
    where = f"this machine ({kind['cpu']}, {', '.join(kind['flags']) or 'no ' + '/'.join(FLAGS)})"
    pages_differ = differing(committed_files(NOTEBOOKS, root), produced_files(NOTEBOOKS, root))
    measured = [p for p in pages_differ if any(fnmatch.fnmatchcase(p, m) for m in ref.get("measured", []))]
    if same:
        differ = differing(committed, produced) + [p for p in pages_differ if p not in measured]
        print(f"{where} is the recorded kind: the files must be the committed ones byte for byte")
        for p in differ:
            print(f"  differs: {p}")
        for p in measured:
            print(
                f"  differs, as expected: {p} (shows this run's measured seconds; `measured` in {Path(reference).name})"
            )
        if differ:
            raise ReproductionError(
                f"{len(differ)} file(s) differ from the committed ones (listed above): not reproduced"
            )
        print("reproduced byte for byte")
        return 0
    print(f"{where} is not the recorded kind ({ref['machine']['cpu']}): numbers within their tolerances")
    print(
        f"{len(pages_differ)} of the committed executed notebooks and pages differ byte for byte (on another kind "
        "that decides nothing: their numbers are those of the metrics and plot data judged below)"
    )
    table = compare(committed, produced, ref)
    with pd.option_context("display.max_rows", None, "display.width", 200, "display.max_colwidth", 70):
        shown = table[~table["status"].isin(["OK", TRAINED])]
        print(shown.to_string(index=False) if len(shown) else "(every difference is within its tolerance)")
    passed, sentence = verdict(table)
    if not passed:
        raise ReproductionError(sentence)
    print(sentence)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(
        prog="python -m lib.reproduction", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("check", help="compare the working tree's metrics and plot data with the committed ones")
    sub.add_parser("machine", help="this machine's kind, as references/reproduction.yaml records it")
    args = ap.parse_args(argv)
    if args.cmd == "machine":
        print(yaml.safe_dump({"machine": machine_kind()}, sort_keys=False), end="")
        return 0
    try:
        return check()
    except ReproductionError as err:
        raise SystemExit(f"error: {err}") from None


if __name__ == "__main__":
    run_main(main)
