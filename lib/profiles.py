"""Smaller profiles of the study: the same code and stages on fewer claims and shorter training, run in a
workspace of their own so that their outputs never mix with the study's.

`make all PROFILE=classroom` runs `python -m lib.profiles prepare classroom`, then the usual pipeline
inside `workspaces/classroom/`. `prepare` writes that workspace from this checkout:
- the code, notebooks and `dvc.yaml` as they are (tracked and untracked files that git does not ignore);
- `data/` with fewer records where the profile says so (`data:`), every other file as it is;
- `params.yaml` with the profile's overrides (`params:`) and its `profile` section (name and note), so
  every executed notebook and the report index open with a banner saying which profile made them;
- a git repository of its own (`commit_workspace`: everything but what `.gitignore` leaves out, committed),
  so that `dvc exp run -S ...` works there as in the checkout, with its own DVC cache, `dvc.lock` and
  `outputs/`; `make all PROFILE=<name>` commits the built workspace, the baseline its experiments compare with.
Running it again updates the workspace and keeps its outputs, so `dvc repro` there reruns what changed.

`python -m lib.profiles compare <name>` sets the profile's tested calls beside the study's committed ones
(`compare_calls`): a smaller profile has less power, so many of the study's calls are not made there, but a
call made in the opposite direction, or only in the profile, is one its notebooks print that the study does
not support.

A profile file, `profiles/<name>.yaml`:
- `note`: one or two sentences on how the profile differs from the study (the banner's text);
- `data`: records kept per data file, relative to `data/` (a folder: each file in it). A file whose
  records all carry an integer `claim_id` keeps the records of claims 0..n-1 (each must be there); any other keeps its first
  n records (AVeriTeC claim ids are positions in the split's file, so both keep the same claims); only
  JSON and JSON-lines files can be cut (a CSV or text file, or a folder holding one, is refused);
- `params`: overrides of `params.yaml`, nested as there; every key must exist there (a typo is an error);
- `synthetic_store` (optional): `claims`, `pages`, `sentences`, `seed` and `gold` of a synthetic knowledge
  store (`lib.retrieval.per_claim.synthesise`, sentences drawn from the workspace's pooled documents, `gold`:
  each claim's gold answers on pages of their source URLs) written at the workspace's
  `store.knowledge_store.path`, for a profile that sets `store.source: knowledge_store`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from io import StringIO
from pathlib import Path
from typing import Any

import pandas as pd
from ruamel.yaml import YAML

from lib import outputs as OUT
from lib import timing as TM
from lib.cli import CLEANUPS, ArgumentParser, NamedError, run_main
from lib.data import DataError, averitec, iter_json_records
from lib.evaluation.comparisons import BORDERLINE
from lib.evaluation.significance import sign_of
from lib.params import SECTIONS, PosFloat, flag_of, read_yaml
from lib.paths import ROOT
from lib.reproduction import machine_kind
from lib.retrieval import per_claim as K
from lib.schema import check as check_params
from lib.site import reports as RP
from lib.site.catalogue import read_json_file
from lib.site.course import try_it_times_path, try_it_variations
from lib.store import build as S

PROFILES_DIR = ROOT / "profiles"
# Kept in a workspace across `prepare` runs: what its pipeline made, and the data (rewritten only where
# its content changes, so DVC sees unchanged files as unchanged).
KEPT = ("outputs", "reports", "data", ".dvc", "dvc.lock", ".git/", "try_it")  # .git/: the workspace's own repository;
# try_it/ and try_it.json: the record of `python -m lib.profiles try-it` (git-ignored)
# Not copied from this checkout: the study's lock and numbers, its data pointer, other workspaces.
NOT_COPIED = ("workspaces/", "outputs/", "dvc.lock", "data.dvc")


class ProfileError(NamedError, ValueError):
    """A profile file that cannot be applied: names the file and the key."""


PROFILE_NAME = r"[a-z][a-z0-9_-]*"  # a file of profiles/ and a folder of workspaces/: never `..` or a path


def profile_name(text: str) -> str:
    """An argparse `type` for every subcommand's profile: `commit ..` committed the study's own checkout."""
    if not re.fullmatch(PROFILE_NAME, text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected a profile's name (lower-case letters, digits, _ or -), e.g. classroom"
        )
    path = PROFILES_DIR / f"{text}.yaml"
    if path.exists() and not path.is_file():  # a folder or a pipe was "no profile ... (there: [..., 'zdir'])"
        raise argparse.ArgumentTypeError(f"{text!r}: {PROFILES_DIR.name}/{text}.yaml is not a regular file")
    if not path.is_file():  # `estimate nosuch` said "run make all PROFILE=nosuch"
        known = sorted(p.stem for p in PROFILES_DIR.glob("*.yaml") if p.is_file())
        raise argparse.ArgumentTypeError(f"{text!r}: no profile {PROFILES_DIR.name}/{text}.yaml (there: {known})")
    return text


def load_profile(name: str, profiles_dir: Path | str = PROFILES_DIR) -> dict[str, Any]:
    """`profiles/<name>.yaml`, checked: a note, record counts that are positive integers, a params mapping."""

    if not re.fullmatch(PROFILE_NAME, name):
        raise ProfileError(f"profile name {name!r}: expected lower-case letters, digits, _ or - (a file in profiles/)")
    path = Path(profiles_dir) / f"{name}.yaml"
    if name == "study":
        raise ProfileError("'study' is params.yaml itself: run `make all` without PROFILE")
    if not path.exists():
        known = sorted(p.stem for p in Path(profiles_dir).glob("*.yaml"))
        raise ProfileError(f"{path}: no such profile (profiles: {', '.join(known) or 'none'})")
    raw = read_yaml(path)  # the params' reader: bounded, a key written twice or a bad byte named in one line
    if not isinstance(raw, dict):
        raise ProfileError(f"{path}: expected a mapping with note, data and params")
    unknown = sorted(set(raw) - {"note", "data", "params", "synthetic_store"})
    if unknown:
        raise ProfileError(f"{path}: unknown keys {unknown} (expected note, data, params, synthetic_store)")
    if not isinstance(raw.get("note"), str) or not raw["note"].strip():
        raise ProfileError(f"{path}: note: expected a sentence saying how the profile differs from the study")
    # only null or absent is "none": `data: false`, `0`, `''` or `[]` was read as no cut, the whole study's data
    data = {} if raw.get("data") is None else raw["data"]
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: data: expected a mapping of data files to numbers of records, got {data!r}")
    for file, n in data.items():
        if not isinstance(file, str) or not file.strip():  # `2025:` or `null:` reached Path() as a traceback
            raise ProfileError(f"{path}: data.{file}: expected a path under data/ (text), got {file!r}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ProfileError(f"{path}: data.{file}: expected a number of records >= 1, got {n!r}")
    params = {} if raw.get("params") is None else raw["params"]
    if not isinstance(params, dict):
        raise ProfileError(f"{path}: params: expected a mapping of params.yaml sections, got {params!r}")
    synthetic = raw.get("synthetic_store")
    if synthetic is not None:
        keys = {"claims": 1, "pages": 1, "sentences": 1, "seed": 0}
        if not isinstance(synthetic, dict) or set(synthetic) != {*keys, "gold"}:
            raise ProfileError(f"{path}: synthetic_store: expected exactly the keys {sorted({*keys, 'gold'})}")
        for key, least in keys.items():
            n = synthetic[key]
            if isinstance(n, bool) or not isinstance(n, int) or n < least:
                raise ProfileError(f"{path}: synthetic_store.{key}: expected an integer >= {least}, got {n!r}")
        if not isinstance(synthetic["gold"], bool):
            raise ProfileError(f"{path}: synthetic_store.gold: expected true or false, got {synthetic['gold']!r}")
        at = ("synthetic_store.claims", "pages", "sentences")  # `pages: 1000000000` wrote 68 GB before it was stopped
        if too_big := K.synth_size_problem(synthetic["claims"], synthetic["pages"], synthetic["sentences"], at):
            raise ProfileError(f"{path}: {too_big}")
    return {
        "name": name,
        "path": path,
        "note": " ".join(raw["note"].split()),
        "data": data,
        "params": params,
        "synthetic_store": synthetic,
    }


def write_synthetic_store(work: Path, spec: Mapping[str, Any], store_params: Mapping[str, Any]) -> Path:
    """The profile's synthetic knowledge store at the workspace's `store.knowledge_store.path`: sentences
    drawn from the pooled store of the workspace's data (built here as stage `store` builds it with
    `source: pooled`), the gold evidence of the workspace's dev claims when `gold`."""

    params = {**store_params, "source": "pooled"}
    pooled = S.build_store(S.StoreSettings.model_validate(params), work / "data")
    out = work / store_params["knowledge_store"]["path"]
    dev = averitec.load_averitec("dev", work / "data" / "averitec" / "dev.json")[: spec["claims"]]
    gold = K.gold_evidence(dev) if spec["gold"] else None
    K.synthesise(
        out, K.source_texts(pooled.docs["text"]), spec["claims"], spec["pages"], spec["sentences"], spec["seed"], gold
    )
    return out


