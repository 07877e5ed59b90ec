"""Params section `retrieval_metrics`: notebook 04 (retrieval measures, incomplete judgements, the judging kit)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from lib.evaluation.metrics import Measure, parse_measure
from lib.evaluation.significance import Resamples
from lib.params import FilePath, PosInt, Section, Seed, Text
from lib.retrieval.runs import FocusSection
from lib.retrieval.vocabulary import Fusion
from lib.site.sections import Reader, depth_problems, fusion_problems, grid_problems, plans_problems


class JudgingKitSection(Section):
    """Notebook 04's manual judging kit (lib.store.judgements): a blind sheet sampled per stratum, read back filled."""

    sheet_path: FilePath
    filled_sheet: Text
    per_stratum: PosInt
    unjudged_depth: PosInt  # unjudged pairs come from the focus runs' top documents
    seed: Seed


class RetrievalMetricsSection(Section):
    runs_dir: FilePath
    store_dir: FilePath
    metrics_path: FilePath
    plots_dir: FilePath
    fusion: Fusion
    focus: FocusSection
    curve_plans: Annotated[list[Text], Field(min_length=1)]
    max_k: PosInt
    baseline: Text
    measure: Measure
    n_resamples: Resamples
    seed: Seed
    data_dir: FilePath
    incomplete_measures: Annotated[list[Measure], Field(min_length=1)]
    judging: JudgingKitSection

    @model_validator(mode="after")
    def _measure_is_complete(self) -> RetrievalMetricsSection:
        """Notebook 04 checks its calls under the incomplete-judgement measures: with one of them as `measure`
        it checked `condensed_ndcg@10` against itself and reported that as robustness."""
        name = parse_measure(self.measure)[0]
        if name == "bpref" or name.startswith("condensed_"):
            raise ValueError(
                f"measure {self.measure!r} is one of the incomplete-judgement measures the calls are checked "
                f"under (incomplete_measures); use a measure that counts unjudged documents as non-relevant"
            )
        return self

    @classmethod
    def cross_check(cls, values: dict, read: Reader) -> list[str]:
        """Notebook 04's focus, fusion, baseline and curve plans must be ones the runs hold, its cutoffs
        within the runs' depth."""
        grid, focus = read("retrieval"), values["focus"]
        return (
            grid_problems("retrieval_metrics.focus", focus["retriever"], focus["scope"], grid)
            + fusion_problems("retrieval_metrics.fusion", values["fusion"], grid)
            + plans_problems("retrieval_metrics.baseline", [values["baseline"]], grid)
            + plans_problems("retrieval_metrics.curve_plans", values["curve_plans"], grid)
            + depth_problems("retrieval_metrics.max_k", [values["max_k"]], grid)
            + depth_problems("retrieval_metrics.judging.unjudged_depth", [values["judging"]["unjudged_depth"]], grid)
            + depth_problems("retrieval_metrics.measure", [parse_measure(values["measure"])[1]], grid)
            + depth_problems(
                "retrieval_metrics.incomplete_measures",
                [parse_measure(m)[1] for m in values["incomplete_measures"]],
                grid,
            )
        )
