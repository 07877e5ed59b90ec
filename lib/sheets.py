"""Sheets that people fill in (relevance judgements, error codes, answers), read strictly: a sheet moves an
agreement or a grade, so a typo, a copied row or an id that is not a number is an error naming the file and
the row (as a spreadsheet numbers it: the header is row 1), never a silent change of the numbers."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from lib.cli import NamedError, not_a_file
from lib.data import as_id, decode, within_size


class SheetError(NamedError, ValueError):
    """A filled sheet that cannot be read as it is: the message names the file, row and column."""


def _text(path: Path, what: str) -> str:
    """The file as text: UTF-8 (with or without Excel's byte-order mark), or UTF-16 with its mark."""
    if path.exists() and not path.is_file() and not path.is_dir():  # a pipe would wait, /dev/zero fill memory
        raise SheetError(f"{path}: {not_a_file(f'the {what} as a CSV file')}")
    within_size(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise SheetError(f"{path}: cannot read the {what} ({err.strerror})") from None
    try:
        return decode(raw)
    except UnicodeDecodeError as err:
        raise SheetError(
            f"{path}: not UTF-8 text (byte {err.start}: {err.reason}); save the {what} as 'CSV UTF-8'"
        ) from None


def read_sheet(path: Path | str, columns: Sequence[str], what: str) -> pd.DataFrame:
    """Every cell as stripped text, rows numbered as a spreadsheet numbers them (the header is row 1).

    Errors name the file and row: an empty file, a row with more or fewer fields than the header, a column
    name given twice (after stripping spaces), a missing column, a value under a column with no name. Rows
    whose cells are all empty (the blank rows a spreadsheet leaves at the end) are skipped, and so are the
    nameless empty columns a spreadsheet leaves after the last one."""
    path = Path(path)
    try:
        rows = list(csv.reader(io.StringIO(_text(path, what), newline=""), strict=True))
    except csv.Error as err:
        raise SheetError(f"{path}: not a CSV {what} ({err})") from None
    if not any(c.strip() for row in rows for c in row):
        raise SheetError(f"{path}: the file is empty; copy the {what} the study wrote and fill it in")
    if not any(c.strip() for c in rows[0]):  # data under a blank header was "the file is empty"
        raise SheetError(f"{path}, row 1: no column names; the {what}'s header row comes first ({', '.join(columns)})")
    header = [h.strip() for h in rows[0]]
    named = len(header)  # columns up to the last with a name; those after it (Excel's trailing `,,`) must be empty
    while not header[named - 1]:
        named -= 1
    header, unnamed = header[:named], len(header) - named
    blank = [i for i, h in enumerate(header) if not h]  # a nameless column between named ones: empty, or an error
    twice = next((h for i, h in enumerate(header) if h and h in header[:i]), None)
    if twice is not None:
        raise SheetError(f"{path}, row 1: the column {twice!r} is named twice; each column once")
    missing = [c for c in columns if c not in header]
    if missing:
        raise SheetError(f"{path}: a {what} needs the columns {missing} (it has {header})")
    body, index = [], []
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if not named <= len(row) <= named + unnamed:
            raise SheetError(
                f"{path}, row {n}: {len(row)} fields where the header has {named + unnamed}; not a CSV {what} "
                "(a comma inside a cell needs quotes)"
            )
        if any(c.strip() for c in row[named:]):
            raise SheetError(
                f"{path}, row {n}: a value in a column with no name (column {named + 1} or later); name the column "
                "in row 1 or empty it"
            )
        if (i := next((i for i in blank if row[i].strip()), None)) is not None:  # was read under the name ''
            raise SheetError(
                f"{path}, row {n}: a value in a column with no name (column {i + 1}); name the column in row 1 or "
                "empty it"
            )
        body.append([c.strip() for i, c in enumerate(row[:named]) if i not in blank])
        index.append(n - 2)
    return pd.DataFrame(body, columns=[h for h in header if h], index=index, dtype=str)


def integer_column(sheet: pd.DataFrame, column: str, path: Path | str, expected: str) -> pd.Series:
    """`column` as integers (`lib.data.as_id`: ASCII digits, at most `MAX_ID_DIGITS`); the first cell that is
    not one is an error naming its row."""
    ids = []
    for row, value in zip(sheet.index, sheet[column]):
        try:
            ids.append(as_id(value))
        except ValueError:
            raise SheetError(f"{path}, row {row + 2}: {column} = {value!r}; expected {expected} (an integer)") from None
    return pd.Series(ids, index=sheet.index, name=column, dtype="int64")


def once(sheet: pd.DataFrame, keys: Sequence[str], path: Path | str, what: str) -> None:
    """Each combination of `keys` on one row at most; the first repeat is an error naming both rows."""
    dup = sheet.duplicated(list(keys), keep=False)
    if dup.any():
        rows = sheet.index[dup]
        first = rows[0]
        again = next(r for r in rows[1:] if all(sheet.at[r, k] == sheet.at[first, k] for k in keys))
        named = ", ".join(f"{k} {sheet.at[first, k]}" for k in keys)
        raise SheetError(f"{path}, rows {first + 2} and {again + 2}: {named} {what} twice; each is written once")
