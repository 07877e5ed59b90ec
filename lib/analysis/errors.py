"""Automatic error codes per claim and method, after the thesis' error taxonomy (notebook 08).

A *method* is a planner whose top-k documents the gold-evidence classifier of notebook 07 read
(`outputs/nli/planners/predictions.parquet`, settings `planner:<name>`). Each wrong verdict gets exactly
one code; the rules run in this order and the first that holds wins:

1. `evidence unavailable` (unverifiable): the store holds no relevant document for the claim (no qrel
   of grade >= `min_grade`). Nothing a retriever does could have found evidence.
2. `possible label error` (unverifiable, for a person to check): the published AVeriTeC systems agree on
   one label (share >= `label_error_share` of at least `min_systems` systems), that label is not the
   annotated one, and our classifier predicted it too.
3. `unjudged evidence` (coverage): the top-k are not mostly relevant, and most of them were never judged
   (the share of top-k documents with any judgement is below `found_share`). Unjudged documents are not
   known to be irrelevant, so the judgements cannot tell a retrieval error from evidence the pool missed.
4. Retrieval errors, when the top-k are *mostly irrelevant*: the share of top-k documents with grade >=
   `min_grade` is below `found_share`, and most of them were judged. In this order:
   - `homogeneous retrieval`: the top-k are near-duplicates (mean pairwise cosine of their MiniLM
     embeddings >= `homogeneity`). Checked first because it is a property of the ranking itself: k slots
     spent on one text (e.g. the claim copied k times) miss evidence whichever aspect was missing.
   - `missed implicit aspect`: the gold questions whose evidence the top-k missed are, on average, about
     things the claim does not say (mean content-word coverage of those questions by the claim below
     `implicit_coverage`). A claim-driven retriever could not have asked for them.
   - `noisy retrieval`: otherwise (a missed explicit aspect, varied but off-topic top-k).
5. `NLI error`: relevant evidence was found (share >= `found_share`) and the verdict is still wrong.

A question's evidence is "found" when a top-k document is one of its gold answers (grade 2, traced
through the store's `gold` hits) or comes from one of its answers' source URLs (grade 1). Coverage is
the share of a question's content words (lower-cased, stop words removed, Porter-stemmed) that occur
in the claim. Every threshold is a parameter (`params.yaml`, section `error_analysis.rules`).

The same rules applied to the right verdicts (`rule_code`: the code a verdict would get if it were wrong)
give each code's baseline: a code that describes right and wrong verdicts alike says little about where
the wrong ones come from (`baseline`, with intervals by resampling claims).

Also here: `DEFINITIONS`, the one text per code that the notebook and the coding guide
(`annotations/README.md`) both quote; the seeded manual-coding sheet (codes hidden, so people code
blind); Cohen's kappa and the confusion table between a filled sheet and the automatic codes.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import pandas as pd
from pydantic import ConfigDict, Field

from lib import outputs as OUT
from lib import sheets as SH
from lib.data import averitec
from lib.evaluation.agreement import cohen_kappa
from lib.evaluation.printing import (
    difference_as_printed,
    noise_equal,
    points_text,
    printed,
    share_shown,
    share_text,
    shares_apart,
    signed_text,
)
from lib.evaluation.significance import MIN_CLUSTERS, enough_resamples, sign_of
from lib.params import PosInt, Section, Share, Threshold
from lib.retrieval import runs as RU
from lib.retrieval.bm25 import tokenize
from lib.site import display as DS
from lib.store.build import load_store, qrels_dict
from lib.store.urls import normalise_url
from lib.verifier import veracity as V

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

CORRECT = "correct"
EVIDENCE_UNAVAILABLE = "evidence unavailable"
LABEL_ERROR = "possible label error"
IMPLICIT = "missed implicit aspect"
HOMOGENEOUS = "homogeneous retrieval"
NOISY = "noisy retrieval"
NLI_ERROR = "NLI error"
UNJUDGED = "unjudged evidence"
ERROR_CODES = (EVIDENCE_UNAVAILABLE, LABEL_ERROR, UNJUDGED, IMPLICIT, HOMOGENEOUS, NOISY, NLI_ERROR)
FAMILIES = ("retrieval", "NLI", "unverifiable", "coverage")
FAMILY = {
    EVIDENCE_UNAVAILABLE: "unverifiable",
    LABEL_ERROR: "unverifiable",
    UNJUDGED: "coverage",
    IMPLICIT: "retrieval",
    HOMOGENEOUS: "retrieval",
    NOISY: "retrieval",
    NLI_ERROR: "NLI",
    CORRECT: "correct",
}
# One text per code: the notebook's table and the coding guide (annotations/README.md) quote these words.
DEFINITIONS = {
    EVIDENCE_UNAVAILABLE: "the store holds no relevant document for the claim: nothing a retriever does could have found evidence",
    LABEL_ERROR: "the published systems agree on the predicted label, not the annotated one: a person should check the label",
    UNJUDGED: "most of the evidence read was never judged, so the judgements cannot tell whether it was relevant",
    IMPLICIT: "the evidence is mostly irrelevant and misses what the claim does not say but verification needs",
    HOMOGENEOUS: "the evidence is mostly irrelevant and repeats one text (near-duplicates)",
    NOISY: "the evidence is mostly irrelevant and varied, missing an aspect the claim states",
    NLI_ERROR: "relevant evidence was read and the verdict is still wrong",
}
# The coding sheet: one row per sampled claim; for every method wrong on it, `<field>:<method>` columns with
# its prediction and evidence and a blank code to fill (`CODE_PREFIX`).
SHEET_COLUMNS = ("sheet_id", "claim_id", "claim", "label", "gold_questions")
SHEET_PER_METHOD = ("prediction", "evidence", "code")
CODE_PREFIX = "code:"


class Rules(Section):
    """The thresholds of the rules above (params `error_analysis.rules`; defaults as in params.yaml)."""

    params_complete = True

    model_config = ConfigDict(frozen=True)

    min_grade: Annotated[int, Field(ge=1, le=2)] = 1  # a qrel grade that counts as relevant (2: gold answers only)
    found_share: Threshold = 0.5  # top-k share of relevant documents below which retrieval failed
    homogeneity: Annotated[float, Field(ge=-1, le=1)] = 0.85  # mean pairwise cosine at or above which the top-k
    # are near-duplicates
    implicit_coverage: Share = 0.5  # mean claim coverage of the missed questions below which they are implicit
    label_error_share: Threshold = 0.85  # share of published systems that must agree on the other label
    min_systems: PosInt = 3  # fewer published predictions than this: no label-error flag


@dataclass(frozen=True)
class Case:
    """What the rules look at for one claim and method."""

    label: str
    pred: str
    store_grades: tuple[int, ...]  # grades of the claim's judged documents in the whole store
    top_grades: tuple[int, ...]  # grades of the top-k documents (0 when unjudged)
    homogeneity: float  # mean pairwise cosine of the top-k documents (nan below 2)
    question_found: tuple[int, ...]  # per gold question: best grade of its own evidence in the top-k (0: missed)
    question_coverage: tuple[float, ...]  # per gold question: share of its content words in the claim
    consensus_label: str | None = None  # the published systems' most frequent label
    consensus_share: float = 0.0
    n_systems: int = 0
    top_judged: tuple[bool, ...] | None = None  # per top-k document: judged at all (None: every one was)


def relevant_share(grades: Sequence[int], min_grade: int) -> float:
    """Share of the top-k with grade >= min_grade (0 for an empty top-k)."""
    return float(np.mean([g >= min_grade for g in grades])) if len(grades) else 0.0


def judged_share(case: Case) -> float:
    """Share of the top-k documents with a judgement of any grade (1 when unknown or nothing retrieved)."""
    return float(np.mean(case.top_judged)) if case.top_judged is not None and len(case.top_judged) else 1.0


def missed_coverage(case: Case, min_grade: int) -> float:
    """Mean claim coverage of the gold questions whose evidence the top-k missed (nan: none missed)."""
    missed = [cov for found, cov in zip(case.question_found, case.question_coverage) if found < min_grade]
    return float(np.mean(missed)) if missed else float("nan")


def code(case: Case, rules: Rules = Rules(), if_wrong: bool = False) -> str:
    """The case's error code (`correct` when the verdict is right); rules in the module docstring's order.
    `if_wrong`: the code the rules give the case as if its verdict were wrong (the baseline of a right one)."""
    if case.pred == case.label and not if_wrong:
        return CORRECT
    if not any(g >= rules.min_grade for g in case.store_grades):
        return EVIDENCE_UNAVAILABLE
    if (
        case.n_systems >= rules.min_systems
        and case.consensus_label not in (None, case.label)
        and case.consensus_label == case.pred
        and case.consensus_share >= rules.label_error_share
    ):
        return LABEL_ERROR
    if relevant_share(case.top_grades, rules.min_grade) < rules.found_share:
        if judged_share(case) < rules.found_share:
            return UNJUDGED
        if case.homogeneity >= rules.homogeneity:
            return HOMOGENEOUS
        if missed_coverage(case, rules.min_grade) < rules.implicit_coverage:  # False for nan
            return IMPLICIT
        return NOISY
    return NLI_ERROR


# --------------------------------------------------------------------------- the quantities the rules read


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


def content_words(text: str) -> set[str]:
    """Stemmed, lower-cased word tokens without English stop words."""
    stop, stem = _stop_words(), _stemmer().stem
    return {stem(t) for t in tokenize(text) if t not in stop}


def coverage(question: str, claim: str) -> float:
    """Share of the question's content words that the claim contains (1.0 for a question with none)."""
    q = content_words(question)
    return len(q & content_words(claim)) / len(q) if q else 1.0


