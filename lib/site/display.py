"""Display names for tables and figures: planners, aggregation methods and verifier settings.

Presentation only: no stage imports this module, so renaming a label reruns notebooks, never a stage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lib.evaluation.printing import p_text, signed_text
from lib.retrieval.vocabulary import RETRIEVERS

if TYPE_CHECKING:
    import pandas as pd
    from pandas.io.formats.style import Styler

# The plan-name prefix of the post-hoc references (`lib.planning.planners.POST_HOC_PREFIX`; a test keeps them equal).
POST_HOC = "post_hoc_"

PLANNER_NAMES = {
    # non-generative planners (stage `plans`, notebook 02)
    "claim_only": "CLAIM-ONLY",
    "oracle": "ORACLE-QUERIES",
    "bloom_qg": "BLOOM-QG",
    "heuristic": "HEURISTIC",
    # generative planners (stage `generative_plans`, notebook 06)
    "qgen": "QGEN",
    "pursuit_seq_seq": "PURSUIT Seq+Seq",
    "pursuit_seq_llm": "PURSUIT Seq+LLM",
    "pursuit_llm_llm": "PURSUIT LLM+LLM",
    "mmr_pool": "MMR-POOL (oracle-informed)",
    "agq_unfiltered": "AGQ before MMR",
    # prompted planners (`lib.planning.prompted`)
    "claimdecomp": "CLAIMDECOMP",
    "pgmfc": "PGMFC",
    "all_at_once": "ALL-AT-ONCE",
    "agq": "AGQ (oracle)",
}

FUSION_NAMES = {
    "top1": "TOP-1",
    "concat": "CONCAT",
    "combmax": "COMBMAX",
    "combsum": "COMBSUM",
    "combmax_norm": "COMBMAX-NORM",
    "combsum_norm": "COMBSUM-NORM",
    "rrf": "RRF",
    "combmnz": "CombMNZ",
    "wsum_norm": "WSUM-NORM",
}

# Verifier settings (`lib.verifier.veracity`): references, and `planner:<name>` for a planner's retrieved evidence.
SETTING_NAMES = {
    "naive": "NAIVE (majority class)",
    "claim_only_no_evidence": "CLAIM-ONLY-NO-EVIDENCE",
    "gold": "GOLD evidence",
    "gold_justification": "GOLD justification",
    "bm25_snippets": "BM25 snippets (QuanTemp corpus)",
}
PLANNER_SETTING = "planner:"
SCOPE_MARK = "@"  # `planner:<name>@<scope>`: the planner's evidence from another scope


# One palette per concept, over the concept's whole vocabulary (display names), so that a planner, an
# aggregation method, a retriever or a reference setting keeps its colour in every figure of every notebook.
CONCEPT_PALETTES = (
    (tuple(PLANNER_NAMES.values()), "tab20"),
    (tuple(FUSION_NAMES.values()), "Set1"),  # 9 distinct colours
    (RETRIEVERS, "Dark2"),
    (tuple(SETTING_NAMES.values()), "Greys_r"),
)
OTHERS_PALETTE = "husl"  # names outside every vocabulary (published systems, post-hoc references), in order


def planner(name: str) -> str:
    """Display name of a plan: `oracle` -> `ORACLE-QUERIES`, `post_hoc_hero_qa` -> `POST-HOC (hero_qa)`;
    an unknown name as it is."""
    if name.startswith(POST_HOC):
        return f"POST-HOC ({name[len(POST_HOC) :]})"
    return PLANNER_NAMES.get(name, name)


def fusion(name: str) -> str:
    """Display name of an aggregation method: `combmax_norm` -> `COMBMAX-NORM`."""
    return FUSION_NAMES.get(name, name)


def setting(name: str) -> str:
    """Display name of a verifier setting; `planner:<name>` by its planner's name, `planner:<name>@<scope>`
    with its scope: `CLAIM-ONLY (claim scope)`."""
    if name.startswith(PLANNER_SETTING):
        plan, _, scope = name[len(PLANNER_SETTING) :].partition(SCOPE_MARK)
        return f"{planner(plan)} ({scope} scope)" if scope else planner(plan)
    return SETTING_NAMES.get(name, name)


def palette(names: Sequence[str], colours: str = "tab10") -> dict[str, tuple[float, float, float]]:
    """One fixed colour per name, by its place in `names` (a whole vocabulary, e.g. `lib.analysis.errors.ERROR_CODES`,
    not the names one figure happens to show), so a concept keeps its colour in every figure."""
    import seaborn as sns

    return dict(zip(names, sns.color_palette(colours, len(names))))


def colours(shown) -> dict[str, tuple[float, float, float]]:
    """A seaborn `palette` for the display names `shown`: each planner, aggregation method, retriever and
    reference setting its fixed colour (`CONCEPT_PALETTES`), so CLAIM-ONLY is the same blue in notebooks
    02, 04, 06 and 07; names outside the vocabularies (published systems, post-hoc references) get distinct
    colours of `OTHERS_PALETTE` in the order shown."""
    import seaborn as sns

    fixed: dict[str, tuple[float, float, float]] = {}
    for names, colours_ in CONCEPT_PALETTES:
        # Greys start past pure black and stop before white; other palettes as they are
        shades = sns.color_palette(colours_, len(names) + 2)[:-2] if colours_.startswith("Greys") else None
        fixed.update(zip(names, shades or sns.color_palette(colours_, len(names))))
    shown = list(dict.fromkeys(shown))
    others = [n for n in shown if n not in fixed]
    extra = dict(zip(others, sns.color_palette(OTHERS_PALETTE, len(others)))) if others else {}
    return {n: fixed.get(n) or extra[n] for n in shown}


def tested(
    table: pd.DataFrame, uuid: str, signed: Sequence[str] = (), alpha: float = 0.05, decimals: int = 3
) -> Styler:
    """`table` as the study prints figures beside their tests: floats to `decimals` ("undefined" where NaN),
    the `signed` columns (differences) by `printing.signed_text` (a sign, never "-0.000", one under 0.001 with the
    decimals that keep it apart from 0: "+0.0008" beside two levels printed alike), and each p-value column (named
    `p_…` or `… p`) by `printing.p_text` (0.0005, the floor of 2,000 resamples, never "0.000" or "4.998e-04" beside
    a sentence's "p = 0.0005"; "not tested" where none). The fixed `uuid` keeps an executed notebook the same bytes
    on a rerun."""
    p_columns = [c for c in table.columns if str(c).startswith("p_") or str(c).endswith(" p")]
    floats = [c for c in table.select_dtypes("floating").columns if c not in p_columns and c not in signed]
    return (
        table.style.set_uuid(uuid)
        .format(f"{{:.{decimals}f}}", subset=floats, na_rep="undefined")
        .format(lambda v: signed_text(v, f"+.{decimals}f"), subset=list(signed), na_rep="undefined")
        .format(lambda p: p_text(p, alpha), subset=p_columns, na_rep="not tested")
    )
