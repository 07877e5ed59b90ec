"""lib.planning.llm against a real HTTP stub server (tests/llm_stub.py) with the real openai SDK."""

from __future__ import annotations

import fcntl
import json
import multiprocessing as mp
import os
import signal
import socket
import time
import warnings

import pytest

from lib.planning import llm as LM
from tests.hang_guard import ends_within
from tests.llm_stub import StubLLM

MSG = [{"role": "user", "content": "Which questions verify: the moon is made of cheese?"}]


def settings(stub: StubLLM | None, tmp_path, **kw) -> LM.LLMSettings:
    base = dict(
        mode="live",
        base_url=stub.base_url if stub else None,
        model="stub-model",
        timeout=5.0,  # generous: under load a normal answer took over 0.5 s, was retried and took the next fault
        max_retries=3,
        backoff=0.01,
        cache=str(tmp_path / "cache.jsonl"),
    )
    return LM.LLMSettings(**{**base, **kw})


def canned(messages):
    return 'Here you go:\n["Is the moon made of rock?", "What did NASA find?"]\nAnything else?'


def rejected(tmp_path) -> list[tuple[int, bytes]]:
    """(line number, exact bytes) of every line moved to the side file of tmp_path/cache.jsonl."""
    side = tmp_path / "cache.rejected.jsonl"
    if not side.exists():
        return []
    records = [json.loads(line) for line in side.read_text().splitlines()]
    return [(r["line"], r["text"].encode("utf-8", "surrogateescape")) for r in records]


def line(key: str, answer: str) -> bytes:
    """A cache line as `AnswerCache.put` writes it."""
    return (
        json.dumps(
            {"key": key, "model": "m", "params": {}, "messages": MSG, "answer": answer},
            ensure_ascii=False,
            sort_keys=True,
        ).encode()
        + b"\n"
    )