def homogeneity(vectors: np.ndarray) -> float:
    """Mean pairwise cosine similarity of the rows (nan for fewer than two rows)."""
    v = np.asarray(vectors, dtype=float)
    if len(v) < 2:
        return float("nan")
    v = v / np.clip(np.linalg.norm(v, axis=1, keepdims=True), 1e-12, None)
    sims = v @ v.T
    return float(np.mean([sims[i, j] for i, j in combinations(range(len(v)), 2)]))


def consensus(labels: Iterable[str | None]) -> tuple[str | None, float, int]:
    """(most frequent label, its share, number of labels) of the published systems' predictions;
    ties go to the label first seen."""
    given = [x for x in labels if x is not None]
    if not given:
        return None, 0.0, 0
    label, count = Counter(given).most_common(1)[0]
    return label, count / len(given), len(given)


def question_docs(
    claim: averitec.Claim, gold_hits: Mapping[int, str], docs_by_url: Mapping[str, Sequence[str]]
) -> list[dict[str, int]]:
    """For each gold question of the claim, {doc_id: grade} of the store documents that are its
    evidence: its answers' own documents (grade 2; `gold_hits`: {answer index in claim order: doc_id})
    and the documents from its answers' source URLs (grade 1)."""
    out, i = [], 0
    for q in claim.questions:
        ids: dict[str, int] = {}
        for a in q.answers:
            url = normalise_url(a.source_url)
            for did in docs_by_url.get(url, ()) if url else ():
                ids.setdefault(did, 1)
            if i in gold_hits:
                ids[gold_hits[i]] = 2
            i += 1
        out.append(ids)
    return out


# --------------------------------------------------------------------------- every claim and method


