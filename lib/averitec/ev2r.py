"""Ev2R, the evidence score of the 2025 AVeriTeC task (FEVER-8), and the new AVeriTeC score.

Ev2R (Akhtar et al., arXiv 2411.05375) asks an LLM judge to compare a claim's reference evidence with
the evidence a system predicted: split each side into atomic facts, count them, and count how many facts
of each side the other side supports. Four counts come back as JSON; from them

    precision = supported predicted facts / predicted facts
    recall    = supported reference facts / reference facts

The judge runs twice per claim: on the questions alone (the questions of a side joined by spaces,
"Q-only") and on the question-answer pairs (the side's 2025 `evi` string, "Q+A"). The **new AVeriTeC
score** is the mean over claims of `[Q+A recall > 0.5] x [label correct]`.

What the judge is matters: FEVER-8 used Llama-3.3-70B-Instruct at temperature 0 with up to 3,000 output
tokens and `recall > 0.5`, while a draft used a Gemini judge at 0.46 and a copy `>=`; scores from
different judges are not comparable. So the judge model, the prompt's sha256, the comparison and the
threshold are printed with every score (`Judge.describe`) and stored in the report.

The prompt is this project's own wording of the method (`prompts/ev2r.txt`); `prompt_file` points
at another one, for example the organisers' prompt to compare with the leaderboard. A prompt holds the
placeholders `{claim}`, `{reference}` and `{prediction}`, or three positional `{}` in that order. The
rendered prompt is the message, so the prompt (and its hash) is part of every cache key: a changed prompt
is never answered from the cache of another.

Answers are parsed leniently (`parse_counts`): the last JSON object in the text that holds the four
counts, under this project's keys or the organisers' ("facts count predicted evidence", "support
reference questions", ...). A claim whose answer cannot be used (no answer after the retries, no JSON,
a missing or negative count, reference evidence without facts, more supported facts than facts) leaves its
precision and recall undefined (NaN); a prediction without facts has recall 0 and no precision, where the organisers' script gives recall 0 to an answer it cannot parse: a
judge that failed is no evidence that the evidence was poor. The stage then stops, unless `--lenient`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import operator
import re
import shutil
import string
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd
from pydantic import Field

from lib import outputs as OUT
from lib import timing as TM
from lib.averitec import scoring as SC
from lib.cli import CLEANUPS, ArgumentParser, NamedError, first_line, nonempty_path, not_a_file, run_main, shown
from lib.data import averitec, within_size
from lib.evaluation.significance import MIN_CLUSTERS
from lib.params import FilePath, Level, PosInt, Section, Text, section, study_params_only
from lib.paths import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE, ROOT
from lib.planning.llm import LLM, LLMSettings

# --------------------------------------------------------------------------- params

Comparison = Literal[">", ">="]


class Ev2RJudgeSection(Section):
    model: Text
    temperature: Annotated[float, Field(ge=0, le=2)]
    max_tokens: PosInt


class Averitec2025Section(Section):
    judge: Ev2RJudgeSection
    threshold: Level
    comparison: Comparison
    prompt_file: FilePath | None
    cache: FilePath
    max_claims: PosInt | None
    jobs: PosInt


PROMPT_FILE = ROOT / "prompts" / "ev2r.txt"
OUT_DIR = OUTPUTS_DIR / "averitec_2025"
AVERITEC_DIR = OUTPUTS_DIR / "averitec"  # the `averitec` stage's predictions (lib.averitec.evidence.AVERITEC_DIR)
COMPARISONS = {">": operator.gt, ">=": operator.ge}
MODES = ("q", "qa")  # questions only, question-answer pairs
COUNTS = ("predicted_facts", "predicted_facts_supported", "reference_facts", "reference_facts_supported")
COLUMNS = [
    "run",
    "kind",
    "claim_id",
    *(f"{m}_{x}" for m in MODES for x in ("precision", "recall", "error")),
    "label",
    "pred_label",
    "correct",
]


# --------------------------------------------------------------------------- the judge and its prompt


@dataclass(frozen=True)
class Judge:
    """What a score depends on, printed with it."""

    model: str
    prompt_sha256: str
    threshold: float = 0.5
    comparison: str = ">"
    temperature: float = 0.0
    max_tokens: int = 3000

    def __post_init__(self):
        if self.comparison not in COMPARISONS:
            raise ValueError(f"Ev2R comparison {self.comparison!r}: expected one of {sorted(COMPARISONS)}")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"Ev2R threshold {self.threshold}: expected a recall between 0 and 1")

    def describe(self) -> str:
        return (
            f"Ev2R judge {self.model} (temperature {self.temperature:g}, max {self.max_tokens} tokens, prompt "
            f"sha256 {self.prompt_sha256[:12]}); new AVeriTeC score: Q+A recall {self.comparison} "
            f"{self.threshold:g} and the right label"
        )


class PromptFileError(NamedError, ValueError):
    """A prompt file whose placeholders are not the judge's: one line naming the file (`lib.cli`)."""


