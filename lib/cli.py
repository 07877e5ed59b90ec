"""How every `python -m lib...` command ends on bad input or when it is stopped: one `error: ...` line naming
the file, record or field, and a non-zero exit status, never a traceback. A bug still shows its traceback.

Bad input exits 1. SIGTERM and SIGINT (Ctrl-C) stop the command where it is: its child processes (pools,
notebook kernels) are stopped with it, every output being written is discarded (`lib.outputs` writes whole
files or none), and it exits 143 or 130, the shell's codes for those signals."""

from __future__ import annotations

import argparse
import ctypes
import errno
import functools
import math
import numbers
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

import psutil
import pydantic
import yaml

from lib import runs_as_command

ROOT = Path(__file__).resolve().parent.parent


class NamedError(Exception):
    """An error in what a user gave (a file, a record, a field, a parameter, an endpoint) whose message
    names it and says what was expected: the command line prints the message alone."""


# What a signal runs before the command exits (`lib.outputs` removes the temporaries it is writing). A
# clean-up that cannot undo what was begun returns what the user must do; the error line says it.
CLEANUPS: list[Callable[[], str | None]] = []


def process_gone(pid: int) -> bool:
    """Whether no process has this id (a file named with a writer's pid outlived a writer killed outright:
    SIGKILL runs no clean-up). A live process of another user is not gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):  # alive and not ours; or no pid at all
        return False
    return False


def writer_gone(pid: str) -> bool:
    """Whether the process id in a file's name (`.<name>.<pid>.…`, a writer's temporary or scratch file) is a
    process that is gone: ASCII digits, at most 10 ('²' is a digit that `int` refuses, and a name's 200 digits
    are past any pid_max)."""
    return pid.isascii() and pid.isdigit() and len(pid) <= 10 and process_gone(int(pid))


def die_with(parent: int, sig: int = signal.SIGKILL) -> None:
    """Make this process get `sig` when `parent` dies (Linux: PR_SET_PDEATHSIG): a command killed with SIGKILL
    (the out-of-memory killer) runs no clean-up, and its workers waited for work forever, or a stage the
    timer ran went on writing its outputs. Called in the child (a pool's initializer, `Popen`'s preexec_fn)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, sig)  # PR_SET_PDEATHSIG, from the process's own libc
    except (OSError, AttributeError):  # not Linux: the signal handlers still stop the workers
        return
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


def stop_children() -> None:
    """Kill this process's children and theirs (worker pools, notebook kernels) and wait for them. A kernel's
    connection file (its `-f` argument: a temporary file jupyter_client removes only when it stops the kernel
    itself) is removed with it."""
    try:
        children = psutil.Process().children(recursive=True)
    except psutil.Error:
        return
    left = [f for child in children if (f := _connection_file(child))]
    for child in children:  # workers and kernels write nothing of their own: nothing to finish
        try:
            child.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(children, timeout=5)
    for file in left:
        Path(file).unlink(missing_ok=True)


def _connection_file(process: psutil.Process) -> str | None:
    """The connection file of a Jupyter kernel process (`... ipykernel_launcher -f FILE.json`), else None."""
    try:
        args = process.cmdline()
    except psutil.Error:
        return None
    if any("ipykernel" in a for a in args) and "-f" in args[:-1]:
        file = args[args.index("-f") + 1]
        return file if file.endswith(".json") else None
    return None


_MAIN_PID: list[int] = []  # the process that installed the handlers (forked workers inherit them)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _MAIN_PID and os.getpid() != _MAIN_PID[0]:  # a forked worker: die as the signal says, quietly
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    signal.signal(signum, signal.SIG_IGN)  # a second signal does not interrupt the clean-up
    # Exit here rather than unwind: a worker pool unwinding after its workers were killed can wait forever.
    stop_children()
    notes = []
    for cleanup in CLEANUPS:
        try:
            notes.append(cleanup())
        except Exception:  # noqa: BLE001 - the exit must happen; a clean-up that failed is not a reason to stay
            pass
    if _bars():  # a progress bar's line is open: the error begins its own
        sys.stderr.write("\n")
    said = "; ".join(n for n in notes if isinstance(n, str)) or "nothing half-written was left in place"
    sys.stderr.write(f"error: stopped by {signal.Signals(signum).name}; {said}\n")
    sys.stderr.flush()
    os._exit(128 + signum)


def _bars() -> list[Any]:
    """The progress bars (tqdm) still open in this process."""
    tqdm = sys.modules.get("tqdm")
    return list(getattr(getattr(tqdm, "tqdm", None), "_instances", None) or [])


