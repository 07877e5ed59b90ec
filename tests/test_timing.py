"""lib.timing: stage wall times recorded only for finished runs, and the table made from them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lib import closure as CL
from lib import timing as TM
from lib.analysis import budget


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
    assert lines[4] == "| `plans` | not run here (up to date) | |"
    assert lines[-1].startswith("| **all 2 stages** | **2 min 35.5 s** |")
    with pytest.raises(TM.NamedError, match="no timing files"):
        TM.table([], tmp_path / "none")


def test_readme_table_goes_between_the_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# Study\n\n{TM.BEGIN}\nold\n{TM.END}\n\nmore\n")
    TM.write_readme(readme, "| new |")
    assert readme.read_text() == f"# Study\n\n{TM.BEGIN}\n| new |\n{TM.END}\n\nmore\n"
    # the thirty-ninth pass: every \r\n and bare \r of the file became \n (newline translation on reading)
    readme.write_bytes(f"# Study\r\n\r{TM.BEGIN}\r\nold\r\n{TM.END}\r\nmore\r\n".encode())
    TM.write_readme(readme, "| new |")
    # and the table is written with the file's own line ending (the fortieth pass: LF lines in a CRLF file)
    assert readme.read_bytes() == f"# Study\r\n\r{TM.BEGIN}\r\n| new |\r\n{TM.END}\r\nmore\r\n".encode()
    TM.write_readme(readme, "| a |\n| b |")
    assert readme.read_bytes() == f"# Study\r\n\r{TM.BEGIN}\r\n| a |\r\n| b |\r\n{TM.END}\r\nmore\r\n".encode()
    readme.write_text(f"{TM.BEGIN}\nold\n{TM.END}\nmid\n{TM.BEGIN}\nold2\n{TM.END}\n")  # two tables: one was left old
    with pytest.raises(TM.NamedError, match="the timing markers appear more than once"):
        TM.write_readme(readme, "x")
    readme.write_text("no markers")
    with pytest.raises(TM.NamedError, match="markers"):
        TM.write_readme(readme, "x")
    readme.write_text(f"{TM.END}\n{TM.BEGIN}\n")
    with pytest.raises(TM.NamedError, match="comes before"):
        TM.write_readme(readme, "x")


def test_a_timing_file_with_an_amount_past_any_measurement_is_named_not_summed_to_inf(tmp_path):
    for stage in ("a", "b"):
        (tmp_path / f"{stage}.json").write_text(json.dumps({"seconds": 1e308, "finished": "2026-01-01", "cpus": 2}))
    with pytest.raises(TM.NamedError, match="not a timing record"):
        TM.table(["a", "b"], tmp_path)


def test_the_timer_is_not_a_dep_but_what_it_runs_is():
    modules, _ = CL.stage_entry_points("python -m lib.timing run -- python -m lib.store.build")
    assert modules == {"lib.store.build"}
    assert TM.main(["nonsense"]) == 2
    # stages import it to record their costs (lib.retrieval.runs does), and it stays out of their deps all the same
    assert "lib/timing.py" not in CL.stage_closure("python -m lib.timing run -- python -m lib.retrieval.runs retrieve")
    assert "lib/retrieval/runs.py" in CL.stage_closure(
        "python -m lib.timing run -- python -m lib.retrieval.runs retrieve"
    )


def test_the_committed_outputs_hold_no_timings_or_machine_details():
    """Metrics hold neither timings nor machine details; every other output committed with the code (QuanTemp's
    verifier report, which names the device it trained on) holds no wall-clock number, which would make each
    rerun differ and every stage after it rerun."""
    from lib.paths import ROOT

    def keys(tree, prefix=""):
        if isinstance(tree, dict):
            for k, v in tree.items():
                yield f"{prefix}{k}"
                yield from keys(v, f"{prefix}{k}.")

    listed = subprocess.run(["git", "ls-files", "outputs"], cwd=ROOT, capture_output=True, text=True, check=True)
    files = [ROOT / f for f in listed.stdout.split() if f.endswith(".json")]
    assert any(f.parent.name == "metrics" for f in files) and any(f.name == "report.json" for f in files)
    words = {"metrics": ("second", "device", "host", "timing", "duration"), "": ("second", "timing", "duration")}
    bad = [
        f"{f.name}: {k}"
        for f in files
        for k in keys(json.loads(f.read_text()))
        if any(word in k.rsplit(".", 1)[-1].lower() for word in words.get(f.parent.name, words[""]))
    ]
    assert bad == []


# --------------------------------------------------------------------------- the compute budget


def test_a_cost_outside_the_timer_is_returned_and_written_nowhere(tmp_path, monkeypatch):
    monkeypatch.delenv(TM.COSTS_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    rec = TM.cost("qgen", "planning", 3.0, 4, "generative_plans")
    assert rec == {
        "planner": "qgen",
        "kind": "planning",
        "part": "generative_plans",
        "seconds": 3.0,
        "claims": 4,
        "seconds_per_claim": 0.75,
        "device": "cpu",
        "how": "measured",
    }
    assert list(tmp_path.iterdir()) == []
    assert TM.cost("x", "retrieval", 0.0, 0)["seconds_per_claim"] is None


@pytest.mark.parametrize(
    ("kind", "seconds", "claims", "match"),
    [("training", 1.0, 1, "expected one of"), ("planning", -1.0, 1, "negative"), ("planning", 1.0, -2, "negative")],
)
def test_a_cost_with_a_wrong_kind_or_a_negative_count_is_an_error(kind, seconds, claims, match):
    with pytest.raises(ValueError, match=match):
        TM.cost("qgen", kind, seconds, claims)


def test_shares_divide_pooled_seconds_per_unit():
    assert TM.shares(6.0, {"a": 2, "b": 1}) == {"a": 4.0, "b": 2.0}
    # four inputs submitted, three classified (one shared): each planner pays 2 s an input
    assert TM.shares(6.0, {"a": 2, "b": 2}, processed=3) == {"a": 4.0, "b": 4.0}
    assert TM.shares(5.0, {"a": 0}) == {"a": 0.0}
    with pytest.raises(ValueError, match="negative"):
        TM.shares(1.0, {"a": -1})


def _timed(stage: str, tmp_path, monkeypatch, *calls: str) -> dict:
    """Run `calls` (lib.timing calls) as stage `stage`'s command under the timer; its timing file."""
    monkeypatch.setenv("DVC_STAGE", stage)
    child = "; ".join(["from lib import timing as TM", *calls])
    assert TM.run([sys.executable, "-c", child], out_dir=tmp_path) == 0
    return json.loads((tmp_path / f"{stage}.json").read_text())


