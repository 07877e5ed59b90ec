"""lib.cli: a named error ends a command with one line and status 1; a bug keeps its traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from lib.cli import ROOT, NamedError, env_bound, run_main, study_part
from lib.data import DataError
from lib.params import ParamsError


def test_a_named_error_is_one_line_and_status_1(capsys):
    def main():
        raise NamedError("data/x.json: record 3: field 'label': expected one of ...")

    with pytest.raises(SystemExit) as end:
        run_main(main)
    assert end.value.code == 1
    assert capsys.readouterr().err == "error: data/x.json: record 3: field 'label': expected one of ...\n"


def test_the_status_main_returns_is_the_exit_status():
    for returned, status in [(None, 0), (0, 0), (2, 2)]:
        with pytest.raises(SystemExit) as end:
            run_main(lambda r=returned: r)
        assert end.value.code == status


def test_a_bug_is_not_hidden():
    with pytest.raises(ZeroDivisionError):
        run_main(lambda: 1 / 0)


def test_the_study_errors_that_name_user_input_are_named_errors():
    assert issubclass(DataError, NamedError) and issubclass(ParamsError, NamedError)
    assert issubclass(DataError, ValueError)  # callers that catch ValueError still do


def test_a_missing_params_section_ends_a_command_with_one_line(tmp_path, capsys):
    from lib.params import section

    (tmp_path / "params.yaml").write_text("profile: {name: study}\n")
    with pytest.raises(SystemExit) as end:
        run_main(lambda: section("store", tmp_path / "params.yaml"))
    assert end.value.code == 1 and "no section 'store' (sections: profile)" in capsys.readouterr().err


STOPPABLE = """
import sys, time
from concurrent.futures import ProcessPoolExecutor
from lib import outputs as OUT
from lib.cli import run_main
from lib.compute import in_order

def slow(x):
    time.sleep(60)

def main():
    with OUT.atomic(sys.argv[1]) as tmp:
        tmp.write_text("half")
        with ProcessPoolExecutor(2) as pool:
            futures = [pool.submit(slow, i) for i in range(4)]
            while len(pool._processes or {}) < 2:
                time.sleep(0.05)
            print("working", flush=True)
            list(in_order(futures))  # waits as the study's commands do (a bare f.result() sleeps through a signal)

run_main(main)
"""


def _children_of(pid: int) -> list[int]:
    import psutil

    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


@pytest.mark.parametrize(("signum", "status"), [(15, 143), (2, 130)])
def test_a_signal_stops_the_command_with_its_workers_and_no_half_output(tmp_path, signum, status):
    import subprocess
    import sys

    import psutil

    from lib.paths import ROOT

    script = tmp_path / "stoppable.py"
    script.write_text(STOPPABLE)
    out = tmp_path / "out" / "result.txt"
    proc = subprocess.Popen(
        [sys.executable, str(script), str(out)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "working"
    workers = _children_of(proc.pid)
    assert workers
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == status
    assert err.strip().splitlines()[-1].startswith("error: stopped by SIG")
    assert not [w for w in workers if psutil.pid_exists(w) and psutil.Process(w).status() != psutil.STATUS_ZOMBIE]
    assert not out.exists() and list(out.parent.iterdir()) == []  # neither the output nor its temporary


SIGNALLED_ELSEWHERE = """
import signal, threading, time
from concurrent.futures import ProcessPoolExecutor
from lib.cli import run_main
from lib.compute import in_order

def main():
    with ProcessPoolExecutor(1) as pool:
        futures = [pool.submit(time.sleep, 60)]
        # the system may hand the signal to any thread that does not block it: here, on purpose, another one
        threading.Timer(0.5, lambda: signal.pthread_kill(threading.get_ident(), signal.SIGTERM)).start()
        list(in_order(futures))

