"""Params section `error_analysis`: notebook 08 (error codes per claim and method)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from lib.analysis.errors import Rules
from lib.evaluation.significance import Resamples
from lib.params import FilePath, NonNegInt, PosInt, Section, Seed, Share, Text
from lib.site.sections import Reader


class SensitivitySection(Section):
    found_share: list[Annotated[float, Field(gt=0, le=1)]] = []
    homogeneity: list[Annotated[float, Field(ge=-1, le=1)]] = []
    implicit_coverage: list[Share] = []


class ErrorAnalysisSection(Section):
    nli_dir: FilePath  # the verifier's reference settings
    nli_metrics: (
        Text  # notebook 07's metrics: whether the verifier learned (lib.analysis.verdicts.stored_learning_check)
    )
    planners_dir: FilePath
    runs: Annotated[list[Text], Field(min_length=1)]
    quantemp_dir: FilePath
    store_dir: FilePath
    data_dir: FilePath
    embeddings_model: Text
    embeddings_dir: FilePath
    systems_from: Literal["averitec"]  # the section whose `systems` flag possible label errors
    out_dir: FilePath
    metrics_path: FilePath
    rules: Rules
    sensitivity: SensitivitySection
    min_claims: PosInt  # rows of a table resting on fewer claims are merged into one
    n_resamples: Resamples  # resamples of the claims for the baselines' intervals
    sheet_per_code: NonNegInt  # claims per stratum on the blind coding sheet
    sheet_seed: Seed
    filled_sheet: Text

    @classmethod
    def cross_check(cls, values: dict, read: Reader) -> list[str]:
        """A label-error flag needs `rules.min_systems` published systems: more than `averitec.systems` holds
        turned the rule off unsaid (notebook 08's retrieval call moved from indistinguishable to positive)."""
        systems = read(values["systems_from"]).systems
        wanted = values["rules"]["min_systems"] if isinstance(values["rules"], dict) else values["rules"].min_systems
        if wanted > len(systems):
            return [
                f"error_analysis.rules.min_systems: {wanted} is more than the {len(systems)} published systems of "
                f"{values['systems_from']}.systems, so no claim could be flagged a label error"
            ]
        return []
