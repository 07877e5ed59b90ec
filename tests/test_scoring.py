"""The AVeriTeC scorer: the organisers' check figures on dev, both input formats, edge cases, speed-ups."""

import csv
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURE_DATA

from lib.averitec import scoring as SC
from lib.data import DataError, averitec
from lib.paths import ROOT


@pytest.fixture(scope="module")
def dev(real_data):
    return json.loads((real_data / "averitec" / "dev.json").read_text())


def run_cli(capsys, predictions, references):
    SC.main(["--predictions", str(predictions), "--references", str(references), "--jobs", "2"])
    return json.loads(capsys.readouterr().out)


def test_gold_against_itself_gives_the_organisers_figures(dev, real_data, tmp_path, capsys):
    (tmp_path / "gold.json").write_text(json.dumps(dev))
    out = run_cli(capsys, tmp_path / "gold.json", real_data / "averitec" / "dev.json")
    assert round(out["q_only"], 5) == 0.99890 and round(out["qa"], 5) == 0.99900
    assert out["accuracy"] == 1.0 and out["averitec"]["0.25"] == 1.0
    assert set(out) == {"edition", "q_only", "qa", "accuracy", "macro_f1", "f1", "averitec"}
    assert out["edition"] == SC.EDITION_2024
    assert list(out["averitec"]) == ["0.1", "0.2", "0.25", "0.3", "0.4", "0.5"]


def test_always_refuted_claim_only_run_gives_the_organisers_figures(dev, real_data, tmp_path, capsys):
    trivial = [
        {"label": "Refuted", "questions": [{"question": c["claim"], "answers": [{"answer": c["claim"]}]}]} for c in dev
    ]
    (tmp_path / "trivial.json").write_text(json.dumps(trivial))
    out = run_cli(capsys, tmp_path / "trivial.json", real_data / "averitec" / "dev.json")
    assert round(out["q_only"], 4) == 0.2298 and round(out["qa"], 4) == 0.1338
    assert round(out["accuracy"], 4) == 0.61 and round(out["averitec"]["0.25"], 4) == 0.076
    assert out["f1"]["Supported"] == 0.0 and out["f1"]["Refuted"] > 0.7


def test_parallel_and_serial_scores_are_identical(dev):
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    refs = [SC.reference_evidence(c) for c in claims] * 4
    preds = [SC.Evidence("Refuted", ("What is the moon made of?",), ("What is the moon made of? Cheese.",))] * 12
    assert np.array_equal(SC.evidence_scores(preds, refs, jobs=1), SC.evidence_scores(preds, refs, jobs=2))


def test_reference_strings_follow_the_organisers_rules():
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    ref = SC.reference_evidence(claims[0])
    assert ref.questions == ("What is the moon made of?", "Did NASA say it?")
    assert SC.qa_string("Is it?", "Yes", "Boolean", "Because.") == "Is it? Yes. Because."
    assert SC.qa_string("Q?", "A") == "Q? A"
    no_answers = averitec.Claim(
        0, "dev", "c", "Refuted", None, (), (), "", None, None, None, (averitec.Question("Where?", ()),)
    )
    assert SC.reference_evidence(no_answers).strings == ("Where? No answer could be found.",)


def test_both_prediction_formats_are_read_and_aligned(tmp_path):
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    official = [
        {
            "label": "Supported",
            "questions": [
                {"question": "Q?", "answers": [{"answer": "A1"}, {"answer": "A2"}]},
                {"question": "R?", "answers": []},
            ],
        },
        {"label": "Conflicting Evidence/Cherrypicking", "string_evidence": ["s1", "s2"]},
        {"label": "Refuted", "questions": []},
    ]
    (tmp_path / "official.json").write_text(json.dumps(official))
    p = SC.load_predictions(tmp_path / "official.json", claims)
    assert p[0].strings == ("Q? A1", "Q? A2", "R? No answer could be found.") and p[0].questions == ("Q?", "R?")
    assert p[1].label == "Conflicting Evidence/Cherrypicking" and not p[1].has_questions
    assert p[2].strings == ()
    shared = [
        {
            "claim_id": i,
            "claim": c.text,
            "pred_label": "Refuted",
            "evidence": [{"question": "Q?", "answer": f"A{i}", "url": "u"}],
        }
        for i, c in reversed(list(enumerate(claims)))
    ]
    (tmp_path / "shared.jsonl").write_text("\n".join(json.dumps(r) for r in shared))
    p = SC.load_predictions(tmp_path / "shared.jsonl", claims)
    assert [x.strings for x in p] == [("Q? A0",), ("Q? A1",), ("Q? A2",)]  # aligned by claim_id


def test_empty_and_overlong_evidence(real_data):
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    ref = SC.reference_evidence(claims[0])
    meteor = SC.Meteor()
    assert SC.claim_scores(SC.Evidence("Refuted", (), ()), ref, meteor) == (0.0, 0.0)
    good = ("What is the moon made of? The moon is made of rock and dust.",)
    long = SC.Evidence("Refuted", ("x",) * 12, ("unrelated words here",) * 10 + good)  # 11th string is ignored
    assert (
        SC.claim_scores(long, ref, meteor)[1]
        == SC.claim_scores(SC.Evidence("Refuted", ("x",) * 10, ("unrelated words here",) * 10), ref, meteor)[1]
    )
    assert SC.claim_scores(SC.Evidence("Refuted", ("x",), good), ref, meteor)[1] > 0.3


def test_labels_outside_the_verdicts_and_misaligned_files_are_clear_errors(tmp_path):
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    (tmp_path / "bad.json").write_text(json.dumps([{"label": "Mostly True", "questions": []}] * 3))
    with pytest.raises(DataError, match="record 0.*label.*Mostly True"):
        SC.load_predictions(tmp_path / "bad.json", claims)
    (tmp_path / "short.json").write_text(json.dumps([{"label": "Refuted", "questions": []}]))
    with pytest.raises(DataError, match="1 predictions for 3 references"):
        SC.load_predictions(tmp_path / "short.json", claims)
    (tmp_path / "missing.jsonl").write_text(
        json.dumps({"claim_id": 0, "claim": claims[0].text, "pred_label": "Refuted", "evidence": []})
    )
    with pytest.raises(DataError, match="no prediction for 2 reference claims"):
        SC.load_predictions(tmp_path / "missing.jsonl", claims)


def test_summary_by_hand():
    import pandas as pd

    table = pd.DataFrame(
        {
            "q_only": [0.5, 0.1],
            "qa": [0.3, 0.2],
            "label": ["Refuted", "Supported"],
            "pred_label": ["Refuted", "Refuted"],
            "correct": [True, False],
            "claim_types": [("Numerical Claim",), ("Numerical Claim", "Causal Claim")],
        }
    )
    s = SC.summarise(table)
    assert s["accuracy"] == 0.5 and s["averitec"] == {
        "0.1": 0.5,
        "0.2": 0.5,
        "0.25": 0.5,
        "0.3": 0.0,
        "0.4": 0.0,
        "0.5": 0.0,
    }
    assert s["f1"]["Refuted"] == pytest.approx(2 / 3) and s["macro_f1"] == pytest.approx(
        (2 / 3) / 2
    )  # Supported 0; 2 verdicts in play
    assert s["type_averitec@0.25"] == {"Causal Claim": 0.0, "Numerical Claim": 0.5}
    assert s["type_qa@0.2"] == {"Causal Claim": 0.0, "Numerical Claim": pytest.approx(0.15)}


# ---------------------------------------------------------------- bad input (issue 14, part 1)

FIXTURE_DEV = FIXTURE_DATA / "averitec" / "dev.json"


@pytest.fixture(scope="module")
def fixture_claims():
    return averitec.load_averitec("dev", FIXTURE_DEV)


def shared(claims, **overrides):
    """2024-format records for the fixture claims, each with one QA pair."""
    return [
        {
            "claim_id": c.claim_id,
            "claim": c.text,
            "pred_label": "Refuted",
            "evidence": [{"question": "Q?", "answer": f"A{c.claim_id}", "url": "u"}],
            **overrides,
        }
        for c in claims
    ]


def write_json(tmp_path, records, name="pred.json"):
    path = tmp_path / name
    path.write_text(json.dumps(records))
    return path


def test_official_records_with_claim_id_are_aligned_by_id(fixture_claims, tmp_path):
    gold = json.loads(FIXTURE_DEV.read_text())
    with_ids = [{"claim_id": i, **r} for i, r in enumerate(gold)]
    in_order = SC.read_predictions(write_json(tmp_path, with_ids, "a.json"), fixture_claims)
    reverse = SC.read_predictions(write_json(tmp_path, with_ids[::-1], "b.json"), fixture_claims)
    assert reverse.evidence == in_order.evidence and reverse.describe() == "official, 3 records aligned by claim_id"
    summary, _ = SC.score_file(tmp_path / "b.json", FIXTURE_DEV)
    assert summary["accuracy"] == 1.0 and summary["qa"] > 0.99
    # without ids the claim texts still catch a re-ordered file
    with pytest.raises(DataError, match=r"record 0: field 'claim': differs from reference claim 0"):
        SC.read_predictions(write_json(tmp_path, gold[::-1], "c.json"), fixture_claims)


