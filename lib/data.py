"""Typed loaders for every file under `data/`.

Every loader is strict by default: malformed JSON/JSONL/CSV, a missing required field, an unknown
label or an unparseable date raise `DataError`, whose message names the file, the record and the
field. With `strict=False` a bad record is skipped instead, and the error is appended to a
`LoadLog` that the caller must pass and report, so nothing is ever dropped silently.
"""
from __future__ import annotations

import csv
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from lib.config import DATA_DIR

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
             strict: bool, log: LoadLog | None) -> list[T]:
    """Parse each raw row; raise on the first bad one, or skip it into `log`."""
    if not strict and log is None:
        raise ValueError("strict=False needs a LoadLog, so that skipped records are reported")
    out: list[T] = []
    for record, raw in rows:
        try:
            if not isinstance(raw, dict):
                raise DataError(path, record, None, f"expected an object, got {type(raw).__name__}")
            out.append(parse(record, raw))
        except DataError as err:
            if strict:
                raise
            log.skipped.append(err)  # type: ignore[union-attr]
    return out


# --------------------------------------------------------------------------- file readers


def read_json_records(path: Path | str) -> list[tuple[int, Any]]:
    """(index, record) pairs from a JSON array or a JSONL file (detected from the content).

    Some published files are JSONL despite a `.json` name, so the first character decides.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise DataError(path, "-", None, f"not UTF-8 text ({err})") from err
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise DataError(path, f"at line {err.lineno}", None, f"malformed JSON: {err.msg}") from err
        return list(enumerate(data))
    records = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append((len(records), json.loads(line)))
        except json.JSONDecodeError as err:
            raise DataError(path, f"at line {lineno}", None, f"malformed JSONL: {err.msg}") from err
    if not records:
        raise DataError(path, "-", None, "no records (empty file?)")
    return records


def read_csv_records(path: Path | str, required: tuple[str, ...], sep: str = ",") -> list[tuple[int, dict]]:
    """(row number, row dict) pairs; a missing column or a ragged row is a `DataError`."""
    path = Path(path)
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f, delimiter=sep)
        try:
            header = next(reader)
        except StopIteration:
            raise DataError(path, "header", None, "empty file") from None
        missing = [c for c in required if c not in header]
        if missing:
            raise DataError(path, "header", missing[0], f"missing column (columns: {header})")
        rows = []
        try:
            for i, values in enumerate(reader):
                if len(values) != len(header):
                    raise DataError(path, i, None, f"malformed CSV: {len(values)} fields, header has {len(header)}")
                rows.append((i, dict(zip(header, values))))
        except csv.Error as err:
            raise DataError(path, f"near line {reader.line_num}", None, f"malformed CSV: {err}") from err
    return rows


def _req(path: Path, record: Any, raw: dict, name: str, kind: type | tuple[type, ...] = str,
         allow_none: bool = False) -> Any:
    """A required field of the expected type."""
    if name not in raw:
        raise DataError(path, record, name, "missing required field")
    value = raw[name]
    if value is None and allow_none:
        return None
    if not isinstance(value, kind):
        raise DataError(path, record, name, f"expected {getattr(kind, '__name__', kind)}, got {type(value).__name__}")
    return value


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


def _choice(path: Path, record: Any, raw: dict, name: str, allowed: tuple[str, ...]) -> str:
    value = _req(path, record, raw, name)
    if value not in allowed:
        raise DataError(path, record, name, f"unknown label {value!r} (expected one of {list(allowed)})")
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
    if not isinstance(raw, dict):
        raise DataError(path, record, where, "expected an answer object")
    for name in ("answer", "source_url"):
        if name not in raw:
            raise DataError(path, record, f"{where}.{name}", "missing required field")
        if not isinstance(raw[name], str):
            raise DataError(path, record, f"{where}.{name}", f"expected str, got {type(raw[name]).__name__}")
    return Answer(raw["answer"], raw.get("answer_type"), raw["source_url"], raw.get("source_medium"),
                  raw.get("boolean_explanation"))


def _averitec_claim(path: Path, split: str, record: int, raw: dict) -> Claim:
    questions = []
    for qi, q in enumerate(_req(path, record, raw, "questions", list)):
        if not isinstance(q, dict) or not isinstance(q.get("question"), str):
            raise DataError(path, record, f"questions[{qi}].question", "missing or not a string")
        answers = q.get("answers") or []
        if not isinstance(answers, list):
            raise DataError(path, record, f"questions[{qi}].answers", "expected a list")
        questions.append(Question(q["question"], tuple(
            _answer(path, record, a, f"questions[{qi}].answers[{ai}]") for ai, a in enumerate(answers))))
    try:
        claim_date = parse_claim_date(_req(path, record, raw, "claim_date", allow_none=True))
    except ValueError as err:
        if isinstance(err, DataError):
            raise
        raise DataError(path, record, "claim_date", str(err)) from None
    return Claim(
        claim_id=record, split=split, text=_req(path, record, raw, "claim"),
        label=_label(path, record, raw, "label", "averitec"), claim_date=claim_date,
        claim_types=tuple(raw.get("claim_types") or ()),
        fact_checking_strategies=tuple(raw.get("fact_checking_strategies") or ()),
        justification=raw.get("justification") or "", fact_checking_article=raw.get("fact_checking_article"),
        speaker=raw.get("speaker"), reporting_source=raw.get("reporting_source"), questions=tuple(questions))


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
    claim = _req(path, record, raw, "claim")
    keys = [k for k in raw if k == "evidence" or re.fullmatch(r"top_\d+", k)]
    if len(keys) != 1:
        raise DataError(path, record, "evidence", "expected exactly one of 'evidence' or 'top_<k>'")
    items = _req(path, record, raw, keys[0], list)
    evidence = []
    for i, item in enumerate(items):
        where = f"{keys[0]}[{i}]"
        if not isinstance(item, dict):
            raise DataError(path, record, where, "expected an object")
        text = item.get("answer" if keys[0] == "evidence" else "sentence")
        if not isinstance(text, str):
            raise DataError(path, record, where, "missing answer/sentence text")
        url = item.get("url")
        urls = (url,) if isinstance(url, str) else tuple(url) if isinstance(url, list) else None
        if urls is None or not all(isinstance(u, str) for u in urls):
            raise DataError(path, record, f"{where}.url", "expected a string or a list of strings")
        question = item.get("question") if keys[0] == "evidence" else None
        evidence.append(RetrievedEvidence(text, urls, question))
    pred = raw.get("pred_label")
    if pred is not None:
        pred = _label(path, record, raw, "pred_label", "averitec")
    return SystemOutput(claim_id, claim, tuple(evidence), pred)


def load_system_output(path: Path | str, *, strict: bool = True, log: LoadLog | None = None) -> list[SystemOutput]:
    """A published system's per-claim output, in any of its three shapes.

    QA evidence with one URL per answer (HerO, baseline, FEVER-8), QA evidence with a list of URLs
    (UHH), or top-k sentences `{sentence, url}` (HerO reranking, baseline BM25 sample).
    """
    path = Path(path)
    return _collect(path, iter(read_json_records(path)), lambda r, raw: _system_output(path, r, raw), strict, log)


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
    """FEVER-8 leaderboard evidence: blocks of `question\\t\\t\\nanswer\\t\\t\\n` separated by blank lines."""
    pairs = []
    for block in re.split(r"\n\s*\n", evi.strip()):
        parts = [p.strip() for p in block.split("\t\t\n")]
        parts = [p for p in parts if p]
        if parts:
            pairs.append((parts[0], " ".join(parts[1:])))
    return tuple(pairs)


def load_leaderboard(path: Path | str) -> list[LeaderboardRow]:
    """FEVER-8 leaderboard CSV (gold solution or a submission)."""
    path = Path(path)

    def parse(record: int, raw: dict) -> LeaderboardRow:
        try:
            claim_id = int(raw["id"])
        except ValueError:
            raise DataError(path, record, "id", f"not an integer: {raw['id']!r}") from None
        return LeaderboardRow(claim_id, raw["claim"], parse_leaderboard_evidence(raw["evi"]),
                              _label(path, record, raw, "label", "averitec"), raw["split"])

    return _collect(path, iter(read_csv_records(path, ("id", "claim", "evi", "label", "split"))), parse, True, None)


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
            if not isinstance(ev, dict) or not isinstance(ev.get("top_k_doc", []), list):
                raise DataError(path, record, f"evidences[{i}]", "expected {questions, top_k_doc}")
            queries.append(str(ev.get("questions", "")))
            snippets.extend(str(s) for s in ev.get("top_k_doc", []))
        return QuanTempClaim(record, _req(path, record, raw, "claim"), _label(path, record, raw, "label", "quantemp"),
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
        return TaxonomyClaim(raw["claim"].strip(), label)

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
        return DecomposedClaim(raw["claims"], tuple(qs))

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
        raw["claim"], _label(path, r, raw, "verdict", "quantemp")), True, None)


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
    path = Path(path) if path else DATA_DIR / "quantemp" / "test_subset_gold_with_article.csv"

    def parse(record: int, raw: dict) -> GoldArticleClaim:
        m = _FEATURES.match(raw["features"])
        if not m:
            raise DataError(path, record, "features", "expected '[Claim]:...[Evidences]:...'")
        return GoldArticleClaim(int(raw[""] or record), m["claim"].strip(), m["article"].strip(),
                                _label(path, record, raw, "true_label", "quantemp"),
                                _label(path, record, raw, "pred_label", "quantemp"))

    rows = read_csv_records(path, ("", "features", "true_label", "pred_label"))
    return _collect(path, iter(rows), parse, True, None)


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
    """ClaimDecomp (Chen et al. 2022): PolitiFact claims with human yes/no decompositions."""
    path = Path(path) if path else DATA_DIR / "claimdecomp" / f"{split}.jsonl"

    def parse(record: int, raw: dict) -> ClaimDecompClaim:
        anns = []
        for i, a in enumerate(_req(path, record, raw, "annotations", list)):
            if not isinstance(a, dict) or not isinstance(a.get("questions"), list):
                raise DataError(path, record, f"annotations[{i}].questions", "missing or not a list")
            anns.append(Decomposition(tuple(a["questions"]), tuple(str(x).lower() for x in a.get("answers", [])),
                                      tuple(str(x).lower() for x in a.get("question_source", []))))
        return ClaimDecompClaim(
            _req(path, record, raw, "example_id", int), _req(path, record, raw, "claim"),
            _choice(path, record, raw, "label", CLAIMDECOMP_LABELS), raw.get("url", ""), raw.get("person", ""),
            raw.get("venue", ""), tuple(raw.get("justification") or ()), tuple(raw.get("full_article") or ()),
            tuple(anns))

    return _collect(path, iter(read_json_records(path)), parse, strict, log)


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
    """CLIMATE-FEVER: claims with five Wikipedia sentences each, sentence and claim labels."""
    path = Path(path) if path else DATA_DIR / "climate_fever" / "climate-fever.jsonl"
    ev_labels = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO")

    def parse(record: int, raw: dict) -> ClimateClaim:
        evs = []
        for i, e in enumerate(_req(path, record, raw, "evidences", list)):
            if not isinstance(e, dict):
                raise DataError(path, record, f"evidences[{i}]", "expected an object")
            evs.append(ClimateEvidence(str(e.get("evidence_id", "")), str(e.get("article", "")),
                                       _req(path, record, e, "evidence"), _choice(path, record, e, "evidence_label", ev_labels),
                                       tuple(v for v in e.get("votes", []) if v)))
        return ClimateClaim(str(_req(path, record, raw, "claim_id", (str, int))), _req(path, record, raw, "claim"),
                            _choice(path, record, raw, "claim_label", CLIMATE_FEVER_LABELS), tuple(evs))

    return _collect(path, iter(read_json_records(path)), parse, strict, log)


# --------------------------------------------------------------------------- checksums


def verify_checksums(data_dir: Path | str = DATA_DIR) -> int:
    """Check every file listed in `SHA256SUMS`; raise naming each mismatch or missing file.

    Returns the number of files verified.
    """
    data_dir = Path(data_dir)
    sums = data_dir / "SHA256SUMS"
    if not sums.exists():
        raise FileNotFoundError(f"{sums} is missing: run `dvc pull` first")
    problems, n = [], 0
    for line in sums.read_text().splitlines():
        if not line.strip():
            continue
        expected, name = line.split(maxsplit=1)
        name = name.lstrip("*").strip()
        target = data_dir / name
        if not target.exists():
            problems.append(f"missing: {name}")
            continue
        h = hashlib.sha256()
        with open(target, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        if h.hexdigest() != expected:
            problems.append(f"checksum mismatch: {name}")
        n += 1
    if problems:
        raise RuntimeError(f"{data_dir}: data does not match SHA256SUMS:\n  " + "\n  ".join(problems))
    return n


if __name__ == "__main__":  # `python -m lib.data verify`
    import sys

    if sys.argv[1:] != ["verify"]:
        sys.exit("usage: python -m lib.data verify")
    print(f"data/: {verify_checksums()} files match SHA256SUMS")