def test_costs_of_a_finished_stage_land_in_its_timing_file_with_the_hardware(tmp_path, monkeypatch):
    rec = _timed(
        "plans",
        tmp_path,
        monkeypatch,
        "TM.cost('claim_only', 'planning', 0.5, 10, 'plans')",
        "TM.cost('oracle', 'planning', 2.0, 10, 'plans', how='read')",
    )
    assert [(c["planner"], c["seconds_per_claim"], c["how"]) for c in rec["per_claim"]] == [
        ("claim_only", 0.05, "measured"),
        ("oracle", 0.2, "read"),
    ]
    assert rec["hardware"]["cores"] == TM.os.cpu_count() and rec["hardware"]["cpu"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plans.json"]  # the scratch file is gone


def test_measured_seconds_land_under_measured_never_among_the_costs(tmp_path, monkeypatch):
    calls = ("TM.measured('qgen', seconds=12.345, examples_per_second=3.0)", "TM.cost('qgen', 'planning', 1.0, 2)")
    rec = _timed("qgen", tmp_path, monkeypatch, *calls)
    assert rec["measured"] == {"qgen": {"seconds": 12.35, "examples_per_second": 3.0}}
    assert [c["planner"] for c in rec["per_claim"]] == ["qgen"]
    assert TM.measurement("qgen", "qgen", tmp_path) == {"seconds": 12.35, "examples_per_second": 3.0}
    assert TM.in_seconds(TM.measurement("qgen", "qgen", tmp_path)) == " in 12.3 s"
    # a stage that did not run here (a fresh clone found it up to date) has no measurement
    assert TM.measured_in("nli_quantemp", tmp_path) == {} and TM.measurement("qgen", "other", tmp_path) is None
    assert TM.in_seconds(None) == TM.in_seconds({}) == " (not timed on this machine)"
    assert TM.in_seconds({"examples_per_second": 3.0}) == " (its seconds not recorded)"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0, True, "12"])