def merge(base: Any, override: Mapping[str, Any], where: str = "") -> None:
    """Write `override` into the mapping `base` in place, recursively; lists and scalars are replaced.
    A key that `base` lacks is an error (a misspelt override would otherwise change nothing)."""
    for key, value in override.items():
        at = f"{where}.{key}" if where else str(key)
        if key not in base:
            raise ProfileError(f"params.{at}: no such key in params.yaml")
        if isinstance(value, Mapping):
            if not isinstance(base[key], Mapping):
                raise ProfileError(f"params.{at}: params.yaml has a single value here, not a mapping")
            merge(base[key], value, at)
        else:
            base[key] = value


def subset(path: Path, n: int, whole: bool = True) -> str:
    """The text of a JSON-list or JSON-lines file with the records of claims 0..n-1 (by `claim_id` where
    every record has one, else the first n records), in the same format. A count past the file is an
    error when the profile names the file itself (`whole`); a count for a folder applies to each of its
    files as far as it goes (the systems' two-claim sample among them)."""
    try:  # read as the study reads it (`lib.data`): a byte-order mark skipped, lines ended only by \n, \r\n or
        # \r (splitlines() also broke a record at a U+2028 inside its text), bytes that are no UTF-8 named
        records = [r for _, r in iter_json_records(path)]
    except DataError as err:
        raise ProfileError(f"{path}: cannot keep {n} records: {err.problem}") from None
    with open(path, encoding="utf-8-sig", errors="replace") as f:  # the format to write back: the file's own
        lines = path.suffix == ".jsonl" or next((c for c in iter(lambda: f.read(1), "") if not c.isspace()), "") != "["
    if n < 1:  # a count of 0 or -1 kept nothing without a word (the profile loader refuses it too)
        raise ProfileError(f"{path}: cannot keep {n} records: expected a count of at least 1")
    by_id = all(isinstance(r, dict) and type(r.get("claim_id")) is int for r in records)
    if by_id and (negative := next((r["claim_id"] for r in records if r["claim_id"] < 0), None)) is not None:
        # kept by "claim_id < n" whatever the count (a count of 0 kept claim -1)
        raise ProfileError(f"{path}: claim id {negative}: claim ids are positions in a split, 0 or more")
    held = max((r["claim_id"] + 1 for r in records), default=0) if by_id else len(records)
    if whole and n > held:  # the profile would say n claims and hold the whole file
        what = f"claims 0 to {held - 1}" if by_id and held else f"{held} records"
        raise ProfileError(f"{path}: cannot keep {n} records: it holds {what}; lower the profile's count")
    kept = [r for r in records if r["claim_id"] < n] if by_id else records[:n]
    if whole and by_id and (missing := _missing_ids({r["claim_id"] for r in kept}, n)):
        # ids 0, 5, 10 and a count of 3 kept one claim where the profile says three
        absent = n - len({r["claim_id"] for r in kept})  # every id below n that no record holds
        shown = ", ".join(map(str, missing[:5])) + (f" and {absent - 5} more" if absent > 5 else "")
        raise ProfileError(f"{path}: cannot keep claims 0 to {n - 1}: it has no record of claim {shown}")
    if lines:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept)
    return json.dumps(kept, ensure_ascii=False, indent=1) + "\n"


