"""Ev2R and the new AVeriTeC score: parsing judge answers, the threshold edge, a hand-computed score, and
the stage end to end against the local stub server (live, then replay byte for byte; off skips)."""

import json
import math
import os

import pandas as pd
import pytest
from conftest import FIXTURE_DATA

from lib import timing as TM
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


def test_counts_of_unsupported_facts_are_none_of_the_four():
    """A judge that added `predicted_facts_unsupported` had it read as the supported count (0.6 became 0.4)."""
    answer = (
        '{"predicted_facts": 5, "predicted_facts_supported": 3, "predicted_facts_unsupported": 2, '
        '"reference_facts": 4, "reference_facts_supported": 4, "reference_facts_not_supported": 0, '
        '"predicted_facts_contradicted": 1}'
    )
    assert EV.parse_counts(answer) == EV.Counts(5, 3, 4, 4)


def test_a_count_given_twice_or_inside_an_example_is_never_the_answer():
    """A key given twice kept its last value (precision 0.05); an example object nested in the answer was read
    instead of the answer itself (the last object to start)."""
    twice = OWN.replace('{"predicted_facts": 4,', '{"predicted_facts": 4, "predicted_facts": 40,')
    with pytest.raises(EV.JudgeAnswerError, match="ambiguous_counts: key 'predicted_facts' given twice"):
        EV.parse_counts(twice)
    example = OWN[:-1] + ', "example": ' + OWN.replace("4", "1").replace("5", "1") + "}"
    assert EV.parse_counts(example) == EV.Counts(4, 3, 5, 2)


def test_an_answer_of_endless_braces_is_no_json_at_once():
    """`{"a":` 100,000 times took minutes per answer (every brace tried, each a thousand levels deep)."""
    assert EV.claim_result('{"a":' * 100_000)[2] == "no_json"
    assert len(EV._json_objects("{}" * (EV.MAX_OBJECT_STARTS + 5))) == EV.MAX_OBJECT_STARTS  # the last ones only


def test_a_count_supported_by_one_side_is_the_other_sides():
    """`supported_by_reference` counts predicted facts; it was read as the reference side's count, and
    precision and recall came out swapped (0.75 and 0.40 for 0.50 and 0.60)."""
    answer = '{"predicted_facts": 4, "supported_by_reference": 2, "reference_facts": 5, "supported_by_prediction": 3}'
    assert EV.parse_counts(answer) == EV.Counts(4, 2, 5, 3)
    assert EV._count_name("predicted_facts_supported_by_prediction") is None  # both sides named: none of the four


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
        (OWN.replace(": 3", ': "\u00b2"'), "bad_count"),  # '²' passed isdigit() and failed int(): a traceback
        (OWN.replace('"reference_facts": 5', '"reference_facts": 0').replace(": 2}", ": 0}"), "zero_facts"),
        (OWN.replace('"predicted_facts": 4', '"predicted_facts": 0').replace(": 3", ": 0"), "supported_above_facts"),
        (OWN.replace(": 2}", ": 7}"), "supported_above_facts"),
        (OWN.replace("}", ', "predicted_supported_facts": 1}'), "ambiguous_counts"),  # which of two is meant?
    ],
)
def test_unusable_answers_leave_the_claim_undefined_with_a_named_reason(answer, reason):
    with pytest.raises(EV.JudgeAnswerError) as err:
        EV.parse_counts(answer)
    assert err.value.reason == reason
    precision, recall, why = EV.claim_result(answer)  # no division by zero, a counted error, and not a 0
    assert math.isnan(precision) and math.isnan(recall) and why == reason
    assert EV.claim_result(None)[2] == "no_answer"  # a failed call


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
    assert t["qa_recall"].tolist()[:3] == [0.8, 0.8, 0.4] and math.isnan(t["qa_recall"].iloc[3])
    s = EV.summarise(t, judge())  # the undefined claim is left out of the means, and counted
    assert s["new_averitec"] == pytest.approx(1 / 3) and s["qa_recall"] == pytest.approx(2 / 3)
    assert s["errors"] == {"no_json": 1} and s["undefined"]["qa"] == 1
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
    with pytest.raises(EV.PromptFileError, match=r"bad.txt: expected the placeholders \{claim\}"):
        EV.load_prompt(tmp_path / "bad.txt")  # a NamedError: the command line prints one line, no traceback
    (tmp_path / "latin.txt").write_bytes("Claim {claim} {reference} {prediction} caf\xe9".encode("latin-1"))
    with pytest.raises(EV.PromptFileError, match=r"latin.txt: not UTF-8 text"):
        EV.load_prompt(tmp_path / "latin.txt")
    os.mkfifo(tmp_path / "fifo.txt")  # "no such file" before, for a file that is there
    for path in (tmp_path / "fifo.txt", "/dev/zero"):
        with pytest.raises(EV.PromptFileError, match=r"not a regular file \(a folder, a pipe or a device\?\)"):
            EV.load_prompt(path)
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
    assert out["tau"] == 1.0 and out["runs"] == 3 and out["claims"] == 4
    assert out["low"] != out["low"] and out["high"] != out["high"]  # 4 claims: too few to resample
    fifth = rows + [{"run": r, "claim_id": 4, "old": 0.5, "new": 0.5} for r in runs]
    out = EV.rank_agreement(pd.DataFrame(fifth), n_resamples=200, seed=0)
    assert out["claims"] == 5 and out["low"] <= out["tau"] <= out["high"]
    flipped = pd.DataFrame(rows).assign(new=lambda d: -d["new"])
    assert EV.rank_agreement(flipped, n_resamples=50)["tau"] == -1.0
    with pytest.raises(ValueError, match="at least 3 runs"):
        EV.rank_agreement(pd.DataFrame(rows[:8]))
    meteor = pd.DataFrame({"run": ["a", "a", "b"], "claim_id": [0, 1, 0], "qa": [0.9, 0.3, 0.5]})
    ev = pd.DataFrame({"run": ["a", "a", "b"], "claim_id": [0, 1, 0], "qa_recall": [0.1, 0.4, 0.5]})
    d = EV.disagreements(meteor, ev, k=2)
    assert d[["run", "claim_id"]].values.tolist() == [["a", 0], ["a", 1]] and d["gap"].round(2).tolist() == [-0.8, 0.1]