def test_measured_refuses_what_a_timing_file_may_not_hold(value):
    before = TM.measurements()
    with pytest.raises(ValueError, match="must be finite, non-negative numbers"):
        TM.measured("qgen", seconds=value)
    assert TM.measurements() == before  # nothing kept


@pytest.mark.parametrize(
    "text, problem",
    [
        ("{not json", "not a timing file"),
        ('{"measured": {}}', "not a timing record"),
        (
            '{"seconds": 1, "finished": "2026-01-01T00:00:00+00:00", "cpus": 2, "measured": {"qgen": 12}}',
            "`measured` is not",
        ),
        (
            '{"seconds": 1, "finished": "2026-01-01T00:00:00+00:00", "cpus": 2, "measured": {"qgen": {"seconds": "12"}}}',
            "`measured` is not",
        ),
        (
            '{"seconds": 1, "finished": "2026-01-01T00:00:00+00:00", "cpus": 2, "measured": {"qgen": {"seconds": NaN}}}',
            "`measured` is not",
        ),
        (
            '{"seconds": 1, "finished": "2026-01-01T00:00:00+00:00", "cpus": 2, "measured": {"qgen": {"seconds": true}}}',
            "`measured` is not",
        ),
        ('{"seconds": 5, "finished": "yesterday", "cpus": 2}', "not a timing record"),  # went into the table
        ('{"seconds": -5, "finished": "x", "cpus": 2}', "not a timing record"),
        ('{"seconds": 5, "finished": "x", "cpus": true}', "not a timing record"),
        ('{"seconds": 5, "finished": "x", "cpus": -3}', "not a timing record"),
        ('{"seconds": Infinity, "finished": "x", "cpus": 2}', "not a timing record"),
        ("[" * 5000 + "]" * 5000, "not a timing file"),
        # `hardware` that is not the timer's mapping ended `profiles estimate` in a traceback (the twenty-sixth pass)
        ('{"seconds": 1, "finished": "2026-01-01T00:00:00+00:00", "cpus": 2, "hardware": null}', "hardware: expected"),
        (
            '{"seconds": 1, "finished": "2026-01-01T00:00:00+00:00", "cpus": 2, "hardware": {"cpu": 5}}',
            "hardware: expected",
        ),
    ],
)
def test_a_damaged_timing_file_is_named_where_a_notebook_reads_its_measurements(tmp_path, text, problem):
    (tmp_path / "qgen.json").write_text(text)
    with pytest.raises(TM.NamedError, match=rf"qgen.json: {problem}.*rerun its stage"):
        TM.measured_in("qgen", tmp_path)


def test_measured_outside_the_timer_is_kept_in_the_process_only(tmp_path, monkeypatch):
    monkeypatch.delenv(TM.COSTS_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert TM.measured("training", train_seconds=2.0) == {"train_seconds": 2.0}
    assert TM.measurements()["training"] == {"train_seconds": 2.0} and list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="negative"):
        TM.measured("training", seconds=-1)


def test_a_failed_stage_leaves_neither_costs_nor_scratch(tmp_path, monkeypatch):
    monkeypatch.setenv("DVC_STAGE", "plans")
    child = "from lib import timing as TM; TM.cost('qgen', 'planning', 1.0, 1); raise SystemExit(2)"
    assert TM.run([sys.executable, "-c", child], out_dir=tmp_path) == 2
    assert list(tmp_path.iterdir()) == []


def test_a_command_killed_by_a_signal_ends_with_the_shells_status(tmp_path, monkeypatch):
    monkeypatch.setenv("DVC_STAGE", "store")
    assert (
        TM.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"], out_dir=tmp_path)
        == 143
    )
    assert not list(tmp_path.iterdir())


