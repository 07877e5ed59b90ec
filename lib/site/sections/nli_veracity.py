"""Params section `nli_veracity`: notebook 07 (what the evidence does for the verifier)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field, field_validator, model_validator

from lib.evaluation.metrics import Measure, parse_measure
from lib.evaluation.significance import Resamples, p_floor
from lib.params import FilePath, OpenShare, ScoreLevel, Section, Seed, Text
from lib.site.sections import Reader, depth_problems


class NLIVeracitySection(Section):
    averitec_dir: FilePath
    planners_dir: FilePath
    quantemp_dir: FilePath
    runs_dir: FilePath
    gen_dir: FilePath
    store_dir: FilePath
    data_dir: FilePath
    averitec_scores: Annotated[list[Text], Field(min_length=1)]
    metrics_path: FilePath
    timings_dir: FilePath
    baseline: Text
    n_resamples: Resamples
    seed: Seed
    alpha: OpenShare
    main_level: ScoreLevel
    retrieval_measure: Measure
    power: OpenShare  # of the minimum detectable difference (lib.evaluation.significance.minimum_detectable_difference)
    sweep_path: FilePath  # the committed verifier sweep (lib.verifier.sweep, `make sweep-verifier`)
    protocol_path: FilePath  # the committed training-protocol sweep (`make sweep-protocol`)

    @field_validator("baseline")
    @classmethod
    def _planner_baseline(cls, value: str) -> str:
        """The tests and section 7's retrieval gains are against a planner's evidence (`naive` passed, and section 7
        ended in "KeyError: ''")."""
        if not re.fullmatch(r"planner:\S+", value):
            raise ValueError(f"expected a planner's setting, planner:<plan>, got {value!r}")
        return value

    @model_validator(mode="after")
    def _resamples_reach_alpha(self) -> NLIVeracitySection:
        """A resampling test cannot go below 1/(B+1): with 40 resamples and alpha 0.001 the "has the verifier
        learned" test could never pass, however well it did."""
        if p_floor(self.n_resamples) >= self.alpha:  # a call is p < alpha: a floor at alpha passes none either
            least = int(1 / self.alpha)
            raise ValueError(
                f"n_resamples {self.n_resamples}: the smallest p-value it gives, {p_floor(self.n_resamples):.2g}, is "
                f"not below alpha = {self.alpha:g}, so no test could pass; use at least {least} resamples"
            )
        return self

    @classmethod
    def cross_check(cls, values: dict, read: Reader) -> list[str]:
        """The runs it measures keep `retrieval.depth` documents per claim (ndcg@1000 was NDCG@100 under another
        name), and a planner baseline is one the verifier read (`nli_averitec.planners`)."""
        problems = depth_problems(
            "nli_veracity.retrieval_measure", [parse_measure(values["retrieval_measure"])[1]], read("retrieval")
        )
        baseline = values["baseline"]
        planners = list(read("nli_averitec").planners)
        if baseline.startswith("planner:") and baseline.removeprefix("planner:") not in planners:
            problems.append(
                f"nli_veracity.baseline: {baseline!r} names a planner whose evidence the verifier did not read "
                f"(nli_averitec.planners: {planners})"
            )
        return problems
