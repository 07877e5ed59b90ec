"""lib.sheets: a filled sheet read strictly, every problem naming the file and the row."""

from __future__ import annotations

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