def _missing_ids(present: set[int], n: int, shown: int = 6) -> list[int]:
    """Up to `shown` of the ids 0..n-1 absent from `present` (ids below n), found in memory bounded by the file:
    `set(range(n))` took gigabytes for a count of 200 million against a 44-byte file."""
    if len(present) >= n:
        return []
    missing, i = [], 0
    while len(missing) < shown and i < n:
        if i not in present:
            missing.append(i)
        i += 1
    return missing


def _write(path: Path, content: bytes) -> None:
    """Write only when the content changes (file times stay put for unchanged files)."""
    if not path.exists() or path.read_bytes() != content:
        OUT.write_bytes(path, content)


def cut_checksums(sums: str, files: Mapping[str, bytes]) -> bytes:
    """`data/SHA256SUMS` with the hash of each file of `files` (path under data/ -> its cut content) replaced."""
    lines = []
    for line in sums.splitlines(keepends=True):
        digest, sep, name = line.partition("  ")
        if sep and name.rstrip("\r\n") in files:
            line = hashlib.sha256(files[name.rstrip("\r\n")]).hexdigest() + sep + name
        lines.append(line)
    return "".join(lines).encode()


def checkout_files(root: Path = ROOT) -> list[str]:
    """The checkout's files that a workspace copies: tracked and untracked files that git does not ignore."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            check=True,
            capture_output=True,
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError) as err:
        raise ProfileError(
            f"{root}: a profile workspace is copied from a git checkout, and git failed: {err}"
        ) from None
    return sorted(f for f in set(out.split("\0")) if f and not f.startswith(NOT_COPIED) and (root / f).is_file())


def prepare(name: str, root: Path = ROOT, profiles_dir: Path | str | None = None) -> Path:
    """Write (or update) `workspaces/<name>/` for profile `name`; returns its path."""

    profile = load_profile(name, profiles_dir or root / "profiles")
    work = root / "workspaces" / name
    # everything the profile asks is checked before anything is written: a profile with a typo left a
    # half-made workspace, or rewrote an existing workspace's params with the study's
    data = root / "data"
    if not data.is_dir():
        raise ProfileError(f"{data} is missing: run `make data` first")
    counts, spelt = {}, {}  # normalised key -> the profile's own spelling, for the messages
    for given, n in profile["data"].items():  # `averitec/../averitec/dev.json` is dev.json: checked, then never applied
        key = os.path.normpath(Path(given).as_posix().strip("/")).replace(os.sep, "/")
        if key in (".", "..") or key.startswith("../") or not (data / key).exists():
            raise ProfileError(f"{profile['path']}: data.{given}: no such file or folder in {data}")
        if key == "SHA256SUMS":  # it was dropped silently: the workspace's checksums follow the files cut
            raise ProfileError(f"{profile['path']}: data.{given}: the checksums are no records to keep; leave it out")
        if other := next(
            (k for k in counts if key == k or (key + "/").startswith(k + "/") or k.startswith(key + "/")), None
        ):
            raise ProfileError(  # the first key would win over the file's own: say which one is meant
                f"{profile['path']}: data.{spelt[other]} and data.{given} name the same files; give each file one count"
            )
        counts[key], spelt[key] = n, given
    yaml = YAML()  # round trip: comments, quotes ("off" stays a string) and null kept as written
    yaml.width = 4096
    yaml.preserve_quotes = True
    yaml.representer.add_representer(type(None), lambda r, _: r.represent_scalar("tag:yaml.org,2002:null", "null"))
    params = yaml.load((root / "params.yaml").read_text())
    if isinstance(profile["params"], dict) and "profile" in profile["params"]:  # set from the profile's own
        raise ProfileError(  # name and note below: a value given here was replaced without a word
            f"{profile['path']}: params.profile: set by the profile's file name and its `note`; leave it out"
        )
    try:
        merge(params, profile["params"])
    except ProfileError as err:  # "params.qgen.epochz: no such key" named no file (the forty-third pass)
        raise ProfileError(f"{profile['path']}: {err}") from None
    params["profile"]["name"] = name
    params["profile"]["note"] = profile["note"]
    text = StringIO()
    yaml.dump(params, text)
    with tempfile.TemporaryDirectory() as scratch:  # the merged file checked as `python -m lib.schema check` does
        merged = Path(scratch) / "params.yaml"
        merged.write_text(text.getvalue(), encoding="utf-8")
        raw = read_yaml(merged)
        if isinstance(raw, dict) and set(SECTIONS) <= set(raw):  # the study's file (a test's sketch has less)
            check_params(raw, f"{profile['path']} (merged into params.yaml)")

    subsets = {}  # every file the profile cuts, cut before anything is written (a file that cannot be is named)
    for path in sorted(p for p in data.rglob("*") if p.is_file()):
        rel = path.relative_to(data).as_posix()
        given = next((k for k in counts if rel == k or rel.startswith(k + "/")), None)
        if given is not None and rel != "SHA256SUMS":
            try:
                subsets[rel] = subset(path, counts[given], whole=rel == given).encode()
            except ProfileError as err:  # named with the key to change (a folder's count reaches files unnamed)
                raise ProfileError(
                    f"{profile['path']}: data.{given}: {err} (only JSON and JSON-lines files can be cut; give the "
                    "JSON files inside a folder their own counts)"
                ) from None
    if subsets and (data / "SHA256SUMS").is_file():  # `lib.data verify` in the workspace checks its own files
        try:
            sums = (data / "SHA256SUMS").read_text(encoding="utf-8")
        except UnicodeDecodeError as err:  # a traceback; `lib.data verify` names it
            raise ProfileError(f"{data / 'SHA256SUMS'}: not UTF-8 text (byte {err.start:,}: {err.reason})") from None
        subsets["SHA256SUMS"] = cut_checksums(sums, subsets)

    def fill(target: Path) -> None:
        files = checkout_files(root)
        wanted = set(files)
        if target.exists():  # files this checkout no longer has
            for path in sorted(target.rglob("*")):
                rel = path.relative_to(target).as_posix()
                if path.is_file() and not rel.startswith(KEPT) and rel not in wanted:
                    path.unlink()
        for rel in files:
            _write(target / rel, (root / rel).read_bytes())
        for path in sorted(p for p in data.rglob("*") if p.is_file()):
            rel = path.relative_to(data).as_posix()
            _write(target / "data" / rel, subsets[rel] if rel in subsets else path.read_bytes())
        _write(target / "params.yaml", text.getvalue().encode())
        if profile["synthetic_store"]:
            write_synthetic_store(target, profile["synthetic_store"], params["store"])
        local = target / ".dvc" / "config.local"
        if local.exists() and local.read_bytes() == NO_SCM:  # a workspace of an older checkout: DVC without git
            local.unlink()
        commit_workspace(target, f"prepare the {name} profile")

    if work.exists():  # updated in place: its outputs and experiments stay; a stop is said, with the cure
        again = f"the workspace {work} is partly updated: run `python -m lib.profiles prepare {name}` again"
        said = lambda: again  # noqa: E731 - one clean-up, removed below by identity
        CLEANUPS.append(said)
        try:
            fill(work)
        except OSError as err:  # a full disk, a file made read-only
            raise ProfileError(f"{err.filename or work}: {err.strerror or err}; {again}") from None
        except NamedError as err:  # found once files were written (the synthetic store's data, a git failure)
            raise ProfileError(f"{err}; {again}") from None
        finally:
            CLEANUPS.remove(said)
    else:  # a new workspace is made beside and renamed into place whole: a stop leaves none, not half of one
        made = None
        try:
            with OUT.atomic_dir(work) as tmp:
                made = tmp
                fill(tmp)
        except NamedError as err:  # its paths named where the workspace was to be (the folder is gone)
            message = str(err).replace(str(made), str(work)) if made else str(err)
            raise ProfileError(f"{message}; no workspace was made") from None
    return work


NO_SCM = b"[core]\n    no_scm = true\n"


def commit_workspace(work: Path, message: str) -> bool:
    """Commit everything the workspace holds (what its `.gitignore` leaves out aside), starting its git
    repository the first time: `dvc exp run` needs one, and the commit is the baseline its experiments are
    compared with. Returns whether there was anything to commit."""

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=work, check=True, capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as err:
            detail = getattr(err, "stderr", "") or err
            raise ProfileError(f"{work}: git {' '.join(args)} failed: {detail}") from None

    if not (work / ".git").exists():
        git("init", "-q")
        git("config", "user.name", "study workspace")
        git("config", "user.email", "workspace@localhost")
        git("config", "commit.gpgsign", "false")
    git("add", "-A")
    if not git("status", "--porcelain").strip():
        return False
    git("commit", "-q", "-m", message)
    return True


# --------------------------------------------------------------------------- the notebooks' "Try it" variations

# Variations a workspace cannot run on a machine without network or accelerator, by the key that needs it.
NEEDS = {
    "llm.mode=live": 'an OpenAI-compatible LLM endpoint and its API key (README, "LLM endpoint")',
    "llm.mode=replay": "a live run's answers in the LLM cache (without them it stops, naming the answers it lacks)",
    "nli_averitec.classifier.model": "a model downloaded from a hub (offline here), and a GPU for roberta-large",
}
REFUSED = re.compile(r"^error: \S*params\.yaml", re.M)  # the params check's one line (lib.cli.run_main)


def needs(sets: tuple[str, ...]) -> str | None:
    """What a variation needs that this machine lacks (network, an API key, a GPU), or None."""
    for s in sets:
        for key, what in NEEDS.items():
            if s == key or s.startswith(key + "="):
                return what
    return None


def outcome(returncode: int, log: str) -> str:
    """`ran` (exit 0), `refused` (the params check stopped it, with the key and what to set) or `failed`."""
    if returncode == 0:
        return "ran"
    return "refused" if REFUSED.search(log) else "failed"


def _run(args: list[str], work: Path, log: Path | None = None) -> int:
    """A command's exit status in the workspace; its output to `log` (or nowhere)."""
    if log is None:
        return subprocess.run(args, cwd=work, capture_output=True, check=False).returncode
    with log.open("w") as out:
        return subprocess.run(args, cwd=work, stdout=out, stderr=subprocess.STDOUT, check=False).returncode


