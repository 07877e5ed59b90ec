"""The AVeriTeC scorer: the organisers' check figures on dev, both input formats, edge cases, speed-ups."""
import json

import numpy as np
import pytest

from conftest import FIXTURE_DATA
from lib import data as D
from lib import scoring as S


@pytest.fixture(scope="module")
def dev(real_data):
    return json.loads((real_data / "averitec" / "dev.json").read_text())


def run_cli(capsys, predictions, references):
    S.main(["--predictions", str(predictions), "--references", str(references), "--jobs", "2"])
    return json.loads(capsys.readouterr().out)


def test_gold_against_itself_gives_the_organisers_figures(dev, real_data, tmp_path, capsys):
    (tmp_path / "gold.json").write_text(json.dumps(dev))
    out = run_cli(capsys, tmp_path / "gold.json", real_data / "averitec" / "dev.json")
    assert round(out["q_only"], 5) == 0.99890 and round(out["qa"], 5) == 0.99900
    assert out["accuracy"] == 1.0 and out["averitec"]["0.25"] == 1.0
    assert set(out) == {"q_only", "qa", "accuracy", "macro_f1", "f1", "averitec"}
    assert list(out["averitec"]) == ["0.1", "0.2", "0.25", "0.3", "0.4", "0.5"]


def test_always_refuted_claim_only_run_gives_the_organisers_figures(dev, real_data, tmp_path, capsys):
    trivial = [{"label": "Refuted", "questions": [{"question": c["claim"], "answers": [{"answer": c["claim"]}]}]}
               for c in dev]
    (tmp_path / "trivial.json").write_text(json.dumps(trivial))
    out = run_cli(capsys, tmp_path / "trivial.json", real_data / "averitec" / "dev.json")
    assert round(out["q_only"], 4) == 0.2298 and round(out["qa"], 4) == 0.1338
    assert round(out["accuracy"], 4) == 0.61 and round(out["averitec"]["0.25"], 4) == 0.076
    assert out["f1"]["Supported"] == 0.0 and out["f1"]["Refuted"] > 0.7


def test_parallel_and_serial_scores_are_identical(dev):
    claims = D.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    refs = [S.reference_evidence(c) for c in claims] * 4
    preds = [S.Evidence("Refuted", ("What is the moon made of?",), ("What is the moon made of? Cheese.",))] * 12
    assert np.array_equal(S.evidence_scores(preds, refs, jobs=1), S.evidence_scores(preds, refs, jobs=2))


def test_reference_strings_follow_the_organisers_rules():
    claims = D.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    ref = S.reference_evidence(claims[0])
    assert ref.questions == ("What is the moon made of?", "Did NASA say it?")
    assert S.qa_string("Is it?", "Yes", "Boolean", "Because.") == "Is it? Yes. Because."
    assert S.qa_string("Q?", "A") == "Q? A"
    no_answers = D.Claim(0, "dev", "c", "Refuted", None, (), (), "", None, None, None,
                         (D.Question("Where?", ()),))
    assert S.reference_evidence(no_answers).strings == ("Where? No answer could be found.",)


def test_both_prediction_formats_are_read_and_aligned(tmp_path):
    claims = D.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    official = [{"label": "Supported", "questions": [{"question": "Q?", "answers": [{"answer": "A1"}, {"answer": "A2"}]},
                                                     {"question": "R?", "answers": []}]},
                {"label": "conflicting evidence/cherry-picking", "string_evidence": ["s1", "s2"]},
                {"label": "Refuted", "questions": []}]
    (tmp_path / "official.json").write_text(json.dumps(official))
    p = S.load_predictions(tmp_path / "official.json", claims)
    assert p[0].strings == ("Q? A1", "Q? A2", "R? No answer could be found.") and p[0].questions == ("Q?", "R?")
    assert p[1].label == "Conflicting Evidence/Cherrypicking" and not p[1].has_questions
    assert p[2].strings == ()
    shared = [{"claim_id": i, "claim": c.text, "pred_label": "Refuted",
               "evidence": [{"question": "Q?", "answer": f"A{i}", "url": "u"}]} for i, c in reversed(list(enumerate(claims)))]
    (tmp_path / "shared.jsonl").write_text("\n".join(json.dumps(r) for r in shared))
    p = S.load_predictions(tmp_path / "shared.jsonl", claims)
    assert [x.strings for x in p] == [("Q? A0",), ("Q? A1",), ("Q? A2",)]  # aligned by claim_id


def test_empty_and_overlong_evidence(real_data):
    claims = D.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    ref = S.reference_evidence(claims[0])
    meteor = S.Meteor()
    assert S.claim_scores(S.Evidence("Refuted", (), ()), ref, meteor) == (0.0, 0.0)
    good = ("What is the moon made of? The moon is made of rock and dust.",)
    long = S.Evidence("Refuted", ("x",) * 12, ("unrelated words here",) * 10 + good)  # 11th string is ignored
    assert S.claim_scores(long, ref, meteor)[1] == S.claim_scores(
        S.Evidence("Refuted", ("x",) * 10, ("unrelated words here",) * 10), ref, meteor)[1]
    assert S.claim_scores(S.Evidence("Refuted", ("x",), good), ref, meteor)[1] > 0.3


def test_labels_outside_the_verdicts_and_misaligned_files_are_clear_errors(tmp_path):
    claims = D.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    (tmp_path / "bad.json").write_text(json.dumps([{"label": "Mostly True", "questions": []}] * 3))
    with pytest.raises(D.DataError, match="record 0.*label.*Mostly True"):
        S.load_predictions(tmp_path / "bad.json", claims)
    (tmp_path / "short.json").write_text(json.dumps([{"label": "Refuted", "questions": []}]))
    with pytest.raises(D.DataError, match="1 predictions for 3 references"):
        S.load_predictions(tmp_path / "short.json", claims)
    (tmp_path / "missing.jsonl").write_text(json.dumps({"claim_id": 0, "claim": "c", "pred_label": "Refuted",
                                                        "evidence": []}))
    with pytest.raises(D.DataError, match="no prediction for 2 reference claims"):
        S.load_predictions(tmp_path / "missing.jsonl", claims)


def test_summary_by_hand():
    import pandas as pd

    table = pd.DataFrame({"q_only": [0.5, 0.1], "qa": [0.3, 0.2], "label": ["Refuted", "Supported"],
                          "pred_label": ["Refuted", "Refuted"], "correct": [True, False],
                          "claim_types": [("Numerical Claim",), ("Numerical Claim", "Causal Claim")]})
    s = S.summarise(table)
    assert s["accuracy"] == 0.5 and s["averitec"] == {"0.1": 0.5, "0.2": 0.5, "0.25": 0.5, "0.3": 0.0, "0.4": 0.0,
                                                       "0.5": 0.0}
    assert s["f1"]["Refuted"] == pytest.approx(2 / 3) and s["macro_f1"] == pytest.approx((2 / 3) / 4)
    assert s["type_averitec@0.25"] == {"Causal Claim": 0.0, "Numerical Claim": 0.5}
    assert s["type_qa@0.2"] == {"Causal Claim": 0.0, "Numerical Claim": pytest.approx(0.15)}
