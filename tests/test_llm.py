"""lib.llm against a real HTTP stub server (tests/llm_stub.py) with the real openai SDK."""
from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import time

import pytest

from lib import llm as L
from tests.llm_stub import StubLLM

MSG = [{"role": "user", "content": "Which questions verify: the moon is made of cheese?"}]


def settings(stub: StubLLM | None, tmp_path, **kw) -> L.LLMSettings:
    base = dict(mode="live", base_url=stub.base_url if stub else None, model="stub-model", timeout=0.5,
                max_retries=3, backoff=0.01, cache=str(tmp_path / "cache.jsonl"))
    return L.LLMSettings(**{**base, **kw})


def canned(messages):
    return 'Here you go:\n["Is the moon made of rock?", "What did NASA find?"]\nAnything else?'


def test_live_then_replay_is_offline_and_identical(tmp_path):
    with StubLLM(canned) as stub:
        live = L.LLM(settings(stub, tmp_path))
        first = live.chat(MSG)
        assert first == canned(MSG)
        assert live.chat(MSG) == first and len(stub.requests) == 1  # the second came from the cache
        assert live.counters.cache_hits == 1 and live.counters.answered == 1
        body = stub.requests[0]
        assert body["model"] == "stub-model" and body["temperature"] == 0.0 and body["seed"] == 0
    replay = L.LLM(settings(None, tmp_path, mode="replay", base_url="http://127.0.0.1:9/v1"))  # nothing listens
    assert replay.chat(MSG) == first
    assert replay.counters.requests == 0


def test_parameters_are_part_of_the_key(tmp_path):
    with StubLLM(canned) as stub:
        client = L.LLM(settings(stub, tmp_path))
        client.chat(MSG)
        client.chat(MSG, temperature=0.1)
        assert len(stub.requests) == 2 and stub.requests[1]["temperature"] == 0.1
    assert L.cache_key("m", MSG, {"temperature": 0.0}) != L.cache_key("m2", MSG, {"temperature": 0.0})


def test_replay_lists_every_missing_entry(tmp_path):
    replay = L.LLM(settings(None, tmp_path, mode="replay"))
    batch = [MSG, [{"role": "user", "content": "another prompt"}]]
    with pytest.raises(L.CacheMiss) as err:
        replay.chat_many(batch, progress=False)
    assert len(err.value.missing) == 2
    assert "2 answer(s) are not in the cache" in str(err.value) and "another prompt" in str(err.value)


def test_off_mode_makes_no_calls(tmp_path):
    client = L.LLM(settings(None, tmp_path, mode="off"))
    assert not client.enabled
    with pytest.raises(L.LLMError, match="off"):
        client.chat(MSG)


def test_rate_limits_and_server_errors_are_retried_with_backoff(tmp_path):
    with StubLLM(canned) as stub:
        stub.faults += ["429", "500", "429"]
        client = L.LLM(settings(stub, tmp_path))
        start = time.perf_counter()
        assert client.chat(MSG) == canned(MSG)
        waited = time.perf_counter() - start
    c = client.counters
    assert (c.requests, c.retries, c.failures, c.answered) == (4, 3, 0, 1)
    assert c.errors == {"http_429": 2, "http_500": 1}
    assert waited >= 0.01 + 0.02 + 0.04  # exponential backoff


def test_timeouts_are_retried(tmp_path):
    with StubLLM(canned, delay=1.0) as stub:
        stub.faults.append("timeout")
        client = L.LLM(settings(stub, tmp_path, timeout=0.2))
        assert client.chat(MSG) == canned(MSG)
    assert client.counters.errors == {"APITimeoutError": 1} and client.counters.retries == 1


def test_give_up_after_retries_is_counted_and_not_cached(tmp_path):
    with StubLLM(canned) as stub:
        stub.faults += ["500"] * 3
        client = L.LLM(settings(stub, tmp_path, max_retries=2))
        assert client.chat(MSG) is None
        assert (client.counters.requests, client.counters.failures) == (3, 1)
        assert len(client.cache) == 0
        assert client.chat(MSG) == canned(MSG)  # the next attempt succeeds and is cached
    assert len(L.AnswerCache(tmp_path / "cache.jsonl")) == 1


