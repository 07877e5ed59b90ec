"""Params section `synthesis`: notebook 10 (the closing synthesis)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from lib.params import FilePath, Section, Text
from lib.retrieval.vocabulary import RETRIEVERS
from lib.site.sections import Reader, generative_grid_problems, grid_problems
from lib.store.scopes import SCOPES, Scope


def _focus(value: str) -> str:
    """`retriever/scope`, each one the study knows."""
    retriever, _, scope = value.partition("/")
    if retriever not in RETRIEVERS or scope not in SCOPES:
        raise ValueError(f"expected retriever/scope with a retriever of {RETRIEVERS} and a scope of {SCOPES}")
    return value


class WithoutGold(Section):
    """`synthesis.without_gold`: what the stage `without_gold` reruns on the store without the gold answers."""

    plans: Annotated[list[Text], Field(min_length=1)]
    scopes: Annotated[list[Scope], Field(min_length=1)]


class SynthesisSection(Section):
    metrics_dir: FilePath
    focus: Annotated[str, AfterValidator(_focus)]  # the setting whose findings lead, e.g. bm25/claim
    without_gold: WithoutGold

    @classmethod
    def cross_check(cls, values: dict, read: Reader) -> list[str]:
        """The retrieval findings of notebook 10 lead with `focus`, which the runs must hold."""
        retriever, _, scope = values["focus"].partition("/")
        problems = grid_problems("synthesis.focus", retriever, scope, read("retrieval"))
        # its QGEN findings read the generative runs in that setting too (hybrid/global failed at cell 3)
        return problems or generative_grid_problems("synthesis.focus", retriever, scope, read("generative_runs"))
