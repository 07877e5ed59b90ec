"""Every file the study writes, written one way: whole or not at all, and never over one of its inputs.

`atomic(path)` hands out a temporary file with a unique name in the target's own folder; when the block
ends the file is flushed to disk (fsync) and renamed over the target, so a reader sees the old file or the
new one, never half of one, and two writers of one output never share a temporary name. A block that fails
or is interrupted removes its temporary file. `atomic_dir` does the same for a folder (a saved model).

`together()` groups a stage's several outputs: their temporary files are renamed only when the whole group
has been written, so a killed stage leaves its previous outputs (or none), never some new and some old.

`refuse_targets(outputs, inputs)` runs before any work: an output that is also an input of the same
command, lies inside an input folder, lies inside `data/` (the study's data, kept by DVC) or is a folder
ends the command with a named error instead of overwriting what it reads. `refuse_stage_outputs` does the
same, for a command DVC never runs, with every path a stage of `dvc.yaml` declares as its output.
"""

from __future__ import annotations

import contextvars
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lib.cli import CLEANUPS, NamedError, made_by, study_part
from lib.paths import DATA_DIR, ROOT

# The group `together()` opened, if any: (temporary, target) pairs waiting to be renamed.
_GROUP: contextvars.ContextVar[list[tuple[Path, Path]] | None] = contextvars.ContextVar("outputs", default=None)
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


def _place(tmp: Path, path: Path) -> None:
    """Rename a finished temporary file or folder over its target (a folder target goes aside first)."""
    if tmp.is_dir() and path.is_dir():
        old = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".old"))
        os.replace(path, old / path.name)
        os.replace(tmp, path)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, path)
    _fsync(path.parent)


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
            # mkstemp and mkdtemp make owner-only files (0600, 0700): give the output the usual permissions
            tmp.chmod((0o777 if tmp.is_dir() else 0o666) & ~_umask())
            _fsync(tmp)
    except BaseException:
        _discard(tmp)
        _LIVE.discard(tmp)
        raise
    _LIVE.discard(tmp)
    group = _GROUP.get()
    if group is None:
        _place(tmp, path)
    else:
        group.append((tmp, path))


@contextmanager
def atomic(path: Path | str) -> Iterator[Path]:
    """A temporary file beside `path` (same suffix, so numpy and pandas keep its name) that replaces `path`
    when the block ends without an error."""
    path = Path(path)
    if path.is_symlink():  # write where the link points, keeping the link
        path = path.resolve()
    if path.exists() and not path.is_file() and not path.is_dir():  # /dev/stdout, a pipe: written in place
        with _naming(path):
            yield path
        return
    path = _target(path)
    suffix = ".tmp" + (path.suffix if path.suffix in _KEEP_SUFFIX else "")
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:200]}.", suffix=suffix)
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
        tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name[:200]}.", suffix=".tmp"))
    except OSError as err:
        raise NamedError(f"{path}: cannot write here ({err.strerror})") from None
    with _finish(tmp, path) as folder:
        yield folder


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
            _discard(tmp)
        raise
    finally:
        _GROUP.reset(token)
    for tmp, path in pending:
        _place(tmp, path)


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


CLEANUPS.append(discard_live)
