"""Sheets that people fill in (relevance judgements, error codes, answers), read strictly: a sheet moves an
agreement or a grade, so a typo, a copied row or an id that is not a number is an error naming the file and
the row (as a spreadsheet numbers it: the header is row 1), never a silent change of the numbers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from lib.cli import NamedError


class SheetError(NamedError, ValueError):
    """A filled sheet that cannot be read as it is: the message names the file, row and column."""


def read_sheet(path: Path | str, columns: Sequence[str], what: str) -> pd.DataFrame:
    """Every cell as stripped text; an empty file or a missing column is an error saying which."""
    try:
        sheet = pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise SheetError(f"{path}: the file is empty; copy the {what} the study wrote and fill it in") from None
    except pd.errors.ParserError as err:
        raise SheetError(f"{path}: not a CSV {what} ({str(err).strip()})") from None
    missing = [c for c in columns if c not in sheet.columns]
    if missing:
        raise SheetError(f"{path}: a {what} needs the columns {missing} (it has {list(sheet.columns)})")
    return sheet.apply(lambda col: col.str.strip())


def integer_column(sheet: pd.DataFrame, column: str, path: Path | str, expected: str) -> pd.Series:
    """`column` as integers; the first cell that is not one is an error naming its row."""
    for row, value in zip(sheet.index, sheet[column]):
        if not value.isdigit():
            raise SheetError(f"{path}, row {row + 2}: {column} = {value!r}; expected {expected} (an integer)")
    return sheet[column].astype(int)


def once(sheet: pd.DataFrame, keys: Sequence[str], path: Path | str, what: str) -> None:
    """Each combination of `keys` on one row at most; the first repeat is an error naming both rows."""
    dup = sheet.duplicated(list(keys), keep=False)
    if dup.any():
        rows = sheet.index[dup]
        first = rows[0]
        again = next(r for r in rows[1:] if all(sheet.at[r, k] == sheet.at[first, k] for k in keys))
        named = ", ".join(f"{k} {sheet.at[first, k]}" for k in keys)
        raise SheetError(f"{path}, rows {first + 2} and {again + 2}: {named} {what} twice; each is written once")
