"""Notebook 01 executed by papermill on the tiny fixture store, then rendered to HTML."""
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
