"""lib.outputs: every file written whole or not at all, a stage's outputs together, and never over an input."""

from __future__ import annotations

import errno
import os
import re
import threading

import pandas as pd
import pytest
import yaml

from lib import outputs as OUT
from lib.cli import NamedError, outs_of
from lib.paths import ROOT


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_write_replaces_the_file_whole_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "sub" / "report.json"
    OUT.write_json(path, {"a": 1})
    assert path.read_text() == '{\n  "a": 1\n}\n'
    OUT.write_json(path, {"a": 2}, indent=None)
    assert path.read_text() == '{"a": 2}\n' and leftovers(path.parent) == []


def test_a_failed_write_keeps_the_old_file_and_removes_its_temporary(tmp_path):
    path = tmp_path / "runs.parquet"
    OUT.write_text(path, "old")
    with pytest.raises(RuntimeError), OUT.atomic(path) as tmp:
        tmp.write_text("half of the new")
        raise RuntimeError("killed")
    assert path.read_text() == "old" and leftovers(tmp_path) == []


def test_temporaries_are_unique_beside_the_target_and_keep_its_suffix(tmp_path):
    path = tmp_path / "x.npy"
    with OUT.atomic(path) as a, OUT.atomic(path) as b:
        assert a != b and a.parent == b.parent == tmp_path and a.suffix == b.suffix == ".npy"
        a.write_text("a")
        b.write_text("b")
    assert path.read_text() == "a" and leftovers(tmp_path) == []  # the writer that finished last


def test_two_writers_of_one_output_never_collide(tmp_path):
    path = tmp_path / "out.csv"
    errors = []

    def write(i):
        try:
            for _ in range(20):
                OUT.write_csv(pd.DataFrame({"i": [i] * 100}), path, index=False)
        except Exception as err:  # noqa: BLE001 - the test collects any failure
            errors.append(err)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and pd.read_csv(path)["i"].nunique() == 1 and leftovers(tmp_path) == []


