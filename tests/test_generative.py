"""lib.planning.generative: both stages end to end on the fixtures, LLM off, live (stub server) and replay."""

from __future__ import annotations

import json
import re

import pytest

from lib import models as MD
from lib.planning import generative as G
from lib.planning import pursuit as PU
from tests.conftest import FIXTURE_DATA, interrupt_at_call, tiny_generative_sections
from tests.llm_stub import StubLLM
from tests.test_prompted import stub_answer


def params(mode: str, base_url: str | None = None) -> dict:
    p = {
        "llm": {"mode": mode, "base_url": base_url, "model": "stub", "backoff": 0.01, "max_retries": 2},
        "retrieval": {"model": MD.BUNDLED_MINILM, "max_seq_length": 128, "bm25": {}, "workers": 1, "depth": 10},
        **tiny_generative_sections(["claim_only", "oracle"]),
    }
    p["generative"]["claimdecomp_examples"] = 2
    return p


def build(tiny_study, tiny_qgen, out, p, cache):
    return G.build(
        p,
        FIXTURE_DATA,
        tiny_study / "store",
        tiny_study / "plans",
        tiny_qgen[0],
        out,
        emb_dir=out / "no-embeddings",
        cache_path=cache,
        progress=False,
    )


def test_llm_off_runs_qgen_pursuit_and_mmr_and_says_what_it_skipped(tiny_study, tiny_qgen, tmp_path):
    rep = build(tiny_study, tiny_qgen, tmp_path / "gen", params("off"), tmp_path / "cache.jsonl")
    assert sorted(rep["plans"]) == ["mmr_pool", "pursuit_seq_seq", "qgen"]
    assert rep["skipped"] == {
        "claimdecomp": "llm.mode is off",
        "pgmfc": "llm.mode is off",
        "all_at_once": "llm.mode is off",
        "agq": "llm.mode is off",
        "pursuit_seq_llm": "llm.mode is off",
        "pursuit_llm_llm": "llm.mode is off",
    }
    traces = G.load_traces(tmp_path / "gen" / "traces" / "pursuit_seq_seq.jsonl")
    assert [t.claim_id for t in traces] == [0, 1, 2]
    assert rep["llm"]["requests"] == 0 and "api_key" not in json.dumps(rep["llm"]["settings"]).replace(
        "api_key_env", ""
    )


def test_live_then_replay_reproduces_every_plan_byte_for_byte(tiny_study, tiny_qgen, tmp_path):
    cache = tmp_path / "cache.jsonl"
    with StubLLM(stub_answer) as stub:
        live = build(tiny_study, tiny_qgen, tmp_path / "live", params("live", stub.base_url), cache)
    names = {
        "qgen",
        "mmr_pool",
        "claimdecomp",
        "pgmfc",
        "all_at_once",
        "agq",
        "agq_unfiltered",
        "pursuit_seq_seq",
        "pursuit_seq_llm",
        "pursuit_llm_llm",
    }
    assert set(live["plans"]) == names and live["skipped"] == {}
    assert live["llm"]["answered"] > 0
    assert live["pursuit_stops"]["pursuit_llm_llm"] == {"verdict": 3}  # the stub gives a verdict after 2 pairs
    replay = build(tiny_study, tiny_qgen, tmp_path / "replay", params("replay", "http://127.0.0.1:9/v1"), cache)
    assert replay["llm"]["requests"] == 0
    for name in names:
        a = (tmp_path / "live" / "plans" / f"{name}.jsonl").read_bytes()
        assert a == (tmp_path / "replay" / "plans" / f"{name}.jsonl").read_bytes(), name
    for name in ("pursuit_seq_seq", "pursuit_seq_llm", "pursuit_llm_llm"):
        assert (tmp_path / "live" / "traces" / f"{name}.jsonl").read_bytes() == (
            tmp_path / "replay" / "traces" / f"{name}.jsonl"
        ).read_bytes()


def test_replay_with_an_empty_cache_names_what_is_missing(tiny_study, tiny_qgen, tmp_path):
    from lib.planning.llm import CacheMiss

    with pytest.raises(CacheMiss, match="not in the cache"):
        build(tiny_study, tiny_qgen, tmp_path / "gen", params("replay"), tmp_path / "empty.jsonl")


