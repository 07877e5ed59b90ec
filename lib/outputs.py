"""Every file the study writes, written one way: whole or not at all, and never over one of its inputs.

`atomic(path)` hands out a temporary file with a unique name in the target's own folder; when the block
ends the file is flushed to disk (fsync) and renamed over the target, so a reader sees the old file or the
new one, never half of one, and two writers of one output never share a temporary name. A block that fails
or is interrupted removes its temporary file. `atomic_dir` does the same for a folder (a saved model).

`together()` groups a stage's several outputs: their temporary files are renamed only when the whole group
has been written, so a killed stage leaves its previous outputs (or none), never some new and some old.
SIGTERM and SIGINT wait until the renames are done; SIGKILL cannot be waited for, so a journal written into
each of the group's folders before the first rename lets the next reader or writer there finish them
(`finish_groups`), and a folder output moved aside by a writer killed between its two renames goes back.

`refuse_targets(outputs, inputs)` runs before any work: an output that is also an input of the same
command, lies inside an input folder, lies inside `data/` (the study's data, kept by DVC) or is a folder
ends the command with a named error instead of overwriting what it reads. `refuse_stage_outputs` does the
same, for a command DVC never runs, with every path a stage of `dvc.yaml` declares as its output.
"""

from __future__ import annotations

import contextvars
import errno
import json
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lib.cli import (
    CLEANUPS,
    NamedError,
    first_line,
    made_by,
    not_a_file,
    outs_of,
    stages_of,
    study_part,
    writer_gone,
)
from lib.paths import DATA_DIR, ROOT

# The group `together()` opened, if any: (temporary, target) pairs waiting to be renamed.
# the outputs of a `together` block: (temporary, target), or (None, target) for a file the block removes
_GROUP: contextvars.ContextVar[list[tuple[Path | None, Path]] | None] = contextvars.ContextVar("outputs", default=None)
_LIVE: set[Path] = set()  # temporaries not yet placed or discarded: a signal removes them (lib.cli)
# numpy appends its suffix to a name without it; every other temporary ends in `.tmp`, so that a reader that
# globs `*.json` or `*.parquet` never takes a temporary left by a killed process for an output
_KEEP_SUFFIX = (".npy", ".npz")


def discard_live() -> None:
    """Remove every temporary still being written (called by `lib.cli` when a signal stops the command)."""
    for tmp in list(_LIVE):
        _discard(tmp)


def _fsync(path: Path) -> None:
    """Flush a written file (or a folder's entries) to disk before it is renamed into place."""
    flags = os.O_RDONLY | (os.O_DIRECTORY if path.is_dir() else 0)
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a folder; the rename stays atomic
        pass
    finally:
        os.close(fd)


@contextmanager
def _held() -> Iterator[None]:
    """SIGTERM and SIGINT wait until the block ends (then stop the command as usual): a signal between two
    renames would leave a folder target moved aside and its new version not yet in its place, or a stage's
    outputs half old, half new."""
    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _place(tmp: Path, path: Path) -> None:
    """Rename a finished temporary file or folder over its target (a folder target goes aside first, and is
    removed once the new one is in place); the temporary leaves `_LIVE` once placed."""
    old = None
    with _held():
        if tmp.is_dir() and path.is_dir():
            old = Path(tempfile.mkdtemp(dir=path.parent, prefix=_temporary_prefix(path), suffix=".old"))
            _LIVE.add(old)  # a signal while it is removed below removes the rest
            os.replace(path, old / path.name)
        os.replace(tmp, path)
        _LIVE.discard(tmp)
    _fsync(path.parent)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
        _LIVE.discard(old)