def test_a_group_is_placed_together_or_not_at_all(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    OUT.write_text(a, "old a")
    with pytest.raises(RuntimeError), OUT.together():
        OUT.write_text(a, "new a")
        assert a.read_text() == "old a"  # not yet: the group decides
        raise RuntimeError("stopped before b")
    assert a.read_text() == "old a" and not b.exists() and leftovers(tmp_path) == []
    with OUT.together():
        OUT.write_text(a, "new a")
        OUT.write_text(b, "new b")
    assert (a.read_text(), b.read_text()) == ("new a", "new b") and leftovers(tmp_path) == []
    # a file the block removes (a stale thumbnail) goes with the rest: a stopped render emptied the site's thumbs
    with pytest.raises(RuntimeError), OUT.together():
        OUT.remove(b)
        raise RuntimeError("stopped")
    assert b.read_text() == "new b"
    with OUT.together():
        OUT.remove(b)
        assert b.exists()
    assert not b.exists()


def test_a_folder_is_replaced_whole(tmp_path):
    model = tmp_path / "model"
    with OUT.atomic_dir(model) as folder:
        (folder / "weights").write_text("1")
    with pytest.raises(RuntimeError), OUT.atomic_dir(model) as folder:
        (folder / "weights").write_text("half")
        raise RuntimeError("killed")
    assert (model / "weights").read_text() == "1"
    with OUT.atomic_dir(model) as folder:
        (folder / "config").write_text("2")
    assert sorted(p.name for p in model.iterdir()) == ["config"] and leftovers(tmp_path) == []


def test_a_folder_or_an_unwritable_place_is_a_named_error(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(NamedError, match="is a folder; expected the path of a file"):
        OUT.write_text(tmp_path / "dir", "x")
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        with pytest.raises(NamedError, match="cannot write here"):
            OUT.write_text(ro / "x.txt", "x")


def test_an_output_over_an_input_or_inside_data_is_refused(tmp_path, monkeypatch):
    data = tmp_path / "data"
    (data / "averitec").mkdir(parents=True)
    dev = data / "averitec" / "dev.json"
    dev.write_text("[]")
    preds = tmp_path / "preds.json"
    preds.write_text("[]")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NamedError, match=r"preds.json: is also an input of this command"):
        OUT.refuse_targets([preds], [preds, tmp_path / "refs.json"], data_dir=data)
    (tmp_path / "store").mkdir()
    with pytest.raises(NamedError, match=r"is also an input of this command \(.*\); write the output elsewhere"):
        OUT.refuse_targets([tmp_path / "store" / "x.parquet"], [tmp_path / "store"], data_dir=data)
    with pytest.raises(NamedError, match="lies inside data/, the study's data kept by DVC"):
        OUT.refuse_targets([dev], [preds], data_dir=data)
    with pytest.raises(NamedError, match="is a folder"):
        OUT.refuse_targets([tmp_path / "store"], [], data_dir=data)
    with pytest.raises(NamedError, match="is also an input"):  # a folder output holding an input
        OUT.refuse_targets([tmp_path], [preds], data_dir=data, folders=True)
    with pytest.raises(NamedError, match=r"lies under .*preds.json, which is a file"):  # no folder can be made there
        OUT.refuse_targets([preds / "cache" / "idx"], [], data_dir=data, folders=True)
    OUT.refuse_targets([tmp_path / "out.csv", None], [preds, None], data_dir=data)  # nothing to refuse
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")  # a broken link: mkdir would fail after work began
    for folders in (True, False):
        with pytest.raises(NamedError, match=r"gone: is a link to .*nowhere, which does not exist"):
            OUT.refuse_targets([tmp_path / "gone"], [], data_dir=data, folders=folders)
    (tmp_path / "loop_a").symlink_to(tmp_path / "loop_b")
    (tmp_path / "loop_b").symlink_to(tmp_path / "loop_a")
    for outs, ins in (([tmp_path / "loop_a"], []), ([tmp_path / "out.csv"], [tmp_path / "loop_b"])):
        with pytest.raises(NamedError, match=r"loop_.: is a link that leads back to itself \(a loop\); remove it"):
            OUT.refuse_targets(outs, ins, data_dir=data)


def test_a_command_dvc_never_runs_writes_nothing_into_a_stage_output(tmp_path):
    dvc_yaml = tmp_path / "dvc.yaml"
    dvc_yaml.write_text(
        "stages:\n  plans:\n    cmd: x\n    outs: [outputs/plans]\n"
        "  score:\n    cmd: y\n    metrics: [{outputs/metrics/s.json: {cache: false}}]\n"
    )
    for out, owner in [(tmp_path / "outputs/plans", "plans"), (tmp_path / "outputs/plans/idx", "plans"),
                       (tmp_path / "outputs/metrics/s.json", "score")]:  # fmt: skip
        with pytest.raises(NamedError) as err:
            OUT.refuse_stage_outputs([out], dvc_yaml=dvc_yaml)
        assert str(err.value).endswith(
            f"the output of stage `{owner}` ({dvc_yaml}), which DVC deletes when the stage reruns; write elsewhere"
        )
    OUT.refuse_stage_outputs([tmp_path / "outputs/ks/idx", tmp_path / "outputs", None], dvc_yaml=dvc_yaml)  # not owned
    OUT.refuse_stage_outputs([tmp_path / "outputs/plans"], dvc_yaml=tmp_path / "missing.yaml")  # no dvc.yaml: no stages
    OUT.refuse_stage_outputs([tmp_path / "outputs/plans/idx"], own="plans", dvc_yaml=dvc_yaml)  # a stage's own


def test_the_stage_outputs_refused_are_the_studys_from_any_working_folder(tmp_path, monkeypatch):
    """The scorer run from another folder wrote its CSV inside stage `averitec`'s output (dvc.yaml was read
    relative to the working folder)."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NamedError, match="the output of stage `averitec` "):
        OUT.refuse_stage_outputs([ROOT / "outputs" / "averitec" / "x.csv"])


def test_nothing_is_written_among_the_studys_code():
    """`lib.store.build --out-dir notebooks` wrote the store among the notebooks' sources."""
    for out in (ROOT / "notebooks", ROOT / "lib" / "store" / "x.parquet"):
        with pytest.raises(NamedError, match=r"lies inside (notebooks|lib)/, the study's code; write elsewhere"):
            OUT.refuse_stage_outputs([out])
    with pytest.raises(
        NamedError, match=r"params.yaml: is a file of the study \((git keeps|a stage reads) it\); it would"
    ):
        OUT.refuse_stage_outputs([ROOT / "params.yaml"])  # `--to-csv params.yaml` replaced it with a CSV
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    for name, stage in stages.items():  # every stage writes its own outputs (outputs/ holds notebooks read as code)
        OUT.refuse_stage_outputs([ROOT / out for out in outs_of(stage)], own=name)


def test_a_full_disk_names_the_file_being_written():
    with pytest.raises(OSError) as err:
        OUT.write_text("/dev/full", "x" * 100_000)
    assert err.value.filename == "/dev/full" and err.value.errno == errno.ENOSPC


def test_outputs_get_the_usual_permissions_and_temporaries_never_look_like_outputs(tmp_path):
    umask = os.umask(0o022)
    try:
        OUT.write_text(tmp_path / "a.json", "{}")
        with OUT.atomic_dir(tmp_path / "model") as folder:
            (folder / "w").write_text("1")
    finally:
        os.umask(umask)
    assert (tmp_path / "a.json").stat().st_mode & 0o777 == 0o644  # not mkstemp's owner-only 0600
    assert (tmp_path / "model").stat().st_mode & 0o777 == 0o755
    with OUT.atomic(tmp_path / "b.json") as tmp, OUT.atomic(tmp_path / "c.npy") as npy:
        assert tmp.name.endswith(".tmp") and npy.name.endswith(".tmp.npy")  # a `*.json` glob never takes it
        assert list(tmp_path.glob("*.json")) == [tmp_path / "a.json"]


def test_a_read_only_output_is_refused_and_a_replaced_one_keeps_its_mode(tmp_path):
    """The rename replaced a file its owner had made read-only (the twenty-sixth pass: exit 0, contents gone)."""
    ro = tmp_path / "mine.csv"
    ro.write_text("keep me\n")
    ro.chmod(0o444)
    with pytest.raises(NamedError, match=r"mine.csv: is a read-only file; make it writable .*or write elsewhere"):
        OUT.write_text(ro, "new")
    assert ro.read_text() == "keep me\n" and not [p for p in tmp_path.iterdir() if p != ro]
    shared = tmp_path / "shared.csv"
    shared.write_text("old")
    shared.chmod(0o664)
    OUT.write_text(shared, "new")
    assert shared.read_text() == "new" and shared.stat().st_mode & 0o777 == 0o664


def test_a_link_is_written_through_and_a_device_in_place(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    OUT.write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    OUT.write_text("/dev/null", "discarded")  # a device is written, not replaced
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_a_link_into_the_studys_data_or_files_is_refused_not_written_through(tmp_path):
    """A link inside `--out-dir` wrote a plan over data/averitec/dev.json and params.yaml, exit 0."""
    from lib.paths import DATA_DIR

    for name, target, problem in [
        ("plan.jsonl", DATA_DIR / "averitec" / "dev.json", "lies inside data/, the study's data kept by DVC"),
        ("oracle.jsonl", ROOT / "params.yaml", "is a file of the study (git keeps it)"),
        ("x.py", ROOT / "lib" / "cli.py", "lies inside lib/, the study's code"),
        # a stage's output, git-kept or not: a plan went into outputs/metrics/retrieval.json, exit 0
        (
            "m.jsonl",
            ROOT / "outputs" / "metrics" / "retrieval.json",
            "lies inside the output of stage `retrieval_metrics`",
        ),
    ]:
        before = target.read_bytes()
        link = tmp_path / name
        link.symlink_to(target)
        with pytest.raises(NamedError, match=re.escape(f"{name}: is a link to {target}, which {problem}")):
            OUT.write_text(link, "a plan")
        assert target.read_bytes() == before and link.is_symlink()


def test_a_link_that_loops_is_one_line(tmp_path):
    loop = tmp_path / "heuristic.jsonl"
    loop.symlink_to("heuristic.jsonl")
    with pytest.raises(NamedError, match="heuristic.jsonl: is a link that leads back to itself"):
        OUT.write_text(loop, "a plan")


def test_the_sweep_takes_only_its_own_targets_temporaries(tmp_path):
    """The writer of `res` removed the live temporary of `res.30000` (its name read as a dead pid 30000)."""
    other = tmp_path / f".res.30000.{os.getpid()}.wpmhdeiu.tmp"  # a live writer's of `res.30000`
    other.write_text("half")
    OUT.write_text(tmp_path / "res", "B")
    assert other.exists() and (tmp_path / "res").read_text() == "B"


def test_a_temporary_a_killed_writer_left_is_removed_by_the_next_and_a_live_ones_kept(tmp_path):
    """SIGKILL runs no clean-up: each killed store build left its half-written tables beside the outputs."""
    target = tmp_path / "documents.parquet"
    gone = tmp_path / ".documents.parquet.999999999.ab12.tmp.parquet"  # past any pid_max: no such writer
    live = tmp_path / f".documents.parquet.{os.getpid()}.cd34.tmp.parquet"
    other = tmp_path / ".documents.parquet.ef56.tmp.parquet"  # no pid in its name: not known, kept
    folder = tmp_path / ".documents.parquet.999999998.gh78.tmp"  # a folder's temporary (atomic_dir)
    for path in (gone, live, other):
        path.write_text("half")
    folder.mkdir()
    OUT.write_text(target, "whole")
    assert target.read_text() == "whole" and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [target.name, live.name, other.name]
    )
    with OUT.atomic(tmp_path / "x.txt") as tmp:
        assert tmp.name.startswith(f".x.txt.{os.getpid()}.")  # the writer's pid in the name


def test_a_pipe_nobody_reads_is_refused_and_one_being_read_is_written(tmp_path):
    """`--to-csv FIFO` and `grade --out FIFO` waited forever for a reader; `/dev/stdout` into a pipe wrote
    nothing (its link's target `pipe:[N]` was resolved into a path that is not there)."""
    import subprocess
    import sys

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NamedError, match="fifo: a pipe that no process reads"):
        OUT.write_text(fifo, "lost")
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    try:
        while True:  # once cat has opened the pipe, the write finds it read
            try:
                OUT.write_text(fifo, "read\n")
                break
            except NamedError:
                pass
        assert reader.communicate(timeout=10)[0] == "read\n"
    finally:
        reader.kill()
    code = "from lib import outputs as OUT; OUT.write_text('/dev/stdout', 'piped\\n')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout == "piped\n", done.stderr