def _done() -> None:
    """The work is over: a signal from now on is ignored. The interpreter restores the default handlers while
    it shuts down, and a SIGTERM then killed the command with 143 and no word after its outputs were written."""
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)


def _fail(message: str) -> None:
    """End the command with one `error:` line, after any open progress bar is closed (its line ended):
    the error is the last line, at the start of a line, where `grep ^error:` and `tail -1` find it."""
    for bar in _bars():
        try:
            bar.close()
        except Exception:  # noqa: BLE001 - a bar that cannot close still must not hide the error
            pass
    print(f"error: {message}", file=sys.stderr)
    _done()
    sys.exit(1)


def install_signals() -> None:
    """SIGTERM and SIGINT stop the command: children killed, temporaries removed, exit 143 or 130."""
    _MAIN_PID[:] = [os.getpid()]
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _on_signal)


def stages_of(dvc_yaml: Path) -> dict[str, dict]:
    """The stages a `dvc.yaml` declares ({} when it cannot be read: no stage is named then); each text is
    parsed once (a command checks every one of its outputs against them)."""
    try:
        return _parsed_stages(dvc_yaml.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return {}


@functools.lru_cache(maxsize=4)
def _parsed_stages(text: str) -> dict[str, dict]:
    """`stages_of` one text of a `dvc.yaml`."""
    try:
        stages = (yaml.safe_load(text) or {}).get("stages", {})
    except (yaml.YAMLError, AttributeError):
        return {}
    return stages if isinstance(stages, dict) else {}


def not_a_file(expected: str) -> str:
    """The one wording for a path that exists but is no regular file: a folder, or a pipe or device (reading
    a pipe waits for a writer, `/dev/zero` fills memory), named before anything reads it."""
    return f"not a regular file (a folder, a pipe or a device?); expected {expected}"


def made_by(path: Path | str, dvc_yaml: Path = ROOT / "dvc.yaml") -> str | None:
    """The pipeline stage whose outputs hold `path` (a file or a file inside an output folder), if any."""
    target = Path(path).resolve()
    for name, stage in stages_of(dvc_yaml).items():
        for out in outs_of(stage):
            made = (dvc_yaml.parent / out).resolve()
            if target == made or target.is_relative_to(made):
                return name
    return None


def _tracked(root: Path, rel: Path) -> bool:
    """Whether git keeps `rel` in the repository at `root` (False without git or a repository)."""
    if not (root / ".git").exists():
        return False
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "--error-unmatch", "--", rel.as_posix()], capture_output=True
        )
    except OSError:  # no git on this machine
        return False
    return done.returncode == 0


def study_part(path: Path | str, dvc_yaml: Path = ROOT / "dvc.yaml") -> str | None:
    """What of the study's own `path` would replace or lie among, if anything, for a command DVC never runs
    to refuse: its git and DVC records (.git/, .dvc/), its code (a top folder holding `.py` or `.ipynb` files
    that git keeps, any such folder without git: lib/, notebooks/, tests/), or an existing file a stage reads
    or git keeps (params.yaml, dvc.yaml, a filled sheet in annotations/). The stages' outputs are `made_by`'s;
    a new file elsewhere is the user's."""
    root, target = dvc_yaml.parent.resolve(), Path(path).resolve()
    if not target.is_relative_to(root) or target == root:
        return None
    rel = target.relative_to(root)
    top = rel.parts[0]
    stages = stages_of(dvc_yaml)
    if top in (".git", ".dvc"):
        return f"lies inside {top}/, the study's {'git' if top == '.git' else 'DVC'} records"
    if top in {Path(out).parts[0] for stage in stages.values() for out in outs_of(stage)}:
        return None
    folder = root / top
    if folder.is_dir() and (any(folder.glob("*.py")) or any(folder.glob("*.ipynb"))):
        if not (root / ".git").exists() or _tracked(root, Path(top)):  # not a class's copies (exercises/)
            return f"lies inside {top}/, the study's code"
    if not target.is_file():
        return None
    read = {Path(str(dep)).parts[0] for stage in stages.values() for dep in stage.get("deps", [])}
    tracked = _tracked(root, rel)
    if tracked or top in read or rel.as_posix() in ("dvc.yaml", "dvc.lock"):
        return f"is a file of the study ({'git keeps it' if tracked else 'a stage reads it'}); it would be replaced"
    return None