def _umask() -> int:
    """The process's umask now (read by setting it, then put back: the only way POSIX offers), so that a
    command that changes it after importing this module gets the permissions it asked for."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _target(path: Path | str) -> Path:
    """`path` (a link already resolved by the caller) with its folder made; a folder there is an error."""
    path = Path(path)
    if path.is_dir():
        raise NamedError(f"{path}: is a folder; expected the path of a file to write")
    if path.is_file() and not path.stat().st_mode & 0o222:  # the rename replaced it whatever its mode said
        raise NamedError(
            f"{path}: is a read-only file; make it writable (chmod u+w; for a DVC output, dvc unprotect) or "
            "write elsewhere"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise NamedError(f"{path}: cannot create its folder ({err.strerror})") from None
    return path


def _discard(tmp: Path) -> None:
    if tmp.is_dir():
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        tmp.unlink(missing_ok=True)


@contextmanager
def _naming(path: Path) -> Iterator[None]:
    """A system error while `path` is written (a full disk: the writer's own error names no file) names it."""
    try:
        yield
    except OSError as err:
        if err.errno is None or err.filename:
            raise
        raise OSError(err.errno, err.strerror, str(path)) from None


@contextmanager
def _finish(tmp: Path, path: Path) -> Iterator[Path]:
    _LIVE.add(tmp)
    try:
        with _naming(path):
            yield tmp
            # mkstemp and mkdtemp make owner-only files (0600, 0700): give the output the usual permissions, or
            # those of the file it replaces (a file made group-writable stays so)
            kept = path.stat().st_mode & 0o777 if path.is_file() and not tmp.is_dir() else None
            tmp.chmod(kept if kept is not None else (0o777 if tmp.is_dir() else 0o666) & ~_umask())
            _fsync(tmp)
    except BaseException:
        _discard(tmp)
        _LIVE.discard(tmp)
        raise
    group = _GROUP.get()
    if group is None:
        _place(tmp, path)
    else:  # stays in `_LIVE` until the group places it: a signal before then removes it
        group.append((tmp, path))


@contextmanager
def _reader_of(path: Path) -> Iterator[None]:
    """For a named pipe: refuse one that no process reads (opening it to write would wait forever), and hold
    it open while the writer opens and writes it (so its reader does not see the end before the writer starts)."""
    if not stat.S_ISFIFO(path.stat().st_mode):
        yield
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as err:
        if err.errno != errno.ENXIO:
            raise
        raise NamedError(
            f"{path}: a pipe that no process reads; expected a file to write (or a pipe being read)"
        ) from None
    try:
        yield
    finally:
        os.close(fd)


@contextmanager
def atomic(path: Path | str) -> Iterator[Path]:
    """A temporary file beside `path` (same suffix, so numpy and pandas keep its name) that replaces `path`
    when the block ends without an error."""
    path = Path(path)
    if path.is_symlink() and (_resolved(path).exists() or not path.exists()):  # write where it points, keep it
        _refuse_link_into_the_study(path)
        path = path.resolve()  # (not /dev/stdout into a pipe: its target `pipe:[N]` is no path to resolve)
    if path.exists() and not path.is_file() and not path.is_dir():  # /dev/stdout, a pipe: written in place
        with _reader_of(path), _naming(path):
            yield path
        return
    path = _target(path)
    suffix = ".tmp" + (path.suffix if path.suffix in _KEEP_SUFFIX else "")
    sweep_temporaries(path)
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=_temporary_prefix(path), suffix=suffix)
    except OSError as err:
        raise NamedError(f"{path}: cannot write here ({err.strerror})") from None
    os.close(fd)
    with _finish(Path(name), path) as tmp:
        yield tmp


@contextmanager
def atomic_dir(path: Path | str) -> Iterator[Path]:
    """A temporary folder beside `path` that replaces the folder `path` when the block ends without an error."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        sweep_temporaries(path)
        tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=_temporary_prefix(path), suffix=".tmp"))
    except OSError as err:
        raise NamedError(f"{path}: cannot write here ({err.strerror})") from None
    with _finish(tmp, path) as folder:
        yield folder


def _temporary_prefix(path: Path) -> str:
    """`.<name>.<pid>.`: hidden, named after its target, and with the writer's process id, so that one a
    writer killed outright left behind is known for what it is (`sweep_temporaries`)."""
    return f".{path.name[:200]}.{os.getpid()}."


def sweep_temporaries(path: Path | str) -> list[Path]:
    """Remove the temporaries of `path` that writers killed by SIGKILL left beside it (SIGKILL runs no
    clean-up: each kill of a store build left its half-written tables, and the folder grew from 7 to 20 MB),
    known by the dead process id in their names; a live writer's are left alone. Returns those removed."""
    path = Path(path)
    finish_groups(path.parent)  # a group's temporaries are placed, not removed
    prefix, removed = f".{path.name[:200]}.", []
    try:
        entries = [e for e in path.parent.iterdir() if e.name.startswith(prefix) and ".tmp" in e.name]
    except OSError:
        return removed
    for entry in entries:  # `<pid>.<random>.tmp[.<suffix>]` after the prefix, and only that: `.res.30000.<pid>...`
        parts = entry.name[len(prefix) :].split(".")  # is the temporary of `res.30000`, not a dead writer's of `res`
        pid = parts[0]
        if len(parts) in (3, 4) and parts[2] == "tmp" and not entry.is_symlink() and writer_gone(pid):
            _discard(entry)
            removed.append(entry)
    return removed


