"""Params section `averitec_score`: notebook 05 (the AVeriTeC score of every run)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from lib.params import FilePath, ScoreLevel, Section, member


class AveritecScoreSection(Section):
    scores_path: FilePath
    averitec_2025_dir: FilePath  # stage averitec_2025: the 2025 METEOR path and Ev2R
    metrics_path: FilePath
    data_dir: FilePath  # the dev claims' gold evidence: the groups of the overview's Table 4
    levels: Annotated[list[ScoreLevel], Field(min_length=1)]
    main_level: ScoreLevel

    @model_validator(mode="after")
    def _main_level_is_a_level(self) -> AveritecScoreSection:
        member(self.main_level, self.levels, "main_level", "levels")
        if 0.25 not in self.levels:  # notebook 05, notebook 10 and the front page read AVeriTeC@0.25
            raise ValueError("levels must keep 0.25: the shared task's headline level, which notebooks 05 and 10 read")
        return self
