"""lib.site.grading: a class's notebook copies and answer sheets, graded into one table."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from lib.site import course as CO
from lib.site import grading as GR
from tests.hang_guard import ends_within

MISTAKE = "multiply instead of add"


def _exercise_notebook():
    """Two exercises in the course's format, each checked against a value with one typical mistake."""
    nb = nbformat.v4.new_notebook()
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [code("from lib.site.checks import HAND, check")]
    for n, (a, b) in enumerate([(2, 3), (4, 5)], start=1):
        cells += [
            md(f"**Exercise 99.{n}** (about 1 min). Add {a} and {b}. Store it in `answer`."),
            code(f"# BEGIN SOLUTION\nanswer = {a} + {b}\n# END SOLUTION"),
            code(f'check("99.{n}", answer, {a} + {b}, HAND, mistakes={{"{MISTAKE}": {a} * {b}}})'),
        ]
    for cell, tags in zip(cells, [[], *[["exercise"], ["solution"], ["check"]] * 2]):
        cell.metadata["tags"] = tags
    nb.cells = cells
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


@pytest.fixture(scope="module")
def class_folder(tmp_path_factory):
    """Three students' copies: one right, one wrong (a known mistake, then an unknown one), one untouched."""
    folder = tmp_path_factory.mktemp("submissions")
    teacher = _exercise_notebook()
    nbformat.write(teacher, folder / "right.ipynb")
    wrong = copy.deepcopy(teacher)
    wrong.cells[2].source = "answer = 2 * 3"
    wrong.cells[5].source = "answer = 10"
    nbformat.write(wrong, folder / "wrong.ipynb")
    nbformat.write(CO.strip_solutions(teacher), folder / "empty.ipynb")
    return folder


def test_a_folder_of_three_copies_grades_into_the_expected_table(class_folder, tmp_path):
    ref = tmp_path / "ref"  # the teacher's notebook as the pipeline would have executed it
    ref.mkdir()
    nbformat.write(GR.execute(class_folder / "right.ipynb", GR.ROOT), ref / "99_add.ipynb")
    table = GR.grade(class_folder, reference=ref)
    expected = pd.DataFrame(
        {
            "99.1": ["not attempted", "passed", f"off by +1 ({MISTAKE})"],
            "99.2": ["not attempted", "passed", "off by +1"],
        },
        index=pd.Index(["empty.ipynb", "right.ipynb", "wrong.ipynb"], name="submission"),
    )
    pd.testing.assert_frame_equal(table, expected)
    GR.main(["grade", str(class_folder), "--reference", str(ref), "--out", str(tmp_path / "grades.csv")])
    assert pd.read_csv(tmp_path / "grades.csv", index_col=0).loc["wrong.ipynb", "99.2"] == "off by +1"


def test_answer_sheets_are_graded_against_the_executed_reference(class_folder, tmp_path):
    reference = tmp_path / "reference"
    reference.mkdir()
    nbformat.write(GR.execute(class_folder / "right.ipynb", tmp_path), reference / "99_add.ipynb")
    sheets = tmp_path / "sheets"
    sheets.mkdir()
    (sheets / "ana.csv").write_text("exercise,answer\n99.1,5.0002\n99.2,\n")
    (sheets / "ben.csv").write_text("exercise,task,answer\n99.1,,6\n99.2,,nine\n")
    table = GR.grade(sheets, reference=reference)
    assert table.loc["ana.csv"].tolist() == ["passed", "not attempted"]
    assert table.loc["ben.csv"].tolist() == [f"off by +1 ({MISTAKE})", "not a number: 'nine'"]


