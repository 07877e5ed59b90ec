"""Typed loaders for every file under `data/`, one module per dataset family.

- `lib.data.averitec`: AVeriTeC claims with gold QA, the published systems' outputs, the FEVER-8 leaderboard CSVs;
- `lib.data.quantemp`: QuanTemp claims, taxonomy, decompositions, published predictions;
- `lib.data.claimdecomp`, `lib.data.climate_fever`: the other datasets;
- `lib.data.checksums`: `python -m lib.data verify [DATA_DIR]` checks `data/` against `data/SHA256SUMS`;
  `python -m lib.data remote-check [REPO_ROOT]` checks the DVC remote folder before `dvc pull`.

This module holds what they share: the file readers and the field checks. Every loader is strict by
default: malformed JSON/JSONL/CSV, a missing required field, a field of the wrong type (a bool is not an
id, a string is not a list of strings), an empty claim or question, a duplicated id, an unknown label or
an unparseable date raise `DataError`, whose message names the file, the record and the field. With
`strict=False` a bad record is skipped instead, and the error is appended to a `LoadLog` that the caller
must pass and report, so nothing is ever dropped silently.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import json
import re
import stat
import unicodedata
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from lib.cli import NamedError, env_bound, not_a_file, shown
from lib.data.labels import exact_label, normalise_label

T = TypeVar("T")

# The longest CSV field read, in characters. Python's default (131,072) refused long answers in 2025
# submissions as "malformed"; this bound keeps memory in check. Raise it with $LIB_MAX_CSV_FIELD.
MAX_CSV_FIELD = env_bound("LIB_MAX_CSV_FIELD", 64 * 2**20)
csv.field_size_limit(MAX_CSV_FIELD)
# The longest text one field may hold (a claim, a question, an answer), in characters; the data's longest
# is about 20,000. A longer one is refused with its file, record and field before any scorer or tokenizer
# spends minutes on it. Raise it with $LIB_MAX_TEXT_CHARS.
MAX_TEXT_CHARS = env_bound("LIB_MAX_TEXT_CHARS", 2**20)
# The largest JSON or CSV file read whole, in bytes (the data's largest is under 50 MB): a larger one is
# refused at once instead of filling memory (a 1 GB prediction file took 5 GB). $LIB_MAX_INPUT_BYTES.
MAX_INPUT_BYTES = env_bound("LIB_MAX_INPUT_BYTES", 256 * 2**20)
# The longest JSON record (an array's item, a JSONL line), in characters; the data's longest is 25,000. A
# record of millions of tiny objects takes about seven times its text in memory: a longer one is refused at
# the record before it is decoded. Raise it with $LIB_MAX_RECORD_CHARS.
MAX_RECORD_CHARS = env_bound("LIB_MAX_RECORD_CHARS", 16 * 2**20)

# --------------------------------------------------------------------------- errors and logs


class DataError(NamedError, ValueError):
    """A bad input record: says which file, which record and which field."""

    def __init__(self, path: Path | str, record: Any, field_name: str | None, problem: str):
        self.path, self.record, self.field, self.problem = str(path), record, field_name, problem
        where = self.path if record in (None, "-") else f"{self.path}: record {record}"  # "-": the file as a whole
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


def collect_records(
    path: Path,
    rows: Iterator[tuple[Any, dict]],
    parse: Callable[[Any, dict], T],
    strict: bool,
    log: LoadLog | None,
    *,
    unique: tuple[str, Callable[[T], Hashable]] | None = None,
) -> list[T]:
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
                    raise DataError(
                        path,
                        record,
                        name,
                        f"duplicate id {key!r}: record {first_record[key]} has it too (expected each id once)",
                    )
                first_record[key] = record
            out.append(item)
        except DataError as err:
            if strict:
                raise
            log.skipped.append(err)  # type: ignore[union-attr]
    return out


# --------------------------------------------------------------------------- file readers


class DuplicateKey(ValueError):
    """A JSON object that names one key twice."""


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json's `object_pairs_hook`: an object that names a key twice is an error (json keeps the last)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(f"an object names the key {key!r} twice (json would keep the last silently)")
        out[key] = value
    return out


@contextmanager
def _json_errors(path: Path, where: Any, kind: str) -> Iterator[None]:
    """What Python's JSON decoder raises besides a syntax error, as one named `DataError` (a syntax error and a
    `DataError`, itself a `ValueError`, pass through for the caller to name)."""
    try:
        yield
    except (json.JSONDecodeError, DataError):
        raise
    except DuplicateKey as err:
        raise DataError(path, where, None, str(err)) from None
    except RecursionError:  # brackets in brackets, thousands deep: no record of the study
        raise DataError(path, where, None, f"malformed {kind}: nested deeper than Python can read") from None
    except ValueError as err:  # an integer of thousands of digits (Python's conversion limit)
        raise DataError(path, where, None, f"malformed {kind}: {err}") from None


def parse_json(path: Path, text: str, where: str, kind: str) -> Any:
    with _json_errors(path, where, kind):
        try:
            return json.loads(text, object_pairs_hook=no_duplicate_keys)
        except json.JSONDecodeError as err:
            raise DataError(
                path, f"at line {err.lineno}" if where == "-" else where, None, f"malformed {kind}: {err.msg}"
            ) from err


def read_json_records(path: Path | str) -> list[tuple[int, Any]]:
    """(index, record) pairs from a JSON array or a JSONL file (detected from the content): `iter_json_records`
    read whole."""
    return list(iter_json_records(path))


# text read per step of a streamed JSON file, in characters
_CHUNK = 1 << 20
# where a JSON error this close to the end of what was read may be a record cut by the read: read on
_CUT_MARGIN = 32
# JSON's white space (RFC 8259): a no-break space or a vertical tab before a record is no JSON
_JSON_SPACE = " \t\r\n"


def iter_json_records(path: Path | str) -> Iterator[tuple[int, Any]]:
    """(index, record) pairs of a JSON array or a JSONL file, one at a time: memory holds one record and a
    read step, however long the file (a reader that stops at a bad record reads no further).

    Some published files are JSONL despite a `.json` name, so the first character decides. A byte-order
    mark is skipped; an object that names a key twice is an error, as is a file over `MAX_INPUT_BYTES` and
    one that holds nothing but white space.
    """
    path = Path(path)
    within_size(path)
    try:
        f = open(path, encoding="utf-8-sig")  # noqa: SIM115 (closed below; a generator)
    except IsADirectoryError:
        raise DataError(path, "-", None, "a directory, not a file") from None
    try:
        with f:
            head = f.read(_CHUNK)
            while head and not head.lstrip(_JSON_SPACE):  # the first character that is not white space decides
                step = f.read(_CHUNK)
                if not step:
                    break
                head += step
            start = head.lstrip(_JSON_SPACE)
            if start.startswith("["):
                yield from _array_records(path, f, head)
                return
            if start and not start.startswith("{"):  # a CSV or a text: no record of JSON lines begins so
                raise DataError(
                    path,
                    "at line 1",
                    None,
                    f"neither a JSON array nor JSON lines of records (it begins {shown(start[:40])})",
                )
            f.seek(0)
            index = 0
            for lineno, line in bounded_lines(path, f):
                if line.strip(_JSON_SPACE):
                    yield index, parse_json(path, line, f"at line {lineno}", "JSONL")
                    index += 1
            if not index:  # an empty array is an empty list; a file of blank lines holds nothing
                raise DataError(path, "-", None, "no records (empty file?)")
    except UnicodeDecodeError as err:
        raise not_utf8(path, err.reason) from None


def bounded_lines(path: Path, f: Any) -> Iterator[tuple[int, str]]:
    """(line number, line) of an open text file, each line at most `MAX_RECORD_CHARS` characters: a longer
    one is refused before it is read whole (lines end at \\n, \\r\\n or \\r only, as JSONL's do)."""
    lineno = 0
    while line := f.readline(MAX_RECORD_CHARS + 1):
        lineno += 1
        if len(line) > MAX_RECORD_CHARS and not line.endswith(("\n", "\r")):
            raise _too_long(path, f"at line {lineno}")
        yield lineno, line


def _too_long(path: Path, record: Any) -> DataError:
    return DataError(
        path,
        record,
        None,
        f"a record longer than {MAX_RECORD_CHARS:,} characters (set $LIB_MAX_RECORD_CHARS to read it)",
    )


def not_utf8(path: Path, reason: str) -> DataError:
    """The error for a file that is not UTF-8, naming the first bad byte's offset in the file and its line (a
    text reader's own error counts within one read step)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, lines = 0, 1
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            pending = len(decoder.getstate()[0])  # bytes of a character cut by the last step
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as err:
                at = offset - pending + err.start
                lines += chunk.count(b"\n", 0, max(0, at - offset))
                return DataError(path, f"at line {lines}", None, f"not UTF-8 text ({err.reason} at byte {at:,})")
            offset += len(chunk)
            lines += chunk.count(b"\n")
    return DataError(path, "-", None, f"not UTF-8 text ({reason}, at the end)")


def _array_records(path: Path, f, buf: str) -> Iterator[tuple[int, Any]]:
    """The items of the JSON array whose text starts with `buf` and goes on in `f`, decoded one at a time."""
    decoder = json.JSONDecoder(object_pairs_hook=no_duplicate_keys)
    line, pos, index, ended = 1, buf.index("[") + 1, 0, False  # line: of buf[0]

    def more() -> bool:
        """Read on (as much again as is held, so a long record costs linear time); False at the end."""
        nonlocal buf, ended
        text = "" if ended else f.read(max(_CHUNK, len(buf) - pos))
        ended = ended or not text
        buf += text
        return bool(text)

    def next_char() -> str:
        nonlocal pos
        while True:
            while pos < len(buf) and buf[pos] in " \t\r\n":
                pos += 1
            if pos < len(buf) or not more():
                return buf[pos] if pos < len(buf) else ""

    def malformed(problem: str, at: int) -> DataError:
        return DataError(path, f"at line {line + buf.count(chr(10), 0, at)}", None, f"malformed JSON: {problem}")

    while True:
        c = next_char()
        if c == "]":
            pos += 1
            break
        if index:
            if c != ",":
                raise malformed("expecting ',' or ']' after a record" if c else "unterminated array", pos)
            pos += 1
            next_char()
        while True:
            with _json_errors(path, index, "JSON"):
                try:
                    value, end = decoder.raw_decode(buf, pos)
                except json.JSONDecodeError as err:
                    cut = err.msg.startswith("Unterminated") or err.pos >= len(buf) - _CUT_MARGIN
                    if cut and len(buf) - pos > MAX_RECORD_CHARS:  # no end of this record in sight
                        raise _too_long(path, index) from None
                    if cut and more():
                        continue
                    raise malformed(err.msg, err.pos) from None
            # a value read up to the last characters may go on past them (a number: `1.5` of `1.5e3`): read on
            if end >= len(buf) - _CUT_MARGIN and more():
                continue
            if end - pos > MAX_RECORD_CHARS:
                raise _too_long(path, index)
            break
        yield index, value
        index += 1
        pos = end
        if pos > len(buf) // 2:  # drop what was read, seldom enough that each character is copied a few times
            line += buf.count("\n", 0, pos)
            buf, pos = buf[pos:], 0
    if next_char():
        raise malformed("extra data after the array", pos)


def read_csv_records(path: Path | str, required: tuple[str, ...], sep: str = ",") -> list[tuple[int, dict]]:
    """(row number, row dict) pairs; a missing column or a ragged row is a `DataError`."""
    return list(iter_csv_records(path, required, sep))


def iter_csv_records(
    path: Path | str,
    required: tuple[str, ...],
    sep: str = ",",
    header_check: Callable[[list[str]], None] | None = None,
) -> Iterator[tuple[int, dict]]:
    """`read_csv_records` one row at a time, the file open while they are read (a reader that checks each row
    as it comes names a duplicate at its row, not after holding the whole file: a 2025 submission was read
    whole, about 14 times its size, before its second row was checked). `header_check` sees the header first."""
    path = Path(path)
    within_size(path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.reader(f, delimiter=sep, strict=True)  # a file cut inside a quoted field is an error
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
            if header_check is not None:
                header_check(header)
            try:
                for i, values in enumerate(v for v in reader if v):  # a blank line is no row
                    if len(values) != len(header):
                        raise DataError(path, i, None, f"malformed CSV: {len(values)} fields, header has {len(header)}")
                    yield i, dict(zip(header, values))
            except csv.Error as err:
                if "field larger than field limit" in str(err):
                    raise DataError(
                        path,
                        f"near line {reader.line_num}",
                        None,
                        f"a field longer than {MAX_CSV_FIELD:,} characters; set $LIB_MAX_CSV_FIELD to read it",
                    ) from None
                raise DataError(path, f"near line {reader.line_num}", None, f"malformed CSV: {err}") from err
    except UnicodeDecodeError as err:
        raise not_utf8(path, err.reason) from None
    except IsADirectoryError:
        raise DataError(path, "-", None, "a directory, not a file") from None


# --------------------------------------------------------------------------- fields
#
# One helper per kind of field, each naming the field as `at + name` (e.g. `questions[2].question`):
# `required_field` (a required field of a type), `optional_field` (an optional one), `text_field` (a claim or question: a string
# with some text), `str_list_field` (a list of strings), `int_text_field` (an integer id written in a CSV cell).

# Published records with an empty claim or question. They are kept, so that every file loads as
# published (claim ids are positions in the file), and they are the only empty texts accepted.
#   averitec/train.json record 1948: the claim text is "" (label Supported, one QA pair)
#   averitec/train.json record 438: question 3 of 5 is "" (its justification says "The first Q and A has
#   no question")
PUBLISHED_EMPTY_TEXTS = frozenset(
    {
        ("averitec/train.json", 1948, "claim"),
        ("averitec/train.json", 438, "questions[2].question"),
    }
)


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _is_kind(value: Any, kind: type | tuple[type, ...]) -> bool:
    """`isinstance`, except that a bool is not an int: JSON `true` must not become claim 1."""
    kinds = _kinds(kind)
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def required_field(
    path: Path,
    record: Any,
    raw: dict,
    name: str,
    kind: type | tuple[type, ...] = str,
    *,
    allow_none: bool = False,
    at: str = "",
) -> Any:
    """A required field of the expected type."""
    if name not in raw:
        raise DataError(path, record, at + name, "missing required field")
    value = raw[name]
    if value is None and allow_none:
        return None
    if not _is_kind(value, kind):
        expected = " or ".join(k.__name__ for k in _kinds(kind))
        raise DataError(path, record, at + name, f"expected {expected}, got {type(value).__name__}")
    return bounded(path, record, at + name, value) if isinstance(value, str) else value


def bounded(path: Path, record: Any, field_name: str, value: str) -> str:
    """`value` unless it is longer than `MAX_TEXT_CHARS` or is no text (a lone surrogate, which JSON's `\\ud800`
    escape makes and no UTF-8 writer takes): then a `DataError` naming the field."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:
            code = f"U+{ord(value[err.start]):04X}"
            raise DataError(
                path, record, field_name, f"a lone surrogate ({code}) at character {err.start}: not text"
            ) from None
    if len(value) > MAX_TEXT_CHARS:
        raise DataError(
            path,
            record,
            field_name,
            f"a text of {len(value):,} characters, over the bound of {MAX_TEXT_CHARS:,} "
            "(set $LIB_MAX_TEXT_CHARS to read it)",
        )
    return value


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex (read in chunks: a data file may be large)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def within_size(path: Path) -> None:
    """A file larger than `MAX_INPUT_BYTES`, or one that is no regular file (a pipe, `/dev/zero`: no size to
    bound), is refused before it is read."""
    try:
        st = path.stat()
    except OSError:
        return  # missing or unreadable: the read that follows names it
    if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):  # a folder: the read that follows names it
        raise DataError(path, "-", None, not_a_file("a file to read"))
    size = st.st_size
    if size > MAX_INPUT_BYTES:
        raise DataError(
            path,
            "-",
            None,
            f"{size:,} bytes, over the bound of {MAX_INPUT_BYTES:,} (set $LIB_MAX_INPUT_BYTES to read it)",
        )


