"""Params section `generative_planning`: notebook 06 (generative planners)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from lib.evaluation.metrics import Measure, parse_measure
from lib.evaluation.significance import Resamples
from lib.params import Level, NonNegInt, Section, Seed, Text
from lib.retrieval.runs import FocusSection
from lib.retrieval.vocabulary import Fusion
from lib.site.sections import Reader, depth_problems


class GenerativePlanningSection(Section):
    gen_dir: Text
    plans_dir: Text
    store_dir: Text
    data_dir: Text
    model_dir: Text
    embeddings_dir: Text
    metrics_path: Text
    fusion: Fusion
    measures: Annotated[list[Measure], Field(min_length=1)]
    focus: FocusSection
    baseline: Text
    n_resamples: Resamples
    seed: Seed
    main_level: Level
    mmr_gammas: Annotated[list[Annotated[float, Field(ge=-1, le=1)]], Field(min_length=1)]
    examples: NonNegInt
    timings_dir: Text

    @classmethod
    def cross_check(cls, values: dict, read: Reader) -> list[str]:
        """The generative planners' runs keep `retrieval.depth` documents per claim: no cutoff past it."""
        cutoffs = [parse_measure(m)[1] for m in values["measures"]]
        return depth_problems("generative_planning.measures", cutoffs, read("retrieval"))