@pytest.fixture
def dead_url():
    """A 127.0.0.1 URL where nothing listens: the port is bound (so nobody else takes it) but not listening."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_a_live_run_asks_again_where_the_cached_answer_is_unusable_and_a_replay_returns_it(tmp_path):
    answers = iter(["I cannot tell.", "counts: 3"])
    usable = lambda text: "counts" in text  # noqa: E731
    with StubLLM(lambda messages: next(answers)) as stub:
        first = LM.LLM(settings(stub, tmp_path))
        assert first.chat(MSG, usable) == "I cannot tell."  # unusable, but returned: the caller decides
        second = LM.LLM(settings(stub, tmp_path))  # a later live run reads the cache, finds it unusable, asks again
        assert second.chat(MSG, usable) == "counts: 3" and len(stub.requests) == 2
        assert second.counters.errors == {"asked_again_unusable_cached": 1}
        assert second.chat_many([MSG], progress=False, usable=usable) == ["counts: 3"] and len(stub.requests) == 2
    replay = LM.LLM(settings(None, tmp_path, mode="replay", base_url="http://127.0.0.1:9/v1"))
    assert replay.chat(MSG, usable) == "counts: 3"  # the latest answer appended is the one read
    other = tmp_path / "other"
    other.mkdir()
    with StubLLM(lambda messages: "I cannot tell.") as stub:
        LM.LLM(settings(stub, other)).chat(MSG, usable)
    replay = LM.LLM(settings(None, other, mode="replay", base_url="http://127.0.0.1:9/v1"))
    assert replay.chat(MSG, usable) == "I cannot tell."  # a replay gives what the run recorded, usable or not


def test_live_then_replay_is_offline_and_identical(tmp_path):
    with StubLLM(canned) as stub:
        live = LM.LLM(settings(stub, tmp_path))
        first = live.chat(MSG)
        assert first == canned(MSG)
        assert live.chat(MSG) == first and len(stub.requests) == 1  # the second came from the cache
        assert live.counters.cache_hits == 1 and live.counters.answered == 1
        body = stub.requests[0]
        assert body["model"] == "stub-model" and body["temperature"] == 0.0 and body["seed"] == 0
    replay = LM.LLM(settings(None, tmp_path, mode="replay", base_url="http://127.0.0.1:9/v1"))  # nothing listens
    assert replay.chat(MSG) == first
    assert replay.counters.requests == 0


def test_parameters_are_part_of_the_key(tmp_path):
    with StubLLM(canned) as stub:
        client = LM.LLM(settings(stub, tmp_path))
        client.chat(MSG)
        client.chat(MSG, temperature=0.1)
        assert len(stub.requests) == 2 and stub.requests[1]["temperature"] == 0.1
    assert LM.cache_key("m", MSG, {"temperature": 0.0}) != LM.cache_key("m2", MSG, {"temperature": 0.0})


def test_replay_lists_every_missing_entry(tmp_path):
    replay = LM.LLM(settings(None, tmp_path, mode="replay"))
    batch = [MSG, [{"role": "user", "content": "another prompt"}]]
    with pytest.raises(LM.CacheMiss) as err:
        replay.chat_many(batch, progress=False)
    assert len(err.value.missing) == 2 and "\n" not in str(err.value)  # one line (was a list of 11 alike lines)
    assert "2 answer(s) of the prompts asked are not in the cache (the first ends " in str(err.value)


def test_off_mode_makes_no_calls(tmp_path):
    client = LM.LLM(settings(None, tmp_path, mode="off"))
    assert not client.enabled
    with pytest.raises(LM.LLMError, match="off"):
        client.chat(MSG)


def test_rate_limits_and_server_errors_are_retried_with_backoff(tmp_path):
    with StubLLM(canned) as stub:
        stub.faults += ["429", "500", "429"]
        client = LM.LLM(settings(stub, tmp_path))
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
        client = LM.LLM(settings(stub, tmp_path, timeout=0.2))
        assert client.chat(MSG) == canned(MSG)
    assert client.counters.errors == {"APITimeoutError": 1} and client.counters.retries == 1


def test_an_endpoint_that_accepts_and_never_answers_stops_after_the_first_prompt(tmp_path):
    """A read timeout counted as "slow, not absent": a silent endpoint cost 6 minutes per prompt, for days."""
    with StubLLM(canned, delay=1.0) as stub:
        stub.faults += ["timeout"] * 10
        client = LM.LLM(settings(stub, tmp_path, timeout=0.2, max_retries=1, backoff=0.0))
        with pytest.raises(
            LM.LLMUnreachableError, match=r"the first prompt failed .*llm.timeout = 0.2 s.*raise llm.timeout"
        ):
            client.chat_many([[{"role": "user", "content": str(i)}] for i in range(10)], progress=False)
    assert client.counters.errors == {"APITimeoutError": 2} and client.counters.failures == 1


def test_an_endpoint_that_trickles_its_answer_is_cut_at_the_deadline(tmp_path):
    """Each read gets a byte within llm.timeout, so only a deadline on the whole request ends the wait."""
    with StubLLM(canned, delay=1.0) as stub:
        stub.faults += ["trickle"] * 2
        client = LM.LLM(settings(stub, tmp_path, timeout=0.2, max_retries=1, backoff=0.0))
        start = time.monotonic()
        with pytest.raises(LM.LLMUnreachableError, match=r"the first prompt failed .*llm.timeout = 0.2 s"):
            client.chat(MSG)
        assert time.monotonic() - start < 2 * LM.DEADLINE_TIMES * 0.2 + 1.0  # two attempts, each cut at 0.4 s
    assert client.counters.errors == {"RequestDeadline": 2} and client.counters.failures == 1


def test_an_answer_after_a_trickled_attempt_is_taken(tmp_path):
    with StubLLM(canned, delay=1.0) as stub:
        stub.faults.append("trickle")
        client = LM.LLM(settings(stub, tmp_path, timeout=0.2, backoff=0.0))
        assert client.chat(MSG) == canned(MSG)  # the retry goes out on a new client
    assert client.counters.errors == {"RequestDeadline": 1} and client.counters.retries == 1


def test_the_wait_between_retries_doubles_up_to_a_cap():
    """At the ranges' ends (backoff 600, 20 retries) the last wait was 600 * 2**19 s, about ten years."""
    assert [LM.backoff_wait(1.0, a) for a in range(8)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert LM.backoff_wait(600.0, 19) == 600.0 and LM.backoff_wait(0.0, 19) == 0.0


def test_give_up_after_retries_is_counted_and_not_cached(tmp_path):
    with StubLLM(canned) as stub:
        stub.faults += ["500"] * 3
        client = LM.LLM(settings(stub, tmp_path, max_retries=2))
        assert client.chat(MSG) is None
        assert (client.counters.requests, client.counters.failures) == (3, 1)
        assert len(client.cache) == 0
        assert client.chat(MSG) == canned(MSG)  # the next attempt succeeds and is cached
    assert len(LM.AnswerCache(tmp_path / "cache.jsonl")) == 1


def test_malformed_answers_parse_to_nothing(tmp_path):
    with StubLLM(canned) as stub:
        stub.faults.append("malformed")
        client = LM.LLM(settings(stub, tmp_path))
        text = client.chat(MSG)
    assert LM.parse_list(text) == [] and LM.first_question(text) is None


def test_api_key_is_sent_but_never_stored(tmp_path, monkeypatch):
    secret = "sk-test-do-not-store-0123456789"
    monkeypatch.setenv("STUDY_TEST_KEY", secret)
    with StubLLM(canned) as stub:
        client = LM.LLM(settings(stub, tmp_path, api_key_env="STUDY_TEST_KEY"))
        client.chat(MSG)
        assert stub.auth == [f"Bearer {secret}"]
    assert secret not in (tmp_path / "cache.jsonl").read_text()
    assert secret not in json.dumps(client.report())


def test_no_key_is_sent_when_api_key_env_is_null(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-ambient-must-not-leave-0123456789")
    with StubLLM(canned) as stub:
        client = LM.LLM(settings(stub, tmp_path, api_key_env=None))
        assert client.chat(MSG) == canned(MSG)
        assert stub.auth == [f"Bearer {LM.NO_KEY}"]  # a placeholder, not the ambient OPENAI_API_KEY
    assert LM.LLMSettings.model_validate({"model": "m", "api_key_env": None}).api_key_env is None


def test_a_key_variable_that_is_not_set_is_an_error_naming_it(tmp_path, monkeypatch):
    monkeypatch.delenv("STUDY_UNSET_KEY", raising=False)
    with pytest.raises(LM.LLMAuthError, match=r"STUDY_UNSET_KEY, which is not set.*llm.api_key_env: null"):
        LM.LLM(settings(None, tmp_path, base_url="http://127.0.0.1:9/v1", api_key_env="STUDY_UNSET_KEY"))
    LM.LLM(settings(None, tmp_path, mode="replay", api_key_env="STUDY_UNSET_KEY"))  # replay needs no key


def test_a_key_over_plain_http_to_a_remote_host_is_warned_about(tmp_path, monkeypatch):
    secret = "sk-test-do-not-show-0123456789"
    monkeypatch.setenv("STUDY_TEST_KEY", secret)
    # constructing the client sends nothing: 192.0.2.1 (TEST-NET-1) is never contacted
    with pytest.warns(UserWarning, match=r"http://192.0.2.1:8000/v1/ is plain http.*\$STUDY_TEST_KEY") as seen:
        LM.LLM(settings(None, tmp_path, base_url="http://192.0.2.1:8000/v1", api_key_env="STUDY_TEST_KEY"))
    assert len(seen) == 1 and secret not in str(seen[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for url in (
            "http://127.0.0.1:8000/v1",
            "http://127.3.2.1/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
            "https://192.0.2.1/v1",
        ):
            LM.LLM(settings(None, tmp_path, base_url=url, api_key_env="STUDY_TEST_KEY"))
        LM.LLM(settings(None, tmp_path, base_url="http://192.0.2.1:8000/v1", api_key_env=None))  # no key to expose


@pytest.mark.parametrize("status", ["401", "403"])
def test_a_refused_key_stops_at_once_naming_the_setting(tmp_path, monkeypatch, status):
    secret = "sk-test-refused-0123456789"
    monkeypatch.setenv("STUDY_TEST_KEY", secret)
    with StubLLM(canned) as stub:
        stub.faults.append(status)
        client = LM.LLM(settings(stub, tmp_path, api_key_env="STUDY_TEST_KEY"))
        with pytest.raises(
            LM.LLMAuthError,
            match=rf"refused the key from \$STUDY_TEST_KEY \(HTTP {status}.*fix "
            r"llm.api_key_env",
        ) as err:
            client.chat_many([MSG, MSG], progress=False)
        assert len(stub.requests) == 1  # no retry, no second prompt
    assert err.value.__cause__ is None and err.value.__suppress_context__  # the SDK's error is not shown
    assert secret not in str(err.value) and secret not in json.dumps(client.report())
    assert client.counters.errors == {f"http_{status}": 1} and client.counters.retries == 0
    assert not (tmp_path / "cache.jsonl").exists()


def test_not_found_stops_at_once_naming_model_and_base_url(tmp_path):
    with StubLLM(canned) as stub:
        stub.faults.append("404")
        client = LM.LLM(settings(stub, tmp_path))
        with pytest.raises(
            LM.LLMNotFoundError, match=r"HTTP 404 for model 'stub-model'.*fix llm.model.*llm.base_url"
        ) as err:
            client.chat(MSG)
        assert str(err.value).startswith(f"{stub.base_url}/ answered HTTP 404")
        assert len(stub.requests) == 1
    assert client.counters.errors == {"http_404": 1} and client.counters.requests == 1


def test_a_redirect_is_not_followed_and_stops_at_once_naming_where_it_points(tmp_path, monkeypatch):
    """The SDK followed redirects: the prompts went to another address, their answers cached under this one, and
    a redirect to a dead host was called "unreachable" of the endpoint that had answered (the twenty-sixth pass);
    a redirect whose query echoed the key put it in the message (the twenty-eighth)."""
    secret = "sk-redirect-0123456789abcdef"
    monkeypatch.setenv("STUDY_TEST_KEY", secret)
    with StubLLM(canned) as stub:
        stub.faults.append("redirect")
        client = LM.LLM(settings(stub, tmp_path, api_key_env="STUDY_TEST_KEY"))
        with pytest.raises(
            LM.LLMError, match=r"answered HTTP 302, a redirect to http://127\.0\.0\.1:\d+/v1/chat/completions, which"
        ) as err:
            client.chat(MSG)
        assert "is not followed" in str(err.value) and "fix llm.base_url" in str(err.value)
        assert secret not in str(err.value) and "token" not in str(err.value)
        assert len(stub.requests) == 1  # the redirect's target was never asked
    assert client.counters.errors == {"http_302": 1} and not (tmp_path / "cache.jsonl").exists()


def test_a_refused_endpoint_stops_the_stage_at_the_first_prompt(tmp_path, dead_url):
    """Five retries with backoff on three prompts cost about 100 s before; a refused connection to an endpoint
    that never answered is a wrong URL or a server not started, which no retry mends."""
    client = LM.LLM(settings(None, tmp_path, base_url=dead_url, max_retries=5, backoff=1.0))
    start = time.perf_counter()
    with pytest.raises(
        LM.LLMUnreachableError, match=rf"{dead_url}/ is unreachable: the first connection failed.*llm.base_url"
    ):
        client.chat_many([[{"role": "user", "content": f"prompt {i}"}] for i in range(10)], progress=False)
    assert time.perf_counter() - start < 5
    c = client.counters
    assert (c.requests, c.retries, c.failures, c.answered) == (1, 0, 1, 0)
    assert c.errors == {"APIConnectionError": 1} and len(client.cache) == 0


def test_an_endpoint_that_answered_then_drops_stops_after_a_few_prompts(tmp_path):
    with StubLLM(canned) as stub:
        stub.faults += [None] + ["drop"] * 20  # one answer, then connections closed without one
        client = LM.LLM(settings(stub, tmp_path, max_retries=1, backoff=0.0))
        with pytest.raises(LM.LLMUnreachableError, match="unreachable: 3 prompts in a row"):
            for i in range(10):
                client.chat([{"role": "user", "content": f"prompt {i}"}])
    c = client.counters
    assert (c.requests, c.retries, c.failures, c.answered) == (7, 3, 3, 1)  # 1 answer, 3 prompts of 2 attempts


def test_an_answer_resets_the_count_of_unreachable_prompts(tmp_path):
    with StubLLM(canned) as stub:
        stub.faults += [None, "drop", "drop", None, "drop", "drop"]  # closed without an answer: a connection error
        client = LM.LLM(settings(stub, tmp_path, max_retries=0))
        answers = [client.chat([{"role": "user", "content": str(i)}]) for i in range(6)]
    assert answers == [canned(None), None, None, canned(None), None, None]
    assert client.counters.failures == 4 and client.counters.errors == {"APIConnectionError": 4}


@pytest.mark.parametrize(
    "fault, problem",
    [
        ("html", "not_a_completion"),
        ("empty_choices", "no_choices"),
        ("null_content", "null_content"),
        ("length", "cut_at_max_tokens"),  # the forty-seventh pass: a cut answer was cached as a whole one
        ("content_filter", "cut_by_content_filter"),
        ("deep", "RecursionError"),  # a body nested past the recursion limit: a traceback from the SDK's parser
        ("error_body", "error_in_body"),  # the fifty-first pass (S 5): counted as "no_choices", its words lost
    ],
)
def test_malformed_answers_are_counted_and_never_cached(tmp_path, fault, problem):
    with StubLLM(canned) as stub:
        stub.faults.append(fault)
        client = LM.LLM(settings(stub, tmp_path))
        assert client.chat(MSG) is None
        c = client.counters
        assert (c.requests, c.retries, c.malformed, c.failures, c.answered) == (1, 0, 1, 1, 0)
        assert c.errors == {f"malformed_{problem}": 1}
        assert len(client.cache) == 0 and not (tmp_path / "cache.jsonl").exists()
        assert client.chat(MSG) == canned(MSG)  # the next ask is answered and cached
    key = LM.cache_key("stub-model", MSG, client.params())
    assert LM.AnswerCache(tmp_path / "cache.jsonl").entries == {key: canned(MSG)}


def test_an_error_object_sent_with_status_200_is_quoted_when_the_stage_stops(tmp_path):
    """The fifty-first pass (S 5): `{"error": {"message": "model overloaded"}}` with status 200 stopped the stage
    as "no usable answer ({'malformed_no_choices': 5})", the server's words nowhere."""
    with StubLLM(canned) as stub:
        stub.faults += ["error_body"] * LM.FAILING_AFTER
        client = LM.LLM(settings(stub, tmp_path, max_retries=0))
        with pytest.raises(LM.LLMFailingError) as err:
            for i in range(LM.FAILING_AFTER):
                client.chat([{"role": "user", "content": f"prompt {i}"}])
    assert "'malformed_error_in_body': 5" in str(err.value)
    assert "the server said: 'model overloaded, try later'" in str(err.value)


def test_settings_reject_keys_and_unknown_modes():
    from lib.params import settings

    with pytest.raises(ValueError, match="never go in params"):
        LM.LLMSettings.model_validate({"model": "m", "mode": "live", "api_key": "sk-x"})
    # a key pasted where its variable's name goes was echoed on stderr and written into report.json
    with pytest.raises(ValueError, match="llm.api_key_env looks like a key itself"):
        LM.LLMSettings.model_validate({"model": "m", "api_key_env": "gsk_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"})
    assert LM.LLMSettings.model_validate({"model": "m", "api_key_env": "AZURE_OPENAI_API_KEY_2024"}).api_key_env
    # a port past 65535 passed, then a message about the URL ended in a traceback
    for url in ("http://localhost:99999/v1", "http://localhost:abc/v1"):
        with pytest.raises(ValueError, match="llm.base_url 'http://localhost:"):
            LM.LLMSettings.model_validate({"model": "m", "base_url": url})
    with pytest.raises(ValueError, match="Keys should be strings"):  # was TypeError: 'int' is not iterable
        LM.LLMSettings.model_validate({"model": "m", 1: "x"})
    with pytest.raises(ValueError, match="`~` is not expanded in params.yaml"):  # it made a folder named `~`
        LM.LLMSettings.model_validate({"model": "m", "cache": "~/cache.jsonl"})
    with pytest.raises(ValueError, match="mode"):
        LM.LLMSettings.model_validate({"model": "m", "mode": "online"})
    with pytest.raises(ValueError, match="modle"):
        LM.LLMSettings.model_validate({"model": "m", "modle": "x"})
    assert settings("llm").mode == "off"  # params.yaml's section
    with pytest.raises(ValueError, match="model"):
        LM.LLMSettings.model_validate({"mode": "off"})


def test_a_line_cut_short_is_moved_aside_and_the_file_repaired(tmp_path):
    path = tmp_path / "cache.jsonl"
    cache = LM.AnswerCache(path)
    cache.put("k1", "m", {}, MSG, "one")
    cache.put("k2", "m", {}, MSG, "two")
    with open(path, "ab") as f:
        f.write(b'{"key": "k3", "answ')  # a killed writer
    reopened = LM.AnswerCache(path)
    assert reopened.rejected == reopened.dropped == 1 and reopened.entries == {"k1": "one", "k2": "two"}
    assert rejected(tmp_path) == [(3, b'{"key": "k3", "answ')]
    reopened.put("k4", "m", {}, MSG, "four")
    assert LM.AnswerCache(path).entries == {"k1": "one", "k2": "two", "k4": "four"}
    assert LM.AnswerCache(path).rejected == 0 and len(rejected(tmp_path)) == 1


def test_an_answer_after_a_line_cut_short_is_not_glued_to_it(tmp_path):
    path = tmp_path / "cache.jsonl"
    writer = LM.AnswerCache(path)
    writer.put("k1", "m", {}, MSG, "one")
    with open(path, "ab") as f:
        f.write(b'{"key": "k2", "answer": "tw')  # another writer, killed mid-append
    writer.put("k3", "m", {}, MSG, "three")  # the next append begins on a new line
    reopened = LM.AnswerCache(path)
    assert reopened.entries == {"k1": "one", "k3": "three"} and reopened.rejected == 1
    assert rejected(tmp_path) == [(2, b'{"key": "k2", "answer": "tw\n')]
    assert path.read_bytes() == line("k1", "one") + line("k3", "three")


def test_a_damaged_line_is_moved_aside_with_its_line_number_in_place(tmp_path):
    path = tmp_path / "cache.jsonl"
    path.write_bytes(line("k1", "one") + line("k2", "two") + line("k3", "three"))
    inode = path.stat().st_ino
    damaged = bytearray(line("k2", "two"))
    damaged[damaged.index(b"two")] ^= 0x80  # one flipped bit: "t" becomes a byte that is not UTF-8
    path.write_bytes(line("k1", "one") + bytes(damaged) + line("k3", "three"))
    cache = LM.AnswerCache(path)
    assert cache.entries == {"k1": "one", "k3": "three"} and cache.rejected == 1
    assert rejected(tmp_path) == [(2, bytes(damaged))]  # the exact bytes, kept
    assert path.read_bytes() == line("k1", "one") + line("k3", "three")
    assert path.stat().st_ino == inode and not (tmp_path / "cache.jsonl.repair").exists()  # repaired in place
    assert LM.AnswerCache(path).rejected == 0 and len(rejected(tmp_path)) == 1
    assert LM.LLM(settings(None, tmp_path, mode="replay")).report()["cache_lines_rejected"] == 0


def test_an_entry_under_another_prompts_key_goes_aside(tmp_path):
    """The thirty-eighth pass: the key is a checksum of model, messages and params, yet an entry of one prompt
    stored under another's key was served for that other prompt."""
    path = tmp_path / "cache.jsonl"
    other = [{"role": "user", "content": "a different prompt"}]
    k, ko = LM.cache_key("m", MSG, {}), LM.cache_key("m", other, {})
    moved = line(ko, "answer of another prompt")  # MSG's entry under the key of `other`
    unchecked = json.dumps({"key": ko, "answer": "no prompt"}).encode() + b"\n"  # a served key without its prompt
    path.write_bytes(line(k, "first") + line("k1", "one") + moved + unchecked + line(k, "second"))
    cache = LM.AnswerCache(path)
    assert cache.entries == {k: "second", "k1": "one"} and cache.get(ko) is None  # the last answer of a key
    assert cache.rejected == 2 and rejected(tmp_path) == [(3, moved), (4, unchecked)]
    assert path.read_bytes() == line(k, "first") + line("k1", "one") + line(k, "second")


def test_a_read_only_or_hard_linked_cache_is_not_written_in_place(tmp_path):
    """The forty-first pass: a repair (and an append) wrote through a 0444 file and its hard link (a DVC-protected
    output is a link into the DVC cache), changing the cached copy."""
    path, link = tmp_path / "cache.jsonl", tmp_path / "dvc_cache_copy"
    path.write_bytes(line("k1", "one") + b"{cut")
    os.link(path, link)
    before = link.read_bytes()
    with pytest.raises(LM.LLMError, match=r"^llm.cache: .*cache.jsonl is a file with 2 hard links"):
        LM.AnswerCache(path)
    assert link.read_bytes() == before
    link.unlink()
    path.chmod(0o444)
    with pytest.raises(LM.LLMError, match=r"is a read-only file \(a DVC-protected output\?\)"):
        LM.AnswerCache(path)
    path.chmod(0o644)
    path.write_bytes(line("k1", "one"))
    path.chmod(0o444)
    cache = LM.AnswerCache(path)  # nothing to repair: a read-only cache is read (a replay)
    assert cache.entries == {"k1": "one"}
    with pytest.raises(LM.LLMError, match=r"is a read-only file"):
        cache.put("k2", "m", {}, MSG, "two")
    assert path.read_bytes() == line("k1", "one")


def test_a_valid_last_line_without_its_newline_is_kept(tmp_path):
    path = tmp_path / "cache.jsonl"
    path.write_bytes(line("k1", "one") + line("k2", "two").rstrip(b"\n"))
    cache = LM.AnswerCache(path)
    assert cache.entries == {"k1": "one", "k2": "two"} and cache.rejected == 0 and cache.newline_added
    assert path.read_bytes() == line("k1", "one") + line("k2", "two")
    assert rejected(tmp_path) == []
    cache.put("k3", "m", {}, MSG, "three")
    assert LM.AnswerCache(path).entries == {"k1": "one", "k2": "two", "k3": "three"}


def test_a_repair_killed_half_way_is_finished_by_the_next_open(tmp_path):
    path = tmp_path / "cache.jsonl"
    good = line("k1", "one") + line("k3", "three")
    # the repair had moved "not json" aside, journalled the good lines, and rewritten 10 bytes of line 2
    before = line("k1", "one") + b"not json\n" + line("k3", "three")
    path.write_bytes(good[: len(line("k1", "one")) + 10] + before[len(line("k1", "one")) + 10 :])
    (tmp_path / "cache.jsonl.repair").write_bytes(good)
    with open(path, "ab") as f:  # then a writer appended, after the killed repair let go of the lock
        f.write(line("k4", "four"))
    cache = LM.AnswerCache(path)
    assert cache.entries == {"k1": "one", "k3": "three", "k4": "four"}
    assert path.read_bytes() == good + line("k4", "four") and not (tmp_path / "cache.jsonl.repair").exists()
    assert [n for n, _ in rejected(tmp_path)] == [2]  # the half-rewritten line, kept aside


def _append(path: str, n: int, go) -> None:
    go.wait()
    cache = LM.AnswerCache(path)
    for i in range(n):
        cache.put(f"k{i}", "m", {}, MSG, f"answer {i}")


def _damage_and_reopen(path: str, go, done, count) -> None:
    """A line that needs repair, then an open that repairs it, again and again while the writer appends."""
    go.wait()
    while not done.is_set() and count.value < 500:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, b"not json\n")
        os.close(fd)
        count.value += 1
        LM.AnswerCache(path)


def test_a_repair_while_another_process_appends_loses_nothing(tmp_path):
    path, n = str(tmp_path / "cache.jsonl"), 200
    # one entry first: a file whose only lines are damaged is refused as not a cache (a repair never runs on it)
    LM.AnswerCache(path).put("seed", "m", {}, MSG, "seed answer")
    ctx = mp.get_context("fork")
    go, done, count = ctx.Event(), ctx.Event(), ctx.Value("i", 0)
    writer = ctx.Process(target=_append, args=(path, n, go))
    repairer = ctx.Process(target=_damage_and_reopen, args=(path, go, done, count))
    writer.start(), repairer.start()
    go.set()
    writer.join(30)
    done.set()
    repairer.join(30)
    assert writer.exitcode == 0 and repairer.exitcode == 0 and count.value > 5
    cache = LM.AnswerCache(path)
    assert cache.entries == {"seed": "seed answer"} | {f"k{i}": f"answer {i}" for i in range(n)}  # none lost
    assert rejected(tmp_path) and {t for _, t in rejected(tmp_path)} == {b"not json\n"}
    assert len(rejected(tmp_path)) == count.value  # each damaged line moved aside exactly once
    assert open(path, "rb").read().count(b"\n") == n + 1


def _append_forever(path: str) -> None:
    cache = LM.AnswerCache(path)
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
    cache = LM.AnswerCache(path)
    assert len(cache) > 10 and cache.dropped <= 1
    lines = path.read_bytes().splitlines(keepends=True)
    assert all(line.endswith(b"\n") and json.loads(line)["answer"] for line in lines)


@pytest.mark.parametrize(
    "text, expected",
    [
        ('Sure. ["A?", "B?"] and [1, 2]', ["A?", "B?"]),
        ('[{"question": "A?"}, {"query": "b"}]', ["A?", "b"]),
        (
            "Questions:\n1. Who said it?\n2) When was it said?\n- Where?",
            ["Who said it?", "When was it said?", "Where?"],
        ),
        (
            "I would ask: who said it? Then: when was it said? Done.",
            ["I would ask: who said it?", "Then: when was it said?"],
        ),
        ("No questions here.", []),
        ("[broken, json", []),
        (None, []),
        # the forty-seventh pass: a list as Python writes it, a trailing comma and a cut list gave queries that
        # carried the brackets, quotes and commas (`["['Who said it first?", ", 'When was it said?"]`)
        ("['Who said it first?', 'When was it said?']", ["Who said it first?", "When was it said?"]),
        ('["Who said it first?", "When was it said?",]', ["Who said it first?", "When was it said?"]),
        ('["Who said it?", "When was it said?", "Wher', ["Who said it?", "When was it said?"]),
        ("Here: ['covid deaths', 'pfizer trial'] to search.", ["covid deaths", "pfizer trial"]),
    ],
)
def test_parse_list(text, expected):
    assert LM.parse_list(text) == expected


def test_parse_list_of_a_long_answer_ends(monkeypatch):
    """Quadratic patterns: 160 KB of words without a full stop took two minutes, in live runs and in replay
    (an answer of 8 MiB, the bound, days); a list line with a long run of spaces too."""
    with ends_within():
        assert LM.parse_list("word " * 200_000) == []  # no question mark: no question
        assert LM.parse_list("- a" + " " * 1_000_000 + "b") == ["a b"]
        assert LM.parse_list("Question" + " " * 1_000_000 + "x") == []
        assert LM.parse_list("- " + " " * 1_000_000) == []  # a bare marker: an item with no words
        assert LM.first_question("so " * 300_000 + "who?") == " ".join(["so"] * 300_000 + ["who?"])
    assert LM.parse_list("-   \nWhy? Because.") == []  # a list line, empty: as before, no sentence fallback


def test_a_token_in_a_long_url_segment_is_found_in_linear_time():
    with ends_within():
        assert not LM._tokenish("a" * 1_000_000) and LM._tokenish("a1" * 500_000)
    assert [
        LM._tokenish(t) for t in ("abcdefghijklmno1", "abcdefghijklmn1", "1234567890123456", "x-abcdefgh12345678")
    ] == [
        True,
        False,
        False,
        True,
    ]


def test_first_question():
    assert (
        LM.first_question("Let me think.\nNext question: Did the WHO say so?\nOr maybe: when?") == "Did the WHO say so?"
    )
    assert LM.first_question('["Did the WHO say so?", "When?"]') == "Did the WHO say so?"
    assert LM.first_question("1. Who?") == "Who?"


# ---------------------------------------------------------------- found by a hostile-input pass


def test_an_answer_an_older_writer_glued_to_a_cut_line_is_salvaged(tmp_path):
    """Caches written before the fix may hold `<cut line><complete entry>` on one line: the entry stays."""
    path = tmp_path / "cache.jsonl"
    glued = b'{"answer": "tw' + line("k2", "two")
    path.write_bytes(line("k1", "one") + glued + line("k3", "three"))
    cache = LM.AnswerCache(path)
    assert cache.entries == {"k1": "one", "k2": "two", "k3": "three"}
    assert cache.salvaged == 1 and cache.rejected == 1
    assert rejected(tmp_path) == [(2, glued)]  # the damaged line is kept whole beside the cache
    assert path.read_bytes() == line("k1", "one") + line("k2", "two") + line("k3", "three")


def test_two_entries_joined_without_a_newline_both_stay(tmp_path):
    path = tmp_path / "cache.jsonl"
    path.write_bytes(line("k1", "one").rstrip(b"\n") + line("k2", "two"))
    cache = LM.AnswerCache(path)
    assert cache.entries == {"k1": "one", "k2": "two"} and cache.salvaged == 2


def test_a_cache_path_that_is_a_directory_is_named(tmp_path):
    with pytest.raises(LM.LLMError, match="llm.cache: .* is a directory"):
        LM.AnswerCache(tmp_path)


def test_a_cache_that_is_a_pipe_a_device_or_a_link_loop_is_named(tmp_path):
    """A FIFO ended in `not seekable`, /dev/zero filled memory, a link loop in ELOOP's traceback."""
    from lib.cli import NamedError

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for path, message in [(tmp_path / "fifo", "not a regular file"), ("/dev/zero", "not a regular file"),
                          (tmp_path / "loop", "is a link that leads back to itself")]:  # fmt: skip
        with pytest.raises(NamedError, match=message):
            LM.AnswerCache(path)


def test_a_cache_path_that_names_a_data_file_never_rewrites_it(tmp_path):
    """`averitec_2025.cache: data/averitec/dev.json` emptied the dev set: every line was "damaged" and moved aside."""
    from lib.cli import NamedError
    from lib.paths import DATA_DIR

    dev = DATA_DIR / "averitec" / "dev.json"
    before = dev.read_bytes()
    with pytest.raises(NamedError, match=r"dev.json: lies inside data/"):
        LM.AnswerCache(dev)
    assert dev.read_bytes() == before and not LM.rejected_path(dev).exists()
    elsewhere = tmp_path / "dev.json"
    elsewhere.write_bytes(before[:5000])
    with pytest.raises(LM.LLMError, match=r"dev.json is not an answer cache \(none of its .* lines is a cache entry\)"):
        LM.AnswerCache(elsewhere)
    assert elsewhere.read_bytes() == before[:5000] and not LM.rejected_path(elsewhere).exists()


def test_an_endpoint_that_keeps_failing_stops_the_stage_after_failing_after_prompts(tmp_path):
    """HTTP 500 on every request: each prompt's wait is bounded, but 17,000 of them took days."""
    with StubLLM(canned) as stub:
        client = LM.LLM(settings(stub, tmp_path, max_retries=1))
        stub.faults += ["500"] * 2  # one prompt fails (its retry too), then an answer resets the count
        assert client.chat(MSG) is None
        assert client.chat([{"role": "user", "content": "answered"}]) == canned(MSG)
        stub.faults += ["500"] * (2 * LM.FAILING_AFTER)
        for n in range(LM.FAILING_AFTER - 1):
            assert client.chat([{"role": "user", "content": f"p{n}"}]) is None
        with pytest.raises(LM.LLMFailingError, match=f"is failing: {LM.FAILING_AFTER} prompts in a row failed after 1"):
            client.chat([{"role": "user", "content": "last"}])


def test_a_refused_request_is_not_said_to_have_been_retried(tmp_path):
    """HTTP 400 is not retried (no retry mends it): the stop line said "failed after 5 retries each"."""
    with StubLLM(canned) as stub:
        client = LM.LLM(settings(stub, tmp_path, max_retries=5))
        stub.faults += ["400"] * LM.FAILING_AFTER
        for n in range(LM.FAILING_AFTER - 1):
            assert client.chat([{"role": "user", "content": f"p{n}"}]) is None
        with pytest.raises(
            LM.LLMFailingError, match=r"prompts in a row failed \(the last with HTTP 400, which is not retried\)"
        ):
            client.chat([{"role": "user", "content": "last"}])
        assert len(stub.requests) == LM.FAILING_AFTER  # one request per prompt


def test_an_answer_over_the_bound_is_cut_off_named_and_never_cached(tmp_path, monkeypatch):
    monkeypatch.setattr(LM, "MAX_ANSWER_BYTES", 2_000)
    with StubLLM(lambda messages: "x" * 50_000) as stub:
        client = LM.LLM(settings(stub, tmp_path))
        with pytest.raises(LM.LLMError, match=r"sent an answer over 2,000 bytes \(not read further, not cached"):
            client.chat(MSG)
    assert not (tmp_path / "cache.jsonl").exists() or (tmp_path / "cache.jsonl").read_text() == ""


def test_a_compressed_answer_is_refused_unread(tmp_path):
    """A 200 KB gzip body unpacked to 200 MB past the 8 MiB bound (which counted the compressed bytes) and
    was cached: the cache then went over the input bound and every later run stopped."""
    with StubLLM(canned) as stub:
        stub.faults.append("gzip")
        client = LM.LLM(settings(stub, tmp_path))
        with pytest.raises(LM.LLMError, match=r"sent its answer compressed \(Content-Encoding: 'gzip'\) although"):
            client.chat(MSG)
    assert not (tmp_path / "cache.jsonl").exists() or (tmp_path / "cache.jsonl").read_text() == ""


def test_an_answer_with_a_lone_surrogate_is_malformed_not_a_traceback(tmp_path):
    """`"\\ud800"` in the answer's JSON ended in UnicodeEncodeError when the cache wrote it."""
    with StubLLM(lambda messages: "\ud800 [1, 2]") as stub:
        client = LM.LLM(settings(stub, tmp_path))
        assert client.chat(MSG) is None and client.counters.errors == {"malformed_not_utf8": 1}


def test_a_part_of_the_key_or_the_key_backwards_is_masked_too():
    """An endpoint that echoed `key[3:]` and the key reversed had both cached as they were."""
    key = "sk-test-0123456789abcdef"
    assert LM.without_key(f"yours: {key[3:]} and {key[::-1]}.", key) == "yours: *** and ***."
    assert LM.without_key("short pieces like sk-test stay", key) == "short pieces like sk-test stay"


def test_a_key_the_endpoint_echoes_is_cached_as_stars(tmp_path, monkeypatch):
    monkeypatch.setenv("STUB_KEY", "sk-echoed-secret-123")
    with StubLLM(lambda messages: 'I saw "Bearer sk-echoed-secret-123" ["Q?"]') as stub:
        client = LM.LLM(settings(stub, tmp_path, api_key_env="STUB_KEY"))
        assert client.chat(MSG) == 'I saw "Bearer ***" ["Q?"]'
    assert "sk-echoed-secret-123" not in (tmp_path / "cache.jsonl").read_text()


def test_a_base_url_with_a_user_or_password_is_refused():
    with pytest.raises(ValueError, match="llm.base_url holds a user name or password"):
        LM.LLMSettings(model="m", base_url="http://judge:hunter2@127.0.0.1:8000/v1")


@pytest.mark.parametrize(
    "url, shown",
    [
        ("https://gw.example/v1/Ab3dEf6hIj9kLm2nOp5qRs8t/openai", "https://gw.example/v1/***/openai"),
        ("https://gw.example/key-abcdef/v1", "https://gw.example/***/v1"),
        ("https://res.openai.azure.com/openai/deployments/gpt-4o-mini-2024-07-18", None),
        ("http://127.0.0.1:8000/v1", None),
    ],
)
def test_a_token_in_the_base_urls_path_stays_out_of_messages_and_reports(url, shown):
    """A gateway key in the path reached the stage's report.json as the endpoint."""
    assert LM._shown(url) == (shown or url)


def test_a_cache_where_a_stage_writes_another_output_or_among_the_code_is_refused(tmp_path):
    """A judge cache named as the stage's submissions CSV was appended to, then replaced by the CSV."""
    from lib.paths import ROOT

    for path, problem in [
        (ROOT / "outputs/averitec_2025/submissions/oracle.csv", "lies inside the output of stage `averitec_2025`"),
        (ROOT / "lib/judge_cache.jsonl", "lies inside lib/, the study's code"),
    ]:
        with pytest.raises(LM.NamedError, match=problem):
            LM.AnswerCache(path)
    LM.AnswerCache(tmp_path / "mine.jsonl")  # elsewhere: the user's
    LM.AnswerCache(ROOT / "outputs/llm/cache.jsonl")  # the persistent output the stage keeps
    LM.AnswerCache(ROOT / "outputs/llm/cache.jsonl", "generative_plans")  # named with its stage


def test_a_cache_that_is_another_stages_kept_cache_is_refused():
    """`averitec_2025.cache: outputs/llm/cache.jsonl` put 36 judge answers into the planners' committed
    cache, with exit 0; `dvc status` then said `generative_plans` had changed."""
    from lib.averitec import ev2r as EV
    from lib.params import section
    from lib.paths import ROOT

    before = (ROOT / "outputs/llm/cache.jsonl").read_bytes()
    with pytest.raises(
        LM.NamedError,
        match=r"cache.jsonl: the cache of stage `generative_plans` \(.*dvc.yaml\), not of `averitec_2025`; give this cache its own path",
    ):
        EV.judge_llm(EV.judge_settings(section("averitec_2025"))[0], section("llm"), "outputs/llm/cache.jsonl")
    with pytest.raises(LM.NamedError, match=r"the cache of stage `averitec_2025` .* not of `generative_plans`"):
        LM.AnswerCache(ROOT / "outputs/averitec_2025/judge_cache.jsonl", "generative_plans")
    assert (ROOT / "outputs/llm/cache.jsonl").read_bytes() == before


def test_a_bracket_heavy_answer_is_decoded_at_a_bounded_number_of_brackets(monkeypatch):
    """A thousand nested brackets before 500,000 numbers: JSON decoding begun at every '[' took 14 s (minutes at
    the 8 MiB answer bound), in replay too. At most `JSON_STARTS` tries; a list after them is not looked for."""
    from lib.planning import llm as L

    tries = []

    class Counting(json.JSONDecoder):
        def raw_decode(self, s, idx=0):
            tries.append(idx)
            return super().raw_decode(s, idx)

    monkeypatch.setattr(L.json, "JSONDecoder", Counting)
    with ends_within(60):
        assert L.parse_list("[" * 990 + "0," * 100_000) == []
    assert len(tries) == L.JSON_STARTS
    assert L.parse_list('Here: ["Who said it?"]') == ["Who said it?"]


@pytest.mark.parametrize(
    "answer, expected",
    [
        ('{"question": "Did the mayor raise taxes?"}', ["Did the mayor raise taxes?"]),  # kept as `{"question": ...`
        ('{"questions": ["Who said it?", "When?"]}', ["Who said it?", "When?"]),
        ('[{"q": "x"}]\n- Who said it?', ["Who said it?"]),  # a list of objects without a question field
        ('["1.", "2."]', []),  # numbering only: no query, counted as unparsed
        ("1. 2. 3.", []),
        ("**Questions:**\n- Who said it?\n---", ["Who said it?"]),
    ],
)
def test_answers_that_hold_no_question_text_give_no_query(answer, expected):
    assert LM.parse_list(answer) == expected


def test_an_answer_cut_off_mid_body_is_a_failed_answer_of_a_reached_endpoint(tmp_path):
    """The twenty-ninth pass (left then): an endpoint that sent its status and headers, then closed before the end
    of its body, was "unreachable: the first prompt failed with connection errors", a wrong base_url."""
    with StubLLM(canned) as stub:
        stub.faults += ["short", None]  # cut off once, then answered on the retry
        client = LM.LLM(settings(stub, tmp_path, max_retries=1, backoff=0.0))
        assert client.chat([{"role": "user", "content": "a"}]) == canned(None)
        assert client.counters.errors == {"answer_cut": 1} and client.counters.retries == 1
        stub.faults += ["short"] * 40  # cut off every time: failing, never "unreachable"
        with pytest.raises(LM.LLMFailingError, match=r"is failing: \d+ prompts in a row failed.*answer_cut"):
            for i in range(20):
                assert client.chat([{"role": "user", "content": f"prompt {i}"}]) is None


def test_answers_cut_at_max_tokens_stop_the_stage_naming_the_setting(tmp_path):
    with StubLLM(canned) as stub:
        stub.faults += ["length"] * 10
        client = LM.LLM(settings(stub, tmp_path))
        with pytest.raises(LM.LLMFailingError, match=r"prompts in a row were cut at llm.max_tokens \(raise it\)"):
            for i in range(10):
                client.chat([{"role": "user", "content": str(i)}])
