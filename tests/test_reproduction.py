"""lib.reproduction: the check of `make check-pipeline`, tested on values just inside and just outside."""

import json
import re
import subprocess

import pytest

from lib import reproduction as R
from lib.data import DataError

REF = {
    "machine": {"cpu": "Test CPU", "flags": ["avx2"]},
    "default": 1e-6,
    "families": [{"match": "*dense*", "tolerance": 2e-3}],
}


def _metrics(**values):
    return json.dumps({"ndcg@10": {"dense/claim": values.get("dense", 0.5), "bm25/claim": values.get("bm25", 0.4)},
                       "effect": values.get("effect", "positive"), "top_group": values.get("group", ["A", "B"])})  # fmt: skip


def test_machine_kind_reads_the_model_and_the_instruction_sets():
    info = "processor : 0\nmodel name : AMD EPYC\nflags : fpu avx2 fma avx512f\nprocessor : 1\nmodel name : Other\n"
    assert R.machine_kind(info) == {"cpu": "AMD EPYC", "flags": ["avx512f", "avx2", "fma"]}
    assert R.machine_kind("") == {"cpu": "unknown", "flags": []}


def test_tolerance_takes_the_first_matching_family_else_the_default():
    ref = REF | {"families": [{"match": "a.json:*", "tolerance": 0.1}, {"match": "*x*", "tolerance": 0.5}]}
    assert R.tolerance("a.json:x.y", ref) == 0.1 and R.tolerance("b.json:x", ref) == 0.5
    assert R.tolerance("b.json:y", ref) == 1e-6


@pytest.mark.parametrize(
    "dense, status",
    [(0.5 + 0.0019, "OK"), (0.5 + 0.0021, "OKish"), (0.5 + 0.0029, "OKish"), (0.5 + 0.0031, "FAIL")],
)
def test_a_number_within_outside_and_far_outside_its_tolerance(dense, status):
    table = R.compare({"m.json": _metrics()}, {"m.json": _metrics(dense=dense)}, REF)
    assert table[["key", "status"]].values.tolist() == [["ndcg@10.dense/claim", status]]
    assert table["tolerance"].iloc[0] == 2e-3 and table["difference"].iloc[0] == pytest.approx(dense - 0.5)
    passed, sentence = R.verdict(table)
    assert passed == (status != "FAIL") and sentence.startswith(
        f"1 value(s) differ from the committed ones (1 {status})"
    )


def test_a_bm25_number_has_the_default_tolerance_and_categorical_changes_fail_apart():
    table = R.compare({"m.json": _metrics()}, {"m.json": _metrics(bm25=0.4001, effect="negative", group=["A"])}, REF)
    assert table.set_index("key")["status"].to_dict() == {
        "ndcg@10.bm25/claim": "FAIL",
        "effect": "changed",
        "top_group": "changed",
    }
    assert R.verdict(table) == (False, "3 value(s) differ from the committed ones (1 FAIL, 2 changed): not reproduced")


def test_a_flag_that_became_a_number_is_a_change():
    """`"check_figures_agree": true` edited to `1` was "every number and every categorical result equals"."""
    table = R.compare({"m.json": '{"agree": true, "n": 1}'}, {"m.json": '{"agree": 1, "n": 1.0}'}, REF)
    assert table[["key", "status"]].values.tolist() == [["agree", "changed"]]
    # the forty-eighth pass: a number turned text printed as two equal figures beside "changed"
    assert table[["committed", "produced"]].values.tolist() == [["flag True", "number 1"]]
    text = R.compare({"m.json": '{"share": 0.994}'}, {"m.json": '{"share": "0.994"}'}, REF)
    assert text[["committed", "produced", "status"]].values.tolist() == [["number 0.994", "text '0.994'", "changed"]]