@pytest.mark.parametrize(
    "records, expected",
    [
        ([{"foo": 1}] * 3, r"record 0: keys \['foo'\] match no prediction format"),
        (
            [{"predicted_label": "Refuted", "qa_pairs": []}] * 3,
            r"record 0: keys \['predicted_label', 'qa_pairs'\] match no",
        ),
        (
            [{"label": "Refuted", "question": [{"question": "Q?"}]}] * 3,
            r"record 0: field 'question': unknown key in the official",
        ),
        (
            [{"label": "Refuted", "questions": []}, {"foo": 1}, {"label": "Refuted", "questions": []}],
            r"record 1: keys \['foo'\]",
        ),
        (
            [
                {"label": "Refuted", "questions": []},
                {"claim_id": 1, "pred_label": "Refuted", "evidence": []},
                {"label": "Refuted", "questions": []},
            ],
            r"record 1: a 2024-format record in a official-format file",
        ),
        ([{"label": "Refuted"}] * 3, r"record 0: field 'questions': missing"),
        ([{"questions": []}] * 3, r"record 0: field 'label': missing verdict"),
        ([{"label": None, "questions": []}] * 3, r"record 0: field 'label': missing verdict"),
        (
            [{"label": "Refuted", "questions": [{"question": 42}]}] * 3,
            r"record 0: field 'questions\[0\].question': expected a string, got int",
        ),
        (
            [{"label": "Refuted", "questions": [{"question": "Q?", "answers": [{"answer": 7}]}]}] * 3,
            r"field 'questions\[0\].answers\[0\].answer': expected a string",
        ),
        (
            [{"label": "Refuted", "questions": [{"question": "Q?", "answers": [{"answr": "x"}]}]}] * 3,
            r"field 'questions\[0\].answers\[0\].answr': unknown key",
        ),
        (
            [{"label": "Refuted", "questions": "Q?"}] * 3,
            r"field 'questions': expected a list \(or no `questions` key\), got 'Q\?'",
        ),
        (
            [{"claim_id": True, "label": "Refuted", "questions": []}] * 3,
            r"record 0: field 'claim_id': expected a claim index",
        ),
        (
            [{"label": "Refuted", "questions": ["Q?"]}] * 3,
            r"record 0: field 'questions\[0\]': expected a question object",
        ),
        (
            [{"label": "Refuted", "questions": [{"question": "Q?", "bogus": 1}]}] * 3,
            r"record 0: field 'questions\[0\].bogus': unknown key in the official format",
        ),
        (
            [{"label": "Refuted", "questions": [{"question": "Q?", "answers": ["a"]}]}] * 3,
            r"record 0: field 'questions\[0\].answers\[0\]': expected an answer object",
        ),
        (
            [
                {
                    "label": "Refuted",
                    "questions": [{"question": "Q?", "answers": [{"answer": "Yes", "boolean_explanation": 5}]}],
                }
            ]
            * 3,
            r"record 0: field 'questions\[0\].answers\[0\].boolean_explanation': expected a string, got int",
        ),
        (
            [{"label": "Refuted", "string_evidence": "x"}] * 3,
            r"record 0: field 'string_evidence': expected a list of strings",
        ),
        (
            [{"label": "Refuted", "string_evidence": ["ok", 3]}] * 3,
            r"record 0: field 'string_evidence\[1\]': expected a string, got int",
        ),
        (  # JSON's escape of a lone surrogate: no UTF-8 writer (`--to-csv`) takes it
            [{"label": "Refuted", "string_evidence": ["ok", "a\ud800"]}] * 3,
            r"record 0: field 'string_evidence\[1\]': a lone surrogate \(U\+D800\)",
        ),
        (
            [
                {"claim_id": 0, "label": "Refuted", "questions": []},
                {"label": "Refuted", "questions": []},
                {"claim_id": 2, "label": "Refuted", "questions": []},
            ],
            r"record 1: field 'claim_id': missing, while other records",
        ),
    ],
)
def test_bad_official_records_are_named_errors(fixture_claims, tmp_path, records, expected):
    path = write_json(tmp_path, records)
    with pytest.raises(DataError, match=expected) as err:
        SC.read_predictions(path, fixture_claims)
    assert str(err.value).startswith(f"{path}: record ")  # the file first, then the record


def mutate(records, index, **changes):
    out = [dict(r) for r in records]
    out[index].update(changes)
    return [{k: v for k, v in r.items() if v is not DROP} for r in out]


DROP = object()


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda r: r + [dict(r[0])], r"record 3: field 'claim_id': duplicate: claim 0 already predicted by record 0"),
        (lambda r: mutate(r, 1, claim_id=7), r"record 1: field 'claim_id': 7 is not a reference claim"),
        (lambda r: r[:2], r"no prediction for 1 reference claims \(first: \[2\]\)"),
        (lambda r: mutate(r, 2, pred_label=DROP), r"record 2: field 'pred_label': missing verdict"),
        (lambda r: mutate(r, 2, pred_label=None), r"record 2: field 'pred_label': missing verdict"),
        (
            lambda r: mutate(r, 0, pred_label="Mostly True"),
            r"record 0: field 'pred_label': 'Mostly True' is not one of",
        ),
        (lambda r: mutate(r, 1, evidence=[{"answer": "a", "url": "u"}]), r"record 1: field 'evidence\[0\].question'"),
        (
            lambda r: mutate(r, 1, evidence=[{"question": 42, "answer": "a", "url": "u"}]),
            r"record 1: field 'evidence\[0\].question': expected a string, got int",
        ),
        (lambda r: mutate(r, 1, evidence="Q? A"), r"record 1: field 'evidence': expected a list"),
        (lambda r: mutate(r, 1, evidence=["Q? A"]), r"record 1: field 'evidence\[0\]': expected an object"),
        (
            lambda r: mutate(r, 1, evidence=[{"question": "Q?", "answer": 7, "url": "u"}]),
            r"record 1: field 'evidence\[0\].answer': expected a string, got int",
        ),
        (
            lambda r: mutate(r, 1, evidence=[{"question": " ", "answer": "a", "url": "u"}]),
            r"record 1: field 'evidence\[0\].question': empty string",
        ),
        (
            lambda r: mutate(r, 1, evidence=[{"question": "\u200b", "answer": "a", "url": "u"}]),
            r"record 1: field 'evidence\[0\].question': empty string",  # a zero-width space alone
        ),
        (
            lambda r: mutate(r, 1, evidence=[{"question": "Q?", "answer": "a", "url": float("nan")}]),
            r"record 1: field 'evidence\[0\].url': expected a string or a list of strings, got nan",
        ),
        (
            lambda r: mutate(r, 0, claim="A claim about something else entirely"),
            r"record 0: field 'claim': differs from",
        ),
        (lambda r: mutate(r, 0, claim_id=DROP), r"record 0: field 'claim_id': missing: the 2024 format aligns"),
        (lambda r: mutate(r, 0, label="Refuted"), r"record 0: field 'label': unknown key in the 2024 format"),
    ],
)
def test_bad_2024_records_are_named_errors(fixture_claims, tmp_path, change, expected):
    path = write_json(tmp_path, change(shared(fixture_claims)))
    with pytest.raises(DataError, match=expected) as err:
        SC.read_predictions(path, fixture_claims)
    assert str(err.value).startswith(f"{path}: ")  # the file first, then the record (if one is to blame)


def test_the_2025_csv_is_a_third_format(fixture_claims, tmp_path):
    import csv

    path = tmp_path / "submission.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "claim", "evi", "label"])
        for c in reversed(fixture_claims):
            w.writerow([c.claim_id, c.text, f"Q{c.claim_id}?\t\t\nA{c.claim_id}\t\t\n\nR?\t\t\nB\t\t\n\n", "Supported"])
    p = SC.read_predictions(path, fixture_claims)
    assert p.describe() == "2025 csv, 3 records aligned by claim_id"
    assert [e.strings for e in p.evidence] == [(f"Q{i}? A{i}", "R? B") for i in range(3)]
    assert [e.questions for e in p.evidence] == [(f"Q{i}?", "R?") for i in range(3)]
    bad = path.read_text().replace("id,claim,evi,label", "id,claim,evi,label,extra")
    (tmp_path / "extra.csv").write_text(bad.replace("Supported\n", "Supported,x\n"))
    with pytest.raises(DataError, match=r"record header: field 'extra': unknown column"):
        SC.read_predictions(tmp_path / "extra.csv", fixture_claims)
    (tmp_path / "nolabel.csv").write_text(path.read_text().replace("Supported", "", 1))
    with pytest.raises(DataError, match=r"record 0: field 'label': unknown averitec label ''"):
        SC.read_predictions(tmp_path / "nolabel.csv", fixture_claims)
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(DataError, match="neither JSON nor the 2025 CSV"):
        SC.read_predictions(tmp_path / "other.csv", fixture_claims)