def test_bad_sheets_and_folders_are_named(tmp_path):
    reference = {"99.1": {"exercise": "99.1", "expected": 5.0, "tol": 0.0, "mistakes": {}}}
    (tmp_path / "twice.csv").write_text("exercise,answer\n99.1,5\n99.1,6\n")
    with pytest.raises(GR.GradingError, match=r"twice.csv, row 3: exercise 99.1 is answered twice"):
        GR.grade_sheet(tmp_path / "twice.csv", reference)
    (tmp_path / "cols.csv").write_text("question,value\n99.1,5\n")
    with pytest.raises(GR.GradingError, match=r"cols.csv: an answer sheet needs the columns exercise and answer"):
        GR.grade_sheet(tmp_path / "cols.csv", reference)
    (tmp_path / "other.csv").write_text("exercise,answer\n42.1,5\n")
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "twice.csv").write_text("exercise,answer\n99.1,5\n99.1,6\n")
    (folder / "fine.csv").write_text("exercise,answer\n99.1,5\n")
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    table = GR.grade(folder, reference=_reference(ref_dir))
    assert table.loc["fine.csv", "99.1"] == "passed" and table.loc["fine.csv", "cannot be graded"] == ""
    assert "row 3: exercise 99.1 is answered twice" in table.loc["twice.csv", "cannot be graded"]
    with pytest.raises(GR.GradingError, match=r"other.csv: no such exercise \['42.1'\]"):
        GR.grade_sheet(tmp_path / "other.csv", reference)
    with pytest.raises(GR.GradingError, match="cols.csv: not a folder of submissions"):
        GR.grade(tmp_path / "cols.csv")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(GR.GradingError, match=r"empty: no notebook \(.ipynb\) or answer sheet \(.csv\) to grade"):
        GR.grade(empty)


def _reference(folder):
    """An executed notebook whose only check record expects 5 for exercise 99.1."""
    from lib.site.checks import RECORD_MIME

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell('check("99.1", answer, 5, 0)')
    rec = {"exercise": "99.1", "answer": 5.0, "attempted": True, "expected": 5.0, "tol": 0.0, "passed": True}
    cell.outputs = [nbformat.v4.new_output("display_data", data={RECORD_MIME: {**rec, "mistakes": {}}})]
    nb.cells = [cell]
    nbformat.write(nb, folder / "99_add.ipynb")
    return folder


def test_the_blank_sheet_lists_every_exercise_of_the_course(tmp_path):
    sheet = pd.read_csv(GR.write_sheet(tmp_path / "answers.csv"), dtype=str, keep_default_na=False)
    assert list(sheet.columns) == ["exercise", "task", "answer"]
    assert sheet["exercise"].iloc[:3].tolist() == ["01.1", "01.2", "02.1"] and len(sheet) == 21
    assert set(sheet["answer"]) == {""}


def test_neither_command_writes_over_a_students_sheet_or_into_data(class_folder, tmp_path):
    """`grade --out <a sheet in the folder>` replaced that student's answers with the grade table, and `sheet`
    replaced a filled sheet with a blank one; both wrote into data/ too. Each is refused before any work."""
    from lib.cli import NamedError
    from lib.paths import DATA_DIR

    filled = tmp_path / "answers.csv"
    filled.write_text("exercise,task,answer\n01.1,t,0.5\n")
    with pytest.raises(
        NamedError, match="answers.csv: exists \\(a filled answer sheet\\?\\); remove it or name another"
    ):
        GR.main(["sheet", "--out", str(filled)])
    assert filled.read_text() == "exercise,task,answer\n01.1,t,0.5\n"
    with pytest.raises(NamedError, match="lies inside data/"):
        GR.main(["sheet", "--out", str(DATA_DIR / "answers.csv")])
    inside = next(p for p in class_folder.iterdir() if p.is_file())
    before = inside.read_bytes()
    with pytest.raises(NamedError, match="is also an input of this command"):
        GR.main(["grade", str(class_folder), "--no-run", "--out", str(inside)])
    assert inside.read_bytes() == before and not (DATA_DIR / "answers.csv").exists()


def test_an_answer_sheet_is_read_as_every_filled_sheet(tmp_path):
    """lib.sheets' strict reading: an extra field is an error, not a shifted column; blank rows are skipped."""
    bad = tmp_path / "shifted.csv"
    bad.write_text("exercise,answer\n02.1,0.5,extra\n")
    with pytest.raises(GR.GradingError, match=r"shifted.csv, row 2: 3 fields where the header has 2"):
        GR.read_sheet(bad)
    ok = tmp_path / "excel.csv"
    ok.write_bytes("\ufeffexercise, answer\n02.1, 0.5 \n,\n02.2,\n".encode())
    assert GR.read_sheet(ok) == {"02.1": "0.5", "02.2": None}