def published_consensus(
    systems: Mapping[str, Sequence[averitec.SystemOutput]],
) -> dict[int, tuple[str | None, float, int]]:
    """{claim_id: consensus(...)} over the published systems' predicted labels."""
    labels: dict[int, list[str | None]] = defaultdict(list)
    for outputs in systems.values():
        for o in outputs:
            labels[o.claim_id].append(o.pred_label)
    return {cid: consensus(ls) for cid, ls in labels.items()}


def cases(
    preds: pd.DataFrame,
    top_docs: Mapping[str, Mapping[int, Sequence[str]]],
    claims: Sequence[averitec.Claim],
    qrels: Mapping[str, Mapping[str, int]],
    docs: pd.DataFrame,
    hits: pd.DataFrame,
    doc_vectors: np.ndarray,
    consensus_of: Mapping[int, tuple[str | None, float, int]],
) -> pd.DataFrame:
    """One row per (method, claim) with the fields of its `Case` (the rules' inputs, no thresholds yet).

    `preds`: one row per method and claim (columns method, claim_id, label, pred); `top_docs`:
    {method: {claim_id: top-k doc_ids}}; `doc_vectors`: embeddings in the row order of `docs`;
    `hits`: the store's hits (its `gold` rows tie answers to documents).
    """
    by_id = {c.claim_id: c for c in claims}
    row_of = {d: i for i, d in enumerate(docs["doc_id"])}
    docs_by_url: dict[str, list[str]] = defaultdict(list)
    for did, url in zip(docs["doc_id"], docs["norm_url"]):
        if url:
            docs_by_url[url].append(did)
    gold = hits[hits["origin"] == "gold"]
    gold_hits: dict[int, dict[int, str]] = defaultdict(dict)
    for cid, rank, did in zip(gold["claim_id"], gold["rank"], gold["doc_id"]):
        gold_hits[int(cid)][int(rank)] = did
    q_docs = {cid: question_docs(c, gold_hits.get(cid, {}), docs_by_url) for cid, c in by_id.items()}
    q_cov = {cid: tuple(coverage(q.text, c.text) for q in c.questions) for cid, c in by_id.items()}
    rows = []
    for method, cid, label, pred in zip(preds["method"], preds["claim_id"], preds["label"], preds["pred"]):
        cid = int(cid)
        judged = qrels.get(str(cid), {})
        top = tuple(top_docs[method].get(cid, ()))
        vecs = doc_vectors[[row_of[d] for d in top]] if top else np.zeros((0, doc_vectors.shape[1]))
        found = tuple(max((ids.get(d, 0) for d in top), default=0) for ids in q_docs[cid])
        rows.append(
            {
                "method": method,
                "claim_id": cid,
                **Case(
                    label,
                    pred,
                    tuple(sorted(g for g in judged.values() if g > 0)),
                    tuple(judged.get(d, 0) for d in top),
                    homogeneity(vecs),
                    found,
                    q_cov[cid],
                    *consensus_of.get(cid, (None, 0.0, 0)),
                    top_judged=tuple(d in judged for d in top),
                ).__dict__,
            }
        )
    return pd.DataFrame(rows)


def study_cases(
    planners_dir: Path | str,
    runs: Sequence[Path | str],
    store_dir: Path | str,
    data_dir: Path | str,
    systems: Mapping[str, str],
    embeddings_model: str,
    embeddings_dir: Path | str | None = None,
    seed: int | None = None,
    qrels: Mapping[str, Mapping[str, int]] | None = None,
) -> tuple[pd.DataFrame, list[averitec.Claim], dict[str, dict[int, tuple[str, ...]]]]:
    """The study's cases: every planner of notebook 07 at its main k (first seed) on the AVeriTeC dev
    claims, judged by `qrels` (default: the store's official grades; e.g. a `lib.store.judgements` variant).
    Returns (case table, dev claims, {method: {claim_id: top-k texts}})."""

    planners_dir, data_dir = Path(planners_dir), Path(data_dir)
    report = OUT.read_json(planners_dir / "report.json")
    preds = OUT.read_parquet(planners_dir / "predictions.parquet")
    seed = report["seeds"][0] if seed is None else seed
    preds = preds[(preds["kind"] == "planner") & (preds["k"] == report["k"]) & (preds["seed"] == seed)]
    preds = preds.assign(method=preds["setting"].str.removeprefix(V.PLANNER))
    methods = list(dict.fromkeys(preds["method"]))
    top = {m: V.top_k_docs(r, report["k"]) for m, r in V.planner_runs(runs, methods, report["retrieval"]).items()}
    store = load_store(store_dir)
    claims = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    vectors = RU.document_embeddings(
        embeddings_model, store.docs["doc_id"].tolist(), RU.EMB_DOCS_DIR if embeddings_dir is None else embeddings_dir
    )
    published = {
        name: averitec.load_system_output(data_dir / "averitec" / "systems" / f, claims=claims)
        for name, f in systems.items()
    }
    table = cases(
        preds[["method", "claim_id", "label", "pred"]],
        top,
        claims,
        qrels_dict(store.qrels) if qrels is None else qrels,
        store.docs,
        store.hits,
        vectors,
        published_consensus(published),
    )
    text = dict(zip(store.docs["doc_id"], store.docs["text"]))
    evidence = {m: {c: tuple(text[d] for d in ids) for c, ids in t.items()} for m, t in top.items()}
    return table, claims, evidence


def largest_family(shares: Mapping[str, float]) -> str | None:
    """The error family with the largest share of wrong verdicts (None on a tie for first place, or where a share
    is undefined: `max` over NaN answered by the order of the keys)."""
    if any(v != v for v in shares.values()):
        return None
    first = leaders(shares)
    return first[0] if len(first) == 1 else None