def test_a_stopped_stage_gets_its_committed_outputs_back(tmp_path):
    import subprocess

    import yaml

    root = tmp_path / "repo"
    (root / "outputs" / "metrics").mkdir(parents=True)
    metrics = root / "outputs" / "metrics" / "m.json"
    metrics.write_text('{"a": 1}\n')
    spec = {
        "stages": {
            "nb": {"cmd": "x", "outs": ["outputs/cache"], "metrics": [{"outputs/metrics/m.json": {"cache": False}}]}
        }
    }
    (root / "dvc.yaml").write_text(yaml.safe_dump(spec))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=root, check=True)
    import lib.closure as CLO

    stages = CLO.stages(root / "dvc.yaml")
    metrics.unlink()  # DVC removes a stage's outputs before running it
    monkey = pytest.MonkeyPatch()
    monkey.setattr(TM, "stages", lambda: stages)
    try:
        assert TM.restore_outputs("nb", root) == ["outputs/metrics/m.json"]
        assert metrics.read_text() == '{"a": 1}\n'
        assert TM.restore_outputs("nb", root) == []  # nothing missing: nothing done
        # the DVC-cached output is not git's to restore: the user is told which command puts it back
        assert TM.checkout_hint("nb", root) == ["outputs/cache"]
        (root / "outputs" / "cache").mkdir()
        assert TM.checkout_hint("nb", root) == []
    finally:
        monkey.undo()


def test_a_stage_whose_starter_dies_is_stopped(tmp_path):
    """DVC stopped by a signal it does not pass on: the timer's parent is gone, and the stage is stopped
    (SIGTERM, exit 143) rather than left writing its outputs after `dvc repro` returned."""
    stopped = tmp_path / "stopped"
    stage = tmp_path / "stage.py"
    stage.write_text(
        "import pathlib, signal, sys, time\n"
        f"signal.signal(signal.SIGTERM, lambda *_: (pathlib.Path({str(stopped)!r}).write_text('term'), sys.exit(143)))\n"
        "time.sleep(60)\n"
    )
    timer = tmp_path / "timer.py"
    timer.write_text(f"import sys\nfrom lib import timing\nsys.exit(timing.run([sys.executable, {str(stage)!r}]))\n")
    starter = tmp_path / "starter.py"  # stands for DVC: starts the timer, then dies without passing anything on
    starter.write_text(
        "import subprocess, sys, time\n"
        f"print(subprocess.Popen([sys.executable, {str(timer)!r}]).pid, flush=True)\n"
        "time.sleep(1.5)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(TM.ROOT)}
    env.pop("DVC_STAGE", None)
    started = subprocess.run([sys.executable, str(starter)], capture_output=True, text=True, timeout=30, env=env)
    pid = int(started.stdout.split()[0])
    deadline = time.time() + 20
    while time.time() < deadline and (not _written(stopped) or Path(f"/proc/{pid}").exists()):
        time.sleep(0.2)
    assert stopped.read_text() == "term"
    assert not Path(f"/proc/{pid}").exists()  # the timer is gone too


def _written(path: Path) -> bool:
    """Whether the stage's handler has written its file (it exists, empty, for a moment before)."""
    return path.exists() and bool(path.read_text())


def test_a_stage_whose_timer_is_killed_outright_is_stopped(tmp_path):
    """SIGKILL to the timer left its command running (re-parented to init), rewriting the store 6 s later."""
    stopped = tmp_path / "stopped"
    stage = tmp_path / "stage.py"
    stage.write_text(
        "import pathlib, signal, sys, time\n"
        f"signal.signal(signal.SIGTERM, lambda *_: (pathlib.Path({str(stopped)!r}).write_text('term'), sys.exit(143)))\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(TM.ROOT)}
    env.pop("DVC_STAGE", None)
    code = f"import sys; from lib import timing; sys.exit(timing.run([sys.executable, {str(stage)!r}]))"
    timer = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    assert timer.stdout.readline().strip() == "ready"
    timer.kill()
    timer.wait(timeout=10)
    deadline = time.time() + 20
    while time.time() < deadline and not _written(stopped):  # seen between its creation and its write: ''
        time.sleep(0.1)
    assert stopped.read_text() == "term"


def test_two_timers_of_one_stage_keep_their_own_costs(tmp_path, monkeypatch):
    """Both used `<stage>.costs.tmp` and removed it at start and end: a second timer of the stage, started
    while the first ran, deleted the first's cost lines, and its planners' costs came out partial."""
    out = str(tmp_path)
    rec = _timed(
        "zz",
        tmp_path,
        monkeypatch,
        "import sys",
        "TM.cost('first', 'planning', 1.0, 2)",
        f"TM.run([sys.executable, '-c', 'from lib import timing as TM; TM.cost(\\'second\\', \\'planning\\', 1.0, 2)'], out_dir={out!r})",
    )
    assert [c["planner"] for c in rec["per_claim"]] == ["first"]  # the other timer's line is in its own file
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".costs.tmp")]  # each removed its own


