"""Params section `relevance_utility`: notebook 09 (relevance versus utility)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from lib.evaluation.metrics import Measure, parse_measure
from lib.evaluation.significance import Resamples
from lib.params import FilePath, PosInt, Section, Seed, Text
from lib.site.sections import Reader, depth_problems, kept_measures


class RelevanceUtilitySection(Section):
    nli_dir: FilePath
    nli_metrics: (
        Text  # notebook 07's metrics: whether the verifier learned (lib.analysis.verdicts.stored_learning_check)
    )
    planners_dir: FilePath
    utility_dir: FilePath
    climate_dir: FilePath
    store_dir: FilePath
    data_dir: FilePath
    metrics_path: FilePath
    timings_dir: FilePath
    k: PosInt
    measures: Annotated[list[Measure], Field(min_length=1)]
    n_resamples: Resamples
    seed: Seed

    @model_validator(mode="after")
    def _conclusion_measures(self) -> RelevanceUtilitySection:
        """Notebook 09's conclusion and its disagreement cases read NDCG@10 and NDCG@3 (at k = 3)."""
        kept_measures(self.measures, ["ndcg@10", "ndcg@3"], "09")
        return self

    @classmethod
    def cross_check(cls, values: dict, read: Reader) -> list[str]:
        """The planners' runs it measures keep `retrieval.depth` documents per claim (no cutoff past it), and
        its k is the verifier's (`nli_averitec.k`)."""
        cutoffs = [parse_measure(m)[1] for m in values["measures"]]
        problems = depth_problems("relevance_utility.measures", cutoffs, read("retrieval"))
        k = read("nli_averitec").k  # at another k only the ablation planners have verdicts (4 of 11, unsaid)
        if values["k"] != k:
            problems.append(
                f"relevance_utility.k: {values['k']} is not the k the verifier read for every planner, "
                f"nli_averitec.k = {k}: set that"
            )
        return problems