# What an experiment rewrites that neither git nor DVC restores: the rendered reports, and the stages' timing
# files (`profiles estimate` summed an experiment's times as the build's)
UNTRACKED = ("reports", "outputs/timings")


def keep_untracked(work: Path) -> Path:
    """A copy of the workspace's `UNTRACKED` folders, in a new folder under its `.dvc/tmp`, for `restore`."""
    kept = Path(tempfile.mkdtemp(prefix="kept-", dir=work / ".dvc" / "tmp"))
    for rel in UNTRACKED:
        if (work / rel).is_dir():
            shutil.copytree(work / rel, kept / rel)
    return kept


def restore(work: Path, kept: Path | None) -> None:
    """The workspace as committed after an experiment: tracked files from git (params, lock, metrics,
    notebooks), cached outputs from DVC's cache, and the `UNTRACKED` folders from their copies in `kept`
    (`keep_untracked`; a folder that was not there before is removed)."""
    # What an experiment writes (params, lock, the git-tracked outputs) is deleted, then checked out: git
    # trusts file sizes and times, and `-S` may rewrite params.yaml with a value of the same length within
    # the second of the last restore, which `git checkout` would then leave as it is.
    tracked = subprocess.run(
        ["git", "ls-files", "-z", "--", "params.yaml", "dvc.lock", "outputs"], cwd=work, capture_output=True, text=True
    ).stdout
    for rel in filter(None, tracked.split("\0")):
        (work / rel).unlink(missing_ok=True)
    git = (["git", "reset", "-q"], ["git", "checkout", "--", "."])
    if any(_run(args, work) for args in git) or _run(["dvc", "checkout", "--force", "-q"], work):
        raise ProfileError(f"{work}: could not restore the workspace after an experiment (git checkout, dvc checkout)")
    if kept is not None:
        for rel in UNTRACKED:
            shutil.rmtree(work / rel, ignore_errors=True)
            if (kept / rel).is_dir():
                shutil.copytree(kept / rel, work / rel)