@pytest.mark.parametrize(
    "record, field",
    [
        ({"answer": "abc", "expected": 1.0, "tol": 0.1}, "answer"),
        ({"answer": 1.0, "tol": 0.1}, "expected"),
        ({"answer": 1.0, "expected": 1.0, "tol": True}, "tol"),
        ({"answer": 1.0, "expected": 1.0, "tol": 0.1, "mistakes": {"x": "2"}}, "mistakes"),
    ],
)
def test_a_check_record_edited_by_hand_is_named_in_its_cell_not_a_traceback(record, field):
    """A record with answer "abc" (or without `expected`) raised TypeError in `status`, and the grading of
    the whole class stopped at that one copy."""
    assert GR.status(record).startswith(f"a check record that is not the check's (field {field}: ")
    assert GR.status({"answer": None, "expected": 1.0, "tol": 0.1}) == "not a number"
    assert GR.status({"answer": 1.05, "expected": 1.0, "tol": 0.1}) == GR.PASSED
    # the thirty-ninth pass: "off by +0.0005" beside a tolerance of 0.0005 read as passed
    assert GR.status({"answer": 0.12400001, "expected": 0.1235, "tol": 0.0005}) == "off by +0.00050001"


@pytest.mark.parametrize("answer", ["1_000", "١٢", "about 0.5", "0,5", "nan", "inf", "1e400", "-1e999"])
def test_an_answer_that_is_no_plain_number_is_graded_not_a_number(tmp_path, answer):
    """`float()` read '1_000' as 1000 and Arabic-Indic digits as 12: a filled sheet is read strictly."""
    reference = {"99.1": {"exercise": "99.1", "expected": 1000.0, "tol": 0.5, "mistakes": {}},
                 "99.2": {"exercise": "99.2", "expected": -0.0015, "tol": 1e-6, "mistakes": {}}}  # fmt: skip
    path = tmp_path / "answers.csv"
    path.write_text(f'exercise,task,answer\n99.1,t,"{answer}"\n99.2,t,-1.5e-3\n', encoding="utf-8")
    assert GR.grade_sheet(path, reference) == {"99.1": f"not a number: {answer!r}", "99.2": GR.PASSED}


def test_saved_outputs_a_stub_cannot_have_made_are_not_graded(tmp_path):
    """`--no-run`: a student copy whose solution cells were still the stubs, with the reference's outputs
    pasted in, passed every exercise."""
    from lib.site.checks import RECORD_MIME

    folder = tmp_path / "class"
    folder.mkdir()
    nb = CO.strip_solutions(_exercise_notebook())
    rec = {"exercise": "99.1", "answer": 5.0, "attempted": True, "expected": 5.0, "tol": 0.0, "mistakes": {}}
    nb.cells[3].outputs = [nbformat.v4.new_output("display_data", data={RECORD_MIME: rec})]
    nbformat.write(nb, folder / "99_add.ipynb")
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    problem = GR.grade(folder, reference=_reference(ref_dir), run=False).loc["99_add.ipynb", GR.PROBLEM]
    assert problem.endswith(
        "99_add.ipynb: code cell 2 still raises the exercise's stub, yet the copy holds check records: its saved "
        "outputs are not its cells' own; grade it without --no-run"
    )
    stopped = nbformat.v4.new_output("error", ename="NotImplementedError", evalue="Exercise 99.1", traceback=[])
    nb.cells[2].outputs, nb.cells[5].outputs = [stopped], [stopped]  # as the stubs' own run leaves them
    nbformat.write(nb, folder / "99_add.ipynb")
    row = GR.grade(folder, reference=_reference(ref_dir), run=False).loc["99_add.ipynb"]
    assert GR.PROBLEM not in row or not row[GR.PROBLEM]