def test_a_signal_removes_the_temporaries_being_written(tmp_path):
    with OUT.atomic(tmp_path / "x.txt") as tmp:
        tmp.write_text("half")
        OUT.discard_live()  # what lib.cli runs on SIGTERM before it exits
        assert not tmp.exists()
        tmp.write_text("again")  # the block itself still ends normally in this test


KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from lib import outputs as OUT
d, at = Path(sys.argv[1]), int(sys.argv[2])
OUT.write_text(d / "a.txt", "old a"); OUT.write_text(d / "sub" / "b.txt", "old b")
with OUT.atomic_dir(d / "folder") as t:
    (t / "x").write_text("old")
real, n = os.replace, [0]
def replace(src, dst):  # SIGKILL, which no program can catch, right after the at-th rename
    real(src, dst); n[0] += 1
    if n[0] == at:
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
with OUT.together():
    OUT.write_text(d / "a.txt", "new a"); OUT.write_text(d / "sub" / "b.txt", "new b")
    with OUT.atomic_dir(d / "folder") as t:
        (t / "x").write_text("new")
"""


@pytest.mark.parametrize("at", range(1, 7))
def test_a_group_killed_outright_mid_renames_is_finished_by_the_next_reader(tmp_path, at):
    """The forty-seventh pass: SIGKILL between a group's renames left a.txt new and b.txt old (nothing marked
    the pair), or a folder output missing, moved aside where no run looked. A journal written before the first
    rename lets the next reader (or writer) of any of the group's folders finish the renames."""
    import subprocess
    import sys

    script = tmp_path / "writer.py"
    script.write_text(KILLED_WRITER)
    d = tmp_path / "out"
    done = subprocess.run([sys.executable, str(script), str(d), str(at)], cwd=ROOT, check=False)
    assert done.returncode == -9
    OUT.write_text(d / "sub" / "c.txt", "c")  # the next writer of either folder: finishes, then sweeps
    OUT.write_text(d / "c.txt", "c")
    state = [(d / "a.txt").read_text(), (d / "sub" / "b.txt").read_text(), (d / "folder" / "x").read_text()]
    # renames 1 and 2 place the journals (one per folder): killed before both are there, no output moved
    assert state == (["old a", "old b", "old"] if at < 2 else ["new a", "new b", "new"])
    assert leftovers(d) == [] and leftovers(d / "sub") == []


