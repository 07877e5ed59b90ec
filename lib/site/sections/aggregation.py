"""Params section `aggregation`: notebook 03 (fusing sub-query rankings)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from lib.evaluation.metrics import Measure
from lib.params import Section, Text


class AggregationSection(Section):
    runs_dir: Text
    store_dir: Text
    plans_dir: Text
    data_dir: Text
    metrics_path: Text
    plan: Text
    measures: Annotated[list[Measure], Field(min_length=1)]