def test_malformed_answers_parse_to_nothing(tmp_path):
    with StubLLM(canned) as stub:
        stub.faults.append("malformed")
        client = L.LLM(settings(stub, tmp_path))
        text = client.chat(MSG)
    assert L.parse_list(text) == [] and L.first_question(text) is None


def test_api_key_is_sent_but_never_stored(tmp_path, monkeypatch):
    secret = "sk-test-do-not-store-0123456789"
    monkeypatch.setenv("STUDY_TEST_KEY", secret)
    with StubLLM(canned) as stub:
        client = L.LLM(settings(stub, tmp_path, api_key_env="STUDY_TEST_KEY"))
        client.chat(MSG)
        assert stub.auth == [f"Bearer {secret}"]
    assert secret not in (tmp_path / "cache.jsonl").read_text()
    assert secret not in json.dumps(client.report())


def test_settings_reject_keys_and_unknown_modes():
    with pytest.raises(ValueError, match="never go in params"):
        L.LLMSettings.from_params({"mode": "live", "api_key": "sk-x"})
    with pytest.raises(ValueError, match="mode"):
        L.LLMSettings.from_params({"mode": "online"})
    with pytest.raises(ValueError, match="unknown keys"):
        L.LLMSettings.from_params({"modle": "x"})
    assert L.LLMSettings.from_params(None).mode == "off"


def test_a_line_cut_short_is_dropped_and_the_file_repaired(tmp_path):
    path = tmp_path / "cache.jsonl"
    cache = L.AnswerCache(path)
    cache.put("k1", "m", {}, MSG, "one")
    cache.put("k2", "m", {}, MSG, "two")
    with open(path, "ab") as f:
        f.write(b'{"key": "k3", "answ')  # a killed writer
    reopened = L.AnswerCache(path)
    assert reopened.dropped == 1 and reopened.entries == {"k1": "one", "k2": "two"}
    reopened.put("k4", "m", {}, MSG, "four")
    assert L.AnswerCache(path).entries == {"k1": "one", "k2": "two", "k4": "four"}
    assert L.AnswerCache(path).dropped == 0


def _append_forever(path: str) -> None:
    cache = L.AnswerCache(path)
    i = 0
    while True:
        cache.put(f"k{i}", "m", {}, MSG, "answer " * 200)
        i += 1


def test_killing_a_writer_never_corrupts_the_cache(tmp_path):
    path = tmp_path / "cache.jsonl"
    proc = mp.get_context("fork").Process(target=_append_forever, args=(str(path),))
    proc.start()
    deadline = time.time() + 10
    while (not path.exists() or path.stat().st_size < 50_000) and time.time() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    cache = L.AnswerCache(path)
    assert len(cache) > 10 and cache.dropped <= 1
    lines = path.read_bytes().splitlines(keepends=True)
    assert all(line.endswith(b"\n") and json.loads(line)["answer"] for line in lines)


@pytest.mark.parametrize("text, expected", [
    ('Sure. ["A?", "B?"] and [1, 2]', ["A?", "B?"]),
    ('[{"question": "A?"}, {"query": "b"}]', ["A?", "b"]),
    ("Questions:\n1. Who said it?\n2) When was it said?\n- Where?", ["Who said it?", "When was it said?", "Where?"]),
    ("I would ask: who said it? Then: when was it said? Done.", ["I would ask: who said it?", "Then: when was it said?"]),
    ("No questions here.", []),
    ("[broken, json", []),
    (None, []),
])
def test_parse_list(text, expected):
    assert L.parse_list(text) == expected


def test_first_question():
    assert L.first_question("Let me think.\nNext question: Did the WHO say so?\nOr maybe: when?") == \
        "Did the WHO say so?"
    assert L.first_question('["Did the WHO say so?", "When?"]') == "Did the WHO say so?"
    assert L.first_question("1. Who?") == "Who?"
