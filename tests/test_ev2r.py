"""Ev2R and the new AVeriTeC score: parsing judge answers, the threshold edge, a hand-computed score, and
the stage end to end against the local stub server (live, then replay byte for byte; off skips)."""

import json

import pandas as pd
import pytest
from conftest import FIXTURE_DATA

from lib.averitec import ev2r as EV
from lib.averitec import scoring as SC
from lib.data import averitec
from lib.planning.llm import CacheMiss
from tests.llm_stub import StubLLM

OWN = '{"predicted_facts": 4, "predicted_facts_supported": 3, "reference_facts": 5, "reference_facts_supported": 2}'
ORGANISERS = (
    '{"facts count predicted evidence": 4, "support predicted evidence": 3, '
    '"facts count reference evidence": 5, "support reference evidence": 2}'
)


@pytest.mark.parametrize(
    "answer",
    [
        OWN,
        ORGANISERS,
        ORGANISERS.replace("evidence", "questions"),
        f"Step 1: the facts are ...\n```json\n{OWN}\n```\nThat is all.",
        '{"predicted_facts": 1, "note": "a first draft"}\nFinal: ' + OWN,  # the object holding all four counts
        OWN.replace(": 4", ': "4"').replace(": 5", ": 5.0"),  # numbers as strings, integral floats
    ],
)
def test_counts_are_read_from_chatty_answers_in_either_vocabulary(answer):
    c = EV.parse_counts(answer)
    assert (c.predicted_facts, c.predicted_facts_supported, c.reference_facts, c.reference_facts_supported) == (
        4,
        3,
        5,
        2,
    )
    assert c.precision == 0.75 and c.recall == 0.4


@pytest.mark.parametrize(
    "answer, reason",
    [
        (None, "no_answer"),
        ("   ", "no_answer"),
        ("I cannot judge this evidence.", "no_json"),
        ('{"predicted_facts": 4, "reference_facts": 5}', "missing_counts"),
        (OWN.replace(": 3", ": -1"), "bad_count"),
        (OWN.replace(": 3", ': "three"'), "bad_count"),
        (OWN.replace(": 3", ": true"), "bad_count"),
        (OWN.replace('"reference_facts": 5', '"reference_facts": 0').replace(": 2}", ": 0}"), "zero_facts"),
        (OWN.replace('"predicted_facts": 4', '"predicted_facts": 0').replace(": 3", ": 0"), "zero_facts"),
        (OWN.replace(": 2}", ": 7}"), "supported_above_facts"),
    ],
)
def test_unusable_answers_score_zero_with_a_named_reason(answer, reason):
    with pytest.raises(EV.JudgeAnswerError) as err:
        EV.parse_counts(answer)
    assert err.value.reason == reason
    assert EV.claim_result(answer) == (0.0, 0.0, reason)  # no division by zero, a counted error


def judge(**kw):
    return EV.Judge("judge-model", "ab" * 32, **kw)


def table(recalls, correct):
    n = len(recalls)
    return pd.DataFrame(
        {
            "q_precision": [0.0] * n,
            "q_recall": [0.0] * n,
            "q_error": [None] * n,
            "qa_precision": [1.0] * n,
            "qa_recall": recalls,
            "qa_error": [None] * n,
            "correct": correct,
        }
    )


def test_the_threshold_edge_depends_on_the_comparison():
    t = table([0.5, 0.5000001, 0.4999999], [True, True, True])
    assert EV.new_score(t, judge()).tolist() == [0.0, 1.0, 0.0]  # FEVER-8: recall > 0.5
    assert EV.new_score(t, judge(comparison=">=")).tolist() == [1.0, 1.0, 0.0]
    assert EV.new_score(t, judge(threshold=0.46)).tolist() == [1.0, 1.0, 1.0]  # the draft's Gemini threshold
    with pytest.raises(ValueError, match="comparison '=>'"):
        judge(comparison="=>")
    with pytest.raises(ValueError, match="threshold 1.5"):
        judge(threshold=1.5)