def test_the_2025_leaderboard_files_read(real_data):
    claims = averitec.load_averitec("dev", real_data / "averitec" / "dev.json")
    p = SC.read_predictions(real_data / "averitec" / "leaderboard" / "solution_dev.csv", claims)
    assert p.describe() == "2025 csv, 500 records aligned by claim_id"
    assert [e.label for e in p.evidence] == [c.label for c in claims]


@pytest.mark.parametrize(
    "target, expected",
    [("missing.json", "no such file"), (".", "a folder: expected a prediction file"), ("empty.json", "empty file")],
)
def test_missing_files_and_directories_are_errors(fixture_claims, tmp_path, target, expected):
    (tmp_path / "empty.json").write_text("  \n")
    with pytest.raises(DataError, match=expected):
        SC.read_predictions(tmp_path / target, fixture_claims)


def test_cli_exits_1_with_the_error_and_prints_the_format(fixture_claims, tmp_path, capsys):
    import subprocess
    import sys

    good = write_json(tmp_path, shared(fixture_claims), "good.json")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lib.averitec.scoring",
            "--jobs",
            "1",
            "--references",
            str(FIXTURE_DEV),
            "--predictions",
            str(good),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0 and "good.json: 2024, 3 records aligned by claim_id" in proc.stderr
    assert json.loads(proc.stdout)["accuracy"] == pytest.approx(1 / 3)
    for args, expected in [
        (["--predictions", str(tmp_path / "nope.json"), "--references", str(FIXTURE_DEV)], "nope.json: no such file"),
        (["--predictions", str(tmp_path), "--references", str(FIXTURE_DEV)], "a folder: expected a prediction file"),
        (["--predictions", str(good), "--references", str(tmp_path / "r.json")], "r.json: no such file"),
    ]:
        with pytest.raises(SystemExit) as err:  # sys.exit(message): exit status 1, the message on stderr
            SC.main(["--jobs", "1", *args])
        assert isinstance(err.value.code, str) and err.value.code.startswith("error: ") and expected in err.value.code


def test_lenient_scores_what_it_can_and_says_what_it_skipped(fixture_claims, tmp_path, capsys):
    records = shared(fixture_claims)
    records[1]["pred_label"] = None
    records.append(dict(records[0]))
    path = write_json(tmp_path, records)
    with pytest.raises(DataError):
        SC.score_file(path, FIXTURE_DEV)
    import io

    log = io.StringIO()
    summary, table = SC.score_file(path, FIXTURE_DEV, lenient=True, log=log)
    text = log.getvalue()
    assert "2024, 4 records aligned by claim_id" in text
    assert "skipped:" in text and "record 1: field 'pred_label': missing verdict" in text
    assert "record 3: field 'claim_id': duplicate" in text and "no prediction for 1 reference claims" in text
    assert table["pred_label"].isna().tolist() == [False, True, False] and table.loc[1, "qa"] == 0.0
    assert table["correct"].tolist() == [True, False, False]
    assert summary["claims"] == 3  # the skipped claim stays in the denominator


# ---------------------------------------------------------------- found by a hostile-input pass


def write_csv(path, rows, header=("id", "claim", "evi", "label"), newline="\n"):
    import csv

    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator=newline)
        w.writerow(header)
        w.writerows(rows)
    return path


def csv_rows(claims, evi=lambda c: f"Q{c.claim_id}?\t\t\nA{c.claim_id}\t\t\n\n"):
    return [[c.claim_id, c.text, evi(c), c.label] for c in claims]


def test_csv_evidence_with_windows_line_ends_reads_as_with_unix_ones(fixture_claims, tmp_path):
    unix = SC.read_predictions(write_csv(tmp_path / "u.csv", csv_rows(fixture_claims)), fixture_claims)
    crlf = csv_rows(fixture_claims, lambda c: f"Q{c.claim_id}?\t\t\r\nA{c.claim_id}\t\t\r\n\r\n")
    windows = SC.read_predictions(write_csv(tmp_path / "w.csv", crlf, newline="\r\n"), fixture_claims)
    assert windows.evidence == unix.evidence and unix.evidence[0].strings == ("Q0? A0",)


@pytest.mark.parametrize(
    "header, rows, expected",
    [
        (
            ("id", "claim", "evi", "label", "label"),
            lambda cs: [r + ["Supported"] for r in csv_rows(cs)],
            "record header: field 'label': column named twice",
        ),
        (
            ("id", "claim", "evi", "label"),
            lambda cs: [[c.claim_id, c.text, "Q?\tA\t\n\n", c.label] for c in cs],
            "record 0: field 'evi': pair 0: expected",
        ),
        (
            ("id", "claim", "evi", "label"),
            lambda cs: [["²", cs[0].text, "", "Refuted"]],
            "record 0: field 'id': not an integer",
        ),
    ],
)
def test_bad_csv_predictions_are_named_errors(fixture_claims, tmp_path, header, rows, expected):
    with pytest.raises(DataError, match=re.escape(expected)):
        SC.read_predictions(write_csv(tmp_path / "p.csv", rows(fixture_claims), header), fixture_claims)


def test_csv_header_only_quoted_header_and_bom(fixture_claims, tmp_path):
    with pytest.raises(DataError, match=r"no prediction for 3 reference claims"):
        SC.read_predictions(write_csv(tmp_path / "h.csv", []), fixture_claims)
    quoted = tmp_path / "q.csv"
    text = write_csv(tmp_path / "plain.csv", csv_rows(fixture_claims)).read_text()
    quoted.write_text(text.replace("id,claim,evi,label", '"id","claim","evi","label"', 1))
    assert SC.read_predictions(quoted, fixture_claims).describe() == "2025 csv, 3 records aligned by claim_id"
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert SC.read_predictions(bom, fixture_claims).evidence[2].strings == ("Q2? A2",)


def test_lenient_position_alignment_keeps_each_record_on_its_claim(fixture_claims, tmp_path):
    gold = [{k: v for k, v in r.items() if k != "claim"} for r in json.loads(FIXTURE_DEV.read_text())]
    gold[0]["label"] = "Bogus"
    p = SC.read_predictions(write_json(tmp_path, gold), fixture_claims, lenient=True)
    assert p.evidence[0].label is None and [e.label for e in p.evidence[1:]] == [c.label for c in fixture_claims[1:]]
    assert p.describe() == "official, 3 records aligned by position" and "record 0: field 'label'" in p.skipped[0]


@pytest.mark.parametrize(
    "records, expected",
    [
        ('[{"label": "Supported", "label": "Refuted", "questions": []}]', "an object names the key 'label' twice"),
        ([{"claim_id": "²", "label": "Refuted", "questions": []}], "field 'claim_id': expected a claim index"),
        ([{"label": "Refuted", "string_evidence": 0}], "field 'string_evidence': expected a list of strings"),
        ([{"label": "Refuted", "questions": None}], "field 'questions': expected a list"),
        (
            [{"label": "Refuted", "questions": [{"question": "Q?", "answers": {"answer": "A"}}]}],
            r"field 'questions[0].answers': expected a list of answers",
        ),
        (  # was scored as a question without an answer
            [{"label": "Refuted", "questions": [{"question": "Q?"}]}],
            r"field 'questions[0].answers': missing: every question needs its list of answers",
        ),
        (
            [{"label": "Refuted", "questions": [{"question": "Q?", "answers": [{"answer": "A", "source_url": 5}]}]}],
            r"field 'questions[0].answers[0].source_url': expected a string, got int",
        ),
    ],
)
def test_more_bad_official_records(fixture_claims, tmp_path, records, expected):
    path = tmp_path / "p.json"
    path.write_text(records if isinstance(records, str) else json.dumps(records * 3))
    with pytest.raises(DataError, match=re.escape(expected)):
        SC.read_predictions(path, fixture_claims)


def test_utf16_predictions_and_empty_references_are_named(fixture_claims, tmp_path):
    path = tmp_path / "p.json"
    path.write_bytes(json.dumps(shared(fixture_claims)).encode("utf-16"))
    with pytest.raises(DataError, match=r"record at line 1: not UTF-8 text \(invalid start byte at byte 0\)"):
        SC.read_predictions(path, fixture_claims)
    (tmp_path / "refs.json").write_text("[]")
    with pytest.raises(DataError, match="no reference claims"):
        SC.score_file(write_json(tmp_path, shared(fixture_claims)), tmp_path / "refs.json", lenient=True)


def test_the_gold_2025_csv_scores_as_the_gold_json(real_data, capsys):
    """The FEVER-8 gold solution (answers with blank lines inside) gives the organisers' gold Q+A figure.
    (Its Q-only differs: the CSV repeats a question for each of its answers.)"""
    out = run_cli(
        capsys, real_data / "averitec" / "leaderboard" / "solution_dev.csv", real_data / "averitec" / "dev.json"
    )
    assert round(out["qa"], 5) == 0.99900 and out["accuracy"] == 1.0