def _paths(entries: Any) -> list[str]:
    """The paths of a stage's `deps` or `outs` entries (a string, or a mapping whose key is the path)."""
    return [str(next(iter(e))) if isinstance(e, Mapping) else str(e) for e in entries or []]


def stages_to_rerun(sets: tuple[str, ...], dvc_yaml: Path) -> list[str]:
    """The stages a variation reruns, in `dvc.yaml` order: those that declare a key it sets, and every stage
    downstream of them (a dep equal to, or inside, an out of a stage that reruns), wherever they are listed."""
    stages = YAML(typ="safe").load(dvc_yaml.read_text())["stages"]
    keys = [s.partition("=")[0] for s in sets]

    def reads(stage: Mapping[str, Any]) -> bool:
        declared = [p for p in stage.get("params", []) if isinstance(p, str)]
        return any(k == d or k.startswith(d + ".") or d.startswith(k + ".") for k in keys for d in declared)

    rerun: set[str] = {name for name, stage in stages.items() if reads(stage)}
    grew = True
    while grew:  # to a fixed point: dvc.yaml need not list a stage after the stages it depends on
        outs = [o for name in rerun for key in ("outs", "metrics", "plots") for o in _paths(stages[name].get(key))]
        more = {
            name
            for name, stage in stages.items()
            if name not in rerun
            and any(d == o or d.startswith(o.rstrip("/") + "/") for d in _paths(stage.get("deps")) for o in outs)
        }
        rerun |= more
        grew = bool(more)
    return [name for name in stages if name in rerun]