# ---------------------------------------------------------------- edges the tests above leave open (mutation)


def test_parsing_edges_every_count_key_and_the_order_of_objects():
    # a brace that does not parse before the answer, a later object without the counts, an unrelated key
    c = EV.parse_counts(
        "{not json} " + OWN.replace("}", ', "facts": 9, "facts count": 8, "explanation": "x"}') + ' {"note": 1}'
    )
    assert (c.predicted_facts, c.reference_facts) == (4, 5)
    # a key that counts but does not say "facts"
    assert EV.parse_counts(OWN.replace('"predicted_facts"', '"predicted count"', 1)).predicted_facts == 4
    # all supported is allowed on both sides: precision and recall 1
    full = EV.parse_counts(OWN.replace(": 3", ": 4").replace(": 2}", ": 5}"))
    assert (full.precision, full.recall) == (1.0, 1.0)
    over = OWN.replace(": 3", ": 5")
    with pytest.raises(EV.JudgeAnswerError, match="supported_above_facts"):
        EV.parse_counts(over)


def test_unusable_answers_say_what_was_wrong():
    long = "x" * 100
    cases = [
        (None, "no_answer: the judge gave no answer"),
        (long, f"no_json: no JSON object in {long[:80]!r}"),
        (OWN.replace(": 3", ": -1"), "bad_count: predicted_facts_supported is -1, expected a count >= 0"),
        ('{"predicted_facts": 4}', "missing_counts: no JSON object with the four counts " + str(list(EV.COUNTS))),
    ]
    for answer, message in cases:
        with pytest.raises(EV.JudgeAnswerError) as err:
            EV.parse_counts(answer)
        assert str(err.value) == message
    zero = OWN.replace('"reference_facts": 5', '"reference_facts": 0').replace(": 2}", ": 0}")
    with pytest.raises(EV.JudgeAnswerError, match="reference_facts=0.*: reference evidence without facts"):
        EV.parse_counts(zero)
    with pytest.raises(EV.JudgeAnswerError, match="reference_facts_supported=7.*: more supported facts than facts"):
        EV.parse_counts(OWN.replace(": 2}", ": 7}"))


def test_threshold_bounds_are_inclusive():
    assert judge(threshold=0.0).threshold == 0.0 and judge(threshold=1.0).threshold == 1.0
    with pytest.raises(ValueError, match="threshold -0.1"):
        judge(threshold=-0.1)


def test_prompt_paths_placeholders_and_conversions(tmp_path, monkeypatch):
    assert EV.load_prompt("prompts/ev2r.txt") == EV.load_prompt()  # relative to the project root
    monkeypatch.chdir(tmp_path)  # not to the working directory
    assert EV.load_prompt("prompts/ev2r.txt") == EV.load_prompt()
    assert EV.placeholders("{} {} {}") == "positional" and EV.placeholders("{prediction}{claim}{reference}") == "named"
    with pytest.raises(ValueError, match=r"^placeholders \['claim', 'evidence'\]$"):
        EV.placeholders("{claim} {evidence}")
    (tmp_path / "bad.txt").write_text("{claim} {evidence}")
    with pytest.raises(ValueError, match=r"braces doubled \(ValueError: placeholders \['claim', 'evidence'\]\)"):
        EV.load_prompt(tmp_path / "bad.txt")
    (tmp_path / "conv.txt").write_text("{claim!z} {reference} {prediction}")
    with pytest.raises(ValueError, match=r"conv.txt: .*conversions \['z', None, None\]"):
        EV.load_prompt(tmp_path / "conv.txt")
    assert EV.render("{claim!r} {reference!s} {prediction!a}", "c", "r", "é") == "'c' r '\\xe9'"
    for spec in ("{claim:d}", "{claim:>1500000000}"):  # a traceback at the first claim; 1.5 GB a prompt
        (tmp_path / "spec.txt").write_text(f"{spec} {{reference}} {{prediction}}")
        with pytest.raises(ValueError, match=rf"spec.txt: .*format specs \['{spec[7:-1]}'\] \(expected none"):
            EV.load_prompt(tmp_path / "spec.txt")


