"""Typed loaders for every file under `data/`.

Every loader is strict by default: malformed JSON/JSONL/CSV, a missing required field, a field of the
wrong type (a bool is not an id, a string is not a list of strings), an empty claim or question, a
duplicated id, an unknown label or an unparseable date raise `DataError`, whose message names the file,
the record and the field. With `strict=False` a bad record is skipped instead, and the error is appended
to a `LoadLog` that the caller must pass and report, so nothing is ever dropped silently.

`python -m lib.data verify [DATA_DIR]` checks `data/` against `data/SHA256SUMS`;
`python -m lib.data remote-check [REPO_ROOT]` checks that the default DVC remote folder exists before
`dvc pull` (which fails without a word when it does not).
"""
from __future__ import annotations

import configparser
import csv
import hashlib
import json
import os
import re
import sys
import warnings
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Container, Hashable, Iterator, TypeVar

from lib.config import DATA_DIR, ROOT

T = TypeVar("T")

# --------------------------------------------------------------------------- errors and logs


class DataError(ValueError):
    """A bad input record: says which file, which record and which field."""

    def __init__(self, path: Path | str, record: Any, field_name: str | None, problem: str):
        self.path, self.record, self.field, self.problem = str(path), record, field_name, problem
        where = f"{self.path}: record {record}"
        if field_name is not None:
            where += f": field {field_name!r}"
        super().__init__(f"{where}: {problem}")


@dataclass
class LoadLog:
    """Records skipped by lenient loaders, kept so that callers can count and report them."""

    skipped: list[DataError] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        """Skipped records per file."""
        return dict(Counter(e.path for e in self.skipped))

    def __len__(self) -> int:
        return len(self.skipped)


def _collect(path: Path, rows: Iterator[tuple[Any, dict]], parse: Callable[[Any, dict], T],
             strict: bool, log: LoadLog | None, *,
             unique: tuple[str, Callable[[T], Hashable]] | None = None) -> list[T]:
    """Parse each raw row; raise on the first bad one, or skip it into `log`.

    `unique` = (field name, id of a parsed item): an id seen before is a `DataError` naming both
    records (the first one is kept when loading leniently), so no id silently shadows another.
    """
    if not strict and log is None:
        raise ValueError("strict=False needs a LoadLog, so that skipped records are reported")
    out: list[T] = []
    first_record: dict[Hashable, Any] = {}
    for record, raw in rows:
        try:
            if not isinstance(raw, dict):
                raise DataError(path, record, None, f"expected an object, got {type(raw).__name__}")
            item = parse(record, raw)
            if unique is not None:
                name, id_of = unique
                key = id_of(item)
                if key in first_record:
                    raise DataError(path, record, name, f"duplicate id {key!r}: record {first_record[key]} has it too "
                                                        "(expected each id once)")
                first_record[key] = record
            out.append(item)
        except DataError as err:
            if strict:
                raise
            log.skipped.append(err)  # type: ignore[union-attr]
    return out


# --------------------------------------------------------------------------- file readers


class _DuplicateKey(ValueError):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json's `object_pairs_hook`: an object that names a key twice is an error (json keeps the last)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(f"an object names the key {key!r} twice (json would keep the last silently)")
        out[key] = value
    return out


