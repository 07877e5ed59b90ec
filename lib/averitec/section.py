"""Params section `averitec` (stage `averitec`, `lib.averitec.evidence`): which runs become AVeriTeC
predictions and how. Its own module, so the stages that only read `averitec.systems` or the scored plans (the
2025 score, notebooks 05 and 10) do not depend on the code that builds the predictions."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field, model_validator

from lib.params import FileName, PlanName, PosInt, Section, Text, one_name_per_file, subset
from lib.retrieval.vocabulary import RetrieverKind
from lib.store.scopes import Scope

VerdictSource = Literal["majority", "nli"]


class AveritecSection(Section):
    retriever: RetrieverKind
    scope: Scope
    temporal: bool
    plans: Annotated[list[PlanName], Field(min_length=1)]  # each a file name too: predictions/<plan>.json
    verdict_source: VerdictSource
    max_pairs: PosInt
    # notebook 05's duplication experiment and its comparison with the published systems need one of each: an
    # empty list or mapping stopped it midway (a KeyError, a plot with no legend), and notebook 10 after it
    duplicate_for: Annotated[list[Text], Field(min_length=1)]
    # {run name: file in data/averitec/systems/}; the name becomes a file name (submissions/<name>.csv: `../../zz`
    # wrote outside the stage's folder)
    systems: Annotated[dict[PlanName, FileName], Field(min_length=1)]
    repeat_systems: list[Text]
    repeats: PosInt
    jobs: PosInt

    @model_validator(mode="after")
    def _ablation_plans_are_scored(self) -> AveritecSection:
        subset(self.duplicate_for, self.plans, "duplicate_for", "averitec.plans")
        subset(self.repeat_systems, list(self.systems), "repeat_systems", "averitec.systems")
        return self

    @model_validator(mode="after")
    def _one_run_per_name(self) -> AveritecSection:
        """A system named like a plan, a derived run (`__duplicated`, `__x3`) or a reference run replaced that
        run's scores in the table, silently."""
        for name in self.systems:
            if not name.strip() or name in self.plans or "__" in name or name.startswith("reference_"):
                raise ValueError(
                    f"averitec.systems: {name!r} names another run (a plan of averitec.plans, a name with `__`, which "
                    "the derived runs have, or one starting with `reference_`); give the system a name of its own"
                )
        one_name_per_file(self.systems, "averitec.systems")  # one system twice moved the across-systems rho
        return self


VERDICT_SOURCES: tuple[str, ...] = get_args(VerdictSource)