def read_text(path: Path | str) -> str:
    """A whole UTF-8 text file (a byte-order mark skipped), read within `MAX_INPUT_BYTES`: a folder, a pipe, a
    device, a missing file or bytes that are not UTF-8 are a `DataError` naming the file."""
    path = Path(path)
    within_size(path)
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataError(path, "-", None, "no such file") from None
    except IsADirectoryError:
        raise DataError(path, "-", None, "a directory, not a file") from None
    except UnicodeDecodeError as err:
        raise not_utf8(path, err.reason) from None


def optional_field(
    path: Path,
    record: Any,
    raw: dict,
    name: str,
    kind: type | tuple[type, ...] = str,
    default: Any = None,
    *,
    at: str = "",
) -> Any:
    """An optional field: missing or null gives `default`, anything else must be of `kind`."""
    if raw.get(name) is None:
        return default
    return required_field(path, record, raw, name, kind, at=at)


def visible(text: str) -> bool:
    """Whether `text` holds a character one can see: not white space, not a format character (Unicode's
    category Cf: zero-width spaces and joiners, the byte-order mark, bidirectional marks)."""
    return any(not c.isspace() and unicodedata.category(c) != "Cf" for c in text)


def nonempty_field(path: Path, record: Any, field_name: str, value: str) -> str:
    """`value` unless it is blank (and not one of the `PUBLISHED_EMPTY_TEXTS`): white space and invisible
    format characters only (a zero-width space alone is a question nobody can read)."""
    if not visible(value) and ("/".join(Path(path).parts[-2:]), record, field_name) not in PUBLISHED_EMPTY_TEXTS:
        raise DataError(path, record, field_name, "empty text (expected a non-empty string)")
    return value


