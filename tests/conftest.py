"""Shared fixtures: the tiny hand-made dataset in tests/fixtures/data and a store built from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lib import models as MD
from lib.store.build import Store, StoreSettings, build_store

FIXTURE_DATA = Path(__file__).parent / "fixtures" / "data"


def chromium(*args: str) -> str:
    """Headless Chromium's stdout (the browser tests of the report pages); fails the test naming the fix when
    Debian's chromium is not installed."""
    import shutil
    import subprocess

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if not binary:
        pytest.fail("Chromium is not installed: `make browser` (Debian's chromium package) installs it")
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout


REAL_DATA = Path(__file__).resolve().parent.parent / "data"


def interrupt_at_call(monkeypatch, module, name: str, n: int) -> list:
    """Make `module.name` raise KeyboardInterrupt at its n-th call (a stop mid-stage, as Ctrl-C gives it) and
    run as before until then; the list returned counts the calls."""
    original, calls = getattr(module, name), []

    def stopped(*args, **kwargs):
        calls.append(1)
        if len(calls) == n:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, stopped)
    return calls


def fixture_settings(**overrides) -> StoreSettings:
    base = dict(
        systems={"sys_a": "sys_a.jsonl", "sys_b": "sys_b.json"},
        include_gold=True,
        distractor_splits=["train", "test"],
        min_words=3,
        news_sites_with_fact_check_section=["washingtonpost.com"],
        extra_fact_check_domains=[],
    )
    return StoreSettings(**{**base, **overrides})


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """A command run in-process (`run_main`) ends by ignoring SIGTERM and SIGINT, as the process is about to
    exit; the test process goes on, and an ignored signal is inherited by every child it starts (a command
    killed by SIGTERM in a later test then exited 0). Each test gets the handlers it started with back."""
    import signal

    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


@pytest.fixture(scope="session")
def fixture_data() -> Path:
    return FIXTURE_DATA