def outs_of(stage: dict) -> list[str]:
    """A `dvc.yaml` stage's outputs, metrics and plots, as paths (an entry with options is its path)."""
    return [
        str(next(iter(o)) if isinstance(o, dict) else o)
        for key in ("outs", "metrics", "plots")
        for o in stage.get(key, [])
    ]


def missing(err: FileNotFoundError) -> str:
    """A missing file's message, with the stage that makes it when it is a pipeline output."""
    text = str(err)
    # pyarrow's error has no filename, only the path as its message; the OS's quotes it
    named = [err.filename] if err.filename else re.findall(r"'([^']+)'", text) or text.split()[:1]
    if "dvc repro" in text:  # the message already says which stage to run
        return text
    for path in named:
        stage = made_by(path) if path and "\n" not in str(path) else None
        if stage is not None:
            return f"{path}: missing; the pipeline stage `{stage}` makes it (run `dvc repro {stage}`)"
    if err.filename and os.path.islink(err.filename):  # the OS says "No such file" of a link whose target is gone
        return f"{err.filename}: a link to {os.readlink(err.filename)}, which does not exist"
    if err.filename and err.errno == errno.ENOENT:
        return f"{err.filename}: no such file"
    return text


MAX_SHOWN = 200  # characters of a given value quoted in a message


def first_line(err: BaseException, limit: int = MAX_SHOWN) -> str:
    """The first line of an error's message, cut to `limit` characters ("" for an error without one): a
    library's many-line message quoted in one line of ours."""
    text = str(err).strip()
    return text.splitlines()[0][:limit] if text else ""


def finite_real(value: Any) -> bool:
    """A real number (numpy's too) that is not a bool and is finite. An integer beyond a float's range is not
    one (`math.isfinite(10**400)` raises OverflowError), nor is text (a TypeError): every reader of a number a
    user wrote asks this. (`lib.site.checks` keeps its own copy: a notebook depends on it alone.)"""
    try:
        return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    except OverflowError:
        return False


def shown(value: Any, limit: int = MAX_SHOWN) -> str:
    """`repr(value)` cut to `limit` characters, with the full length named when cut (a message never quotes
    a megabyte of what it refuses)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def settings_error(err: pydantic.ValidationError, limit: int = MAX_SHOWN) -> str:
    """A settings model's refusal as one line: each field (a parameter, or the flag of that name) with what
    was expected and the value given (`shown`)."""
    parts = []
    for e in err.errors():
        where = ".".join(str(x) for x in e["loc"]) or err.title
        parts.append(f"{where}: {e['msg']} (got {shown(e.get('input'), limit)})")
    return f"{err.title}: " + "; ".join(parts)


MAX_ENV_BOUND = 2**48  # the largest bound a variable may set (256 Ti): far past any memory, within every C size


def env_bound(name: str, default: int) -> int:
    """A bound a user may raise through the environment variable `name` (a whole number of at least 1), or
    `default` when it is unset. A bad value ends the command at once in one line (SystemExit: status 1, also
    when a module reads it on import), never a traceback or a bound of -5 that calls every file too large."""
    text = os.environ.get(name)
    if text is None:
        return default
    # ASCII digits only (`1e6`, `1_000`, `-5` are not), and no more than a C size: 2**63 overflowed readline
    if not re.fullmatch(r"[0-9]+", text.strip()) or not 1 <= int(text) <= MAX_ENV_BOUND:
        raise SystemExit(
            f"error: ${name}: expected a whole number from 1 to {MAX_ENV_BOUND:,} (default {default:,}), "
            f"got {shown(text)}"
        )
    return int(text)


def nonempty_path(text: str) -> str:
    """An argparse `type` for a path argument: an empty or blank path (`--to-csv ""`, an unset shell
    variable) is refused, where it would have meant "no path" and skipped the work silently, or the current folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (an unset variable?); name a file or folder")
    return text


def file_path(text: str) -> str:
    """An argparse `type` for the path of a file to write: not empty (`nonempty_path`) and not ending in `/`,
    which names a folder (`--to-csv newdir/` wrote a file named `newdir`)."""
    if nonempty_path(text).endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text!r} ends with '/', a folder; name the file to write")
    return text


