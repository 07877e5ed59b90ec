"""Params section `relevance_utility`: notebook 09 (relevance versus utility)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from lib.evaluation.metrics import Measure
from lib.evaluation.significance import Resamples
from lib.params import PosInt, Section, Seed, Text


class RelevanceUtilitySection(Section):
    nli_dir: Text
    planners_dir: Text
    utility_dir: Text
    climate_dir: Text
    store_dir: Text
    data_dir: Text
    metrics_path: Text
    timings_dir: Text
    k: PosInt
    measures: Annotated[list[Measure], Field(min_length=1)]
    n_resamples: Resamples
    seed: Seed

    @model_validator(mode="after")
    def _conclusion_measures(self) -> RelevanceUtilitySection:
        """Notebook 09's conclusion and its disagreement cases read NDCG@10 and NDCG@3 (at k = 3)."""
        missing = [m for m in ("ndcg@10", "ndcg@3") if m not in self.measures]
        if missing:
            raise ValueError(f"measures must keep {missing}: notebook 09's conclusion reads them (add others beside)")
        return self