@pytest.fixture(scope="session")
def tiny_store() -> Store:
    return build_store(fixture_settings(), FIXTURE_DATA)


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The real data pulled by `make data`; the test command pulls it, so these tests always run."""
    if not (REAL_DATA / "SHA256SUMS").exists():
        pytest.fail("data/ is missing: run `make data` (the README's test command does)")
    return REAL_DATA


@pytest.fixture(scope="session")
def real_store(real_data) -> Store:
    """The store built from the real data with the default params (tests need no pipeline run)."""
    from lib.params import section

    return build_store(StoreSettings.model_validate(section("store")), real_data)


@pytest.fixture(scope="session")
def tiny_study(tiny_store, tmp_path_factory):
    """The retrieval study's files for the fixture: store, plans, (random) query embeddings and runs."""
    import json

    import numpy as np

    from lib.data import averitec
    from lib.planning import planners as P
    from lib.retrieval import dense as DN
    from lib.retrieval import runs as RU
    from lib.store.build import save_store

    root = tmp_path_factory.mktemp("study")
    save_store(tiny_store, root / "store")
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    plans = {
        "claim_only": P.claim_only(claims),
        "oracle": P.oracle(claims),
        "bloom_qg": P.bloom_qg(claims, {0: ["What is the moon made of?"], 1: ["Did growth happen?"]}),
        "heuristic": P.heuristic(claims),
    }
    for name, plan in plans.items():
        P.save_plan(plan, root / "plans" / f"{name}.jsonl")
    grid = RU.RunGrid.model_validate({"plans": list(plans), "retrievers": ["bm25", "dense"], "depth": 10})
    rng = np.random.default_rng(0)

    def unit(n):
        v = rng.normal(size=(n, 8)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    texts = RU.queries_needed(grid, plans, claims)
    DN.save_embeddings(root / "embeddings" / MD.model_slug(grid.model), texts, unit(len(texts)), grid.model)
    q_emb = dict(zip(texts, np.load(root / "embeddings" / f"{MD.model_slug(grid.model)}.npy")))
    runs, report, answers = RU.retrieve(
        grid,
        tiny_store.docs,
        claims,
        plans,
        RU.retrievers(grid, tiny_store.docs, unit(len(tiny_store.docs)), q_emb),
        progress=False,
    )
    (root / "runs").mkdir()
    runs.to_parquet(root / "runs" / "runs.parquet", index=False)
    answers.to_parquet(root / "runs" / "answers.parquet", index=False)
    (root / "runs" / "report.json").write_text(json.dumps(report))
    return root


@pytest.fixture(scope="session")
def tiny_qgen(tmp_path_factory):
    """A QGEN model trained for one step on the fixture train claims (mechanics only, not quality)."""
    from lib.data import averitec
    from lib.planning import qgen_training as QT

    out = tmp_path_factory.mktemp("qgen")
    s = qgen_settings(batch_size=8, max_source_tokens=48, max_target_tokens=24, epochs=1)
    report = QT.train(s, averitec.load_averitec("train", FIXTURE_DATA / "averitec" / "train.json"), out, progress=False)
    return out, report


def qgen_settings(**override):
    """params.yaml's `qgen` section as QGEN's settings, with some keys set."""
    from lib.params import section
    from lib.planning.qgen_training import QGenSettings

    return QGenSettings.model_validate({**section("qgen"), **override})


TINY_DECODING = {"num_beams": 2, "max_new_tokens": 12, "max_questions": 5, "device": "cpu"}


def tiny_generative_sections(baselines: list[str]) -> dict:
    """The `generative`, `generative_runs` and `averitec` params of the generative stages on the fixtures
    (every prompted planner and pursuit asked for; BM25 runs in both scopes)."""
    return {
        "generative": {
            "prompted": ["claimdecomp", "pgmfc", "all_at_once", "agq"],
            "mmr": {"alpha": 0.8, "lam": 0.4, "gamma": 0.2, "lambda_weights": "diversity"},
            "mmr_pool": ["bloom_qg", "heuristic"],
            "qgen": TINY_DECODING,
            "pursuit": {
                "variants": ["seq_seq", "seq_llm", "llm_llm"],
                "max_questions": 3,
                "fill_up": "none",
                "alternatives": 2,
                "retriever": "bm25",
                "scope": "claim",
                "query": "claim_and_question",
                "window": 1,
            },
        },
        "generative_runs": {
            "baselines": baselines,
            "retrievers": ["bm25"],
            "scopes": ["claim", "global"],
            "temporal": [False],
            "answers": {"retriever": "bm25", "scope": "claim"},
        },
        "averitec": {"verdict_source": "majority", "max_pairs": 10, "jobs": 1},
    }


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> str:
    """A two-layer, 32-wide BERT with MiniLM's vocabulary, randomly initialised, saved as a model path for
    the classifier tests (trains in seconds)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from lib.models import resolve_model
    from lib.verifier.nli import NLISettings

    tok = AutoTokenizer.from_pretrained(resolve_model(NLISettings().model))
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("tiny_bert")
    BertModel(
        BertConfig(
            vocab_size=tok.vocab_size,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=64,
        )
    ).save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


def tiny_classifier(model: str) -> dict:
    """Classifier parameters that train the tiny BERT in seconds."""
    return {
        "model": model,
        "max_length": 48,
        "batch_size": 4,
        "learning_rate": 1e-3,
        "epochs": 1,
        "eval_every": 1.0,
        "validation_fraction": 0.25,
        "seed": 0,
    }


@pytest.fixture(scope="session")
def tiny_nli(tiny_study, tiny_bert, tmp_path_factory):
    """Stages `nli_averitec` and `nli_planners` on the fixture (tiny BERT classifiers): (data dir, training
    stage's folder, planner stage's folder)."""
    import json

    from lib.verifier import averitec as NAV
    from lib.verifier import veracity as V

    root = tmp_path_factory.mktemp("tiny_nli")
    data = root / "data" / "averitec"
    data.mkdir(parents=True)
    dev = json.loads((FIXTURE_DATA / "averitec" / "dev.json").read_text())
    (data / "dev.json").write_text(json.dumps(dev))
    labels = ["Refuted", "Supported", "Refuted", "Not Enough Evidence"] * 4
    (data / "train.json").write_text(json.dumps([{**dev[i % 3], "label": lb} for i, lb in enumerate(labels)]))
    params = {
        "classifier": tiny_classifier(tiny_bert),
        "seeds": [0],
        "label_set": "averitec4",
        "k": 2,
        "ablation_ks": [1],
        "ablation_planners": ["oracle"],
        "planners": ["claim_only", "oracle"],
        "runs": [str(tiny_study / "runs" / "runs.parquet")],
        "retrieval": {"retriever": "bm25", "scope": "claim", "temporal": False, "fusion": "combmax_norm"},
        "scope_variants": ["global", "claim"],  # the main scope itself is not read twice
    }
    NAV.averitec_stage(params, root / "data", root / "averitec")
    V.planners_stage(params, root / "data", tiny_study / "store", root / "averitec", root / "planners")
    return root / "data", root / "averitec", root / "planners"


@pytest.fixture(scope="session")
def tiny_utility(tiny_study, tiny_nli, tmp_path_factory):
    """Stage `utility` on the fixture study, once for the session: (its output folder, its report)."""
    from lib.analysis import utility as U

    data, _, planners_dir = tiny_nli
    out = tmp_path_factory.mktemp("tiny_utility")
    params = {
        "planners": ["claim_only"],
        "runs": [str(tiny_study / "runs" / "runs.parquet")],
        "candidates": 3,
        "candidate_sweep": [2, 3],
        "k": 2,
        "folds": 2,
        "alpha": 1.0,
        "seed": 0,
        "device": "cpu",
    }
    return out, U.stage(params, data, tiny_study / "store", planners_dir, out)


@pytest.fixture(scope="session")
def tiny_climate(tiny_nli, tmp_path_factory):
    """Stage `climate_fever` on a 6-claim file read with the fixture verifier: (data dir, output folder, report)."""
    import json

    from lib.analysis import climate_fever as CF

    _, _, planners_dir = tiny_nli
    root = tmp_path_factory.mktemp("tiny_climate")
    labels = ["SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED", "SUPPORTS", "REFUTES"]
    records = [
        {
            "claim_id": str(i),
            "claim": f"claim {i} about sea ice and warming",
            "claim_label": lb,
            "evidences": [
                {
                    "evidence_id": f"A:{j}",
                    "article": "A",
                    "evidence": f"sentence {j} on sea ice",
                    "evidence_label": ev,
                    "votes": [],
                }
                for j, ev in enumerate(["SUPPORTS", "NOT_ENOUGH_INFO", "REFUTES"])
            ],
        }
        for i, lb in enumerate(labels)
    ]
    (root / "data" / "climate_fever").mkdir(parents=True)
    (root / "data" / "climate_fever" / "climate-fever.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    report = CF.stage(TINY_CLIMATE, root / "data", planners_dir, root / "out")
    return root / "data", root / "out", report


TINY_CLIMATE = {
    "k": 2,
    "folds": 2,
    "alpha": 1.0,
    "seed": 0,
    "encoder": "sentence-transformers/all-MiniLM-L6-v2",
    "device": "cpu",
    "max_claims": 5,
}


def timed_stage(stage: str, run, timings_dir: Path) -> None:
    """Run a stage's function as `python -m lib.timing run --` would: its costs into its timing file."""
    import os

    from lib import timing as TM

    costs = timings_dir.parent / f"{stage}.costs.tmp"
    costs.write_text("")  # the timer makes its scratch file before the command runs
    os.environ[TM.COSTS_ENV] = str(costs)
    try:
        run()
    finally:
        del os.environ[TM.COSTS_ENV]
    per_claim, measured = TM.read_costs(costs)
    TM.record(stage, sum(c["seconds"] for c in per_claim), ["fixture"], timings_dir, per_claim, measured)


@pytest.fixture(scope="session")
def tiny_generative(tiny_study, tiny_qgen, tiny_bert, tmp_path_factory):
    """Stages `embed_queries` (the plans' queries, tiny BERT as encoder), `generative_plans` (llm.mode off:
    QGEN, PURSUIT Seq+Seq, MMR-POOL) and `generative_runs` (BM25 only: the dense runs read document
    embeddings from outputs/) on the fixture study: (params, query embeddings folder, generative folder).
    Their costs land in `timings/` beside the generative folder, as the timer would write them."""

    from lib.data import averitec
    from lib.planning import generative as G
    from lib.retrieval import dense as DN
    from lib.retrieval import runs as RU

    root = tmp_path_factory.mktemp("tiny_generative")
    params = {
        "llm": {"mode": "off", "model": "none"},
        # the tiny BERT as query encoder (MMR-POOL): 64 positions, so at most 48 tokens
        "retrieval": {"model": tiny_bert, "max_seq_length": 48, "bm25": {}, "workers": 1, "depth": 10},
        **tiny_generative_sections(["claim_only", "oracle", "bloom_qg"]),
    }
    r = params["retrieval"]
    names = sorted(p.stem for p in (tiny_study / "plans").glob("*.jsonl"))
    grid = RU.RunGrid.model_validate({**r, "plans": names, "retrievers": ["dense"]})
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    texts = RU.queries_needed(grid, RU.load_plans(names, tiny_study / "plans"), claims)
    encoder = MD.load_encoder(r["model"], None, r["max_seq_length"])
    emb_dir = root / "embeddings"
    DN.save_embeddings(
        emb_dir / MD.model_slug(r["model"]), texts, MD.encode(encoder, texts, progress=False), r["model"]
    )
    gen = root / "generative"

    def timed(stage, run):
        timed_stage(stage, run, root / "timings")

    timed(
        "generative_plans",
        lambda: G.build(
            params,
            FIXTURE_DATA,
            tiny_study / "store",
            tiny_study / "plans",
            tiny_qgen[0],
            gen,
            emb_dir=emb_dir,
            cache_path=root / "llm" / "cache.jsonl",
            progress=False,
        ),
    )
    timed(
        "generative_runs",
        lambda: G.runs_and_scores(
            params, FIXTURE_DATA, tiny_study / "store", tiny_study / "plans", gen, progress=False
        ),
    )
    return params, emb_dir, gen


@pytest.fixture(scope="session")
def tiny_quantemp(tiny_bert, tmp_path_factory):
    """Stage `nli_quantemp` on a small QuanTemp-like data folder (30 validation claims with BM25 snippets, a
    labelled taxonomy sample, the gold-labelled subset and two published systems), tiny BERT classifiers and
    taxonomy encoder: its output folder."""
    import json

    import pandas as pd

    from lib.verifier import quantemp as NQ

    root = tmp_path_factory.mktemp("tiny_quantemp")
    q = root / "data" / "quantemp"
    q.mkdir(parents=True)
    labels = ["True", "False", "Half True/False"]
    claims = [f"In {2000 + i} the rate rose {i} percent." for i in range(30)]
    (q / "val_claims_bm25_evidence.json").write_text(
        json.dumps(
            [
                {
                    "claim": text,
                    "label": labels[i % 3],
                    "evidences": [
                        {"questions": text, "top_k_doc": [f"snippet {i} a", f"snippet {i} b"] if i % 4 else []}
                    ],
                }
                for i, text in enumerate(claims)
            ]
        )
    )
    taxonomy = [[f"In {2000 + i} the rate was {i}", "temporal"] for i in range(4)]
    taxonomy += [[f"{i} percent of people agree", "statistical"] for i in range(4)]
    taxonomy += [[f"Prices are {i} times higher than in 1990", "comparison"] for i in range(4)]
    pd.DataFrame(taxonomy, columns=["claim", "taxonomy_labels"]).to_csv(
        q / "taxonomy_labelled_claims.csv", index=False, sep="@"
    )
    gold = claims[:6]
    pd.DataFrame(
        {
            "features": [f"[Claim]:{text}[Evidences]:an article" for text in gold],
            "true_label": [labels[i % 3] for i in range(6)],
            "pred_label": [labels[(i + 1) % 3] for i in range(6)],
        }
    ).to_csv(q / "test_subset_gold_with_article.csv")
    published = {"claim_only": "claim_only.csv", "unified_claimdecomp": "unified.csv"}
    for shift, file in enumerate(published.values()):
        pd.DataFrame({"claim": gold, "verdict": [labels[(i + shift) % 3] for i in range(6)]}).to_csv(
            q / file, index=False
        )
    params = {
        "classifier": tiny_classifier(tiny_bert),
        "seeds": [0],
        "k": 3,
        "test_fraction": 0.2,
        "split_seed": 0,
        "taxonomy": {"model": tiny_bert, "folds": 2, "seed": 0},
        "published": published,
    }
    out = root / "quantemp"
    NQ.quantemp_stage(params, root / "data", out)
    return out


@pytest.fixture(scope="session")
def tiny_veracity(tiny_study, tiny_nli, tiny_generative, tmp_path_factory):
    """Stage `nli_planners` as the study runs it, on both runs files (the retrieval study's and the generative
    planners'), with the classifiers of `tiny_nli`: its output folder. Its costs go to `tiny_generative`'s
    timings folder."""
    from lib.verifier import veracity as V

    data, averitec_dir, _ = tiny_nli
    out = tmp_path_factory.mktemp("tiny_veracity") / "planners"
    params = {
        "planners": ["claim_only", "oracle", "bloom_qg", "heuristic", "qgen", "pursuit_seq_seq", "mmr_pool"],
        "ablation_planners": ["claim_only", "oracle", "qgen"],
        "runs": [str(tiny_study / "runs" / "runs.parquet"), str(tiny_generative[2] / "runs.parquet")],
        "retrieval": {"retriever": "bm25", "scope": "claim", "temporal": False, "fusion": "combmax_norm"},
    }
    # its costs join those of the generative fixture stages (notebook 06's compute budget)
    timed_stage(
        "nli_planners",
        lambda: V.planners_stage(params, data, tiny_study / "store", averitec_dir, out),
        tiny_generative[2].parent / "timings",
    )
    return out