def test_an_exercise_two_cells_record_is_a_broken_record():
    """A check cell renumbered from 03.2 to 03.1 graded 03.2's answer against 03.1's value ("off by -1.61")."""
    from lib.site.checks import RECORD_MIME

    def cell(number, answer):
        c = nbformat.v4.new_code_cell(f'check("{number}", answer, 5.0)')
        rec = {"exercise": number, "answer": answer, "expected": 5.0, "tol": 0.1, "mistakes": {}}
        c.outputs = [nbformat.v4.new_output("display_data", data={RECORD_MIME: rec})]
        return c

    found = GR.records(nbformat.v4.new_notebook(cells=[cell("99.1", 5.0), cell("99.1", 3.0), cell("99.2", 5.0)]))
    assert GR.status(found["99.1"]) == "a check record that is not the check's (recorded by cells 0 and 1)"
    assert GR.status(found["99.2"]) == GR.PASSED
    twice = nbformat.v4.new_notebook(cells=[cell("99.1", 3.0)])
    twice.cells[0].outputs *= 2  # one cell that checked twice: its last record, as before
    assert GR.records(twice)["99.1"]["answer"] == 3.0


@pytest.mark.parametrize("record", [{"answer": 1.0}, "abc", ["99.1"], {"exercise": ["99.1"]}])
def test_a_record_without_its_exercise_is_named_in_its_check_cell(record):
    """A record without `exercise` (or not an object at all) raised KeyError or TypeError in `records`, and
    nobody in the class was graded."""
    from lib.site.checks import RECORD_MIME

    cell = nbformat.v4.new_code_cell('check("99.1", answer, 5.0)')
    cell.outputs = [nbformat.v4.new_output("display_data", data={RECORD_MIME: record})]
    nb = nbformat.v4.new_notebook(cells=[cell])
    found = GR.records(nb)
    assert list(found) == ["99.1"] and GR.status(found["99.1"]).startswith("a check record that is not the check's (")


def test_a_signal_stops_the_grading_with_its_kernel_and_writes_no_table(tmp_path):
    """nbclient took SIGTERM for itself: the copy being run was graded "could not be run", grading went on to
    the next copy (waiting out its cell timeout), then wrote the table and exited 0."""
    import subprocess
    import sys
    import time

    import psutil

    from lib.paths import ROOT

    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("a.ipynb", "b.ipynb"):
        nbformat.write(
            nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import time; time.sleep(600)")]), folder / name
        )
    out = tmp_path / "grades.csv"
    cmd = [sys.executable, "-m", "lib.site.grading", "grade", str(folder), "--root", str(tmp_path), "--out", str(out)]
    cmd += ["--reference", str(ROOT / "outputs" / "notebooks")]  # the expected values: the pipeline's records
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not any(
        "kernel" in " ".join(c.cmdline()) for c in psutil.Process(proc.pid).children(recursive=True)
    ):
        time.sleep(0.2)
    time.sleep(1)
    children = psutil.Process(proc.pid).children(recursive=True)
    kernels = [c.cmdline() for c in children if any("ipykernel" in a for a in c.cmdline())]
    connections = [Path(args[args.index("-f") + 1]) for args in kernels if "-f" in args]
    assert connections and all(c.exists() for c in connections)
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143 and "error: stopped by SIGTERM" in err
    assert not out.exists()
    assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert not [c for c in connections if c.exists()]  # the kernel's connection file went with it


def test_a_notebook_without_an_exercise_is_named_in_its_row(tmp_path):
    """An empty notebook (or another course's) got a row of blanks: neither graded nor said to be ungradable."""
    folder = tmp_path / "class"
    folder.mkdir()
    nbformat.write(nbformat.v4.new_notebook(), folder / "empty.ipynb")
    (folder / "pipe.ipynb").mkdir()  # a folder named like a notebook is no submission
    table = GR.grade(folder, run=False)
    assert table.loc["empty.ipynb", GR.PROBLEM].endswith(
        "empty.ipynb: no exercise of the course in it (an empty notebook, or another one?)"
    )
    assert table.loc["pipe.ipynb", GR.PROBLEM].endswith("pipe.ipynb: not a notebook file (a folder, a pipe?)")


def test_a_copy_is_graded_against_the_references_expected_value_and_tolerance_not_its_own(tmp_path):
    """A solution cell that set the tolerance to 10 (or a record edited by hand) passed a wrong answer."""
    from lib.site.checks import RECORD_MIME

    folder = tmp_path / "class"
    folder.mkdir()
    nb = _exercise_notebook()  # exercise 99.1 expects 2 + 3; the copy's record says 0 within 10
    forged = {"exercise": "99.1", "answer": 0.0, "attempted": True, "expected": 0.0, "tol": 10.0, "mistakes": {}}
    nb.cells[3].outputs = [nbformat.v4.new_output("display_data", data={RECORD_MIME: forged})]
    nbformat.write(nb, folder / "99_add.ipynb")
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    table = GR.grade(folder, reference=_reference(ref_dir), run=False)
    assert table.loc["99_add.ipynb", "99.1"] == "off by -5"


