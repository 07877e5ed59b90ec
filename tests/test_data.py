import json
from datetime import date

import pytest

from lib import data as D


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- labels and dates

@pytest.mark.parametrize("raw, expected", [
    ("Supported", "Supported"), ("refuted", "Refuted"), ("Not Enough Evidence", "Not Enough Evidence"),
    ("Conflicting Evidence/Cherrypicking", "Conflicting Evidence/Cherrypicking"),
    ("Conflicting Evidence/Cherry-picking", "Conflicting Evidence/Cherrypicking"),
])
def test_averitec_labels(raw, expected):
    assert D.normalise_label(raw) == expected


@pytest.mark.parametrize("raw, expected", [("True", "True"), ("false", "False"), ("Half True/False", "Conflicting"),
                                           ("Conflicting", "Conflicting")])
def test_quantemp_labels(raw, expected):
    assert D.normalise_label(raw, "quantemp") == expected


@pytest.mark.parametrize("raw", ["Mostly True", "", None, 3])
def test_unknown_labels_raise(raw):
    with pytest.raises(ValueError, match="unknown averitec label"):
        D.normalise_label(raw)


@pytest.mark.parametrize("raw, expected", [
    ("25-8-2020", date(2020, 8, 25)), ("05-08-2020", date(2020, 8, 5)), ("5/8/2020", date(2020, 8, 5)),
    ("31.12.2019", date(2019, 12, 31)), ("2020-08-25", date(2020, 8, 25)), (" 1-1-2021 ", date(2021, 1, 1)),
    (None, None), ("", None),
])
def test_parse_claim_date(raw, expected):
    assert D.parse_claim_date(raw) == expected


@pytest.mark.parametrize("raw", ["31-02-2020", "2020/08/25", "August 5, 2020", "25-8-20", "13-13-2020"])
def test_unparseable_dates_raise(raw):
    with pytest.raises(ValueError):
        D.parse_claim_date(raw)


# ---------------------------------------------------------------- AVeriTeC loader on the fixture

def test_load_averitec_fixture(fixture_data):
    claims = D.load_averitec("dev", fixture_data / "averitec" / "dev.json")
    assert [c.claim_id for c in claims] == [0, 1, 2]
    c0, c1, c2 = claims
    assert c0.label == "Refuted" and c0.claim_date == date(2021, 3, 15)
    assert c1.claim_date == date(2020, 1, 2) and c2.claim_date == date(2021, 5, 1)
    assert c1.claim_types == ("Numerical Claim", "Event/Property Claim")
    boolean = c0.questions[1].answers[0]
    assert boolean.answer_type == "Boolean" and D.gold_answer_text(boolean) == "NASA never said the moon is cheese."
    assert D.gold_answer_text(c0.questions[0].answers[0]) == "The moon is made of rock and dust."
    assert [len(q.answers) for q in c1.questions] == [2, 1]


def test_null_claim_date_is_unknown_not_an_error(fixture_data):
    train = D.load_averitec("train", fixture_data / "averitec" / "train.json")
    assert train[1].claim_date is None


def _dev_record(**changes):
    rec = {"claim": "c", "label": "Supported", "claim_date": "1-1-2020", "justification": "", "claim_types": [],
           "questions": [{"question": "q", "answers": [{"answer": "a", "source_url": "u"}]}]}
    rec.update(changes)
    return rec


@pytest.mark.parametrize("changes, field, problem", [
    ({"label": "Mostly True"}, "label", "unknown averitec label"),
    ({"claim_date": "2020/31/01"}, "claim_date", "unparseable date"),
    ({"claim": None}, "claim", "expected str"),
    ({"questions": [{"question": "q", "answers": [{"answer": "a"}]}]}, "questions[0].answers[0].source_url", "missing"),
])
def test_bad_record_errors_name_file_record_and_field(tmp_path, changes, field, problem):
    path = write(tmp_path / "dev.json", json.dumps([_dev_record(), _dev_record(**changes)]))
    with pytest.raises(D.DataError) as err:
        D.load_averitec("dev", path)
    assert err.value.path == str(path) and err.value.record == 1 and err.value.field == field
    assert problem in str(err.value) and str(path) in str(err.value)


def test_missing_required_field(tmp_path):
    rec = _dev_record()
    del rec["label"]
    path = write(tmp_path / "dev.json", json.dumps([rec]))
    with pytest.raises(D.DataError, match=r"record 0: field 'label': missing required field"):
        D.load_averitec("dev", path)


def test_lenient_loading_skips_and_logs(tmp_path):
    path = write(tmp_path / "dev.json", json.dumps([_dev_record(), _dev_record(label="??"), _dev_record()]))
    log = D.LoadLog()
    claims = D.load_averitec("dev", path, strict=False, log=log)
    assert [c.claim_id for c in claims] == [0, 2]
    assert len(log) == 1 and log.summary() == {str(path): 1} and log.skipped[0].record == 1


