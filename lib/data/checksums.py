"""`data/` against `data/SHA256SUMS`, and the DVC remote folder (`python -m lib.data verify | remote-check`)."""

from __future__ import annotations

import configparser
import os
import re
import sys
import warnings
from collections.abc import Container
from pathlib import Path, PurePosixPath

from lib.cli import NamedError, not_a_file, run_main
from lib.data import DataError, file_sha256, within_size
from lib.paths import DATA_DIR, ROOT

# --------------------------------------------------------------------------- checksums

SUMS_NAME = "SHA256SUMS"
_SUMS_LINE = re.compile(r"(?P<sha256>[0-9a-fA-F]{64}) [ *](?P<path>.+)")  # `sha256sum` output, text or binary mode
_README = re.compile(r"readme(\.\w+)?", re.IGNORECASE)


class UnlistedDataWarning(UserWarning):
    """Files in the data folder that SHA256SUMS does not list: present, but nothing vouches for them."""


def read_checksums(data_dir: Path | str = DATA_DIR) -> dict[str, tuple[int, str]]:
    """{path relative to `data_dir`: (line number, sha256)} from `data_dir/SHA256SUMS`.

    The manifest itself is checked before anything is hashed: a missing or empty file, a line that is
    not `<64 hex digits>  <path>`, a path that is absolute, contains '..' or resolves outside `data_dir`
    (a symlink), or a path listed twice is a `DataError` naming the line.
    """
    data_dir = Path(data_dir)
    sums = data_dir / SUMS_NAME
    within_size(sums)  # a pipe would wait for a writer, a link to /dev/zero fill memory
    try:
        text = sums.read_text(encoding="utf-8-sig")  # a byte-order mark (an editor's) is no part of line 1
    except FileNotFoundError:
        raise DataError(sums, "-", None, "missing: run `make data` (dvc pull) first") from None
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(sums, "-", None, f"unreadable ({err})") from None
    root = data_dir.resolve()
    listed: dict[str, tuple[int, str]] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        m = _SUMS_LINE.fullmatch(line.rstrip("\r"))  # the path as written: a name may end in a space
        if not m:
            raise DataError(
                sums, where, None, f"malformed: {line[:80]!r} (expected '<64 hex digits>  <relative path>')"
            )
        name = m["path"]
        rel = PurePosixPath(name)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise DataError(
                sums, where, "path", f"{name!r} is not inside {data_dir} (expected a relative path without '..')"
            )
        try:
            inside = (root / rel).resolve().is_relative_to(root)
        except (OSError, RuntimeError, ValueError) as err:  # a symlink loop, a NUL byte
            raise DataError(sums, where, "path", f"{name!r} cannot be resolved ({err})") from None
        if not inside:
            raise DataError(sums, where, "path", f"{name!r} resolves outside {data_dir} (a symlink?)")
        key = rel.as_posix()
        if key in listed:
            raise DataError(sums, where, "path", f"{key!r} is listed twice: line {listed[key][0]} lists it too")
        listed[key] = (lineno, m["sha256"].lower())
    if not listed:
        raise DataError(sums, "-", None, "lists no files (expected one '<sha256>  <path>' line per data file)")
    return listed


def unlisted_files(data_dir: Path | str, listed: Container[str]) -> list[str]:
    """Files under `data_dir` not in `listed`, other than SHA256SUMS itself and a top-level README."""
    data_dir = Path(data_dir)
    out = []
    for p in data_dir.rglob("*"):
        rel = p.relative_to(data_dir).as_posix()
        top_level_readme = p.parent == data_dir and _README.fullmatch(p.name)
        if p.is_file() and rel not in listed and rel != SUMS_NAME and not top_level_readme:
            out.append(rel)
    return sorted(out)


def verify_checksums(data_dir: Path | str = DATA_DIR) -> int:
    """Check every file listed in `SHA256SUMS`; returns how many were verified.

    A bad manifest (see `read_checksums`), a missing, unreadable or changed file is a `DataError` (all
    mismatches at once, each with its line). Files present but not listed raise an `UnlistedDataWarning`:
    they are not wrong, but nothing vouches for them.
    """
    data_dir = Path(data_dir)
    listed = read_checksums(data_dir)
    extra = unlisted_files(data_dir, listed)
    if extra:
        warnings.warn(
            UnlistedDataWarning(
                f"{data_dir}: {len(extra)} file(s) not listed in {SUMS_NAME}, so not verified: "
                + ", ".join(name if name.isprintable() else repr(name) for name in extra)  # a newline split the line
            ),
            stacklevel=2,
        )
    problems: list[tuple[int, str]] = []
    for name, (lineno, expected) in listed.items():
        if (data_dir / name).exists() and not (data_dir / name).is_file():  # a pipe would wait for a writer
            problems.append((lineno, f"{name!r}: {not_a_file('a data file')}"))
            continue
        try:
            digest = file_sha256(data_dir / name)
        except FileNotFoundError:
            problems.append((lineno, f"{name!r}: missing"))
            continue
        except OSError as err:
            problems.append((lineno, f"{name!r}: unreadable ({err.strerror})"))
            continue
        if digest != expected:
            problems.append((lineno, f"{name!r}: checksum mismatch (expected {expected}, got {digest})"))
    if len(problems) == 1:  # one problem, one line
        raise DataError(data_dir / SUMS_NAME, f"line {problems[0][0]}", "path", problems[0][1])
    if problems:
        raise DataError(
            data_dir / SUMS_NAME,
            ", ".join(f"line {n}" for n, _ in problems),
            "path",
            f"{len(problems)} of {len(listed)} listed files do not match:\n  "
            + "\n  ".join(f"line {n}: {p}" for n, p in problems),
        )
    return len(listed)