@pytest.mark.parametrize(
    "source",
    [
        "def check(number, answer, expected, *rest):\n    pass",
        "import lib.site.checks as C\nC.verdict = lambda *a: None",
        'display({"application/vnd.factcheck-study.exercise+json": {"exercise": "99.1"}}, raw=True)',
        # rebound unseen: `globals()[...]` passed a wrong answer as the expected value
        "import lib.site.checks as _c\n_o = _c.check\nglobals()['check'] = lambda n, a, e, *r: _o(n, e, e, *r)",
        "exec('check = print')",
        "check, = (print,)",
        "a, check = 1, print",
        "(check := print)",
        "import lib.site.checks as _c\n_c.check.__code__ = print.__code__",
        "setattr(__import__('lib.site.checks').site.checks, 'check', print)",
        "import sys\nsys.modules['lib.site.checks'].check = print",
        # the record's answer rewritten on its way out (the twenty-ninth pass)
        "import lib.site.checks as C\n_d = C.display\nC.display = lambda b, **k: _d({**b}, **k)",
        "from lib.site import checks\nchecks.within = lambda e, t: 1e9",
        "get_ipython().display_pub.publish = print",
    ],
)
def test_a_copy_that_replaces_the_check_is_named_not_graded(tmp_path, source):
    """A copy that defined its own `check` (recording the expected value as its answer) passed everything."""
    folder = tmp_path / "class"
    folder.mkdir()
    nb = _exercise_notebook()
    nb.cells.insert(1, nbformat.v4.new_code_cell(source))
    nbformat.write(nb, folder / "99_add.ipynb")
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    table = GR.grade(folder, reference=_reference(ref_dir), run=False)
    problem = table.loc["99_add.ipynb", GR.PROBLEM]
    assert "99_add.ipynb: code cell 1 replaces the course's check (" in problem
    assert problem.endswith("); such a copy cannot be graded")
    assert GR.tampered(_exercise_notebook()) is None  # the course's own copy: graded


def test_a_copy_of_blank_lines_is_read_for_tampering_in_linear_time():
    """`^\\s*` ran on across lines: 20 KB of blank lines took 3 s, a large copy hours."""
    nb = _exercise_notebook()
    nb.cells.insert(1, nbformat.v4.new_code_cell("\n" * 1_000_000 + "x = 1"))
    with ends_within():
        assert GR.tampered(nb) is None
    nb.cells.insert(1, nbformat.v4.new_code_cell("\n\n   def check(*a):\n    pass"))
    assert GR.tampered(nb) == "code cell 1 replaces the course's check ('def check')"


@pytest.mark.parametrize("answer", [True, False])
def test_a_truth_value_is_no_numeric_answer(answer):
    """`answer = True` read as 1.0 and passed an exercise whose answer is 1."""
    from lib.site.checks import as_number, verdict

    assert as_number(answer) is None
    assert verdict(answer, float(answer), 0.5) == f"expected a number, got bool {answer!r}"


def test_the_table_is_never_written_over_another_roots_reference_notebooks(tmp_path):
    """With `--root` another workspace and no `--reference`, `--out` replaced one of its executed notebooks."""
    folder, ws = tmp_path / "class", tmp_path / "ws"
    folder.mkdir()
    (folder / "a.csv").write_text("exercise,task,answer\n99.1,t,5\n")
    ref_dir = GR.reference_folder(ws)
    ref_dir.mkdir(parents=True)
    notebook = _reference(ref_dir) / "99_add.ipynb"
    before = notebook.read_bytes()
    with pytest.raises(GR.NamedError, match="is also an input of this command"):
        GR.main(["grade", str(folder), "--root", str(ws), "--no-run", "--out", str(notebook)])
    assert notebook.read_bytes() == before


