"""The official AVeriTeC knowledge store, read as a stream: one JSON-lines file per claim.

Layout (as the organisers distribute it): a directory, or a zip file, holding `<claim_id>.json` for each
claim (in a zip, at any folder depth). Each line is one scraped page: a JSON object with at least `url` (a
string) and `url2text` (the page's sentences, a list of strings); other fields (`type`, `query`, ...) are
kept as they are. Pages are read one line at a time, so memory holds one page, never a claim's file or
the store.

A bad line is a `DataError` naming the file, the line and the field; a page whose `url2text` is empty is
no error (the organisers' scraper gives many) but is counted in the caller's counter and skipped.
"""

from __future__ import annotations

import io
import re
import stat
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lib.cli import env_bound, not_a_file
from lib.data import MAX_INPUT_BYTES, DataError, as_id, parse_json, required_field, str_list_field

# ASCII digits (`\d` took '١.json' for claim 1), to the name's very end (`$` took '7.json\n' for claim 7)
_CLAIM_FILE = re.compile(r"(?:^|/)([0-9]+)\.json\Z")
# The longest page line read, in characters: a zip of 1 MB can hold a line of 400 MB (a zip bomb), which
# filled memory before any error. Raise it with $LIB_MAX_PAGE_CHARS.
MAX_PAGE_CHARS = env_bound("LIB_MAX_PAGE_CHARS", 64 * 2**20)
# The most sentences one claim's pages hold: each costs about 85 bytes of memory besides its text, so the
# character bounds alone let a 250 KB zip of one-letter sentences take 20 GB. Raise it with
# $LIB_MAX_CLAIM_SENTENCES.
MAX_CLAIM_SENTENCES = env_bound("LIB_MAX_CLAIM_SENTENCES", 4_000_000)
# what a damaged zip member raises while it is read: a bad CRC, an encrypted member, broken deflate data
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError)


@dataclass(frozen=True)
class Page:
    """One scraped page of a claim's store: its URL, its sentences, and the line's other fields."""

    claim_id: int
    url: str
    sentences: tuple[str, ...]
    line: int
    fields: dict[str, Any] = field(default_factory=dict, compare=False)