def load_prompt(path: Path | str | None = None) -> tuple[str, str]:
    """(template, sha256) of a prompt file (None: this project's); a template without the three
    placeholders is an error naming the file."""
    path = ROOT / Path(path) if path else PROMPT_FILE  # a relative path is the project root's; an absolute stays
    if not path.exists():
        raise FileNotFoundError(f"Ev2R prompt_file {path}: no such file")
    if not path.is_file():  # a folder, a pipe (it would wait for a writer) or a device
        raise PromptFileError(f"Ev2R prompt_file {path}: {not_a_file('a prompt file')}")
    within_size(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise PromptFileError(f"Ev2R prompt_file {path}: not UTF-8 text (byte {err.start}: {err.reason})") from None
    try:
        placeholders(text)
    except ValueError as err:
        raise PromptFileError(
            f"Ev2R prompt_file {path}: expected the placeholders {{claim}}, {{reference}} and {{prediction}} "
            f"(or three positional {{}}), literal braces doubled ({type(err).__name__}: {first_line(err)})"
        ) from None
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()


def placeholders(template: str) -> str:
    """ "named" ({claim}, {reference}, {prediction}) or "positional" (three {}); any other set of
    placeholders is a ValueError naming them (a malformed brace one naming the brace)."""
    parsed = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(template) if f is not None]
    fields = [f for f, _, _ in parsed]
    if any(conv not in (None, "r", "s", "a") for _, _, conv in parsed):
        raise ValueError(f"conversions {shown([conv for _, _, conv in parsed])} (expected !r, !s, !a or none)")
    if any(spec for _, spec, _ in parsed):  # `{claim:d}` failed at the first claim, `{claim:>1500000000}` took 1.5 GB
        raise ValueError(
            f"format specs {shown([spec for _, spec, _ in parsed if spec])} (expected none: the text as it is)"
        )
    if fields == ["", "", ""]:
        return "positional"
    if sorted(fields) == ["claim", "prediction", "reference"]:
        return "named"
    raise ValueError(f"placeholders {shown(fields)}")


def render(template: str, claim: str, reference: str, prediction: str) -> str:
    """The prompt for one comparison, by the template's placeholders (`placeholders`)."""
    if placeholders(template) == "positional":
        return template.format(claim, reference, prediction)
    return template.format(claim=claim, reference=reference, prediction=prediction)


def evidence_text(ev: SC.Evidence, mode: str) -> str:
    """One side as the judge reads it: the questions joined by spaces (q), or the 2025 `evi` string (qa)."""
    pairs = SC.leaderboard_pairs(ev)
    return " ".join(q for q, _ in pairs) if mode == "q" else SC.leaderboard_evi(pairs)


# --------------------------------------------------------------------------- parsing the judge's answer