run_main(main)
"""


def test_a_signal_handed_to_another_thread_stops_a_waiting_command_at_once(tmp_path):
    """A SIGTERM the system gave to the pool's manager thread waited for the main thread, asleep in
    `future.result()` until the next result came: a stage stopped a minute late, or a test timed out."""
    import subprocess
    import sys

    from lib.paths import ROOT

    script = tmp_path / "elsewhere.py"
    script.write_text(SIGNALLED_ELSEWHERE)
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 143 and done.stderr.strip().splitlines()[-1].startswith("error: stopped by SIGTERM")


def test_a_stop_that_leaves_work_begun_says_what_to_do_in_its_error_line(tmp_path):
    """The error line said "nothing half-written was left in place" after a workspace was half updated."""
    import subprocess
    import sys

    from lib.paths import ROOT

    script = tmp_path / "begun.py"
    script.write_text(
        "import os, signal\nfrom lib.cli import CLEANUPS, run_main\n"
        "def main():\n    CLEANUPS.append(lambda: 'run it again to finish')\n    os.kill(os.getpid(), signal.SIGTERM)\n"
        "run_main(main)\n"
    )
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert (
        done.returncode == 143 and done.stderr.splitlines()[-1] == "error: stopped by SIGTERM; run it again to finish"
    )


def test_results_in_order_and_the_rest_cancelled_when_the_reader_stops():
    from concurrent.futures import ThreadPoolExecutor

    from lib.compute import in_order

    with ThreadPoolExecutor(1) as pool:
        assert list(in_order([pool.submit(pow, 2, n) for n in (3, 1, 2)])) == [8, 2, 4]
        slow = [pool.submit(__import__("time").sleep, 0.3) for _ in range(3)]
        reader = in_order(slow)
        next(reader)
        reader.close()
        assert slow[2].cancelled()


KILLABLE = """
import sys, time
from lib.compute import forked_map

def slow(i):
    time.sleep(60)
    return i