def claim_files(path: Path | str) -> dict[int, str]:
    """{claim_id: file name (in a directory) or member name (in a zip)}, by claim id.

    A directory or zip without any `<claim_id>.json` is an error, as is a claim id given twice (a zip with
    the same claim in two folders); other files (a README) are ignored."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such knowledge store (a directory or a zip of <claim_id>.json files)")
    if path.is_dir():
        names = sorted(p.name for p in path.iterdir() if p.is_file())
    elif not stat.S_ISREG(path.stat().st_mode):  # a pipe would wait for a writer, /dev/zero fill memory
        raise DataError(path, "-", None, not_a_file("a knowledge store"))
    elif zipfile.is_zipfile(path):
        try:
            with zipfile.ZipFile(path) as z:
                names = sorted(i.filename for i in z.infolist() if not i.is_dir())
        except _ZIP_ERRORS as err:  # a damaged central directory
            raise DataError(path, "-", None, f"a damaged zip ({type(err).__name__}: {err})") from None
    else:
        raise DataError(path, "-", None, "not a directory or a zip file of <claim_id>.json files")
    out: dict[int, str] = {}
    for name in names:
        m = _CLAIM_FILE.search(name)
        if not m:
            continue
        try:
            cid = as_id(m.group(1))
        except ValueError as err:  # 5,000 digits: int() refused them with a traceback
            raise DataError(path, name, None, f"the file name's claim id: {err}") from None
        if cid in out:
            raise DataError(path, name, None, f"claim {cid} is stored twice (also as {out[cid]})")
        out[cid] = name
    if not out:
        raise DataError(path, "-", None, "no <claim_id>.json files")
    return dict(sorted(out.items()))


def select_claims(available: Sequence[int], first: int | None = None, last: int | None = None) -> list[int]:
    """The claim ids in [first, last] (both inclusive, either open) that the store holds."""
    return [c for c in available if (first is None or c >= first) and (last is None or c <= last)]


def _lines(path: Path, name: str) -> Iterator[tuple[str, str]]:
    """(where, text line) of one claim's file, streamed; `where` names the file for errors. A line longer
    than `MAX_PAGE_CHARS` and a damaged zip member are errors."""
    if path.is_dir():
        where = str(path / name)
        with open(path / name, encoding="utf-8-sig") as handle:
            yield from _bounded_lines(where, handle)
        return
    where = f"{path}!{name}"
    try:
        with zipfile.ZipFile(path) as z, z.open(name) as raw:
            yield from _bounded_lines(where, io.TextIOWrapper(raw, encoding="utf-8-sig"))
    except _ZIP_ERRORS as err:
        raise DataError(where, "-", None, f"a damaged zip member ({type(err).__name__}: {err})") from None


def _bounded_lines(where: str, handle: io.TextIOBase) -> Iterator[tuple[str, str]]:
    """The lines of one claim's file, each at most `MAX_PAGE_CHARS` and all together at most
    `MAX_INPUT_BYTES` characters: a zip of 2 MB held 1,200 pages of 1 MB each, within every other bound."""
    lineno = total = 0
    while line := handle.readline(MAX_PAGE_CHARS + 1):
        lineno += 1
        total += len(line)
        if total > MAX_INPUT_BYTES:
            raise DataError(
                where,
                f"at line {lineno}",
                None,
                f"the claim's pages hold over {MAX_INPUT_BYTES:,} characters (set $LIB_MAX_INPUT_BYTES to read them)",
            )
        if len(line) > MAX_PAGE_CHARS and not line.endswith("\n"):  # cut at the bound, no end in sight
            raise DataError(
                where,
                f"at line {lineno}",
                None,
                f"a line over {MAX_PAGE_CHARS:,} characters (set $LIB_MAX_PAGE_CHARS to read it)",
            )
        yield where, line


def read_pages(path: Path | str, claim_id: int, name: str, counts: Counter | None = None) -> Iterator[Page]:
    """The pages of one claim's file, one line at a time. `counts` gains `pages`, `empty_url2text` and
    `sentences` (of the pages yielded)."""
    path = Path(path)
    counts = Counter() if counts is None else counts
    where, held = str(path / name) if path.is_dir() else f"{path}!{name}", 0
    try:
        for lineno, (where, line) in enumerate(_lines(path, name), start=1):
            if not line.strip():
                continue
            at = f"at line {lineno}"
            raw = parse_json(Path(where), line, at, "JSONL")
            if not isinstance(raw, dict):
                raise DataError(where, at, None, f"expected a JSON object (a page), got {type(raw).__name__}")
            url = required_field(Path(where), at, raw, "url")
            sentences = str_list_field(Path(where), at, raw, "url2text", required=True)
            counts["pages"] += 1
            if not any(s.strip() for s in sentences):
                counts["empty_url2text"] += 1
                continue
            counts["sentences"] += len(sentences)
            held += len(sentences)
            if held > MAX_CLAIM_SENTENCES:
                raise DataError(
                    where,
                    at,
                    None,
                    f"the claim's pages hold over {MAX_CLAIM_SENTENCES:,} sentences "
                    "(set $LIB_MAX_CLAIM_SENTENCES to read them)",
                )
            extra = {k: v for k, v in raw.items() if k not in ("url", "url2text")}
            yield Page(claim_id, url, sentences, lineno, extra)
    except UnicodeDecodeError as err:
        line = _undecodable_line(path, name)  # text is decoded in blocks: the line is found on a second pass
        raise DataError(where, f"at line {line}", None, f"not UTF-8 text ({err.reason})") from None


def _undecodable_line(path: Path, name: str) -> int | str:
    """The number of the first line of a claim's file that is not UTF-8 (read again as bytes, line by line,
    within the same bounds), or "?" when every line decodes alone."""
    lineno = 0
    with open(path / name, "rb") if path.is_dir() else zipfile.ZipFile(path).open(name) as handle:
        for raw in iter(lambda: handle.readline(4 * MAX_PAGE_CHARS + 1), b""):
            for line in raw.splitlines():  # lines end at \n, \r\n or \r, as the text reader's do
                lineno += 1
                try:
                    line.decode("utf-8-sig" if lineno == 1 else "utf-8")
                except UnicodeDecodeError:
                    return lineno
    return "?"
