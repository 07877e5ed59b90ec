"""Params section `aggregation`: notebook 03 (fusing sub-query rankings)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from lib.evaluation.metrics import Measure, parse_measure
from lib.params import FilePath, Section, Text
from lib.site.sections import Reader, depth_problems, kept_measures, plans_problems

NEEDED = ["ndcg@10", "recall@100"]  # the measures notebook 03 reads by name


class AggregationSection(Section):
    runs_dir: FilePath
    store_dir: FilePath
    plans_dir: FilePath
    data_dir: FilePath
    metrics_path: FilePath
    plan: Text
    measures: Annotated[list[Measure], Field(min_length=1), AfterValidator(lambda m: kept_measures(m, NEEDED, "03"))]

    @classmethod
    def cross_check(cls, values: dict, read: Reader) -> list[str]:
        """Notebook 03 compares every fusion of `plan`'s sub-query rankings: the stage `runs` writes them only for
        the plans of `retrieval.all_fusions_for`; its measures' cutoffs must be within the runs' depth."""
        grid = read("retrieval")
        fused = list(grid.all_fusions_for)
        cutoffs = depth_problems("aggregation.measures", [parse_measure(m)[1] for m in values["measures"]], grid)
        if values["plan"] in fused:
            return cutoffs
        if values["plan"] not in grid.plans:  # adding it to all_fusions_for alone is refused in turn
            return [*plans_problems("aggregation.plan", [values["plan"]], grid), *cutoffs]
        return [
            f"aggregation.plan: {values['plan']!r} has runs of the main fusion only (every fusion is run for "
            f"retrieval.all_fusions_for = {fused}): set aggregation.plan to one of those, or add the plan there, "
            f"e.g. -S 'retrieval.all_fusions_for=[{','.join([*fused, values['plan']])}]' (reruns the runs stage)",
            *cutoffs,
        ]
