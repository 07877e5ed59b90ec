"""The numbered notebooks as a catalogue: their names and one-line summaries, and the headline numbers
the front page and `make all` show (params section `report`, read from the metrics files)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import nbformat

from lib import outputs as OUT
from lib.cli import NamedError, first_line, shown
from lib.data import not_utf8, parse_json, within_size
from lib.evaluation.printing import apart
from lib.paths import METRICS_DIR, NOTEBOOKS_DIR


def read_notebook(path: Path | str) -> Any:
    """A notebook file, read as nbformat 4: a pipe or a folder is named and never opened, a file over
    `$LIB_MAX_INPUT_BYTES` never read whole (a 600 MB output held 1.4 GB), and anything nbformat cannot read
    is one `NamedError` naming the file."""
    path = Path(path)
    if not path.is_file():
        raise NamedError(
            f"{path}: {'no such notebook' if not path.exists() else 'not a notebook file (a folder, a pipe?)'}"
        )
    within_size(path)
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as err:  # noqa: BLE001 - nbformat raises JSON, schema and version errors alike
        raise NamedError(
            f"{path}: not a notebook nbformat can read ({type(err).__name__}: {first_line(err)})"
        ) from None
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise NamedError(f"{path}: `cells` is {type(cells).__name__}, expected a list of cells (a damaged notebook)")
    for i, cell in enumerate(cells):  # nbformat reads a damaged cell without a word; every reader would trip on it
        if not isinstance(cell, dict) or not isinstance(cell.get("source"), str) or "cell_type" not in cell:
            got = type(cell.get("source")).__name__ if isinstance(cell, dict) else type(cell).__name__
            raise NamedError(
                f"{path}: cell {i}: expected a cell with a type and text source, got {got} (a damaged notebook)"
            )
    try:  # the rest of the format (an output's text that is a number, a kernelspec that is no object)
        nbformat.validate(nb)
    except nbformat.ValidationError as err:
        where = "/".join(str(p) for p in err.absolute_path) or "the notebook"
        raise NamedError(f"{path}: {where}: {first_line(err, 120)} (a damaged notebook)") from None
    return nb


def summary(notebook: Path | str) -> tuple[str, str]:
    """(title, one-line summary) from a notebook's first cell: `# NN · Title: summary` or
    `# NN · Title` followed by a `**Question.**` sentence."""

    first = read_notebook(notebook).cells[0].source.strip()
    heading = first.splitlines()[0].lstrip("# ").strip()
    title = heading.split("·", 1)[-1].strip()
    name, _, rest = title.partition(":")
    return name.strip(), (rest.strip() or title)


CONCLUSION_HEADING = "## Conclusion"  # the markdown cell before the code cell that computes a notebook's conclusion


def conclusion(executed: Path | str, points: Sequence[int] = (1,)) -> list[str]:
    """The headline of an executed notebook: the `points` (numbered from 1) of what its conclusion cell
    displayed (the code cell after the `## Conclusion` heading), so the front page says what the notebook's
    own functions concluded, with the same words and the same rounding. A notebook without that cell or
    output, or with fewer points, is an error."""
    cells = read_notebook(executed).cells
    at = next(
        (
            i
            for i, c in enumerate(cells)
            if c.cell_type == "markdown" and c.source.strip().startswith(CONCLUSION_HEADING)
        ),
        None,
    )
    code = next((c for c in cells[at + 1 :] if c.cell_type == "code"), None) if at is not None else None
    if code is None:
        raise ConclusionError(
            f"{executed}: no code cell after a {CONCLUSION_HEADING!r} heading: the notebook states no conclusion"
        )
    found: list[str] = []
    for out in code.get("outputs", []):
        text = (out.get("data") or {}).get("text/markdown") or ""
        parts = re.split(r"(?m)^- ", text.strip())
        found += [" ".join(p.split()) for p in parts[1:] if p.strip()]  # parts[0]: what precedes the first point
    if not found or max(points) > len(found) or min(points) < 1:
        raise ConclusionError(
            f"{executed}: its conclusion shows {len(found)} point(s); the front page asks for points {list(points)} "
            "(params report.conclusion_points; run the notebook with `dvc repro` if it shows none)"
        )
    return [found[p - 1] for p in points]


def numbered(notebooks_dir: Path | str = NOTEBOOKS_DIR) -> list[str]:
    """The numbered notebooks' names (`01_knowledge_store`, ...), in order."""
    return sorted(p.stem for p in Path(notebooks_dir).glob("[0-9][0-9]_*.ipynb"))


class ConclusionError(NamedError, ValueError):
    """An executed notebook without the conclusion the front page shows (file and what was expected)."""