# --------------------------------------------------------------------------- the DVC remote


class RemoteError(NamedError, RuntimeError):
    """The DVC configuration names no usable default remote, or its folder is not there."""


def dvc_remote(root: Path | str = ROOT) -> tuple[str, str, Path | None]:
    """(name, url, local folder or None for a non-local url) of the default DVC remote of `root`.

    Read as dvc reads it: `.dvc/config`, then `.dvc/config.local` over it; a relative url is relative
    to the `.dvc` folder (so `../../shared/dvc-remote` is `../shared/dvc-remote` from the root).
    """
    dvc_dir = Path(root) / ".dvc"
    if not (dvc_dir / "config").is_file():
        raise RemoteError(f"no DVC config: {dvc_dir / 'config'} is missing (is {root} the project root?)")
    config = configparser.ConfigParser(interpolation=None)
    try:
        config.read([dvc_dir / "config", dvc_dir / "config.local"], encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as err:
        raise RemoteError(f"{dvc_dir}: unreadable DVC config ({' '.join(str(err).split())})") from None
    name = config.get("core", "remote", fallback=None)
    files = [f for f in (dvc_dir / "config", dvc_dir / "config.local") if f.is_file()]
    named = " and ".join(str(f) for f in files)  # config.local may set what config does not
    if not name:
        raise RemoteError(f"{named}: no default remote ([core] remote = <name>)")
    sections = {m["name"]: s for s in config.sections() if (m := re.fullmatch(r"""'?remote\s+"(?P<name>.+)"'?""", s))}
    url = config.get(sections[name], "url", fallback=None) if name in sections else None
    if not url:
        raise RemoteError(f"{named}: default remote {name!r} has no url")
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]+://", url):
        return name, url, None
    try:
        where = Path(url).expanduser()
    except RuntimeError:  # `~someone/...` for a user this machine does not have
        raise RemoteError(f"{named}: remote {name!r} url {url!r}: no such home folder") from None
    return name, url, Path(os.path.normpath(dvc_dir.resolve() / where))


def check_dvc_remote(root: Path | str = ROOT) -> str:
    """A one-line report on the default DVC remote; `RemoteError` if it is a local folder that is missing.

    `dvc pull -q` says nothing when the remote folder is absent, so `make data` asks here first.
    """
    name, url, folder = dvc_remote(root)
    if folder is None:
        return f"DVC remote {name!r} is {url} (not a local folder: dvc checks it)"
    shown = os.path.relpath(folder, Path(root).resolve())
    if folder.exists() and not folder.is_dir():  # a file there was "not found: put the shared data folder"
        raise RemoteError(f"DVC remote {shown} is a file, not a folder (remote {name!r}, url {url!r}): fix the url")
    if not folder.is_dir():
        raise RemoteError(
            f"DVC remote {shown} not found: put the shared data folder beside the clone "
            f"(expected {folder}; remote {name!r}, url {url!r} in .dvc/config)"
        )
    return f"DVC remote {shown} found ({folder})"


# --------------------------------------------------------------------------- command line

USAGE = "usage: python -m lib.data verify [DATA_DIR] | python -m lib.data remote-check [REPO_ROOT]"


def main(argv: list[str] | None = None) -> int:
    """`verify`: data/ against SHA256SUMS; `remote-check`: the DVC remote folder. 0 ok, 1 failed, 2 usage."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["-h"], ["--help"]) or args[1:] in (["-h"], ["--help"]):  # asked for: the usage, status 0
        print(USAGE)
        return 0
    if not args or args[0] not in ("verify", "remote-check") or len(args) > 2:
        print(f"error: {USAGE}", file=sys.stderr)
        return 2
    if len(args) == 2 and not args[1].strip():  # an unset variable: it checked the current folder
        print(f"error: {args[0]}: an empty path; name a folder ({USAGE})", file=sys.stderr)
        return 2
    if args[0] == "remote-check":
        try:
            print(check_dvc_remote(args[1] if len(args) == 2 else ROOT))
        except RemoteError as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        return 0
    data_dir = Path(args[1]) if len(args) == 2 else DATA_DIR
    failure: DataError | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnlistedDataWarning)
        try:
            n = verify_checksums(data_dir)
        except DataError as err:
            failure = err
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if failure is not None:
        print(f"error: {failure}", file=sys.stderr)
        return 1
    print(f"{data_dir}: {n} files match {SUMS_NAME}")
    return 0


if __name__ == "__main__":
    run_main(main)