def leaders(shares: Mapping[str, float]) -> list[str]:
    """The names tied for the largest (defined) share but for noise, largest first; a tie keeps the mapping's
    order (np.isclose's 1e-5 tied 47.50% and 47.49%; `noise_equal` does not)."""
    ranked = sorted(shares.items(), key=lambda kv: -kv[1])  # stable
    return [name for name, v in ranked if noise_equal(v, ranked[0][1])]


def top_code_sentence(shares: Mapping[str, float]) -> str:
    """The most frequent code of the wrong verdicts and its share, printed apart from the runner-up's (33.3%
    ahead of 32.9%, not "33%" beside another 33%); codes tied but for noise are named together, an undefined
    share is said to be one."""
    if undefined := [c for c, v in shares.items() if v != v]:
        return f"The most frequent code is undefined (no share for {', '.join(undefined)})."
    ranked = sorted(shares.items(), key=lambda kv: -kv[1])  # stable: a tie keeps the table's order
    if not ranked or all(v == 0 for _, v in ranked):  # shares of no wrong verdict: seven codes "tied" at 0%
        return "No wrong verdict was coded."
    (top, v_top), rest = ranked[0], ranked[1:]
    tied = [f"*{c}*" for c in leaders(shares)]
    if len(tied) > 1:
        return f"The most frequent codes are {', '.join(tied[:-1])} and {tied[-1]} ({share_text(v_top)} each)."
    if not rest:
        return f"Every wrong verdict has the code *{top}* ({share_text(v_top)})."
    second, v_second = rest[0]
    shown_top, shown_second, _ = shares_apart(v_top, v_second)
    return f"The most frequent code is *{top}* ({shown_top}), ahead of *{second}* ({shown_second})."


def main_source_sentence(
    shares: Mapping[str, float],
    sweep: Sequence[Mapping[str, float]],
    settings: str = "settings of the threshold sweep",
    fmt: str = ".0%",
) -> str:
    """Which family of codes is the largest, at the defaults and in how many rows of a sensitivity table
    (each a {family: share}, described by `settings`), as a sentence from the checked condition; shares
    printed (and compared) as `fmt` prints them."""

    def leader(row: Mapping[str, float]) -> str | None:  # as printed, at the defaults and in a row
        first = largest_family(row)
        shown = sorted((share_shown(v, fmt) for v in row.values()), reverse=True)
        return None if len(shown) > 1 and shown[0] == shown[1] else first  # 50.4% and 49.6% both print 50%

    at_default = leader(shares)
    if shares and all(v == 0 for v in shares.values()):  # no wrong verdict: no family is any share of them
        return "No wrong verdict was coded, so no family of codes is the largest."
    if undefined := [f for f, v in shares.items() if v != v]:  # "b nan%" beside "no single family is the largest"
        return (
            f"The largest family of codes is undefined at the default thresholds (no share for {', '.join(undefined)})."
        )
    if at_default is None:
        return (
            "No single family of codes is the largest at the default thresholds: "
            + ", ".join(f"{f} {share_text(v, fmt)}" for f, v in shares.items())
            + "."
        )
    undefined = sum(any(v != v for v in row.values()) for row in sweep)  # a NaN row was counted as "lost"
    sweep = [row for row in sweep if not any(v != v for v in row.values())]
    held = sum(leader(row) == at_default for row in sweep)
    head = f"The rules code {at_default} as the largest family ({share_text(shares[at_default], fmt)})"
    tail = f" ({undefined} more without every share left out)" if undefined else ""
    if not sweep:  # "it stays the largest in all 0 settings"
        return f"{head}; with no {settings} to vary the thresholds, its stability is not tested{tail}."
    if held == len(sweep):
        return f"{head}, and it stays the largest in all {len(sweep)} {settings}{tail}."
    return f"{head}; it is the largest in {held} of the {len(sweep)} {settings}{tail}."


def apply_rules(table: pd.DataFrame, rules: Rules = Rules()) -> pd.DataFrame:
    """The case table with the derived quantities and each row's `code` and `family` under `rules`."""
    names = [f.name for f in fields(Case)]
    out = table.copy()
    derived = []
    columns = [table[n] if n in table else [None] * len(table) for n in names]  # older tables: no top_judged
    for values in zip(*columns):
        case = Case(*values)
        derived.append(
            {
                "top_relevant": sum(g >= rules.min_grade for g in case.top_grades),
                "relevant_share": relevant_share(case.top_grades, rules.min_grade),
                "missed_questions": sum(f < rules.min_grade for f in case.question_found),
                "missed_coverage": missed_coverage(case, rules.min_grade),
                "judged_share": judged_share(case),
                "code": code(case, rules),
                "rule_code": code(case, rules, if_wrong=True),
            }
        )
    derived = pd.DataFrame(derived, index=table.index)
    for col in derived:
        out[col] = derived[col]
    out["correct"] = out["pred"] == out["label"]
    out["family"] = out["code"].map(FAMILY)
    out["rule_family"] = out["rule_code"].map(FAMILY)
    return out


def distribution(table: pd.DataFrame, by: str | Sequence[str], normalise: bool = True) -> pd.DataFrame:
    """Error codes (rows: the groups of `by`, columns: the codes in taxonomy order) over wrong verdicts;
    shares of each group's errors when `normalise`."""
    errors = table[table["code"] != CORRECT]
    counts = pd.crosstab([errors[b] for b in ([by] if isinstance(by, str) else by)], errors["code"])
    counts = counts.reindex(columns=list(ERROR_CODES), fill_value=0)
    return counts.div(counts.sum(axis=1), axis=0).fillna(0.0) if normalise else counts


def claims_behind(table: pd.DataFrame, by: str | Sequence[str]) -> pd.Series:
    """How many distinct claims the wrong verdicts of each group of `by` come from (the n that its shares
    rest on: one claim wrong for eleven methods is eleven wrong verdicts but one claim)."""
    errors = table[table["code"] != CORRECT]
    return errors.groupby(by)["claim_id"].nunique()


