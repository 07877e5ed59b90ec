"""The AVeriTeC score: Hungarian METEOR over question-answer evidence, gated verdict accuracy.

Same semantics as the organisers' evaluation script (`eval.py`, `utils.py` in MichSchli/AVeriTeC):
- pair score = NLTK METEOR, `single_meteor_score(word_tokenize(reference), word_tokenize(candidate))`;
- Q-only: the first 10 predicted questions against all gold questions; Q+A: the first 10 predicted
  "question answer" strings (one per answer) against all gold ones. A Boolean answer appends ". " + its
  explanation; a question without answers gets " No answer could be found.". A prediction without
  questions uses its string evidence for both;
- the Hungarian assignment maximising the summed pair scores (`scipy.optimize.linear_sum_assignment`),
  divided by the number of gold strings;
- AVeriTeC score at level l: the share of claims whose label is right and whose Q+A score is > l;
- accuracy, per-label and macro F1 over the four verdicts (scikit-learn, as the organisers);
- per claim type: the organisers report the Q+A score zeroed at or below a threshold (`type_qa`);
  this module also gives the AVeriTeC score per type (`type_averitec`).

Faster than the organisers' script, same numbers: each string is tokenised once, each (candidate,
reference) pair is scored once, WordNet synonyms and Porter stems are memoised per word, and claims are
spread over worker processes (`jobs`).

Predictions come in three formats, detected from the file's structure (`read_predictions`):
- official: a JSON list like dev.json, `label` plus `questions` with `answers` (or `string_evidence`),
  aligned by `claim_id` when the records carry one, by position otherwise;
- 2024 shared task: JSON or JSONL records `claim_id`, `claim`, `evidence` of {question, answer, url},
  `pred_label`, aligned by `claim_id`;
- 2025 shared task (FEVER-8): a CSV with columns `id, claim, evi, label` (`evi`: question/answer blocks as
  in `data/averitec/leaderboard/`), aligned by `id`.
Nothing is guessed: a duplicate, extra or missing claim, an unknown key, a wrong type in a field the scorer
reads, a missing verdict, a label outside the four verdicts or a claim text that differs from the
reference claim is a `DataError` naming file, record and field. `--lenient` scores what can be scored and lists what it skipped.
"""

from __future__ import annotations

import codecs
import csv
import functools
import json
import os
import re
import sys
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib import compute as C
from lib import outputs as OUT
from lib.cli import ArgumentParser, file_path, made_by, nonempty_path, run_main, shown
from lib.data import (
    MAX_ID_DIGITS,
    DataError,
    LoadLog,
    as_id,
    averitec,
    bounded,
    iter_json_records,
    not_utf8,
    visible,
    within_size,
)
from lib.data.labels import AVERITEC_LABELS, exact_label, spelling_hint
from lib.evaluation.printing import apart, noise_equal
from lib.params import PosInt, flag_of
from lib.paths import DATA_DIR
from lib.resources import use_nltk_data

VERDICTS = AVERITEC_LABELS  # the organisers' order: Supported, Refuted, NEE, Conflicting
LEVELS = (0.1, 0.2, 0.25, 0.3, 0.4, 0.5)
MAX_QUESTIONS = 10
NO_ANSWER = " No answer could be found."


