"""The four source works' published figures beside the study's own numbers.

`references/published.yaml` holds every figure the study can be read against: the work, the table or figure,
row and column as printed, the value and its scale, what it was measured on, and either the study's metric
it corresponds to (a path into the committed metrics files, with what differs in the setting) or the reason
no metric does. Its `contrasts` pair two figures of one table (a method against another): a difference,
which the study can reproduce in direction even where levels differ (another corpus, a smaller model).

This module loads that file (every problem named by entry and field), reads the study's values, and gives
each comparison a verdict from a checked function:

- a level (one figure): `reproduced` when the study's value is within the tolerance of the published one,
  else `higher here` or `lower here`;
- a contrast (a - b): `reproduced` when the two differences agree within the tolerance, else `same
  direction, smaller`, `same direction, larger`, `opposite`, `no difference here` (the study's difference
  within the tolerance of zero while the work's is not), `a difference here, none published` or `none here, none
  published` (both within the tolerance of zero, yet further apart than it);
- a figure without a metric: `not comparable`, with its reason.

The tolerance is in the study's units (fractions): 0.01 unless an entry gives its own, about the rounding
of a figure printed to two decimals plus the run-to-run noise of the study's CPU-dependent scores.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lib.cli import NamedError
from lib.evaluation.printing import printed, printed_difference, unsigned_zero
from lib.params import ParamsError, read_yaml
from lib.paths import METRICS_DIR, ROOT

PUBLISHED_FILE = ROOT / "references" / "published.yaml"
TOLERANCE = 0.01
EPS = 1e-12  # floating-point slack, relative above 1: 0.51 - 0.50 is within 0.01, and 1000000.01 - 1e6 too
SCALES = {"fraction": 1.0, "percent": 0.01}  # published value x factor = the study's units
LEVEL_VERDICTS = ("reproduced", "higher here", "lower here")
CONTRAST_VERDICTS = (
    "reproduced",
    "same direction, smaller",
    "same direction, larger",
    "opposite",
    "no difference here",
    "a difference here, none published",
    "none here, none published",
)
NOT_COMPARABLE = "not comparable"
NOT_IN_THIS_RUN = "not in this run's metrics (another profile or setting leaves it out)"


class PublishedError(NamedError, ValueError):
    """A problem in the reference file: which file, which entry, which field, what was expected."""

    def __init__(self, path: Path | str, entry: str, problem: str):
        super().__init__(f"{path}: {entry}: {problem}")


class Figure(BaseModel):
    """One printed number and what the study compares it with."""

    model_config = ConfigDict(extra="forbid")

    id: str
    work: str
    table: str
    row: str
    column: str
    value: Annotated[float, Field(allow_inf_nan=False)]  # `.inf` was "reproduced within 0.01"
    scale: Literal["fraction", "percent", "count", "ratio"]
    measured_on: str | None = None
    metric: list[str] | None = None
    differs: str | None = None
    reason: str | None = None
    tolerance: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None  # -0.01 called equal values "lower"
    note: str | None = None
    corrected: Annotated[float, Field(allow_inf_nan=False)] | None = None
    quote_line: int | None = None

    @model_validator(mode="after")
    def _metric_or_reason(self) -> Figure:
        if self.metric is not None:
            if len(self.metric) < 2 or not self.metric[0].endswith(".json"):
                raise ValueError(f"metric {self.metric}: expected [<file>.json, key, ...]")
            if not self.differs:
                raise ValueError("a figure with a metric says what `differs` in the setting")
        elif not self.reason:
            raise ValueError("a figure without a metric gives the `reason` none corresponds")
        return self

    @property
    def tol(self) -> float:
        """This figure's tolerance in the study's units (`TOLERANCE` unless it gives its own)."""
        return self.tolerance if self.tolerance is not None else TOLERANCE

    @property
    def published(self) -> float:
        """The value in the study's units, the corrected reading where the printed one is wrong."""
        value = self.corrected if self.corrected is not None else self.value
        return value * SCALES.get(self.scale, 1.0)


