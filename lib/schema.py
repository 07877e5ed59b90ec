"""The schema of the whole `params.yaml`: every section's model (each lives next to the code it
configures; `lib.params.SECTIONS` says where), checked together.

`python -m lib.schema check [FILE]` validates a params file and lists every problem with its dotted key
(`make` runs it first); a missing or unknown section is named, and so is a setting that disagrees with
another section it depends on (a model's `cross_check`, `lib.site.sections`). No stage imports this module: a stage
checks the sections it reads (`lib.params.section`), so editing one model reruns only its readers.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

from pydantic import create_model

from lib.cli import run_main, shown
from lib.params import SECTIONS, ParamsError, Section, missing_keys, read_params, read_yaml, section_model, validate
from lib.paths import PARAMS_FILE
from lib.planning.planners import POST_HOC_PREFIX


def params_model() -> type[Section]:
    """The whole file as one model: one required field per section, in `SECTIONS` order."""
    return create_model("Params", __base__=Section, **{name: (section_model(name), ...) for name in SECTIONS})


def check(raw: Any, path: Path | str = PARAMS_FILE) -> dict[str, Any]:
    """`raw` (a parsed params file) if every section matches its model; else `ParamsError` listing every problem."""
    if not isinstance(raw, dict):
        raise ParamsError(path, [f"expected a mapping of sections, got {type(raw).__name__}"])
    missing = [m for name in SECTIONS if name in raw for m in missing_keys(section_model(name), raw[name], name)]
    validate(params_model(), raw, path, (), missing)
    read = lambda name: section_model(name).model_validate(raw[name])  # noqa: E731
    crossed = [
        problem
        for name in SECTIONS
        if (cross := getattr(section_model(name), "cross_check", None))
        for problem in cross(raw[name], read)
    ]
    crossed += undefined_post_hoc(raw)
    if crossed:
        raise ParamsError(path, crossed)
    return raw


def undefined_post_hoc(raw: dict[str, Any]) -> list[str]:
    """Each entry `post_hoc_<name>` of a list in any section (but lists of systems) that `planners.post_hoc` does
    not define: no stage
    makes that plan (the planners command removes a file params no longer name), so a stage reading the list
    would fail on a missing plan late, or, before that removal, read a stale one as current."""
    defined = sorted(POST_HOC_PREFIX + name for name in (raw.get("planners") or {}).get("post_hoc") or {})
    problems: list[str] = []

    def walk(value: Any, key: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if "systems" not in str(k):  # published systems' names (`repeat_systems`), not plans
                    walk(v, f"{key}.{k}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, str) and item.startswith(POST_HOC_PREFIX) and item not in defined:
                    problems.append(
                        f"{key}[{i}]: {shown(item)} is not a plan planners.post_hoc defines (expected one of {defined})"
                    )
                else:
                    walk(item, f"{key}[{i}]")

    for name in SECTIONS:
        walk(raw.get(name), name)
    return problems


def load_params(path: Path | str = PARAMS_FILE) -> dict[str, Any]:
    """The whole parameter file as a dict (one section per stage), every section checked."""
    return copy.deepcopy(check(read_params(path), path))


def main(argv: list[str] | None = None) -> int:
    """`python -m lib.schema check [FILE]`: validate a params file; every problem with its dotted key."""
    args = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: python -m lib.schema check [FILE]"
    if args in (["-h"], ["--help"]) or args[1:] in (["-h"], ["--help"]):
        print(f"{usage}\n\n" + (main.__doc__ or ""))
        return 0
    if not args or args[0] != "check" or len(args) > 2:
        print(
            f"error: expected `check` and at most one file, got {shown(' '.join(args) or 'nothing', 80)} ({usage})",
            file=sys.stderr,
        )
        return 2
    if len(args) == 2 and not args[1].strip():  # an unset variable: it was read as the folder `.`
        print(f"error: check: an empty path; name a params file ({usage})", file=sys.stderr)
        return 2
    path = Path(args[1]) if len(args) == 2 else PARAMS_FILE
    try:
        check(read_yaml(path), path)
    except ParamsError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"{path}: ok ({len(SECTIONS)} sections)")
    return 0


if __name__ == "__main__":
    run_main(main)