print("working", flush=True)
list(forked_map(slow, range(4), 2, "test"))
"""


def test_the_workers_of_a_command_killed_outright_die_with_it(tmp_path):
    """SIGKILL (the out-of-memory killer) runs no clean-up: the forked workers waited for work forever."""
    import subprocess
    import sys
    import time

    import psutil

    from lib.paths import ROOT

    script = tmp_path / "killable.py"
    script.write_text(KILLABLE)
    proc = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "working"
    deadline = time.time() + 20
    while len(_children_of(proc.pid)) < 2 and time.time() < deadline:
        time.sleep(0.05)
    workers = _children_of(proc.pid)
    assert len(workers) >= 2
    proc.kill()
    proc.wait(timeout=10)
    deadline = time.time() + 10
    alive = workers
    while alive and time.time() < deadline:
        alive = [w for w in workers if psutil.pid_exists(w) and psutil.Process(w).status() != psutil.STATUS_ZOMBIE]
        time.sleep(0.1)
    assert alive == []


def test_a_missing_pipeline_output_names_the_stage_that_makes_it(capsys, tmp_path):
    import pandas as pd

    from lib.cli import made_by, missing

    assert made_by("outputs/runs/runs.parquet") == "runs"
    assert made_by("outputs/metrics/retrieval.json") == "retrieval_metrics"
    assert made_by("data/averitec/dev.json") is None
    with pytest.raises(FileNotFoundError) as err:
        pd.read_parquet("outputs/nli/planners/no-such-file.parquet")
    assert missing(err.value).endswith("the pipeline stage `nli_planners` makes it (run `dvc repro nli_planners`)")
    with pytest.raises(SystemExit) as end:
        run_main(lambda: open("outputs/store/nothing-here.parquet"))
    assert end.value.code == 1
    assert "`store` makes it" in capsys.readouterr().err
    assert missing(FileNotFoundError(2, "No such file", "/elsewhere/x.csv")) == "/elsewhere/x.csv: no such file"
    (tmp_path / "gone").symlink_to(tmp_path / "target")
    assert missing(FileNotFoundError(2, "No such file", str(tmp_path / "gone"))).endswith(
        "target, which does not exist"
    )


def test_a_refused_setting_or_an_unwritable_file_is_one_line(tmp_path, capsys):
    from lib.compute import ComputeSettings

    with pytest.raises(SystemExit) as end:
        run_main(lambda: ComputeSettings.model_validate({"backend": "local", "workers": 0}))
    assert end.value.code == 1
    line = capsys.readouterr().err
    assert line.startswith("error: ComputeSettings: workers: Input should be greater than or equal to 1 (got 0)")
    assert line.count("\n") == 1

    def denied():
        raise PermissionError(13, "Permission denied", str(tmp_path / "x.json"))

    with pytest.raises(SystemExit):
        run_main(denied)
    assert capsys.readouterr().err == f"error: {tmp_path / 'x.json'}: Permission denied (EACCES)\n"
    # a full disk (the write has no file name) and a link loop: one line each, where they were tracebacks
    with pytest.raises(SystemExit) as end:
        run_main(lambda: open("/dev/full", "w").write("x" * 10000) and None)
    assert end.value.code == 1 and capsys.readouterr().err == "error: No space left on device (ENOSPC)\n"
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(SystemExit):
        run_main(lambda: open(tmp_path / "loop").read() and None)
    assert capsys.readouterr().err == f"error: {tmp_path / 'loop'}: Too many levels of symbolic links (ELOOP)\n"
    with pytest.raises(OSError):  # an OSError without a system error number is a bug: its traceback stays
        run_main(lambda: (_ for _ in ()).throw(OSError("no errno")))


def test_a_path_too_long_to_open_is_named_by_its_ends(tmp_path, capsys):
    """The thirty-first pass: `remote-check` on a 5,000-character url printed the whole path in its one line."""
    from lib.cli import long_text

    assert long_text("a" * 300) == "a" * 300  # at the limit: whole
    assert long_text("b" + "a" * 299 + "z") == "b" + "a" * 149 + "..." + "a" * 99 + "z (301 characters)"
    path = tmp_path / ("d" * 5000)
    with pytest.raises(SystemExit) as end:
        run_main(lambda: path.is_dir() and None)
    line = capsys.readouterr().err
    assert end.value.code == 1 and line.count("\n") == 1 and len(line) < 400
    assert line.endswith(f"d ({len(str(path)):,} characters): File name too long (ENAMETOOLONG)\n")


def test_an_empty_output_path_is_refused_by_the_flag(tmp_path, capsys):
    """`--to-csv ""` was falsy: the scorer scored instead of converting; `--out-dir ""` meant the current folder."""
    from lib.averitec import scoring

    with pytest.raises(SystemExit) as end:
        scoring.main(["--predictions", str(tmp_path / "p.json"), "--to-csv", ""])
    assert (
        end.value.code == 2
        and "argument --to-csv: an empty path (an unset variable?); name a file or folder" in capsys.readouterr().err
    )
    with pytest.raises(SystemExit) as end:
        run_main(lambda: __import__("lib.store.build", fromlist=["main"]).main(["--out-dir", " "]))
    assert end.value.code == 2 and "argument --out-dir: an empty path" in capsys.readouterr().err


def _parsers() -> list[str]:
    """Every module of lib/ that builds a command-line parser."""
    root = Path(__file__).resolve().parents[1]
    return sorted(
        ".".join(f.relative_to(root).with_suffix("").parts)
        for f in (root / "lib").rglob("*.py")
        if "ArgumentParser(" in f.read_text(encoding="utf-8") and f.name != "cli.py"
    )


def test_an_option_given_twice_is_refused(capsys):
    """`--predictions A --predictions B` scored B alone; `--out a --out b` wrote b alone. Both without a word."""
    from lib.averitec import scoring
    from lib.site import grading

    for main, args in (
        (scoring.main, ["--predictions", "a.json", "--predictions=b.json"]),
        (grading.main, ["sheet", "--out", "a.csv", "--out", "b.csv"]),
    ):
        with pytest.raises(SystemExit) as end:
            main(args)
        assert end.value.code == 2 and "given twice; give it once" in capsys.readouterr().err
    with pytest.raises(SystemExit) as end:  # an empty input path read as the folder `.`
        scoring.main(["--predictions", ""])
    assert end.value.code == 2 and "argument --predictions: an empty path" in capsys.readouterr().err


def test_a_shortened_option_name_is_refused(capsys):
    """`--pred B` after `--predictions A` escaped the "given twice" check and scored B alone; `--store-d ""` the
    empty-value check (the twenty-sixth pass): argparse's abbreviations are off, in subcommands too."""
    from lib.averitec import scoring
    from lib.retrieval import per_claim

    for main, args, name in (
        (scoring.main, ["--predictions", "a.json", "--pred", "b.json"], "--pred b.json"),
        (per_claim.main, ["synth", "--out", "x", "--store-d", ""], "--store-d"),
    ):
        with pytest.raises(SystemExit) as end:
            main(args)
        assert end.value.code == 2 and f"error: unrecognized arguments: {name}" in capsys.readouterr().err