def test_lenient_loading_without_a_log_is_refused(tmp_path):
    path = write(tmp_path / "dev.json", json.dumps([_dev_record()]))
    with pytest.raises(ValueError, match="needs a LoadLog"):
        D.load_averitec("dev", path, strict=False)


def test_malformed_json_and_jsonl(tmp_path):
    with pytest.raises(D.DataError, match="malformed JSON"):
        D.read_json_records(write(tmp_path / "a.json", '[{"claim": "x",]'))
    with pytest.raises(D.DataError, match=r"at line 2: malformed JSONL"):
        D.read_json_records(write(tmp_path / "b.jsonl", '{"a": 1}\n{"a": \n'))
    with pytest.raises(D.DataError, match="no records"):
        D.read_json_records(write(tmp_path / "c.jsonl", "\n"))


def test_json_named_file_with_jsonl_content_is_read_as_jsonl(tmp_path):
    path = write(tmp_path / "x.json", '{"a": 1}\n{"a": 2}\n')
    assert D.read_json_records(path) == [(0, {"a": 1}), (1, {"a": 2})]


# ---------------------------------------------------------------- systems, BLOOM, leaderboard

def test_system_output_shapes(fixture_data):
    a = D.load_system_output(fixture_data / "averitec" / "systems" / "sys_a.jsonl")
    assert [o.claim_id for o in a] == [0, 1, 2] and a[0].pred_label is None
    assert a[0].evidence[1] == D.RetrievedEvidence("Moon cheese claims are false, fact check finds.",
                                                   ("https://www.politifact.com/factchecks/2021/mar/20/moon-cheese/",), None)
    b = D.load_system_output(fixture_data / "averitec" / "systems" / "sys_b.json")
    assert b[0].evidence[0].urls == ("https://en.wikipedia.org/wiki/Cheese/", "https://cheese.example.com/")
    assert b[0].evidence[0].question == "What is cheese?" and b[0].pred_label == "Refuted"


def test_system_output_errors(tmp_path):
    bad_url = write(tmp_path / "s.jsonl", '{"claim_id": 0, "claim": "c", "evidence": [{"answer": "a", "url": 3}]}\n')
    with pytest.raises(D.DataError, match=r"field 'evidence\[0\].url'"):
        D.load_system_output(bad_url)
    bad_label = write(tmp_path / "t.jsonl", '{"claim_id": 0, "claim": "c", "evidence": [], "pred_label": "Maybe"}\n')
    with pytest.raises(D.DataError, match="field 'pred_label': unknown averitec label"):
        D.load_system_output(bad_label)
    no_evidence = write(tmp_path / "u.jsonl", '{"claim_id": 0, "claim": "c"}\n')
    with pytest.raises(D.DataError, match="exactly one of"):
        D.load_system_output(no_evidence)


def test_generated_questions(tmp_path):
    rec = _dev_record(questions=[{"question": "Who?", "answers": []}, {"question": "When?", "answers": []}])
    assert D.load_generated_questions(write(tmp_path / "g.json", json.dumps([rec]))) == {0: ["Who?", "When?"]}


def test_leaderboard_evidence_blocks():
    evi = "Q one\t\t\nA one\t\t\n\nQ two\t\t\nA two\t\t\n\n"
    assert D.parse_leaderboard_evidence(evi) == (("Q one", "A one"), ("Q two", "A two"))


def test_misinfo_domains(fixture_data):
    assert D.load_misinfo_domains(fixture_data / "averitec" / "misinfo_domains.txt") == {"fakenews.example.com", "another-bad.com"}


# ---------------------------------------------------------------- QuanTemp, ClaimDecomp, CLIMATE-FEVER

def test_quantemp_val_fixture(fixture_data):
    qt = D.load_quantemp_val(fixture_data / "quantemp" / "val_claims_bm25_evidence.json")
    assert [c.label for c in qt] == ["True", "Conflicting", "False"]
    assert [len(c.snippets) for c in qt] == [3, 0, 1]


def test_csv_errors(tmp_path):
    with pytest.raises(D.DataError, match="field 'taxonomy_labels': missing column"):
        D.load_quantemp_taxonomy(write(tmp_path / "t.csv", "claim@label\nx@temporal\n"))
    with pytest.raises(D.DataError, match="record 0: field 'taxonomy_labels': unknown label 'numeric'"):
        D.load_quantemp_taxonomy(write(tmp_path / "u.csv", "claim@taxonomy_labels\nx@numeric\n"))
    with pytest.raises(D.DataError, match="record 1: malformed CSV"):
        D.load_quantemp_predictions(write(tmp_path / "p.csv", "claim,verdict\na,True\nb,False,extra\n"))
    with pytest.raises(D.DataError, match="field 'verdict': unknown quantemp label"):
        D.load_quantemp_predictions(write(tmp_path / "q.csv", "claim,verdict\na,Pants on fire\n"))