def data_folder(text: str) -> str:
    """An argparse `type` for `--data-dir`: a folder that exists, refused before any work where a missing one
    would surface later as the first data file it lacks."""
    if not text.strip():  # `Path("")` is the current folder, which is a folder
        raise argparse.ArgumentTypeError("an empty path; name the study's data folder (data/ after `dvc pull`)")
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text}: no such folder; expected the study's data (data/ after `dvc pull`)")
    return text


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose refusal of a command line is one `error:` line (what argparse found wrong and
    where the usage is), status 2, like every other refusal of the study's commands."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # no shortened option names: `--pred B` after `--predictions A` escaped the "given twice" check below
        # (it looks options up by their full name) and scored B alone; subcommands' parsers are this class too
        if "prog" not in kwargs and not args:  # `python -m lib.store.build`, not the file's name `build.py`
            spec = getattr(sys.modules.get("__main__"), "__spec__", None)
            if spec is not None and spec.name.startswith("lib."):
                kwargs["prog"] = f"python -m {spec.name.removesuffix('.__main__')}"
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (usage: {self.prog} --help)\n")

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """argparse's, refusing an option that takes one value given twice (`--predictions A --predictions B`
        scored B alone, without a word); options meant to repeat (`append`) are left alone."""
        given = list(sys.argv[1:] if args is None else args)
        seen: set[str] = set()
        options = given[: given.index("--")] if "--" in given else given
        for i, arg in enumerate(options):
            name = arg.split("=", 1)[0]
            action = self._option_string_actions.get(name)
            if isinstance(action, argparse._StoreAction):  # noqa: SLF001 - argparse names its own kinds so
                if action.dest in seen:
                    self.error(f"argument {'/'.join(action.option_strings)}: given twice; give it once")
                seen.add(action.dest)
                value = arg.split("=", 1)[1] if "=" in arg else (options[i + 1] if i + 1 < len(options) else None)
                if action.type in (None, str, Path) and value is not None and not value.strip():
                    # an unset variable: `--root ""` meant the current folder, without a word
                    self.error(f"argument {'/'.join(action.option_strings)}: an empty value (an unset variable?)")
            elif arg in self._name_parser_map_keys():  # a subcommand: its own options are its parser's to check
                break
        return super().parse_known_args(args, namespace)

    def _name_parser_map_keys(self) -> set[str]:
        """The subcommands of this parser, if it has any."""
        subs = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001
        return set(subs[0].choices) if subs else set()


def run_main(main: Callable[[], int | None]) -> None:
    """Run a command's `main` and exit with its status; a `NamedError`, a missing or unwritable file, or a
    signal becomes one line. Output piped into a reader that stops (`| head`) ends quietly, as `cat` does."""
    install_signals()
    try:
        status = main()
        _done()
    except BrokenPipeError:
        # the reader is gone: nothing more can be said to it; stdout to /dev/null so that the interpreter's
        # own flush at exit does not fail again, and the status a shell gives SIGPIPE
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(128 + signal.SIGPIPE)
    except NamedError as err:
        _fail(str(err))
    except FileNotFoundError as err:
        _fail(missing(err))
    except pydantic.ValidationError as err:
        _fail(settings_error(err))
    except MemoryError:
        _fail("out of memory (the machine's, or a limit set on this process); free some, or work on less")
    except OSError as err:  # the machine said no (a full or read-only disk, a link loop): its words, one line
        if err.errno is None:  # no system error: a bug, shown with its traceback
            raise
        where = f"{long_text(str(err.filename))}: " if err.filename else ""
        name = errno.errorcode.get(err.errno, str(err.errno))
        _fail(f"{where}{err.strerror or err} ({name})")
    sys.exit(status or 0)


def long_text(text: str, limit: int = 300) -> str:
    """`text`, or its two ends around its length where it is longer than `limit` (a 5,000-character path that
    was too long to open filled the terminal with one error line)."""
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-(limit // 3) :]} ({len(text):,} characters)"


def package_commands(package: str) -> list[str]:
    """The commands a package of `lib` holds: its modules that run as `python -m` (`lib.runs_as_command`),
    dotted, in order."""
    folder = Path(__file__).resolve().parent.joinpath(*package.split(".")[1:])
    return [
        f"{package}.{path.stem}"
        for path in sorted(folder.glob("*.py"))
        if path.stem != "__main__" and runs_as_command(str(path), listed=True)
    ]


def package_main(package: str) -> None:
    """`python -m <package>`: a package is no command; one line naming its commands, status 2 (Python's
    own words were "No module named lib.store.__main__", no `error:` line)."""
    commands = package_commands(package)
    listed = (
        f"its commands (each with --help): {', '.join(f'python -m {c}' for c in commands)}"
        if commands
        else "it holds functions for the notebooks and the other packages, no command"
    )
    print(f"error: {package} is a package, not a command; {listed}", file=sys.stderr)
    sys.exit(2)
