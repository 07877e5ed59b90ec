"""Params section `generative_planning`: notebook 06 (generative planners)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from lib.evaluation.metrics import Measure, parse_measure
from lib.evaluation.significance import Resamples
from lib.params import FilePath, NonNegInt, ScoreLevel, Section, Seed, Text
from lib.retrieval.runs import FocusSection
from lib.retrieval.vocabulary import Fusion
from lib.site.sections import Reader, depth_problems, fusion_problems, generative_grid_problems


class GenerativePlanningSection(Section):
    gen_dir: FilePath
    plans_dir: FilePath
    store_dir: FilePath
    data_dir: FilePath
    model_dir: FilePath
    embeddings_dir: FilePath
    metrics_path: FilePath
    fusion: Fusion
    measures: Annotated[list[Measure], Field(min_length=1)]
    focus: FocusSection
    baseline: Text
    n_resamples: Resamples
    seed: Seed
    main_level: ScoreLevel
    mmr_gammas: Annotated[list[Annotated[float, Field(ge=-1, le=1)]], Field(min_length=1)]
    examples: NonNegInt
    timings_dir: FilePath

    @classmethod
    def cross_check(cls, values: dict, read: Reader) -> list[str]:
        """The generative planners' runs keep `retrieval.depth` documents per claim (no cutoff past it), in the
        main fusion and the retrievers and scopes of `generative_runs`, against its baselines: the notebook
        failed at cell 8 with `KeyError: 'plan'` (fusion rrf) or at cell 23 (baseline qgen)."""
        grid, runs = read("retrieval"), read("generative_runs")
        cutoffs = [parse_measure(m)[1] for m in values["measures"]]
        problems = depth_problems("generative_planning.measures", cutoffs, grid)
        problems += fusion_problems("generative_planning.fusion", values["fusion"], grid)
        focus = values["focus"]
        problems += generative_grid_problems("generative_planning.focus", focus["retriever"], focus["scope"], runs)
        if values["baseline"] not in runs.baselines:
            problems.append(
                f"generative_planning.baseline: {values['baseline']!r} is not run beside the generative planners "
                f"(generative_runs.baselines: {list(runs.baselines)})"
            )
        return problems