# ---------------------------------------------------------------- the 2025 edition (FEVER-8)

# The organisers' FEVER-8 evaluation (evaluation/run_evaluation.py of the FEVER-8 shared-task repository,
# AVeriTeCEvaluator and compute(): Q only, Q + A, "old AVeriTeC Score" at 0.25) run on
# data/averitec/leaderboard/{submission_dev_baseline,solution_dev}.csv on 2026-11-23, outside this
# repository: full precision of its means, before its rounding to 4 places.
ORGANISERS_2025_DEV_BASELINE = {"q_only": 0.5429497485895731, "qa": 0.3636449493309365, "averitec@0.25": 0.556}


def test_2025_dev_baseline_scores_as_the_organisers_script(real_data, capsys):
    board = real_data / "averitec" / "leaderboard"
    out = run_cli(capsys, board / "submission_dev_baseline.csv", board / "solution_dev.csv")
    assert out["edition"] == SC.EDITION_2025 and list(out["averitec"]) == ["0.25"]
    assert out["q_only"] == pytest.approx(ORGANISERS_2025_DEV_BASELINE["q_only"], abs=5e-4)
    assert out["qa"] == pytest.approx(ORGANISERS_2025_DEV_BASELINE["qa"], abs=5e-4)
    assert out["averitec"]["0.25"] == pytest.approx(ORGANISERS_2025_DEV_BASELINE["averitec@0.25"], abs=5e-4)


def test_dev_gold_converts_to_the_organisers_solution_byte_for_byte(real_data, tmp_path):
    SC.main(
        [
            "--predictions",
            str(real_data / "averitec" / "dev.json"),
            "--to-csv",
            str(tmp_path / "s.csv"),
            "--split",
            "gold",
        ]
    )
    assert (tmp_path / "s.csv").read_bytes() == (
        real_data / "averitec" / "leaderboard" / "solution_dev.csv"
    ).read_bytes()


@pytest.mark.parametrize("args", [["--split", "gold"], ["--to-csv", "x.csv", "--split", "golden"]])
def test_a_split_is_one_the_csv_can_have_and_only_with_to_csv(tmp_path, capsys, args):
    """`--split gold` without `--to-csv` was ignored (the scorer scored), and `--split golden` was written."""
    with pytest.raises(SystemExit) as end:
        SC.main(["--predictions", str(tmp_path / "p.json"), *args])
    err = capsys.readouterr().err
    assert end.value.code == 2 and err.startswith("error: argument --split: ") and not (tmp_path / "x.csv").exists()


def leaderboard(path, rows, split=None):
    """rows: (id, claim, [(q, a), ...], label)."""
    header = ("id", "claim", "evi", "label", "split") if split else ("id", "claim", "evi", "label")
    return write_csv(
        path, [[i, c, SC.leaderboard_evi(p), lb, *([split] if split else [])] for i, c, p, lb in rows], header
    )


def score_2025(tmp_path, pred_rows, gold_rows, gold_split="gold"):
    sol = leaderboard(tmp_path / "sol.csv", gold_rows, gold_split)
    sub = leaderboard(tmp_path / "sub.csv", pred_rows)
    return SC.score_file_2025(sub, sol)


def test_2025_q_only_counts_a_gold_question_with_two_answers_once(tmp_path):
    gold = [(0, "c", [("Who said it?", "Ann"), ("Who said it?", "Bob")], "Supported")]
    summary, table = score_2025(tmp_path, [(0, "c", [("Who said it?", "Ann")], "Supported")], gold)
    assert table.loc[0, "q_only"] == pytest.approx(SC.Meteor().score("Who said it?", "Who said it?"))  # 1 of 1
    ref_2024 = SC.Evidence("Supported", ("Who said it?", "Who said it?"), (), True)  # 2024: both count
    assert SC.claim_scores(SC.Evidence("Supported", ("Who said it?",), (), True), ref_2024, SC.Meteor())[
        0
    ] == pytest.approx(table.loc[0, "q_only"] / 2)


def test_2025_drops_a_gold_question_without_answers_which_2024_scores_as_no_answer(fixture_claims, tmp_path):
    claim = fixture_claims[0]
    from dataclasses import replace

    no_answer = replace(claim, questions=(averitec.Question("Was it said?", ()),))
    ref = SC.reference_evidence(no_answer)
    assert ref.strings == ("Was it said? No answer could be found.",) and ref.questions == ("Was it said?",)
    SC.write_leaderboard(tmp_path / "s.csv", [no_answer], [ref], "gold")
    assert averitec.load_leaderboard(tmp_path / "s.csv")[0].qa_pairs == ()  # no block: nothing to score


def test_2025_scores_only_the_gold_split_and_reports_one_level(tmp_path):
    sol = write_csv(
        tmp_path / "sol.csv",
        [
            [0, "a", SC.leaderboard_evi([("q a?", "x")]), "Refuted", "gold"],
            [1, "b", SC.leaderboard_evi([("q b?", "y")]), "Refuted", "private"],
        ],
        ("id", "claim", "evi", "label", "split"),
    )
    sub = leaderboard(tmp_path / "sub.csv", [(0, "a", [("q a?", "x")], "Refuted"), (1, "b", [], "Supported")])
    summary, table = SC.score_file_2025(sub, sol)
    assert table["claim_id"].tolist() == [0] and summary["accuracy"] == 1.0 and list(summary["averitec"]) == ["0.25"]


def test_2025_pairs_rows_by_id_and_names_a_missing_or_foreign_row(tmp_path):
    gold = [(i, f"claim {i}", [(f"question {i}?", f"answer {i}")], "Refuted") for i in range(3)]
    in_order = score_2025(tmp_path, gold, gold)[1]
    shuffled = score_2025(tmp_path, [gold[2], gold[0], gold[1]], gold)[1]
    assert shuffled[["q_only", "qa"]].equals(in_order[["q_only", "qa"]]) and in_order["qa"].gt(0.9).all()
    with pytest.raises(DataError, match=r"sub.csv.*field 'id': no row for 1 solution ids \(first: \[1\]\)"):
        score_2025(tmp_path, [gold[0], gold[2]], gold)  # the organisers' script would pair claim 2 with gold 1
    with pytest.raises(DataError, match=r"with id 1: field 'claim': differs from the solution's claim"):
        score_2025(tmp_path, [gold[0], (1, "another claim", [], "Refuted"), gold[2]], gold)
    sol = leaderboard(tmp_path / "sol.csv", gold, "gold")
    (tmp_path / "run.json").write_text(json.dumps([{"label": "Refuted", "questions": []}]))
    with pytest.raises(DataError, match=r"predictions must be a 2025 submission CSV"):
        SC.score_file_2025(tmp_path / "run.json", sol)


def test_every_2025_difference_is_written_down():
    assert len(SC.DIFFERENCES_2025) == 6 and SC.LEVELS_2025 == (0.25,)
    assert SC.edition(FIXTURE_DEV) == SC.EDITION_2024


def test_the_edition_change_sentence_on_both_sides():
    import pandas as pd

    same = SC.edition_change_sentence(pd.Series([0.0, 2e-5]), pd.Series([-1e-5, 0.0]))
    assert same.startswith("the two editions' scores differ by less than 0.00005 for every one of the 2 runs")
    moved = SC.edition_change_sentence(pd.Series([0.0, -0.01, 0.001]), pd.Series([0.002, 0.0, 0.0001]))
    assert (
        moved
        == "the format change moves Q-only by at most 0.0100 and Q+A by at most 0.0020 over the 3 runs; 1 move by more than 0.005."
    )
    # no runs: "moves Q-only by at most nan ... over the 0 runs" (the thirty-second pass)
    assert SC.edition_change_sentence(pd.Series([], dtype=float), pd.Series([], dtype=float)) == (
        "the two editions have no run to compare."
    )


def test_the_check_figures_sentence_says_reproduced_only_when_all_agree():
    from lib.averitec.scoring import check_figures_sentence

    assert (
        check_figures_sentence(6, 6)
        == "The scorer reproduces the organisers' check figures: all 6 agree to 4 decimals."
    )
    assert check_figures_sentence(5, 6).startswith(
        "The scorer does not reproduce the organisers' check figures here: 5 of 6"
    )
    assert check_figures_sentence(0, 0) == "No check figure applies to these runs: the organisers scored none of them."
    for agree, total in ((5, 3), (-1, 3), (1.5, 3), (True, 3), (1, -1)):  # "5 of 3 agree" was printed
        with pytest.raises(ValueError, match=r"check figures: .* agree; expected whole numbers, 0 <= agree <= total"):
            check_figures_sentence(agree, total)