def _json(path: Path, text: str, where: str, kind: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as err:
        raise DataError(path, f"at line {err.lineno}" if where == "-" else where, None,
                        f"malformed {kind}: {err.msg}") from err
    except _DuplicateKey as err:
        raise DataError(path, where, None, str(err)) from None


def read_json_records(path: Path | str) -> list[tuple[int, Any]]:
    """(index, record) pairs from a JSON array or a JSONL file (detected from the content).

    Some published files are JSONL despite a `.json` name, so the first character decides. A byte-order
    mark is skipped; an object that names a key twice is an error.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise DataError(path, "-", None, f"not UTF-8 text ({err})") from err
    except IsADirectoryError:
        raise DataError(path, "-", None, "a directory, not a file") from None
    stripped = text.lstrip()
    if stripped.startswith("["):
        return list(enumerate(_json(path, text, "-", "JSON")))
    records = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        records.append((len(records), _json(path, line, f"at line {lineno}", "JSONL")))
    if not records:
        raise DataError(path, "-", None, "no records (empty file?)")
    return records


def read_csv_records(path: Path | str, required: tuple[str, ...], sep: str = ",") -> list[tuple[int, dict]]:
    """(row number, row dict) pairs; a missing column or a ragged row is a `DataError`."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.reader(f, delimiter=sep)
            try:
                header = next(reader)
            except StopIteration:
                raise DataError(path, "header", None, "empty file") from None
            twice = sorted({c for c in header if header.count(c) > 1})
            if twice:
                raise DataError(path, "header", twice[0], f"column named twice (columns: {header})")
            missing = [c for c in required if c not in header]
            if missing:
                raise DataError(path, "header", missing[0], f"missing column (columns: {header})")
            rows = []
            try:
                for i, values in enumerate(v for v in reader if v):  # a blank line is no row
                    if len(values) != len(header):
                        raise DataError(path, i, None, f"malformed CSV: {len(values)} fields, header has {len(header)}")
                    rows.append((i, dict(zip(header, values))))
            except csv.Error as err:
                raise DataError(path, f"near line {reader.line_num}", None, f"malformed CSV: {err}") from err
    except UnicodeDecodeError as err:
        raise DataError(path, "-", None, f"not UTF-8 text ({err})") from None
    except IsADirectoryError:
        raise DataError(path, "-", None, "a directory, not a file") from None
    return rows


# --------------------------------------------------------------------------- fields
#
# One helper per kind of field, each naming the field as `at + name` (e.g. `questions[2].question`):
# `_req` (a required field of a type), `_opt` (an optional one), `_text` (a claim or question: a string
# with some text), `_str_list` (a list of strings), `_int_text` (an integer id written in a CSV cell).

# Published records with an empty claim or question. They are kept, so that every file loads as
# published (claim ids are positions in the file), and they are the only empty texts accepted.
#   averitec/train.json record 1948: the claim text is "" (label Supported, one QA pair)
#   averitec/train.json record 438: question 3 of 5 is "" (its justification says "The first Q and A has
#   no question")
PUBLISHED_EMPTY_TEXTS = frozenset({
    ("averitec/train.json", 1948, "claim"),
    ("averitec/train.json", 438, "questions[2].question"),
})


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _is_kind(value: Any, kind: type | tuple[type, ...]) -> bool:
    """`isinstance`, except that a bool is not an int: JSON `true` must not become claim 1."""
    kinds = _kinds(kind)
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def _req(path: Path, record: Any, raw: dict, name: str, kind: type | tuple[type, ...] = str, *,
         allow_none: bool = False, at: str = "") -> Any:
    """A required field of the expected type."""
    if name not in raw:
        raise DataError(path, record, at + name, "missing required field")
    value = raw[name]
    if value is None and allow_none:
        return None
    if not _is_kind(value, kind):
        expected = " or ".join(k.__name__ for k in _kinds(kind))
        raise DataError(path, record, at + name, f"expected {expected}, got {type(value).__name__}")
    return value


def _opt(path: Path, record: Any, raw: dict, name: str, kind: type | tuple[type, ...] = str,
         default: Any = None, *, at: str = "") -> Any:
    """An optional field: missing or null gives `default`, anything else must be of `kind`."""
    if raw.get(name) is None:
        return default
    return _req(path, record, raw, name, kind, at=at)


def _nonempty(path: Path, record: Any, field_name: str, value: str) -> str:
    """`value` unless it is blank (and not one of the `PUBLISHED_EMPTY_TEXTS`)."""
    if not value.strip() and ("/".join(Path(path).parts[-2:]), record, field_name) not in PUBLISHED_EMPTY_TEXTS:
        raise DataError(path, record, field_name, "empty text (expected a non-empty string)")
    return value


def _text(path: Path, record: Any, raw: dict, name: str, *, at: str = "") -> str:
    """A claim or question text: a required string with something besides whitespace."""
    return _nonempty(path, record, at + name, _req(path, record, raw, name, at=at))


def _str_list(path: Path, record: Any, raw: dict, name: str, *, at: str = "", required: bool = False,
              texts: bool = False, none_items: bool = False) -> tuple[Any, ...]:
    """A list of strings, as a tuple: a lone string is an error, not a tuple of its characters.

    Missing gives () unless `required`; `texts`: every item must be non-empty (questions);
    `none_items`: nulls are allowed and kept (CLIMATE-FEVER votes).
    """
    if name not in raw:
        if required:
            raise DataError(path, record, at + name, "missing required field")
        return ()
    value = raw[name]
    if not isinstance(value, list):
        raise DataError(path, record, at + name, f"expected a list of strings, got {type(value).__name__}")
    for i, item in enumerate(value):
        if item is None and none_items:
            continue
        if not isinstance(item, str):
            raise DataError(path, record, f"{at}{name}[{i}]",
                            f"expected str, got {type(item).__name__} (a list of strings)")
        if texts:
            _nonempty(path, record, f"{at}{name}[{i}]", item)
    return tuple(value)


def _int_text(path: Path, record: Any, raw: dict, name: str, default: int | None = None) -> int:
    """An integer id in a CSV cell: ASCII digits only (no sign, space, '1_0' or 'True'); blank gives `default`."""
    value = raw[name]
    if not value and default is not None:
        return default
    if not re.fullmatch(r"[0-9]+", value):
        raise DataError(path, record, name, f"not an integer: {value!r} (expected a non-negative integer id)")
    return int(value)


# --------------------------------------------------------------------------- labels and dates

AVERITEC_LABELS = ("Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking")
QUANTEMP_LABELS = ("True", "False", "Conflicting")
CLAIMDECOMP_LABELS = ("pants-fire", "false", "barely-true", "half-true", "mostly-true", "true")
CLIMATE_FEVER_LABELS = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED")


def _key(label: str) -> str:
    return re.sub(r"[^a-z]", "", label.lower())


_AVERITEC_ALIASES = {_key(x): x for x in AVERITEC_LABELS} | {
    "conflictingevidencecherrypicking": "Conflicting Evidence/Cherrypicking",
    "conflicting": "Conflicting Evidence/Cherrypicking",
    "notenoughinfo": "Not Enough Evidence",
}
# QuanTemp's three classes; "Half True/False" is the published name of Conflicting.
_QUANTEMP_ALIASES = {"true": "True", "false": "False", "conflicting": "Conflicting",
                     "halftruefalse": "Conflicting"}


def normalise_label(label: Any, scheme: str = "averitec") -> str:
    """The canonical label of `scheme` (`averitec` or `quantemp`); `ValueError` if unknown."""
    aliases = {"averitec": _AVERITEC_ALIASES, "quantemp": _QUANTEMP_ALIASES}[scheme]
    if isinstance(label, str) and _key(label) in aliases:
        return aliases[_key(label)]
    raise ValueError(f"unknown {scheme} label {label!r} (expected one of {sorted(set(aliases.values()))})")


_DMY = re.compile(r"^\s*(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})\s*$")
_YMD = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*$")


def parse_claim_date(value: str | None) -> date | None:
    """AVeriTeC claim dates: DD-MM-YYYY, also D-M-YYYY and / or . separators, or ISO YYYY-MM-DD.

    None or an empty string is an unknown date (None); anything else unparseable is a ValueError.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected a date string, got {type(value).__name__}")
    if m := _DMY.match(value):
        d, mth, y = (int(g) for g in m.groups())
    elif m := _YMD.match(value):
        y, mth, d = (int(g) for g in m.groups())
    else:
        raise ValueError(f"unparseable date {value!r} (expected DD-MM-YYYY)")
    try:
        return date(y, mth, d)
    except ValueError as err:
        raise ValueError(f"invalid date {value!r}: {err}") from None


def _label(path: Path, record: Any, raw: dict, name: str, scheme: str) -> str:
    try:
        return normalise_label(_req(path, record, raw, name), scheme)
    except ValueError as err:
        if isinstance(err, DataError):
            raise
        raise DataError(path, record, name, str(err)) from None


def _choice(path: Path, record: Any, raw: dict, name: str, allowed: tuple[str, ...], *, at: str = "") -> str:
    value = _req(path, record, raw, name, at=at)
    if value not in allowed:
        raise DataError(path, record, at + name, f"unknown label {value!r} (expected one of {list(allowed)})")
    return value


# --------------------------------------------------------------------------- AVeriTeC claims

NO_ANSWER = "No answer could be found."


@dataclass(frozen=True)
class Answer:
    text: str
    answer_type: str | None
    source_url: str
    source_medium: str | None
    boolean_explanation: str | None = None


@dataclass(frozen=True)
class Question:
    text: str
    answers: tuple[Answer, ...]


@dataclass(frozen=True)
class Claim:
    """An AVeriTeC claim with its gold question-answer evidence; `claim_id` is its index in the file."""

    claim_id: int
    split: str
    text: str
    label: str
    claim_date: date | None
    claim_types: tuple[str, ...]
    fact_checking_strategies: tuple[str, ...]
    justification: str
    fact_checking_article: str | None
    speaker: str | None
    reporting_source: str | None
    questions: tuple[Question, ...]


def _answer(path: Path, record: Any, raw: Any, where: str) -> Answer:
    """One gold answer; its text may be short ("Yes", "33%") or `NO_ANSWER`, so only its type is checked."""
    if not isinstance(raw, dict):
        raise DataError(path, record, where, "expected an answer object")
    at = where + "."
    return Answer(_req(path, record, raw, "answer", at=at), _opt(path, record, raw, "answer_type", at=at),
                  _req(path, record, raw, "source_url", at=at), _opt(path, record, raw, "source_medium", at=at),
                  _opt(path, record, raw, "boolean_explanation", at=at))


def _averitec_claim(path: Path, split: str, record: int, raw: dict) -> Claim:
    if "claim_id" in raw and raw["claim_id"] != record:
        raise DataError(path, record, "claim_id", f"{raw['claim_id']!r}, but a claim's id is its position in the "
                        f"file ({record}): a subset or a re-ordered file would misalign every claim after it")
    questions = []
    for qi, q in enumerate(_req(path, record, raw, "questions", list)):
        if not isinstance(q, dict):
            raise DataError(path, record, f"questions[{qi}]", f"expected an object, got {type(q).__name__}")
        text = _text(path, record, q, "question", at=f"questions[{qi}].")
        answers = [] if q.get("answers") is None else q["answers"]
        if not isinstance(answers, list):
            raise DataError(path, record, f"questions[{qi}].answers", f"expected a list, got {type(answers).__name__}")
        questions.append(Question(text, tuple(
            _answer(path, record, a, f"questions[{qi}].answers[{ai}]") for ai, a in enumerate(answers))))
    try:
        claim_date = parse_claim_date(_req(path, record, raw, "claim_date", allow_none=True))
    except ValueError as err:
        if isinstance(err, DataError):
            raise
        raise DataError(path, record, "claim_date", str(err)) from None
    return Claim(
        claim_id=record, split=split, text=_text(path, record, raw, "claim"),
        label=_label(path, record, raw, "label", "averitec"), claim_date=claim_date,
        claim_types=_str_list(path, record, raw, "claim_types"),
        fact_checking_strategies=_str_list(path, record, raw, "fact_checking_strategies"),
        justification=_opt(path, record, raw, "justification", str, ""),
        fact_checking_article=_opt(path, record, raw, "fact_checking_article"),
        speaker=_opt(path, record, raw, "speaker"), reporting_source=_opt(path, record, raw, "reporting_source"),
        questions=tuple(questions))


def load_averitec(split: str = "dev", path: Path | str | None = None, *, strict: bool = True,
                  log: LoadLog | None = None) -> list[Claim]:
    """AVeriTeC claims of `split` (train, dev, test) with their gold QA evidence."""
    path = Path(path) if path else DATA_DIR / "averitec" / f"{split}.json"
    rows = read_json_records(path)
    return _collect(path, iter(rows), lambda r, raw: _averitec_claim(path, split, r, raw), strict, log)


def load_generated_questions(path: Path | str | None = None, *, strict: bool = True,
                             log: LoadLog | None = None) -> dict[int, list[str]]:
    """The BLOOM a-priori questions (dev schema, empty answers): {claim_id: [questions]}."""
    path = Path(path) if path else DATA_DIR / "averitec" / "systems" / "bloom_dev_generated_questions.json"
    claims = load_averitec("dev", path, strict=strict, log=log)
    return {c.claim_id: [q.text for q in c.questions] for c in claims}


def gold_answer_text(answer: Answer) -> str:
    """The text an answer contributes as evidence: a Boolean answer's explanation where present."""
    if answer.answer_type == "Boolean" and answer.boolean_explanation:
        return answer.boolean_explanation
    return answer.text


# --------------------------------------------------------------------------- published system outputs


@dataclass(frozen=True)
class RetrievedEvidence:
    """One evidence item a system returned: a sentence (and the question it answers, for QA runs)."""

    text: str
    urls: tuple[str, ...]
    question: str | None = None


@dataclass(frozen=True)
class SystemOutput:
    claim_id: int
    claim: str
    evidence: tuple[RetrievedEvidence, ...]
    pred_label: str | None = None


def _system_output(path: Path, record: int, raw: dict) -> SystemOutput:
    claim_id = _req(path, record, raw, "claim_id", int)
    claim = _text(path, record, raw, "claim")
    keys = [k for k in raw if k == "evidence" or re.fullmatch(r"top_\d+", k)]
    if len(keys) != 1:
        raise DataError(path, record, "evidence", "expected exactly one of 'evidence' or 'top_<k>'")
    qa = keys[0] == "evidence"
    items = _req(path, record, raw, keys[0], list)
    evidence = []
    for i, item in enumerate(items):
        where = f"{keys[0]}[{i}]"
        if not isinstance(item, dict):
            raise DataError(path, record, where, "expected an object")
        text = _req(path, record, item, "answer" if qa else "sentence", at=where + ".")
        url = item.get("url")
        urls = (url,) if isinstance(url, str) else tuple(url) if isinstance(url, list) else None
        if urls is None or not all(isinstance(u, str) for u in urls):
            raise DataError(path, record, f"{where}.url", "expected a string or a list of strings")
        question = None
        if qa and item.get("question") is not None:  # optional, but a question when given
            question = _text(path, record, item, "question", at=where + ".")
        evidence.append(RetrievedEvidence(text, urls, question))
    pred = raw.get("pred_label")
    if pred is not None:
        pred = _label(path, record, raw, "pred_label", "averitec")
    return SystemOutput(claim_id, claim, tuple(evidence), pred)


def load_system_output(path: Path | str, *, strict: bool = True, log: LoadLog | None = None) -> list[SystemOutput]:
    """A published system's per-claim output, in any of its three shapes; one record per claim_id.

    QA evidence with one URL per answer (HerO, baseline, FEVER-8), QA evidence with a list of URLs
    (UHH), or top-k sentences `{sentence, url}` (HerO reranking, baseline BM25 sample).
    """
    path = Path(path)
    return _collect(path, iter(read_json_records(path)), lambda r, raw: _system_output(path, r, raw), strict, log,
                    unique=("claim_id", lambda o: o.claim_id))


def load_misinfo_domains(path: Path | str | None = None) -> set[str]:
    """Domains known for misinformation, lower-cased, without `www.`."""
    path = Path(path) if path else DATA_DIR / "averitec" / "misinfo_domains.txt"
    out = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        d = line.strip().lower()
        if d and not d.startswith("#"):
            out.add(d[4:] if d.startswith("www.") else d)
    return out


@dataclass(frozen=True)
class LeaderboardRow:
    claim_id: int
    claim: str
    qa_pairs: tuple[tuple[str, str], ...]
    label: str
    split: str


def parse_leaderboard_evidence(evi: str) -> tuple[tuple[str, str], ...]:
    """FEVER-8 leaderboard evidence: `question\t\t\nanswer` pairs, each ended by `\t\t\n\n`.

    An answer may hold blank lines of its own (so pairs are split on the separator, not on blank lines);
    Windows line ends are read as `\n`. A pair without its question/answer separator is a ValueError."""
    pairs = []
    for i, chunk in enumerate(evi.replace("\r\n", "\n").split("\t\t\n\n")):
        if not chunk.strip():
            continue
        question, sep, answer = chunk.partition("\t\t\n")
        if not sep or not question.strip():
            raise ValueError(f"pair {i}: expected 'question<TAB><TAB><NEWLINE>answer', got {chunk[:60]!r}")
        pairs.append((question.strip(), " ".join(a.strip() for a in answer.split("\t\t\n") if a.strip())))
    return tuple(pairs)


LEADERBOARD_COLUMNS = ("id", "claim", "evi", "label")  # the 2025 submission format; the gold file adds `split`


def load_leaderboard(path: Path | str, *, strict: bool = True, log: LoadLog | None = None) -> list[LeaderboardRow]:
    """FEVER-8 leaderboard CSV (gold solution or a submission; `split` optional); one row per id."""
    path = Path(path)
    rows = read_csv_records(path, LEADERBOARD_COLUMNS)
    extra = sorted(set(rows[0][1]) - {*LEADERBOARD_COLUMNS, "split"}) if rows else []
    if extra:
        raise DataError(path, "header", extra[0], f"unknown column (expected {list(LEADERBOARD_COLUMNS)}, "
                        "optionally 'split')")

    def parse(record: int, raw: dict) -> LeaderboardRow:
        try:
            pairs = parse_leaderboard_evidence(raw["evi"])
        except ValueError as err:
            raise DataError(path, record, "evi", str(err)) from None
        return LeaderboardRow(_int_text(path, record, raw, "id"), _text(path, record, raw, "claim"), pairs,
                              _label(path, record, raw, "label", "averitec"), raw.get("split", ""))

    return _collect(path, iter(rows), parse, strict, log, unique=("id", lambda row: row.claim_id))


# --------------------------------------------------------------------------- QuanTemp


@dataclass(frozen=True)
class QuanTempClaim:
    """A QuanTemp validation claim with up to three BM25 snippets from the QuanTemp corpus."""

    claim_id: int
    text: str
    label: str
    query: str
    snippets: tuple[str, ...]


def load_quantemp_val(path: Path | str | None = None, *, strict: bool = True,
                      log: LoadLog | None = None) -> list[QuanTempClaim]:
    path = Path(path) if path else DATA_DIR / "quantemp" / "val_claims_bm25_evidence.json"

    def parse(record: int, raw: dict) -> QuanTempClaim:
        evs = _req(path, record, raw, "evidences", list)
        queries, snippets = [], []
        for i, ev in enumerate(evs):
            if not isinstance(ev, dict):
                raise DataError(path, record, f"evidences[{i}]", "expected an object {questions, top_k_doc}")
            queries.append(_opt(path, record, ev, "questions", str, "", at=f"evidences[{i}]."))
            snippets.extend(_str_list(path, record, ev, "top_k_doc", at=f"evidences[{i}]."))
        return QuanTempClaim(record, _text(path, record, raw, "claim"), _label(path, record, raw, "label", "quantemp"),
                             " ".join(queries), tuple(snippets))

    return _collect(path, iter(read_json_records(path)), parse, strict, log)


QUANTEMP_TAXONOMY = ("statistical", "temporal", "interval", "comparison")


@dataclass(frozen=True)
class TaxonomyClaim:
    text: str
    taxonomy: str


def load_quantemp_taxonomy(path: Path | str | None = None) -> list[TaxonomyClaim]:
    """Numerical claims labelled with the QuanTemp taxonomy ('@'-separated CSV)."""
    path = Path(path) if path else DATA_DIR / "quantemp" / "taxonomy_labelled_claims.csv"

    def parse(record: int, raw: dict) -> TaxonomyClaim:
        label = raw["taxonomy_labels"].strip().lower()
        if label not in QUANTEMP_TAXONOMY:
            raise DataError(path, record, "taxonomy_labels", f"unknown label {label!r} (expected {QUANTEMP_TAXONOMY})")
        return TaxonomyClaim(_text(path, record, raw, "claim").strip(), label)

    rows = read_csv_records(path, ("claim", "taxonomy_labels"), sep="@")
    return _collect(path, iter(rows), parse, True, None)


@dataclass(frozen=True)
class DecomposedClaim:
    text: str
    questions: tuple[str, ...]


def load_quantemp_decompositions(path: Path | str | None = None) -> list[DecomposedClaim]:
    """QuanTemp test claims with LLM-generated ClaimDecomp questions (joined by 'Next Question:')."""
    path = Path(path) if path else DATA_DIR / "quantemp" / "test_claimdecomp_questions.csv"

    def parse(record: int, raw: dict) -> DecomposedClaim:
        qs = [q.strip() for q in re.split(r"\n?Next Question:", raw["questions"]) if q.strip()]
        if not qs:
            raise DataError(path, record, "questions", "no questions")
        return DecomposedClaim(_text(path, record, raw, "claims"), tuple(qs))

    return _collect(path, iter(read_csv_records(path, ("claims", "questions"), sep="@")), parse, True, None)


@dataclass(frozen=True)
class ClaimPrediction:
    text: str
    label: str


def load_quantemp_predictions(path: Path | str) -> list[ClaimPrediction]:
    """A published QuanTemp system's test predictions (claim, verdict)."""
    path = Path(path)
    rows = read_csv_records(path, ("claim", "verdict"))
    return _collect(path, iter(rows), lambda r, raw: ClaimPrediction(
        _text(path, r, raw, "claim"), _label(path, r, raw, "verdict", "quantemp")), True, None)


@dataclass(frozen=True)
class GoldArticleClaim:
    """A gold-labelled QuanTemp test claim with its fact-check article and GPT-4o's prediction."""

    row_id: int
    text: str
    article: str
    label: str
    gpt4o_label: str


_FEATURES = re.compile(r"^\[Claim\]:(?P<claim>.*?)\[Evidences\]:(?P<article>.*)$", re.S)


def load_quantemp_gold_subset(path: Path | str | None = None) -> list[GoldArticleClaim]:
    """The gold subset; its unnamed index column is the row id (the row number where blank), one row per id."""
    path = Path(path) if path else DATA_DIR / "quantemp" / "test_subset_gold_with_article.csv"

    def parse(record: int, raw: dict) -> GoldArticleClaim:
        m = _FEATURES.match(raw["features"])
        if not m:
            raise DataError(path, record, "features", "expected '[Claim]:...[Evidences]:...'")
        return GoldArticleClaim(_int_text(path, record, raw, "", default=record),
                                _nonempty(path, record, "features", m["claim"].strip()), m["article"].strip(),
                                _label(path, record, raw, "true_label", "quantemp"),
                                _label(path, record, raw, "pred_label", "quantemp"))

    rows = read_csv_records(path, ("", "features", "true_label", "pred_label"))
    return _collect(path, iter(rows), parse, True, None, unique=("", lambda c: c.row_id))


# --------------------------------------------------------------------------- ClaimDecomp, CLIMATE-FEVER


@dataclass(frozen=True)
class Decomposition:
    """One annotator's yes/no sub-questions for a claim."""

    questions: tuple[str, ...]
    answers: tuple[str, ...]
    question_source: tuple[str, ...]


@dataclass(frozen=True)
class ClaimDecompClaim:
    example_id: int
    text: str
    label: str
    url: str
    person: str
    venue: str
    justification: tuple[str, ...]
    article: tuple[str, ...]
    annotations: tuple[Decomposition, ...]


def load_claimdecomp(split: str = "dev", path: Path | str | None = None, *, strict: bool = True,
                     log: LoadLog | None = None) -> list[ClaimDecompClaim]:
    """ClaimDecomp (Chen et al. 2022): PolitiFact claims with human yes/no decompositions; one per example_id."""
    path = Path(path) if path else DATA_DIR / "claimdecomp" / f"{split}.jsonl"

    def parse(record: int, raw: dict) -> ClaimDecompClaim:
        anns = []
        for i, a in enumerate(_req(path, record, raw, "annotations", list)):
            at = f"annotations[{i}]."
            if not isinstance(a, dict):
                raise DataError(path, record, f"annotations[{i}]", f"expected an object, got {type(a).__name__}")
            anns.append(Decomposition(_str_list(path, record, a, "questions", at=at, required=True, texts=True),
                                      tuple(x.lower() for x in _str_list(path, record, a, "answers", at=at)),
                                      tuple(x.lower() for x in _str_list(path, record, a, "question_source", at=at))))
        return ClaimDecompClaim(
            _req(path, record, raw, "example_id", int), _text(path, record, raw, "claim"),
            _choice(path, record, raw, "label", CLAIMDECOMP_LABELS), _opt(path, record, raw, "url", str, ""),
            _opt(path, record, raw, "person", str, ""), _opt(path, record, raw, "venue", str, ""),
            _str_list(path, record, raw, "justification"), _str_list(path, record, raw, "full_article"), tuple(anns))

    return _collect(path, iter(read_json_records(path)), parse, strict, log,
                    unique=("example_id", lambda c: c.example_id))


@dataclass(frozen=True)
class ClimateEvidence:
    evidence_id: str
    article: str
    text: str
    label: str
    votes: tuple[str, ...]


@dataclass(frozen=True)
class ClimateClaim:
    claim_id: str
    text: str
    label: str
    evidences: tuple[ClimateEvidence, ...]


def load_climate_fever(path: Path | str | None = None, *, strict: bool = True,
                       log: LoadLog | None = None) -> list[ClimateClaim]:
    """CLIMATE-FEVER: claims with five Wikipedia sentences each, sentence and claim labels; one per claim_id."""
    path = Path(path) if path else DATA_DIR / "climate_fever" / "climate-fever.jsonl"
    ev_labels = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO")

    def parse(record: int, raw: dict) -> ClimateClaim:
        evs = []
        for i, e in enumerate(_req(path, record, raw, "evidences", list)):
            at = f"evidences[{i}]."
            if not isinstance(e, dict):
                raise DataError(path, record, f"evidences[{i}]", "expected an object")
            votes = _str_list(path, record, e, "votes", at=at, none_items=True)
            evs.append(ClimateEvidence(_opt(path, record, e, "evidence_id", str, "", at=at),
                                       _opt(path, record, e, "article", str, "", at=at),
                                       _req(path, record, e, "evidence", at=at),
                                       _choice(path, record, e, "evidence_label", ev_labels, at=at),
                                       tuple(v for v in votes if v)))
        return ClimateClaim(str(_req(path, record, raw, "claim_id", (str, int))), _text(path, record, raw, "claim"),
                            _choice(path, record, raw, "claim_label", CLIMATE_FEVER_LABELS), tuple(evs))

    return _collect(path, iter(read_json_records(path)), parse, strict, log,
                    unique=("claim_id", lambda c: c.claim_id))


# --------------------------------------------------------------------------- checksums

SUMS_NAME = "SHA256SUMS"
_SUMS_LINE = re.compile(r"(?P<sha256>[0-9a-fA-F]{64}) [ *](?P<path>.+)")  # `sha256sum` output, text or binary mode
_README = re.compile(r"readme(\.\w+)?", re.IGNORECASE)


class UnlistedDataWarning(UserWarning):
    """Files in the data folder that SHA256SUMS does not list: present, but nothing vouches for them."""


def read_checksums(data_dir: Path | str = DATA_DIR) -> dict[str, tuple[int, str]]:
    """{path relative to `data_dir`: (line number, sha256)} from `data_dir/SHA256SUMS`.

    The manifest itself is checked before anything is hashed: a missing or empty file, a line that is
    not `<64 hex digits>  <path>`, a path that is absolute, contains '..' or resolves outside `data_dir`
    (a symlink), or a path listed twice is a `DataError` naming the line.
    """
    data_dir = Path(data_dir)
    sums = data_dir / SUMS_NAME
    try:
        text = sums.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(sums, "-", None, "missing: run `make data` (dvc pull) first") from None
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(sums, "-", None, f"unreadable ({err})") from None
    root = data_dir.resolve()
    listed: dict[str, tuple[int, str]] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        m = _SUMS_LINE.fullmatch(line.rstrip())
        if not m:
            raise DataError(sums, where, None, f"malformed: {line[:80]!r} (expected '<64 hex digits>  <relative path>')")
        name = m["path"]
        rel = PurePosixPath(name)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise DataError(sums, where, "path", f"{name!r} is not inside {data_dir} "
                                                 "(expected a relative path without '..')")
        try:
            inside = (root / rel).resolve().is_relative_to(root)
        except (OSError, RuntimeError, ValueError) as err:  # a symlink loop, a NUL byte
            raise DataError(sums, where, "path", f"{name!r} cannot be resolved ({err})") from None
        if not inside:
            raise DataError(sums, where, "path", f"{name!r} resolves outside {data_dir} (a symlink?)")
        key = rel.as_posix()
        if key in listed:
            raise DataError(sums, where, "path", f"{key!r} is listed twice: line {listed[key][0]} lists it too")
        listed[key] = (lineno, m["sha256"].lower())
    if not listed:
        raise DataError(sums, "-", None, "lists no files (expected one '<sha256>  <path>' line per data file)")
    return listed


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def unlisted_files(data_dir: Path | str, listed: Container[str]) -> list[str]:
    """Files under `data_dir` not in `listed`, other than SHA256SUMS itself and a top-level README."""
    data_dir = Path(data_dir)
    out = []
    for p in data_dir.rglob("*"):
        rel = p.relative_to(data_dir).as_posix()
        top_level_readme = p.parent == data_dir and _README.fullmatch(p.name)
        if p.is_file() and rel not in listed and rel != SUMS_NAME and not top_level_readme:
            out.append(rel)
    return sorted(out)


def verify_checksums(data_dir: Path | str = DATA_DIR) -> int:
    """Check every file listed in `SHA256SUMS`; returns how many were verified.

    A bad manifest (see `read_checksums`), a missing, unreadable or changed file is a `DataError` (all
    mismatches at once, each with its line). Files present but not listed raise an `UnlistedDataWarning`:
    they are not wrong, but nothing vouches for them.
    """
    data_dir = Path(data_dir)
    listed = read_checksums(data_dir)
    extra = unlisted_files(data_dir, listed)
    if extra:
        warnings.warn(UnlistedDataWarning(f"{data_dir}: {len(extra)} file(s) not listed in {SUMS_NAME}, so not "
                                          f"verified: {', '.join(extra)}"), stacklevel=2)
    problems: list[tuple[int, str]] = []
    for name, (lineno, expected) in listed.items():
        try:
            digest = _sha256(data_dir / name)
        except FileNotFoundError:
            problems.append((lineno, f"{name!r}: missing"))
            continue
        except OSError as err:
            problems.append((lineno, f"{name!r}: unreadable ({err.strerror})"))
            continue
        if digest != expected:
            problems.append((lineno, f"{name!r}: checksum mismatch (expected {expected}, got {digest})"))
    if problems:
        raise DataError(data_dir / SUMS_NAME, ", ".join(f"line {n}" for n, _ in problems), "path",
                        f"{len(problems)} of {len(listed)} listed files do not match:\n  "
                        + "\n  ".join(f"line {n}: {p}" for n, p in problems))
    return len(listed)


# --------------------------------------------------------------------------- the DVC remote


class RemoteError(RuntimeError):
    """The DVC configuration names no usable default remote, or its folder is not there."""


def dvc_remote(root: Path | str = ROOT) -> tuple[str, str, Path | None]:
    """(name, url, local folder or None for a non-local url) of the default DVC remote of `root`.

    Read as dvc reads it: `.dvc/config`, then `.dvc/config.local` over it; a relative url is relative
    to the `.dvc` folder (so `../../shared/dvc-remote` is `../shared/dvc-remote` from the root).
    """
    dvc_dir = Path(root) / ".dvc"
    if not (dvc_dir / "config").is_file():
        raise RemoteError(f"no DVC config: {dvc_dir / 'config'} is missing (is {root} the project root?)")
    config = configparser.ConfigParser(interpolation=None)
    try:
        config.read([dvc_dir / "config", dvc_dir / "config.local"], encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as err:
        raise RemoteError(f"{dvc_dir}: unreadable DVC config ({err})") from None
    name = config.get("core", "remote", fallback=None)
    if not name:
        raise RemoteError(f"{dvc_dir / 'config'}: no default remote ([core] remote = <name>)")
    sections = {m["name"]: s for s in config.sections() if (m := re.fullmatch(r"""'?remote\s+"(?P<name>.+)"'?""", s))}
    url = config.get(sections[name], "url", fallback=None) if name in sections else None
    if not url:
        raise RemoteError(f"{dvc_dir / 'config'}: default remote {name!r} has no url")
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]+://", url):
        return name, url, None
    return name, url, Path(os.path.normpath(dvc_dir.resolve() / Path(url).expanduser()))


def check_dvc_remote(root: Path | str = ROOT) -> str:
    """A one-line report on the default DVC remote; `RemoteError` if it is a local folder that is missing.

    `dvc pull -q` says nothing when the remote folder is absent, so `make data` asks here first.
    """
    name, url, folder = dvc_remote(root)
    if folder is None:
        return f"DVC remote {name!r} is {url} (not a local folder: dvc checks it)"
    shown = os.path.relpath(folder, Path(root).resolve())
    if not folder.is_dir():
        raise RemoteError(f"DVC remote {shown} not found: put the shared data folder beside the clone "
                          f"(expected {folder}; remote {name!r}, url {url!r} in .dvc/config)")
    return f"DVC remote {shown} found ({folder})"


# --------------------------------------------------------------------------- command line

USAGE = "usage: python -m lib.data verify [DATA_DIR] | python -m lib.data remote-check [REPO_ROOT]"


def main(argv: list[str] | None = None) -> int:
    """`verify`: data/ against SHA256SUMS; `remote-check`: the DVC remote folder. 0 ok, 1 failed, 2 usage."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("verify", "remote-check") or len(args) > 2:
        print(USAGE, file=sys.stderr)
        return 2
    if args[0] == "remote-check":
        try:
            print(check_dvc_remote(args[1] if len(args) == 2 else ROOT))
        except RemoteError as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        return 0
    data_dir = Path(args[1]) if len(args) == 2 else DATA_DIR
    failure: DataError | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnlistedDataWarning)
        try:
            n = verify_checksums(data_dir)
        except DataError as err:
            failure = err
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if failure is not None:
        print(f"error: {failure}", file=sys.stderr)
        return 1
    print(f"{data_dir}: {n} files match {SUMS_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