@dataclass(frozen=True)
class Evidence:
    """One side of the comparison for one claim: its label and evidence strings."""

    label: str | None
    questions: tuple[str, ...]  # used by Q-only when `has_questions`
    strings: tuple[str, ...]  # "question answer" strings, then any string evidence
    has_questions: bool = True
    claim_types: tuple[str, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()  # (question, answer as compared) per answer: the 2025 CSV's blocks


def compared_answer(answer: str, answer_type: str | None = None, explanation: str | None = None) -> str:
    """An answer as it is compared (and written into a 2025 `evi` block): a Boolean answer + ". explanation"."""
    return answer + ". " + (explanation or "") if answer_type == "Boolean" else answer


def qa_string(question: str, answer: str, answer_type: str | None = None, explanation: str | None = None) -> str:
    """The comparison string of one answer: "question answer" (+ ". explanation" for a Boolean answer)."""
    return question + " " + compared_answer(answer, answer_type, explanation)


def reference_evidence(claim: averitec.Claim) -> Evidence:
    """The gold side from a loaded AVeriTeC claim."""
    strings: list[str] = []
    pairs: list[tuple[str, str]] = []
    for q in claim.questions:
        for a in q.answers:
            pairs.append((q.text, compared_answer(a.text, a.answer_type, a.boolean_explanation)))
            strings.append(qa_string(*pairs[-1]))
        if not q.answers:
            strings.append(q.text + NO_ANSWER)
    questions = tuple(q.text for q in claim.questions)
    return Evidence(claim.label, questions, tuple(strings), True, claim.claim_types, tuple(pairs))


def submission_evidence(row: averitec.LeaderboardRow) -> Evidence:
    """A 2025 submission's row: its questions (the first 10 count) and "question answer" strings."""
    questions = tuple(q for q, _ in row.qa_pairs)
    return Evidence(row.label, questions, tuple(qa_string(q, a) for q, a in row.qa_pairs), True, (), row.qa_pairs)


def solution_evidence(row: averitec.LeaderboardRow) -> Evidence:
    """The gold side of the 2025 edition from a solution row: the same strings, but each distinct
    question once (a question with two answers is two blocks of `evi`, and FEVER-8's Q-only de-duplicates)."""

    ev = submission_evidence(row)
    return replace(ev, questions=tuple(dict.fromkeys(ev.questions)))


# --------------------------------------------------------------------------- reading predictions

OFFICIAL = "official"  # the organisers' list: `label` plus `questions` (or `string_evidence`), like dev.json
SHARED_2024 = "2024"  # the 2024 shared task: `claim_id`, `claim`, `evidence` [{question, answer, url}], `pred_label`
CSV_2025 = "2025 csv"  # the 2025 shared task (FEVER-8): columns id, claim, evi, label
# Keys each format may carry (the official list is dev.json's record; anything else is a typo or another format).
OFFICIAL_KEYS = frozenset(
    {
        "claim_id",
        "claim",
        "label",
        "questions",
        "string_evidence",
        "justification",
        "required_reannotation",
        "claim_date",
        "speaker",
        "original_claim_url",
        "fact_checking_article",
        "reporting_source",
        "location_ISO_code",
        "claim_types",
        "fact_checking_strategies",
        "cached_original_claim_url",
    }
)
QUESTION_KEYS = frozenset({"question", "answers"})
ANSWER_KEYS = frozenset(
    {"answer", "answer_type", "source_url", "source_medium", "cached_source_url", "boolean_explanation"}
)
SHARED_KEYS = frozenset({"claim_id", "claim", "evidence", "pred_label", "llm_output"})
SHARED_ITEM_KEYS = frozenset({"question", "answer", "url", "scraped_text"})


@dataclass(frozen=True)
class Prediction:
    """One parsed prediction record before alignment: where it came from, its id and claim if given."""

    record: Any
    claim_id: int | None
    claim: str | None
    evidence: Evidence


@dataclass
class Predictions:
    """Predictions aligned with the references, and how they were read (the CLI prints `describe`)."""

    evidence: list[Evidence]
    format: str
    aligned_by: str  # "claim_id" or "position"
    records: int
    skipped: list[str]  # --lenient only: what was not scored, and why

    def describe(self) -> str:
        return f"{self.format}, {self.records} records aligned by {self.aligned_by}"


def record_format(raw: Any) -> str | None:
    """The JSON format a record's keys belong to, or None when they belong to none."""
    if not isinstance(raw, dict):
        return None
    if raw.keys() & {"pred_label", "evidence"}:
        return SHARED_2024
    if raw.keys() & {"label", "questions", "string_evidence"}:
        return OFFICIAL
    return None


def _unknown_keys(path: Path, record: Any, raw: dict, allowed: frozenset[str], where: str, fmt: str) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        field = f"{where}.{unknown[0]}" if where else unknown[0]
        raise DataError(path, record, field, f"unknown key in the {fmt} format (keys allowed: {sorted(allowed)})")


def _string(path: Path, record: Any, value: Any, field: str, empty_ok: bool = False) -> str:
    if not isinstance(value, str):
        raise DataError(path, record, field, f"expected a string, got {type(value).__name__}")
    if not empty_ok and not visible(value):  # white space or zero-width characters alone
        raise DataError(path, record, field, "empty string")
    return bounded(path, record, field, value)  # a 100 MB answer: named here, not a worker's timeout later


def _verdict(path: Path, record: Any, raw: dict, field: str) -> str:
    if raw.get(field) is None or raw.get(field) == "":
        raise DataError(path, record, field, "missing verdict: every prediction needs one of the four labels")
    try:
        return exact_label(raw[field])  # as the organisers compare them: "refUTed!!" is no verdict
    except ValueError:
        hint = spelling_hint(raw[field])
        raise DataError(path, record, field, f"{shown(raw[field], 60)} is not one of the four verdicts{hint}") from None


def _claim_id(path: Path, record: Any, raw: dict, field: str = "claim_id") -> int | None:
    value = raw.get(field)
    if value is None and field not in raw:
        return None
    try:
        return as_id(value.strip() if isinstance(value, str) else value)  # ASCII digits only ("²" is a digit too)
    except ValueError:
        raise DataError(
            path,
            record,
            field,
            f"expected a claim index (an integer from 0, at most {MAX_ID_DIGITS} digits), got {shown(value)}",
        ) from None


def _official(path: Path, record: int, raw: Any) -> Prediction:
    """One prediction in the official format."""
    _unknown_keys(path, record, raw, OFFICIAL_KEYS, "", OFFICIAL)
    label = _verdict(path, record, raw, "label")
    if "questions" not in raw and "string_evidence" not in raw:
        raise DataError(
            path, record, "questions", "missing: the official format needs `questions` (or `string_evidence`)"
        )
    questions, strings, pairs = [], [], []
    q_list = raw.get("questions", [])
    if not isinstance(q_list, list):
        raise DataError(path, record, "questions", f"expected a list (or no `questions` key), got {q_list!r:.40}")
    for qi, q in enumerate(q_list):
        where = f"questions[{qi}]"
        if not isinstance(q, dict):
            raise DataError(path, record, where, "expected a question object")
        _unknown_keys(path, record, q, QUESTION_KEYS, where, OFFICIAL)
        question = _string(path, record, q.get("question"), f"{where}.question")
        if "answers" not in q:  # a cut or hand-made record: `[]` is how the format says no answer was found
            raise DataError(path, record, f"{where}.answers", "missing: every question needs its list of answers")
        answers = q["answers"]
        if not isinstance(answers, list):
            raise DataError(path, record, f"{where}.answers", f"expected a list of answers, got {answers!r:.40}")
        questions.append(question)
        for ai, a in enumerate(answers):
            at = f"{where}.answers[{ai}]"
            if not isinstance(a, dict):
                raise DataError(path, record, at, "expected an answer object")
            _unknown_keys(path, record, a, ANSWER_KEYS, at, OFFICIAL)
            answer = _string(path, record, a.get("answer"), f"{at}.answer", empty_ok=True)
            for opt in ("answer_type", "boolean_explanation", "source_url", "source_medium", "cached_source_url"):
                if a.get(opt) is not None:
                    _string(path, record, a[opt], f"{at}.{opt}", empty_ok=True)
            pairs.append((question, compared_answer(answer, a.get("answer_type"), a.get("boolean_explanation"))))
            strings.append(qa_string(*pairs[-1]))
        if not answers:
            strings.append(question + NO_ANSWER)
    string_evidence = raw.get("string_evidence", [])
    if not isinstance(string_evidence, list):
        raise DataError(path, record, "string_evidence", "expected a list of strings")
    strings.extend(
        _string(path, record, s, f"string_evidence[{i}]", empty_ok=True) for i, s in enumerate(string_evidence)
    )
    claim = _string(path, record, raw["claim"], "claim") if "claim" in raw else None
    return Prediction(
        record,
        _claim_id(path, record, raw),
        claim,
        Evidence(label, tuple(questions), tuple(strings), "questions" in raw, (), tuple(pairs)),
    )


def _shared_2024(path: Path, record: int, raw: Any) -> Prediction:
    """One prediction in the 2024 shared-task format: every evidence item a question and its answer."""
    _unknown_keys(path, record, raw, SHARED_KEYS, "", SHARED_2024)
    claim_id = _claim_id(path, record, raw)
    if claim_id is None:
        raise DataError(path, record, "claim_id", "missing: the 2024 format aligns predictions by claim_id")
    label = _verdict(path, record, raw, "pred_label")
    items = raw.get("evidence")
    if not isinstance(items, list):
        raise DataError(path, record, "evidence", f"expected a list of {{question, answer, url}}, got {items!r:.40}")
    questions, strings, pairs = [], [], []
    for i, item in enumerate(items):
        where = f"evidence[{i}]"
        if not isinstance(item, dict):
            raise DataError(path, record, where, "expected an object {question, answer, url}")
        _unknown_keys(path, record, item, SHARED_ITEM_KEYS, where, SHARED_2024)
        question = _string(path, record, item.get("question"), f"{where}.question")
        answer = _string(path, record, item.get("answer"), f"{where}.answer", empty_ok=True)
        for key in ("url", "scraped_text"):  # not scored, but a number or NaN there is a broken writer
            value = item.get(key)  # a text, or a list of them (the UHH systems list each answer's URLs)
            if value is not None and not (
                isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
            ):
                raise DataError(
                    path, record, f"{where}.{key}", f"expected a string or a list of strings, got {shown(value, 40)}"
                )
        questions.append(question)
        strings.append(qa_string(question, answer))
        pairs.append((question, answer))
    claim = _string(path, record, raw["claim"], "claim") if "claim" in raw else None
    return Prediction(
        record, claim_id, claim, Evidence(label, tuple(questions), tuple(strings), True, (), tuple(pairs))
    )


def _missing(path: Path) -> str:
    """Why a path that `exists()` denies is not there: a link that leads nowhere (or in a loop) says so, a
    pipeline output names the stage that makes it."""
    if path.is_symlink():
        return f"a link to {os.readlink(path)} that leads nowhere (or in a loop)"
    stage = made_by(path)
    return f"no such file; the pipeline stage `{stage}` makes it (run `dvc repro {stage}`)" if stage else "no such file"


def _parse_records(path: Path, role: str = "a prediction file") -> tuple[str, Iterator[tuple[Any, Any]]]:
    """(format, raw records) of a prediction file, the format detected from its structure; JSON records come
    one at a time."""
    if not path.exists():
        raise DataError(path, "-", None, _missing(path))
    if path.is_dir():
        raise DataError(path, "-", None, f"a folder: expected {role}")
    within_size(path)  # a pipe or a device is refused here, a file over the bound too
    with open(path, "rb") as f:
        head_bytes = f.read(4096)
        rest = head_bytes.removeprefix(codecs.BOM_UTF8).lstrip(b" \t\r\n")
        while not rest:  # white space past the first read (blank lines before the records): read on to them
            chunk = f.read(1 << 16)
            if not chunk:
                break
            rest = chunk.lstrip(b" \t\r\n")
        if rest is not head_bytes and rest:
            head_bytes = rest + f.read(max(0, 4096 - len(rest)))
    try:
        head = head_bytes.decode("utf-8")
    except UnicodeDecodeError as err:
        # not a multi-byte character cut by the 4096-byte read (a 1-byte file "\xe9" read as "empty file")
        if err.start < len(head_bytes) - 3 or len(head_bytes) < 4096:
            raise not_utf8(path, err.reason) from None
        head = head_bytes[: err.start].decode("utf-8")
    head = head.lstrip("\ufeff \t\r\n")
    if not head:
        # the role named: an empty references file read "no predictions" (the forty-third pass)
        raise DataError(
            path,
            "-",
            None,
            "empty file: no predictions" if role == "a prediction file" else f"empty file: expected {role}",
        )
    if head[0] not in "[{":
        header = next(csv.reader([head.splitlines()[0]]))
        if not all(c in header for c in averitec.LEADERBOARD_COLUMNS):
            raise DataError(
                path,
                "header",
                None,
                f"neither JSON nor the 2025 CSV (columns {list(averitec.LEADERBOARD_COLUMNS)}; found {shown(header[:8])})",
            )
        return CSV_2025, []
    return "json", iter_json_records(path)  # read one record at a time (read_predictions)


def read_predictions(path: Path | str, references: Sequence[averitec.Claim], lenient: bool = False) -> Predictions:
    """Predictions aligned with `references`, from any of the three formats (see the module docstring).

    Records are aligned by claim id whenever they carry one, by position only in the official id-less
    list. Strict (the default): any duplicate, extra or missing claim, unknown key, wrong type, missing
    verdict or claim text that differs from the reference is a `DataError` naming file, record and field.
    `lenient`: bad records are skipped, claims without a usable prediction score 0 with no verdict, and
    `skipped` says what was skipped and why."""
    path = Path(path)
    kind, rows = _parse_records(path)
    skipped: list[str] = []

    def problem(err: DataError) -> None:
        if not lenient:
            raise err
        skipped.append(str(err))

    aligned: dict[int, Prediction] = {}  # by claim id (or by position): what is kept, one per reference
    by_id: list[bool] = []  # whether the file's records carry claim ids (its first aligned record decides)

    def align(p: Prediction, fmt: str) -> None:
        """Place one prediction on its reference claim, or name what is wrong with it at this record: a
        duplicate, an extra or a mismatched claim is found where it occurs, and nothing else is kept."""
        has_id = p.claim_id is not None
        if not by_id:
            by_id.append(has_id or fmt != OFFICIAL)
        if has_id != by_id[0]:
            why = "missing, while other records carry one" if by_id[0] else "given, while the first record has none"
            return problem(
                DataError(
                    path,
                    p.record,
                    "claim_id",
                    f"{why}: give every record its claim_id, or none (official format, aligned by position)",
                )
            )
        cid = p.claim_id if has_id else p.record
        if has_id and not 0 <= cid < len(references):
            return problem(
                DataError(
                    path,
                    p.record,
                    "claim_id",
                    f"{cid} is not a reference claim (the references have claim ids 0..{len(references) - 1})",
                )
            )
        if not has_id and cid >= len(references):
            return problem(
                DataError(
                    path,
                    p.record,
                    None,
                    f"beyond the {len(references)} references (without claim_id the official format is "
                    "aligned by position)",
                )
            )
        if cid in aligned:
            return problem(
                DataError(
                    path,
                    p.record,
                    "claim_id",
                    f"duplicate: claim {cid} already predicted by record {aligned[cid].record}",
                )
            )
        ref = references[cid]
        if p.claim is not None and not averitec.same_claim(p.claim, ref.text):
            return problem(
                DataError(
                    path,
                    p.record,
                    "claim",
                    f"differs from reference claim {cid} {averitec.first_difference(p.claim, ref.text)} "
                    "(predictions for another claim set, or a text rewritten?)",
                )
            )
        aligned[cid] = p

    if kind == CSV_2025:  # the leaderboard loader parses and checks the rows (ids unique, labels, texts)
        fmt, log = CSV_2025, LoadLog()
        rows_2025 = averitec.load_leaderboard(path, strict=not lenient, log=log)
        skipped += [str(err) for err in log.skipped]
        records = len(rows_2025) + len(log.skipped)
        for r in rows_2025:
            align(Prediction(f"with id {r.claim_id}", r.claim_id, r.claim, submission_evidence(r)), fmt)
    else:
        fmt, records = None, 0  # the first record with a format decides the file's
        for record, raw in rows:  # one pass, one raw record held at a time: memory is the aligned predictions
            records += 1
            this = record_format(raw)
            if this is None:
                keys = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
                problem(
                    DataError(
                        path,
                        record,
                        None,
                        f"keys {keys} match no prediction format (official: label and "
                        "questions or string_evidence; 2024: claim_id, claim, evidence, pred_label)",
                    )
                )
                continue
            fmt = fmt or this
            if this != fmt:
                problem(
                    DataError(
                        path,
                        record,
                        None,
                        f"a {this}-format record in a {fmt}-format file (the first "
                        "record decides): a file holds one format",
                    )
                )
                continue
            try:
                align((_official if fmt == OFFICIAL else _shared_2024)(path, record, raw), fmt)
            except DataError as err:
                problem(err)
        if not records:
            raise DataError(path, "-", None, "no predictions")
        if fmt is None:
            raise DataError(path, 0, None, "no record matches a prediction format")
    aligned_by = "claim_id" if (by_id[0] if by_id else fmt != OFFICIAL) else "position"
    if aligned_by == "position" and len(aligned) < len(references) and not lenient:
        raise DataError(
            path,
            None,
            None,
            f"{len(aligned)} predictions for {len(references)} references "
            "(without claim_id the official format is aligned by position)",
        )
    missing = [c.claim_id for c in references if c.claim_id not in aligned]
    if missing:
        err = DataError(
            path, None, "claim_id", f"no prediction for {len(missing)} reference claims (first: {missing[:5]})"
        )
        if not lenient:
            raise err
        skipped.append(f"{err}: they score 0 with no verdict")
    empty = Evidence(None, (), (), True)
    evidence = [aligned[c.claim_id].evidence if c.claim_id in aligned else empty for c in references]
    return Predictions(evidence, fmt, aligned_by, records, skipped)


def load_predictions(path: Path | str, references: Sequence[averitec.Claim], lenient: bool = False) -> list[Evidence]:
    """Predictions aligned with `references` (`read_predictions` without the report)."""
    return read_predictions(path, references, lenient).evidence


# --------------------------------------------------------------------------- the 2025 edition (FEVER-8)

EDITION_2024 = "2024 (AVeriTeC shared task)"
EDITION_2025 = "2025 (FEVER-8)"
LEVELS_2025 = (0.25,)  # FEVER-8 reports its "old AVeriTeC score" (Hungarian METEOR) at 0.25 only
SOLUTION_SPLIT = "gold"  # the solution rows FEVER-8's leaderboard scores (its public split)
# Where the 2025 METEOR path differs from the 2024 one (each has a test in tests/test_scoring.py):
DIFFERENCES_2025 = (
    "format: CSV rows id, claim, evi, label(, split), each question-answer pair a block "
    "'question\\t\\t\\nanswer\\t\\t\\n\\n' of evi, instead of JSON questions with answer lists",
    "Q-only gold questions: each distinct question once (a question with two answers is two blocks)",
    "a gold question without answers has no block, so it is not scored at all; 2024 scores it as "
    "'question No answer could be found.' in Q+A and keeps its question in Q-only",
    "only the solution rows whose split is 'gold' are scored",
    "the AVeriTeC score (Q+A > l and the right label) is reported at l = 0.25 only",
    "alignment: the organisers sort both files by id and pair rows by position, so a missing row shifts "
    "every later claim; here rows are paired by id and a missing, extra or duplicate id is an error",
)


MOVED = 0.005  # a run's score moved by the format change: a visible change at 3 decimals


def moved(q_only_change: pd.Series, qa_change: pd.Series) -> int:
    """The runs whose Q-only or Q+A score moves by more than `MOVED`, a move equal to it but for floating-point
    noise not counted (0.255 - 0.25 is 0.0050000000000000044: printed 0.0050 and counted "more than 0.005")."""
    over = [(abs(a) > MOVED and not noise_equal(abs(a), MOVED)) or (abs(b) > MOVED and not noise_equal(abs(b), MOVED))
            for a, b in zip(q_only_change, qa_change, strict=True)]  # fmt: skip
    return sum(over)


def edition_change_sentence(q_only_change: pd.Series, qa_change: pd.Series, tol: float = 5e-5) -> str:
    """What the 2025 METEOR path does to the same runs, from their per-run changes (2025 - 2024): no
    change of `tol` or more for any run, or how far Q-only and Q+A move and how many runs move by over 0.005
    (the largest moves printed with the decimals that show their side of 0.005: 0.00504, not 0.0050)."""
    q, qa = q_only_change.abs(), qa_change.abs()
    if qa.empty:  # max() of nothing is NaN: "moves ... by at most nan ... over the 0 runs"
        return "the two editions have no run to compare."
    if undefined := int((q.isna() | qa.isna()).sum()):  # max() skips NaN: a run scored in one edition "agreed"
        return f"the two editions cannot be compared on {undefined} of the {len(qa)} runs (a score missing in one)."
    if max(q.max(), qa.max()) < tol:  # a difference, not equal 4-decimal figures (0.12344 and 0.12346 print apart)
        return (
            f"the two editions' scores differ by less than {np.format_float_positional(tol, trim='-')} for every one of the {len(qa)} runs: on these "
            "references the 2025 path's differences (each distinct gold question once in Q-only, gold questions "
            "without answers not scored) change nothing; they matter for reference files where they apply."
        )
    return (
        f"the format change moves Q-only by at most {apart(q.max(), '.4f', (0.0, MOVED))} and Q+A by at most "
        f"{apart(qa.max(), '.4f', (0.0, MOVED))} over the {len(qa)} runs; {moved(q, qa)} move by "
        f"more than {MOVED:g}."
    )


def agrees_to_4_decimals(figure: Any, value: Any) -> Any:
    """Whether `value` is the published `figure` to 4 decimals: within half a unit of the fourth decimal
    (rounding both sides called 0.123449 and 0.12345 apart and 0.12345 a 0.1234, as its float is stored).
    Element-wise on Series and arrays; NaN agrees with nothing."""
    gap = np.abs(np.asarray(value, dtype=float) - np.asarray(figure, dtype=float))
    agree = gap <= 5e-5 * (1 + 1e-9)  # the bound itself agrees (0.12345 against 0.1234 as stored in binary)
    return bool(agree) if agree.ndim == 0 else agree


def check_figures_sentence(agree: int, total: int) -> str:
    """Whether this scorer reproduces the organisers' check figures (`agree` of `total` equal to 4 decimals).
    The figures are the organisers' scores of published systems on the whole dev split, so a run on fewer
    claims (a profile) cannot reproduce them."""
    if not all(isinstance(n, int | np.integer) and not isinstance(n, bool) for n in (agree, total)) or not (
        0 <= agree <= total
    ):  # "5 of 3 agree" and "-1 of 3 agree" were printed
        raise ValueError(f"check figures: {agree!r} of {total!r} agree; expected whole numbers, 0 <= agree <= total")
    if not total:  # "0 of 0 agree" read as a failure to reproduce figures there were none of
        return "No check figure applies to these runs: the organisers scored none of them."
    if agree == total:
        return f"The scorer reproduces the organisers' check figures: all {total} agree to 4 decimals."
    return (
        f"The scorer does not reproduce the organisers' check figures here: {agree} of {total} agree to 4 "
        "decimals (they score the whole dev split; a run on fewer claims differs)."
    )


def edition(path: Path | str) -> str:
    """The edition a reference file belongs to, from its format: a CSV solution is 2025, JSON is 2024."""
    kind, _ = _parse_records(Path(path), "a reference file (the dev set or a 2025 solution CSV)")
    return EDITION_2025 if kind == CSV_2025 else EDITION_2024


def read_solution(path: Path | str) -> tuple[list[averitec.LeaderboardRow], list[int]]:
    """The scored rows of a 2025 solution CSV (split `gold`, or every row when the file has no split
    column), and the ids of the rows left out."""
    rows = averitec.load_leaderboard(path)
    if not rows:
        raise DataError(path, "-", None, "no rows in the solution")
    for r in rows:  # a mistyped, cut or blank `gold` ("Gold", "gold ", "go", "") left its row out or in, silently
        if r.split not in (SOLUTION_SPLIT, None) and (
            SOLUTION_SPLIT.startswith(r.split) or not re.fullmatch(r"[a-z][a-z0-9_]*", r.split)
        ):
            raise DataError(
                path,
                f"with id {r.claim_id}",
                "split",
                f"{shown(r.split, 40)}: expected {SOLUTION_SPLIT!r} (a scored row) or another split's name in "
                "lower-case letters (a row left out)",
            )
    scored = [r for r in rows if r.split in (SOLUTION_SPLIT, None)]
    if not scored:
        raise DataError(path, "-", "split", f"no row has split {SOLUTION_SPLIT!r}: nothing to score")
    empty = next((r for r in scored if not any(visible(q) for q, _ in r.qa_pairs)), None)
    if empty is not None:  # its evidence score would be 0 whatever the submission: no reference to score against
        raise DataError(path, f"with id {empty.claim_id}", "evi", "no gold question: a solution row needs one")
    return scored, [r.claim_id for r in rows if r.split not in (SOLUTION_SPLIT, None)]


def read_submission(
    path: Path | str,
    solution: Sequence[averitec.LeaderboardRow],
    lenient: bool = False,
    left_out: Collection[int] = (),
) -> Predictions:
    """A 2025 submission CSV aligned with the solution's rows by id. Rows for ids outside the scored
    rows are ignored when the full solution has them (`left_out`: the private split) and otherwise an
    error, like a missing id or a claim text that differs; `lenient` skips and lists instead."""
    path = Path(path)
    kind, _ = _parse_records(path)
    if kind != CSV_2025:
        raise DataError(
            path, "-", None, "the references are a 2025 solution CSV, so the predictions must be a 2025 "
            "submission CSV (convert a JSON run with `python -m lib.averitec.scoring --predictions RUN --to-csv OUT`)"
        )  # fmt: skip
    log = LoadLog()
    rows = averitec.load_leaderboard(path, strict=not lenient, log=log)
    skipped = [str(err) for err in log.skipped]
    wanted = {r.claim_id: r for r in solution}
    by_id: dict[int, averitec.LeaderboardRow] = {}
    for r in rows:
        ref = wanted.get(r.claim_id)
        if ref is None and r.claim_id in left_out:
            continue  # not scored; load_leaderboard already refused duplicate ids
        if ref is None:
            err = DataError(path, f"with id {r.claim_id}", "id", "not an id of the solution (another claim set?)")
            if not lenient:
                raise err
            skipped.append(str(err))
            continue
        if not averitec.same_claim(r.claim, ref.claim):
            err = DataError(
                path,
                f"with id {r.claim_id}",
                "claim",
                f"differs from the solution's claim {averitec.first_difference(r.claim, ref.claim)}",
            )
            if not lenient:
                raise err
            skipped.append(str(err))
            continue
        by_id[r.claim_id] = r
    missing = [i for i in wanted if i not in by_id]
    if missing:
        err = DataError(path, None, "id", f"no row for {len(missing)} solution ids (first: {missing[:5]})")
        if not lenient:
            raise err
        skipped.append(f"{err}: they score 0 with no verdict")
    empty = Evidence(None, (), (), True)
    evidence = [submission_evidence(by_id[i]) if i in by_id else empty for i in wanted]
    return Predictions(evidence, CSV_2025, "id", len(rows) + len(log.skipped), skipped)


def leaderboard_pairs(ev: Evidence) -> tuple[tuple[str, str], ...]:
    """The (question, answer) blocks of one side in the 2025 format; string evidence (no questions)
    becomes blocks with empty answers."""
    return ev.pairs if ev.has_questions else tuple((s, "") for s in ev.strings)


def leaderboard_evi(pairs: Iterable[tuple[str, str]]) -> str:
    """The 2025 `evi` string of question-answer pairs: `question\\t\\t\\nanswer\\t\\t\\n\\n` each."""
    return "".join(f"{q}\t\t\n{a}\t\t\n\n" for q, a in pairs)


def faithful_evi(pairs: Sequence[tuple[str, str]]) -> str | None:
    """The 2025 `evi` string of `pairs`, or None when the format cannot hold them: a text with the
    format's own separator (TAB TAB NEWLINE) or an empty question reads back as other pairs (an answer
    holding `\t\t\n\n` became two pairs, and the CSV scored 0.89 where its JSON scored 0.82)."""
    evi = leaderboard_evi(pairs)
    try:
        back = averitec.parse_leaderboard_evidence(evi)
    except ValueError:
        return None
    return evi if back == tuple((q.strip(), a.strip()) for q, a in pairs) else None


def write_leaderboard(
    path: Path | str,
    claims: Sequence[averitec.Claim],
    evidence: Sequence[Evidence],
    split: str,
    source: Path | str | None = None,
) -> Path:
    """Write predictions (or, with `split` "gold", references) as a 2025 CSV: one row per claim, id =
    claim id. Every answer is one block (a Boolean answer's explanation appended as in `qa_string`); a
    question without answers has none; string evidence (no questions) becomes blocks with empty answers.
    Evidence the format cannot hold (`faithful_evi`) is an error naming the claim in `source`, before
    anything is written."""
    path = Path(path)
    rows = []
    for c, e in zip(claims, evidence, strict=True):
        evi = faithful_evi(leaderboard_pairs(e))
        if evi is None:
            raise DataError(
                source or path,
                f"of claim {c.claim_id}",
                "evidence",
                "a question or answer that the 2025 CSV cannot hold (it holds the format's separator, a TAB TAB "
                "NEWLINE, or is empty): written, it would be read back as other pairs",
            )
        rows.append([c.claim_id, c.text, evi, e.label or "", split])
    with OUT.atomic(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow([*averitec.LEADERBOARD_COLUMNS, "split"])
        w.writerows(rows)
    return path


# --------------------------------------------------------------------------- METEOR and the assignment


class _Memo:
    """Wraps an object so that one method's results are memoised (METEOR calls WordNet's `synsets` and
    the Porter stemmer's `stem` again for every pair; both are pure functions of the word)."""

    def __init__(self, obj: Any, method: str):
        setattr(self, method, functools.lru_cache(maxsize=None)(getattr(obj, method)))


class Meteor:
    """METEOR pair scores with tokenisation, stem, synonym and pair memoisation (state: the caches).

    Identical to `single_meteor_score(word_tokenize(reference), word_tokenize(candidate))`: NLTK's METEOR
    takes the WordNet reader and the stemmer as arguments, and gets memoising wrappers of the same ones."""

    def __init__(self):
        from nltk import word_tokenize
        from nltk.corpus import wordnet
        from nltk.stem.porter import PorterStemmer
        from nltk.translate.meteor_score import single_meteor_score

        use_nltk_data()
        wn, stemmer = _Memo(wordnet, "synsets"), _Memo(PorterStemmer(), "stem")
        self._tokenize = word_tokenize
        self._meteor = functools.partial(single_meteor_score, wordnet=wn, stemmer=stemmer)
        self.tokens: dict[str, list[str]] = {}
        self.pairs: dict[tuple[str, str], float] = {}

    def tok(self, s: str) -> list[str]:
        if s not in self.tokens:
            self.tokens[s] = self._tokenize(s)
        return self.tokens[s]

    def score(self, candidate: str, reference: str) -> float:
        key = (candidate, reference)
        if key not in self.pairs:
            self.pairs[key] = self._meteor(self.tok(reference), self.tok(candidate))
        return self.pairs[key]

    def matrix(self, candidates: Sequence[str], references: Sequence[str]) -> np.ndarray:
        m = np.empty((len(candidates), len(references)))
        for i, c in enumerate(candidates):
            for j, r in enumerate(references):
                m[i, j] = self.score(c, r)
        return m


def hungarian(scores: np.ndarray, n_reference: int) -> float:
    """Maximum-weight assignment of candidates to references, summed, divided by the reference count."""
    from scipy.optimize import linear_sum_assignment

    if scores.size == 0 or n_reference == 0:
        return 0.0
    rows, cols = linear_sum_assignment(scores, maximize=True)
    return float(scores[rows, cols].sum() / n_reference)


def claim_scores(pred: Evidence, ref: Evidence, meteor: Meteor) -> tuple[float, float]:
    """(Q-only, Q+A) Hungarian METEOR of one claim."""
    q_pred = list(pred.questions if pred.has_questions else pred.strings)[:MAX_QUESTIONS]
    q_only = hungarian(meteor.matrix(q_pred, ref.questions), len(ref.questions))
    qa = hungarian(meteor.matrix(list(pred.strings)[:MAX_QUESTIONS], ref.strings), len(ref.strings))
    return q_only, qa


_PAIRS: list[tuple[Evidence, Evidence]] = []


def _own_wordnet_files() -> None:
    """Forked workers must not share WordNet's open data files: the file offset is shared between
    processes, so concurrent seek-and-read returns the wrong synsets. Each worker reopens them."""
    from nltk.corpus import wordnet

    files = getattr(wordnet, "_data_file_map", None)
    if isinstance(files, dict):
        files.clear()


def _score_chunk(bounds: tuple[int, int]) -> list[tuple[float, float]]:
    meteor = Meteor()
    return [claim_scores(p, r, meteor) for p, r in _PAIRS[bounds[0] : bounds[1]]]


def evidence_scores(preds: Sequence[Evidence], refs: Sequence[Evidence], jobs: int = 1) -> np.ndarray:
    """(claims x 2) array of Q-only and Q+A scores; `jobs` > 1 splits the claims over forked processes."""
    global _PAIRS
    if len(preds) != len(refs):
        raise ValueError(f"{len(preds)} predictions for {len(refs)} references")
    if jobs <= 1 or len(preds) < 2 * jobs:
        meteor = Meteor()
        return np.array([claim_scores(p, r, meteor) for p, r in zip(preds, refs)]).reshape(-1, 2)

    from nltk.corpus import wordnet

    Meteor()  # puts nltk_data on the path before forking
    wordnet.ensure_loaded()  # load WordNet once, before forking
    _PAIRS = list(zip(preds, refs))
    edges = np.linspace(0, len(preds), jobs * 4 + 1).astype(int)
    try:
        chunks = list(zip(edges[:-1], edges[1:]))
        parts = list(C.forked_map(_score_chunk, chunks, jobs, "METEOR scoring", initializer=_own_wordnet_files))
    finally:
        _PAIRS = []
    return np.array([s for part in parts for s in part]).reshape(-1, 2)


# --------------------------------------------------------------------------- the score


def per_claim(
    preds: Sequence[Evidence], refs: Sequence[Evidence], claim_ids: Sequence[int] | None = None, jobs: int = 1
) -> pd.DataFrame:
    """One row per claim: q_only, qa, label, pred_label, correct, claim_types."""
    s = evidence_scores(preds, refs, jobs)
    return pd.DataFrame(
        {
            "claim_id": list(claim_ids) if claim_ids is not None else list(range(len(refs))),
            "q_only": s[:, 0],
            "qa": s[:, 1],
            "label": [r.label for r in refs],
            "pred_label": [p.label for p in preds],
            "correct": [p.label == r.label for p, r in zip(preds, refs)],
            "claim_types": [r.claim_types for r in refs],
        }
    )


def summarise(table: pd.DataFrame, levels: Iterable[float] = LEVELS) -> dict[str, Any]:
    """The organisers' numbers from a `per_claim` table. A verdict neither in the gold labels nor predicted
    has no F1 (None: 0/0, not a score of 0) and stays out of the macro mean, so a subset of claims without
    Conflicting Evidence/Cherrypicking, every verdict right, has macro-F1 1, not 0.75."""
    from sklearn.metrics import f1_score

    gold = table["label"].tolist()
    pred = [p if p is not None else "" for p in table["pred_label"]]
    f1 = f1_score(gold, pred, labels=list(VERDICTS), average=None, zero_division=np.nan)
    out = {
        "claims": len(table),
        "q_only": float(table["q_only"].mean()),
        "qa": float(table["qa"].mean()),
        "accuracy": float(table["correct"].mean()),
        "macro_f1": float(np.nanmean(f1)),  # the gold labels are verdicts: at least one is in play
        "f1": {v: None if np.isnan(x) else float(x) for v, x in zip(VERDICTS, f1)},
        "averitec": {f"{level:g}": float(((table["qa"] > level) & table["correct"]).mean()) for level in levels},
    }
    types = table.explode("claim_types").dropna(subset=["claim_types"])
    if not types.empty:
        out["type_averitec@0.25"] = {
            t: float(((g["qa"] > 0.25) & g["correct"]).mean()) for t, g in types.groupby("claim_types")
        }
        for t in (0.2, 0.3):
            out[f"type_qa@{t:g}"] = {
                k: float(np.where(g["qa"] > t, g["qa"], 0.0).mean()) for k, g in types.groupby("claim_types")
            }
    return out


def _something_scored(path: Path | str, preds: Predictions) -> Predictions:
    """`preds`, unless `--lenient` skipped every record: a score of 0 for nothing read is no score."""
    if preds.skipped and all(e.label is None and not e.strings for e in preds.evidence):
        raise DataError(
            path, "-", None, f"--lenient skipped every prediction ({len(preds.skipped)} problem(s), the first: "
            f"{preds.skipped[0][:200]}); nothing is left to score"
        )  # fmt: skip
    return preds


def reference_claims(references: Path | str) -> list[averitec.Claim]:
    """The claims of a JSON reference file (the dev set's format): a missing file, a folder, a pipe or a file
    without a claim is named."""
    references = Path(references)
    if not references.exists():
        raise DataError(references, "-", None, _missing(references))
    if references.is_dir():
        raise DataError(references, "-", None, "a folder: expected the reference claims' file")
    within_size(references)  # a pipe or a device: refused before it is read
    claims = averitec.load_averitec("dev", references)
    if not claims:
        raise DataError(references, "-", None, "no reference claims")
    return claims


def score_file(
    predictions: Path | str, references: Path | str, jobs: int = 1, lenient: bool = False, log: Any = None
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Score a prediction file against an AVeriTeC reference file: (summary, per-claim table).

    `log` (a writable text stream, e.g. sys.stderr) gets the detected format and anything skipped."""
    claims = reference_claims(references)
    empty = next((c for c in claims if not c.questions), None)
    if empty is not None:  # its evidence score would be 0 whatever the prediction: no reference to score against
        raise DataError(references, empty.claim_id, "questions", "no gold question: a reference claim needs one")
    preds = _something_scored(predictions, read_predictions(predictions, claims, lenient))
    if log is not None:
        print(f"{predictions}: {preds.describe()}", file=log)
        for line in preds.skipped:
            print(f"skipped: {line}", file=log)
    table = per_claim(preds.evidence, [reference_evidence(c) for c in claims], [c.claim_id for c in claims], jobs)
    return summarise(table), table


def score_file_2025(
    predictions: Path | str, references: Path | str, jobs: int = 1, lenient: bool = False, log: Any = None
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Score a 2025 submission CSV against a 2025 solution CSV with FEVER-8's METEOR path (see
    `DIFFERENCES_2025`): (summary at `LEVELS_2025`, per-claim table)."""
    solution, left_out = read_solution(references)
    preds = _something_scored(predictions, read_submission(predictions, solution, lenient, left_out))
    if log is not None:
        print(
            f"{predictions}: {preds.describe()}; {len(solution)} solution rows scored, {len(left_out)} left out (split)",
            file=log,
        )
        for line in preds.skipped:
            print(f"skipped: {line}", file=log)
    table = per_claim(preds.evidence, [solution_evidence(r) for r in solution], [r.claim_id for r in solution], jobs)
    return summarise(table, LEVELS_2025), table


def main(argv: list[str] | None = None) -> None:
    """`python -m lib.averitec.scoring --predictions P --references R`: one JSON object on stdout."""
    ap = ArgumentParser(prog="python -m lib.averitec.scoring", description=main.__doc__)
    ap.add_argument("--predictions", type=nonempty_path, required=True)
    ap.add_argument("--references", type=nonempty_path, default=str(DATA_DIR / "averitec" / "dev.json"))
    ap.add_argument("--jobs", type=flag_of(PosInt), default=2, help="worker processes (default 2)")
    ap.add_argument("--all", action="store_true", help="also print the per claim type scores")
    ap.add_argument(
        "--lenient",
        action="store_true",
        help="score what can be scored: bad records are skipped (and listed on stderr), "
        "claims without a usable prediction score 0",
    )
    ap.add_argument(
        "--to-csv",
        type=file_path,
        metavar="OUT",
        help="instead of scoring, write the predictions (aligned with --references, a JSON reference file) as a "
        "2025 submission CSV; with --split gold, as a solution",
    )
    ap.add_argument(
        "--split",
        choices=("pred", SOLUTION_SPLIT),
        help=f"the split column written by --to-csv: pred (the default) or {SOLUTION_SPLIT} (a solution)",
    )
    args = ap.parse_args(argv)
    if args.split and not args.to_csv:  # it was ignored: the scorer scored as if it were not there
        ap.error("argument --split: only with --to-csv (it names the split column the CSV is written with)")
    args.split = args.split or "pred"
    try:
        if args.to_csv:
            OUT.refuse_targets([args.to_csv], [args.predictions, args.references])
            OUT.refuse_stage_outputs([args.to_csv])
            claims = reference_claims(args.references)
            preds = _something_scored(args.predictions, read_predictions(args.predictions, claims, args.lenient))
            # a claim --lenient skipped gets no row (a row with no label is one no reader accepts)
            kept = [(c, e) for c, e in zip(claims, preds.evidence) if e.label is not None or e.strings]
            out = write_leaderboard(
                args.to_csv, [c for c, _ in kept], [e for _, e in kept], args.split, args.predictions
            )
            print(f"{args.predictions}: {preds.describe()} -> {out} ({len(kept)} rows)", file=sys.stderr)
            for line in preds.skipped:  # --lenient: what was left out, as scoring lists it
                print(f"skipped: {line}", file=sys.stderr)
            return
        which = edition(args.references)
        score = score_file_2025 if which == EDITION_2025 else score_file
        summary, _ = score(args.predictions, args.references, args.jobs, args.lenient, log=sys.stderr)
    except DataError as err:
        sys.exit(f"error: {err}")
    keys = ["q_only", "qa", "accuracy", "macro_f1", "f1", "averitec"]
    out = {"edition": which, **(summary if args.all else {k: summary[k] for k in keys})}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    run_main(main)