def test_the_edition_sentence_prints_any_tolerance_whole():
    """The thirty-eighth pass: `format(tol, "f").rstrip("0")` printed 1e-7 as "0." and 1 as "1."."""
    import pandas as pd

    for tol, text in ((5e-5, "0.00005"), (1e-7, "0.0000001"), (1, "1"), (0.5, "0.5")):
        assert SC.edition_change_sentence(pd.Series([0.0]), pd.Series([0.0]), tol=tol).startswith(
            f"the two editions' scores differ by less than {text} for every one of the 1 runs"
        )


def test_a_move_equal_to_the_threshold_but_for_noise_is_not_counted_over_it():
    """The thirty-ninth pass: 0.255 - 0.25 printed "at most 0.0050" beside "1 move by more than 0.005"."""
    import pandas as pd

    text = SC.edition_change_sentence(pd.Series([0.255 - 0.25, 0.0]), pd.Series([0.001, 0.0]))
    assert text.endswith(
        "moves Q-only by at most 0.0050 and Q+A by at most 0.0010 over the 2 runs; 0 move by more than 0.005."
    )
    assert SC.moved(pd.Series([0.0051, -0.006, 0.0]), pd.Series([0.0, 0.0, 0.005])) == 2


def test_a_figure_agrees_to_4_decimals_within_half_a_unit():
    """Notebook 05 rounded both sides with Series.round(4): 0.12345 (stored as 0.1234499...) became 0.1234
    beside a published 0.1235, and 0.123449 and 0.12345 were "apart" though 1e-6 from each other."""
    import pandas as pd

    assert SC.agrees_to_4_decimals(0.1235, 0.12345) is True
    assert SC.agrees_to_4_decimals(0.1234, 0.12345) is True  # the bound agrees on both sides
    assert SC.agrees_to_4_decimals(0.1234, 0.123449) is True
    assert SC.agrees_to_4_decimals(0.1234, 0.123451) is False
    assert SC.agrees_to_4_decimals(0.61, 0.60994) is False
    assert SC.agrees_to_4_decimals(0.61, float("nan")) is False
    both = SC.agrees_to_4_decimals(pd.Series([0.1, 0.2]), pd.Series([0.10004, 0.20006]))
    assert both.tolist() == [True, False]


# ---------------------------------------------------------------- edges the tests above leave open (mutation)


def test_sentences_in_full_and_at_their_edges():
    import pandas as pd

    same = SC.edition_change_sentence(pd.Series([0.0]), pd.Series([0.0]))
    assert same == (
        "the two editions' scores differ by less than 0.00005 for every one of the 1 runs: on these references the "
        "2025 path's differences (each distinct gold question once in Q-only, gold questions without answers not "
        "scored) change nothing; they matter for reference files where they apply."
    )
    for q_only, qa in (([float("nan"), 0.0], [0.0, 0.0]), ([0.0, 0.0], [0.0, float("nan")])):  # NaN "agreed"
        assert SC.edition_change_sentence(pd.Series(q_only), pd.Series(qa)) == (
            "the two editions cannot be compared on 1 of the 2 runs (a score missing in one)."
        )
    both = SC.edition_change_sentence(pd.Series([float("nan")] * 3), pd.Series([float("nan"), 0.0, float("nan")]))
    assert both == "the two editions cannot be compared on 3 of the 3 runs (a score missing in one)."
    at_tol = SC.edition_change_sentence(pd.Series([5e-5]), pd.Series([0.0]))  # a change of exactly tol moves
    assert at_tol.startswith("the format change moves Q-only by at most 0.0001")
    # a move of exactly 0.005 is not "more than 0.005", on either count; one above it on Q+A is
    edge = SC.edition_change_sentence(pd.Series([0.005, 0.0, 0.0]), pd.Series([0.0, 0.005, 0.0051]))
    assert edge.endswith("over the 3 runs; 1 move by more than 0.005.")
    # the twenty-ninth pass: "at most 0.0050 ... 1 move by more than 0.005" for 0.00504
    side = SC.edition_change_sentence(pd.Series([0.00504, 0.0]), pd.Series([0.00003, 0.0]))
    assert (
        side
        == "the format change moves Q-only by at most 0.00504 and Q+A by at most 0.00003 over the 2 runs; 1 move by more than 0.005."
    )
    assert "at most 0.0050 " in SC.edition_change_sentence(pd.Series([0.005]), pd.Series([0.0]))
    # each figure shows its side of 0 and of 0.005, Q-only as Q+A
    swapped = SC.edition_change_sentence(pd.Series([0.00003, 0.0]), pd.Series([0.00504, 0.0]))
    assert "Q-only by at most 0.00003 and Q+A by at most 0.00504 over the 2 runs; 1 move" in swapped
    assert SC.check_figures_sentence(5, 6) == (
        "The scorer does not reproduce the organisers' check figures here: 5 of 6 agree to 4 decimals (they "
        "score the whole dev split; a run on fewer claims differs)."
    )


def test_string_evidence_is_compared_as_questions_and_written_with_empty_answers():
    meteor = SC.Meteor()
    ref = SC.Evidence("Refuted", ("Did it rain in Paris?",), ("Did it rain in Paris? No",), True, (), ())
    as_strings = SC.Evidence("Refuted", (), ("Did it rain in Paris?", "Sun."), False)
    as_questions = SC.Evidence("Refuted", ("Did it rain in Paris?", "Sun."), ("Did it rain in Paris?", "Sun."))
    q_only, _ = SC.claim_scores(as_strings, ref, meteor)
    assert q_only > 0.9 and q_only == SC.claim_scores(as_questions, ref, meteor)[0]
    assert SC.leaderboard_pairs(as_strings) == (("Did it rain in Paris?", ""), ("Sun.", ""))


def test_hungarian_of_nothing_is_zero():
    assert SC.hungarian(np.zeros((0, 3)), 3) == 0.0 and SC.hungarian(np.zeros((2, 0)), 0) == 0.0
    assert SC.hungarian(np.array([[0.2, 0.9], [0.8, 0.1]]), 2) == pytest.approx(0.85)  # 0.9 + 0.8, not 0.2 + 0.1


def test_write_leaderboard_makes_folders_refuses_misaligned_input_and_writes_no_label_as_empty(
    fixture_claims, tmp_path
):
    ev = SC.Evidence(None, ("Q?",), ("Q? a",), True, (), (("Q?", "a"),))
    path = SC.write_leaderboard(tmp_path / "a" / "b" / "s.csv", fixture_claims[:1], [ev], "pred")
    import csv

    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    c = fixture_claims[0]
    assert rows[1:] == [[str(c.claim_id), c.text, "Q?\t\t\na\t\t\n\n", "", "pred"]]  # no label: an empty field
    with pytest.raises(ValueError):
        SC.write_leaderboard(tmp_path / "x.csv", fixture_claims[:2], [ev], "pred")


def test_evidence_the_2025_csv_cannot_hold_is_refused_before_writing(fixture_claims, tmp_path, capsys):
    """An answer holding `\t\t\n\n` was written as is and read back as two pairs: the CSV scored Q-only
    0.999 where its JSON scored 0.832, with exit 0. An empty evidence string vanished the same way."""
    assert SC.faithful_evi([("Q?", "a"), ("R?", "")]) == "Q?\t\t\na\t\t\n\nR?\t\t\n\t\t\n\n"
    for pairs in ([("Q?", "a\t\t\n\nR?\t\t\nb")], [("Q?", "a\t\t\nb")], [("", "")], [(" ", "a")]):
        assert SC.faithful_evi(pairs) is None, pairs
    records = shared(fixture_claims)
    records[1]["evidence"] = [{"question": "Q?", "answer": "first\t\t\n\nWhat else?\t\t\nsecond", "url": "u"}]
    preds, out = write_json(tmp_path, records), tmp_path / "out.csv"
    with pytest.raises(SystemExit) as stop:
        SC.main(["--predictions", str(preds), "--references", str(FIXTURE_DEV), "--to-csv", str(out)])
    assert str(stop.value) == (
        f"error: {preds}: record of claim {fixture_claims[1].claim_id}: field 'evidence': a question or answer that "
        "the 2025 CSV cannot hold (it holds the format's separator, a TAB TAB NEWLINE, or is empty): written, it "
        "would be read back as other pairs"
    )
    assert not out.exists()


def test_white_space_past_the_first_read_is_no_empty_file(fixture_claims, tmp_path):
    """4 KB of spaces (or blank lines) before the records: "empty file: no predictions", where JSON reads
    three records."""
    records = shared(fixture_claims)
    as_list = SC.read_predictions(write_json(tmp_path, records), fixture_claims)
    for name, text in [
        ("spaces.json", "\ufeff" + " " * 5000 + json.dumps(records)),
        ("lines.jsonl", "\n" * 70_000 + "".join(json.dumps(r) + "\n" for r in records)),
    ]:
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert SC.read_predictions(tmp_path / name, fixture_claims).evidence == as_list.evidence, name
    (tmp_path / "blank.json").write_text(" \n" * 40_000)
    with pytest.raises(DataError, match="blank.json: empty file: no predictions"):
        SC.read_predictions(tmp_path / "blank.json", fixture_claims)