def test_the_new_score_on_a_hand_computed_fixture():
    # four claims: recall 0.8 right label (counts), 0.8 wrong label, 0.4 right label, unparsable (0) right label
    answers = [OWN.replace(": 5", ": 5").replace(": 2}", ": 4}"), OWN.replace(": 2}", ": 4}"), OWN, "no json"]
    rows = [EV.claim_result(a) for a in answers]
    t = table([r[1] for r in rows], [True, False, True, True]).assign(qa_error=[r[2] for r in rows])
    assert t["qa_recall"].tolist() == [0.8, 0.8, 0.4, 0.0]
    s = EV.summarise(t, judge())
    assert s["new_averitec"] == 0.25 and s["qa_recall"] == pytest.approx(0.5) and s["errors"] == {"no_json": 1}
    assert s["judge"].startswith("Ev2R judge judge-model (temperature 0, max 3000 tokens, prompt sha256 abababababab)")
    assert s["judge"].endswith("Q+A recall > 0.5 and the right label")


def test_prompts_take_named_or_positional_placeholders_and_others_are_refused(tmp_path):
    template, sha = EV.load_prompt()
    assert len(sha) == 64 and "{claim}" in template
    out = EV.render(template, "CLAIM", "REF", "PRED")
    assert "Claim: CLAIM" in out and "REF" in out and "PRED" in out and '{"predicted_facts": 0' in out
    (tmp_path / "pos.txt").write_text('Claim {} / gold {} / pred {} / answer {{"x": 1}}')
    t, _ = EV.load_prompt(tmp_path / "pos.txt")
    assert EV.render(t, "c", "r", "p") == 'Claim c / gold r / pred p / answer {"x": 1}'
    (tmp_path / "bad.txt").write_text("Claim {claim} and {evidence}")
    with pytest.raises(ValueError, match=r"bad.txt: expected the placeholders \{claim\}"):
        EV.load_prompt(tmp_path / "bad.txt")
    with pytest.raises(FileNotFoundError, match="no such file"):
        EV.load_prompt(tmp_path / "missing.txt")


def test_the_judge_reads_questions_joined_and_the_2025_evi_string():
    ev = SC.Evidence("Refuted", ("Q1?", "Q2?"), ("Q1? a1", "Q2? a2"), True, (), (("Q1?", "a1"), ("Q2?", "a2")))
    assert EV.evidence_text(ev, "q") == "Q1? Q2?"
    assert EV.evidence_text(ev, "qa") == "Q1?\t\t\na1\t\t\n\nQ2?\t\t\na2\t\t\n\n"


# ---------------------------------------------------------------- the stage, against the stub server