class RecordingLLM:
    """Answers every prompt of a batch with the same reply and records what it was asked."""

    def __init__(self, reply):
        self.reply, self.batches = reply, []

    def chat_many(self, batch, desc, usable):
        assert usable is EV.usable  # a live run asks again where the cached answer gives no usable counts
        self.batches.append((desc, batch))
        return [self.reply] * len(batch)


def test_usable_reads_the_counts_on_both_sides():
    assert EV.usable(OWN) and not EV.usable("I cannot tell.") and not EV.usable("")


def test_judge_run_asks_the_judge_once_per_claim_and_mode_and_tabulates_its_answers():
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")[:2]
    refs = [SC.reference_evidence(c) for c in claims]
    preds = [SC.Evidence("Supported", ("Q?",), ("Q? a",), True, (), (("Q?", "a"),)), refs[1]]
    llm = RecordingLLM(OWN)
    t = EV.judge_run(llm, "{claim}|{reference}|{prediction}", claims, refs, preds, "run-x")
    assert [d for d, _ in llm.batches] == ["Ev2R run-x q", "Ev2R run-x qa"]
    q_batch = llm.batches[0][1]
    assert q_batch[0] == [{"role": "user", "content": f"{claims[0].text}|{EV.evidence_text(refs[0], 'q')}|Q?"}]
    assert llm.batches[1][1][1][0]["content"] == "|".join(
        [claims[1].text, EV.evidence_text(refs[1], "qa"), EV.evidence_text(refs[1], "qa")]
    )
    assert list(t.columns) == EV.COLUMNS
    assert t.to_dict("list") == {
        "run": ["run-x", "run-x"],
        "kind": ["", ""],
        "claim_id": [c.claim_id for c in claims],
        "q_precision": [0.75, 0.75],
        "q_recall": [0.4, 0.4],
        "q_error": [None, None],
        "qa_precision": [0.75, 0.75],
        "qa_recall": [0.4, 0.4],
        "qa_error": [None, None],
        "label": [r.label for r in refs],
        "pred_label": ["Supported", refs[1].label],
        "correct": [refs[0].label == "Supported", True],
    }
    bad = EV.judge_run(RecordingLLM(None), "{} {} {}", claims, refs, preds, "r", kind="system")
    assert bad["kind"].tolist() == ["system"] * 2 and bad["qa_error"].tolist() == ["no_answer"] * 2


def test_new_score_keeps_the_table_index_and_summarise_counts_claims():
    t = table([0.9, 0.1], [True, True]).set_axis([7, 3])
    assert EV.new_score(t, judge()).to_dict() == {7: 1.0, 3: 0.0}
    assert EV.summarise(t, judge())["claims"] == 2


def test_judge_settings_read_every_field():
    j, template = EV.judge_settings(
        {
            "judge": {"model": "m", "temperature": 0.3, "max_tokens": 100},
            "threshold": 0.4,
            "comparison": ">=",
            "prompt_file": None,
        }  # fmt: skip
    )
    assert j == EV.Judge("m", EV.load_prompt()[1], 0.4, ">=", 0.3, 100) and template == EV.load_prompt()[0]


def test_runs_to_score_reads_planners_then_the_published_systems(tmp_path):
    data, averitec_dir = stage_inputs(tmp_path)
    claims = averitec.load_averitec("dev", data / "averitec" / "dev.json")
    (data / "averitec" / "systems").mkdir()
    (data / "averitec" / "systems" / "sys.json").write_text(
        (averitec_dir / "predictions" / "claim_only.json").read_text()
    )
    runs = EV.runs_to_score({"systems": {"published": "sys.json"}}, claims, data, averitec_dir)
    assert list(runs) == ["claim_only", "gold_copy", "published"]
    assert [k for k, _ in runs.values()] == ["planner", "planner", "system"]
    assert runs["published"][1] == runs["claim_only"][1] and len(runs["published"][1]) == len(claims)