def test_the_table_is_never_written_over_the_graded_roots_data_outputs_or_files(tmp_path):
    """The fifty-first pass (S 2): `--root WORKSPACE --out WORKSPACE/data/averitec/dev.json` (or its params.yaml,
    its dvc.yaml) replaced the workspace's file with the grade table, exit 0; only this checkout's were refused."""
    folder, ws = tmp_path / "class", tmp_path / "ws"
    folder.mkdir()
    (folder / "a.csv").write_text("exercise,task,answer\n99.1,t,5\n")
    (ws / "data" / "averitec").mkdir(parents=True)
    (ws / "outputs" / "metrics").mkdir(parents=True)
    (ws / "dvc.yaml").write_text(
        "stages:\n  s:\n    cmd: x\n    deps: [params.yaml, data]\n    outs: [outputs/metrics]\n"
    )
    files = {ws / "data" / "averitec" / "dev.json": "lies inside data/", ws / "params.yaml": "a stage reads it",
             ws / "dvc.yaml": "is a file of the study", ws / "outputs" / "metrics" / "g.csv": "output of stage `s`"}  # fmt: skip
    for path in (ws / "data" / "averitec" / "dev.json", ws / "params.yaml"):
        path.write_text("kept\n")
    before = {p: p.read_text() for p in files if p.exists()}
    for path, message in files.items():
        with pytest.raises(GR.NamedError, match=message):
            GR.main(["grade", str(folder), "--root", str(ws), "--no-run", "--out", str(path)])
    assert {p: p.read_text() for p in files if p.exists()} == before  # nothing written, no table made


def test_a_saved_answer_that_is_nan_is_not_a_number():
    assert GR.status({"answer": float("nan"), "expected": 1.0, "tol": 0.1}) == "not a number"  # was "off by +nan"


def test_an_output_path_ending_in_a_slash_is_refused_at_the_flag(tmp_path, capsys):
    """`--out newdir/` wrote a file named `newdir`."""
    with pytest.raises(SystemExit) as end:
        GR.main(["sheet", "--out", f"{tmp_path}/newdir/"])
    assert end.value.code == 2 and "ends with '/', a folder; name the file to write" in capsys.readouterr().err
    assert not (tmp_path / "newdir").exists()


def test_an_exercise_no_reference_holds_is_not_graded_against_the_copys_own_record(tmp_path):
    """With a reference folder lacking the notebook, a copy recording `tol = 10` passed its exercises."""
    from lib.site.checks import RECORD_MIME

    folder = tmp_path / "class"
    folder.mkdir()
    nb = _exercise_notebook()
    forged = {"exercise": "99.2", "answer": 14.0, "attempted": True, "expected": 9.0, "tol": 10.0, "mistakes": {}}
    nb.cells[6].outputs = [nbformat.v4.new_output("display_data", data={RECORD_MIME: forged})]
    nbformat.write(nb, folder / "99_add.ipynb")
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    row = GR.grade(folder, reference=_reference(ref_dir), run=False).loc["99_add.ipynb"]
    assert row["99.2"] == f"{GR.PROBLEM}: exercise 99.2 is in no reference notebook"


def test_every_exercise_of_the_copys_notebook_is_graded_and_upper_case_names_too(tmp_path):
    """A copy without the task cell of 99.1 had no 99.1 in its row; `A.CSV` was not graded at all."""
    folder = tmp_path / "class"
    folder.mkdir()
    nb = _exercise_notebook()
    del nb.cells[1]  # the task cell of 99.1: its check cell is still there
    nbformat.write(nb, folder / "99_add.ipynb")
    (folder / "A.CSV").write_text("exercise,task,answer\n99.1,t,5\n")
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    table = GR.grade(folder, reference=_reference(ref_dir), run=False)
    assert table.loc["99_add.ipynb", "99.1"] == GR.NOT_ATTEMPTED and table.loc["A.CSV", "99.1"] == GR.PASSED


def test_a_text_answer_in_a_notebook_is_no_number():
    """`answer = "1_0"` was read as 10 by float() in a notebook, while a sheet said "not a number"."""
    from lib.site.checks import verdict

    assert verdict("1_0", 10.0, 0.5) == "expected a number, got str '1_0'"


