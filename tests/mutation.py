"""The mutation score of the study's instruments, from the last `mutmut run` (`make mutation`).

Reads mutmut's results and `tests/mutation_equivalents.txt` (the survivors that are equivalent, each with
its reason) and prints one row per module: mutants, killed, equivalent, other survivors, and the score,
killed / (mutants - equivalent). Exits 1 when a survivor is not listed as equivalent, or a listed mutant
no longer survives (the list is stale), so the list and the tests stay honest together.

The mutants `make mutation` runs (`selection`; `python -m tests.mutation --selection` prints the patterns,
`python -m tests.mutation run` runs mutmut on them): every mutant of every module in `[tool.mutmut]
only_mutate`, except in the AVeriTeC scorer, whose tests score the real dev split and take about a minute per
surviving mutant. There, every mutant of the functions that compute the score (`SCORER_CORE`: the strings
compared, METEOR, the Hungarian matching, the score at each threshold, the 2025 CSV) and a systematic sample
of one in ten of the rest (the readers and the command line). Mutants outside the selection are reported as
not sampled, never as killed.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

EQUIVALENTS = Path(__file__).with_name("mutation_equivalents.txt")
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
SAMPLED = {"lib/averitec/scoring.py"}  # modules run in part (see the docstring)
SCORER_CORE = (
    "compared_answer", "qa_string", "reference_evidence", "submission_evidence", "solution_evidence",
    "leaderboard_pairs", "leaderboard_evi", "write_leaderboard", "hungarian", "claim_scores", "per_claim",
    "summarise", "edition_change_sentence", "check_figures_sentence",
)  # fmt: skip
SAMPLE_ONE_IN_TEN = "*__mutmut_*0"  # mutants numbered 10, 20, ... of each function


def selection(pyproject: Path = PYPROJECT) -> list[str]:
    """mutmut name patterns of the mutants `make mutation` runs."""
    import tomllib

    modules = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["mutmut"]["only_mutate"]
    out = []
    for path in modules:
        dotted = path.removesuffix(".py").replace("/", ".")
        if path not in SAMPLED:
            out.append(f"{dotted}.*")
            continue
        out += [f"{dotted}.x_{f}__mutmut_*" for f in SCORER_CORE]
        out += [f"{dotted}.x*Meteor*", f"{dotted}.{SAMPLE_ONE_IN_TEN}"]
    return out


def read_equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """{mutant name: reason} from the list (comments and blank lines skipped); a line without a reason is an error."""
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        name, _, reason = line.partition("  ")
        if not reason.strip():
            raise ValueError(f"{path}:{n}: {name!r} has no reason (expected '<mutant>  <why it is equivalent>')")
        out[name.strip()] = reason.strip()
    return out


def module_of(mutant: str) -> str:
    """`lib.retrieval.fusion.x_fuse__mutmut_3` -> `lib/retrieval/fusion.py`."""
    dotted = mutant.split(".x_")[0] if ".x_" in mutant else mutant.rsplit(".", 1)[0]
    return dotted.replace(".", "/") + ".py"


def parse_results(text: str) -> dict[str, str]:
    """{mutant: status} from `mutmut results --all true`."""
    out = {}
    for line in text.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and name:
            out[name] = status.strip()
    return out


def table(results: dict[str, str], equivalents: dict[str, str]) -> tuple[list[dict], list[str]]:
    """Rows per module and the problems (unlisted survivors, stale equivalents)."""
    per: dict[str, Counter] = {}
    problems = []
    for name, status in sorted(results.items()):
        c = per.setdefault(module_of(name), Counter())
        if status == "not checked" and module_of(name) in SAMPLED:
            c["not_sampled"] += 1
            continue
        c["mutants"] += 1
        if status == "killed":
            c["killed"] += 1
        elif name in equivalents and status == "survived":
            c["equivalent"] += 1
        else:
            c["alive"] += 1
            problems.append(f"{name}: {status}, not listed as equivalent")
    problems += [
        f"{name}: listed as equivalent but {results.get(name, 'not a mutant')}"
        for name in equivalents
        if results.get(name) != "survived"
    ]
    rows = []
    for module, c in sorted(per.items()):
        real = c["mutants"] - c["equivalent"]
        rows.append(
            {
                "module": module,
                **{k: c[k] for k in ("mutants", "killed", "equivalent", "alive", "not_sampled")},
                "score": c["killed"] / real if real else 1.0,
            }
        )
    return rows, problems


def main(argv: list[str] | None = None) -> int:
    """No argument: the report of the last run. `--selection`: the patterns. `run`: mutmut on them."""
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--selection"]:
        print("\n".join(selection()))
        return 0
    if argv == ["run"]:
        return subprocess.run(["mutmut", "run", "--max-children", "2", *selection()]).returncode
    if argv:
        print(f"error: unknown arguments {argv} (expected none, --selection or run)", file=sys.stderr)
        return 2
    text = subprocess.run(["mutmut", "results", "--all", "true"], capture_output=True, text=True, check=True).stdout
    rows, problems = table(parse_results(text), read_equivalents())
    print("| module | mutants run | killed | equivalent | alive | score |\n|---|---:|---:|---:|---:|---:|")
    for r in rows:
        run = f"{r['mutants']} of {r['mutants'] + r['not_sampled']}" if r["not_sampled"] else r["mutants"]
        print(f"| `{r['module']}` | {run} | {r['killed']} | {r['equivalent']} | {r['alive']} | {r['score']:.1%} |")
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