def test_the_stage_reports_what_it_scored_and_reruns_into_the_same_folder(tmp_path, capsys):
    import time

    data, averitec_dir = stage_inputs(tmp_path)
    out = tmp_path / "out"
    p = params(tmp_path, max_claims=2, cache=str(tmp_path / "a" / "b" / "cache.jsonl"))
    p["judge"]["model"] = "stub-judgé"
    (data / "averitec" / "systems").mkdir()
    (data / "averitec" / "systems" / "sys.json").write_text(
        (averitec_dir / "predictions" / "gold_copy.json").read_text()
    )
    systems = {"systems": {"published": "sys.json"}}
    (out / "submissions").mkdir(parents=True)
    (out / "submissions" / "an_earlier_run.csv").write_text("id\n")  # stayed beside the new scores
    with StubLLM(judge_answer) as stub:
        start = time.perf_counter()
        report = EV.stage(p, llm_params("live", stub.base_url), systems, data, averitec_dir, out)
        assert sorted(f.stem for f in (out / "submissions").iterdir()) == ["claim_only", "gold_copy", "published"]
        elapsed = time.perf_counter() - start
        assert len(stub.requests) == 2 * 2 * 2  # runs x modes x the first two claims (the system repeats gold_copy)
        again = EV.stage(p, llm_params("live", stub.base_url), systems, data, averitec_dir, out)
    assert report["claims"] == 2 and report["runs"] == ["claim_only", "gold_copy", "published"]
    assert report["ev2r"]["published"] == report["ev2r"]["gold_copy"]
    import csv

    import pyarrow.parquet as pq

    for f, split in (("solution.csv", "gold"), ("submissions/claim_only.csv", "pred")):
        with open(out / f, encoding="utf-8", newline="") as fh:
            assert [r[-1] for r in csv.reader(fh)] == ["split", split, split], f
    assert pq.read_schema(out / "ev2r.parquet").names == EV.COLUMNS
    assert pq.read_schema(out / "meteor.parquet").names[-2:] == ["run", "kind"]
    assert (
        report["judge"]["describe"] == EV.judge_settings(p)[0].describe() and "stub-judgé" in report["judge"]["model"]
    )
    # the scorer's seconds go to the timing file (lib.timing.measured), never to the report
    assert "meteor_seconds" not in report and "seconds" not in (out / "report.json").read_text(encoding="utf-8")
    assert all(
        0 <= TM.measurements()[f"meteor/{run}"]["seconds"] <= elapsed for run in report["runs"]
    )  # 0.0: under 5 ms
    assert (report["llm"]["requests"], again["llm"]["requests"], again["llm"]["cache_entries"]) == (8, 0, 8)
    text = (out / "report.json").read_text(encoding="utf-8")
    assert text.startswith('{\n  "claims": 2,\n  "runs": [\n') and text.endswith("}\n") and "stub-judgé" in text
    assert json.loads(text) == again
    meteor = pd.read_parquet(out / "meteor.parquet")
    assert meteor["kind"].tolist() == ["planner"] * 4 + ["system"] * 2
    ev = pd.read_parquet(out / "ev2r.parquet")
    assert ev["kind"].tolist() == ["planner"] * 4 + ["system"] * 2 and ev["claim_id"].tolist() == [0, 1] * 3
    printed = capsys.readouterr().out
    lines = printed.splitlines()
    assert lines[0].startswith(f"2025 METEOR {'claim_only':34s} Q+A ") and lines[0].endswith(" s)")
    # the judge heads the scores it gave (scores of different judges are not comparable)
    assert printed.index(report["judge"]["describe"]) < printed.index("Ev2R claim_only")
    gold = report["ev2r"]["gold_copy"]
    assert f"Ev2R {'gold_copy':34s} Q+A recall {gold['qa_recall']:.4f}  new {gold['new_averitec']:.4f}" in lines
    off = EV.stage(p, llm_params("off"), {"systems": {}}, data, averitec_dir, tmp_path / "off")
    assert capsys.readouterr().out.splitlines()[-1] == f"Ev2R {off['ev2r']}"
    assert list(pd.read_parquet(tmp_path / "off" / "ev2r.parquet").columns) == EV.COLUMNS


def test_main_scores_the_sections_of_the_params_file(tmp_path, monkeypatch):
    import yaml

    from lib.params import section
    from lib.paths import PARAMS_FILE

    raw = yaml.safe_load(PARAMS_FILE.read_text())
    raw["averitec_2025"]["threshold"] = 0.25
    raw["llm"]["timeout"] = 7
    raw["averitec"]["jobs"] = 1
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(raw))
    seen = []
    monkeypatch.setattr(EV, "stage", lambda *a, lenient: seen.append((*a, lenient)))
    monkeypatch.setattr(EV, "study_params_only", lambda *a: None)  # another file is refused at once (test_params)
    EV.main(["--params", str(path)])
    ((p, llm, av, data_dir, averitec_dir, lenient),) = seen
    assert lenient is False
    assert (p["threshold"], llm["timeout"], av["jobs"]) == (0.25, 7, 1)
    assert (data_dir, averitec_dir) == (EV.DATA_DIR, EV.AVERITEC_DIR)
    seen.clear()
    monkeypatch.chdir(tmp_path)  # the default is the project's params.yaml, wherever it runs from
    EV.main([])
    assert seen[0][0] == section("averitec_2025", PARAMS_FILE) and seen[0][0]["threshold"] != 0.25


