"""TREC files: runs (`qid Q0 doc_id rank score tag`) and qrels (`qid 0 doc_id grade`), and trec_eval's
order of a run (score descending, ties by doc id descending)."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lib import outputs as OUT
from lib.cli import finite_real, shown
from lib.data import bounded_lines, not_utf8, within_size

_SCORE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
Qrels = Mapping[str, Mapping[str, int]]  # {qid: {doc_id: grade}}
Run = Mapping[str, Mapping[str, float]]  # {qid: {doc_id: score}}


def rank(scores: Mapping[str, float]) -> list[str]:
    """Doc ids in trec_eval order: score descending, then doc id descending as text, as the file holds it (an
    integer 10 ranked above 9, and the written file's own reader and trec_eval ranked 9 first). A NaN score is
    an error: it has no place in the order (sorted, it left the ranking to the order of the dict: MRR 1.0,
    0.333 or 0.5 for one run)."""
    if (nan := next((d for d, s in scores.items() if s != s), None)) is not None:
        raise ValueError(f"document {nan!r} has the score NaN: a ranking needs a number for every document")
    return [d for d, _ in sorted(scores.items(), key=lambda x: (x[1], str(x[0])), reverse=True)]


def _field(value: object, what: str) -> str:
    """An id or tag as one field of a TREC line: text without white space (a space or a newline made a file its
    own reader refused)."""
    text = str(value)
    if not text or any(c.isspace() for c in text):
        raise ValueError(f"{what} {text!r}: a TREC field needs text without white space")
    return text


def _one_id_each(table: Mapping[Any, Mapping[Any, Any]]) -> None:
    """Every query and, within a query, every document id a TREC field of its own: ids that print alike (1 and
    "1") became one query of the written file, or a document its own reader refused as listed twice."""
    qids: dict[str, Any] = {}
    for qid, docs in table.items():
        if (text := _field(qid, "query id")) in qids:
            raise ValueError(f"query ids {qids[text]!r} and {qid!r} are one id in a TREC file: give each query one id")
        qids[text] = qid
        dids: dict[str, Any] = {}
        for did in docs:
            if (text := _field(did, f"document id (query {qid})")) in dids:
                raise ValueError(f"query {qid}: document ids {dids[text]!r} and {did!r} are one id in a TREC file")
            dids[text] = did


def write_trec_run(run: Run, path: Path | str, tag: str = "study", depth: int | None = None) -> None:
    """TREC run format: `qid Q0 doc_id rank score tag`, ranked as `rank` orders them, each score written in
    full (`.10g` made 1.00000000001 and 1.0 one score, and the file ranked them the other way)."""
    _field(tag, "run tag")
    # -1 dropped the last document, 0 wrote nothing, True was 1 and 1.5 a bare TypeError
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1):
        raise ValueError(
            f"depth {depth!r}: a run keeps a whole number of at least 1 document per query (or None for all)"
        )
    _one_id_each(run)
    for qid, docs in run.items():
        for did, score in docs.items():
            if not finite_real(score):  # `inf` was written (the reader refuses it), numpy's bool read as 1
                raise ValueError(f"query {qid}, document {did}: score {shown(score)} is not a finite number")
    # ranked by the scores as written: 2**53 + 1 and 2**53 are one float, and the file's reader (trec_eval too)
    # put b first where `rank` of the integers had put a first
    written = {qid: {did: float(score) for did, score in docs.items()} for qid, docs in run.items()}
    OUT.write_lines(
        path,
        (
            f"{qid} Q0 {did} {i} {written[qid][did]!r} {tag}"
            for qid in sorted(run, key=lambda q: (len(str(q)), str(q)))
            for i, did in enumerate(rank(written[qid])[:depth], start=1)
        ),
    )


def trec_lines(path: Path | str, fields: str) -> Iterable[tuple[int, list[str]]]:
    """(line number in the file, whitespace-separated fields) of each non-empty line, read as every text
    input is (bounded in size and line length, UTF-8 named at its byte); a wrong field count names the line."""
    path = Path(path)
    within_size(path)
    try:
        with open(path, encoding="utf-8-sig") as f:  # a byte-order mark (Notepad) joined the first query id
            for n, line in bounded_lines(path, f):
                parts = line.split()
                if parts and len(parts) != len(fields.split()):
                    raise ValueError(f"{path}:{n}: expected {len(fields.split())} fields ({fields}), got {len(parts)}")
                if parts:
                    yield n, parts
    except UnicodeDecodeError as err:
        raise not_utf8(path, err.reason) from None


def read_trec_run(path: Path | str) -> dict[str, dict[str, float]]:
    """A TREC run file back as `{qid: {doc_id: score}}`; a document listed twice for one query is an error
    (the second score replaced the first: a document moved from rank 1 to rank 2)."""
    run: dict[str, dict[str, float]] = {}
    for n, (qid, _, did, _, score, _) in trec_lines(path, "qid Q0 doc rank score tag"):
        # a plain decimal number, as trec_eval reads it (float() also took `1_000` and other scripts' digits)
        value = float(score) if _SCORE.fullmatch(score) else math.nan
        if not math.isfinite(value):  # `nan` was read as a score, and ranked by the dict's order
            raise ValueError(
                f"{path}: run line {n} (query {qid}, document {did}): score {score!r} is not a finite number"
            )
        if did in run.setdefault(qid, {}):
            raise ValueError(f"{path}: run line {n}: document {did} is ranked twice for query {qid}")
        run[qid][did] = value
    return run


def write_trec_qrels(qrels: Qrels, path: Path | str) -> None:
    """TREC qrels format: `qid 0 doc_id grade`, one judgement a line; a grade must be an integer (1.5 and True were
    written as 1)."""
    _one_id_each(qrels)
    for qid, docs in qrels.items():
        for did, grade in docs.items():
            integral = isinstance(grade, numbers.Integral) or (
                isinstance(grade, numbers.Real) and float(grade).is_integer()
            )
            if isinstance(grade, bool) or not integral or abs(int(grade)) >= 10**9:  # the reader's bound: 9 digits
                raise ValueError(f"query {qid}, document {did}: grade {grade!r} is not an integer")
    OUT.write_lines(path, (f"{qid} 0 {did} {int(grade)}" for qid, docs in qrels.items() for did, grade in docs.items()))


def read_trec_qrels(path: Path | str) -> dict[str, dict[str, int]]:
    """A TREC qrels file back as `{qid: {doc_id: grade}}`; a grade that is no integer and a document judged
    twice for one query are errors naming the line."""
    qrels: dict[str, dict[str, int]] = {}
    for n, (qid, _, did, grade) in trec_lines(path, "qid 0 doc grade"):
        if not re.fullmatch(r"-?[0-9]{1,9}", grade):  # `x` or `1.5` was int()'s bare ValueError
            raise ValueError(f"{path}: qrels line {n} (query {qid}, document {did}): grade {grade!r} is not an integer")
        if did in qrels.setdefault(qid, {}):  # the last of two grades was kept
            raise ValueError(f"{path}: qrels line {n}: document {did} is judged twice for query {qid}")
        qrels[qid][did] = int(grade)
    return qrels
