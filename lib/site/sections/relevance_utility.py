"""Params section `relevance_utility`: notebook 09 (relevance versus utility)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from lib.evaluation.metrics import Measure
from lib.params import NonNegInt, PosInt, Section, Text


class RelevanceUtilitySection(Section):
    nli_dir: Text
    planners_dir: Text
    utility_dir: Text
    climate_dir: Text
    store_dir: Text
    data_dir: Text
    metrics_path: Text
    k: PosInt
    measures: Annotated[list[Measure], Field(min_length=1)]
    n_resamples: PosInt
    seed: NonNegInt