def grouped(table: pd.DataFrame, by: str, min_claims: int = 1, other: str = "other") -> pd.DataFrame:
    """`distribution` of the wrong verdicts by `by` with the claims and wrong verdicts behind each row;
    rows resting on fewer than `min_claims` claims are merged into one row `other` (shares recomputed
    over the merged verdicts), so that no row printed beside the others rests on one or two claims."""
    errors = table[table["code"] != CORRECT]
    small = [g for g, n in claims_behind(table, by).items() if n < min_claims]
    if small:
        errors = errors.assign(
            **{by: errors[by].where(~errors[by].isin(small), f"{other} ({len(small)} with < {min_claims} claims)")}
        )
    counts = distribution(errors, by, normalise=False)
    out = counts.div(counts.sum(axis=1), axis=0).fillna(0.0)
    out.insert(0, "wrong verdicts", counts.sum(axis=1))
    out.insert(0, "claims", errors.groupby(by)["claim_id"].nunique().reindex(out.index))
    merged = [i for i in out.index if str(i).startswith(f"{other} (")]
    return out.loc[[i for i in out.index if i not in merged] + merged]


NO_INTERVAL = "no interval"  # `baseline`'s call where too few claims give no interval


def baseline(
    table: pd.DataFrame, by: str = "rule_family", n_resamples: int = 2000, seed: int = 0, confidence: float = 0.95
) -> pd.DataFrame:
    """Each family (`by="rule_family"`) or code (`"rule_code"`) as a share of the wrong verdicts and of the
    right verdicts under the same rules, the difference and its percentile interval by resampling claims
    (all of a claim's verdicts go together: they share its store and its gold questions), and the claims
    behind each side. `call`: `lib.evaluation.significance.sign_of` of the interval, or `NO_INTERVAL` for fewer
    than `MIN_CLUSTERS` claims (one claim gave a zero-width "95%" interval and a call)."""
    enough_resamples(n_resamples, confidence)  # 1 resample gave a zero-width "95%" interval and a call; 0 an IndexError
    values = list(FAMILIES if by == "rule_family" else ERROR_CODES)
    wrong = (~table["correct"]).to_numpy()
    if wrong.all() or not wrong.any():
        raise ValueError("baseline: needs both wrong and right verdicts")
    ids, inv = np.unique(table["claim_id"].to_numpy(), return_inverse=True)
    hit = np.stack([(table[by] == v).to_numpy() for v in values], axis=1)
    w = np.stack([np.bincount(inv, weights=hit[:, j] & wrong, minlength=len(ids)) for j in range(len(values))], 1)
    r = np.stack([np.bincount(inv, weights=hit[:, j] & ~wrong, minlength=len(ids)) for j in range(len(values))], 1)
    nw, nr = np.bincount(inv, weights=wrong, minlength=len(ids)), np.bincount(inv, weights=~wrong, minlength=len(ids))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(ids), size=(n_resamples, len(ids)))
    tw, tr = nw[draws].sum(axis=1), nr[draws].sum(axis=1)
    keep = (tw > 0) & (tr > 0)
    diff = w[draws].sum(axis=1)[keep] / tw[keep, None] - r[draws].sum(axis=1)[keep] / tr[keep, None]
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(diff, alpha, axis=0), np.quantile(diff, 1 - alpha, axis=0)
    if len(ids) < MIN_CLUSTERS:
        lo, hi = np.full(len(values), np.nan), np.full(len(values), np.nan)
    sw, sr = w.sum(axis=0) / nw.sum(), r.sum(axis=0) / nr.sum()
    return pd.DataFrame(
        {
            "wrong verdicts": sw,
            "right verdicts": sr,
            "difference": sw - sr,
            "low": lo,
            "high": hi,
            "claims (wrong)": (w > 0).sum(axis=0),
            "claims (right)": (r > 0).sum(axis=0),
            "call": [NO_INTERVAL if a != a else sign_of(a, b) for a, b in zip(lo, hi)],
        },
        index=pd.Index(values, name=by),
    )