def test_an_empty_solution_is_named(tmp_path):
    from lib.data import averitec as AV

    empty = tmp_path / "solution.csv"
    empty.write_text(",".join([*AV.LEADERBOARD_COLUMNS, "split"]) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        SC.read_solution(empty)
    assert str(err.value) == f"{empty}: no rows in the solution"


def test_load_predictions_passes_lenient_on(fixture_claims, tmp_path):
    records = [{"claim_id": 0, "label": "Refuted", "evidence": []}, {"claim_id": 0, "label": "Refuted", "evidence": []}]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(records))
    with pytest.raises(DataError):
        SC.load_predictions(path, fixture_claims)
    assert len(SC.load_predictions(path, fixture_claims, lenient=True)) == len(fixture_claims)


def test_each_side_keeps_its_claim_types_pairs_and_question_flag(fixture_claims, tmp_path):
    c = next(c for c in fixture_claims if c.claim_types and any(q.answers for q in c.questions))
    ref = SC.reference_evidence(c)
    assert ref.claim_types == c.claim_types and ref.has_questions is True
    assert ref.pairs == tuple(
        (q.text, SC.compared_answer(a.text, a.answer_type, a.boolean_explanation))
        for q in c.questions
        for a in q.answers
    )
    row = averitec.LeaderboardRow(3, "claim", (("Q1?", "a1"), ("Q1?", "a2")), "Refuted", "pred")
    assert SC.submission_evidence(row) == SC.Evidence(
        "Refuted", ("Q1?", "Q1?"), ("Q1? a1", "Q1? a2"), True, (), (("Q1?", "a1"), ("Q1?", "a2"))
    )
    ev = SC.read_predictions(write_json(tmp_path, shared(fixture_claims)), fixture_claims).evidence[0]
    assert (ev.has_questions, ev.claim_types, ev.pairs) == (True, (), (("Q?", "A0"),))


def test_records_of_no_format_are_skipped_leniently_or_named(fixture_claims, tmp_path):
    records = [{"foo": 1}] + shared(fixture_claims)[1:]
    p = SC.read_predictions(write_json(tmp_path, records), fixture_claims, lenient=True)
    assert p.format == SC.SHARED_2024 and p.evidence[1].questions == ("Q?",)  # the format of the first usable record
    path = write_json(tmp_path, [{"foo": 1}, {"bar": 2}], "junk.json")
    with pytest.raises(DataError) as err:
        SC.read_predictions(path, fixture_claims, lenient=True)
    assert str(err.value) == f"{path}: record 0: no record matches a prediction format"


def test_csv_predictions_for_another_claim_and_missing_rows(fixture_claims, tmp_path):

    path = _submission(tmp_path / "sub.csv", [(0, "A claim about something else entirely")])
    with pytest.raises(DataError, match=r"record with id 0: field 'claim': differs from reference claim 0"):
        SC.read_predictions(path, fixture_claims)
    solution = [
        averitec.LeaderboardRow(c.claim_id, c.text, (("Q?", "a"),), c.label, "gold") for c in fixture_claims[:2]
    ]
    sub = _submission(tmp_path / "sub2.csv", [(0, fixture_claims[0].text)])
    p = SC.read_submission(sub, solution, lenient=True)
    assert p.describe() == f"{SC.CSV_2025}, 1 records aligned by id" and SC.CSV_2025 == "2025 csv"
    assert p.evidence[1] == SC.Evidence(None, (), (), True)  # the missing row: no verdict, no evidence


def test_a_solution_without_the_gold_split_and_missing_references_are_named(tmp_path):
    from lib.data import averitec as AV

    path = tmp_path / "solution.csv"
    path.write_text(",".join([*AV.LEADERBOARD_COLUMNS, "split"]) + '\n0,c,"Q?\t\t\na\t\t\n\n",Refuted,private\n')
    with pytest.raises(DataError) as err:
        SC.read_solution(path)
    assert str(err.value) == f"{path}: field 'split': no row has split 'gold': nothing to score"
    with pytest.raises(DataError) as err:
        SC.score_file(tmp_path / "p.json", tmp_path / "nothing.json")
    assert str(err.value) == f"{tmp_path / 'nothing.json'}: no such file"


@pytest.mark.parametrize("split", ["Gold", "gold ", "go", "g", "pri vate", ""])
def test_a_mistyped_or_cut_split_is_named_not_left_out(tmp_path, split):
    """A last row cut inside its split ("go") or a mistyped "Gold" left that claim out of the score, exit 0."""
    from lib.data import averitec as AV

    path = tmp_path / "solution.csv"
    rows = ['0,c,"Q?\t\t\na\t\t\n\n",Refuted,gold', f'1,d,"Q?\t\t\na\t\t\n\n",Refuted,{split}']
    path.write_text(",".join([*AV.LEADERBOARD_COLUMNS, "split"]) + "\n" + "\n".join(rows) + "\n")
    with pytest.raises(DataError, match=rf"with id 1: field 'split': {re.escape(repr(split))}: expected 'gold'"):
        SC.read_solution(path)


def test_pairs_without_the_blank_line_between_them_are_named_not_merged():
    """Q+A blocks missing their blank line were read as one question whose answer held the rest (Q+A 0.11
    for 0.36), exit 0."""
    with pytest.raises(ValueError, match="pair 0: more than one question/answer separator in one block"):
        averitec.parse_leaderboard_evidence("Q1?\t\t\nA1\t\t\nQ2?\t\t\nA2\t\t\n\n")
    assert averitec.parse_leaderboard_evidence("Q1?\t\t\nA1\t\t\n\nQ2?\t\t\nA2\t\t\n") == (("Q1?", "A1"), ("Q2?", "A2"))


def test_converting_against_references_without_a_claim_is_named(tmp_path):
    """`--to-csv` with `[]` as references blamed the first prediction: "claim ids 0..-1"."""
    (tmp_path / "refs.json").write_text("[]")
    args = ["--predictions", str(FIXTURE_DEV), "--references", str(tmp_path / "refs.json")]
    with pytest.raises(SystemExit) as end:
        SC.main([*args, "--to-csv", str(tmp_path / "o.csv")])
    assert end.value.code == f"error: {tmp_path / 'refs.json'}: no reference claims"


def test_per_claim_ids_and_a_summary_with_a_missing_verdict_and_an_unused_label():
    import pandas as pd

    ev = SC.Evidence("Refuted", ("Q?",), ("Q? a",))
    none = SC.Evidence(None, (), (), True)
    t = SC.per_claim([ev, none], [ev, ev], claim_ids=[7, 9])
    assert t["claim_id"].tolist() == [7, 9] and SC.per_claim([ev], [ev])["claim_id"].tolist() == [0]
    table = pd.DataFrame(
        {
            "label": ["Refuted", "Supported"],
            "pred_label": ["Refuted", None],
            "q_only": [1.0, 0.0],
            "qa": [1.0, 0.0],
            "correct": [True, False],
            "claim_types": [(), ()],
        }  # fmt: skip
    )
    s = SC.summarise(table)
    assert s["accuracy"] == 0.5 and s["f1"]["Refuted"] == 1.0 and s["f1"]["Supported"] == 0.0
    # a verdict neither in the gold labels nor predicted has no F1 (0/0), neither 0 nor 1, and no part in the mean
    assert s["f1"]["Not Enough Evidence"] is None and s["macro_f1"] == 0.5
    right = SC.summarise(table.assign(pred_label=["Refuted", "Supported"], correct=[True, True]))
    assert right["macro_f1"] == 1.0 and right["f1"]["Conflicting Evidence/Cherrypicking"] is None


def test_scores_by_claim_type_at_their_thresholds():
    import pandas as pd

    table = pd.DataFrame(
        {
            "label": ["Refuted", "Refuted", "Supported", "Refuted"],
            "pred_label": ["Refuted", "Supported", None, "Refuted"],
            "q_only": [0.0] * 4,
            "qa": [0.25, 0.9, 0.5, 0.35],
            "correct": [True, False, False, True],
            "claim_types": [("A",), ("A",), ("A",), ("B",)],
        }
    )
    s = SC.summarise(table)
    # type A: 0.25 is not above 0.25; 0.9 has the wrong verdict; the claim without a verdict still counts
    assert s["type_averitec@0.25"] == {"A": 0.0, "B": 1.0}
    assert s["type_qa@0.2"] == {"A": pytest.approx((0.25 + 0.9 + 0.5) / 3), "B": 0.35}
    assert s["type_qa@0.3"] == {"A": pytest.approx((0.9 + 0.5) / 3), "B": 0.35}