def test_a_folder_moved_aside_by_a_killed_writer_goes_back(tmp_path):
    target = tmp_path / "model"
    aside = tmp_path / ".model.999999999.ab12.old"  # its writer (past any pid_max) died between the renames
    (aside / "model").mkdir(parents=True)
    (aside / "model" / "w").write_text("old")
    assert OUT.finish_groups(tmp_path) == [target] and (target / "w").read_text() == "old"
    assert leftovers(tmp_path) == []
    live = tmp_path / f".model.{os.getpid()}.cd34.old"  # a live writer's: left alone
    (live / "model").mkdir(parents=True)
    assert OUT.finish_groups(tmp_path) == [] and live.exists()


def test_a_name_with_a_pid_past_any_process_is_no_dead_writer(tmp_path):
    """A pid of 200 digits (past any pid_max; `os.kill` overflows) or a digit `int` refuses is no dead writer."""
    from lib.cli import writer_gone

    assert writer_gone("999999999") and not writer_gone(str(os.getpid()))
    assert not writer_gone("9" * 200) and not writer_gone("\u00b2") and not writer_gone("")
    (tmp_path / f".outputs.{'9' * 200}.ab.group").write_text("{}")
    (tmp_path / f".x.txt.{'9' * 200}.ab.tmp").write_text("")
    OUT.write_text(tmp_path / "x.txt", "x")
    assert OUT.read_json(OUT.write_json(tmp_path / "y.json", [1])) == [1]


