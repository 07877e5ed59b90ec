"""The closing synthesis (notebook 10): each finding of notebooks 02-09 as a sentence computed from the
metrics files, with the table it comes from.

Every sentence is produced by a function that checks its condition (`compare`, `interval`, `significance`),
so a changed number changes the sentence, never only the number inside it. A missing metric is a KeyError
naming the file and key: the synthesis never skips a finding silently.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from lib import outputs as OUT
from lib.cli import NamedError, shown
from lib.evaluation.comparisons import and_list, apart, end_text, highest, printed, rho_text
from lib.evaluation.printing import noise_equal, p_text, share_shown, share_text, shares_apart, unsigned_zero
from lib.evaluation.significance import sign_of
from lib.paths import METRICS_DIR
from lib.site.catalogue import RETRIEVER_NAMES, SCOPE_NAMES, flatten
from lib.site.display import planner
from lib.site.display import setting as setting_name
from lib.store.judgements import judgement_limit

NOTEBOOK = {  # metrics file -> the notebook that writes it (the link of each finding)
    "store": "01_knowledge_store",
    "query_planning": "02_query_planning",
    "aggregation": "03_aggregation",
    "retrieval": "04_retrieval_metrics",
    "averitec": "05_averitec_score",
    "generative": "06_generative_planners",
    "nli": "07_nli_veracity",
    "errors": "08_error_analysis",
    "utility": "09_relevance_vs_utility",
    "without_gold": "10_synthesis",  # stage without_gold; shown in notebook 10, section 5
}
FILES = tuple(NOTEBOOK)  # the metrics files the synthesis reads


@dataclass(frozen=True)
class Finding:
    topic: str
    sentence: str
    sources: tuple[str, ...]  # "file.json:key"

    def notebook(self) -> str:
        return NOTEBOOK[self.sources[0].split(".json", 1)[0]]


def load_metrics(metrics_dir: Path | str = METRICS_DIR) -> dict[str, dict[str, Any]]:
    """Every metrics file, flattened to {"a.b.c": value}."""
    out = {}
    for name in FILES:
        path = Path(metrics_dir) / f"{name}.json"
        if not path.exists():
            raise FileNotFoundError(f"{path} is missing: run `dvc repro` first")
        try:
            out[name] = flatten(OUT.read_json(path))
        except ValueError as err:  # two values of one flattened key
            raise NamedError(f"{path}: {err}") from None
    return out


def value(metrics: Mapping[str, Mapping[str, Any]], ref: str, text: bool = False, undefined: bool = False) -> Any:
    """`metrics["file"]["key"]` for "file.json:key": a finite number (a name with `text`), else an error naming
    both (an edited file's `true` or NaN became "1.000" and "nan%" in the findings, exit 0). With `undefined`,
    NaN is taken too: a correlation or interval the pipeline writes as NaN where it has none, which the
    sentence reading it says is undefined."""
    file, _, key = ref.partition(".json:")
    if key not in metrics.get(file, {}):
        raise KeyError(f"{file}.json has no metric {key!r} (needed by the synthesis)")
    found = metrics[file][key]
    number = isinstance(found, int | float) and not isinstance(found, bool)
    number = number and (math.isfinite(found) or (undefined and found != found))
    if not (isinstance(found, str) if text else number):
        raise NamedError(
            f"{file}.json: metric {key!r} is {shown(found, 40)}, expected {'a name' if text else 'a finite number'} "
            "(an edited file? rerun `dvc repro`)"
        )
    return found


def flag(metrics: Mapping[str, Mapping[str, Any]], ref: str) -> bool | None:
    """`metrics["file"]["key"]` for "file.json:key" as a test's call: true, false, or null (not tested); anything
    else an error naming both (the text "false", "no" or NaN counted as significant)."""
    file, _, key = ref.partition(".json:")
    found = metrics[file][key]
    if found is not None and not isinstance(found, bool):
        raise NamedError(
            f"{file}.json: metric {key!r} is {shown(found, 40)}, expected true, false or null (an edited file? "
            "rerun `dvc repro`)"
        )
    return found


def compare(
    a_name: str, a: float, b_name: str, b: float, measure: str, lower_is_better: bool = False, fmt: str = ".3f"
) -> str:
    """ "NDCG@10: A 0.384 against B 0.153, A higher by 151%", with the right word: higher or lower (better or
    worse where `lower_is_better`, e.g. a rank), or level when equal as printed (3 decimals: "higher by 0%" of
    two figures printed alike, or "4.0×" of two printed 0.000, said more than the figures show). The ratio is
    that of the printed figures (0.0015 against 0.0010 print 0.002 and 0.001: 2.0×, not "higher by 50%"), and
    a ratio under 0.1 gets the digits that keep it from reading 0.0×. `fmt` ".1%" prints shares, kept off 0% and
    100% unless they are (a share of 0.9996 read "1.000" beside another notebook's 99.96%)."""
    if a != a or b != b:  # NaN: "A nan against B 0.300, A lower"
        return f"{measure}: {a_name} {_shown3(a)} against {b_name} {_shown3(b)}: no comparison of an undefined figure"

    def text(v: float) -> str:
        return share_text(v, fmt) if fmt.endswith("%") else unsigned_zero(format(v, fmt))

    # compared as printed: a share's figure has the decimals that keep it off 0% and 100% ("level at 100.0%" was
    # said of 100% and 99.96%, which print apart)
    shown_as = (lambda v: share_shown(v, fmt)) if fmt.endswith("%") else (lambda v: printed(v, fmt))
    a_shown, b_shown = shown_as(a), shown_as(b)
    if a_shown == b_shown:
        return f"{measure}: {a_name} and {b_name} are level at {text(a)}"
    if lower_is_better:
        word = "better" if a < b else "worse"
    else:
        word = "higher" if a > b else "lower"
    # a ratio only of two positive figures at `fmt` (-0.1 against -0.2 is not "higher (0.5×)"; 99.96% against
    # 0.04% has none at ".1%")
    a_fmt, b_fmt = printed(a, fmt), printed(b, fmt)
    ratio = a_fmt / b_fmt if a_fmt > 0 and b_fmt > 0 else None
    if lower_is_better or not ratio:
        by = ""
    elif ratio >= 2 or ratio <= 0.5:
        by = f" ({ratio:.1f}×)" if ratio >= 0.1 else f" ({ratio:.2g}×)"
    else:
        share = abs(a_fmt - b_fmt) / abs(b_fmt)  # under 1 here: 0.996 is "by 99.6%", not "by 100%"
        by = f" by {share_text(share)}" if share >= 0.005 else " by less than 1%"
    return f"{measure}: {a_name} {text(a)} against {b_name} {text(b)}, {a_name} {word}{by}"


def _shown3(v: float) -> str:
    """A figure at three decimals, "undefined" for NaN, never "-0.000"."""
    return "undefined" if v != v else unsigned_zero(f"{v:.3f}")


def retrieval_verdict_sentence(nli: Mapping[str, Any], alpha: float = 0.05) -> str:
    """Does better retrieval go with better verdicts? Notebook 07's one computation of it (the rank correlation
    of its retrieval measure and macro-F1 over every planner it tests, from the flattened `nli` metrics), so
    that the synthesis cannot answer the question with another subset of planners or another measure."""
    key = "averitec.retrieval_vs_verdict_spearman"
    rho, low, high, p = (nli[f"{key}.{part}"] for part in ("rho", "low", "high", "permutation_p"))
    planners = nli.get(f"{key}.planners")
    over = f" over notebook 07's {planners} planners" if planners else " over notebook 07's planners"
    interval = "" if low != low else f", bootstrap [{end_text(low, '.2f')}, {end_text(high, '.2f')}]"  # NaN: none
    shown = rho_text(rho, planners) if planners else ("undefined" if rho != rho else unsigned_zero(f"{rho:.2f}"))
    head = f"Retrieval against verdicts: Spearman's ρ = {shown}{over}{interval} (permutation p = {p_text(p, alpha)})"
    if p != p:
        return head + ": no correlation can be read (one side is the same for every planner)"
    if shown.startswith("undefined"):  # a direction read from a ρ printed "undefined" (an inconsistent metrics file)
        return head + ": no direction can be read of an undefined correlation"
    if p < alpha and not noise_equal(
        rho, 0.0
    ):  # rho beside its direction with the digits that show its sign ("0.00 ... positive")
        head = head.replace(f"ρ = {shown}", f"ρ = {end_text(rho, '.2f')}", 1)
        return f"{head}, a {'positive' if rho > 0 else 'negative'} rank relation at the {alpha:g} level"
    return f"{head}, no evidence of a rank relation at the {alpha:g} level"


def verdict_retrieval(nli: Mapping[str, Any], query_planning: Mapping[str, Any]) -> str:
    """The retriever/scope whose NDCG@10 (in `query_planning.json`) scores the runs the verifier read its evidence
    from (notebook 07's `averitec.retrieval`, flattened), so that a planner's retrieval figure and its verdicts
    come from one run: Table 1 paired the synthesis focus (bm25/claim) with verdicts from bm25/global, and
    ORACLE's retrieval gain read +151% where notebook 07 measured +114%. A setting query_planning.json does not
    score (the temporal filter, another fusion) is a named error, not another setting's figure."""
    key = "averitec.retrieval"
    missing = [part for part in ("retriever", "scope", "temporal", "fusion") if f"{key}.{part}" not in nli]
    if missing:
        raise NamedError(f"nli.json: {key} has no {', '.join(missing)}: rerun stage nli_veracity (notebook 07)")
    setting = f"{nli[f'{key}.retriever']}/{nli[f'{key}.scope']}"
    temporal, fusion, scored = nli[f"{key}.temporal"], nli[f"{key}.fusion"], query_planning.get("fusion")
    if temporal is not False or not isinstance(fusion, str) or fusion != scored:  # None or 0.0 read as False
        raise NamedError(
            f"nli.json: the verifier read {setting} with temporal={temporal!r} and fusion {fusion!r}; "
            f"query_planning.json scores temporal=False and fusion {scored!r}: no retrieval figure here pairs "
            "with its verdicts"
        )
    if not any(k.startswith(f"ndcg@10.{setting}.") for k in query_planning):
        raise NamedError(f"query_planning.json: no ndcg@10.{setting}, the setting the verifier read (nli.json {key})")
    return setting


def verdict_tests(m: Mapping[str, Mapping[str, Any]]) -> tuple[str, str, float]:
    """Notebook 07's tests of the planners' verdicts: the baseline setting (`planner:claim_only`), its display
    name and the alpha, as nli.json records them (the synthesis printed "against CLAIM-ONLY, p < 0.05" whatever
    `nli_veracity.baseline` and `.alpha` were)."""
    baseline = value(m, "nli.json:averitec.baseline", text=True)
    alpha = value(m, "nli.json:averitec.alpha")
    return baseline, setting_name(baseline), alpha


def interval(what: str, estimate: float, low: float, high: float) -> str:
    """A correlation or difference with its 95% interval, and what the interval says about its sign; an
    undefined one is said to be undefined (NaN read as "indistinguishable from 0")."""
    if estimate != estimate or low != low or high != high:
        shown = "undefined" if estimate != estimate else unsigned_zero(f"{estimate:.3f}")
        return (
            f"{what} is {shown} with no 95% interval (too few claims, or a constant side): nothing to read of its sign"
        )
    sign = sign_of(low, high)  # an end at 0 but for noise is 0, as it prints (1e-17 was "positive" beside 0.000)
    says = f"{sign}: the interval {'contains it' if sign == 'indistinguishable from 0' else 'excludes 0'}"
    # an end that excludes 0 is printed with the decimals that show it (0.0004, not 0.000 read as "positive")
    est = end_text(estimate, ".3f") if sign != "indistinguishable from 0" else unsigned_zero(f"{estimate:.3f}")
    return f"{what} is {est} (95% interval {end_text(low, '.3f')} to {end_text(high, '.3f')}), {says}"


MEASURE_NAMES = {"ndcg@10": "NDCG@10", "mrr": "MRR", "recall@100": "Recall@100", "recall@10": "Recall@10"}


def setting_words(setting: str) -> str:
    """`bm25/global` as the notebooks name it: "BM25, open collection" (an unknown one as it is)."""
    retriever, _, scope = setting.partition("/")
    return f"{RETRIEVER_NAMES.get(retriever, retriever)}, {SCOPE_NAMES.get(scope, scope)}"


def significance(
    names_significant: Mapping[str, bool | None], against: str, directions: Mapping[str, str] | None = None
) -> str:
    """Which comparisons survived their test (with each one's direction where `directions` gives it), which did
    not, and which had none (None: too few claims to test, which was counted "not significant")."""
    directions = directions or {}
    yes = [
        f"{n} ({directions[n]})" if n in directions else n for n, s in names_significant.items() if s is not None and s
    ]
    no = [n for n, s in names_significant.items() if s is not None and not s]
    untested = [n for n, s in names_significant.items() if s is None]
    parts = [f"significantly different from {against}: {', '.join(yes) if yes else 'none'}"]
    if no:
        parts.append(f"not significant: {', '.join(no)}")
    if untested:
        parts.append(f"not tested (too few claims): {', '.join(untested)}")
    return "; ".join(parts)


def findings(m: Mapping[str, Mapping[str, Any]], systems: Sequence[str], focus: str = "bm25/claim") -> list[Finding]:
    """The synthesis' findings, in the order of the notebooks; `systems` are the published runs of notebook 05
    (params `averitec.systems`), among which the best is found."""
    v = lambda ref: value(m, ref)  # noqa: E731
    out = []
    qp = f"query_planning.json:ndcg@10.{focus}"
    out.append(
        Finding(
            "planners",
            compare("ORACLE-QUERIES", v(f"{qp}.oracle"), "CLAIM-ONLY", v(f"{qp}.claim_only"), f"NDCG@10 ({focus})")
            + "; "
            + compare("BLOOM-QG", v(f"{qp}.bloom_qg"), "CLAIM-ONLY", v(f"{qp}.claim_only"), "NDCG@10"),
            (f"{qp}.oracle", f"{qp}.claim_only", f"{qp}.bloom_qg"),
        )
    )
    sig = {
        k.split(".", 1)[1]: flag(m, f"retrieval.json:{k}")
        for k in m["retrieval"]
        if k.startswith("significant_vs_baseline.")
    }
    survive = {
        k.split(".", 1)[1]: flag(m, f"retrieval.json:{k}") for k in m["retrieval"] if k.startswith("survives_coverage.")
    }
    # the setting notebook 04 tests in, named (the finding before rests on another: BLOOM-QG higher on the claim
    # pool beside "significantly different" in the open collection, where it is lower), and each direction
    # (from the per-claim means it tested, `bootstrap_ci`, recorded for every planner: the curves' `ablation`
    # held four, and two significant calls were printed without one), against the baseline it tested against
    r = m["retrieval"]
    where, measure = f"{r.get('setting.retriever')}/{r.get('setting.scope')}", r.get("setting.measure")
    against = planner(value(m, "retrieval.json:setting.baseline", text=True))
    scores = {k.split(".", 1)[1]: ci[0] for k, ci in r.items() if k.startswith("bootstrap_ci.") and ci}
    base = scores.get(against)
    directions = {
        n: f"{'higher' if scores[n] > base else 'lower'}, {apart(scores[n], '.3f', base)} against "
        f"{apart(base, '.3f', scores[n])}"
        for n in sig
        if base is not None and n in scores and not noise_equal(scores[n], base)
    }
    if missing := [n for n, called in sig.items() if called and (base is None or n not in scores)]:
        raise NamedError(  # a significant call printed bare read as a direction not recorded
            f"retrieval.json: no bootstrap_ci mean for {', '.join(missing)} or for the baseline {against}, whose "
            "tests are significant: rerun stage retrieval_metrics (notebook 04)"
        )
    out.append(
        Finding(
            "planners",
            f"Paired t-test, Holm over notebook 04's {v('retrieval.json:comparisons')} tests, in its setting in focus "
            f"({setting_words(where)}, {MEASURE_NAMES.get(measure, measure)}): "
            + significance(sig, against, directions)
            + (
                f"; of these calls, the same when unjudged documents are left out (condensed NDCG@10 and bpref): "
                f"{', '.join(n for n, ok in survive.items() if ok) or 'none'}"
                if survive
                else ""
            ),
            (
                "retrieval.json:significant_vs_baseline",
                "retrieval.json:bootstrap_ci",
                "retrieval.json:survives_coverage",
                "retrieval.json:setting",
            ),
        )
    )
    group = lambda side: {  # noqa: E731
        k.rsplit(".", 1)[1]: val for k, val in m["aggregation"].items() if k.startswith(f"{side}_group_of_six.ndcg@10.")
    }
    tops, bottoms = group("top"), group("bottom")
    out.append(
        Finding(
            "aggregation",
            f"Paired t-tests, Holm over notebook 03's {v('aggregation.json:group_comparisons')} comparisons: of the "
            f"thesis' six methods, COMBMAX-NORM is in the top group by NDCG@10 in "
            f"{sum('COMBMAX-NORM' in g for g in tops.values())} of {len(tops)} retriever/scope settings (alone in "
            f"{sum(g == ['COMBMAX-NORM'] for g in tops.values())}) and TOP-1 in the bottom group in "
            f"{sum('TOP-1' in g for g in bottoms.values())} (alone in {sum(g == ['TOP-1'] for g in bottoms.values())})",
            ("aggregation.json:top_group_of_six", "aggregation.json:bottom_group_of_six"),
        )
    )
    scores = pd.Series({name: v(f"averitec.json:runs.{name}.averitec@0.25") for name in systems}, dtype=float)
    top = highest(scores, ".3f")  # a tie named whole, as printed, never its first system as the best
    if not top:
        best = "no published run is scored (params averitec.systems is empty)"
    elif len(top) == 1:
        best = f"the best of the {len(systems)} published runs at AVeriTeC@0.25 is {top[0]} ({scores[top[0]]:.3f})"
    else:
        best = (
            f"the best of the {len(systems)} published runs at AVeriTeC@0.25 are {and_list(top)}, tied at "
            f"{scores[top[0]]:.3f}"
        )
    out.append(
        Finding(
            "scoring",
            compare(
                "ORACLE-QUERIES",
                v("averitec.json:runs.oracle.qa"),
                "CLAIM-ONLY",
                v("averitec.json:runs.claim_only.qa"),
                "Q+A evidence score",
            )
            + f"; {best}",
            (
                "averitec.json:runs.oracle.qa",
                "averitec.json:runs.claim_only.qa",
                *(f"averitec.json:runs.{name}.averitec@0.25" for name in top),
            ),
        )
    )
    g = "generative.json:retrieval"
    out.append(
        Finding(
            "planners",
            compare(
                "QGEN (distilled generator)",
                v(f"{g}.qgen.{focus}.ndcg@10"),
                "CLAIM-ONLY",
                v(f"{g}.claim_only.{focus}.ndcg@10"),
                f"NDCG@10 ({focus})",
            ),
            (f"{g}.qgen.{focus}.ndcg@10", f"{g}.claim_only.{focus}.ndcg@10"),
        )
    )
    s = "nli.json:averitec.settings"
    out.append(
        Finding(
            "verdicts",
            compare(
                "GOLD evidence",
                v(f"{s}.gold.macro_f1"),
                "CLAIM-ONLY-NO-EVIDENCE",
                v(f"{s}.claim_only_no_evidence.macro_f1"),
                "Verdict macro-F1",
            ),
            (f"{s}.gold.macro_f1", f"{s}.claim_only_no_evidence.macro_f1"),
        )
    )
    tested = {
        setting_name(k.split(".")[2]): flag(m, f"nli.json:{k}")
        for k in m["nli"]
        if k.startswith("averitec.against_baseline.planner:") and k.endswith(".significant")
    }
    _, against, alpha = verdict_tests(m)
    out.append(
        Finding(
            "verdicts",
            f"Planners' top-k evidence against the {against} evidence (paired bootstrap on macro-F1, p < {alpha:g} "
            "without a correction for the number of planners): " + significance(tested, against),
            ("nli.json:averitec.against_baseline", "nli.json:averitec.baseline", "nli.json:averitec.alpha"),
        )
    )
    f = "errors.json:family_share"
    out.append(
        Finding(
            "errors",
            compare(
                "retrieval errors",
                v(f"{f}.retrieval"),
                "verifier (NLI) errors",
                v(f"{f}.NLI"),
                "Share of wrong verdicts",
                fmt=".1%",  # as notebook 08 prints the family shares
            )
            + "; the same rules code {} of the wrong verdicts as retrieval, against {} of the right ones "
            "(difference {}, ".format(  # as printed together: 29.5% against 29% stood beside "+0.02%"
                *shares_apart(
                    v("errors.json:baseline.retrieval.wrong verdicts"),
                    v("errors.json:baseline.retrieval.right verdicts"),
                )
            )
            + f"{value(m, 'errors.json:baseline.retrieval.call', text=True)} over claims)",
            (f"{f}.retrieval", f"{f}.NLI", "errors.json:baseline.retrieval"),
        )
    )
    u = "utility.json:spearman.official|ndcg@10|utility (-KL)"
    c = "utility.json:spearman.official|ndcg@10|correct"
    # notebook 09 writes NaN where a correlation or its interval is undefined: `interval` says so
    r = lambda ref: [value(m, f"{ref}.{part}", undefined=True) for part in ("rho", "low", "high")]  # noqa: E731
    out.append(
        Finding(
            "utility",
            interval("Spearman's ρ of per-claim NDCG@10 with utility (−KL)", *r(u))
            + "; "
            + interval("with a correct verdict", *r(c)),
            (f"{u}.rho", f"{c}.rho"),
        )
    )
    return out


def limits(m: Mapping[str, Mapping[str, Any]]) -> list[Finding]:
    """The limits of the evidence, stated once: judgement completeness and the verifier's strength."""
    with_gold = value(m, "store.json:claims_with_relevant_share")
    without = value(m, "store.json:claims_with_relevant_without_gold_share")
    if without > with_gold:
        raise ValueError(
            f"store.json: {without} of claims keep a relevant document without gold answers, more than with them ({with_gold})"
        )
    s = "nli.json:averitec.settings"
    gold, naive = value(m, f"{s}.gold.macro_f1"), value(m, f"{s}.naive.macro_f1")

    # the gap is the printed shares' difference (12.3% and 10.1% were "2.3%" apart), at the decimals that tell
    # the two shares apart, and each from none and all (99.96% printed "100.0%", and the gap with it)
    def clash(v: float, others: tuple[float, ...], d: int) -> bool:
        return any(not noise_equal(v, o) and f"{v:.{d}%}" == f"{o:.{d}%}" for o in others)

    d = 1
    while d < 12 and (clash(with_gold, (0.0, 1.0, without), d) or clash(without, (0.0, 1.0), d)):
        d += 1
    fmt = f".{d}%"
    gap = unsigned_zero(format(printed(with_gold, fmt) - printed(without, fmt), fmt))
    # the store rebuilt without the gold answers (stage without_gold) retrieves other documents in their place: a
    # measured figure beside this store's estimate, named as such (36.4% here and 42.6% in section 5 read as one)
    rebuilt = ""
    if "store.claims" in m.get("without_gold", {}):
        claims, kept = (
            value(m, "without_gold.json:store.claims"),
            value(m, "without_gold.json:store.claims_with_relevant"),
        )
        if not 0 <= kept <= claims or not claims:
            raise ValueError(f"without_gold.json: {kept} of {claims} claims with a relevant document")
        rebuilt = (
            f" The store rebuilt without them, which retrieves other documents in their place, gives "
            f"{apart(kept / claims, fmt, (0.0, 1.0, without))} of claims a relevant document (section 5)."
        )
    return [
        Finding(
            "judgement completeness",
            f"{with_gold:{fmt}} of the dev claims have a relevant document; without the annotators' own answers as "
            f"documents, this store's judgements give an estimated {without:{fmt}}, so for {gap} of the claims every "
            f"relevant document in it is a gold answer.{rebuilt} "
            f"{judgement_limit(value(m, 'store.json:settings.source', text=True))}",
            (
                "store.json:claims_with_relevant_share",
                "store.json:claims_with_relevant_without_gold_share",
                "store.json:settings.source",
                *(("without_gold.json:store",) if rebuilt else ()),
            ),
        ),
        Finding(
            "verifier strength",
            f"Even with the gold evidence the verifier reaches macro-F1 {gold:.3f} (the majority class: {naive:.3f}). "
            "It is the small classifier trained in notebook 07; the verdict-level findings are about this verifier, "
            "and a stronger one could separate the planners' evidence differently.",
            (f"{s}.gold.macro_f1", f"{s}.naive.macro_f1"),
        ),
    ]


# --- 5. the store the headlines rest on ------------------------------------------------------------------

STORE_FIGURES = (  # (column, key with the gold answers in the store, key without them); {p}: the plan
    (
        "NDCG@10 (BM25, claim pool)",
        "query_planning.json:ndcg@10.bm25/claim.{p}",
        "without_gold.json:retrieval.bm25/claim.ndcg@10.{p}",
    ),
    (
        "Recall@100 (BM25, whole collection)",
        "query_planning.json:recall@100.bm25/global.{p}",
        "without_gold.json:retrieval.bm25/global.recall@100.{p}",
    ),
    ("Q+A", "averitec.json:runs.{p}.qa", "without_gold.json:evidence.{p}.qa"),
    ("AVeriTeC@0.25", "averitec.json:runs.{p}.averitec@0.25", "without_gold.json:evidence.{p}.averitec@0.25"),
)
WITH_GOLD, WITHOUT_GOLD = "with the gold answers", "without them"
# the store's figures as the metrics files hold them (4 decimals): printed again at 3 decimals a stored 0.5025 (of
# 0.50254) read 0.502 beside the 0.503 of the notebook that measured it (the fiftieth pass)
DECIMALS = 4
STORED = f".{DECIMALS}f"


def store_table(m: Mapping[str, Mapping[str, Any]], plans: Sequence[str]) -> pd.DataFrame:
    """Per plan, the main retrieval and evidence figures of the store with the dev gold answers as documents
    (the main run) and of the store without them (stage `without_gold`): columns (figure, setting). The two
    evidence scores must come from one answering setting (a dense main run beside the rebuilt store's BM25 read
    as what removing the gold answers did)."""
    pairs = (("retriever", "retriever"), ("scope", "scope"), ("temporal", "temporal"), ("verdict_source", "verdict"))
    main = {k: m.get("averitec", {}).get(f"setting.{k}") for k, _ in pairs}
    rebuilt = {k: m.get("without_gold", {}).get(f"answers.{w}") for k, w in pairs}
    if main != rebuilt:
        raise NamedError(
            f"averitec.json answers with {main}, without_gold.json with {rebuilt}: the two evidence scores are not "
            "comparable; rerun stages averitec and without_gold (`dvc repro`)"
        )
    rows = {
        p: {
            (col, setting): value(m, ref.format(p=p))
            for col, with_ref, without_ref in STORE_FIGURES
            for setting, ref in ((WITH_GOLD, with_ref), (WITHOUT_GOLD, without_ref))
        }
        for p in plans
    }
    return pd.DataFrame(rows).T


def store_shares(metrics: Mapping[str, Mapping[str, Any]]) -> tuple[float, float]:
    """The share of dev claims with a relevant document in the study's store (`store.json`) and in the store
    rebuilt without the gold answers (`without_gold.json`), refused where the two count different claims (a
    share of 100 claims beside one of 500 compares different claims)."""
    store, rebuilt = metrics["store"], metrics["without_gold"]  # flattened (`load_metrics`)
    n_store, n_rebuilt = store["dataset.dev.claims"], rebuilt["store.claims"]
    if n_store != n_rebuilt or not n_rebuilt:
        raise NamedError(
            f"store.json counts {n_store} dev claims and without_gold.json {n_rebuilt}: their shares of claims "
            "with a relevant document are not comparable (expected the same dev claims: rerun the stages "
            "knowledge_store and without_gold on the same data)"
        )
    return float(store["claims_with_relevant_share"]), rebuilt["store.claims_with_relevant"] / n_rebuilt


def store_sentence(table: pd.DataFrame, share_with: float, share_without: float) -> str:
    """What removing the gold answers from the store does to the AVeriTeC score of each plan of `table`
    (`store_table`), and to the gap between the best plan and the others, checked rather than assumed."""
    col = "AVeriTeC@0.25"
    before, after = table[(col, WITH_GOLD)].astype(float), table[(col, WITHOUT_GOLD)].astype(float)
    # as printed (the metrics files' 4 decimals, as the table beside it): 0.30004 and 0.30001 are a tie at 0.3000,
    # not a lead, and the gaps are those of the printed figures (0.30006 over 0.30004 is a lead of 0.0001)
    before, after = before.map(lambda v: printed(v, STORED)), after.map(lambda v: printed(v, STORED))
    if missing := [str(p) for p in table.index if before[p] != before[p] or after[p] != after[p]]:  # "+nan"
        raise ValueError(f"store_sentence: no {col} for {and_list(missing)} on one of the stores (NaN)")
    fell = int((after < before).sum())
    top = highest(before)
    if not top:
        raise ValueError("store_sentence: no plan has an AVeriTeC score with the gold answers in the store")
    if len(top) > 1:  # idxmax named the first of a tie as the leader
        return (
            f"With the gold answers in the store {apart(share_with, '.1%', (0.0, 1.0))} of dev claims have a relevant document; without "
            f"them {apart(share_without, '.1%', (0.0, 1.0))}. Without them, {col} falls for {fell} of {len(before)} plans; with them "
            f"{and_list(top)} tie as the best ({before[top[0]]:{STORED}}), so no plan has a lead to keep or lose."
        )
    best = top[0]
    # compared as printed (3 decimals): a difference below the printed precision is no change
    gap_before = round(before[best] - before.drop(best).max(), DECIMALS) if len(before) > 1 else 0.0
    gap_after = round(after[best] - after.drop(best).max(), DECIMALS) if len(after) > 1 else 0.0  # printed ones
    if len(before) < 2:  # one plan has no lead to keep ("stays (+0.0000 to +0.0000)")
        lead = "there is no other plan to lead"
    elif gap_after < 0:  # "shrinks" said of a plan that had lost the lead; every plan ahead of it named
        lead = f"it loses the lead to {and_list(highest(after.drop(best)))} ({gap_before:+{STORED}} to {gap_after:+{STORED}})"
    elif gap_after == 0:  # a lead of +0.0000 is none: the plans are level
        lead = f"its lead is gone: it ties with {and_list(highest(after.drop(best)))} ({gap_before:+{STORED}} to {0:+{STORED}})"
    else:
        verb = "shrinks" if gap_after < gap_before else "grows" if gap_after > gap_before else "stays"
        lead = f"its lead over the next plan {verb} ({gap_before:+{STORED}} to {gap_after:+{STORED}})"
    return (
        f"With the gold answers in the store {apart(share_with, '.1%', (0.0, 1.0))} of dev claims have a relevant document; without "
        f"them {apart(share_without, '.1%', (0.0, 1.0))}. Without them, {col} falls for {fell} of {len(before)} plans; "
        f"{best}, the best with them ({before[best]:{STORED}}), scores {after[best]:{STORED}}, and {lead}."
    )