def _refuse_link_into_the_study(path: Path) -> None:
    """An output that is a link is written where it points, unless there is the study's data, a stage's
    output, a file the study keeps or reads, its code or its DVC records: a link inside `--out-dir` wrote a
    plan over `data/averitec/dev.json` and over `params.yaml` (and, as a DVC cache link, into DVC's cache),
    exit 0."""
    target = _resolved(path)
    if _inside(target, DATA_DIR.resolve()):
        problem = "lies inside data/, the study's data kept by DVC"
    elif stage := made_by(target):  # a stage's output (a metrics file, a plan another stage reads)
        problem = f"lies inside the output of stage `{stage}`"
    else:
        problem = study_part(target)
    if problem:
        raise NamedError(f"{path}: is a link to {target}, which {problem}; remove the link, or write elsewhere")


@contextmanager
def together() -> Iterator[None]:
    """Outputs written inside the block are renamed into place together at its end, or none of them."""
    if _GROUP.get() is not None:  # nested: the outer group decides
        yield
        return
    pending: list[tuple[Path, Path]] = []
    token = _GROUP.set(pending)
    try:
        yield
    except BaseException:
        for tmp, _ in pending:
            if tmp is not None:
                _discard(tmp)
                _LIVE.discard(tmp)
        raise
    finally:
        _GROUP.reset(token)
    if folder := next(
        (path for tmp, path in pending if path.is_dir() and not path.is_symlink() and not (tmp and tmp.is_dir())),
        None,
    ):  # a folder where a file goes, or is removed: refused before the first rename, nothing left behind (a
        # folder written whole, `atomic_dir`, replaces its earlier self)
        for tmp, _ in pending:
            if tmp is not None:
                _discard(tmp)
                _LIVE.discard(tmp)
        raise NamedError(f"{folder}: is a folder; expected a file there (nothing of this group was written)")
    with _held():  # all renamed (and removed) before a signal is taken
        journals = _write_journals(pending) if len(pending) > 1 else []
        _apply(pending)
        for journal in journals:
            journal.unlink(missing_ok=True)


def _apply(pending: list[tuple[Path | None, Path]]) -> None:
    """Place (or remove) each output of a group, in order."""
    for tmp, path in pending:
        if tmp is None:
            path.unlink(missing_ok=True)
        else:
            _place(tmp, path)


# A group's journal: written (whole, fsynced) into every folder the group writes before its first rename, and
# removed after its last. Every temporary it lists is complete by then, so a full set of journals left by a
# writer killed outright (SIGKILL runs no clean-up; SIGTERM waits for the renames) means "finish these
# renames": the next writer or reader of any of those folders does (`finish_groups`), and the outputs are all
# new, never half; an incomplete set means no rename began (or all were done), and is removed.
JOURNAL = ".outputs.{pid}.{token}.group"