def test_the_2025_log_gets_what_was_skipped_and_a_folder_is_not_a_file(tmp_path):
    import csv
    import io

    from lib.data import averitec as AV

    solution = tmp_path / "solution.csv"
    with open(solution, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([*AV.LEADERBOARD_COLUMNS, "split"])
        for i in range(2):
            w.writerow([i, f"claim {i}", "Q?\t\t\na\t\t\n\n", "Refuted", "gold"])
    sub = tmp_path / "sub.csv"
    with open(sub, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(AV.LEADERBOARD_COLUMNS)
        w.writerow([0, "claim 0", "Q?\t\t\na\t\t\n\n", "Refuted"])
    log = io.StringIO()
    SC.score_file_2025(sub, solution, lenient=True, log=log)
    lines = log.getvalue().splitlines()
    assert lines[0].endswith("2 solution rows scored, 0 left out (split)") and lines[1].startswith("skipped: ")
    with pytest.raises(DataError) as err:
        SC.score_file(tmp_path / "p.json", tmp_path)
    assert str(err.value) == f"{tmp_path}: a folder: expected the reference claims' file"
    with pytest.raises(DataError, match="null: not a regular file"):
        SC.score_file(tmp_path / "p.json", Path("/dev/null"))


def test_the_command_line_in_process(fixture_claims, tmp_path, capsys):
    good = write_json(tmp_path, shared(fixture_claims), "good.json")
    SC.main(["--jobs", "1", "--references", str(FIXTURE_DEV), "--predictions", str(good)])
    out, err = capsys.readouterr()
    assert (
        out.startswith('{\n  "edition": "2024 (AVeriTeC shared task)",\n  "q_only": ')
        and "good.json: 2024, 3 records aligned by claim_id" in err
    )
    with pytest.raises(SystemExit):
        SC.main(["--jobs", "0", "--predictions", str(good)])
    assert "error: argument --jobs: Input should be greater than or equal to 1, got '0'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        SC.main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        "worker processes (default 2)" in help_text
        and "as a 2025 submission CSV; with --split gold, as a solution" in help_text
    )


def test_unreadable_prediction_files_are_named_exactly(fixture_claims, tmp_path):
    (tmp_path / "empty_list.json").write_text("[]")
    os.mkfifo(tmp_path / "pipe")  # a pipe is never opened (it would wait for a writer)
    for target, message in [(tmp_path, "a folder: expected a prediction file"),
                            (tmp_path / "pipe", "not a regular file (a folder, a pipe or a device?); expected a file to read"),
                            (Path("/dev/zero"), "not a regular file (a folder, a pipe or a device?); expected a file to read"),
                            (tmp_path / "empty_list.json", "no predictions")]:  # fmt: skip
        with pytest.raises(DataError) as err:
            SC.read_predictions(target, fixture_claims)
        assert str(err.value) == f"{target}: {message}"
    gone = ROOT / "outputs" / "averitec" / "predictions" / "nobody.json"  # a pipeline output not made yet
    with pytest.raises(DataError, match=r"nobody.json: no such file; the pipeline stage `averitec` makes it"):
        SC.read_predictions(gone, fixture_claims)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(DataError, match=r"loop: a link to .*loop that leads nowhere \(or in a loop\)"):
        SC.read_predictions(tmp_path / "loop", fixture_claims)


def test_a_boolean_answer_without_explanation_keeps_the_separator():
    assert SC.compared_answer("Yes", "Boolean") == "Yes. " and SC.compared_answer("Yes", "Extractive") == "Yes"
    assert SC.qa_string("Q?", "No", "Boolean", "it did not") == "Q? No. it did not"


def test_writing_over_an_input_or_into_data_is_refused_before_any_work(real_data, tmp_path):
    from lib.cli import NamedError

    preds = tmp_path / "preds.json"
    preds.write_bytes((real_data / "averitec" / "dev.json").read_bytes())
    before = preds.read_bytes()
    with pytest.raises(NamedError, match="preds.json: is also an input of this command"):
        SC.main(["--predictions", str(preds), "--to-csv", str(preds)])
    with pytest.raises(NamedError, match="is also an input of this command"):
        SC.main(
            [
                "--predictions",
                str(preds),
                "--references",
                str(tmp_path / "refs.json"),
                "--to-csv",
                str(tmp_path / "refs.json"),
            ]
        )
    assert preds.read_bytes() == before
    with pytest.raises(NamedError, match="lies inside data/, the study's data kept by DVC"):
        SC.main(["--predictions", str(preds), "--to-csv", str(real_data / "averitec" / "dev.csv")])


def test_lenient_conversion_lists_what_it_left_out(fixture_claims, tmp_path, capsys):
    """`--lenient --to-csv` wrote a row with no evidence and no label for a bad record and said nothing."""
    refs = FIXTURE_DATA / "averitec" / "dev.json"
    records = [{"claim_id": c.claim_id, "label": "Refuted", "string_evidence": ["ok"]} for c in fixture_claims]
    records[1]["string_evidence"] = ["bad\udfff"]
    preds = write_json(tmp_path, records)
    SC.main(["--predictions", str(preds), "--references", str(refs), "--to-csv", str(tmp_path / "o.csv"), "--lenient"])
    said = capsys.readouterr().err
    assert "skipped: " in said and "record 1: field 'string_evidence[0]': a lone surrogate" in said


def test_a_huge_first_line_is_quoted_short(fixture_claims, tmp_path):
    """A file of 200 MB of NULs printed a 16,520-character error line (the CSV header quoted whole)."""
    path = tmp_path / "p.csv"
    path.write_text("x" * 20_000 + ",y\n")
    with pytest.raises(DataError) as err:
        SC.read_predictions(path, fixture_claims)
    assert "neither JSON nor the 2025 CSV" in str(err.value) and len(str(err.value)) < 600


def test_a_reference_claim_without_a_question_is_named_not_scored_zero(fixture_claims, tmp_path):
    """A references file with one claim's `questions: []` scored that claim 0 (AVeriTeC@0.25 1.0 -> 0.75)."""
    refs = json.loads((FIXTURE_DATA / "averitec" / "dev.json").read_text())
    refs[1]["questions"] = []
    (tmp_path / "refs.json").write_text(json.dumps(refs))
    (tmp_path / "p.json").write_text("[]")
    with pytest.raises(DataError, match=r"refs.json: record 1: field 'questions': no gold question"):
        SC.score_file(tmp_path / "p.json", tmp_path / "refs.json")


def test_a_duplicate_or_an_extra_prediction_is_named_where_it_occurs(fixture_claims, tmp_path):
    """The scorer kept every record and reported a duplicate at record 500 only after reading the whole file
    (a 1 GB file: 5 GB and 53 s): now the records after it are never read (the broken one last is not named)."""
    records = shared(fixture_claims)
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(records + [records[0]])[:-1] + ', {"broken"')
    with pytest.raises(
        DataError, match=r"record 3: field 'claim_id': duplicate: claim 0 already predicted by record 0"
    ):
        SC.read_predictions(path, fixture_claims)
    official = [{"label": "Refuted", "questions": []}] * (len(fixture_claims) + 1)
    path.write_text(json.dumps(official)[:-1] + ', {"broken"')
    with pytest.raises(DataError, match=rf"record 3: beyond the {len(fixture_claims)} references \(without claim_id"):
        SC.read_predictions(path, fixture_claims)
    mixed = [{"label": "Refuted", "questions": []}, {"claim_id": 1, "label": "Refuted", "questions": []}]
    with pytest.raises(DataError, match=r"record 1: field 'claim_id': given, while the first record has none"):
        SC.read_predictions(write_json(tmp_path, mixed), fixture_claims)


def test_a_claim_mismatch_is_quoted_where_the_texts_differ():
    """Both texts cut at 60 characters read alike when they differed at character 152 (`…` against `...`)."""
    head = "Why should you pay more taxes than Donald Trump pays? " * 3
    assert averitec.first_difference(head + "And… more", head + "And... more") == (
        f"at character {len(head) + 4}: '… more' vs '... more' (it begins {head[:40]!r})"
    )
    assert averitec.first_difference("a  b", "a b c").startswith("at character 4: '' vs ' c'")  # spacing aside


def test_a_submission_row_whose_id_no_solution_row_has_is_an_error(tmp_path, fixture_claims):
    solution = [
        averitec.LeaderboardRow(c.claim_id, c.text, (("Q?", "a"),), c.label, "gold") for c in fixture_claims[:2]
    ]
    rows = [*((c.claim_id, c.text) for c in fixture_claims[:2]), (99999, "bogus claim")]
    sub = _submission(tmp_path / "sub.csv", rows)
    with pytest.raises(DataError, match="sub.csv: record with id 99999: field 'id': not an id of the solution"):
        SC.read_submission(sub, solution)
    assert len(SC.read_submission(sub, solution, left_out=[99999]).evidence) == 2  # the private split: left out
    lenient = SC.read_submission(sub, solution, lenient=True)
    assert any("99999" in line for line in lenient.skipped)