@pytest.mark.parametrize("module", _parsers())
def test_a_command_line_argparse_refuses_is_one_error_line(capsys, module):
    """argparse's own refusal printed the usage and `prog: error: ...`; now it is one `error:` line, status 2."""
    main = __import__(module, fromlist=["main"]).main
    with pytest.raises(SystemExit) as end:
        main(["--no-such-flag"])
    err = capsys.readouterr().err
    assert end.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert "--help)" in err


@pytest.mark.parametrize(
    "module, args",
    [
        ("lib.store.build", []),
        ("lib.retrieval.runs", []),
        ("lib.planning.qgen_training", []),
        ("lib.retrieval.per_claim", ["synth", "--out", "x", "--store-dir", "s"]),
    ],
)
def test_a_data_folder_that_is_not_there_is_refused_by_the_flag(tmp_path, capsys, module, args):
    """`--data-dir /nowhere` ended in the OS's words for the first data file it lacked, after work began."""
    main = __import__(module, fromlist=["main"]).main
    with pytest.raises(SystemExit) as end:
        main([*args, "--data-dir", str(tmp_path / "nowhere")])
    err = capsys.readouterr().err
    assert end.value.code == 2 and f"argument --data-dir: {tmp_path / 'nowhere'}: no such folder; expected" in err


@pytest.mark.parametrize(
    "module, args",
    [
        ("lib.retrieval.runs", ["retrieve"]),
        ("lib.retrieval.per_claim", ["retrieve", "--store", "s", "--plan", "p", "--out", "o"]),
    ],
)
def test_a_device_flag_is_checked_whatever_the_command_does_with_it(capsys, module, args):
    """`runs --device nonsense retrieve` ran the whole retrieval (195 s) and rewrote its outputs."""
    main = __import__(module, fromlist=["main"]).main
    with pytest.raises(SystemExit) as end:
        main(["--device", "nonsense", *args] if module.endswith("runs") else [*args, "--device", "nonsense"])
    assert end.value.code == 2 and "argument --device: " in capsys.readouterr().err


def test_the_store_and_the_plans_are_never_written_into_data(capsys):
    """`--out-dir data/x` built a store (or wrote plans) into the study's data with exit 0."""
    from lib.paths import DATA_DIR
    from lib.planning import planners
    from lib.store import build

    for main in (build.main, planners.main):
        with pytest.raises(SystemExit) as end:
            run_main(lambda main=main: main(["--out-dir", str(DATA_DIR / "x")]))
        assert end.value.code == 1 and re.search(
            r"data/x: (lies inside data/|is also an input)", capsys.readouterr().err
        )
    assert not (DATA_DIR / "x").exists()