def test_rank_agreement_interval_is_the_percentiles_of_the_seeded_resample_without_undefined_taus():
    """The twenty-ninth pass: undefined resamples counted as 0 gave tau -1.0 an interval reaching 0."""
    import numpy as np
    from scipy.stats import kendalltau

    # three runs that differ on claim 0 only: a resample without claim 0 ties every run (tau NaN, left out)
    old = {"a": [1, 0, 0, 0, 0], "b": [0.5, 0, 0, 0, 0], "c": [0, 0, 0, 0, 0]}
    new = {"a": [0, 1, 1, 1, 1], "b": [0.5, 1, 1, 1, 1], "c": [1, 1, 1, 1, 1]}
    rows = [{"run": r, "claim_id": i, "old": old[r][i], "new": new[r][i]} for r in old for i in range(5)]
    out = EV.rank_agreement(pd.DataFrame(rows))  # the defaults: 1000 resamples, seed 0
    o, n = pd.DataFrame(old).to_numpy(), pd.DataFrame(new).to_numpy()
    rng = np.random.default_rng(0)
    taus = []
    for _ in range(1000):
        idx = rng.integers(0, 5, 5)
        t = kendalltau(o[idx].mean(0), n[idx].mean(0)).statistic
        taus.append(t)
    undefined = sum(t != t for t in taus)
    assert 0 < undefined < 1000 and -1.0 in taus  # both kinds of resample occur
    assert out == {"tau": -1.0, "low": -1.0, "high": -1.0, "runs": 3, "claims": 5, "undefined_resamples": undefined}
    lone = EV.rank_agreement(pd.DataFrame(rows), n_resamples=1, seed=0)  # its one resample leaves claim 0 out
    assert lone["tau"] == -1.0 and lone["low"] != lone["low"] and lone["high"] != lone["high"]
    assert lone["undefined_resamples"] == 1
    # runs whose resampled taus spread: the interval moves with the seed and with the number of resamples
    g = np.random.default_rng(1)
    spread = pd.DataFrame(
        [{"run": r, "claim_id": i, "old": g.random(), "new": g.random()} for r in range(20) for i in range(30)]
    )
    base = EV.rank_agreement(spread)
    wide = {c: spread.pivot(index="claim_id", columns="run", values=c).to_numpy() for c in ("old", "new")}
    rng, taus = np.random.default_rng(0), []
    for _ in range(1000):
        idx = rng.integers(0, 30, 30)
        taus.append(kendalltau(wide["old"][idx].mean(0), wide["new"][idx].mean(0)).statistic)
    assert (base["low"], base["high"]) == (float(np.quantile(taus, 0.025)), float(np.quantile(taus, 0.975)))
    assert base == EV.rank_agreement(spread, n_resamples=1000, seed=0)
    assert EV.rank_agreement(spread, seed=1) != base and EV.rank_agreement(spread, n_resamples=1001) != base


def test_rank_agreement_leaves_out_undefined_claims_and_has_no_interval_for_an_undefined_tau():
    """One claim left undefined by the judge made tau NaN beside an interval of zeros; a constant side gave
    "nan [0.00, 0.00]" (the twenty-eighth pass)."""
    import math

    runs = {"a": ([1, 1, 0, 0], [1, 1, 1, 0]), "b": ([1, 0, 0, 0], [1, 1, 0, 0]), "c": ([0, 0, 0, 0], [1, 0, 0, 0])}
    rows = [
        {"run": r, "claim_id": i, "old": o, "new": n}
        for r, (old, new) in runs.items()
        for i, (o, n) in enumerate(zip(old, new))
    ]
    table = pd.DataFrame(rows)
    full = EV.rank_agreement(table, n_resamples=200, seed=0)
    gap = table.copy()
    gap.loc[(gap["run"] == "b") & (gap["claim_id"] == 3), "new"] = math.nan  # claim 3 out, for every run
    assert EV.rank_agreement(gap, n_resamples=200, seed=0) == EV.rank_agreement(
        table[table["claim_id"] != 3], n_resamples=200, seed=0
    )
    old_gap = table.copy()
    old_gap.loc[0, "old"] = math.nan  # an undefined old score, too: claim 0 out
    assert EV.rank_agreement(old_gap, n_resamples=200, seed=0)["claims"] == 3
    assert full["claims"] == 4
    constant = EV.rank_agreement(table.assign(old=0.5), n_resamples=200, seed=0)
    assert math.isnan(constant["tau"]) and math.isnan(constant["low"]) and math.isnan(constant["high"])
    assert (constant["runs"], constant["claims"], constant["undefined_resamples"]) == (3, 4, 0)
    with pytest.raises(ValueError, match="^rank agreement: no claim has both scores for every run$"):
        EV.rank_agreement(table.assign(new=math.nan))


def test_disagreements_default_to_three_and_keep_ties_in_order():
    import numpy as np

    meteor = pd.DataFrame({"run": ["a"] * 4, "claim_id": [3, 0, 1, 2], "qa": [0.0, 0.5, 0.5, 0.5]})
    ev = pd.DataFrame({"run": ["a"] * 4, "claim_id": [3, 0, 1, 2], "qa_recall": [0.1, 0.0, 1.0, 0.0]})
    assert EV.disagreements(meteor, ev)["claim_id"].tolist() == [0, 1, 2]
    # many ties: the largest gaps in the order of the table (a stable sort), not in a sort's own order
    gaps = np.random.default_rng(0).integers(0, 3, 200) / 4
    m = pd.DataFrame({"run": "a", "claim_id": range(200), "qa": 0.0})
    e = pd.DataFrame({"run": "a", "claim_id": range(200), "qa_recall": gaps})
    top = EV.disagreements(m, e, k=60)["claim_id"].tolist()
    assert top == [i for i in range(200) if gaps[i] == 0.5][:60]