def test_a_journal_whose_pid_another_process_took_since_is_finished(tmp_path):
    """The forty-seventh pass, second round: a journal whose writer's pid a live process had taken since (a
    reboot, a wrap) was skipped as a live writer's, and readers read a half-renamed group as whole."""
    import json
    import subprocess

    other = subprocess.Popen(["sleep", "30"])  # a live process, not the journal's writer
    try:
        pid = str(other.pid)
        OUT.write_text(tmp_path / "a.txt", "new a")  # placed before the kill
        OUT.write_text(tmp_path / "b.txt", "old b")
        tmp = tmp_path / f".b.txt.{pid}.ab12.tmp"
        tmp.write_text("new b")
        journal = tmp_path / f".outputs.{pid}.cd34.group"
        pairs = [
            [str(tmp_path / f".a.txt.{pid}.ef56.tmp"), str(tmp_path / "a.txt")],
            [str(tmp), str(tmp_path / "b.txt")],
        ]
        record = {"pairs": pairs, "journals": [str(journal)], "writer": "another-boot:12345"}
        journal.write_text(json.dumps(record))
        assert OUT.read_json(OUT.write_json(tmp_path / "c.json", 1)) == 1  # any reader or writer there
        assert (tmp_path / "b.txt").read_text() == "new b" and not journal.exists()
        journal.write_text(json.dumps(record | {"writer": OUT._writer_id(other.pid)}))  # the same process: alive
        OUT.finish_groups(tmp_path)
        assert journal.exists()
    finally:
        other.kill()
        other.wait()


