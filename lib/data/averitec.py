"""AVeriTeC: claims with gold QA (train/dev/test), the published systems' evidence, and the FEVER-8
(2025) leaderboard CSVs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from lib.cli import NamedError, shown
from lib.data import (
    DataError,
    LoadLog,
    bounded,
    collect_records,
    int_text_field,
    iter_csv_records,
    label_field,
    optional_field,
    parse_claim_date,
    read_json_records,
    read_text,
    required_field,
    str_list_field,
    text_field,
    visible,
)
from lib.paths import DATA_DIR

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
    return Answer(
        required_field(path, record, raw, "answer", at=at),
        optional_field(path, record, raw, "answer_type", at=at),
        required_field(path, record, raw, "source_url", at=at),
        optional_field(path, record, raw, "source_medium", at=at),
        optional_field(path, record, raw, "boolean_explanation", at=at),
    )


def _averitec_claim(path: Path, split: str, record: int, raw: dict) -> Claim:
    if "claim_id" in raw and raw["claim_id"] != record:
        raise DataError(
            path,
            record,
            "claim_id",
            f"{raw['claim_id']!r}, but a claim's id is its position in the "
            f"file ({record}): a subset or a re-ordered file would misalign every claim after it",
        )
    questions = []
    for qi, q in enumerate(required_field(path, record, raw, "questions", list)):
        if not isinstance(q, dict):
            raise DataError(path, record, f"questions[{qi}]", f"expected an object, got {type(q).__name__}")
        text = text_field(path, record, q, "question", at=f"questions[{qi}].")
        # every question of the released sets has its list (an unanswerable one: NO_ANSWER); a question without
        # one would score as if its answer were empty
        answers = required_field(path, record, q, "answers", list, at=f"questions[{qi}].")
        questions.append(
            Question(
                text, tuple(_answer(path, record, a, f"questions[{qi}].answers[{ai}]") for ai, a in enumerate(answers))
            )
        )
    try:
        claim_date = parse_claim_date(required_field(path, record, raw, "claim_date", allow_none=True))
    except ValueError as err:
        if isinstance(err, DataError):
            raise
        raise DataError(path, record, "claim_date", str(err)) from None
    return Claim(
        claim_id=record,
        split=split,
        text=text_field(path, record, raw, "claim"),
        label=label_field(path, record, raw, "label", "averitec"),
        claim_date=claim_date,
        claim_types=str_list_field(path, record, raw, "claim_types", required=True),  # else out of the per-type scores
        fact_checking_strategies=str_list_field(path, record, raw, "fact_checking_strategies"),
        justification=optional_field(path, record, raw, "justification", str, ""),
        fact_checking_article=optional_field(path, record, raw, "fact_checking_article"),
        speaker=optional_field(path, record, raw, "speaker"),
        reporting_source=optional_field(path, record, raw, "reporting_source"),
        questions=tuple(questions),
    )


def load_averitec(
    split: str = "dev", path: Path | str | None = None, *, strict: bool = True, log: LoadLog | None = None
) -> list[Claim]:
    """AVeriTeC claims of `split` (train, dev, test) with their gold QA evidence."""
    path = Path(path) if path else DATA_DIR / "averitec" / f"{split}.json"
    rows = read_json_records(path)
    return collect_records(path, iter(rows), lambda r, raw: _averitec_claim(path, split, r, raw), strict, log)


def claim_by_id(claims: Sequence[Claim], claim_id: int, setting: str) -> Claim:
    """The claim with `claim_id`, or a named error for the parameter `setting` that chose it (notebook 02's
    `query_planning.example_claim` of a claim the data lacks stopped the notebook with a bare StopIteration)."""
    found = next((c for c in claims if c.claim_id == claim_id), None)
    if found is None:
        ids = sorted(c.claim_id for c in claims)
        have = f"ids {ids[0]} to {ids[-1]}, {len(ids):,} claims" if ids else "no claims"
        raise NamedError(f"{setting} = {shown(claim_id, 40)}: no claim of the data has that id ({have})")
    return found


def load_generated_questions(
    path: Path | str | None = None,
    *,
    split: Sequence[Claim] | None = None,
    strict: bool = True,
    log: LoadLog | None = None,
) -> dict[int, list[str]]:
    """The BLOOM a-priori questions (dev schema, empty answers): {claim_id: [questions]}. A question with an
    answer is refused: the file would be the annotated dev set, whose questions are the oracle's. With `split`
    (the claims the file was made for), it must hold one record per claim, each with that claim's text."""
    path = Path(path) if path else DATA_DIR / "averitec" / "systems" / "bloom_dev_generated_questions.json"
    claims = load_averitec("dev", path, strict=strict, log=log)
    if split is not None:  # the claims it was made for: ids are positions, so each text must be theirs
        if len(claims) != len(split):
            raise DataError(
                path, "-", None, f"{len(claims)} records for {len(split)} claims (a record added or removed?)"
            )
        for c, d in zip(claims, split):
            if not same_claim(c.text, d.text):
                raise DataError(
                    path, c.claim_id, "claim", f"differs from claim {d.claim_id} {first_difference(c.text, d.text)}"
                    " (records moved?)"
                )  # fmt: skip
    for c in claims:
        if any(q.answers for q in c.questions):
            raise DataError(
                path,
                c.claim_id,
                "questions",
                "a question has answers; generated questions have none (the annotated dev set?)",
            )
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
    claim_id = required_field(path, record, raw, "claim_id", int)
    claim = text_field(path, record, raw, "claim")
    keys = [k for k in raw if k == "evidence" or re.fullmatch(r"top_\d+", k)]
    if len(keys) != 1:
        raise DataError(path, record, "evidence", "expected exactly one of 'evidence' or 'top_<k>'")
    qa = keys[0] == "evidence"
    items = required_field(path, record, raw, keys[0], list)
    evidence = []
    for i, item in enumerate(items):
        where = f"{keys[0]}[{i}]"
        if not isinstance(item, dict):
            raise DataError(path, record, where, "expected an object")
        text = required_field(path, record, item, "answer" if qa else "sentence", at=where + ".")
        url = item.get("url")
        urls = (url,) if isinstance(url, str) else tuple(url) if isinstance(url, list) else None
        if urls is None or not all(isinstance(u, str) for u in urls):
            raise DataError(path, record, f"{where}.url", "expected a string or a list of strings")
        urls = tuple(bounded(path, record, f"{where}.url", u) for u in urls)  # a lone surrogate is no URL
        question = None
        if qa and item.get("question") is not None:  # optional, but a question when given
            question = text_field(path, record, item, "question", at=where + ".")
        evidence.append(RetrievedEvidence(text, urls, question))
    pred = raw.get("pred_label")
    if pred is not None:
        pred = label_field(path, record, raw, "pred_label", "averitec")
    return SystemOutput(claim_id, claim, tuple(evidence), pred)