class Contrast(BaseModel):
    """A difference between two figures of one table (a - b), as the work reports it."""

    model_config = ConfigDict(extra="forbid")

    id: str
    work: str
    table: str
    a: str
    b: str
    claim: str


class Reference(BaseModel):
    model_config = ConfigDict(extra="forbid")

    works: dict[str, dict[str, str]]
    tables: dict[str, dict[str, str]] = {}
    figures: list[Figure]
    contrasts: list[Contrast] = []


def _inherit(raw: dict[str, Any]) -> dict[str, Any]:
    """Each figure with the defaults of its table (`tables["<work> <table>"]`) under its own fields."""
    tables = raw.get("tables") or {}
    figures = []
    for f in raw.get("figures") or []:
        if isinstance(f, dict):
            own = {k: v for k, v in f.items() if v is not None}  # a null field takes the table's default
            f = {**tables.get(f"{f.get('work')} {f.get('table')}", {}), **own}
        figures.append(f)
    return {**raw, "figures": figures}


def load(path: Path | str = PUBLISHED_FILE) -> Reference:
    """The reference file, checked: every entry's fields, unique ids, known works, contrasts of known figures."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file (the published figures, references/published.yaml)")
    try:  # as params.yaml is read: a key written twice, a byte that is not UTF-8 or an alias bomb is named
        raw = read_yaml(path)  # (`yaml.safe_load` kept the last of two `value:` lines silently)
    except ParamsError as err:
        raise PublishedError(path, "file", str(err).removeprefix(f"{path}: ")) from None
    if not isinstance(raw, dict):
        raise PublishedError(
            path, "file", f"expected a mapping with works, figures, contrasts; got {type(raw).__name__}"
        )
    try:
        ref = Reference.model_validate(_inherit(raw))
    except ValidationError as err:
        first = err.errors()[0]
        loc = list(first["loc"])
        entry = "file"
        if len(loc) >= 2 and loc[0] in ("figures", "contrasts") and isinstance(loc[1], int):
            items = raw.get(loc[0]) or []
            item = items[loc[1]] if loc[1] < len(items) else None
            name = item.get("id") if isinstance(item, dict) else repr(item)
            entry = f"{loc[0]}[{loc[1]}] ({name})"
            loc = loc[2:]
        field = ".".join(map(str, loc)) or "entry"
        raise PublishedError(path, entry, f"field {field}: {first['msg']}") from None
    ids = Counter(f.id for f in ref.figures)
    for fid, n in ids.items():
        if n > 1:
            raise PublishedError(path, fid, f"id used by {n} figures (expected unique ids)")
    for f in ref.figures:
        if f.work not in ref.works:
            raise PublishedError(path, f.id, f"field work: {f.work!r} is not one of the works {sorted(ref.works)}")
    for c in ref.contrasts:
        for side in (c.a, c.b):
            if side not in ids:
                raise PublishedError(path, c.id, f"contrast of an unknown figure {side!r}")
    return ref


def metric_value(key: Sequence[str], metrics_dir: Path | str = METRICS_DIR) -> float:
    """The number at `[file, key, ...]` in the committed metrics; a missing file or key is named."""
    file, *keys = key
    path = Path(metrics_dir) / file
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such metrics file (metric {list(key)})")
    node: Any = json.loads(path.read_text(encoding="utf-8"))
    for i, k in enumerate(keys):
        if not isinstance(node, Mapping) or k not in node:
            have = sorted(node)[:12] if isinstance(node, Mapping) else type(node).__name__
            raise KeyError(f"{path}: no key {'/'.join(keys[: i + 1])!r} (metric {list(key)}; there: {have})")
        node = node[k]
    if isinstance(node, bool) or not isinstance(node, int | float) or not math.isfinite(node):
        # NaN read "lower here (+nan)", Infinity "reproduced within 0.01 (+inf here)"
        raise TypeError(f"{path}: {'/'.join(keys)} is {node!r}, expected a finite number (metric {list(key)})")
    return float(node)


def _apart_within(a: float, b: float, tol: float) -> bool:
    """`a` and `b` at most `tol` apart, with a float's slack (`EPS`, times the larger size above 1); a figure that
    is not finite is no figure to compare (inf was within inf's slack, NaN fell through to the last verdict)."""
    if not all(math.isfinite(v) for v in (a, b, tol)):
        raise ValueError(f"published figures: {a!r} against {b!r} (tolerance {tol!r}): expected finite numbers")
    return abs(a - b) <= tol + EPS * max(1.0, abs(a), abs(b))


def level_verdict(published: float, study: float, tol: float = TOLERANCE) -> str:
    """`reproduced` within `tol`, else whether the study's value is higher or lower."""
    if _apart_within(study, published, tol):
        return "reproduced"
    return "higher here" if study > published else "lower here"


def contrast_verdict(published: float, study: float, tol: float = TOLERANCE) -> str:
    """How the study's difference (a - b) stands to the work's (see the module's docstring)."""
    if _apart_within(study, published, tol):
        return "reproduced"
    if _apart_within(published, 0.0, tol):
        # -0.009 against +0.009 within 0.01: neither is a difference (it read "a difference here")
        return "none here, none published" if _apart_within(study, 0.0, tol) else "a difference here, none published"
    if _apart_within(study, 0.0, tol):
        return "no difference here"
    if (study > 0) != (published > 0):
        return "opposite"
    return "same direction, smaller" if abs(study) < abs(published) else "same direction, larger"


def shown_decimals(
    verdict: str, published: float, study: float, tol: float, rule: Callable[[float, float, float], str] | None
) -> tuple[int, int]:
    """The decimals (three at least) that the study's and the published value need for the verdict to be read
    from them as printed: first the study's, against the published value; then the published value's, beside
    the study's as printed (0.4346 printed +0.435 beside +0.445 read as reproduced within 0.01 next to
    "higher here")."""
    decimals = 3
    while rule is not None and decimals < 12 and rule(published, printed(study, f".{decimals}f"), tol) != verdict:
        decimals += 1
    here = printed(study, f"+.{decimals}f")
    shown_pub = 3
    while rule is not None and shown_pub < 12 and rule(printed(published, f".{shown_pub}f"), here, tol) != verdict:
        shown_pub += 1
    return decimals, shown_pub


def as_shown(table: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """A `levels` or `contrasts` table's figures as text, printed as each row's sentence prints them (its
    `decimals`: the study's and the published value's, from `shown_decimals`; a difference is the printed study
    minus the printed published value, at the larger; never "-0.000").
    Rounded to three decimals (and shown at the notebooks' three), 0.1797 against a published 0.19 within 0.01
    read 0.180 and -0.010 beside "lower here", and `Series.round` printed 0.0255 as 0.026 where the sentence
    said 0.025. A figure without a counterpart stays None."""
    out = table.copy()
    which = {"study": 0, "published": 1}
    for col in columns:
        if col == "difference":  # the printed study minus the printed published value: the row agrees with itself
            out[col] = [
                v
                if v is None or v != v
                else unsigned_zero(f"{printed_difference(s, p, f'.{d[0]}f', f'.{d[1]}f'):.{max(d)}f}")
                for v, s, p, d in zip(table[col], table["study"], table["published"], table["decimals"], strict=True)
            ]
            continue
        out[col] = [
            v if v is None or v != v else unsigned_zero(f"{v:.{d[which[col]]}f}")
            for v, d in zip(table[col], table["decimals"], strict=True)
        ]
    return out.drop(columns=["decimals"])


def verdict_sentence(
    verdict: str,
    published: float,
    study: float | None,
    tol: float,
    reason: str | None = None,
    rule: Callable[[float, float, float], str] | None = None,
) -> str:
    """The verdict in words, with the two numbers it rests on. With `rule` (the verdict's function), the
    study's value gets the decimals the verdict needs where three would read as another verdict (0.1797
    against 0.19 within 0.01 printed "+0.180", 0.010 apart, beside "lower here"), and so does the published value,
    read beside the study's as printed."""
    if verdict == NOT_COMPARABLE:
        return f"not comparable because {reason}"
    decimals, shown_pub = shown_decimals(verdict, published, study, tol, rule)
    # "+0.000" for a value 0 but for noise (two equal metrics' a - b is -5.6e-17), as the table beside prints it
    here = unsigned_zero(f"{study:+.{decimals}f}", "+")
    there = unsigned_zero(f"{published:+.{shown_pub}f}", "+")
    if verdict == "reproduced":
        return f"reproduced within {tol:g} ({here} here, {there} published)"
    return f"{verdict} ({here} here, {there} published)"


def _study_value(f: Figure, metrics_dir: Path | str, strict: bool) -> tuple[float | None, str | None]:
    """(the study's value, None), or (None, why not): the figure's reason, or, when not `strict`, that this
    run's metrics lack the key (the committed study has every key: `tests/test_published.py`)."""
    if not f.metric:
        return None, f.reason
    try:
        return metric_value(f.metric, metrics_dir), None
    except (KeyError, FileNotFoundError):
        if strict:
            raise
        return None, NOT_IN_THIS_RUN


def levels(
    ref: Reference, metrics_dir: Path | str = METRICS_DIR, works: Sequence[str] | None = None, strict: bool = True
) -> pd.DataFrame:
    """One row per figure (of `works`, default all): published, this study, difference, verdict, sentence.
    `strict`: a metric the file names but the metrics lack is an error; else the figure is not comparable
    (a notebook run under another profile or setting)."""
    rows = []
    for f in ref.figures:
        if works is not None and f.work not in works:
            continue
        tol = f.tol
        study, reason = _study_value(f, metrics_dir, strict)
        verdict = level_verdict(f.published, study, tol) if study is not None else NOT_COMPARABLE
        rows.append(
            {
                "work": f.work,
                "table": f.table,
                "row": f.row,
                "column": f.column,
                "published": f.published,
                "study": study,
                "difference": None if study is None else study - f.published,
                "differs": f.differs if study is not None else None,
                "verdict": verdict,
                "reason": reason,
                "sentence": verdict_sentence(verdict, f.published, study, tol, reason, level_verdict),
                "decimals": shown_decimals(verdict, f.published, study, tol, level_verdict)
                if study is not None
                else (3, 3),
                "id": f.id,
            }
        )
    return pd.DataFrame(rows)


def contrasts(
    ref: Reference, metrics_dir: Path | str = METRICS_DIR, works: Sequence[str] | None = None, strict: bool = True
) -> pd.DataFrame:
    """One row per contrast: the work's difference (a - b), the study's, verdict and sentence (`strict` as in
    `levels`)."""
    by_id = {f.id: f for f in ref.figures}
    rows = []
    for c in ref.contrasts:
        if works is not None and c.work not in works:
            continue
        a, b = by_id[c.a], by_id[c.b]
        tol = max(a.tol, b.tol)
        published = a.published - b.published
        (va, ra), (vb, rb) = _study_value(a, metrics_dir, strict), _study_value(b, metrics_dir, strict)
        if va is not None and vb is not None:
            study = va - vb
            verdict, reason = contrast_verdict(published, study, tol), None
        else:
            study, verdict, reason = None, NOT_COMPARABLE, ra or rb
        rows.append(
            {
                "work": c.work,
                "table": c.table,
                "contrast": f"{a.row} - {b.row} ({a.column})"
                if a.table == b.table
                else f"{a.row}, {a.table} - {b.row}, {b.table} ({a.column})",
                "published": published,
                "study": study,
                "verdict": verdict,
                "reason": reason,
                "sentence": verdict_sentence(verdict, published, study, tol, reason, contrast_verdict),
                "decimals": shown_decimals(verdict, published, study, tol, contrast_verdict)
                if study is not None
                else (3, 3),
                "claim": c.claim,
                "id": c.id,
            }
        )
    return pd.DataFrame(rows)


def verdict_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Verdicts counted per work (rows) in a fixed order of columns, zeros included."""
    order = [v for v in (*CONTRAST_VERDICTS, *LEVEL_VERDICTS[1:], NOT_COMPARABLE) if v in set(table["verdict"])]
    return pd.crosstab(table["work"], table["verdict"]).reindex(columns=order, fill_value=0)


def summary_sentence(counts: pd.DataFrame, what: str = "contrasts") -> str:
    """How many comparisons of each verdict, over all works, in words."""
    total = counts.to_numpy().sum()
    if total == 0:
        return f"No {what} to compare."
    parts = [f"{n} {v}" for v, n in counts.sum().items() if n]
    return f"Of {total} {what}: " + ", ".join(parts) + "."


def reasons_sentence(table: pd.DataFrame) -> str:
    """The figures of a `levels` table that are not comparable, counted by reason."""
    reasons = table.loc[table["verdict"] == NOT_COMPARABLE, "reason"]
    if reasons.empty:
        return "Every figure here has a counterpart in the study."
    counts = Counter(reasons)
    return (
        f"{len(reasons)} of {len(table)} figures have no counterpart: "
        + "; ".join(f"{reason} ({n})" for reason, n in counts.most_common())
        + "."
    )


def side_by_side(
    ref: Reference,
    tables: Sequence[str],
    metrics_dir: Path | str = METRICS_DIR,
    files: Sequence[str] | None = None,
    strict: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """A notebook's part of the reference file: `tables` as "<work> <table>" (e.g. "thesis Table 5.3").
    `files`: the metrics files the notebook may read (its own; a stage reads no other stage's metrics),
    figures whose metric lives elsewhere are left to that file's notebook and counted in a sentence.
    Returns the comparable figures (published, study, difference, what differs, verdict), the contrasts,
    and sentences: the verdicts counted, and why the other figures have no counterpart. Not `strict` by
    default: a notebook run under another profile or setting says which figures its metrics lack."""
    wanted = set(tables)
    known = {f"{f.work} {f.table}" for f in ref.figures}
    if unknown := sorted(wanted - known):
        raise KeyError(f"no figures of {unknown} in the reference file (tables: {sorted(known)})")
    mine = [f for f in ref.figures if f"{f.work} {f.table}" in wanted]
    other_file = {f.id: f.metric[0] for f in mine if f.metric and files is not None and f.metric[0] not in files}
    elsewhere = Counter(other_file.values())
    figures = [f for f in mine if f.id not in other_file]
    ids = {f.id for f in figures}
    sub = ref.model_copy(
        update={
            "figures": figures,
            "contrasts": [c for c in ref.contrasts if f"{c.work} {c.table}" in wanted and {c.a, c.b} <= ids],
        }
    )
    lv, ct = levels(sub, metrics_dir, strict=strict), contrasts(sub, metrics_dir, strict=strict)
    lines = []
    if elsewhere:
        lines.append(
            "Compared in the notebook that computes them: "
            + ", ".join(f"{n} figures of `{file}`" for file, n in sorted(elsewhere.items()))
            + "."
        )
    if not ct.empty:
        lines.append(summary_sentence(verdict_counts(ct), "contrasts"))
    lines.append(summary_sentence(verdict_counts(lv[lv["verdict"] != NOT_COMPARABLE]), "comparable figures"))
    lines.append(reasons_sentence(lv))
    comparable = lv[lv["verdict"] != NOT_COMPARABLE]
    shown = as_shown(comparable, ["published", "study", "difference"])[
        ["table", "row", "column", "published", "study", "difference", "verdict", "differs"]
    ]
    ct = as_shown(ct, ["published", "study"]).drop(columns=["id", "reason"]) if not ct.empty else ct
    return shown.reset_index(drop=True), ct, lines
