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
import zipfile
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lib.data import DataError, parse_json, required_field, str_list_field

_CLAIM_FILE = re.compile(r"(?:^|/)([0-9]+)\.json$")  # ASCII digits: `\d` took '١.json' for claim 1


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
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = sorted(i.filename for i in z.infolist() if not i.is_dir())
    else:
        raise DataError(path, "-", None, "not a directory or a zip file of <claim_id>.json files")
    out: dict[int, str] = {}
    for name in names:
        m = _CLAIM_FILE.search(name)
        if not m:
            continue
        cid = int(m.group(1))
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
    """(where, text line) of one claim's file, streamed; `where` names the file for errors."""
    if path.is_dir():
        where, handle = str(path / name), open(path / name, encoding="utf-8-sig")
        with handle:
            yield from ((where, line) for line in handle)
        return
    with zipfile.ZipFile(path) as z, z.open(name) as raw:
        yield from ((f"{path}!{name}", line) for line in io.TextIOWrapper(raw, encoding="utf-8-sig"))


def read_pages(path: Path | str, claim_id: int, name: str, counts: Counter | None = None) -> Iterator[Page]:
    """The pages of one claim's file, one line at a time. `counts` gains `pages`, `empty_url2text` and
    `sentences` (of the pages yielded)."""
    path = Path(path)
    counts = Counter() if counts is None else counts
    where = str(path / name)
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
            extra = {k: v for k, v in raw.items() if k not in ("url", "url2text")}
            yield Page(claim_id, url, sentences, lineno, extra)
    except UnicodeDecodeError as err:
        raise DataError(where, "-", None, f"not UTF-8 text ({err})") from err