def _copy_with(source: str, folder):
    """A copy of the two exercises whose first solution cell is `source` instead, written in `folder`."""
    nb = _exercise_notebook()
    nb.cells[2].source = source
    nbformat.write(nb, folder / "copy.ipynb")
    return folder / "copy.ipynb"


def test_a_copy_that_prints_without_end_is_stopped_at_the_output_bound(tmp_path):
    """`while True: print(...)` grew the grader about 40 MB a second until the cell's 600 s timeout: past
    `max_output_mb` the kernel is interrupted, no later cell runs and the copy is named, not graded."""
    folder = tmp_path / "class"
    folder.mkdir()
    _copy_with('while True:\n    print("x" * 100)', folder).rename(folder / "loud.ipynb")
    nbformat.write(_exercise_notebook(), folder / "right.ipynb")
    ref = tmp_path / "ref"
    ref.mkdir()
    nbformat.write(GR.execute(folder / "right.ipynb", GR.ROOT), ref / "99_add.ipynb")
    with ends_within(60):
        table = GR.grade(folder, reference=ref, bounds={"max_output_mb": 2})
    assert table.loc["loud.ipynb", GR.PROBLEM].endswith(
        "loud.ipynb: code cell 2 printed past 2 MB of output (--max-output-mb); stopped there, not graded"
    )
    assert table.loc["right.ipynb", "99.2"] == GR.PASSED  # the next copy graded as before


def test_output_under_the_bound_is_kept_whole(tmp_path):
    nb = GR.execute(_copy_with('print("y" * 1000)\nanswer = 5', tmp_path), GR.ROOT, max_output_mb=1)
    assert nb.cells[2].outputs[0]["text"] == "y" * 1000 + "\n"
    assert GR.records(nb)["99.2"]["answer"] == 9  # the later cells ran


def test_a_copy_kernel_past_its_memory_bound_fails_that_cell_with_memory_error(tmp_path):
    """A copy's kernel had no bound: a cell that keeps allocating fails with MemoryError (its exercise shows
    the error), the copy's other exercises are graded."""
    source = "hoard = []\nwhile True:\n    hoard.append(bytearray(10**7))"
    with ends_within(60):
        nb = GR.execute(_copy_with(source, tmp_path), GR.ROOT, kernel_memory_gb=1.5)
    assert [o["ename"] for o in nb.cells[2].outputs if o["output_type"] == "error"] == ["MemoryError"]
    assert GR.records(nb)["99.2"]["answer"] == 9


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan", "1e9", "lots"])
@pytest.mark.parametrize("flag", ["--max-output-mb", "--kernel-memory-gb"])
def test_the_bounds_are_positive_finite_numbers(flag, value, tmp_path, capsys):
    _refused(flag, value, tmp_path, capsys)


def test_a_kernel_memory_bound_below_one_gigabyte_is_refused(tmp_path, capsys):
    """0.05 GB: the kernel could not start its threads, 60 s of silence and two tracebacks, exit 0."""
    _refused("--kernel-memory-gb", "0.5", tmp_path, capsys)


def test_output_is_counted_in_utf8_bytes_not_json_escapes(tmp_path):
    """`é` printed 9 million times (17 MiB) was counted as 54 MB by its `\\u00e9` escapes and stopped."""
    nb = GR.execute(_copy_with('print("é" * 400_000)\nanswer = 5', tmp_path), GR.ROOT, max_output_mb=1)
    assert len(nb.cells[2].outputs[0]["text"]) == 400_001


def _refused(flag, value, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        GR.main(["grade", str(tmp_path), flag, value])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: argument ") and flag in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda nb: nb.cells.pop(5), "not attempted (no answer cell before its check, which read an earlier answer)"),
        (lambda nb: setattr(nb.cells[5], "source", "answer = 1 / 0"), "error before its check: ZeroDivisionError"),
        (lambda nb: setattr(nb.cells[5], "source", ""), "not attempted (no answer cell"),  # emptied, not deleted
        (lambda nb: setattr(nb.cells[5], "source", "# TODO\n\n"), "not attempted (no answer cell"),
    ],
)
def test_a_check_that_read_an_earlier_exercises_answer_is_not_graded_as_this_ones(edit, expected, tmp_path):
    """A copy whose 99.2 answer cell was deleted (or raised before setting `answer`) was graded "off by"
    with 99.1's answer, even as a known mistake."""
    nb = _exercise_notebook()
    edit(nb)
    nbformat.write(nb, tmp_path / "copy.ipynb")
    graded = GR.grade_notebook(tmp_path / "copy.ipynb", GR.ROOT)
    assert graded["99.1"] == GR.PASSED and graded["99.2"].startswith(expected)