def test_output_into_a_closed_pipe_ends_quietly_with_sigpipes_status():
    """`python -m lib... | head -1`: the reader stops; no BrokenPipeError traceback, the shell's status 141."""
    child = (
        "from lib.cli import run_main\n"
        "def main():\n"
        "    for i in range(200000):\n"
        "        print('line', i)\n"
        "run_main(main)\n"
    )
    proc = subprocess.run(
        f'{sys.executable} -c "{child}" | head -1; echo ${{PIPESTATUS[0]}} >&2',
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout == "line 0\n"
    assert proc.stderr.strip() == "141", proc.stderr


def test_the_outputs_of_a_stage_are_its_paths():
    from lib.cli import outs_of

    spec = {"outs": ["a", {"b": {"cache": False}}], "metrics": [{"m.json": {"cache": False}}], "plots": ["p.csv"]}
    assert outs_of(spec) == ["a", "b", "m.json", "p.csv"] and outs_of({}) == []


def test_a_long_value_is_quoted_short():
    import pydantic

    from lib.cli import settings_error

    class M(pydantic.BaseModel):
        n: int

    with pytest.raises(pydantic.ValidationError) as err:
        M.model_validate({"n": "x" * 10_000})
    text = settings_error(err.value)
    assert len(text) < 400 and "(10,002 characters)" in text


@pytest.mark.parametrize("value", ["abc", "-5", "0", "1e6", "1_000", "١٠", "", str(2**63), str(2**48 + 1)])
def test_a_bound_from_the_environment_is_a_whole_number_or_one_line(monkeypatch, value):
    """`LIB_MAX_INPUT_BYTES=abc` was a traceback on import, and `-5` called every file over the bound."""
    monkeypatch.setenv("LIB_MAX_X", value)
    with pytest.raises(
        SystemExit, match=r"^error: \$LIB_MAX_X: expected a whole number from 1 to 281,474,976,710,656 \(default 7\)"
    ):
        env_bound("LIB_MAX_X", 7)


def test_a_bound_from_the_environment_raises_or_keeps_the_default(monkeypatch):
    assert env_bound("LIB_MAX_X", 7) == 7
    monkeypatch.setenv("LIB_MAX_X", " 1024 ")
    assert env_bound("LIB_MAX_X", 7) == 1024
    monkeypatch.setenv("LIB_MAX_X", str(2**48))  # the largest: every reader takes it (csv, readline)
    assert env_bound("LIB_MAX_X", 7) == 2**48


def test_a_bad_bound_ends_a_command_on_import_in_one_line():
    env = {**__import__("os").environ, "LIB_MAX_INPUT_BYTES": "abc"}
    done = subprocess.run(
        [sys.executable, "-m", "lib.averitec.scoring", "--help"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 1 and done.stderr.startswith("error: $LIB_MAX_INPUT_BYTES: expected a whole number")
    assert done.stderr.count("\n") == 1


def test_the_studys_own_files_are_named_and_a_users_new_files_are_not(tmp_path):
    """`--to-csv params.yaml`, `--out dvc.yaml` and `grade --out README.md` replaced them with exit 0."""
    (tmp_path / "dvc.yaml").write_text(
        "stages:\n  a:\n    cmd: x\n    deps: [lib/store/build.py, params.yaml, annotations/filled.csv, data]\n"
        "    outs: [outputs/store]\n"
    )
    for name in ("lib/x.py", "notebooks/01_x.ipynb", "tests/test_x.py", "params.yaml", "README.md", "annotations/s.csv",
                 "outputs/notebooks/01_x.ipynb", "mine.csv", "docs/guide.md", "exercises/01_x.ipynb"):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(
        ["git", "add", "README.md", "docs/guide.md", "lib/x.py", "notebooks/01_x.ipynb", "tests/test_x.py"],
        cwd=tmp_path,
        check=True,
    )
    dvc_yaml = tmp_path / "dvc.yaml"
    expected = {
        "lib/new.parquet": "lies inside lib/, the study's code",
        "notebooks": "lies inside notebooks/, the study's code",
        "tests/ex/01.ipynb": "lies inside tests/, the study's code",
        ".git/x.csv": "lies inside .git/, the study's git records",
        ".dvc/cache/x": "lies inside .dvc/, the study's DVC records",
        "params.yaml": "is a file of the study (a stage reads it); it would be replaced",
        "dvc.yaml": "is a file of the study (a stage reads it); it would be replaced",
        "annotations/s.csv": "is a file of the study (a stage reads it); it would be replaced",  # a person's sheet
        "README.md": "is a file of the study (git keeps it); it would be replaced",
        "docs/guide.md": "is a file of the study (git keeps it); it would be replaced",
    }
    for rel, part in expected.items():
        assert study_part(tmp_path / rel, dvc_yaml) == part, rel
    for rel in ("mine.csv", "new.csv", "docs/new.md", "annotations/new.csv", "outputs/x.csv", "outputs/store/x",
                "exercises/01_x.ipynb"):  # fmt: skip
        assert study_part(tmp_path / rel, dvc_yaml) is None, rel  # a user's own file, or a stage output's business
    assert study_part(tmp_path.parent / "elsewhere.csv", dvc_yaml) is None
    # the class's copies (exercises/, which git ignores) are no code: a second `course exercises` was told
    # "lies inside exercises/, the study's code" where it meant "already holds copies"; without git, every
    # folder of notebooks or modules is code
    import shutil

    shutil.rmtree(tmp_path / ".git")
    assert study_part(tmp_path / "exercises/01_x.ipynb", dvc_yaml) == "lies inside exercises/, the study's code"
    assert study_part(tmp_path / "lib/new.parquet", dvc_yaml) == "lies inside lib/, the study's code"


def test_the_error_line_is_the_last_and_starts_its_own_line_after_an_open_progress_bar(capsys):
    from tqdm import tqdm

    def main():
        bar = tqdm(total=4, desc="judging")
        bar.update(1)
        raise NamedError("the judge failed")

    with pytest.raises(SystemExit) as out:
        run_main(main)
    assert out.value.code == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1] == "error: the judge failed" and sum(line.startswith("error:") for line in lines) == 1


def test_running_out_of_memory_is_one_error_line(capsys):
    def main():
        raise MemoryError

    with pytest.raises(SystemExit) as out:
        run_main(main)
    assert out.value.code == 1 and capsys.readouterr().err.startswith("error: out of memory")


def test_a_signal_while_a_command_is_still_importing_is_one_error_line():
    """Ctrl-C during the imports was a KeyboardInterrupt traceback from whatever module was loading."""
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "lib.site.execute", "05_averitec_score", "--section", "averitec_score", "--help"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the command finished before the signal")
    assert proc.returncode == 130
    assert err.splitlines() == [err.splitlines()[0]] and err.startswith("error: stopped by SIGINT")


@pytest.mark.parametrize("package", ["lib", "lib.store", "lib.evaluation", "lib.site.sections"])
def test_a_package_run_as_a_command_names_its_commands_in_one_line(package):
    """`python -m lib.store` ended in Python's "No module named lib.store.__main__", no `error:` line."""
    import subprocess
    import sys

    from lib.paths import ROOT

    done = subprocess.run([sys.executable, "-m", package], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: {package} is a package, not a command; ") and done.stderr.count("\n") == 1
    if package == "lib.store":
        assert done.stderr == (
            "error: lib.store is a package, not a command; its commands (each with --help): python -m lib.store.build\n"
        )


def test_the_commands_of_a_package_are_its_modules_that_run_as_commands():
    from lib.cli import package_commands

    assert "lib.site.render" in package_commands("lib.site") and "lib.site.banner" not in package_commands("lib.site")
    assert "lib.cli" not in package_commands("lib") and "lib.timing" in package_commands("lib")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-m", "lib.site.grading", "grade", ""], "argument folder: an empty path (an unset variable?)"),
        (["-m", "lib.site.grading", "grade", "x", "--root", ""], "argument --root: an empty path"),
        (["-m", "lib.retrieval.runs", "retrieve", "--data-dir", ""], "argument --data-dir: an empty path; name the"),
        (["-m", "lib.retrieval.runs", "retrieve", "--store-dir", " "], "argument --store-dir: an empty value"),
        (["-m", "lib.retrieval.runs", "retrieve", "--store-dir="], "argument --store-dir: an empty value"),
    ],
)
def test_an_empty_value_is_refused_at_the_flag(argv, message):
    """`grade "$SUBMISSIONS"` with the variable unset graded the whole checkout, running its notebooks;
    `--data-dir ""` and `--store-dir ""` read the current folder."""
    done = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("error: ") and message in done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("module", ["lib.averitec.breakdowns", "lib.data.averitec", "lib.paths", "lib.data.labels"])
def test_a_module_that_is_no_command_says_so_in_one_line(module):
    """`python -m lib.averitec.breakdowns --help` defined its functions and ended with status 0, no word."""
    done = subprocess.run(
        [sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"error: {module} is a module of functions, not a command; `python -m {module.rsplit('.', 1)[0]}` names the "
        "commands beside it\n"
    )
    assert subprocess.run([sys.executable, "-m", "lib.timing", "--help"], cwd=ROOT, capture_output=True).returncode == 0


def test_a_stopped_kernel_takes_its_connection_file_with_it(tmp_path):
    """The twenty-ninth pass: a stopped `grading grade` left the kernel's /tmp/tmpXXXX.json behind, while the
    error line said nothing was left. Run in a process of its own: `stop_children` kills every child."""
    connection, other = tmp_path / "tmpkernel.json", tmp_path / "other.json"
    for f in (connection, other):  # `other`: a child that is no kernel, whose arguments are not files to remove
        f.write_text("{}")
    script = (
        "import subprocess, sys\n"
        "from lib.cli import stop_children\n"
        "sleep = 'import time; time.sleep(60)'\n"
        f"k = subprocess.Popen([sys.executable, '-c', sleep, 'ipykernel_launcher', '-f', {str(connection)!r}])\n"
        f"w = subprocess.Popen([sys.executable, '-c', sleep, 'worker', '-f', {str(other)!r}])\n"
        "import time; time.sleep(0.5)\n"
        "stop_children()\n"
        "print(k.poll() is not None, w.poll() is not None)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["True", "True"], done.stderr
    assert not connection.exists() and other.exists()


def test_a_command_names_itself_as_it_is_run_and_help_after_a_subcommand_is_help():
    """The thirty-first pass: `usage: build.py` for `python -m lib.store.build`; `lib.timing table --help` and
    `lib.closure check --help` were refusals (exit 2)."""
    build = subprocess.run(
        [sys.executable, "-m", "lib.store.build", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert build.returncode == 0 and build.stdout.startswith("usage: python -m lib.store.build ")
    for cmd in (["lib.timing", "table", "--help"], ["lib.timing", "run", "-h"], ["lib.closure", "check", "--help"]):
        done = subprocess.run([sys.executable, "-m", *cmd], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0 and done.stdout.startswith("usage: python -m "), cmd
    empty = subprocess.run(
        [sys.executable, "-m", "lib.timing", "run", "--", ""], cwd=ROOT, capture_output=True, text=True
    )
    assert empty.returncode == 2 and empty.stderr.startswith("error: an empty command name after `run --`")


def test_finite_real_is_a_number_a_user_wrote_and_a_float_holds():
    """The one check behind the TREC writer, the sweep reader and the reproduction reference (three copies
    before, each catching OverflowError its own way)."""
    import numpy as np

    from lib.cli import finite_real

    for yes in (0, 1.5, -2, np.float32(0.5), np.int64(3), 10**300):
        assert finite_real(yes), yes
    for no in (True, np.bool_(False), float("nan"), float("inf"), -float("inf"), 10**400, "1", None, [1]):
        assert not finite_real(no), no