def test_the_costs_file_of_a_killed_timer_is_swept_and_a_live_ones_kept(tmp_path):
    """A timer killed by SIGKILL ran no clean-up: its hidden `.<stage>.<random>.costs.tmp` stayed for good."""
    gone = tmp_path / ".store.999999999.ab_c1.costs.tmp"  # past any pid_max: no such process
    alive = tmp_path / f".store.{os.getpid()}.xy_z2.costs.tmp"
    other = tmp_path / ".store.costs.tmp"  # no pid in its name: not the timer's, left alone
    for path in (gone, alive, other):
        path.write_text("")
    assert TM.sweep_costs(tmp_path) == [gone]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([alive.name, other.name])


def test_a_costs_path_that_is_not_the_timers_scratch_file_is_refused(tmp_path, monkeypatch):
    """`$LIB_TIMING_COSTS` at a pipe waited for a reader; at a params file it appended JSON lines to it."""
    params = tmp_path / "params.yaml"
    params.write_text("a: 1\n")
    os.mkfifo(tmp_path / "fifo.costs.tmp")
    for path in (params, tmp_path / "fifo.costs.tmp"):
        monkeypatch.setenv(TM.COSTS_ENV, str(path))
        with pytest.raises(TM.NamedError, match=r"LIB_TIMING_COSTS: .* not the timer's scratch file"):
            TM.measured("x", seconds=1.0)
    assert params.read_text() == "a: 1\n"


@pytest.mark.parametrize("text", ['{"stage": "x"', "[]", '{"seconds": "12", "finished": "x", "cpus": 2}'])
def test_a_file_that_is_no_timing_record_is_named(tmp_path, text):
    (tmp_path / "broken.json").write_text(text)
    with pytest.raises(TM.NamedError, match=r"broken.json: not a timing (file|record)"):
        TM.table([], tmp_path)


def test_a_stage_name_that_leaves_the_timings_folder_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DVC_STAGE", "../../escape")
    assert TM.run([sys.executable, "-c", "pass"], out_dir=tmp_path / "t") == 2
    assert "stage name '../../escape'" in capsys.readouterr().err and not (tmp_path / "escape.json").exists()
    for odd in ("a" * 300, "-rf"):  # a name too long for a file (a traceback), one that reads as an option
        monkeypatch.setenv("DVC_STAGE", odd)
        assert TM.run([sys.executable, "-c", "pass"], out_dir=tmp_path / "t") == 2
        assert "error: stage name " in capsys.readouterr().err
    monkeypatch.setenv("DVC_STAGE", "not_a_stage")  # under the study's own timings: a stage of dvc.yaml only
    assert TM.run([sys.executable, "-c", "pass"]) == 2
    assert "stage name 'not_a_stage' ($DVC_STAGE): dvc.yaml has no such stage" in capsys.readouterr().err
    assert not (TM.TIMINGS_DIR / "not_a_stage.json").exists()


def test_a_garbled_cost_line_is_left_out_and_named_and_the_timing_kept(tmp_path, monkeypatch, capsys):
    rec = _timed("zz", tmp_path, monkeypatch, "import os", "open(os.environ[TM.COSTS_ENV], 'a').write('{not json\\n')")
    assert rec["stage"] == "zz" and "per_claim" not in rec
    assert "line 1 is no cost record" in capsys.readouterr().err