def test_help_names_the_command_and_keeps_the_formulas_laid_out(capsys):
    with pytest.raises(SystemExit):
        EV.main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m lib.averitec.ev2r [-h] [--params PARAMS]")
    assert "\n    precision = supported predicted facts / predicted facts\n" in out


def test_a_failing_judge_stops_the_stage_unless_lenient_and_no_score_is_zero(tmp_path, capsys):
    from lib.cli import NamedError

    data, averitec_dir = stage_inputs(tmp_path)
    systems = {"systems": {}}
    p = params(tmp_path, max_claims=2)
    out = tmp_path / "out"
    with StubLLM(judge_answer) as stub:
        stub.faults += ["html"]  # the first judgement: a sign-in page instead of an answer
        with pytest.raises(NamedError, match=r"Ev2R: 1 judgement\(s\) in 1 run\(s\) are undefined .*--lenient"):
            EV.stage(p, llm_params("live", stub.base_url), systems, data, averitec_dir, out)
        assert not any((out / f).exists() for f in ("ev2r.parquet", "report.json", "meteor.parquet"))
        assert sorted(p.name for p in out.rglob("*.csv")) == []  # the CSVs are placed with the scores, or not
        stub.faults += ["html"]
        report = EV.stage(p, llm_params("live", stub.base_url), systems, data, averitec_dir, out, lenient=True)
    assert "left out of the means" in capsys.readouterr().err
    ((run, modes),) = report["skipped"].items()
    assert sum(len(ids) for ids in modes.values()) == 1
    t = pd.read_parquet(out / "ev2r.parquet")
    assert t[f"{next(iter(modes))}_recall"].isna().sum() == 1  # undefined, not 0.0
    assert report["ev2r"][run]["undefined"][next(iter(modes))] == 1


def test_the_stage_without_the_planners_predictions_names_the_stage_that_makes_them(tmp_path):
    from lib.cli import NamedError

    data, averitec_dir = stage_inputs(tmp_path)
    for f in (averitec_dir / "predictions").iterdir():
        f.unlink()
    with pytest.raises(NamedError, match=r"no planners' predictions; the pipeline stage `averitec` writes them"):
        EV.stage(params(tmp_path), llm_params("off"), {"systems": {}}, data, averitec_dir, tmp_path / "out")


def test_a_judge_that_defines_nothing_stops_even_a_lenient_stage(tmp_path):
    from lib.cli import NamedError

    data, averitec_dir = stage_inputs(tmp_path)
    out = tmp_path / "out"
    with StubLLM(lambda messages: "I cannot judge this.") as stub:
        with pytest.raises(
            NamedError, match=r"Ev2R: all 4 judgement\(s\) in 2 run\(s\) are undefined .*even with --lenient"
        ):
            EV.stage(
                params(tmp_path, max_claims=1), llm_params("live", stub.base_url), {"systems": {}}, data,
                averitec_dir, out, lenient=True,
            )  # fmt: skip
    assert not any((out / f).exists() for f in ("ev2r.parquet", "report.json", "meteor.parquet"))
    t = pd.DataFrame({"run": ["r"], "claim_id": [0], "qa_recall": [float("nan")], "correct": [True]})
    assert EV._mean(EV.new_score(t, EV.judge_settings(params(tmp_path))[0])) is None  # JSON null, never NaN


def test_runs_to_score_takes_the_planned_files_names_the_missing_and_skips_stale_ones(tmp_path, capsys):
    from lib.cli import NamedError

    data, averitec_dir = stage_inputs(tmp_path)
    claims = averitec.load_averitec("dev", data / "averitec" / "dev.json")
    planned = {"plans": ["claim_only"], "duplicate_for": [], "systems": {}}
    assert list(EV.runs_to_score(planned, claims, data, averitec_dir)) == ["claim_only"]
    assert "not scored, not in params averitec.plans: gold_copy" in capsys.readouterr().err
    with pytest.raises(NamedError, match=r"no predictions of claim_only__duplicated, oracle \(params averitec.plans\)"):
        EV.runs_to_score({**planned, "plans": ["claim_only", "oracle"], "duplicate_for": ["claim_only"]}, claims,
                         data, averitec_dir)  # fmt: skip


def test_a_prompt_file_that_is_some_other_file_gives_a_short_message():
    """A JSON file as the prompt quoted most of itself in a 1.8 MB error line."""
    with pytest.raises(ValueError) as err:
        EV.placeholders("{" + ":x} {".join(str(i) for i in range(100_000)) + ":x}")
    assert len(str(err.value)) < 1_000


# ---------------------------------------------------------------- edges and messages, word for word (mutation testing)


def test_a_prompt_file_that_is_a_folder_is_named_as_no_prompt_file(tmp_path):
    with pytest.raises(EV.PromptFileError) as err:
        EV.load_prompt(tmp_path)
    assert str(err.value) == (
        f"Ev2R prompt_file {tmp_path}: not a regular file (a folder, a pipe or a device?); expected a prompt file"
    )


def test_a_count_supported_by_the_other_side_keeps_its_own_side_name():
    # "predicted facts supported by the reference": the predicted side, named twice, is one side
    assert EV._count_name("predicted_facts_supported_by_reference") == "predicted_facts_supported"
    assert EV._count_name("reference_facts_supported_by_predicted") == "reference_facts_supported"