def _write_journals(pending: list[tuple[Path | None, Path]]) -> list[Path]:
    folders = list(dict.fromkeys(path.parent for _, path in pending))
    token = os.urandom(4).hex()  # two groups of one process (threads) never share a journal
    journals = [folder / JOURNAL.format(pid=os.getpid(), token=token) for folder in folders]
    text = json.dumps(  # absolute paths: a reader may name the folder another way
        {
            "pairs": [[_absolute(t) if t else None, _absolute(p)] for t, p in pending],
            "journals": list(map(_absolute, journals)),
            "writer": _writer_id(os.getpid()),
        }
    )
    for journal in journals:
        tmp = journal.with_name(journal.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        _fsync(tmp)
        os.replace(tmp, journal)
        _fsync(journal.parent)
    return journals


def _absolute(path: Path) -> str:
    return os.path.abspath(path)


def _writer_id(pid: int) -> str | None:
    """Which process holds `pid`: this boot and the process's start time (Linux's /proc), so that a pid taken
    by another process since the journal was written is told apart; None where it cannot be read."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        stat = Path(f"/proc/{pid}/stat").read_text()
        return f"{boot}:{stat.rsplit(')', 1)[1].split()[19]}"  # field 22, after the command's name
    except (OSError, IndexError, ValueError):
        return None


def _read_journal(journal: Path, pid: str) -> tuple[list[tuple[Path | None, Path]], list[Path], str | None]:
    """(pairs, journals, writer) of a group's journal, checked to list only its writer's temporaries beside
    their outputs (a journal names what to rename, so one that lists anything else is refused)."""
    try:
        record = json.loads(journal.read_text(encoding="utf-8"))
        pairs = [(Path(t) if t else None, Path(p)) for t, p in record["pairs"]]
        others = [Path(j) for j in record["journals"]]
        writer = record.get("writer")
        if (
            Path(_absolute(journal)) not in others
            or not all(
                t is None or (t.parent == p.parent and t.name.startswith(f".{p.name[:200]}.{pid}.")) for t, p in pairs
            )
            or not all(o.name == journal.name and o.parent in {p.parent for _, p in pairs} for o in others)
            or not (writer is None or isinstance(writer, str))
        ):
            raise ValueError("its entries are not this writer's temporaries beside their outputs")
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise NamedError(
            f"{journal}: an unreadable journal of outputs half renamed ({first_line(err)}); "
            "remove it and rerun the stage that writes this folder"
        ) from None
    return pairs, others, writer


def finish_groups(folder: Path | str) -> list[Path]:
    """Finish the renames of every group whose writer died in them (its journal in `folder`, its process gone or
    its pid another process's),
    and put back a folder output a writer moved aside and never replaced. Returns the outputs placed."""
    folder, placed = Path(folder), []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return placed
    for journal in entries:
        pid = journal.name.split(".")[2] if journal.name.startswith(".outputs.") else ""
        if not journal.name.endswith((".group", ".group.tmp")) or not (
            pid.isascii() and pid.isdigit() and len(pid) <= 10
        ):
            continue  # (a pid of more digits is past any pid_max: no writer's)
        if journal.name.endswith(".tmp"):  # killed while writing the journal: no rename began
            if writer_gone(pid):
                journal.unlink(missing_ok=True)
            continue
        pairs, others, writer = _read_journal(journal, pid)
        now = _writer_id(int(pid))
        if not writer_gone(pid) and not (writer and now and writer != now):  # alive, and the same process
            continue  # (its pid taken by another process since, after a reboot or a wrap, is no writer)
        if not all(other.exists() for other in others):  # killed before the last journal: no rename began
            for tmp in [t for t, _ in pairs if t is not None] + others:  # (or after the renames, removing them):
                _discard(tmp)  # nothing to finish either way, and the dead writer's temporaries go
            continue
        with _held():
            todo = [(t, p) for t, p in pairs if t is None or t.exists()]
            _apply(todo)
            placed += [p for _, p in todo]
            for other in others:
                other.unlink(missing_ok=True)
    for aside in entries:  # `.<name>.<pid>.<random>.old/<name>`: the old folder, moved aside before the rename
        pid = aside.name.split(".")[-3] if aside.name.count(".") >= 4 else ""
        if not (aside.name.startswith(".") and aside.name.endswith(".old") and aside.is_dir() and writer_gone(pid)):
            continue  # not an aside folder, or its writer is still at work
        inside = [e for e in aside.iterdir() if e.is_dir()]
        if len(inside) == 1 and aside.name.startswith(f".{inside[0].name[:200]}.{pid}."):
            target = folder / inside[0].name
            if not target.exists():  # killed between the two renames: the old folder goes back
                os.replace(inside[0], target)
                placed.append(target)
        shutil.rmtree(aside, ignore_errors=True)
    return placed


def remove(path: Path | str) -> None:
    """Remove an output file: at once, or inside a `together` block at its end with the rest (a stopped run
    keeps it, as it keeps every file the block would have replaced)."""
    group = _GROUP.get()
    if group is None:
        Path(path).unlink(missing_ok=True)
    else:
        group.append((None, Path(path)))


def write_text(path: Path | str, text: str, encoding: str = "utf-8") -> Path:
    with atomic(path) as tmp:
        tmp.write_text(text, encoding=encoding)
    return Path(path)


def write_bytes(path: Path | str, data: bytes) -> Path:
    with atomic(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_json(path: Path | str, data: Any, **dumps: Any) -> Path:
    """`data` as JSON with a final newline; `dumps` as for `json.dumps` (indent=2 unless given)."""
    dumps.setdefault("indent", 2)
    return write_text(path, json.dumps(data, **dumps) + "\n")


def write_lines(path: Path | str, lines: Iterable[str]) -> Path:
    """One string per line (each given without its newline), streamed: a JSONL file or a TREC run."""
    with atomic(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        for line in lines:
            f.write(line + "\n")
    return Path(path)


def write_parquet(frame: Any, path: Path | str, **kw: Any) -> Path:
    with atomic(path) as tmp:
        frame.to_parquet(tmp, **kw)
    return Path(path)


def write_csv(frame: Any, path: Path | str, **kw: Any) -> Path:
    with atomic(path) as tmp:
        frame.to_csv(tmp, **kw)
    return Path(path)


# --------------------------------------------------------------------------- reading a stage's outputs back


def _remake(path: Path) -> str:
    """How to make an output again: the stage that makes it, where a stage does."""
    stage = made_by(path)
    return f"the pipeline stage `{stage}` makes it (run `dvc repro {stage}`)" if stage else "make it again"


def _readable(path: Path, what: str) -> None:
    finish_groups(path.parent)  # a stage killed while renaming its outputs: finished before they are read
    if not path.exists():
        raise NamedError(f"{path}: missing; {_remake(path)}")
    if not path.is_file():
        raise NamedError(f"{path}: {not_a_file(what)}")


def inputs_exist(paths: Iterable[Path | str]) -> None:
    """Refuse, before any long work (a training), an input that is missing, naming the stage that makes it (a
    group or a folder its writer, killed outright, left half placed is finished first)."""
    for path in paths:
        finish_groups(Path(path).parent)
        if not Path(path).exists():
            raise NamedError(f"{path}: missing; {_remake(Path(path))}")


def read_parquet(path: Path | str, **kw: Any) -> Any:
    """A parquet output read back (`pandas.read_parquet`'s `kw`): missing, cut short (a copy that failed, a
    writer stopped before outputs were atomic) or no parquet at all is one error naming the file and the stage
    that makes it, where pyarrow's says "magic bytes not found" and nothing of which file."""
    import pandas as pd  # here: the writers above need no pandas, and light commands import this module
    import pyarrow

    path = Path(path)
    _readable(path, "a parquet file")
    try:
        return pd.read_parquet(path, **kw)
    except (pyarrow.ArrowException, OSError) as err:
        raise NamedError(f"{path}: not a readable parquet file ({first_line(err)}); {_remake(path)}") from None


def read_json(path: Path | str) -> Any:
    """A JSON output (a stage's report) read back; missing, cut short or not JSON is one error naming the file
    and the stage that makes it."""
    path = Path(path)
    _readable(path, "a JSON file")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise NamedError(f"{path}: not readable JSON ({first_line(err)}); {_remake(path)}") from None


def _resolved(path: Path | str) -> Path:
    """`path` with its links followed; a link that leads back to itself is a named error, not a traceback."""
    try:
        return Path(path).resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a loop, 3.13 OSError (ELOOP)
        raise NamedError(f"{path}: is a link that leads back to itself (a loop); remove it") from None


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


def refuse_targets(
    outputs: Iterable[Path | str | None],
    inputs: Iterable[Path | str | None] = (),
    data_dir: Path = DATA_DIR,
    folders: bool = False,
) -> None:
    """Refuse, before any work, an output that would overwrite what the command reads: the same file as an
    input, a path inside an input folder or inside `data/`, an existing folder where a file goes, or (with
    `folders`: the outputs are folders) an existing file where a folder goes."""
    ins = [(Path(i), _resolved(i)) for i in inputs if i is not None]
    protected = [p.resolve() for p in {data_dir, Path.cwd() / "data"} if p.exists()]
    for out in outputs:
        if out is None:
            continue
        shown, real = Path(out), _resolved(out)
        if shown.is_symlink() and not shown.exists():  # resolve() follows it to a path that is not there
            raise NamedError(
                f"{shown}: is a link to {os.readlink(shown)}, which does not exist; remove it or write elsewhere"
            )
        for given, inp in ins:
            if real == inp or (inp.is_dir() and _inside(real, inp)) or (folders and _inside(inp, real)):
                raise NamedError(f"{shown}: is also an input of this command ({given}); write the output elsewhere")
        for folder in protected:
            if _inside(real, folder):
                raise NamedError(f"{shown}: lies inside {folder.name}/, the study's data kept by DVC; write elsewhere")
        if real.is_dir() and not folders:
            raise NamedError(f"{shown}: is a folder; expected the path of a file to write")
        if folders and real.exists() and not real.is_dir():
            raise NamedError(f"{shown}: is a file; expected the path of a folder to write into")
        above = next((q for q in real.parents if q.exists()), None)
        if above is not None and not above.is_dir():
            raise NamedError(f"{shown}: lies under {above}, which is a file; no folder can be made there")


def refuse_stage_outputs(
    outputs: Iterable[Path | str | None], own: str | None = None, dvc_yaml: Path = ROOT / "dvc.yaml"
) -> None:
    """Refuse, before any work, an output inside what a stage of the study's `dvc.yaml` declares as its output
    (other than stage `own`'s, for a stage command writing its own), from whatever folder the command runs in:
    DVC reports such a file as a change to that output and deletes it when the stage reruns. The study's own
    files are refused too (`lib.cli.study_part`): its code, its git and DVC records, and an existing file a
    stage reads or git keeps (`--to-csv params.yaml` replaced the parameters with a CSV)."""
    for out in outputs:
        if out is None:
            continue
        if (stage := made_by(_resolved(out), dvc_yaml)) and stage != own:
            raise NamedError(
                f"{out}: lies inside the output of stage `{stage}` ({dvc_yaml}), which DVC deletes when the stage "
                "reruns; write elsewhere"
            )
        if part := study_part(_resolved(out), dvc_yaml):
            raise NamedError(f"{out}: {part}; write elsewhere")


def replaceable_folder(path: Path | str, marker: str, what: str, marker_keys: Sequence[str] = ()) -> None:
    """Refuse, before any work, a folder that a writer replaces whole (`atomic_dir`) where it holds anything but
    an earlier `what`: files only (a model folder holds no folder), with its `marker` file a JSON object holding
    `marker_keys` (`qgen_training --out-dir` a user's folder, `.venv` or a home folder took every file in it; a
    user's own `training.json` beside a thesis made it look like a model folder)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise NamedError(f"{path}: is a file; expected the folder of {what}")
    held = sorted(p.name for p in path.iterdir()) if path.is_dir() else []
    if not held:
        return
    why = None
    if not (path / marker).is_file():
        why = f"holds {held[0]!r}{f' and {len(held) - 1} more' if len(held) > 1 else ''} and no {marker}"
    elif folder := next((name for name in held if (path / name).is_dir()), None):
        why = f"holds the folder {folder!r}, which {what} has not"
    else:
        try:
            record = json.loads((path / marker).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            record = None
        if not isinstance(record, dict) or any(k not in record for k in marker_keys):
            why = f"its {marker} is not the record {what} writes"
    if why:
        raise NamedError(
            f"{path}: {why}, so it is not an earlier {what}, which writing there replaces whole: write to a new folder"
        )


def own_output(
    out_dir: Path | str | None,
    study_out: Path,
    given: Iterable[tuple[str, Path | str | None, Path]],
    what: str,
    own: str | None = None,
    dvc_yaml: Path = ROOT / "dvc.yaml",
) -> Path:
    """Where a command writes: the study's `study_out` when every input is the study's own (`given`: flag, the
    path given or None for the default, the study's path); for another input only a named `--out-dir` of its
    own (the study's outputs, which the notebooks read, held another input's numbers unseen: `--out-dir
    outputs/store` named the study's folder itself). Refused too where it would overwrite an input, `data/`, a
    stage's output (`own`: the stage whose output `study_out` is) or a folder holding another stage's output
    or a file git keeps (a model folder replaced whole took the committed sweeps with it)."""
    inputs = [(flag, path, study) for flag, path, study in given if path is not None]
    other = [f"{flag} {path}" for flag, path, study in inputs if Path(path).resolve() != Path(study).resolve()]
    if out_dir is None:
        if other:
            raise NamedError(
                f"{' and '.join(other)}: not the study's own; {what}, which the notebooks read, would hold its "
                "numbers: give --out-dir a folder of its own"
            )
        return study_out
    target, study = Path(out_dir).resolve(), study_out.resolve()
    if not other and target == study:  # the default folder named, with the study's own inputs: the default
        return study_out  # (`runs --out-dir outputs` was refused as holding its own input, outputs/store)
    if other and (target == study or target.is_relative_to(study) or study.is_relative_to(target)):
        raise NamedError(
            f"--out-dir {out_dir}: {what} (or a folder holding it), which the notebooks read, with "
            f"{' and '.join(other)}: give --out-dir a folder of its own"
        )
    refuse_targets([out_dir], [path for _, path, _ in inputs], folders=True)
    refuse_stage_outputs([out_dir], own=own, dvc_yaml=dvc_yaml)
    if held := _study_files_in(target, own, dvc_yaml, study):
        raise NamedError(f"--out-dir {out_dir}: holds {held}, which writing there would replace; write elsewhere")
    return Path(out_dir)


def _study_files_in(folder: Path, own: str | None, dvc_yaml: Path, own_folder: Path | None = None) -> str | None:
    """A stage output or a file git keeps inside `folder`, named; None where it holds neither. Stage `own`'s
    outputs are excused only where `folder` is that stage's folder `own_folder` (or inside it): a folder above it
    (`qgen_training --out-dir outputs/models`) held the study's model, which writing there replaced."""
    root = dvc_yaml.parent.resolve()
    owned = []
    for name, stage in stages_of(dvc_yaml).items():
        for out in outs_of(stage):
            made = (dvc_yaml.parent / out).resolve()
            if name == own and own_folder is not None and (folder == own_folder or folder.is_relative_to(own_folder)):
                owned.append(made)  # the stage's own folder named: its files are the stage's to replace
            elif made.is_relative_to(folder) and made != folder:  # a folder above it: `outputs/models` held qgen's
                return f"{out}, the output of stage `{name}`"
    if not (folder.is_dir() and folder.is_relative_to(root) and (root / ".git").exists()):
        return None
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--", folder.relative_to(root).as_posix() or "."],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):  # no git here: the stage outputs above are still checked
        return None
    for rel in filter(None, listed.decode("utf-8", "replace").split("\0")):
        kept = (root / rel).resolve()
        if not any(kept == o or kept.is_relative_to(o) for o in owned):
            return f"{rel}, a file git keeps"
    return None


def refuse_cache_target(path: Path | str, dvc_yaml: Path = ROOT / "dvc.yaml", owner: str | None = None) -> None:
    """Refuse, before any work, a cache (a file appended to across runs) where a stage writes: a cache is
    either an output `dvc.yaml` keeps between runs (`persist: true`) or a file outside every stage's
    outputs and outside the study's own files (`lib.cli.study_part`). A cache named as another output of a
    stage was appended to, then replaced by that output at the stage's end, and every answer lost. With
    `owner` (the stage the cache serves), only that stage's kept outputs: the judge's answers went into
    the planners' committed cache, and `generative_plans` read as changed."""
    real = _resolved(path)
    kept = {
        (dvc_yaml.parent / next(iter(o))).resolve(): name
        for name, stage in stages_of(dvc_yaml).items()
        for o in stage.get("outs", [])
        if isinstance(o, dict) and (next(iter(o.values())) or {}).get("persist")
    }
    if real in kept:
        if owner is not None and kept[real] != owner:
            raise NamedError(
                f"{path}: the cache of stage `{kept[real]}` ({dvc_yaml}), not of `{owner}`; give this cache its "
                "own path"
            )
        return
    if stage := made_by(real, dvc_yaml):
        raise NamedError(
            f"{path}: lies inside the output of stage `{stage}` ({dvc_yaml}), which replaces it; a cache goes at "
            "an output the stages keep (persist: true) or outside the stages' outputs"
        )
    if part := study_part(real, dvc_yaml):
        raise NamedError(f"{path}: {part}; put the cache elsewhere")


CLEANUPS.append(discard_live)