@pytest.mark.parametrize(
    "line",
    ['{"measured": "x"}', '{"measured": ["a"], "values": {}}', '{"measured": "y", "values": {"seconds": NaN}}',
     '{"seconds": NaN, "planner": "p"}', '{"seconds": -1, "planner": "p"}', '{"seconds": true, "planner": "p"}',
     '{"seconds": 2}', '{"seconds": 2, "claims": "abc", "planner": "p", "kind": "planning"}'],
)  # fmt: skip
def test_a_cost_line_the_timer_cannot_use_is_left_out_not_a_traceback(tmp_path, monkeypatch, capsys, line):
    """`{"measured": "x"}` ended the timer in a KeyError (the stage's timing lost); NaN seconds were kept."""
    write = f"open(os.environ[TM.COSTS_ENV], 'a').write({line!r} + chr(10))"
    rec = _timed("zz", tmp_path, monkeypatch, "import os", write)
    assert rec["stage"] == "zz" and "per_claim" not in rec and "measured" not in rec
    assert "line 1 is no cost record" in capsys.readouterr().err


@pytest.mark.parametrize("seconds, claims", [(float("nan"), 2), (1.0, True), (1.0, 2.7), (-1.0, 2), (True, 2)])
def test_cost_refuses_what_is_no_count_of_seconds_or_claims(seconds, claims):
    with pytest.raises(ValueError, match="must be finite, non-negative numbers"):
        TM.cost("p", "planning", seconds, claims)


def test_the_timer_s_own_misuse_is_one_error_line(tmp_path, capsys):
    """`timing run --` without a command, a usage mistake and a README that is a pipe: `error:` lines, no hang."""
    assert TM.main(["run", "--"]) == 2 and capsys.readouterr().err.startswith("error: no command after `run --`")
    assert TM.main(["tabel"]) == 2 and capsys.readouterr().err.startswith("error: usage: ")
    assert TM.main(["--help"]) == 0 and capsys.readouterr().out.startswith("usage: python -m lib.timing")  # was 2
    os.mkfifo(tmp_path / "R.md")
    with pytest.raises(TM.NamedError, match="R.md: not a regular file"):
        TM.write_readme(tmp_path / "R.md", "x")


def test_a_readme_that_is_not_utf8_is_named(tmp_path):
    (tmp_path / "R.md").write_bytes(f"{TM.BEGIN}\ncaf\xe9\n{TM.END}\n".encode("latin-1"))
    with pytest.raises(TM.NamedError, match="R.md: not UTF-8 text"):
        TM.write_readme(tmp_path / "R.md", "x")
    with pytest.raises(TM.NamedError, match=r"none.md: no such file; expected the README to write the table into"):
        TM.write_readme(tmp_path / "none.md", "x")  # the system's raw `[Errno 2]` words before


def test_an_empty_readme_path_is_refused_at_the_flag(capsys):
    """`table --readme "$UNSET"` named the current folder, `.`, as "not a regular file"."""
    assert TM.main(["table", "--readme", ""]) == 2
    assert capsys.readouterr().err == "error: --readme: an empty path; expected the README to write the table into\n"


def test_a_timings_folder_that_is_a_file_is_named(tmp_path):
    """`table` said "no stage timings (no stage ran here)" with exit 0 when the folder was a file."""
    (tmp_path / "timings").write_text("x")
    with pytest.raises(TM.NamedError, match="timings: not a folder; expected the folder of the stages' timing"):
        TM.read(tmp_path / "timings")