def test_quantemp_small_files(tmp_path):
    tax = D.load_quantemp_taxonomy(write(tmp_path / "t.csv", "claim@taxonomy_labels\nA claim@temporal   \n"))
    assert tax == [D.TaxonomyClaim("A claim", "temporal")]
    dec = D.load_quantemp_decompositions(write(tmp_path / "d.csv",
                                               'claims@questions\nc@"Q1?\nNext Question: Q2?\nNext Question: Q3?"\n'))
    assert dec == [D.DecomposedClaim("c", ("Q1?", "Q2?", "Q3?"))]
    gold = D.load_quantemp_gold_subset(write(tmp_path / "g.csv",
                                             ',features,true_label,pred_label\n7,"[Claim]:X rose.[Evidences]:Article text.",False,True\n'))
    assert gold == [D.GoldArticleClaim(7, "X rose.", "Article text.", "False", "True")]


def test_claimdecomp_and_climate_fever(tmp_path):
    cd = {"example_id": 1, "label": "half-true", "url": "u", "claim": "c", "person": "p", "venue": "v",
          "justification": ["j"], "full_article": ["a"],
          "annotations": [{"questions": ["Q?"], "answers": ["Yes"], "question_source": ["Reasoning"]}]}
    [claim] = D.load_claimdecomp(path=write(tmp_path / "cd.jsonl", json.dumps(cd) + "\n"))
    assert claim.annotations[0] == D.Decomposition(("Q?",), ("yes",), ("reasoning",))
    with pytest.raises(D.DataError, match="field 'label': unknown label 'mostly-false'"):
        D.load_claimdecomp(path=write(tmp_path / "cd2.jsonl", json.dumps({**cd, "label": "mostly-false"}) + "\n"))
    cf = {"claim_id": "0", "claim": "c", "claim_label": "DISPUTED", "evidences": [
        {"evidence_id": "A:1", "evidence_label": "SUPPORTS", "article": "A", "evidence": "e", "votes": ["SUPPORTS", None]}]}
    [climate] = D.load_climate_fever(write(tmp_path / "cf.jsonl", json.dumps(cf) + "\n"))
    assert climate.label == "DISPUTED" and climate.evidences[0].votes == ("SUPPORTS",)


# ---------------------------------------------------------------- the real data, strictly

def test_every_real_file_loads_strictly(real_data):
    """Every published file parses with no error and no skipped record."""
    av = real_data / "averitec"
    assert [len(D.load_averitec(s, av / f"{s}.json")) for s in ("train", "dev", "test")] == [3068, 500, 1000]
    for f in sorted((av / "systems").iterdir()):
        if f.name.startswith("bloom"):
            assert len(D.load_generated_questions(f)) == 500
        else:
            outputs = D.load_system_output(f)
            assert len(outputs) == (2 if "sample" in f.name else 500), f.name
    assert len(D.load_leaderboard(av / "leaderboard" / "solution_dev.csv")) == 500
    assert len(D.load_leaderboard(av / "leaderboard" / "submission_dev_baseline.csv")) == 500
    assert len(D.load_misinfo_domains(av / "misinfo_domains.txt")) > 1000
    qt = real_data / "quantemp"
    val = D.load_quantemp_val(qt / "val_claims_bm25_evidence.json")
    assert len(val) == 3084 and sum(not c.snippets for c in val) == 154
    assert len(D.load_quantemp_taxonomy(qt / "taxonomy_labelled_claims.csv")) == 309
    assert len(D.load_quantemp_decompositions(qt / "test_claimdecomp_questions.csv")) == 2495
    for name in ("claim_only", "finqa_roberta_claimdecomp", "unified_claimdecomp"):
        assert len(D.load_quantemp_predictions(qt / f"test_predictions_{name}.csv")) == 2495
    assert len(D.load_quantemp_gold_subset(qt / "test_subset_gold_with_article.csv")) == 249
    assert [len(D.load_claimdecomp(s, real_data / "claimdecomp" / f"{s}.jsonl")) for s in ("dev", "test")] == [200, 200]
    assert len(D.load_climate_fever(real_data / "climate_fever" / "climate-fever.jsonl")) == 1535


def test_checksums(real_data, tmp_path):
    assert D.verify_checksums(real_data) == 28  # every file but SHA256SUMS itself
    (tmp_path / "a.txt").write_text("changed")
    (tmp_path / "SHA256SUMS").write_text("0" * 64 + "  a.txt\n" + "0" * 64 + "  gone.txt\n")
    with pytest.raises(RuntimeError, match=r"checksum mismatch: a.txt[\s\S]*missing: gone.txt"):
        D.verify_checksums(tmp_path)
