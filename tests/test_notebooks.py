"""Notebooks executed by papermill on the tiny fixture (store, plans, runs), then rendered to HTML."""
import json

from conftest import FIXTURE_DATA
from lib.notebooks import render_html, run_notebook
from lib.store import save_store


def test_notebook_01_runs_on_a_tiny_store(tiny_store, tmp_path):
    store_dir = tmp_path / "store"
    save_store(tiny_store, store_dir)
    metrics_path = tmp_path / "metrics" / "store.json"
    executed = run_notebook("01_knowledge_store", {"store_dir": str(store_dir), "data_dir": str(FIXTURE_DATA),
                                                   "metrics_path": str(metrics_path), "top_domains": 5},
                            out_dir=tmp_path / "executed", timeout_s=300)
    metrics = json.loads(metrics_path.read_text())
    assert metrics["documents"] == 12 and metrics["gold_coverage_all_systems"] == 1.0
    assert metrics["quantemp_val_claims"] == 3 and metrics["quantemp_val_without_snippets"] == 1
    html = render_html(executed, tmp_path / "reports").read_text()
    assert "The store holds <strong>12 documents</strong>" in html
    assert "Traceback" not in html


def run_on_fixture(name, params, tmp_path):
    executed = run_notebook(name, params, out_dir=tmp_path / "executed", timeout_s=300)
    html = render_html(executed, tmp_path / "reports").read_text()
    assert "Traceback" not in html and "Error" not in html.split("Conclusion")[-1]
    return html


def test_notebook_02_runs_on_the_fixture_study(tiny_study, tmp_path):
    metrics_path = tmp_path / "query_planning.json"
    html = run_on_fixture("02_query_planning", {
        "runs_dir": str(tiny_study / "runs"), "store_dir": str(tiny_study / "store"),
        "plans_dir": str(tiny_study / "plans"), "embeddings_dir": str(tiny_study / "embeddings"),
        "data_dir": str(FIXTURE_DATA), "metrics_path": str(metrics_path)}, tmp_path)
    metrics = json.loads(metrics_path.read_text())
    assert metrics["claims_evaluated"] == 3 and set(metrics["ndcg@10"]) == {"bm25/claim", "bm25/global",
                                                                            "dense/claim", "dense/global"}
    assert "CLAIM-ONLY reaches NDCG@10" in html


def test_notebook_03_runs_on_the_fixture_study(tiny_study, tmp_path):
    metrics_path = tmp_path / "aggregation.json"
    html = run_on_fixture("03_aggregation", {
        "runs_dir": str(tiny_study / "runs"), "store_dir": str(tiny_study / "store"),
        "plans_dir": str(tiny_study / "plans"), "metrics_path": str(metrics_path)}, tmp_path)
    metrics = json.loads(metrics_path.read_text())
    assert set(metrics["ndcg@10"]["bm25/claim"]) == {"TOP-1", "CONCAT", "COMBMAX", "COMBSUM", "COMBMAX-NORM",
                                                       "COMBSUM-NORM", "RRF", "CombMNZ"}
    assert "COMBMAX-NORM has the best NDCG@10 in" in html


def test_notebook_04_runs_on_the_fixture_study(tiny_study, tmp_path):
    metrics_path = tmp_path / "retrieval.json"
    run_on_fixture("04_retrieval_metrics", {
        "runs_dir": str(tiny_study / "runs"), "store_dir": str(tiny_study / "store"),
        "metrics_path": str(metrics_path), "plots_dir": str(tmp_path / "plots"), "max_k": 10,
        "n_resamples": 200}, tmp_path)
    metrics = json.loads(metrics_path.read_text())
    assert set(metrics["significant_vs_baseline"]) == {"ORACLE-QUERIES", "BLOOM-QG", "HEURISTIC"}
    curve = (tmp_path / "plots" / "recall_at_k.csv").read_text().splitlines()
    assert curve[0] == "k,claim_only,oracle,bloom_qg,heuristic" and len(curve) == 11


def test_metrics_are_flattened_with_dvc_style_keys():
    from lib.notebooks import flatten

    assert flatten({"a": {"b": 1, "c": {"d": [2]}}, "e": "x"}) == {"a.b": 1, "a.c.d": [2], "e": "x"}


def test_notebook_05_runs_on_fixture_scores(tmp_path):
    import pandas as pd

    from lib import data as D
    from lib import evidence as E
    from lib import scoring as S

    claims = D.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    refs = [S.reference_evidence(c) for c in claims]
    oracle = [S.Evidence("Refuted", r.questions, r.strings[:1]) for r in refs]
    runs = {"oracle": ("planner", oracle),
            "oracle__duplicated": ("planner", [S.Evidence(p.label, p.questions, p.strings * 10) for p in oracle]),
            "sys_x": ("system", [S.Evidence("Supported", ("What?",), ("What? Cheese.",)) for _ in refs]),
            **{name: ("reference", preds) for name, preds in E.reference_runs(claims).items()}}
    table = pd.concat([S.per_claim(p, refs).assign(run=r, kind=k, n_pairs=[len(x.strings[:10]) for x in p])
                       for r, (k, p) in runs.items()], ignore_index=True)
    table.to_parquet(tmp_path / "scores.parquet", index=False)
    metrics_path = tmp_path / "averitec.json"
    html = run_on_fixture("05_averitec_score", {"scores_path": str(tmp_path / "scores.parquet"),
                                                "metrics_path": str(metrics_path)}, tmp_path)
    metrics = json.loads(metrics_path.read_text())
    assert set(metrics["runs"]) == set(runs) and metrics["runs"]["reference_gold"]["accuracy"] == 1.0
    assert "Best published system at level 0.25: sys_x" in html