class JudgeAnswerError(NamedError, ValueError):
    """An answer the score cannot use; `reason` is the counter's name."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


@dataclass(frozen=True)
class Counts:
    predicted_facts: int
    predicted_facts_supported: int
    reference_facts: int
    reference_facts_supported: int

    @property
    def precision(self) -> float:  # undefined for a prediction without facts (its recall is 0, and defined)
        return self.predicted_facts_supported / self.predicted_facts if self.predicted_facts else math.nan

    @property
    def recall(self) -> float:
        return self.reference_facts_supported / self.reference_facts


# Every word a key naming one of the four counts may hold. A key with any other word is none of the four: a
# list of negations ("unsupported", "not supported") let "predicted_facts_without_support", "_no_support",
# "_lacking_support" ... through as the supported count (precision 0.75 for a judge's 1 of 4).
COUNT_WORDS = frozenset(
    "predicted prediction predictions predict reference references fact facts count counts number num n total "
    "of the in from with by that which are is were supported support supports evidence question questions "
    "answer answers qa".split()
)


def _count_name(key: str) -> str | None:
    """Which of the four counts a key names, in this project's words or the organisers'
    ("facts count predicted evidence", "support reference questions"); None for any other key, and for a key
    holding any word outside `COUNT_WORDS` (a negation, a qualifier: a count of something else)."""
    k = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", key).lower()  # predictedFactsSupported: its words
    if not set(re.findall(r"[a-z]+", k)) <= COUNT_WORDS or re.search(r"\d", k):
        return None
    by = re.search(r"(?:^|[^a-z])by[ _-]*(?:the[ _-]*)?(predict|reference)", k)  # the supporting side
    rest = k[: by.start()] + k[by.end() :] if by else k
    named = {s for s, word in (("predicted", "predict"), ("reference", "reference")) if word in rest}
    if by:  # "supported_by_reference" counts predicted facts: the side is the other one
        other = "reference" if by.group(1) == "predict" else "predicted"
        named = {other} if named <= {other} else {"predicted", "reference"}
    side = named.pop() if len(named) == 1 else None  # none, or both sides named: not one of the four
    if side is None:
        return None
    if "support" in k:
        return f"{side}_facts_supported"
    if "fact" in k or "count" in k:
        return f"{side}_facts"
    return None


MAX_OBJECT_STARTS = 1000  # the last this many `{` of an answer are tried as the start of a JSON object


class _Pairs(dict):
    """A JSON object that remembers a key it was given twice (`json` keeps the last value silently)."""

    twice: str | None = None


def _pairs(items: list[tuple[str, Any]]) -> _Pairs:
    obj = _Pairs(items)
    if len(obj) < len(items):
        seen: set[str] = set()
        obj.twice = next(k for k, _ in items if k in seen or seen.add(k))
    return obj


def _json_objects(text: str) -> list[dict]:
    """The outermost JSON objects in the text that parse, in order: an object inside another (an example in
    the answer) is part of it, never read on its own. Only the last `MAX_OBJECT_STARTS` braces are tried:
    an answer of 100,000 `{"a":` took minutes, each start descending a thousand levels before it failed."""
    out, decoder, end = [], json.JSONDecoder(object_pairs_hook=_pairs), -1
    for start in [m.start() for m in re.finditer(r"\{", text)][-MAX_OBJECT_STARTS:]:
        if start < end:  # inside the object found before
            continue
        try:
            obj, stop = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # nested past Python's recursion limit: no object of counts
            continue
        if isinstance(obj, dict):
            out.append(obj)
            end = stop
    return out


def parse_counts(text: str | None) -> Counts:
    """The four counts from a judge's answer: the last JSON object holding all four (chatty text and
    code fences around it are fine). Raises `JudgeAnswerError` with the reason otherwise."""
    if text is None or not text.strip():
        raise JudgeAnswerError("no_answer", "the judge gave no answer")
    objects = _json_objects(text)
    if not objects:
        raise JudgeAnswerError("no_json", f"no JSON object in {text[:80]!r}")
    for obj in reversed(objects):
        found, keys = {}, {}
        twice = getattr(obj, "twice", None)
        if twice is not None and _count_name(str(twice)) is not None:  # `"predicted_facts": 4, ..: 40`: which?
            raise JudgeAnswerError("ambiguous_counts", f"key {twice!r} given twice")
        for key, value in obj.items():
            name = _count_name(str(key))
            if name is not None and name in found:  # two keys read as one count: no guess which is meant
                raise JudgeAnswerError("ambiguous_counts", f"keys {keys[name]!r} and {key!r} both read as {name}")
            if name is not None:
                found[name], keys[name] = value, key
        if set(found) != set(COUNTS):
            continue
        counts = {}
        for name in COUNTS:
            v = found[name]
            if isinstance(v, str) and v.strip().isascii() and v.strip().isdigit():  # not '²', which int() refuses
                v = int(v.strip())
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise JudgeAnswerError("bad_count", f"{name} is {found[name]!r}, expected a count >= 0")
            counts[name] = v
        c = Counts(**counts)
        if c.reference_facts == 0:  # no recall; a prediction without facts has recall 0 (it was left out of the
            raise JudgeAnswerError("zero_facts", f"{c}: reference evidence without facts has no recall")  # means)
        if c.predicted_facts == 0 and c.reference_facts_supported:
            raise JudgeAnswerError("supported_above_facts", f"{c}: reference facts supported by no predicted fact")
        if c.predicted_facts_supported > c.predicted_facts or c.reference_facts_supported > c.reference_facts:
            raise JudgeAnswerError("supported_above_facts", f"{c}: more supported facts than facts")
        return c
    raise JudgeAnswerError("missing_counts", f"no JSON object with the four counts {list(COUNTS)}")


def claim_result(answer: str | None) -> tuple[float, float, str | None]:
    """(precision, recall, error reason or None). A failed call or an unusable answer leaves the claim's
    scores undefined (NaN), never 0: a judge that failed is not evidence that the evidence was poor."""
    if answer is None:
        return math.nan, math.nan, "no_answer"
    try:
        c = parse_counts(answer)
    except JudgeAnswerError as err:
        return math.nan, math.nan, err.reason
    return c.precision, c.recall, None


# --------------------------------------------------------------------------- scoring runs


def usable(answer: str) -> bool:
    """Whether a judge's answer gives usable counts: a live run asks again for a cached one that does not."""
    return claim_result(answer)[2] is None