def test_lenient_scoring_that_skipped_every_record_scores_nothing_and_fails(fixture_claims, tmp_path):
    """Every label misspelt, `--lenient` printed scores of 0.0 and exited 0."""
    refs = FIXTURE_DATA / "averitec" / "dev.json"
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps([{"claim_id": c.claim_id, "label": "Maybe", "questions": []} for c in fixture_claims]))
    with pytest.raises(DataError, match=r"p.json: --lenient skipped every prediction \(\d+ problem\(s\), the first: "):
        SC.score_file(preds, refs, lenient=True)


def test_a_solution_row_without_a_gold_question_is_named(tmp_path):
    """An empty `evi` in the solution scored every submission 0 on that claim, silently."""
    sol = tmp_path / "sol.csv"
    with open(sol, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([*averitec.LEADERBOARD_COLUMNS, "split"])
        w.writerow([0, "A claim.", "Q?\t\t\na\t\t\n\n", "Refuted", "gold"])
        w.writerow([1, "Another claim.", "  ", "Supported", "gold"])
    with pytest.raises(DataError, match="sol.csv: record with id 1: field 'evi': no gold question"):
        SC.read_solution(sol)


def _submission(path, rows):
    """A 2025 submission CSV: one row per (id, claim), each with one question-answer block, verdict Refuted."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(averitec.LEADERBOARD_COLUMNS)
        for claim_id, claim in rows:
            w.writerow([claim_id, claim, "Q?\t\t\na\t\t\n\n", "Refuted"])
    return path


# ---------------------------------------------------------------- messages and the command line (mutation testing)


def test_a_record_of_no_format_and_a_missing_claim_are_named_in_words(fixture_claims, tmp_path):
    path = write_json(tmp_path, [{"x": 1}] * 3)
    with pytest.raises(DataError) as err:
        SC.read_predictions(path, fixture_claims)
    assert str(err.value).endswith(
        "keys ['x'] match no prediction format (official: label and questions or string_evidence; 2024: claim_id, "
        "claim, evidence, pred_label)"
    )
    path = write_json(tmp_path, shared(fixture_claims)[:2])
    with pytest.raises(DataError, match=r"field 'claim_id': no prediction for 1 reference claims \(first: \[2\]\)$"):
        SC.read_predictions(path, fixture_claims)


def test_a_solution_row_of_a_mistyped_split_is_named_in_words(fixture_claims, tmp_path):
    solution = SC.write_leaderboard(
        tmp_path / "solution.csv", fixture_claims, [SC.reference_evidence(c) for c in fixture_claims], "Gold"
    )
    with pytest.raises(DataError) as err:
        SC.read_solution(solution)
    assert str(err.value).endswith(
        "field 'split': 'Gold': expected 'gold' (a scored row) or another split's name in lower-case letters (a row left out)"
    )


def test_the_2025_path_keeps_the_solutions_ids_and_lists_what_lenient_skipped(fixture_claims, tmp_path):
    import io

    refs = [SC.reference_evidence(c) for c in fixture_claims]
    solution = SC.write_leaderboard(tmp_path / "solution.csv", fixture_claims, refs, SC.SOLUTION_SPLIT)
    sub = SC.write_leaderboard(tmp_path / "sub.csv", fixture_claims, refs, "pred")
    summary, table = SC.score_file_2025(sub, solution)
    assert table["claim_id"].tolist() == [c.claim_id for c in fixture_claims]
    stray = tmp_path / "stray.csv"
    stray.write_text(sub.read_text(encoding="utf-8").replace("\n0,", "\n7,", 1), encoding="utf-8")
    log = io.StringIO()
    SC.score_file_2025(stray, solution, lenient=True, log=log)
    assert "with id 7: field 'id': not an id of the solution (another claim set?)" in log.getvalue()
    other = tmp_path / "other_claim.csv"
    other.write_text(
        sub.read_text(encoding="utf-8").replace(fixture_claims[1].text, "Another claim.", 1), encoding="utf-8"
    )
    log = io.StringIO()
    SC.score_file_2025(other, solution, lenient=True, log=log)
    assert f"with id {fixture_claims[1].claim_id}: field 'claim': differs from the solution's claim" in log.getvalue()
    # a solution whose rows are not in id order: each row keeps its own id
    backwards = SC.write_leaderboard(tmp_path / "backwards.csv", fixture_claims[::-1], refs[::-1], SC.SOLUTION_SPLIT)
    _, table = SC.score_file_2025(sub, backwards)
    assert table["claim_id"].tolist() == [c.claim_id for c in fixture_claims[::-1]]


def test_the_command_line_flags_work_as_their_help_says(fixture_claims, tmp_path, capsys):
    good = write_json(tmp_path, shared(fixture_claims), "good.json")
    with pytest.raises(SystemExit) as err:
        SC.main(["--references", str(FIXTURE_DEV)])
    assert err.value.code == 2 and "the following arguments are required: --predictions" in capsys.readouterr().err
    SC.main(["--predictions", str(good), "--references", str(FIXTURE_DEV), "--jobs", "1", "--all"])
    assert "type_averitec@0.25" in json.loads(capsys.readouterr().out)  # --all: the per claim type scores too
    SC.main(["--predictions", str(good), "--references", str(FIXTURE_DEV), "--jobs", "1"])
    assert "type_averitec@0.25" not in json.loads(capsys.readouterr().out)
    csv_out = tmp_path / "out.csv"
    SC.main(["--predictions", str(good), "--references", str(FIXTURE_DEV), "--to-csv", str(csv_out)])
    assert capsys.readouterr().err == f"{good}: 2024, 3 records aligned by claim_id -> {csv_out} (3 rows)\n"
    assert {r.split for r in averitec.load_leaderboard(csv_out)} == {"pred"}  # the default split column
    # --lenient reaches the scorer: a record without a verdict is skipped, the rest scored
    records = shared(fixture_claims)
    records[1]["pred_label"] = None
    bad = write_json(tmp_path, records, "bad.json")
    SC.main(["--predictions", str(bad), "--references", str(FIXTURE_DEV), "--jobs", "1", "--lenient"])
    assert "missing verdict" in capsys.readouterr().err
    # --lenient that skips every record names the prediction file
    none = write_json(tmp_path, shared(fixture_claims, pred_label=None), "none.json")
    with pytest.raises(SystemExit) as err:
        SC.main(
            [
                "--predictions",
                str(none),
                "--references",
                str(FIXTURE_DEV),
                "--to-csv",
                str(tmp_path / "n.csv"),
                "--lenient",
            ]
        )
    assert err.value.code.startswith(f"error: {none}: --lenient skipped every prediction")


def test_the_help_says_what_each_flag_does(capsys):
    with pytest.raises(SystemExit):
        SC.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    for said in (
        "--jobs JOBS worker processes (default 2)",
        "--all also print the per claim type scores",
        "score what can be scored: bad records are skipped (and listed on stderr), claims without a usable "
        "prediction score 0",
        "the split column written by --to-csv: pred (the default) or gold (a solution)",
    ):
        assert said in out


@pytest.mark.parametrize("label", ["refUTed!!", "R.E.F.U.T.E.D.", " Refuted", "conflicting evidence/cherry-picking"])
def test_a_verdict_is_read_as_the_organisers_compare_it(tmp_path, label):
    """The thirtieth pass: labels were normalised (case and every non-letter dropped), so "refUTed!!" scored as
    right, where the organisers' exact comparison scores it wrong."""
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    rows = [{"claim_id": i, "claim": c.text, "pred_label": "Refuted", "evidence": []} for i, c in enumerate(claims)]
    rows[1]["pred_label"] = label
    (tmp_path / "p.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(
        DataError, match=r"record 1: field 'pred_label': .* is not one of the four verdicts; write it as"
    ):
        SC.load_predictions(tmp_path / "p.jsonl", claims)


def test_a_verdict_no_spelling_reaches_is_named_without_a_hint(tmp_path):
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    rows = [{"claim_id": i, "claim": c.text, "pred_label": "Refuted", "evidence": []} for i, c in enumerate(claims)]
    rows[2]["pred_label"] = "Mostly; True"  # "; " in the label itself is no hint
    (tmp_path / "p.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(DataError) as err:
        SC.load_predictions(tmp_path / "p.jsonl", claims)
    assert str(err.value).endswith("record 2: field 'pred_label': 'Mostly; True' is not one of the four verdicts")


def test_an_empty_references_file_is_named_as_references(tmp_path):
    """The forty-third pass: an empty `--references` file read "empty file: no predictions"."""
    (tmp_path / "refs.json").write_text("")
    with pytest.raises(DataError, match=r"refs\.json.*empty file: expected a reference file \(the dev set or a 2025"):
        SC.edition(tmp_path / "refs.json")


def test_a_short_file_that_is_not_utf8_is_named_so_not_empty(tmp_path, fixture_claims):
    """The forty-fourth pass: a one-byte file "\\xe9" read "empty file: no predictions"."""
    (tmp_path / "e9.json").write_bytes(b"\xe9")
    with pytest.raises(DataError, match=r"e9\.json.*not UTF-8 text"):
        SC.read_predictions(tmp_path / "e9.json", fixture_claims)