def test_equal_files_missing_files_and_plot_data():
    same = R.compare(
        {"m.json": _metrics(), "p.csv": "k,a\n1,0.5\n"}, {"m.json": _metrics(), "p.csv": "k,a\n1,0.5\n"}, REF
    )
    assert same.empty and R.verdict(same) == (
        True,
        "every number and every categorical result equals the committed one",
    )
    moved = R.compare({"p.csv": "k,a,dense\n1,0.5,0.3\n"}, {"p.csv": "k,a,dense\n1,0.5,0.301\n"}, REF)
    assert moved[["key", "status"]].values.tolist() == [["1.dense", "OK"]]
    gone = R.compare({"m.json": _metrics(), "x.json": "{}"}, {"m.json": _metrics()}, REF)
    assert gone[["file", "status"]].values.tolist() == [["x.json", "missing"]] and not R.verdict(gone)[0]
    with pytest.raises(R.ReproductionError, match=r"m.json \(committed\): not JSON"):
        R.compare({"m.json": "{"}, {"m.json": "{}"}, REF)
    with pytest.raises(
        R.ReproductionError, match=r"m.json \(committed\): an object names the key 'a' twice"
    ):  # json kept the last
        R.compare({"m.json": '{"a": 1, "a": 2}'}, {"m.json": '{"a": 2}'}, REF)


def test_a_bad_reference_file_is_named(tmp_path):
    bad = tmp_path / "reproduction.yaml"
    bad.write_text("machine: {cpu: x, flags: []}\ndefault: -1\nfamilies: [{match: '*', tolerance: x}]\n")
    with pytest.raises(R.ReproductionError, match=r"default: expected a tolerance >= 0; families\[0\].tolerance"):
        R.load_reference(bad)
    assert R.load_reference()["machine"]["cpu"]  # the committed one reads


@pytest.mark.parametrize(
    "machine, default, problem",
    [
        ("{model: x, flags: []}", "1.0e-6", "machine: expected cpu (text) and flags"),  # a KeyError in `check`
        ("{}", "1.0e-6", "machine: expected cpu (text) and flags"),
        (
            "{cpu: x, flags: [avx2, avx512f]}",
            "1.0e-6",
            "machine.flags: expected a list of avx512f, avx2, fma in that order",
        ),
        ("{cpu: x, flags: [avx2, avx2]}", "1.0e-6", "machine.flags: expected a list of"),
        ("{cpu: x, flags: []}", "true", "default: expected a tolerance >= 0"),  # true was a tolerance of 1.0
        ("{cpu: x, flags: []}", ".inf", "default: expected a tolerance >= 0"),
        ("{cpu: x, flags: []}", ".nan", "default: expected a tolerance >= 0"),
    ],
)
def test_a_reference_machine_or_tolerance_of_the_wrong_kind_is_named(tmp_path, machine, default, problem):
    bad = tmp_path / "reproduction.yaml"
    bad.write_text(f"machine: {machine}\ndefault: {default}\nfamilies: []\n")
    with pytest.raises(R.ReproductionError, match=re.escape(problem)):
        R.load_reference(bad)
    bad.write_text("machine: {cpu: x, flags: []}\ndefault: 1.0e-6\nfamilies: [{match: '*', tolerance: .inf}]\n")
    with pytest.raises(R.ReproductionError, match=r"families\[0\].tolerance: expected a number >= 0"):
        R.load_reference(bad)
    bad.write_text("machine: {cpu: x, flags: [avx512f, fma]}\ndefault: 0\nfamilies: [{match: '*', tolerance: 2}]\n")
    assert R.load_reference(bad)["default"] == 0


def _repo(tmp_path, committed: str, produced: str):
    (tmp_path / "outputs" / "metrics").mkdir(parents=True)
    path = tmp_path / "outputs" / "metrics" / "m.json"
    path.write_text(committed)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)
    path.write_text(produced)
    ref = tmp_path / "ref.yaml"
    ref.write_text(json.dumps(REF))
    return ref


def test_check_is_exact_on_the_recorded_kind_and_tolerant_elsewhere(tmp_path, capsys):
    ref = _repo(tmp_path, _metrics(), _metrics(dense=0.5005))
    with pytest.raises(R.ReproductionError, match=r"1 file\(s\) differ from the committed ones"):  # byte for byte
        R.check(tmp_path, ref, kind=REF["machine"])
    assert R.check(tmp_path, ref, kind={"cpu": "Other CPU", "flags": []}) == 0  # elsewhere: within 0.002
    assert "reproduced within the tolerances" in capsys.readouterr().out
    (tmp_path / "outputs" / "metrics" / "m.json").write_text(_metrics(dense=0.5005, effect="negative"))
    with pytest.raises(R.ReproductionError, match="not reproduced"):  # a flipped call fails anywhere
        R.check(tmp_path, ref, kind={"cpu": "Other CPU", "flags": []})