def messages(template: str, claim: str, ref: SC.Evidence, pred: SC.Evidence, mode: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": render(template, claim, evidence_text(ref, mode), evidence_text(pred, mode))}]


def judge_run(
    llm: Any,
    template: str,
    claims: Sequence[averitec.Claim],
    refs: Sequence[SC.Evidence],
    preds: Sequence[SC.Evidence],
    run: str,
    kind: str = "",
) -> pd.DataFrame:
    """One row per claim: Q-only and Q+A precision, recall and error, with the verdicts (`COLUMNS`)."""
    cols: dict[str, list] = {c: [] for c in COLUMNS}
    answers = {
        mode: llm.chat_many(
            [messages(template, c.text, r, p, mode) for c, r, p in zip(claims, refs, preds)],
            desc=f"Ev2R {run} {mode}",
            usable=usable,
        )
        for mode in MODES
    }
    for i, (c, r, p) in enumerate(zip(claims, refs, preds)):
        cols["run"].append(run)
        cols["kind"].append(kind)
        cols["claim_id"].append(c.claim_id)
        for mode in MODES:
            precision, recall, error = claim_result(answers[mode][i])
            cols[f"{mode}_precision"].append(precision)
            cols[f"{mode}_recall"].append(recall)
            cols[f"{mode}_error"].append(error)
        cols["label"].append(r.label)
        cols["pred_label"].append(p.label)
        cols["correct"].append(p.label == r.label)
    return pd.DataFrame(cols)  # in the order of COLUMNS


def new_score(table: pd.DataFrame, judge: Judge) -> pd.Series:
    """Per claim: 1.0 when its Q+A recall passes the judge's comparison with the threshold and its label
    is right, else 0.0. The mean is the new AVeriTeC score."""
    recall = table["qa_recall"].to_numpy(dtype=float)
    passed = COMPARISONS[judge.comparison](np.nan_to_num(recall), judge.threshold)
    score = np.where(passed & table["correct"].to_numpy(dtype=bool), 1.0, 0.0)
    return pd.Series(np.where(np.isnan(recall), np.nan, score), index=table.index)  # undefined stays undefined


def _mean(values: pd.Series) -> float | None:
    """The mean of the defined values; None (JSON null, never NaN) when the judge defined none."""
    defined = values.dropna()
    return float(defined.mean()) if len(defined) else None


def _shown(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def summarise(table: pd.DataFrame, judge: Judge) -> dict[str, Any]:
    """Means over claims, the new AVeriTeC score, errors by reason, and the judge they depend on."""
    errors = Counter(e for m in MODES for e in table[f"{m}_error"] if isinstance(e, str) and e)
    return {
        "claims": len(table),
        "undefined": {m: int(table[f"{m}_recall"].isna().sum()) for m in MODES},  # left out of the means below
        **{f"{m}_{x}": _mean(table[f"{m}_{x}"]) for m in MODES for x in ("precision", "recall")},
        "accuracy": float(table["correct"].mean()),
        "new_averitec": _mean(new_score(table, judge)),
        "errors": dict(sorted(errors.items())),
        "judge": judge.describe(),
    }


# --------------------------------------------------------------------------- the stage


def undefined_claims(tables: Sequence[pd.DataFrame]) -> dict[str, dict[str, list[int]]]:
    """{run: {mode: claim ids}} of the claims whose score the judge left undefined (failed or unusable)."""
    out: dict[str, dict[str, list[int]]] = {}
    for t in tables:
        for m in MODES:
            ids = [int(c) for c in t.loc[t[f"{m}_recall"].isna(), "claim_id"]]
            if ids:
                out.setdefault(str(t["run"].iloc[0]), {})[m] = ids
    return out


def refuse_undefined(
    skipped: Mapping[str, Mapping[str, list[int]]], llm: Any, lenient: bool, total: int | None = None
) -> None:
    """Stop the stage when the judge left any claim undefined, unless `lenient`: then say what was skipped.
    When it left all `total` judgements undefined there is nothing to score, lenient or not."""
    if not skipped:
        return
    n = sum(len(ids) for modes in skipped.values() for ids in modes.values())
    what = f"{n} judgement(s) in {len(skipped)} run(s) are undefined (the judge at {llm.endpoint} failed or answered without usable counts; {dict(llm.report().get('errors', {})) or 'see the report'})"
    if total is not None and n >= total:
        raise NamedError(f"Ev2R: all {what}; no score was written, even with --lenient. Fix the judge")
    if not lenient:
        raise NamedError(
            f"Ev2R: {what}; no score was written. Fix the judge, or rerun with --lenient to score the rest"
        )
    print(f"Ev2R --lenient: {what}; left out of the means: {dict(skipped)}"[:2000], file=sys.stderr)


def judge_settings(p: Mapping[str, Any]) -> tuple[Judge, str]:
    """(Judge, prompt template) from the `averitec_2025` params section."""
    template, sha = load_prompt(p.get("prompt_file"))
    j = p["judge"]
    judge = Judge(j["model"], sha, p["threshold"], p["comparison"], j["temperature"], j["max_tokens"])
    return judge, template


def judge_llm(judge: Judge, llm_params: Mapping[str, Any], cache: Path | str):
    """The project's LLM client with the judge's model, temperature and token limit, and its own cache."""

    s = LLMSettings.model_validate(
        {
            **llm_params,
            "model": judge.model,
            "temperature": judge.temperature,
            "max_tokens": judge.max_tokens,
            "cache": str(cache),
        }
    )
    return LLM(s, stage="averitec_2025", cache_setting="averitec_2025.cache")  # its errors name the judge's key


def runs_to_score(
    averitec_params: Mapping[str, Any], claims: Sequence[averitec.Claim], data_dir: Path, averitec_dir: Path
) -> dict[str, tuple[str, list[SC.Evidence]]]:
    """Every run the `averitec` stage scored: the planners' predictions it wrote (those its params `plans` and
    `duplicate_for` name; without `plans`, every file there), and the published systems. A planned file that
    is missing is an error; a file the params do not plan (left by an earlier setting) is named and skipped."""
    runs: dict[str, tuple[str, list[SC.Evidence]]] = {}
    folder = averitec_dir / "predictions"
    found = {p.stem for p in folder.glob("*.json")}
    plans = averitec_params.get("plans")
    if plans is None:
        expected = found
    else:
        dup = set(averitec_params.get("duplicate_for", []))
        expected = {*plans, *(f"{n}__duplicated" for n in plans if n in dup)}
        missing = sorted(expected - found)
        if found and missing:
            raise NamedError(
                f"{folder}: no predictions of {', '.join(missing)} (params averitec.plans); the pipeline stage "
                "`averitec` writes them (run `dvc repro averitec`)"
            )
        if found - expected:
            print(
                f"Ev2R: not scored, not in params averitec.plans: {', '.join(sorted(found - expected))}",
                file=sys.stderr,
            )
    if not found:  # scoring only the published systems would say nothing of the study's planners
        raise NamedError(
            f"{folder}: no planners' predictions; the pipeline stage `averitec` writes them (run `dvc repro averitec`)"
        )
    for name in sorted(expected, key=lambda n: f"{n}.json"):  # the order of the files' names, as listed
        runs[name] = ("planner", SC.load_predictions(folder / f"{name}.json", claims))
    for name, file in averitec_params["systems"].items():
        runs[name] = ("system", SC.load_predictions(data_dir / "averitec" / "systems" / file, claims))
    return runs


def stage(
    params: Mapping[str, Any],
    llm_params: Mapping[str, Any],
    averitec_params: Mapping[str, Any],
    data_dir: Path | str,
    averitec_dir: Path | str,
    out_dir: Path | str = OUT_DIR,
    lenient: bool = False,
) -> dict[str, Any]:
    """Every run as a 2025 submission CSV with the dev solution beside it; each scored with FEVER-8's
    METEOR path (`meteor.parquet`); with `llm.mode` live or replay, judged by Ev2R (`ev2r.parquet`,
    whose rows are empty when the judge is off). Returns (and writes) `report.json`. A judgement the judge
    left undefined stops the stage, unless `lenient` (then the means leave it out and the report lists it)."""

    data_dir, averitec_dir, out_dir = Path(data_dir), Path(averitec_dir), Path(out_dir)
    judge, template = judge_settings(params)
    llm = judge_llm(judge, llm_params, params["cache"])  # its cache is checked before the METEOR scoring
    llm.cache.path.parent.mkdir(parents=True, exist_ok=True)
    llm.cache.path.touch()  # the stage's persistent output exists even when no judge ran (as generative_plans)
    claims = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    runs = runs_to_score(averitec_params, claims, data_dir, averitec_dir)  # all claims: files aligned by position
    if params["max_claims"]:
        claims = claims[: params["max_claims"]]
        runs = {run: (kind, preds[: len(claims)]) for run, (kind, preds) in runs.items()}
    refs = [SC.reference_evidence(c) for c in claims]
    # the CSVs are scored from a scratch folder and placed with the scores, so a judge that stops the stage
    # leaves the earlier CSVs beside the earlier scores, never new CSVs beside old scores
    scratch = Path(tempfile.mkdtemp(prefix="ev2r-"))
    CLEANUPS.append(lambda: shutil.rmtree(scratch, ignore_errors=True))  # a signal removes it too
    try:
        solution = SC.write_leaderboard(scratch / "solution.csv", claims, refs, SC.SOLUTION_SPLIT)
        meteor = []
        for run, (kind, preds) in runs.items():
            start = time.perf_counter()
            sub = SC.write_leaderboard(scratch / "submissions" / f"{run}.csv", claims, preds, "pred")
            _, t = SC.score_file_2025(sub, solution, jobs=params["jobs"])
            meteor.append(t.drop(columns="claim_types").assign(run=run, kind=kind))
            took = TM.measured(f"meteor/{run}", seconds=time.perf_counter() - start)  # the timing file, not the report
            print(f"2025 METEOR {run:34s} Q+A {t['qa'].mean():.4f}  ({took['seconds']:.1f} s)")

        report: dict[str, Any] = {
            "claims": len(claims),
            "runs": list(runs),
            "judge": {**judge.__dict__, "describe": judge.describe()},
        }
        tables = []
        if not llm.enabled:
            report["ev2r"] = "skipped: llm.mode is off (set llm.mode to live with an endpoint, or replay with a cache)"
            print(f"Ev2R {report['ev2r']}")
        else:
            summaries = {}
            print(judge.describe())  # scores of different judges are not comparable: the judge heads them
            for run, (kind, preds) in runs.items():
                t = judge_run(llm, template, claims, refs, preds, run, kind)
                tables.append(t)
                summaries[run] = summarise(t, judge)
                recall, new = (summaries[run][k] for k in ("qa_recall", "new_averitec"))
                print(f"Ev2R {run:34s} Q+A recall {_shown(recall)}  new {_shown(new)}")
            report["ev2r"] = summaries
            report["llm"] = llm.report()
            report["skipped"] = undefined_claims(tables)
            refuse_undefined(report["skipped"], llm, lenient, total=len(MODES) * sum(len(t) for t in tables))
        table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=COLUMNS)
        with OUT.together():  # the scores of one run, or none: a stopped judge leaves the earlier outputs
            written = set()
            for csv_file in sorted(scratch.rglob("*.csv")):
                written.add(OUT.write_bytes(out_dir / csv_file.relative_to(scratch), csv_file.read_bytes()))
            for stale in sorted((out_dir / "submissions").glob("*.csv")):  # an earlier run's, beside these scores
                if stale not in written:
                    OUT.remove(stale)
            OUT.write_parquet(pd.concat(meteor, ignore_index=True), out_dir / "meteor.parquet", index=False)
            OUT.write_parquet(table, out_dir / "ev2r.parquet", index=False)
            OUT.write_json(out_dir / "report.json", report, ensure_ascii=False)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return report


def main(argv: list[str] | None = None) -> None:

    ap = ArgumentParser(
        prog="python -m lib.averitec.ev2r", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--params", type=nonempty_path, default=str(PARAMS_FILE))
    ap.add_argument(
        "--lenient",
        action="store_true",
        help="when the judge fails on some claims, score the rest and list what was skipped (default: stop)",
    )
    args = ap.parse_args(argv)
    study_params_only(
        args.params, "the outputs of stage `averitec_2025`"
    )  # the study's folders: another file only through params.yaml
    stage(
        section("averitec_2025", args.params),
        section("llm", args.params),
        section("averitec", args.params),
        DATA_DIR,
        AVERITEC_DIR,
        lenient=args.lenient,
    )


if __name__ == "__main__":
    run_main(main)


# --------------------------------------------------------------------------- the two metrics side by side


def rank_agreement(per_claim: pd.DataFrame, n_resamples: int = 1000, seed: int = 0) -> dict[str, float]:
    """Kendall's tau between two per-run scores (columns `old`, `new` of a table with `run`, `claim_id`,
    e.g. the 2025 METEOR AVeriTeC score and the new score per claim), with a bootstrap interval over claims
    (the same resampled claims for every run). Needs at least three runs. A claim a run has no score for (a
    judge failure left undefined under `--lenient`) is left out for every run: it made tau NaN beside an interval
    of resamples counted as 0. An undefined tau (a side constant over the runs) has no interval. A resample
    whose tau is undefined (its claims leave a side constant) is left out of the interval, not counted as 0 (which
    gave tau 1.0 an interval of [0.00, 1.00]), and counted in `undefined_resamples`; when every resample is
    undefined, there is no interval; nor with fewer than `MIN_CLUSTERS` claims."""
    from scipy.stats import kendalltau

    undefined = per_claim.loc[per_claim[["old", "new"]].isna().any(axis=1), "claim_id"]
    per_claim = per_claim[~per_claim["claim_id"].isin(set(undefined))]
    twice = per_claim.duplicated(["run", "claim_id"])
    if twice.any():  # pandas' "Index contains duplicate entries, cannot reshape"
        first = per_claim[twice].iloc[0]
        raise ValueError(f"rank agreement: run {first['run']!r} scores claim {first['claim_id']} twice; each once")
    wide_old = per_claim.pivot(index="claim_id", columns="run", values="old")
    wide_new = per_claim.pivot(index="claim_id", columns="run", values="new")[wide_old.columns]
    # a claim a run has no row for has no score either: left out for every run (it made every tau NaN, "undefined");
    # with the undefined ones gone too, no claim may be left
    complete = wide_old.notna().all(axis=1) & wide_new.notna().all(axis=1)
    wide_old, wide_new = wide_old[complete], wide_new[complete]
    if wide_old.empty:
        raise ValueError("rank agreement: no claim has both scores for every run")
    if wide_old.shape[1] < 3:
        raise ValueError(f"rank agreement needs at least 3 runs, got {wide_old.shape[1]}")
    old, new = wide_old.to_numpy(), wide_new.to_numpy()
    tau = float(kendalltau(old.mean(0), new.mean(0)).statistic)
    shape = {"runs": int(old.shape[1]), "claims": int(len(old))}
    if tau != tau or len(old) < MIN_CLUSTERS:  # undefined, or too few claims to resample (one gave [1.00, 1.00])
        return {"tau": tau, "low": math.nan, "high": math.nan, **shape, "undefined_resamples": 0}
    rng = np.random.default_rng(seed)
    taus = []
    for _ in range(n_resamples):
        idx = rng.integers(0, len(old), len(old))
        taus.append(kendalltau(old[idx].mean(0), new[idx].mean(0)).statistic)
    defined = [t for t in taus if t == t]
    low, high = np.percentile(defined, [2.5, 97.5]) if defined else (math.nan, math.nan)
    return {
        "tau": tau,
        "low": float(low),
        "high": float(high),
        **shape,
        "undefined_resamples": len(taus) - len(defined),
    }


def disagreements(meteor: pd.DataFrame, ev2r: pd.DataFrame, k: int = 3) -> pd.DataFrame:
    """The k (run, claim) pairs where the 2025 METEOR Q+A score and the Ev2R Q+A recall differ most."""
    both = meteor[["run", "claim_id", "qa"]].merge(ev2r[["run", "claim_id", "qa_recall"]], on=["run", "claim_id"])
    both["gap"] = both["qa_recall"] - both["qa"]
    return both.reindex(both["gap"].abs().sort_values(ascending=False, kind="stable").index).head(k)