def share_intervals(
    table: pd.DataFrame,
    by: str,
    column: str = "family",
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Each group of `by`'s wrong verdicts split by `column` (`family` or `code`): the share of each value with
    its percentile interval from resampling the group's claims (a claim's verdicts go together), and the
    claims behind the group. One row per (group, value); a group of fewer than `MIN_CLUSTERS` claims has no
    interval (NaN ends: one claim gave a zero-width interval)."""
    enough_resamples(n_resamples, confidence)
    values = list(FAMILIES if column == "family" else ERROR_CODES)
    errors = table[table["code"] != CORRECT]
    if errors.empty:
        raise ValueError("share_intervals: no wrong verdicts")
    rng = np.random.default_rng(seed)
    alpha = (1 - confidence) / 2
    rows = []
    for group, g in errors.groupby(by, sort=False):
        ids, inv = np.unique(g["claim_id"].to_numpy(), return_inverse=True)
        hits = np.stack([np.bincount(inv, weights=(g[column] == v).to_numpy(), minlength=len(ids)) for v in values], 1)
        totals = np.bincount(inv, minlength=len(ids))
        draws = rng.integers(0, len(ids), size=(n_resamples, len(ids)))
        shares = hits[draws].sum(axis=1) / totals[draws].sum(axis=1)[:, None]
        lo, hi = np.quantile(shares, alpha, axis=0), np.quantile(shares, 1 - alpha, axis=0)
        if len(ids) < MIN_CLUSTERS:
            lo, hi = np.full(len(values), np.nan), np.full(len(values), np.nan)
        for j, v in enumerate(values):
            rows.append(
                {
                    by: group,
                    column: v,
                    "share": hits[:, j].sum() / totals.sum(),
                    "low": lo[j],
                    "high": hi[j],
                    "claims": len(ids),
                }
            )
    return pd.DataFrame(rows).set_index([by, column])


def extremes_sentence(shares: pd.DataFrame, what: str, name=str) -> str:
    """The lowest and the highest share of one value across groups (rows of `share_intervals` for that
    value, indexed by group), with their intervals, and whether the intervals are disjoint. The two are
    picked after seeing all groups and not corrected for it, which the sentence says; a share of 0 (or 1) has a
    zero-width bootstrap interval, so its upper (lower) end is a floor (ceiling), not a bound. Shares and ends
    compare as printed (whole percents): 30.1% and 30.4% are one share, not a lowest and a highest."""
    missing = [str(name(g)) for g in shares.index[shares["share"].isna()]]
    if missing:  # counted, and all-NaN an IndexError
        shares = shares[shares["share"].notna()]
        if shares.empty:
            return f"The {what} is undefined in every group ({', '.join(missing)}): no share to compare."
    share = shares["share"].map(share_shown)  # as printed, kept off 0% and 100% (99.6% is not 100%)
    if share.min() == share.max():  # idxmin and idxmax named one group as both ends
        others = f" ({', '.join(missing)} without a share)" if missing else ""
        return (
            f"The {what} is {share_text(shares['share'].iloc[0])} in every one of the {len(shares)} groups{others}: "
            "no difference to show."
        )
    lows, highs = list(shares.index[share == share.min()]), list(shares.index[share == share.max()])

    # a share of 0 has a zero-width bootstrap interval: its upper end is a floor, so the rule of three (3 / claims,
    # the 95% upper bound of a rate seen 0 times) stands in for it; a share of 1 the same way at its lower end
    # (only where the group has an interval at all: a group under MIN_CLUSTERS claims got 3 / claims in place of
    # its missing end, and "(no interval ...)" stood beside "the two intervals are disjoint")
    def bound(g: Any, end: str, at: float) -> float:
        if shares.loc[g, end] != shares.loc[g, end] or shares.loc[g, "share"] != at:
            return shares.loc[g, end]
        return 3 / shares.loc[g, "claims"] if at == 0 else 1 - 3 / shares.loc[g, "claims"]

    def show(groups: list) -> str:
        if len(groups) > 1:  # tied at an end: every group there named, and the widest of their intervals tested
            return f"{share_text(shares.loc[groups[0], 'share'])} ({', '.join(str(name(g)) for g in groups)}, tied)"
        g = groups[0]
        if shares.loc[g, "low"] != shares.loc[g, "low"]:  # too few claims for an interval
            return f"{share_text(shares.loc[g, 'share'])} (no interval; {name(g)}, {shares.loc[g, 'claims']} claims)"
        # the ends the test reads: "0% [0%, 0%]" stood beside "the intervals overlap" of a rule-of-three end
        low, high = bound(g, "low", 1), bound(g, "high", 0)
        rule = ", an end by the rule of three" if (low, high) != (shares.loc[g, "low"], shares.loc[g, "high"]) else ""
        return (
            f"{share_text(shares.loc[g, 'share'])} [{share_text(low)}, {share_text(high)}] ({name(g)}, "
            f"{shares.loc[g, 'claims']} claims{rule})"
        )

    head = f"The {what} ranges from {show(lows)} to {show(highs)}"
    head += f" ({', '.join(missing)} without a share)" if missing else ""

    upper, lower = [bound(g, "high", 0) for g in lows], [bound(g, "low", 1) for g in highs]
    if any(v != v for v in upper + lower):
        return f"{head}: an end rests on fewer than {MIN_CLUSTERS} claims, too few for an interval, so no difference between the groups is shown."
    if share_shown(max(upper)) < share_shown(min(lower)):  # disjoint as the printed ends show it
        return (
            f"{head}: the two intervals are disjoint (the extremes of {len(shares)} groups, picked after seeing "
            "them, no correction), so these two differ in it."
        )
    return f"{head}: the intervals overlap, so no difference between the groups is shown."


def baseline_decimals(base: pd.DataFrame, most: int = 6) -> int:
    """The fewest decimals (3 to `most`) at which every row of a `baseline` table reads as it should, compared as
    `baseline_table` prints it: its difference as its printed shares subtract lies within its printed interval
    where the exact one does (0.595 - 0.575 = 0.020 beside an interval ending at 0.019, where the exact 0.0190 lies
    inside it; an end under one step prints more decimals: +0.001 beside "+0.0009"), and a share prints 0 or 1
    only where it is one (0.0004 printed "0.000" beside a sentence's "0.04%")."""
    for decimals in range(3, most + 1):
        fmt = f".{decimals}f"
        end = lambda v: float(signed_text(v, "+" + fmt))  # noqa: E731 (as `display.tested` prints a signed column)
        shown = baseline_shown(base, fmt)["difference"]
        inside = all(
            end(lo) <= end(d) <= end(hi)
            for exact, d, lo, hi in zip(base["difference"], shown, base["low"], base["high"])
            if lo <= exact <= hi  # NaN ends (too few claims): nothing to hold
        )
        shares = [v for c in ("wrong verdicts", "right verdicts") for v in base[c] if v == v]
        off_ends = all(printed(v, fmt) not in (0.0, 1.0) or noise_equal(v, printed(v, fmt)) for v in shares)
        if inside and off_ends:
            return decimals
    return most


def baseline_shown(base: pd.DataFrame, fmt: str = ".3f") -> pd.DataFrame:
    """A `baseline` table with each difference as its shares printed with `fmt` subtract (0.594 - 0.574 = 0.020,
    where the exact 0.0195 printed 0.019 beside them; `printing.difference_as_printed`)."""
    return base.assign(
        difference=[
            difference_as_printed(d, w, r, fmt)
            for d, w, r in zip(base["difference"], base["wrong verdicts"], base["right verdicts"])
        ]
    )


def baseline_table(base: pd.DataFrame, uuid: str) -> Styler:
    """A `baseline` table as notebook 08 prints it: at `baseline_decimals`, each difference as its printed shares
    subtract, interval ends apart from 0 (`lib.site.display.tested`)."""
    decimals = baseline_decimals(base)
    signed = ["difference", "low", "high"]
    return DS.tested(baseline_shown(base, f".{decimals}f"), uuid, signed=signed, decimals=decimals)


def baseline_sentence(row: pd.Series, what: str) -> str:
    """What one row of `baseline` supports: the code (family) is more or less common behind wrong verdicts
    than behind right ones, or the rules find it as often behind both; too few claims say nothing."""
    wrong, right, gap = shares_apart(row["wrong verdicts"], row["right verdicts"])
    if row["call"] == NO_INTERVAL:
        return (
            f"{what} fits {wrong} of the wrong verdicts and {right} of the right ones ({gap}; no interval: fewer than "
            f"{MIN_CLUSTERS} claims): too few claims to say whether it locates the errors."
        )
    head = (
        f"{what} fits {wrong} of the wrong verdicts and {right} of the right ones ({gap}, 95% interval "
        f"[{points_text(row['low'], unit='')}, {points_text(row['high'], unit='')}], claims resampled)"
    )
    if row["call"] == "positive":
        return head + ": more common behind wrong verdicts."
    if row["call"] == "negative":
        return head + ": less common behind wrong verdicts."
    return head + ": the rules find it as often behind right verdicts, so it does not locate the errors."


# --------------------------------------------------------------------------- manual coding


def claim_strata(table: pd.DataFrame) -> pd.Series:
    """Each claim with a wrong verdict and its stratum: the code most of its wrong verdicts get (a tie goes
    to the code first in the taxonomy)."""
    errors = table[table["code"] != CORRECT]
    counts = pd.crosstab(errors["claim_id"], errors["code"]).reindex(columns=list(ERROR_CODES), fill_value=0)
    return counts.idxmax(axis=1)


def coding_sheet(
    table: pd.DataFrame,
    claims: Sequence[averitec.Claim],
    evidence: Mapping[str, Mapping[int, Sequence[str]]],
    per_code: int = 10,
    seed: int = 0,
    max_chars: int = 400,
) -> pd.DataFrame:
    """A seeded, blind sample of claims for people to code: `per_code` claims from each stratum
    (`claim_strata`; the stratum is not on the sheet and the rows are shuffled), one row per claim, and for
    every method wrong on it its prediction, the evidence it read and a blank `code:<method>` to fill with one
    of ERROR_CODES. Sampling claims, not (method, claim) pairs, keeps one claim from filling the sheet."""
    by_id = {c.claim_id: c for c in claims}
    errors = table[table["code"] != CORRECT]
    strata = claim_strata(table)
    methods = sorted(errors["method"].unique())
    picked: list[int] = []
    for i, c in enumerate(ERROR_CODES):
        ids = sorted(int(x) for x in strata.index[strata == c])
        rng = np.random.default_rng([seed, i])
        picked += [ids[j] for j in sorted(rng.choice(len(ids), size=min(per_code, len(ids)), replace=False))]
    picked = [picked[j] for j in np.random.default_rng([seed, len(ERROR_CODES)]).permutation(len(picked))]
    wrong = {(m, int(c)): pred for m, c, pred in zip(errors["method"], errors["claim_id"], errors["pred"])}
    rows = []
    for cid in picked:
        c = by_id[cid]
        row = {
            "claim_id": cid,
            "claim": c.text,
            "label": c.label,
            "gold_questions": "\n".join(q.text for q in c.questions),
        }
        for m in methods:
            shown = (m, cid) in wrong
            ev = evidence[m].get(cid, ()) if shown else ()
            row[f"prediction:{m}"] = wrong.get((m, cid), "")
            row[f"evidence:{m}"] = "\n".join(f"[{j + 1}] {t[:max_chars]}" for j, t in enumerate(ev))
            row[f"{CODE_PREFIX}{m}"] = ""
        row["comment"] = ""
        rows.append(row)
    columns = [*SHEET_COLUMNS[1:], *(f"{f}:{m}" for m in methods for f in SHEET_PER_METHOD), "comment"]
    sheet = pd.DataFrame(rows, columns=columns)
    sheet.insert(0, "sheet_id", range(1, len(sheet) + 1))
    return sheet


def _names_code_of(column: str, method: str) -> bool:
    """Whether a column's name holds the word `code` and the method's name, in any case or order (a notes
    column, `Code notes`, names no method)."""
    words = re.split(r"[^a-z0-9]+", column.lower())
    return (
        bool({"code", "codes"} & set(words))
        and re.search(rf"(?<![a-z0-9]){re.escape(method.lower())}(?![a-z0-9])", column.lower()) is not None
    )


def read_filled_sheet(path: Path | str, written: pd.DataFrame | None = None) -> pd.DataFrame | None:
    """The manual codes of a filled coding sheet as one row per (method, claim): columns sheet_id, method,
    claim_id, manual_code (None when there is no such file; blank cells are not coded yet). A claim on two
    rows and an unknown code are errors naming the file and the row, so a typo or a copied row cannot move
    the agreement silently; with `written` (the sheet as `coding_sheet` wrote it), so is a row whose
    sheet_id and claim_id the study did not write together (a column sorted or edited alone)."""
    path = Path(path)
    if not path.exists():
        return None
    sheet = SH.read_sheet(path, ["sheet_id", "claim_id"], "coding sheet")
    codes = [c for c in sheet.columns if c.startswith(CODE_PREFIX)]
    methods = {c.split(":", 1)[1] for c in sheet.columns if re.match(r"(code|prediction|evidence):.", c)}
    renamed = [(c, m) for c in sheet.columns if c not in codes for m in methods if _names_code_of(c, m)]
    if renamed:  # `Code:oracle`, `code_oracle`, `oracle code` were read as comments: their codes left the agreement
        column, method = renamed[0]
        raise SH.SheetError(
            f"{path}: column {column!r} looks like the code column of {method}; name it {CODE_PREFIX}{method} as "
            "the sheet was written"
        )
    if not codes:
        raise SH.SheetError(f"{path}: a coding sheet needs code:<method> columns (it has {list(sheet.columns)})")
    sheet["claim_id"] = SH.integer_column(sheet, "claim_id", path, "a dev claim id")
    SH.once(sheet, ["claim_id"], path, "coded")  # a copied row would count its codes twice in the agreement
    if written is not None:

        def row_id(value: Any) -> str:  # `01` and `1` are one sheet row, as `012` and `12` are one claim
            return str(value).strip().lstrip("0") or "0"

        pairs = {(row_id(i), int(c)) for i, c in zip(written["sheet_id"], written["claim_id"])}
        rows = zip(sheet.index, sheet["sheet_id"], sheet["claim_id"])
        stray = [(r, i, c) for r, i, c in rows if (row_id(i), c) not in pairs]
        if stray:
            r, i, c = stray[0]
            raise SH.SheetError(
                f"{path}, row {r + 2}: sheet_id {i} with claim_id {c} is not a row of the coding sheet "
                f"({len(stray)} rows are not; was a column sorted or edited alone?)"
            )
    long = sheet.melt(id_vars=["sheet_id", "claim_id"], value_vars=codes, var_name="method", value_name="manual_code")
    long["method"] = long["method"].str.removeprefix(CODE_PREFIX)
    long["manual_code"] = long["manual_code"].str.strip()
    long = long[long["manual_code"] != ""].copy()
    bad = long[~long["manual_code"].isin(ERROR_CODES)]
    if len(bad):
        r = bad.iloc[0]
        raise ValueError(
            f"{path}: row sheet_id {r['sheet_id']}, column {CODE_PREFIX}{r['method']}: unknown manual code "
            f"{r['manual_code']!r}; use one of {list(ERROR_CODES)}"
        )
    long = long.reset_index(drop=True)
    long.attrs["path"] = str(path)  # for the checks against the automatic codes (`_coded`) to name the file
    return long


def _coded(filled: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """The filled codes beside the automatic ones; a code for a pair the rules do not have, or for a right
    verdict, is an error naming the pairs."""
    sheet = filled.attrs.get("path", "the filled sheet")
    merged = filled.merge(table[["method", "claim_id", "code"]], on=["method", "claim_id"], how="left")
    stray = merged[merged["code"].isna()]

    def rows(frame: pd.DataFrame) -> str:
        return ", ".join(f"sheet_id {i} column {CODE_PREFIX}{m}" for i, m in zip(frame["sheet_id"], frame["method"]))

    if len(stray):
        unknown = sorted(set(stray["method"]) - set(table["method"]))
        if unknown:  # a column named after a method the study does not have (a typo)
            raise ValueError(
                f"{sheet}: column(s) {', '.join(CODE_PREFIX + m for m in unknown)}: no such method "
                f"(the study's: {', '.join(sorted(set(table['method'])))})"
            )
        raise ValueError(f"{sheet}: codes for verdicts the automatic coding has not ({rows(stray.head(5))})")
    right = merged[merged["code"] == CORRECT]
    if len(right):
        raise ValueError(f"{sheet}: codes for verdicts that are right ({rows(right.head(5))}); leave them blank")
    return merged


def confusion(filled: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """Manual codes (rows) against the automatic codes (columns) of the filled sheet's items, every code
    of the taxonomy shown: where the two disagree, not only how much."""
    merged = _coded(filled, table)
    return pd.crosstab(
        pd.Categorical(merged["manual_code"], ERROR_CODES), pd.Categorical(merged["code"], ERROR_CODES), dropna=False
    ).rename_axis(index="manual", columns="automatic")


def agreement(filled: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """Cohen's kappa and raw agreement between manual and automatic codes, per method and overall."""
    merged = _coded(filled, table)
    rows = {}
    for name, group in [*merged.groupby("method"), ("all", merged)]:
        rows[name] = {
            "items": len(group),
            "agreement": float((group["manual_code"] == group["code"]).mean()),
            "kappa": cohen_kappa(list(group["manual_code"]), list(group["code"])),
        }
    return pd.DataFrame(rows).T


def source_sentence(base: pd.DataFrame, alpha_note: str = "95% interval over claims") -> str:
    """Where the rules locate the wrong verdicts, from a `baseline` table: the families more common behind
    wrong verdicts than behind right ones (interval above 0), or none."""
    more = [f for f in base.index if base.loc[f, "call"] == "positive"]
    if (base["call"] == NO_INTERVAL).all():
        return f"Fewer than {MIN_CLUSTERS} claims: too few for an interval, so nothing can be said of where the errors come from."
    if not more:
        return (
            "No family of codes is more common behind wrong verdicts than behind right ones "
            f"({alpha_note}): the rules describe the evidence the verifier reads, not where its errors come from."
        )
    return (
        "Wrong verdicts read evidence coded "
        # the difference as the row's own sentence prints it (`baseline_sentence`, `shares_apart`: tenths of a
        # percentage point, apart from 0; "+2" stood beside "+1.9")
        + " and ".join(f"{f} ({points_text(base.loc[f, 'difference'])})" for f in more)
        + f" more often than right verdicts do ({alpha_note}): that is where the rules locate the errors."
    )