def text_field(path: Path, record: Any, raw: dict, name: str, *, at: str = "") -> str:
    """A claim or question text: a required string with something besides whitespace."""
    return nonempty_field(path, record, at + name, required_field(path, record, raw, name, at=at))


def str_list_field(
    path: Path,
    record: Any,
    raw: dict,
    name: str,
    *,
    at: str = "",
    required: bool = False,
    texts: bool = False,
    none_items: bool = False,
) -> tuple[Any, ...]:
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
            raise DataError(
                path, record, f"{at}{name}[{i}]", f"expected str, got {type(item).__name__} (a list of strings)"
            )
        bounded(path, record, f"{at}{name}[{i}]", item)
        if texts:
            nonempty_field(path, record, f"{at}{name}[{i}]", item)
    return tuple(value)


MAX_ID_DIGITS = 18  # an id longer than this is no id of the study (and would overflow a 64-bit integer)


def as_id(value: Any) -> int:
    """An id as the study reads one, wherever it comes from (a CSV cell, a sheet, a plan line): a JSON integer
    (never a boolean or a float) or a text of ASCII digits, at most `MAX_ID_DIGITS` of them. No sign, space,
    '1_0', '0.9', 'true', '²' or '١٢'. A `ValueError` says what was expected."""
    text = value if isinstance(value, str) else str(value) if type(value) is int else None
    if text is None or not (text.isascii() and text.isdigit() and len(text) <= MAX_ID_DIGITS):
        raise ValueError(f"{value!r}: expected a non-negative integer id of at most {MAX_ID_DIGITS} digits")
    return int(text)