def test_a_committed_file_that_is_not_utf8_is_named(tmp_path):
    """The forty-seventh pass: a committed metrics file holding byte 0xff ended `check` in a traceback."""
    (tmp_path / "outputs" / "metrics").mkdir(parents=True)
    (tmp_path / "outputs" / "metrics" / "m.json").write_bytes(b'{"a": "\xff"}')
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)
    with pytest.raises(R.ReproductionError, match=r"outputs/metrics/m.json \(committed, HEAD\): not UTF-8 text"):
        R.committed_files(root=tmp_path)


def test_executed_notebooks_are_exact_on_the_recorded_kind_but_the_measured_ones(tmp_path, capsys):
    ref = _repo(tmp_path, _metrics(), _metrics())
    nbs = tmp_path / "outputs" / "notebooks"
    nbs.mkdir()
    for name in ("02_q.ipynb", "06_timed.ipynb", "explorer.html"):
        (nbs / name).write_text("committed")
    for args in (["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "nb"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)
    ref.write_text(json.dumps({**REF, "measured": ["outputs/notebooks/06_*"]}))
    (nbs / "06_timed.ipynb").write_text("other seconds")
    assert R.check(tmp_path, ref, kind=REF["machine"]) == 0  # only the measured notebook differs
    out = capsys.readouterr().out
    assert "differs, as expected: outputs/notebooks/06_timed.ipynb" in out and "reproduced byte for byte" in out
    (nbs / "explorer.html").write_text("another page")
    with pytest.raises(R.ReproductionError, match="not reproduced"):
        R.check(tmp_path, ref, kind=REF["machine"])
    assert "  differs: outputs/notebooks/explorer.html" in capsys.readouterr().out
    assert R.check(tmp_path, ref, kind={"cpu": "Other CPU", "flags": []}) == 0  # elsewhere: counted, not failed
    assert "2 of the committed executed notebooks and pages differ" in capsys.readouterr().out
    ref.write_text(json.dumps({**REF, "measured": "06"}))
    with pytest.raises(R.ReproductionError, match="measured: expected a list of file globs"):
        R.load_reference(ref)


def test_case_tolerances_name_a_case_by_its_parts(tmp_path):
    ref = tmp_path / "ref.yaml"
    ref.write_text(json.dumps(REF))
    tol = R.case_tolerances(ref)
    assert tol(("dense", "claim", "oracle")) == 2e-3 and tol(("bm25", "claim", "oracle")) == 1e-6
    assert tol("dense/global") == 2e-3


def test_the_committed_families_match_real_keys_by_file_name():
    """Tolerances are looked up as `file:dotted.key` with the file's name, not its path."""
    ref = R.load_reference()
    committed = {"outputs/metrics/query_planning.json": json.dumps({"ndcg@10": {"dense/claim": {"oracle": 0.3488}}})}
    moved = {"outputs/metrics/query_planning.json": json.dumps({"ndcg@10": {"dense/claim": {"oracle": 0.3489}}})}
    table = R.compare(committed, moved, ref)
    assert table[["key", "tolerance", "status"]].values.tolist() == [["ndcg@10.dense/claim.oracle", 2e-3, "OK"]]
    verifier = {"outputs/metrics/nli.json": json.dumps({"averitec": {"settings": {"gold": {"macro_f1": 0.52}}}})}
    retrained = {"outputs/metrics/nli.json": json.dumps({"averitec": {"settings": {"gold": {"macro_f1": 0.49}}}})}
    assert R.compare(verifier, retrained, ref)["status"].tolist() == ["trained"]


TRAINED_REF = REF | {"families": [{"match": "*top_group*", "trained": "a model trained here"}, *REF["families"]]}


def test_a_trained_familys_numbers_and_calls_are_reported_not_failed():
    table = R.compare(
        {"m.json": _metrics(), "v.json": json.dumps({"top_group": {"f1": 0.5}})},
        {"m.json": _metrics(group=["A"]), "v.json": json.dumps({"top_group": {"f1": 0.4}})},
        TRAINED_REF,
    )
    assert table.set_index("key")["status"].to_dict() == {"top_group": "changed (trained)", "top_group.f1": "trained"}
    passed, sentence = R.verdict(table)
    assert passed and sentence == (
        "2 value(s) differ from the committed ones (1 trained, 1 changed (trained)): reproduced within the "
        "tolerances of references/reproduction.yaml, except the outputs of models trained here (2, 1 of them "
        "categorical), which another CPU trains differently"
    )
    # beside them, an untrained number outside its tolerance still fails
    worse = R.compare({"m.json": _metrics()}, {"m.json": _metrics(bm25=0.41, group=["A"])}, TRAINED_REF)
    assert not R.verdict(worse)[0]


def test_a_trained_family_needs_its_reason_and_no_tolerance(tmp_path):
    bad = tmp_path / "reproduction.yaml"
    bad.write_text("machine: {cpu: x, flags: []}\ndefault: 1.0e-6\nfamilies: [{match: '*', trained: ''}]\n")
    with pytest.raises(R.ReproductionError, match=r"families\[0\].trained: expected the reason"):
        R.load_reference(bad)
    both = tmp_path / "both.yaml"
    both.write_text(
        "machine: {cpu: x, flags: []}\ndefault: 1.0e-6\nfamilies: [{match: '*', trained: why, tolerance: 1}]\n"
    )
    with pytest.raises(R.ReproductionError, match="and no tolerance"):
        R.load_reference(both)


def test_a_group_whose_tied_methods_swap_order_is_the_same_group():
    same = R.compare({"m.json": _metrics(group=["A", "B"])}, {"m.json": _metrics(group=["B", "A"])}, REF)
    assert same.empty


def test_a_borderline_call_that_firms_up_elsewhere_is_reported_but_two_firm_calls_must_agree():
    table = R.compare(
        {"m.json": _metrics(effect="borderline")}, {"m.json": _metrics(effect="indistinguishable from 0")}, REF
    )
    assert table[["key", "status"]].values.tolist() == [["effect", "borderline"]] and R.verdict(table)[0]
    firm = R.compare(
        {"m.json": _metrics(effect="positive")}, {"m.json": _metrics(effect="indistinguishable from 0")}, REF
    )
    assert firm["status"].tolist() == ["changed"] and not R.verdict(firm)[0]


def test_a_produced_file_that_is_not_utf8_is_named(tmp_path):
    """`lib.reproduction check` gave a UnicodeDecodeError traceback for a damaged metrics file."""
    (tmp_path / "outputs" / "metrics").mkdir(parents=True)
    (tmp_path / "outputs" / "metrics" / "zz.json").write_bytes(b"\xff\xfe{}")
    with pytest.raises(DataError, match=r"zz.json: record at line 1: not UTF-8 text \(invalid start byte at byte 0\)"):
        R.produced_files(["outputs/metrics/*.json"], tmp_path)


def test_families_that_are_no_list_are_named(tmp_path):
    """The thirty-first pass: `families: 5` was a TypeError traceback."""
    text = (R.ROOT / "references" / "reproduction.yaml").read_text()
    bad = tmp_path / "reproduction.yaml"
    bad.write_text(text[: text.index("\nfamilies:")] + "\nfamilies: 5\n")
    with pytest.raises(R.ReproductionError, match=r"families: expected a list of \{match, tolerance\}"):
        R.load_reference(bad)


@pytest.mark.parametrize(
    "produced, message",
    [
        ("k,a\n1,0.9\n2,0.6\n1,0.5\n", r"x\.csv \(produced\): row 4: the row key '1' is given twice"),
        ("k,a\n1,0.5,7\n2,0.6\n", r"x\.csv \(produced\): row 2 has 3 cells where the header has 2"),
        ("k,a,a\n1,0.9,0.5\n2,0.1,0.6\n", r"x\.csv \(produced\): the column 'a' is named twice"),
    ],
)
def test_a_plot_csv_with_a_repeated_key_or_a_ragged_row_is_refused(produced, message):
    """The thirty-third pass: a changed row put before the real one, an extra cell or a repeated column was read
    into one dict and compared with nothing: "every number ... equals the committed one", exit 0."""
    ref = R.load_reference()
    with pytest.raises(R.ReproductionError, match=message):
        R.compare({"x.csv": "k,a\n1,0.5\n2,0.6\n"}, {"x.csv": produced}, ref)
    assert R.compare({"x.csv": "k,a\n1,0.5\n2,0.6\n"}, {"x.csv": "k,a\n1,0.5\n2,0.6\n"}, ref).empty


def test_leaves_that_flatten_to_one_key_are_refused_and_a_blank_csv_line_is_skipped():
    """The thirty-fourth pass: `{"averitec@0": {"25": 0.1}, "averitec@0.25": 0.31}` gave two leaves of one key, the
    first never compared (0.10 -> 0.90 passed); a blank last line of a plot CSV was a row of 0 cells."""
    ref = R.load_reference()
    c = '{"averitec@0": {"25": 0.10}, "averitec@0.25": 0.31}'
    with pytest.raises(
        R.ReproductionError, match=r"^m\.json \(committed\): two values flatten to the key 'averitec@0\.25'"
    ):
        R.compare({"m.json": c}, {"m.json": c}, ref)
    with pytest.raises(R.ReproductionError, match=r"^x\.csv \(committed\): two values flatten to the key 'a\.b\.c'"):
        R.compare({"x.csv": "key,c,b.c\na.b,1,9\na,5,2\n"}, {"x.csv": "key,c,b.c\na.b,7,9\na,5,2\n"}, ref)
    assert R.compare({"x.csv": "k,a\n1,0.5\n"}, {"x.csv": "k,a\n1,0.5\n\n"}, ref).empty


def test_a_vanished_empty_object_a_changed_group_and_deep_nesting_are_seen():
    """The thirty-fifth pass: a key holding {} vanished unseen; ["x", "x", "y"] and ["x", "y"] compared as one set;
    a deeply nested file was a RecursionError traceback."""
    ref = R.load_reference()
    gone = R.compare({"m.json": '{"a": 1, "b": {}}'}, {"m.json": '{"a": 1}'}, ref)
    assert gone[["key", "status"]].values.tolist() == [["b", "missing"]]
    group = R.compare({"m.json": '{"g": ["x", "x", "y"]}'}, {"m.json": '{"g": ["y", "x"]}'}, ref)
    assert group[["key", "status"]].values.tolist() == [["g", "changed"]]
    assert R.compare({"m.json": '{"g": ["x", "y"]}'}, {"m.json": '{"g": ["y", "x"]}'}, ref).empty  # order is no result
    with pytest.raises(R.ReproductionError, match=r"^m\.json \(produced\): malformed JSON: nested deeper than Python"):
        R.compare({"m.json": "{}"}, {"m.json": "[" * 100000 + "]" * 100000}, ref)


def test_a_huge_whole_tolerance_is_refused_by_name(tmp_path):
    """The thirty-sixth pass: `default: 1000...0` (401 digits) was an OverflowError traceback."""
    path = tmp_path / "reproduction.yaml"
    path.write_text(R.REFERENCE.read_text(encoding="utf-8").replace("default: ", "default: 1" + "0" * 400 + " #", 1))
    with pytest.raises(R.ReproductionError, match=r"default: expected a tolerance >= 0"):
        R.load_reference(path)


def test_a_whole_number_beyond_a_float_is_compared_exactly():
    """The thirty-seventh pass: a metric of 10**400 was an OverflowError traceback in `compare`."""
    big = '{"a": 1' + "0" * 400 + "}"
    assert R.compare({"m.json": big}, {"m.json": big}, R.load_reference()).empty
    assert R.compare({"m.json": big}, {"m.json": big.replace("1", "2", 1)}, R.load_reference())["status"].tolist() == [
        "changed"
    ]
