"""lib.planning.prompted: prompts, parsers, and planners against the stub server (tests/llm_stub.py)."""

from __future__ import annotations

import numpy as np

from lib.data import averitec, claimdecomp
from lib.planning import llm as LM
from lib.planning import prompted as PR
from tests.conftest import FIXTURE_DATA
from tests.llm_stub import StubLLM

PROGRAM = """def program():
    answer_1 = Question("Which agency published the photo?")
    fact_1 = Verify(f"{answer_1} says the moon is made of cheese.")
    fact_2 = Verify('NASA said it in 2020.')
    label = Predict(fact_1 and fact_2)"""


def stub_answer(messages) -> str:
    """Canned answers by prompt, as a chatty model would write them."""
    text = messages[-1]["content"]
    if "Decompose the claim" in text:
        return 'Here are the questions:\n["Is the moon made of cheese?", "Did NASA say so?"]'
    if "Python-like program" in text:
        return PROGRAM
    if "Justification:" in text:
        return '["What did NASA say about the moon?", "What is the moon made of?", "Who made the claim?"]'
    if "Which questions would help" in text:
        return "1. Is the moon made of cheese?\n2. When did NASA speak?"
    if "first question" in text:
        return "First question: What is the moon made of?"
    if "Questions asked so far" in text:
        return "Verdict: Refuted" if text.count("\nQ") >= 2 else "Next question: Did NASA say it in 2020?"
    return "I cannot help with that."


def test_program_steps_become_queries():
    assert PR.program_queries(PROGRAM) == [
        "Which agency published the photo?",
        "says the moon is made of cheese.",
        "NASA said it in 2020.",
    ]
    assert PR.program_queries("no program") == [] and PR.program_queries(None) == []


def test_parse_next():
    assert PR.parse_next("Verdict: Refuted.") == ("verdict", "Refuted")
    assert PR.parse_next("verdict - Conflicting Evidence") == ("verdict", "Conflicting Evidence/Cherrypicking")
    assert PR.parse_next("Next question: Who said it?") == ("question", "Who said it?")
    assert PR.parse_next("") is None and PR.parse_next("Nothing useful.") is None
    # a question that mentions a verdict is no verdict (it stopped the pursuit with a made-up label)
    assert PR.parse_next("Next question: Was the verdict - refuted in appeal - final?")[0] == "question"
    assert PR.parse_next("Thinking it over.\nVerdict: Supported") == ("verdict", "Supported")
    # JSON where text is expected: `{"verdict": ...}` was no verdict, a question object a query of JSON
    assert PR.parse_next('{"verdict": "Refuted"}') == ("verdict", "Refuted")
    assert PR.parse_next('{"next_question": "Did the WHO confirm it?"}') == ("question", "Did the WHO confirm it?")
    # the forty-seventh pass: a verdict that names no label dropped the question beside it (null kept it)
    for said in ('""', '"undecided"', "null"):
        assert PR.parse_next(f'{{"verdict": {said}, "next_question": "Who?"}}') == ("question", "Who?"), said
    assert PR.parse_next('{"verdict": "undecided"}') is None


def test_nearest_examples_by_cosine_with_ties_to_the_lower_index():
    ex = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.6, 0.8]])
    assert PR.nearest(np.array([1.0, 0.0]), ex, 3) == [0, 2, 3]


def test_claimdecomp_prompt_holds_its_examples():
    claims = claimdecomp.load_claimdecomp("dev", FIXTURE_DATA / "claimdecomp" / "dev.jsonl")
    examples = PR.decomposition_examples(claims)
    assert examples[2] == ("Vaccines contain microchips.", ["Do vaccines contain microchips?"])
    dev = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    msg = PR.claimdecomp_messages(dev[0], examples[:2])
    assert "Claim: The moon landing cost more" in msg[-1]["content"]
    assert msg[-1]["content"].rstrip().endswith(f"Claim: {dev[0].text}\nQuestions:")


def test_prompted_plans_live_then_replay(tmp_path):
    dev = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    with StubLLM(stub_answer) as stub:
        s = LM.LLMSettings(
            mode="live", model="stub", backoff=0.01, cache=str(tmp_path / "c.jsonl"), base_url=stub.base_url
        )
        stub.faults += ["429", "malformed"]
        llm = LM.LLM(s)
        plans = {kind: PR.prompted_plan(llm, kind, dev, progress=False) for kind in PR.PROMPTED}
        temps = {r["temperature"] for r in stub.requests if "Decompose" in r["messages"][-1]["content"]}
    assert temps == {0.1}
    plan, counts = plans["all_at_once"]
    assert counts == {"claims": 3, "failed": 0, "unparsed": 0}
    assert plan[0] == ["Is the moon made of cheese?", "When did NASA speak?"]
    # the malformed answer hit the first CLAIMDECOMP claim: counted, and its plan is empty
    assert plans["claimdecomp"][1]["unparsed"] == 1 and plans["claimdecomp"][0][0] == []
    assert plans["pgmfc"][0][1] == PR.program_queries(PROGRAM)
    assert llm.counters.retries == 1 and llm.counters.parse_failures == 1
    replay = LM.LLM(LM.LLMSettings(mode="replay", model="stub", cache=str(tmp_path / "c.jsonl")))
    again = {kind: PR.prompted_plan(replay, kind, dev, progress=False)[0] for kind in PR.PROMPTED}
    assert again == {kind: p for kind, (p, _) in plans.items()} and replay.counters.requests == 0


def test_a_cached_answer_with_no_query_is_asked_again_in_a_live_run(tmp_path):
    """An empty 200 was cached as a good answer: a later live run read it and never asked again."""
    dev = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")[:1]
    answers = iter(["", '["Who said it?"]'])
    with StubLLM(lambda messages: next(answers)) as stub:
        s = LM.LLMSettings(
            mode="live", model="stub", backoff=0.01, cache=str(tmp_path / "c.jsonl"), base_url=stub.base_url
        )
        first = PR.prompted_plan(LM.LLM(s), "all_at_once", dev, progress=False)
        second = PR.prompted_plan(LM.LLM(s), "all_at_once", dev, progress=False)
    assert first[1]["unparsed"] == 1 and second[0] == {dev[0].claim_id: ["Who said it?"]}
    assert len(stub.requests) == 2