def test_a_count_key_given_twice_is_found_behind_other_keys():
    answer = (
        '{"note": 1, "predicted_facts": 4, "predicted_facts": 40, "predicted_facts_supported": 3, '
        '"reference_facts": 5, "reference_facts_supported": 2}'
    )
    with pytest.raises(EV.JudgeAnswerError) as err:
        EV.parse_counts(answer)
    assert str(err.value) == "ambiguous_counts: key 'predicted_facts' given twice"


def test_two_keys_read_as_one_count_are_named():
    answer = OWN[:-1] + ', "facts predicted": 7}'
    with pytest.raises(EV.JudgeAnswerError) as err:
        EV.parse_counts(answer)
    assert (
        str(err.value) == "ambiguous_counts: keys 'predicted_facts' and 'facts predicted' both read as predicted_facts"
    )


def test_objects_after_one_with_an_object_inside_are_still_read():
    text = '{"example": {"a": 1}} and then {"b": 2} and ' + OWN
    assert [list(o) for o in EV._json_objects(text)][:2] == [["example"], ["b"]]
    assert EV.parse_counts(text) == EV.Counts(4, 3, 5, 2)


def test_the_new_score_is_a_float_series_with_nan_where_undefined():
    s = EV.new_score(table([0.9, float("nan")], [True, True]), judge(threshold=0.5, comparison=">"))
    assert s.dtype == float and s.iloc[0] == 1.0 and math.isnan(s.iloc[1])
    assert EV._shown(None) == "undefined" and EV._shown(0.5) == "0.5000"


class _FailedJudge:
    endpoint = "http://judge.example/v1"

    def __init__(self, errors):
        self.errors = errors

    def report(self):
        return {"errors": self.errors} if self.errors is not None else {}


def test_undefined_judgements_are_refused_in_words_and_a_lenient_note_is_bounded(capsys):
    from lib.cli import NamedError

    skipped = {"run_a": {"qa": [1, 2]}, "run_b": {"q": [3]}}
    with pytest.raises(NamedError) as err:
        EV.refuse_undefined(skipped, _FailedJudge({"html": 3}), lenient=False)
    assert str(err.value) == (
        "Ev2R: 3 judgement(s) in 2 run(s) are undefined (the judge at http://judge.example/v1 failed or answered "
        "without usable counts; {'html': 3}); no score was written. Fix the judge, or rerun with --lenient to "
        "score the rest"
    )
    with pytest.raises(NamedError, match=r"without usable counts; see the report\); no score"):
        EV.refuse_undefined(skipped, _FailedJudge(None), lenient=False)
    many = {"run": {"qa": list(range(5000))}}
    EV.refuse_undefined(many, _FailedJudge({}), lenient=True, total=10_000)
    line = capsys.readouterr().err
    assert line.startswith("Ev2R --lenient: 5000 judgement(s) in 1 run(s) are undefined") and len(line) == 2001


def test_the_judge_client_is_the_averitec_2025_stages(tmp_path):
    llm = EV.judge_llm(judge(), llm_params("off"), tmp_path / "cache.jsonl")
    assert llm.cache.stage == "averitec_2025"  # the stage whose kept output its cache may be
    # the thirty-ninth pass: a judge cache that is a folder or no cache was blamed on `llm.cache`
    from lib.planning.llm import LLMError

    with pytest.raises(LLMError, match=r"^averitec_2025.cache: .* is a directory"):
        EV.judge_llm(judge(), llm_params("off"), tmp_path)
    (tmp_path / "ref.json").write_text('{"not": "a cache"}\n')
    with pytest.raises(LLMError, match=r"^averitec_2025.cache: .*ref.json is not an answer cache"):
        EV.judge_llm(judge(), llm_params("off"), tmp_path / "ref.json")


def test_runs_to_score_in_the_files_order_without_duplicate_for_and_its_errors_in_words(tmp_path, capsys):
    from lib.cli import NamedError

    data, averitec_dir = stage_inputs(tmp_path)
    claims = averitec.load_averitec("dev", data / "averitec" / "dev.json")
    folder = averitec_dir / "predictions"
    (folder / "claim_only-b.json").write_text((folder / "claim_only.json").read_text())
    # no `duplicate_for` in the section: nothing is duplicated; "claim_only-b.json" sorts before "claim_only.json"
    runs = EV.runs_to_score(
        {"plans": ["claim_only", "claim_only-b", "gold_copy"], "systems": {}}, claims, data, averitec_dir
    )
    assert list(runs) == ["claim_only-b", "claim_only", "gold_copy"]
    EV.runs_to_score({"plans": ["claim_only"], "systems": {}}, claims, data, averitec_dir)
    assert capsys.readouterr().err == "Ev2R: not scored, not in params averitec.plans: claim_only-b, gold_copy\n"
    with pytest.raises(NamedError) as err:
        EV.runs_to_score({"plans": ["oracle"], "systems": {}}, claims, data, averitec_dir)
    assert str(err.value) == (
        f"{folder}: no predictions of oracle (params averitec.plans); the pipeline stage `averitec` writes them "
        "(run `dvc repro averitec`)"
    )