def _spaced(text: str) -> str:
    """A claim text with its spacing normalised: the form two claim texts are compared in."""
    return " ".join(text.split())


def same_claim(a: str, b: str) -> bool:
    """Whether two texts are the same claim, spacing aside (files re-wrap or pad the text)."""
    return _spaced(a) == _spaced(b)


def first_difference(a: str, b: str) -> str:
    """Where two claim texts (spacing aside) first differ, quoted there: cut at their 60th character, two
    texts that differ later read alike (`…` against `...` at character 152)."""
    a, b = _spaced(a), _spaced(b)
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"at character {at + 1}: {a[at : at + 30]!r} vs {b[at : at + 30]!r} (it begins {a[:40]!r})"


def load_system_output(
    path: Path | str,
    *,
    claims: Iterable[Claim] | None = None,
    strict: bool = True,
    log: LoadLog | None = None,
) -> list[SystemOutput]:
    """A published system's per-claim output, in any of its three shapes; one record per claim_id.

    QA evidence with one URL per answer (HerO, baseline, FEVER-8), QA evidence with a list of URLs
    (UHH), or top-k sentences `{sentence, url}` (HerO reranking, baseline BM25 sample). With `claims`
    (the split the file was made for), each record's claim id must be one of theirs and its claim text that
    claim's: a record moved, or a split with a claim added or removed (ids are positions), is named.
    """
    path = Path(path)
    texts = None if claims is None else {c.claim_id: c.text for c in claims}

    def parse(record: Any, raw: dict) -> SystemOutput:
        out = _system_output(path, record, raw)
        if texts is not None:
            if out.claim_id not in texts:
                raise DataError(
                    path, record, "claim_id", f"{out.claim_id} is not a claim id of the split it is read with"
                )
            if not same_claim(out.claim, texts[out.claim_id]):
                raise DataError(
                    path,
                    record,
                    "claim",
                    f"differs from claim {out.claim_id} {first_difference(out.claim, texts[out.claim_id])} "
                    "(a file for another split, or claims moved in one of the two files?)",
                )
        return out

    return collect_records(
        path, iter(read_json_records(path)), parse, strict, log, unique=("claim_id", lambda o: o.claim_id)
    )


# a domain, then path segments (none `.`, `..` or empty, no query or parameters: `on_sites` compares whole
# segments of a URL's path, which has none of them), then an optional fragment, which names no other page
# (a domain's names may be Unicode, `bücher.de`, or their punycode, `xn--bcher-kva.de`: `site_key` makes them one)
_SITE = re.compile(r"(?:https?://)?[\w-]+(?:\.[\w-]+)+(?:/[a-z0-9_~%+-][a-z0-9._~%+-]*)*/?(?:#.*)?")