def judge_answer(messages):
    """A deterministic judge: counts from the lengths of the two sides of the prompt."""
    text = messages[0]["content"]
    ref = text.split("Reference evidence (written by fact-checkers):\n")[1].split("\n\nPredicted evidence")[0]
    pred = text.split("Predicted evidence (collected by the system):\n")[1].split("\n\nWork in four steps")[0]
    if "Was the claim" in pred and "?" not in ref:
        return "I cannot tell."  # an unparsable answer for one kind of claim
    r, p = max(1, len(ref) // 40), max(1, len(pred) // 40)
    return f"Counting...\n{{\"predicted_facts\": {p}, \"predicted_facts_supported\": {min(p, r) // 2 + 1}, " \
        f"\"reference_facts\": {r}, \"reference_facts_supported\": {min(p, r) // 2 + 1}}}"  # fmt: skip


def stage_inputs(tmp_path):
    data = tmp_path / "data"
    (data / "averitec").mkdir(parents=True)
    (data / "averitec" / "dev.json").write_bytes((FIXTURE_DATA / "averitec" / "dev.json").read_bytes())
    preds = tmp_path / "averitec" / "predictions"
    preds.mkdir(parents=True)
    dev = json.loads((FIXTURE_DATA / "averitec" / "dev.json").read_text())
    (preds / "gold_copy.json").write_text(json.dumps(dev))
    trivial = [
        {"label": "Refuted", "questions": [{"question": c["claim"], "answers": [{"answer": "no"}]}]} for c in dev
    ]
    (preds / "claim_only.json").write_text(json.dumps(trivial))
    return data, tmp_path / "averitec"


def params(tmp_path, **kw):
    return {
        "judge": {"model": "stub-judge", "temperature": 0.0, "max_tokens": 3000},
        "threshold": 0.5,
        "comparison": ">",
        "prompt_file": None,
        "cache": str(tmp_path / "judge_cache.jsonl"),
        "max_claims": None,
        "jobs": 1,
        **kw,
    }


def llm_params(mode, base_url=None):
    return {"mode": mode, "base_url": base_url, "model": "not-the-judge", "timeout": 5, "max_retries": 1,
            "backoff": 0.01, "api_key_env": None}  # fmt: skip


def test_the_stage_runs_live_then_replays_byte_for_byte_and_off_skips(tmp_path):
    data, averitec_dir = stage_inputs(tmp_path)
    systems = {"systems": {}}
    with StubLLM(judge_answer) as stub:
        stub.faults += ["500"]  # one server error, retried
        live = EV.stage(
            params(tmp_path), llm_params("live", stub.base_url), systems, data, averitec_dir, tmp_path / "live"
        )
        n_claims = len(averitec.load_averitec("dev", data / "averitec" / "dev.json"))
        assert len(stub.requests) == 2 * 2 * n_claims + 1  # runs x (Q-only, Q+A) x claims, plus the retry
        assert {r["model"] for r in stub.requests} == {"stub-judge"} and stub.requests[0]["max_tokens"] == 3000
    replay = EV.stage(params(tmp_path), llm_params("replay"), systems, data, averitec_dir, tmp_path / "replay")
    for f in ("ev2r.parquet", "meteor.parquet", "solution.csv", "submissions/gold_copy.csv"):
        assert (tmp_path / "live" / f).read_bytes() == (tmp_path / "replay" / f).read_bytes(), f
    assert live["ev2r"] == replay["ev2r"] and live["judge"]["prompt_sha256"] == EV.load_prompt()[1]
    t = pd.read_parquet(tmp_path / "live" / "ev2r.parquet")
    assert list(t.columns) == EV.COLUMNS and len(t) == 2 * n_claims
    gold = live["ev2r"]["gold_copy"]
    assert gold["accuracy"] == 1.0 and gold["new_averitec"] == pytest.approx(
        EV.new_score(t[t["run"] == "gold_copy"], EV.judge_settings(params(tmp_path))[0]).mean()
    )
    assert "Q+A recall > 0.5" in gold["judge"]
    # another prompt is another cache key: replay cannot answer it from this cache
    (tmp_path / "other.txt").write_text("Other wording. {claim} {reference} {prediction}")
    with pytest.raises(CacheMiss):
        EV.stage(
            params(tmp_path, prompt_file=str(tmp_path / "other.txt")),
            llm_params("replay"),
            systems,
            data,
            averitec_dir,
            tmp_path / "x",
        )
    off = EV.stage(
        params(tmp_path, cache=str(tmp_path / "off" / "cache.jsonl")),
        llm_params("off"),
        systems,
        data,
        averitec_dir,
        tmp_path / "off",
    )
    assert (tmp_path / "off" / "cache.jsonl").read_bytes() == b""  # the stage's persistent output, even when off
    assert off["ev2r"].startswith("skipped: llm.mode is off")
    assert pd.read_parquet(tmp_path / "off" / "ev2r.parquet").empty
    m = pd.read_parquet(tmp_path / "off" / "meteor.parquet")
    assert set(m["run"]) == {"gold_copy", "claim_only"} and m.loc[m["run"] == "gold_copy", "correct"].all()


def test_rank_agreement_and_disagreements():
    runs = {"a": ([1, 1, 0, 0], [1, 1, 1, 0]), "b": ([1, 0, 0, 0], [1, 1, 0, 0]), "c": ([0, 0, 0, 0], [1, 0, 0, 0])}
    rows = [
        {"run": r, "claim_id": i, "old": o, "new": n}
        for r, (old, new) in runs.items()
        for i, (o, n) in enumerate(zip(old, new))
    ]
    out = EV.rank_agreement(pd.DataFrame(rows), n_resamples=200, seed=0)
    assert out["tau"] == 1.0 and out["runs"] == 3 and out["claims"] == 4 and out["low"] <= out["tau"] <= out["high"]
    flipped = pd.DataFrame(rows).assign(new=lambda d: -d["new"])
    assert EV.rank_agreement(flipped, n_resamples=50)["tau"] == -1.0
    with pytest.raises(ValueError, match="at least 3 runs"):
        EV.rank_agreement(pd.DataFrame(rows[:8]))
    meteor = pd.DataFrame({"run": ["a", "a", "b"], "claim_id": [0, 1, 0], "qa": [0.9, 0.3, 0.5]})
    ev = pd.DataFrame({"run": ["a", "a", "b"], "claim_id": [0, 1, 0], "qa_recall": [0.1, 0.4, 0.5]})
    d = EV.disagreements(meteor, ev, k=2)
    assert d[["run", "claim_id"]].values.tolist() == [["a", 0], ["a", 1]] and d["gap"].round(2).tolist() == [-0.8, 0.1]
