"""Params section `averitec_score`: notebook 05 (the AVeriTeC score of every run)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from lib.params import Level, Section, Text, member


class AveritecScoreSection(Section):
    scores_path: Text
    averitec_2025_dir: Text  # stage averitec_2025: the 2025 METEOR path and Ev2R
    metrics_path: Text
    data_dir: Text  # the dev claims' gold evidence: the groups of the overview's Table 4
    levels: Annotated[list[Level], Field(min_length=1)]
    main_level: Level

    @model_validator(mode="after")
    def _main_level_is_a_level(self) -> AveritecScoreSection:
        member(self.main_level, self.levels, "main_level", "levels")
        return self
