"""lib.sheets: a filled sheet read strictly, every problem naming the file and the row."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lib import sheets as SH


def sheet(tmp_path, text):
    path = tmp_path / "sheet.csv"
    path.write_text(text)
    return path


def test_cells_are_stripped_text_and_ids_integers(tmp_path):
    path = sheet(tmp_path, "claim_id,code\n 012 , noisy \n7,x\n")
    s = SH.read_sheet(path, ["claim_id", "code"], "coding sheet")
    assert s.to_dict("list") == {"claim_id": ["012", "7"], "code": ["noisy", "x"]}
    assert SH.integer_column(s, "claim_id", path, "a claim id").tolist() == [12, 7]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty; copy the coding sheet the study wrote"),
        ("claim_id\n1\n", r"needs the columns \['code'\]"),
        ('claim_id,code\n1,"x\n', "not a CSV coding sheet"),
        ("claim_id,code\n1,x,extra\n2,y\n", r"row 2: 3 fields where the header has 2; not a CSV coding sheet"),
        ("claim_id,code\n1,x\n2\n", r"row 3: 1 fields where the header has 2"),
        ("claim_id,code,code\n1,x,y\n", r"row 1: the column 'code' is named twice"),
        ("claim_id, code ,code\n1,x,y\n", r"row 1: the column 'code' is named twice"),
        ("\n\n", "the file is empty"),
    ],
)
def test_a_sheet_that_cannot_be_read_is_named(tmp_path, text, message):
    with pytest.raises(SH.SheetError, match=message):
        SH.read_sheet(sheet(tmp_path, text), ["claim_id", "code"], "coding sheet")


def test_a_bad_id_and_a_repeat_name_their_rows(tmp_path):
    path = sheet(tmp_path, "claim_id,doc\n1,a\n2,b\nx,c\n")
    s = SH.read_sheet(path, ["claim_id", "doc"], "sheet")
    with pytest.raises(SH.SheetError, match=r"sheet.csv, row 4: claim_id = 'x'; expected a claim id \(an integer\)"):
        SH.integer_column(s, "claim_id", path, "a claim id")
    s = SH.read_sheet(sheet(tmp_path, "claim_id,doc\n1,a\n2,b\n1,a\n1,c\n"), ["claim_id", "doc"], "sheet")
    with pytest.raises(SH.SheetError, match=r"rows 2 and 4: claim_id 1, doc a judged twice"):
        SH.once(s, ["claim_id", "doc"], path, "judged")
    with pytest.raises(SH.SheetError, match=r"rows 2 and 4: claim_id 1 coded twice"):
        SH.once(s, ["claim_id"], path, "coded")
    SH.once(s.iloc[:2], ["claim_id"], path, "coded")  # no repeat: nothing to say


def test_spreadsheet_habits_read_as_meant(tmp_path):
    """A header with spaces, Excel's byte-order mark and trailing empty rows, a UTF-16 file with its mark."""
    path = tmp_path / "sheet.csv"
    path.write_bytes("\ufeff claim_id , code\n1,x\n,\n2,y\n,\n,\n".encode())
    s = SH.read_sheet(path, ["claim_id", "code"], "coding sheet")
    assert s.to_dict("list") == {"claim_id": ["1", "2"], "code": ["x", "y"]} and list(s.index) == [0, 2]
    with pytest.raises(SH.SheetError, match="row 4: claim_id = 'z'"):  # rows keep the spreadsheet's numbers
        SH.integer_column(s.assign(claim_id=["1", "z"]), "claim_id", path, "a claim id")
    path.write_bytes("claim_id,code\n3,é\n".encode("utf-16"))
    assert SH.read_sheet(path, ["claim_id", "code"], "coding sheet").to_dict("list") == {
        "claim_id": ["3"],
        "code": ["é"],
    }
    path.write_bytes(b"claim_id,code\n3,\xe9\n")  # Latin-1
    with pytest.raises(SH.SheetError, match=r"not UTF-8 text \(byte 16: .*save the coding sheet as 'CSV UTF-8'"):
        SH.read_sheet(path, ["claim_id", "code"], "coding sheet")


def test_nameless_empty_columns_after_the_last_are_left_out_and_a_value_there_named(tmp_path):
    """Excel's trailing `,,` after a touched cell: two empty names were "the column '' is named twice"."""
    path = sheet(tmp_path, "claim_id,code,,\n1,x,,\n2,y\n")  # a row without the trailing cells too
    s = SH.read_sheet(path, ["claim_id", "code"], "coding sheet")
    assert s.to_dict("list") == {"claim_id": ["1", "2"], "code": ["x", "y"]}
    with pytest.raises(SH.SheetError, match=r"row 3: a value in a column with no name \(column 3 or later\)"):
        SH.read_sheet(sheet(tmp_path, "claim_id,code,,\n1,x,,\n2,y,,z\n"), ["claim_id", "code"], "coding sheet")
    with pytest.raises(SH.SheetError, match=r"row 2: 5 fields where the header has 4"):
        SH.read_sheet(sheet(tmp_path, "claim_id,code,,\n1,x,,,\n"), ["claim_id", "code"], "coding sheet")


@pytest.mark.parametrize("value", ["²", "١٢", "12345678901234567890123", "-1", "1.0", ""])
def test_an_id_that_is_not_a_plain_integer_is_named(tmp_path, value):
    path = sheet(tmp_path, f"claim_id,code\n{value},x\n")
    s = SH.read_sheet(path, ["claim_id", "code"], "coding sheet")
    with pytest.raises(SH.SheetError, match=r"row 2: claim_id = .*; expected a claim id \(an integer\)"):
        SH.integer_column(s, "claim_id", path, "a claim id")


def test_a_sheet_that_is_a_pipe_or_a_device_is_named_never_read(tmp_path):
    """A FIFO as the filled sheet waited for a writer forever; /dev/zero filled memory."""
    os.mkfifo(tmp_path / "fifo.csv")
    for path in (tmp_path / "fifo.csv", Path("/dev/zero")):
        with pytest.raises(
            SH.SheetError,
            match="not a regular file \\(a folder, a pipe or a device\\?\\); expected the judging sheet as a CSV file",
        ):
            SH.read_sheet(path, ["a"], "judging sheet")


def test_a_nameless_column_between_named_ones_holds_no_value(tmp_path):
    """The thirty-second pass: a value under a nameless first or middle column was read, under the name ''; a
    blank header row above data was "the file is empty"."""
    p = tmp_path / "s.csv"
    for text, column in ((",claim_id,doc_id\nSECRET,1,d\n", 1), ("claim_id,,doc_id\n1,oops,d\n", 2)):
        p.write_text(text)
        with pytest.raises(SH.SheetError, match=rf"row 2: a value in a column with no name \(column {column}\); name"):
            SH.read_sheet(p, ["claim_id", "doc_id"], "sheet")
    p.write_text("claim_id,,doc_id\n1,,d\n")  # an empty nameless column is left out
    assert SH.read_sheet(p, ["claim_id", "doc_id"], "sheet").to_dict("records") == [{"claim_id": "1", "doc_id": "d"}]
    p.write_text(",,\n1,2,3\n")
    with pytest.raises(SH.SheetError, match=r"row 1: no column names; the sheet's header row comes first \(claim_id"):
        SH.read_sheet(p, ["claim_id", "doc_id"], "sheet")
