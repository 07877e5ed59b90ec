"""Params section `query_planning`: notebook 02 (query planners compared)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from lib.evaluation.metrics import Measure, parse_measure
from lib.evaluation.significance import Resamples
from lib.params import FilePath, NonNegInt, Section, Seed
from lib.retrieval.runs import FocusSection
from lib.retrieval.vocabulary import Fusion
from lib.site.sections import Reader, depth_problems, fusion_problems, grid_problems, kept_measures

NEEDED = ["ndcg@10", "recall@100"]  # the measures notebook 02 reads by name


class QueryPlanningSection(Section):
    runs_dir: FilePath
    store_dir: FilePath
    plans_dir: FilePath
    embeddings_dir: FilePath
    data_dir: FilePath
    metrics_path: FilePath
    fusion: Fusion
    measures: Annotated[list[Measure], Field(min_length=1), AfterValidator(lambda m: kept_measures(m, NEEDED, "02"))]
    focus: FocusSection
    example_claim: NonNegInt
    n_resamples: Resamples  # bootstrap intervals of the temporal filter's per-claim effect
    seed: Seed

    @classmethod
    def cross_check(cls, values: dict, read: Reader) -> list[str]:
        """The setting in focus and the fusion of notebook 02's tables must be ones the runs hold for every plan,
        the measures' cutoffs within the runs' depth."""
        grid, focus = read("retrieval"), values["focus"]
        return (
            grid_problems("query_planning.focus", focus["retriever"], focus["scope"], grid)
            + fusion_problems("query_planning.fusion", values["fusion"], grid)
            + depth_problems("query_planning.measures", [parse_measure(m)[1] for m in values["measures"]], grid)
        )
