"""lib.timing: stage wall times recorded only for finished runs, and the table made from them."""

from __future__ import annotations

import json
import sys

import pytest

from lib import closure as CL
from lib import timing as TM


def test_a_finished_command_is_recorded_under_its_dvc_stage(tmp_path, monkeypatch):
    monkeypatch.setenv("DVC_STAGE", "store")
    assert TM.run([sys.executable, "-c", "pass"], out_dir=tmp_path) == 0
    rec = json.loads((tmp_path / "store.json").read_text())
    assert rec["stage"] == "store" and rec["seconds"] >= 0 and rec["command"].endswith("-c pass")
    assert not list(tmp_path.glob("*.tmp"))


def test_a_failed_command_keeps_its_status_and_records_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("DVC_STAGE", "store")
    assert TM.run([sys.executable, "-c", "raise SystemExit(3)"], out_dir=tmp_path) == 3
    assert TM.run(["/no/such/program"], out_dir=tmp_path) == 127
    assert not list(tmp_path.iterdir())


def test_outside_dvc_nothing_is_recorded(tmp_path, monkeypatch):
    monkeypatch.delenv("DVC_STAGE", raising=False)
    assert TM.run([sys.executable, "-c", "pass"], out_dir=tmp_path) == 0 and not list(tmp_path.iterdir())


def test_table_in_stage_order_with_the_total(tmp_path):
    TM.record("runs", 125.0, ["x"], tmp_path)
    TM.record("store", 30.5, ["y"], tmp_path)
    lines = TM.table(["store", "plans", "runs"], tmp_path).splitlines()
    assert lines[2].startswith("| `store` | 30.5 s |") and lines[3].startswith("| `runs` | 2 min 05.0 s |")
    assert lines[-1].startswith("| **all 2 stages** | **2 min 35.5 s** |")
    with pytest.raises(SystemExit, match="no timing files"):
        TM.table([], tmp_path / "none")


def test_readme_table_goes_between_the_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# Study\n\n{TM.BEGIN}\nold\n{TM.END}\n\nmore\n")
    TM.write_readme(readme, "| new |")
    assert readme.read_text() == f"# Study\n\n{TM.BEGIN}\n| new |\n{TM.END}\n\nmore\n"
    readme.write_text("no markers")
    with pytest.raises(SystemExit, match="markers"):
        TM.write_readme(readme, "x")


def test_the_timer_is_not_a_dep_but_what_it_runs_is():
    modules, _ = CL.stage_entry_points("python -m lib.timing run -- python -m lib.store")
    assert modules == {"lib.store"}
    assert TM.main(["nonsense"]) == 2


def test_the_committed_metrics_hold_no_timings_or_machine_details():
    from lib.config import METRICS_DIR

    def keys(tree, prefix=""):
        if isinstance(tree, dict):
            for k, v in tree.items():
                yield f"{prefix}{k}"
                yield from keys(v, f"{prefix}{k}.")

    files = sorted(METRICS_DIR.glob("*.json"))
    assert files, "outputs/metrics/*.json are committed"
    bad = [
        f"{f.name}: {k}"
        for f in files
        for k in keys(json.loads(f.read_text()))
        if any(word in k.rsplit(".", 1)[-1].lower() for word in ("second", "device", "host", "timing", "duration"))
    ]
    assert bad == []