_PUBLIC_SUFFIX = re.compile(r"(?:co|com|org|net|gov|ac|edu)\.[a-z]{2}")  # `co.uk`, `com.au`: no site of their own


def load_misinfo_domains(path: Path | str | None = None) -> set[str]:
    """Sites known for misinformation, lower-cased, without spaces or `www.`: a domain (`infowars.com`) or a
    section of one (`cato.org/blog`, matched by `lib.store.urls.on_sites`). The list is hand-written: the
    published one spells `Silver-Coin-Investor. com` and `anews24.org/`, which are read as the sites they name.
    A line that is no site, or a file that lists none, is an error (every document would be flagged as no
    misinformation site)."""
    path = Path(path) if path else DATA_DIR / "averitec" / "misinfo_domains.txt"
    out = set()
    for n, line in enumerate(read_text(path).splitlines(), start=1):
        # a space beside a dot or a slash is a typo (`Silver-Coin-Investor. com`); between two names it is two sites
        d = re.sub(r"\s*([./])\s*", r"\1", line.strip()).lower()
        if not d or d.startswith("#"):
            continue
        if not _SITE.fullmatch(d):
            raise DataError(
                path,
                f"line {n}",
                None,
                f"{shown(line)} is no site (expected a domain such as example.com, or a domain with a path)",
            )
        site = d[4:] if d.startswith("www.") else d
        host = re.split(r"[/#]", site.split("://")[-1], maxsplit=1)[0].removeprefix("www.")
        if "." not in host or _PUBLIC_SUFFIX.fullmatch(host):  # `www.co.uk` matched every .co.uk URL, `www.com` none
            raise DataError(
                path,
                f"line {n}",
                None,
                f"{shown(line)} names no site of its own (its domain is {host!r}); list the site",
            )
        out.add(site)
    if not out:
        raise DataError(path, "-", None, "lists no domain (expected one domain per line)")
    return out


@dataclass(frozen=True)
class LeaderboardRow:
    claim_id: int
    claim: str
    qa_pairs: tuple[tuple[str, str], ...]
    label: str
    split: str | None  # None: the file has no `split` column


def parse_leaderboard_evidence(evi: str) -> tuple[tuple[str, str], ...]:
    """FEVER-8 leaderboard evidence: `question\t\t\nanswer` pairs, each ended by `\t\t\n\n`.

    An answer may hold blank lines of its own (so pairs are split on the separator, not on blank lines);
    Windows line ends are read as `\n`. A pair without its question/answer separator is a ValueError."""
    pairs = []
    for i, chunk in enumerate(evi.replace("\r\n", "\n").split("\t\t\n\n")):
        if not chunk.strip():
            continue
        question, sep, answer = chunk.partition("\t\t\n")
        if not sep or not visible(question):
            raise ValueError(f"pair {i}: expected 'question<TAB><TAB><NEWLINE>answer', got {chunk[:60]!r}")
        if answer.rstrip("\t\n").count("\t\t\n"):  # pairs without the blank line between: one merged pair
            raise ValueError(
                f"pair {i}: more than one question/answer separator in one block (pairs not ended by "
                f"'<TAB><TAB><NEWLINE><NEWLINE>'?): {chunk[:60]!r}"
            )
        pairs.append((question.strip(), answer.strip()))
    return tuple(pairs)


LEADERBOARD_COLUMNS = ("id", "claim", "evi", "label")  # the 2025 submission format; the gold file adds `split`


def load_leaderboard(path: Path | str, *, strict: bool = True, log: LoadLog | None = None) -> list[LeaderboardRow]:
    """FEVER-8 leaderboard CSV (gold solution or a submission; `split` optional); one row per id."""
    path = Path(path)

    def known_columns(header: list[str]) -> None:
        extra = sorted(set(header) - {*LEADERBOARD_COLUMNS, "split"})
        if extra:
            raise DataError(
                path, "header", extra[0], f"unknown column (expected {list(LEADERBOARD_COLUMNS)}, optionally 'split')"
            )

    rows = iter_csv_records(path, LEADERBOARD_COLUMNS, header_check=known_columns)  # checked as they are read

    def parse(record: int, raw: dict) -> LeaderboardRow:
        try:
            pairs = parse_leaderboard_evidence(raw["evi"])
        except ValueError as err:
            raise DataError(path, record, "evi", str(err)) from None
        for i, (question, answer) in enumerate(pairs):
            bounded(path, record, f"evi pair {i} question", question)
            bounded(path, record, f"evi pair {i} answer", answer)
        return LeaderboardRow(
            int_text_field(path, record, raw, "id"),
            text_field(path, record, raw, "claim"),
            pairs,
            label_field(path, record, raw, "label", "averitec", exact=True),  # scored: as the organisers read it
            raw.get("split"),
        )

    return collect_records(path, rows, parse, strict, log, unique=("id", lambda row: row.claim_id))