def try_variations(
    name: str, only: Sequence[str] = (), budget_s: float | None = None, root: Path = ROOT
) -> list[dict[str, Any]]:
    """Run each "Try it" variation of the notebooks (`lib.site.course.try_it_variations`) in the profile's
    workspace with `dvc exp run -S ...`, one after the other, timing each; the workspace is restored after
    each, so every variation starts from the committed profile. Those that rerun fewer stages run first
    (`stages_to_rerun`), so a budget leaves out the costliest. `only`: variations whose command contains
    one of these texts; `budget_s`: variations left once that many seconds have passed are recorded as not
    run. The record, `try_it.json` in the workspace, is rewritten whole after each variation."""
    work = root / "workspaces" / name
    if not (work / ".git").exists() or not (work / "dvc.lock").exists():
        raise ProfileError(f"{work}: no built workspace; run `make all PROFILE={name}` first")
    status = subprocess.run(["dvc", "status", "-q"], cwd=work, capture_output=True, text=True, check=False)
    if status.returncode or status.stdout.strip():
        raise ProfileError(
            f"{work}: its pipeline is not up to date (`dvc status`); run `make all PROFILE={name}` first"
        )
    logs = work / "try_it"
    logs.mkdir(exist_ok=True)
    backup = keep_untracked(work)
    results, started = [], time.monotonic()

    def stopped() -> str:  # a signal mid-variation: the workspace held the experiment's params and outputs
        try:
            restore(work, backup)
        except (ProfileError, OSError) as err:
            return f"{err}; the committed reports and timings are kept in {backup}"
        shutil.rmtree(backup, ignore_errors=True)
        return f"the workspace {work} is restored as committed"

    CLEANUPS.append(stopped)
    restored = True  # a failed restore keeps the copy, as a signal does: it is the only one left
    try:
        variations = list(enumerate(try_it_variations(work / "notebooks"), 1))
        variations.sort(key=lambda iv: len(stages_to_rerun(iv[1].sets, work / "dvc.yaml")))
        for i, v in variations:
            if only and not any(text in v.command for text in only):
                continue
            row = {"n": i, "notebook": v.notebook, "command": v.command, "sets": list(v.sets)}
            lacking = needs(v.sets)
            if lacking:
                results.append({**row, "outcome": "not run", "why": f"needs {lacking}"})
                continue
            if budget_s is not None and time.monotonic() - started > budget_s:
                results.append({**row, "outcome": "not run", "why": f"past the budget of {budget_s:.0f} s"})
                continue
            log = logs / f"{i:02d}_{v.notebook}.log"
            t0 = time.monotonic()
            rc = _run(["dvc", "exp", "run", *(a for s in v.sets for a in ("-S", s))], work, log)
            seconds = round(time.monotonic() - t0, 1)
            text = log.read_text(errors="replace")
            stages = re.findall(r"^Running stage '([^']+)'", text, re.M)
            results.append({**row, "outcome": outcome(rc, text), "seconds": seconds, "stages": stages, "log": log.name})
            restored = False
            try:
                restore(work, backup)
            except (ProfileError, OSError) as err:
                raise ProfileError(f"{err}; the committed reports and timings are kept in {backup}") from err
            restored = True
            print(
                f"{v.notebook}: {v.command}: {results[-1]['outcome']} in {seconds:.0f} s ({len(stages)} stages)",
                flush=True,
            )
            _record(work, name, results)
    finally:
        CLEANUPS.remove(stopped)
        if restored:
            shutil.rmtree(backup, ignore_errors=True)
    return _record(work, name, results)