def test_a_folder_where_a_group_writes_a_file_is_refused_with_nothing_left(tmp_path):
    """The fiftieth pass (O 1): a folder named like an output stopped a group midway and left its journal and
    temporaries, which every later reader of the folder tripped over."""
    (tmp_path / "b.txt").mkdir()
    with pytest.raises(NamedError, match=r"b\.txt: is a folder; expected a file there \(nothing of this group"):
        with OUT.together():
            OUT.write_text(tmp_path / "a.txt", "a")
            OUT.remove(tmp_path / "b.txt")  # a folder removed in a group was raised midway, after the journal
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt"]  # a.txt not placed, no journal, no temporary


def test_a_folder_written_whole_in_a_group_replaces_its_earlier_self(tmp_path):
    """The fifty-first pass: the refusal above refused every group holding an `atomic_dir` whose folder existed
    (a second run of a stage writing a folder and files together stopped: "is a folder; expected a file")."""
    for text in ("old", "new"):
        with OUT.together():
            OUT.write_text(tmp_path / "a.txt", text)
            with OUT.atomic_dir(tmp_path / "folder") as tmp:
                (tmp / "x").write_text(text)
    assert (tmp_path / "a.txt").read_text() == "new" == (tmp_path / "folder" / "x").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "folder"]


def test_a_folder_replaced_whole_must_be_new_empty_or_an_earlier_one(tmp_path):
    """The fiftieth pass (O 2): `qgen_training --out-dir` a user's folder replaced it whole, its files gone."""
    OUT.replaceable_folder(tmp_path / "new", "training.json", "QGEN model")
    (tmp_path / "empty").mkdir()
    OUT.replaceable_folder(tmp_path / "empty", "training.json", "QGEN model")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "training.json").write_text("{}")
    (tmp_path / "model" / "config.json").write_text("{}")
    OUT.replaceable_folder(tmp_path / "model", "training.json", "QGEN model")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "keep.txt").write_text("precious")
    with pytest.raises(
        NamedError, match=r"mine: holds 'keep\.txt' and no training\.json, so it is not an earlier QGEN"
    ):
        OUT.replaceable_folder(tmp_path / "mine", "training.json", "QGEN model")
    (tmp_path / "file").write_text("x")
    with pytest.raises(NamedError, match="file: is a file; expected the folder of QGEN model"):
        OUT.replaceable_folder(tmp_path / "file", "training.json", "QGEN model")


def test_a_marker_file_alone_does_not_make_a_folder_replaceable(tmp_path):
    """The fiftieth pass, Q 5: a user's own `training.json` beside a thesis folder passed as a QGEN model."""
    keys = ("settings", "steps_run")
    mine = tmp_path / "m1"
    (mine / "thesis").mkdir(parents=True)
    (mine / "training.json").write_text('{"settings": {}, "steps_run": 3}')
    with pytest.raises(NamedError, match=r"m1: holds the folder 'thesis', which QGEN model has not"):
        OUT.replaceable_folder(mine, "training.json", "QGEN model", keys)
    (mine / "thesis").rmdir()
    (mine / "training.json").write_text('{"my": "log"}')
    with pytest.raises(NamedError, match=r"m1: its training\.json is not the record QGEN model writes"):
        OUT.replaceable_folder(mine, "training.json", "QGEN model", keys)
    (mine / "training.json").write_text('{"settings": {}, "steps_run": 3, "loss": []}')
    OUT.replaceable_folder(mine, "training.json", "QGEN model", keys)