def read_json_file(path: Path | str) -> Any:
    """A JSON output (a metrics file) as read: one that is no JSON, no UTF-8 or no regular file is a named
    error (a pipe is never opened)."""
    path = Path(path)
    within_size(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise not_utf8(path, err.reason) from None
    return parse_json(path, text, "-", "JSON")


def read_metrics(path: Path | str) -> dict[str, Any]:
    """A metrics file, flattened (`flatten`), read by `read_json_file`."""
    tree = read_json_file(path)
    if not isinstance(tree, dict):  # `dvc metrics show` reads an object of named values; a list has no names
        raise NamedError(f"{path}: a metrics file holds a JSON object of named values, not {shown(tree, 60)}")
    try:
        return flatten(tree)
    except ValueError as err:
        raise NamedError(f"{path}: {err}") from None


def headlines(
    spec: Mapping[str, str], metrics_dir: Path | str = METRICS_DIR, notebook: str | None = None
) -> dict[str, Any]:
    """{label: value} for `{label: "file.json:flattened.key"}` (one notebook's `report.headlines`); a missing file
    or key is an error naming `report.headlines.<notebook>.<label>`, so a renamed metric cannot silently vanish
    from the index."""
    out, cache = {}, {}
    where = f"report.headlines.{notebook}" if notebook else "report.headlines"  # a label may recur per notebook
    for label, ref in spec.items():
        file, _, key = ref.partition(":")
        path = Path(metrics_dir) / file
        if path not in cache:
            if not path.exists():
                raise FileNotFoundError(f"{path} is missing: run `dvc repro` first")
            cache[path] = read_metrics(path)
        if key not in cache[path]:
            raise NamedError(f"{where}.{label}: {file} has no metric {key!r} (see `python -m lib.site.render metrics`)")
        value = cache[path][key]
        if not isinstance(value, int | float | str):  # a number, a flag or a setting's name; a list or null is none
            raise NamedError(
                f"{where}.{label}: {file}'s {key!r} is {shown(value, 60)}, expected a number, a flag or a name"
            )
        if problem := headline_problem(key, value):  # -5 documents or an NDCG of 1.7 was printed as it stood
            raise NamedError(f"{where}.{label}: {file}'s {key!r} is {shown(value, 60)}, expected {problem}")
        out[label] = value
    return out


# What a headline's metric can be, by the name of a part of its key: measures of retrieval and verdicts and
# shares lie in [0, 1], correlations in [-1, 1], counts are whole numbers >= 0 (NaN, an undefined measure, is
# shown so). Every numeric headline of params.yaml has a kind (a test checks it); a key of none is shown as is.
KINDS = {
    "count": re.compile(r"documents|claims|queries|passages|wrong_verdicts"),
    "correlation": re.compile(r"rho|tau"),
    "measure": re.compile(
        r"(condensed_)?(ndcg|p|recall|precision|map|mrr|bpref|judged|success)(@\d+)?|macro_f1|accuracy"
        r"|averitec@\d+|qa|(.*_)?share|.*_leak_claims(_strict|_loose)?|(right|wrong) verdicts"
    ),
}
EXPECTED = {
    "count": "a count (a whole number from 0 to 2**53)",
    "correlation": "a correlation from -1 to 1",
    "measure": "a measure from 0 to 1",
}


def headline_kind(key: str) -> str | None:
    """The kind of a metric (`KINDS`) by the parts of its flattened key, or None where no part names one."""
    parts = re.split(r"[.|/]", key)
    return next((kind for kind, pattern in KINDS.items() if any(pattern.fullmatch(p) for p in parts)), None)


def headline_problem(key: str, value: Any) -> str | None:
    """What a headline's value should be and is not (None where it is, or where its key names no known kind)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and math.isnan(value))
    ):
        return None
    kind = headline_kind(key)
    if kind == "count":
        whole = isinstance(value, int) or value.is_integer()  # (float(10**400) overflows: not asked)
        ok = whole and 0 <= value <= 2**53
    elif kind == "correlation":
        ok = -1 <= value <= 1
    elif kind == "measure":
        ok = 0 <= value <= 1
    else:  # another kind (a difference, a ratio): shown as it is, an infinity as "undefined"
        ok = True
    return None if ok else EXPECTED[kind]


RETRIEVER_NAMES = {"bm25": "BM25", "dense": "dense", "hybrid": "hybrid"}
SCOPE_NAMES = {"claim": "claim pool", "global": "open collection"}
_SETTING = re.compile(r"\b(bm25|dense|hybrid)/(claim|global)\b")


def unnamed_settings(spec: Mapping[str, Mapping[str, str]]) -> list[str]:
    """The headlines (`notebook: label`) whose metric rests on one retriever and scope while the label does
    not name both: the claim's pool and the open collection can give opposite answers, so a headline says
    which one it shows."""
    problems = []
    for name, lines in spec.items():
        for label, ref in lines.items():
            m = _SETTING.search(ref)
            if m and not (RETRIEVER_NAMES[m.group(1)] in label and SCOPE_NAMES[m.group(2)] in label):
                problems.append(f"{name}: {label}")
    return problems


def store_setting(metrics_dir: Path | str = METRICS_DIR) -> str | None:
    """The store every headline rests on, as one sentence from `store.json` (None before the store's notebook
    ran): its source, whether the dev gold answers are documents in it, and the share of dev claims with a
    relevant document with and without them (measured by the stage `without_gold` when it ran, else
    `store.json`'s estimate)."""
    path, rebuilt = Path(metrics_dir) / "store.json", Path(metrics_dir) / "without_gold.json"
    if not path.exists():
        return None
    try:  # a file edited by hand or by another version of the notebooks: named, never a traceback
        return _store_sentence(OUT.read_json(path), OUT.read_json(rebuilt) if rebuilt.exists() else None)
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as err:
        if isinstance(err, NamedError):
            raise
        raise NamedError(
            f"{path} (or {rebuilt.name}): not the metrics the store's notebooks write ({type(err).__name__}: "
            f"{shown(str(err), 200)}); rerun `dvc repro`"
        ) from None


def _share(value: Any, key: str) -> float:
    """A share from a metrics file: a number from 0 to 1 (NaN, a flag or a text printed `nan%` or `100.0%`)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"{key} is {shown(value, 40)}, expected a share from 0 to 1")
    return float(value)


def _store_sentence(store: Any, rebuilt: Any) -> str:
    """`store_setting`'s sentence from the two metrics files' contents."""
    s, share = store["settings"], _share(store["claims_with_relevant_share"], "claims_with_relevant_share")
    if not isinstance(s["include_gold"], bool):  # the text "false" read as true
        raise TypeError(f"settings.include_gold is {shown(s['include_gold'], 40)}, expected true or false")
    head = (
        f"Every headline rests on the {s['source']} store with `store.include_gold: {str(s['include_gold']).lower()}`: "
    )
    if not s["include_gold"]:
        return (
            head + f"only retrieved documents are in it, and {apart(share, '.1%', (0.0, 1.0))} of dev claims have a "
            "relevant document."
        )
    if rebuilt is not None:
        r = rebuilt["store"]
        counts = [r[k] for k in ("claims_with_relevant", "claims")]
        if not all(isinstance(c, int) and not isinstance(c, bool) for c in counts):
            raise TypeError(f"without_gold.json store counts are {shown(counts, 40)}, expected whole numbers")
        if not counts[1]:  # it read "expected whole numbers" of [0, 0]
            raise ValueError("without_gold.json: store.claims is 0, expected at least 1")
        if not 0 <= counts[0] <= counts[1]:  # 600 of 500 claims printed "120.0% in the store rebuilt without them"
            raise ValueError(
                f"without_gold.json store counts are {shown(counts, 40)}: claims_with_relevant must lie from 0 to claims"
            )
        without = f"{apart(counts[0] / counts[1], '.1%', (0.0, 1.0))} in the store rebuilt without them"
        more = "; notebook 10, section 5, sets the main figures beside those of that store."
    else:
        estimate = _share(store["claims_with_relevant_without_gold_share"], "claims_with_relevant_without_gold_share")
        without = f"an estimated {apart(estimate, '.1%', (0.0, 1.0))} without them"
        more = "."
    return (
        head + f"the dev annotators' gold answers are documents in it, so {apart(share, '.1%', (0.0, 1.0))} of dev "
        "claims have a relevant "
        f"document ({without}){more}"
    )


def format_value(value: Any) -> str:
    """A headline number as the pages and `make all` show it: floats to three decimals, flags as yes or no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and math.isnan(value):
        return "undefined (NaN)"  # a metric with nothing to measure: never printed as a number
    if isinstance(value, float) and math.isinf(value):
        return f"undefined ({'-' if value < 0 else ''}infinite)"  # `1e999` was shown as "inf"
    if isinstance(value, float) and 0 < abs(value) < 0.0005:
        return f"{value:.2g}"  # a share of 0.0004 is not "0.000"
    # kept off 1 and 0 as printed (a share of 0.99951 was "1.000"), never "-0.000"
    return apart(value, ".3f", (-1.0, 0.0, 1.0)) if isinstance(value, float) else str(value)


def headline_lines(
    spec: Mapping[str, Mapping[str, str]],
    notebooks_dir: Path | str = NOTEBOOKS_DIR,
    metrics_dir: Path | str = METRICS_DIR,
) -> list[str]:
    """The index page's headline numbers as text, one line per notebook (what `make all` ends with)."""
    lines = []
    for name in numbered(notebooks_dir):
        values = headlines(spec.get(name, {}), metrics_dir, name)
        if values:
            title, _ = summary(Path(notebooks_dir) / f"{name}.ipynb")
            lines.append(f"{name[:2]} {title}: " + "; ".join(f"{k} {format_value(v)}" for k, v in values.items()))
    return lines


def flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as {"a.b.c": leaf} (the keys `dvc metrics show` uses). Two leaves that flatten to one key
    (`{"e.f": 1, "e": {"f": 2}}`) are a `ValueError`: the second replaced the first, which was never shown."""
    if not isinstance(tree, dict) or (not tree and prefix):  # an empty object is a leaf: `render metrics` dropped it
        return {prefix: tree}
    out: dict[str, Any] = {}
    for key, value in tree.items():
        for k, v in flatten(value, f"{prefix}.{key}" if prefix else str(key)).items():
            if k in out:
                raise ValueError(f"two values flatten to the key {k!r} (a key with a dot beside a nested one)")
            out[k] = v
    return out