def _record(work: Path, name: str, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sort the results in the notebooks' order and write `try_it.json` whole (a temporary file renamed)."""
    results.sort(key=lambda r: r["n"])
    RP.write_metrics({"profile": name, "cpu": machine_kind()["cpu"], "variations": results}, work / "try_it.json")
    return results


def estimate_variations(name: str, root: Path = ROOT) -> dict[str, Any]:
    """What each "Try it" variation costs in the profile's workspace, from the stage times its last build
    measured (`outputs/timings` of `make all PROFILE=<name>`): the stages the variation reruns
    (`stages_to_rerun`) and the sum of their measured seconds. A variation that needs what the machine lacks
    (network, an API key, a GPU) says so instead; a stage the build did not time is listed as `untimed`."""
    work = root / "workspaces" / name
    timings = TM.read(work / "outputs" / "timings")
    if not timings or not (work / "dvc.yaml").exists():
        raise ProfileError(f"{work}: no stage timings; run `make all PROFILE={name}` first")
    here = machine_kind()["cpu"]  # for a timing file older than the `hardware` it records now
    rows = []
    for v in try_it_variations(work / "notebooks"):
        row: dict[str, Any] = {"notebook": v.notebook, "command": v.command}
        lacking = needs(v.sets)
        if lacking:
            rows.append({**row, "needs": lacking})
            continue
        stages = stages_to_rerun(v.sets, work / "dvc.yaml")
        seconds = sum(timings[s]["seconds"] for s in stages if s in timings)
        row.update(stages=stages, minutes=round(seconds / 60, 1))
        untimed = [s for s in stages if s not in timings]
        rows.append({**row, "untimed": untimed} if untimed else row)
    return {
        "profile": name,
        # the CPU that measured the times (each timing file names its machine), not the one running this
        "cpu": " / ".join(sorted({t.get("hardware", {}).get("cpu") or here for t in timings.values()})),
        "cores": sorted({t["cpus"] for t in timings.values()}),
        "built": max(t["finished"] for t in timings.values())[:10],
        "how": (
            "the sum of the measured wall times of the stages the variation reruns, in the profile's last build; "
            "a variation that adds work (more seeds, more candidates) takes longer"
        ),
        "variations": rows,
    }


def variations_table(results: list[dict[str, Any]]) -> str:
    """The results as a Markdown table: notebook, variation, outcome, minutes, stages rerun."""
    lines = ["| notebook | variation | outcome | minutes | stages rerun |", "|---|---|---|---|---|"]
    for r in results:
        minutes = f"{r['seconds'] / 60:.1f}" if "seconds" in r else ""
        what = r.get("why") or (", ".join(r.get("stages", [])) or "none")
        lines.append(f"| {r['notebook'][:2]} | `{r['command']}` | {r['outcome']} | {minutes} | {what} |")
    return "\n".join(lines)


# --------------------------------------------------------------------------- a profile's calls against the study's

POSITIVE, NEGATIVE, NO_CALL = sign_of(1, 2), sign_of(-2, -1), sign_of(-1, 1)  # the words of a tested sign
KINDS = ("opposite", "profile only", "different group", "study only")  # most serious first


def calls(metrics: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """The tested calls of a metrics file, as (key path, call): a sign (`positive`, `negative` or
    `indistinguishable from 0`), a significance flag `significant` (its direction read from a sibling
    `delta_*` value where there is one, else True), a flag under a key naming significance, and a group of
    methods (a list of names under a key naming a group, as a set), and the sign of an interval (`low`,
    `high`) of an effect (`INTERVAL_OF`: a correlation or a difference) that states no call in words
    (notebook 09's Spearman intervals: a profile that reversed them was said to agree). A `borderline`
    interval (`lib.evaluation.comparisons.BORDERLINE`) makes no call. Everything else is not a call."""
    if isinstance(metrics, Mapping) and (sign := _interval_call(metrics)) is not None:
        yield "/".join(path), sign
        return
    if isinstance(metrics, Mapping):
        delta = next(
            (v for k, v in metrics.items() if str(k).startswith("delta") and isinstance(v, (int, float))), None
        )
        for k, v in metrics.items():
            key = (*path, str(k))
            if k == "significant" and isinstance(v, bool):
                yield "/".join(key), (POSITIVE if delta > 0 else NEGATIVE) if v and delta is not None else v or NO_CALL
            elif isinstance(v, bool) and any("significant" in part for part in path):
                yield "/".join(key), v or NO_CALL
            elif isinstance(v, list) and v and all(isinstance(x, str) for x in v) and any("group" in p for p in key):
                yield "/".join(key), frozenset(v)
            elif isinstance(v, str) and v in (POSITIVE, NEGATIVE, NO_CALL, BORDERLINE):
                yield "/".join(key), NO_CALL if v == BORDERLINE else v  # a borderline interval makes no call
            else:
                yield from calls(v, key)


INTERVAL_OF = ("rho", "mean Δ", "difference", "delta")  # an interval of one of these is a tested effect


def _interval_call(metrics: Mapping) -> str | None:
    """The call an effect's interval makes (excluding 0 above or below, or not), where the mapping holds one
    and no call in words beside it; else None."""
    low, high = metrics.get("low"), metrics.get("high")
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (low, high))
    worded = any(isinstance(v, str) and v in (POSITIVE, NEGATIVE, NO_CALL, BORDERLINE) for v in metrics.values())
    if not numbers or worded or not any(k in metrics for k in INTERVAL_OF):
        return None
    return sign_of(low, high)


def files_without_calls(study_dir: Path | str) -> list[str]:
    """The study's metrics files that hold no call (`calls`): `compare` says nothing of them."""
    return [p.name for p in sorted(Path(study_dir).glob("*.json")) if next(calls(read_json_file(p)), None) is None]


def call_kind(study: Any, profile: Any) -> str | None:
    """How a profile's call differs from the study's (`KINDS`), or None where they agree. A top group that
    ties more methods than the study's is a `different group` (less power); one that ties fewer separates
    methods the study cannot (`profile only`); one that is neither (another best) is `opposite`."""
    if study == profile:
        return None
    if isinstance(study, frozenset) != isinstance(profile, frozenset):  # a group against a worded call
        return "opposite"
    if isinstance(study, frozenset):  # the best and the methods tied with it
        # more methods tied in the profile is less power; fewer separates some the study cannot
        if profile >= study:
            return "different group"
        return "profile only" if profile <= study else "opposite"
    if study == NO_CALL:
        return "profile only"
    if profile == NO_CALL:
        return "study only"
    return "opposite"


def _shared_calls(study_dir: Path | str, profile_dir: Path | str) -> Iterator[tuple[str, str, Any, Any]]:
    """(file, key, study's call, profile's call) for every call both sides' metrics files hold."""
    for path in sorted(Path(study_dir).glob("*.json")):
        other = Path(profile_dir) / path.name
        if not other.exists():
            continue
        here = dict(calls(read_json_file(other)))  # a damaged file: one line, not a traceback
        for key, value in calls(read_json_file(path)):
            if key in here:
                yield path.name, key, value, here[key]


def compare_calls(study_dir: Path | str, profile_dir: Path | str) -> pd.DataFrame:
    """Every call of the profile's metrics files that differs from the study's (one row each: file, key,
    study, profile, kind), most serious kind first; calls only one side holds are left out."""
    show = lambda v: ", ".join(sorted(v)) if isinstance(v, frozenset) else v  # noqa: E731
    rows = [
        {"file": name, "key": key, "study": show(value), "profile": show(theirs), "kind": kind}
        for name, key, value, theirs in _shared_calls(study_dir, profile_dir)
        if (kind := call_kind(value, theirs)) is not None
    ]
    out = pd.DataFrame(rows, columns=["file", "key", "study", "profile", "kind"])
    order = out["kind"].map({k: i for i, k in enumerate(KINDS)}) if len(out) else pd.Series(dtype=float)
    return (
        out.assign(_o=order).sort_values(["_o", "file", "key"], kind="stable").drop(columns="_o").reset_index(drop=True)
    )


def compare_sentence(diff: pd.DataFrame, total: int, name: str) -> str:
    """What `compare_calls` found, in one sentence: how many of the `total` calls both sides hold differ, by kind."""
    counts = {k: int((diff["kind"] == k).sum()) for k in KINDS}
    if not len(diff):
        return f"All {total} calls that both the study and the {name} profile make agree."
    parts = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    worry = counts["opposite"] + counts["profile only"]
    tail = (
        f" {worry} {'is a call' if worry == 1 else 'are calls'} the {name} profile's notebooks print that the study "
        "does not support."
        if worry
        else f" None reverses the study's: the {name} profile only makes fewer calls or names other groups."
    )
    return f"{len(diff)} of {total} calls differ from the study's ({parts}).{tail}"


def profile_lacks(study_dir: Path | str, profile_dir: Path | str) -> list[str]:
    """The study's metrics files that hold calls and that the profile's workspace does not have."""
    return [
        p.name
        for p in sorted(Path(study_dir).glob("*.json"))
        if not (Path(profile_dir) / p.name).exists() and next(calls(read_json_file(p)), None) is not None
    ]


def undirected_calls(study_dir: Path | str, profile_dir: Path | str) -> int:
    """How many shared calls are significance flags without a direction on both sides (`True`: notebook 04's
    `significant_vs_baseline`): they agree on significance, and a reversed sign cannot be seen in them."""
    return sum(1 for _, _, a, b in _shared_calls(study_dir, profile_dir) if a is True and b is True)


def shared_calls(study_dir: Path | str, profile_dir: Path | str) -> int:
    """How many calls both the study's and the profile's metrics files hold (the denominator of `compare_sentence`)."""
    return sum(1 for _ in _shared_calls(study_dir, profile_dir))


def main(argv: list[str] | None = None) -> int | None:
    ap = ArgumentParser(
        prog="python -m lib.profiles", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    prep = sub.add_parser("prepare", help="write or update workspaces/<name> for a profile")
    prep.add_argument("name", type=profile_name, help="a profile of profiles/, e.g. classroom")
    keep = sub.add_parser("commit", help="commit a profile's workspace as it is (after its pipeline ran)")
    keep.add_argument("name", type=profile_name, help="a profile whose workspace exists")
    est = sub.add_parser(
        "estimate",
        help="each Try-it variation's minutes from the built workspace's stage times -> profiles/<name>.try_it.json",
    )
    est.add_argument("name", type=profile_name, help="a profile whose workspace has run (make all PROFILE=<name>)")
    comp = sub.add_parser("compare", help="the profile's tested calls that differ from the study's committed ones")
    comp.add_argument("name", type=profile_name, help="a profile whose workspace has run (make all PROFILE=<name>)")
    tries = sub.add_parser("try-it", help='run and time every "Try it" variation in a profile\'s workspace')
    tries.add_argument("name", type=profile_name, help="a profile whose workspace has run (make all PROFILE=<name>)")
    tries.add_argument(
        "--only", action="append", default=[], help="only the variations whose command contains this text (repeatable)"
    )
    tries.add_argument(
        "--budget-minutes", type=flag_of(PosFloat), help="record the variations left after this long as not run"
    )
    args = ap.parse_args(argv)
    if args.cmd == "try-it":
        budget = None if args.budget_minutes is None else args.budget_minutes * 60
        results = try_variations(args.name, args.only, budget)
        print(variations_table(results))
        failed = [r for r in results if r["outcome"] == "failed"]
        return 1 if failed else None
    if args.cmd == "estimate":
        written = OUT.write_json(
            try_it_times_path(args.name), estimate_variations(args.name), ensure_ascii=False, indent=1
        )
        print(f"{written.relative_to(ROOT)}: the Try-it variations' minutes from the {args.name} build's stage times")
        return
    if args.cmd == "commit":
        work = ROOT / "workspaces" / args.name
        if not (work / ".git").exists():
            raise SystemExit(f"error: {work}: no workspace; run `python -m lib.profiles prepare {args.name}` first")
        changed = commit_workspace(work, f"the {args.name} profile's pipeline outputs")
        print(f"{work.relative_to(ROOT)}: {'committed' if changed else 'nothing to commit'}")
        return
    if args.cmd == "compare":
        study, profile = ROOT / "outputs" / "metrics", ROOT / "workspaces" / args.name / "outputs" / "metrics"
        if not any(profile.glob("*.json")):
            raise SystemExit(f"error: {profile}: no metrics files; run `make all PROFILE={args.name}` first")
        diff = compare_calls(study, profile)
        with pd.option_context("display.max_rows", None, "display.width", 200, "display.max_colwidth", 80):
            print(diff.to_string(index=False) if len(diff) else "(no call differs)")
        print(compare_sentence(diff, shared_calls(study, profile), args.name))
        if blind := undirected_calls(study, profile):
            print(
                f"{blind} of these calls are significance flags without a direction (notebook 04's "
                "`significant_vs_baseline`): they agree on significance, not on its sign; compare the estimates beside them."
            )
        if silent := files_without_calls(study):
            print(f"Not compared (no tested call in them; compare their numbers yourself): {', '.join(silent)}")
        if missing := profile_lacks(study, profile):  # their calls were left out of "all N calls agree"
            print(
                f"Not compared (the {args.name} workspace has no such metrics file: a stage it did not run? run "
                f"`make all PROFILE={args.name}`): {', '.join(missing)}"
            )
        return
    try:
        work = prepare(args.name)
    except ProfileError as err:
        raise SystemExit(f"error: {err}") from None
    profile = load_profile(args.name)
    print(f"{work.relative_to(ROOT)}: profile {args.name}: {profile['note']}")


if __name__ == "__main__":
    run_main(main)