def test_a_command_killed_outright_is_said_in_one_line(tmp_path, capsys):
    """The out-of-memory killer's SIGKILL ended a stage with status 137 and no word."""
    assert (
        TM.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"], out_dir=tmp_path)
        == 137
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "was killed by SIGKILL (out of memory?" in err


def test_a_timing_file_no_stage_is_named_after_is_refused_by_the_table(tmp_path):
    """A backup copy `store (copy).json` joined "all 27 stages" and its seconds the total."""
    for name in ("store", "store (copy)"):
        (tmp_path / f"{name}.json").write_text('{"seconds": 5, "finished": "2026-01-01T00:00:00+00:00", "cpus": 2}')
    with pytest.raises(TM.NamedError, match=r"store \(copy\).json: no stage of dvc.yaml is named so \(a copy\?\)"):
        TM.table(["store", "plans"], tmp_path)
    (tmp_path / "store (copy).json").unlink()
    assert "**all 1 stages**" in TM.table(["store", "plans"], tmp_path)


def test_a_timing_file_that_is_a_pipe_or_huge_is_named_before_it_is_read(tmp_path):
    """A FIFO named `x.json` hung `timing table`; a 1.5 GB file linked in took 3 GB before it failed."""
    fifo = tmp_path / "zz.json"
    os.mkfifo(fifo)
    with pytest.raises(TM.NamedError, match=r"zz.json: not a regular file \(a folder, a pipe or a device\?\)"):
        TM._record(fifo)
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(TM.MAX_TIMING_BYTES + 1)
    with pytest.raises(TM.NamedError, match=r"big.json: 10,000,001 bytes, not a timing file"):
        TM._record(big)


def test_a_finished_time_that_is_not_utc_as_the_timer_writes_it_is_no_record():
    """`23:30-05:00` was shown as 23:30 in the table's UTC column; week dates were shown as written."""
    assert TM._timestamp("2026-11-28T01:09:01+00:00") and TM._timestamp("2026-11-28T01:09:01.5+00:00")
    for bad in ("2026-11-28T23:30:00-05:00", "2026-W48-5", "20261128T0219", "yesterday", None):
        assert not TM._timestamp(bad)


def test_minutes_are_rounded_before_they_are_split():
    """A float sum just below a whole minute printed "19 min 60.0 s" (the twenty-sixth pass)."""
    from lib.timing import _minutes

    assert _minutes(1199.9999999999998) == "20 min 00.0 s" and _minutes(59.96) == "1 min 00.0 s"
    assert _minutes(59.94) == "59.9 s" and _minutes(125.0) == "2 min 05.0 s" and _minutes(3.0) == "3.0 s"


@pytest.mark.parametrize(
    "costs, where",
    [
        ('{"planner": "qgen"}', "not a list"),
        ('[{"planner": "qgen", "kind": "planning", "part": "p", "device": "cpu", "how": "h", "seconds": -498.0, '
         '"claims": 1, "seconds_per_claim": -498.0}]', "entry 0"),  # "takes -498 s", exit 0
        ('[{"planner": "qgen", "kind": "planning", "part": "p", "device": "cpu", "how": "h", "seconds": "5", '
         '"claims": 1, "seconds_per_claim": 5}]', "entry 0"),  # a traceback in notebook 06's budget
        ("[5]", "entry 0: '5'"),
    ],
)  # fmt: skip
def test_a_damaged_cost_record_is_named_where_the_budget_reads_it(tmp_path, costs, where):
    """The twenty-ninth pass: `per_claim` was read unchecked."""
    head = '{"seconds": 1, "finished": "2026-01-01T00:00:00+00:00", "cpus": 2, "per_claim": '
    (tmp_path / "plans.json").write_text(head + costs + "}")
    with pytest.raises(TM.NamedError, match=rf"plans.json: per_claim {where}.*rerun its stage"):
        budget.planner_costs(tmp_path)


def test_the_table_takes_the_begin_markers_line_ending(tmp_path):
    """The forty-first pass: one stray CRLF line made every table line CRLF in an LF README; a CR-only README got
    LF lines."""
    readme = tmp_path / "README.md"
    readme.write_bytes(f"a\n{TM.BEGIN}\nold\n{TM.END}\nz\r\n".encode())
    TM.write_readme(readme, "| a |\n| b |")
    assert readme.read_bytes() == f"a\n{TM.BEGIN}\n| a |\n| b |\n{TM.END}\nz\r\n".encode()
    readme.write_bytes(f"a\r{TM.BEGIN}\rold\r{TM.END}\rz\r".encode())
    TM.write_readme(readme, "| a |")
    assert readme.read_bytes() == f"a\r{TM.BEGIN}\r| a |\r{TM.END}\rz\r".encode()