@pytest.mark.parametrize(
    "edit",
    [
        lambda nb: nb.cells.insert(5, nbformat.v4.new_code_cell("scratch.head()")),  # a scratch error above it
        lambda nb: (
            nb.cells.insert(6, nbformat.v4.new_code_cell("answer = 4 + 5"))
            or setattr(  # the stub kept,
                nb.cells[5],
                "source",
                'raise NotImplementedError("mine below")',  # the answer below it
            )
        ),
        lambda nb: setattr(nb.cells[6], "source", "answer = 4 + 5\n" + nb.cells[6].source) or nb.cells.pop(5),
    ],
)
def test_an_answer_given_another_way_is_graded(edit, tmp_path):
    """False refusals: a scratch cell's error above a good answer cell, the stub kept with the answer written
    below it, and the answer moved into the check cell were "error before its check" or "not attempted"."""
    nb = _exercise_notebook()
    edit(nb)
    nbformat.write(nb, tmp_path / "copy.ipynb")
    assert GR.grade_notebook(tmp_path / "copy.ipynb", GR.ROOT)["99.2"] == GR.PASSED


def test_an_untouched_stub_stays_not_attempted(tmp_path):
    nbformat.write(CO.strip_solutions(_exercise_notebook()), tmp_path / "copy.ipynb")
    assert GR.grade_notebook(tmp_path / "copy.ipynb", GR.ROOT) == {"99.1": "not attempted", "99.2": "not attempted"}


def test_a_sheet_saved_by_a_spreadsheet_keeps_its_exercise_numbers(tmp_path):
    """Excel reads `01.1` as a number and saves `1.1`: the whole sheet was "no such exercise"."""
    reference = {n: {"exercise": n, "expected": 1.0, "tol": 0.1, "mistakes": {}} for n in ("01.1", "01.2", "10.1")}
    path = tmp_path / "answers.csv"
    path.write_text("exercise,answer\n1.1,1\n1.2,5\n10.1,1.05\n", encoding="utf-8")
    assert GR.grade_sheet(path, reference) == {"01.1": GR.PASSED, "01.2": "off by +4", "10.1": GR.PASSED}
    path.write_text("exercise,answer\n1.1,1\n1.1,2\n", encoding="utf-8")
    with pytest.raises(GR.GradingError, match=r"row 3: exercise 1.1 is answered twice"):
        GR.grade_sheet(path, reference)
    path.write_text("exercise,answer\n01.1,1\n1.1,2\n", encoding="utf-8")
    with pytest.raises(GR.GradingError, match=r"exercise 01.1 is answered twice \(as 01.1 and as 1.1\)"):
        GR.grade_sheet(path, reference)
    path.write_text("exercise,answer\n1.1,1\n01.1,2\n", encoding="utf-8")  # "(as 01.1 too)" named one spelling twice
    with pytest.raises(GR.GradingError, match=r"exercise 01.1 is answered twice \(as 1.1 and as 01.1\)"):
        GR.grade_sheet(path, reference)
    ambiguous = {**reference, "01.10": reference["01.1"]}
    path.write_text("exercise,answer\n1.1,1\n", encoding="utf-8")
    with pytest.raises(GR.GradingError, match=r"exercise 1.1 could be 01.1 or 01.10"):
        GR.grade_sheet(path, ambiguous)


def test_an_exercise_recorded_by_two_reference_notebooks_is_refused(tmp_path):
    """A stale copy beside the executed notebook was graded against whichever sorted last ("off by" a passing answer)."""
    import shutil

    ref = _reference(tmp_path)
    shutil.copy(ref / "99_add.ipynb", ref / "99_add_old.ipynb")
    with pytest.raises(GR.GradingError, match=r"exercise 99.1 is recorded by 99_add.ipynb and 99_add_old.ipynb"):
        GR.reference_records(ref)