def test_the_stage_removes_its_scratch_folder_and_its_clean_up_can_run_again(tmp_path, monkeypatch):
    from lib.cli import CLEANUPS

    data, averitec_dir = stage_inputs(tmp_path)
    scratch = tmp_path / "scratch"
    monkeypatch.setattr(EV.tempfile, "mkdtemp", lambda prefix: str(scratch.mkdir() or scratch))
    TM._MEASURED.clear()  # what earlier tests measured in this process
    report = EV.stage(
        params(tmp_path, max_claims=1), llm_params("off"), {"systems": {}}, data, averitec_dir, tmp_path / "out"
    )
    assert not scratch.exists()
    assert {f"meteor/{run}" for run in report["runs"]} <= set(TM.measurements())
    import pyarrow.parquet as pq

    for name in ("meteor.parquet", "ev2r.parquet"):  # no index stored beside the columns (the bytes DVC hashes)
        assert pq.read_schema(tmp_path / "out" / name).pandas_metadata["index_columns"] == []
    cleanup = CLEANUPS.pop()  # what a signal would run: it removes the folder, and may run after the stage's own
    scratch.mkdir()
    (scratch / "x.csv").write_text("x")
    cleanup()
    assert not scratch.exists()
    cleanup()  # the folder already gone: no error


def test_main_refuses_an_empty_params_path_and_its_help_says_what_lenient_does(capsys):
    with pytest.raises(SystemExit) as err:
        EV.main(["--params", ""])
    assert err.value.code == 2 and "--params" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        EV.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    said = "--lenient when the judge fails on some claims, score the rest and list what was skipped (default: stop)"
    assert out.endswith(said) or f"{said} " in out


def test_rank_agreement_has_no_interval_below_five_claims():
    """The thirtieth pass: one claim gave a "95% interval" of 1.00 to 1.00."""
    one = pd.DataFrame({"run": ["a", "b", "c"], "claim_id": ["x"] * 3, "old": [0.1, 0.2, 0.3], "new": [0.2, 0.3, 0.4]})
    out = EV.rank_agreement(one, 1000)
    assert out["tau"] == 1.0 and out["claims"] == 1 and out["low"] != out["low"] and out["high"] != out["high"]


def test_rank_agreement_leaves_out_a_claim_a_run_has_no_row_for_and_names_a_repeat():
    """A claim missing from one run made every run's mean NaN: tau "undefined"; a repeated row was pandas'
    'Index contains duplicate entries'."""
    runs = {"a": [1.0, 0.9, 0.8, 0.7, 0.6], "b": [0.5, 0.4, 0.3, 0.2, 0.1], "c": [0.0, 0.1, 0.0, 0.1, 0.0]}
    rows = [
        {"run": r, "claim_id": i, "old": v, "new": v / 2} for r, values in runs.items() for i, v in enumerate(values)
    ]
    full = EV.rank_agreement(pd.DataFrame(rows), n_resamples=50)
    without = [r for r in rows if not (r["run"] == "b" and r["claim_id"] == 4)]
    out = EV.rank_agreement(pd.DataFrame(without), n_resamples=50)
    assert full["tau"] == out["tau"] == 1.0 and full["claims"] == 5 and out["claims"] == 4
    with pytest.raises(ValueError, match=r"^rank agreement: run 'a' scores claim 2 twice; each once$"):
        EV.rank_agreement(pd.DataFrame(rows + [rows[2]]), n_resamples=50)


@pytest.mark.parametrize(
    "suffix", ["without_support", "no_support", "with_no_support", "lacking_support", "that_lack_support",
               "missing_support", "supported_false", "unsupported", "not_supported", "refuted", "contradicted"]
)  # fmt: skip
def test_a_count_of_facts_lacking_support_is_none_of_the_four(suffix):
    """Forty-seventh pass: "predicted_facts_without_support": 3 was read as the supported count, so a judge's
    1 of 4 supported facts scored precision 0.75 (and the answer was cached as usable)."""
    assert EV._count_name(f"predicted_facts_{suffix}") is None
    answer = (
        f'{{"predicted_facts": 4, "predicted_facts_{suffix}": 3, "reference_facts": 5, "reference_facts_{suffix}": 1}}'
    )
    assert EV.claim_result(answer)[2] == "missing_counts"


def test_count_keys_in_other_spellings_are_still_read():
    assert EV._count_name("predictedFactsSupported") == "predicted_facts_supported"
    assert EV._count_name("n_predicted_facts") == "predicted_facts"
    assert EV._count_name("number of reference facts that are supported") == "reference_facts_supported"


def test_a_prediction_without_facts_has_recall_0_and_no_precision():
    """The forty-seventh pass: predicted_facts 0 was `zero_facts`, the claim undefined and, with --lenient, left
    out of the new AVeriTeC score's mean (a run without evidence on hard claims scored higher)."""
    empty = (
        '{"predicted_facts": 0, "predicted_facts_supported": 0, "reference_facts": 5, "reference_facts_supported": 0}'
    )
    precision, recall, error = EV.claim_result(empty)
    assert precision != precision and (recall, error) == (0.0, None)