def decode(raw: bytes) -> str:
    """A text file's bytes as text: UTF-8, with or without a byte-order mark (Excel writes one), or UTF-16 with
    its mark. A `UnicodeDecodeError` names the byte."""
    return raw.decode("utf-16") if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else raw.decode("utf-8-sig")


def int_text_field(path: Path, record: Any, raw: dict, name: str, default: int | None = None) -> int:
    """An integer id in a CSV cell (`as_id`); blank gives `default`."""
    value = raw[name]
    if not value and default is not None:
        return default
    try:
        return as_id(value)
    except ValueError:
        raise DataError(
            path,
            record,
            name,
            f"not an integer: {value!r} (expected a non-negative integer id of at most {MAX_ID_DIGITS} digits)",
        ) from None


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


def label_field(path: Path, record: Any, raw: dict, name: str, scheme: str, exact: bool = False) -> str:
    """The record's label in `scheme`'s spelling; with `exact`, only as the scheme writes it (a file a scorer
    reads: `lib.data.labels.exact_label`)."""
    try:
        value = required_field(path, record, raw, name)
        return exact_label(value, scheme) if exact else normalise_label(value, scheme)
    except ValueError as err:
        if isinstance(err, DataError):
            raise
        raise DataError(path, record, name, str(err)) from None


def choice_field(path: Path, record: Any, raw: dict, name: str, allowed: tuple[str, ...], *, at: str = "") -> str:
    value = required_field(path, record, raw, name, at=at)
    if value not in allowed:
        raise DataError(path, record, at + name, f"unknown label {value!r} (expected one of {list(allowed)})")
    return value