def test_runs_and_scores(tiny_study, tiny_qgen, tmp_path, monkeypatch):
    gen = tmp_path / "gen"
    build(tiny_study, tiny_qgen, gen, params("off"), tmp_path / "cache.jsonl")
    # a stop while scoring the third run leaves no prediction file, where the first two were renamed into place
    # beside no scores (the thirty-second pass)
    from lib.averitec import evidence as E

    with monkeypatch.context() as m:
        calls = interrupt_at_call(m, E, "score_run", 3)
        with pytest.raises(KeyboardInterrupt):
            G.runs_and_scores(
                params("off"), FIXTURE_DATA, tiny_study / "store", tiny_study / "plans", gen, progress=False
            )
    assert len(calls) == 3 and not any((gen / "predictions").iterdir()) and not (gen / "scores.parquet").exists()
    (gen / "predictions" / "dropped_plan.json").write_text("[]")  # a run of earlier params: removed with the rest
    # the fiftieth pass (O 9): a plan an earlier run made (llm.mode on) was scored as current and cut the claims
    (gen / "plans" / "agq.jsonl").write_text('{"claim_id": 0, "queries": ["q"]}\n')
    runs, scores = G.runs_and_scores(
        params("off"), FIXTURE_DATA, tiny_study / "store", tiny_study / "plans", gen, progress=False
    )
    assert set(runs["plan"].unique()) == {"claim_only", "oracle", "qgen", "pursuit_seq_seq", "mmr_pool"}
    assert set(runs["scope"].unique()) == {"claim", "global"}
    ablations = {f"pursuit_seq_seq__{v}" for v in PU.FILL_UPS}
    assert set(scores["run"]) == set(runs["plan"].unique()) | ablations and len(scores) == (5 + 4) * 3
    assert set(scores.loc[scores.run == "oracle", "kind"]) == {"baseline"}
    assert {p.stem for p in (gen / "predictions").iterdir()} == set(scores["run"])
    assert set(scores.loc[scores.run.isin(ablations), "kind"]) == {"ablation"}
    # the pursuit's QA pairs as scored are the ones it found while pursuing (fill-up off: the pursued hops)
    preds = json.loads((gen / "predictions" / "pursuit_seq_seq.json").read_text())
    traces = G.load_traces(gen / "traces" / "pursuit_seq_seq.jsonl")
    for p, t in zip(preds, traces):
        assert [(q["question"], q["answers"][0]["answer"]) for q in p["questions"]] == [
            (h.question, h.answer) for h in t.pursued if h.doc_id is not None
        ]
    # the main run is the variant its fill_up setting names ("none" in the fixture params)
    assert preds == json.loads((gen / "predictions" / "pursuit_seq_seq__no_fill_up.json").read_text())
    # the fill-up ablations: the paraphrase variant's pairs are all the trace's answered hops; inflated cycles
    # them up to averitec.max_pairs; repeat cycles the pursued ones up to the pursuit's max_questions
    read = lambda v: json.loads((gen / "predictions" / f"pursuit_seq_seq__{v}.json").read_text())  # noqa: E731
    for para, infl, rep, t in zip(read("paraphrase"), read("inflated"), read("repeat"), traces):
        pairs = [q["question"] for q in para["questions"]]
        if t.hops and all(h.doc_id is not None for h in t.hops):
            assert pairs == [h.question for h in t.hops]
        if pairs:
            assert [q["question"] for q in infl["questions"]] == (pairs * 10)[:10]
            assert len(rep["questions"]) == 3 or not any(h.doc_id for h in t.pursued)


def test_mmr_inputs_embed_the_candidates_as_mmr_plan_reads_them(tmp_path):
    """The thirty-second pass: a plan line "Who  said it?" (two spaces), which `load_plan` accepts, was embedded
    as written and looked up as `distinct` spells it: a bare KeyError."""
    import numpy as np

    from lib.data import averitec
    from lib.planning import mmr as MMR

    class Encoder:
        def encode(self, texts, **_):
            v = np.array([[len(t) + 1.0, sum(map(ord, t)) % 7 + 1.0, 1.0] for t in texts])
            return v / np.linalg.norm(v, axis=1, keepdims=True)

    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")[:2]
    (tmp_path / "a.jsonl").write_text(
        "".join(json.dumps({"claim_id": c.claim_id, "queries": ["Who  said it?", "where"]}) + "\n" for c in claims)
    )
    pool, emb = G.mmr_inputs(["a"], claims, tmp_path, Encoder())
    plan = G.mmr_plan(pool, claims, emb, MMR.MMRParams(gamma=-1.0))
    assert all(sorted(plan[c.claim_id]) == ["Who said it?", "where"] for c in claims)


def test_an_answer_setting_the_stage_does_not_run_is_refused():
    """The forty-ninth pass: `temporal: [true]` (or answers from a retriever not run) scored every plan's evidence
    0.0 from empty answer lists, exit 0."""
    from lib.params import ParamsError, section, validate
    from lib.planning.generative import GenerativeRunsSection

    g = section("generative_runs")
    for bad, named in (
        ({"temporal": [True]}, "the answers' temporal False is not in temporal [True]"),
        ({"answers": {"retriever": "hybrid", "scope": "claim"}}, "answers.retriever 'hybrid' is not in retrievers"),
        ({"scopes": ["global"]}, "answers.scope 'claim' is not in scopes ['global']"),
    ):
        with pytest.raises(ParamsError, match=re.escape(named)):
            validate(GenerativeRunsSection, {**g, **bad}, "p", ("generative_runs",), [])
    assert validate(GenerativeRunsSection, g, "p", ("generative_runs",), []).answers.scope == g["answers"]["scope"]


def test_the_runs_read_the_plans_the_last_plans_run_made(tmp_path):
    """The fiftieth pass (O 9): `generative runs` scored every plan file in the folder as current."""
    from lib.cli import NamedError

    with pytest.raises(NamedError, match=r"report\.json: missing; run stage generative_plans"):
        G.made_plans(tmp_path)
    (tmp_path / "report.json").write_text('{"plans": {"qgen": {}, "mmr_pool": {}}}')
    assert G.made_plans(tmp_path) == ["qgen", "mmr_pool"]
    (tmp_path / "report.json").write_text('{"plans": ["qgen"]}')
    with pytest.raises(NamedError, match="no `plans` mapping"):
        G.made_plans(tmp_path)


def test_a_report_that_is_no_object_is_named(tmp_path):
    """The fiftieth pass, Q 3: `[1, 2]` or `null` as report.json ended in AttributeError."""
    from lib.cli import NamedError

    for text in ("[1, 2]", "null"):
        (tmp_path / "report.json").write_text(text)
        with pytest.raises(NamedError, match="no `plans` mapping"):
            G.made_plans(tmp_path)
