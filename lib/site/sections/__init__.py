"""One model per notebook-only params section, a module each: editing one reruns only the notebook that reads
it (its stage also reads the shared sections: profile, store, judgements).

A model whose settings must agree with another section's has a classmethod `cross_check(values, read)`
(`values`: its own section; `read(name)`: another section as its model) returning every problem, each with
its dotted key and what to set. `lib.site.execute` runs it before the notebook starts and `python -m
lib.schema check` for the whole file, so a variation the runs cannot serve is refused before any work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Reader = Callable[[str], Any]  # a section name -> that section as its model


def grid_problems(key: str, retriever: str, scope: str, grid: Any) -> list[str]:
    """Whether notebook setting `key` (a retriever and a scope) is one the stage `runs` ran (`grid`: the
    `retrieval` section as its model)."""
    out = []
    if retriever not in grid.retrievers:
        out.append(f"{key}: retriever {retriever!r} is not run (retrieval.retrievers: {list(grid.retrievers)})")
    if scope not in grid.scopes:
        out.append(f"{key}: scope {scope!r} is not run (retrieval.scopes: {list(grid.scopes)})")
    return out


def fusion_problems(key: str, fusion: str, grid: Any) -> list[str]:
    """Whether fusion `key`, read for every plan, is the one every plan's runs have: `retrieval.main_fusion`."""
    if fusion == grid.main_fusion:
        return []
    return [
        f"{key}: fusion {fusion!r} is run only for the plans of retrieval.all_fusions_for; every plan has the main "
        f"fusion, retrieval.main_fusion = {grid.main_fusion!r}: set that"
    ]


def kept_measures(measures: Sequence[str], needed: Sequence[str], notebook: str) -> list[str]:
    """`measures` when they keep every measure a notebook reads by name, else ValueError naming them (a list
    without them passed the check and stopped the notebook midway with `KeyError: 'ndcg@10'`)."""
    missing = [m for m in needed if m not in measures]
    if missing:
        raise ValueError(f"measures must keep {missing}: notebook {notebook} reads them (add others beside)")
    return list(measures)


def generative_grid_problems(key: str, retriever: str, scope: str, runs: Any) -> list[str]:
    """Whether notebook setting `key` (a retriever and a scope) is one the stage `generative_runs` ran (`runs`:
    the `generative_runs` section as its model)."""
    problems = []
    if retriever not in runs.retrievers:
        problems.append(
            f"{key}: retriever {retriever!r} is not run for the generative planners "
            f"(generative_runs.retrievers: {list(runs.retrievers)})"
        )
    if scope not in runs.scopes:
        problems.append(
            f"{key}: scope {scope!r} is not run for the generative planners "
            f"(generative_runs.scopes: {list(runs.scopes)})"
        )
    return problems


def plans_problems(key: str, plans: Sequence[str], grid: Any) -> list[str]:
    """Whether the plans of notebook setting `key` are plans the stage `runs` ran (`retrieval.plans`)."""
    unknown = [p for p in plans if p not in grid.plans]
    if not unknown:
        return []
    named = repr(unknown[0]) + " is" if len(unknown) == 1 else f"{unknown} are"  # one plan, one verb
    return [f"{key}: {named} not run (retrieval.plans: {list(grid.plans)})"]


def depth_problems(key: str, cutoffs: Sequence[int | None], grid: Any) -> list[str]:
    """Whether the cutoffs of notebook setting `key` (a measure's `@k`, a curve's last k; None: no cutoff)
    are within the runs' depth (`retrieval.depth`): past it, recall@1000 of a run cut at 100 repeated
    recall@100 under another name."""
    past = sorted({k for k in cutoffs if k is not None and k > grid.depth})
    if not past:
        return []
    return [
        f"{key}: cutoff {past[-1]} is past the runs' depth, retrieval.depth = {grid.depth} (the runs keep "
        f"{grid.depth} documents per claim): use at most {grid.depth}, or raise retrieval.depth (reruns the runs stage)"
    ]
