"""Relevance judgements as they are built, the automatic answer-match judgement, the judgement variants
every retrieval table is reported under, and the manual judging kit.

The store's grades (`lib.store.build.build_qrels`), per dev claim:
  2 `gold_answer`  one of the claim's own gold answer texts (the annotators' words), a document only with
                   `store.include_gold`;
  1 `gold_url`     a collection document whose normalised URL is one of the claim's gold source URLs. It may
                   be a sentence any system retrieved for any claim, or another claim's or split's gold
                   answer that cites the same page, so it is not always in the claim's own pool;
  0 `pooled`       any other document pooled for the claim (a system retrieved it for this claim).
Everything else is unjudged (non-relevant to trec_eval's measures; ignored by bpref and condensed lists).

Grade 0 therefore holds pooled sentences that restate a gold answer. The **answer match** is an
automatic judgement for them: a grade-0 document of the claim's pool that contains at least
`threshold` of the distinct word tokens (lower-cased `\\w+`) of one of the claim's own extractive or
abstractive gold answers (Boolean and unanswerable answers are left out by type), counting only answers
of at least `min_answer_tokens` distinct tokens, since a short answer ("33%", "Joe Biden") is contained in
many unrelated sentences.

Variants (`VARIANTS`): `official` (the grades as built), `answer_match` (official, plus answer-matched
grade-0 documents at grade 1), and one per kind of evidence alone: `gold_answers` (grade 2),
`gold_urls` (grade 1), `answer_matches` (the answer matches). In a single-kind variant the other
judged documents count as judged non-relevant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated

import numpy as np
import pandas as pd
from pydantic import Field

from lib import sheets as SH
from lib.data import averitec
from lib.evaluation.agreement import cohen_kappa
from lib.params import PosInt, Section, Threshold

# --------------------------------------------------------------------------- params


class JudgementsSection(Section):
    """Relevance judgement variants (this module), passed whole to the notebooks that evaluate retrieval."""

    answer_match: Threshold
    min_answer_tokens: PosInt
    answer_match_sweep: Annotated[list[Threshold], Field(min_length=1)]


VARIANTS = {
    "official": "grades as built: 2 the claim's gold answers, 1 gold-URL documents, 0 the rest of its pool",
    "answer_match": "official, plus pooled grade-0 documents that restate one of the claim's gold answers (grade 1)",
    "gold_answers": "only the claim's own gold answers (grade 2) are relevant",
    "gold_urls": "only the documents from the claim's gold source URLs (grade 1) are relevant",
    "answer_matches": "only the answer-matched pooled documents are relevant",
}
ANSWER_TYPES = ("Extractive", "Abstractive")
SOURCES = ("annotators", "systems")
_TOKEN = re.compile(r"\w+")


def grade_text(grade: int, judged: bool = True) -> str:
    """A retrieved document's relevance as the worked examples print it: "grade 2", "grade 0" (judged
    non-relevant) or "unjudged" (no judgement covers it: trec_eval counts it non-relevant, but nobody judged it)."""
    return f"grade {int(grade)}" if judged else "unjudged"


def tokens(text: str) -> frozenset[str]:
    """The distinct lower-cased word tokens of a text."""
    return frozenset(_TOKEN.findall(text.lower()))


def answer_token_sets(claim: averitec.Claim, min_answer_tokens: int) -> list[frozenset[str]]:
    """Token sets of the claim's extractive and abstractive gold answers with at least `min_answer_tokens`."""
    sets = [tokens(a.text) for q in claim.questions for a in q.answers if a.answer_type in ANSWER_TYPES]
    return [s for s in sets if len(s) >= min_answer_tokens]


def answer_overlap(text: str, answers: Sequence[frozenset[str]]) -> float:
    """The largest share of one answer's tokens that `text` contains (NaN without an answer to match)."""
    if not answers:
        return float("nan")
    doc = tokens(text)
    return max(len(a & doc) / len(a) for a in answers)


def _check_threshold(threshold: float) -> float:
    if not 0 < threshold <= 1:
        raise ValueError(f"answer-match threshold must be in (0, 1], got {threshold}")
    return float(threshold)


def annotate(
    qrels: pd.DataFrame, docs: pd.DataFrame, claims: Iterable[averitec.Claim], min_answer_tokens: int = 5
) -> pd.DataFrame:
    """The store's qrels with what each judgement is: `in_pool` (the document is in the claim's pool, the
    `claim` scope: what systems retrieved for the claim, and the claim's own gold answers), `source` (`annotators`: some split's gold answer text; `systems`: only systems' evidence) and
    `answer_overlap` (see `answer_overlap`, for grade-0 documents; NaN otherwise or without an answer)."""
    if min_answer_tokens < 1:
        raise ValueError(f"min_answer_tokens must be >= 1, got {min_answer_tokens}")
    by_id = {str(c.claim_id): c for c in claims}
    missing = sorted(set(qrels["qid"]) - set(by_id), key=int)
    if missing:
        raise ValueError(f"qrels name claims {missing[:5]} that are not among the {len(by_id)} claims given")
    d = docs.set_index("doc_id")
    pools = {did: {str(c) for c in ids} for did, ids in zip(docs["doc_id"], docs["claim_ids"])}
    annotator = {did: any(o.startswith("gold") for o in origin) for did, origin in zip(docs["doc_id"], docs["origin"])}
    answers = {qid: answer_token_sets(c, min_answer_tokens) for qid, c in by_id.items()}
    out = qrels.copy()
    out["in_pool"] = [q in pools[did] for q, did in zip(out["qid"], out["doc_id"])]
    out["source"] = [SOURCES[0] if annotator[did] else SOURCES[1] for did in out["doc_id"]]
    out["answer_overlap"] = [
        answer_overlap(d.at[did, "text"], answers[q]) if g == 0 else np.nan
        for q, did, g in zip(out["qid"], out["doc_id"], out["grade"])
    ]
    return out


def answer_matched(judgements: pd.DataFrame, threshold: float) -> pd.Series:
    """Which judgements are answer matches at `threshold` (grade 0, pooled, overlap >= threshold)."""
    threshold = _check_threshold(threshold)
    return (judgements["grade"] == 0) & judgements["in_pool"] & (judgements["answer_overlap"] >= threshold)


def variant(judgements: pd.DataFrame, name: str, threshold: float) -> dict[str, dict[str, int]]:
    """One judgement variant as `{qid: {doc_id: grade}}` (see the module docstring); every claim of the
    qrels stays in it, with all its judged documents."""
    if name not in VARIANTS:
        raise ValueError(f"unknown judgement variant {name!r} (known: {list(VARIANTS)})")
    match = answer_matched(judgements, threshold).to_numpy()
    grade = judgements["grade"].to_numpy()
    new = {
        "official": grade,
        "answer_match": np.where(match, 1, grade),
        "gold_answers": np.where(grade == 2, 2, 0),
        "gold_urls": np.where(grade == 1, 1, 0),
        "answer_matches": np.where(match, 1, 0),
    }[name]
    out: dict[str, dict[str, int]] = {}
    for qid, did, g in zip(judgements["qid"], judgements["doc_id"], new):
        out.setdefault(qid, {})[did] = int(g)
    return out


def variants(
    judgements: pd.DataFrame, threshold: float, names: Sequence[str] | None = None
) -> dict[str, dict[str, dict[str, int]]]:
    """Every (or the named) judgement variant, in `VARIANTS` order."""
    return {n: variant(judgements, n, threshold) for n in (VARIANTS if names is None else names)}


def kinds(judgements: pd.DataFrame, threshold: float) -> pd.Series:
    """Each judgement's kind: its `reason` (`gold_answer`, `gold_url`, `pooled`), or `answer_match`."""
    return judgements["reason"].where(~answer_matched(judgements, threshold), "answer_match")


def grade_counts(judgements: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """How each kind of judgement is built, with counts: judgements and claims, inside and outside the
    claim's pool, from annotators' answers and from systems only. Answer matches are a row of their own."""
    frame = judgements.assign(kind=kinds(judgements, threshold))
    rows = {}
    for name, g in frame.groupby("kind", sort=False):
        rows[name] = {
            "grade": int(g["grade"].iloc[0]) if name != "answer_match" else 1,
            "judgements": len(g),
            "claims": g["qid"].nunique(),
            "in the claim's pool": int(g["in_pool"].sum()),
            "outside the pool": int((~g["in_pool"]).sum()),
            "annotators' answers": int((g["source"] == SOURCES[0]).sum()),
            "systems only": int((g["source"] == SOURCES[1]).sum()),
        }
    order = ["gold_answer", "gold_url", "answer_match", "pooled"]
    return pd.DataFrame(rows).T.reindex([k for k in order if k in rows]).rename_axis("judgement")


def threshold_sweep(judgements: pd.DataFrame, thresholds: Iterable[float]) -> pd.DataFrame:
    """Per threshold: answer-matched judgements, the claims they touch, and the claims that get their
    first relevant document from them (no grade >= 1 otherwise)."""
    thresholds = sorted({_check_threshold(float(t)) for t in thresholds})
    if not thresholds:
        raise ValueError("threshold_sweep needs at least one threshold")
    has_relevant = set(judgements.loc[judgements["grade"] >= 1, "qid"])
    rows = []
    for t in thresholds:
        m = judgements[answer_matched(judgements, t)]
        rows.append(
            {
                "threshold": float(t),
                "answer matches": len(m),
                "claims": m["qid"].nunique(),
                "claims with no other relevant document": len(set(m["qid"]) - has_relevant),
            }
        )
    return pd.DataFrame(rows).set_index("threshold")


# --------------------------------------------------------------------------- manual judging kit

SHEET_COLUMNS = ["sheet_id", "claim_id", "doc_id", "claim", "document", "relevant", "comment"]
STRATA = ("gold_answer", "gold_url", "answer_match", "pooled", "unjudged")
MANUAL = {"1": 1, "0": 0}


def judging_sample(
    judgements: pd.DataFrame,
    threshold: float,
    unjudged: pd.DataFrame,
    per_stratum: int = 20,
    seed: int = 0,
) -> pd.DataFrame:
    """A seeded sample of (claim, document) pairs: `per_stratum` from each grade, from the answer matches
    and from `unjudged` (claim_id, doc_id pairs a run retrieved that no judgement covers). Returns
    (claim_id, doc_id, stratum), shuffled so that a sheet's order gives nothing away."""
    kind = kinds(judgements, threshold)
    pools = {
        "gold_answer": judgements[kind == "gold_answer"],
        "gold_url": judgements[kind == "gold_url"],
        "answer_match": judgements[kind == "answer_match"],
        "pooled": judgements[kind == "pooled"],
    }
    judged = set(zip(judgements["qid"].astype(int), judgements["doc_id"]))
    un = unjudged[["claim_id", "doc_id"]].drop_duplicates()
    un = un[[(int(c), d) not in judged for c, d in zip(un["claim_id"], un["doc_id"])]]
    frames = []
    for i, stratum in enumerate(STRATA):
        if stratum == "unjudged":
            pairs = un.assign(claim_id=un["claim_id"].astype(int))
        else:
            g = pools[stratum]
            pairs = pd.DataFrame({"claim_id": g["qid"].astype(int), "doc_id": g["doc_id"]})
        pairs = pairs.sort_values(["claim_id", "doc_id"]).reset_index(drop=True)
        rng = np.random.default_rng([seed, i])
        pick = np.sort(rng.choice(len(pairs), size=min(per_stratum, len(pairs)), replace=False))
        frames.append(pairs.iloc[pick].assign(stratum=stratum))
    sample = pd.concat(frames, ignore_index=True)
    order = np.random.default_rng([seed, len(STRATA)]).permutation(len(sample))
    return sample.iloc[order].reset_index(drop=True)


def judging_sheet(
    sample: pd.DataFrame, docs: pd.DataFrame, claims: Iterable[averitec.Claim], max_chars: int = 600
) -> pd.DataFrame:
    """The blind sheet for a sample: claim and document texts, `relevant` and `comment` left to fill in.
    The stratum (the automatic judgement) is left out on purpose."""
    text = dict(zip(docs["doc_id"], docs["text"]))
    claim_text = {c.claim_id: c.text for c in claims}
    unknown = sorted({int(c) for c in sample["claim_id"]} - set(claim_text))
    if unknown:
        raise ValueError(f"the sample names claims {unknown[:5]} that are not among the {len(claim_text)} claims given")
    sheet = pd.DataFrame(
        {
            "sheet_id": range(1, len(sample) + 1),
            "claim_id": sample["claim_id"].astype(int),
            "doc_id": sample["doc_id"],
            "claim": [claim_text[int(c)] for c in sample["claim_id"]],
            "document": [text[d][:max_chars] for d in sample["doc_id"]],
            "relevant": "",
            "comment": "",
        }
    )
    return sheet[SHEET_COLUMNS]


def read_judging_sheet(
    path: Path | str,
    doc_ids: Iterable[str] | None = None,
    claim_ids: Iterable[int] | None = None,
    pairs: pd.DataFrame | None = None,
) -> pd.DataFrame | None:
    """The judged rows of a filled sheet (None when the file does not exist): `relevant` is 1 (the document
    helps verify or refute the claim) or 0; blank rows are not judged yet (an unfilled copy gives no rows).
    Anything else is an error naming the file, row and value, so a typo cannot move the agreement
    silently: a bad `relevant`, a claim id that is not an integer, a (claim, document) pair judged twice,
    and, when `doc_ids` / `claim_ids` are given, a document or claim the study does not have. With `pairs`
    (the sheet's `claim_id` and `doc_id` as the study wrote them), a judged pair it did not write is an error
    too: one column sorted alone in a spreadsheet pairs every claim with another claim's document."""
    path = Path(path)
    if not path.exists():
        return None
    sheet = SH.read_sheet(path, ["claim_id", "doc_id", "relevant"], "judging sheet (notebook 04)")
    for row, value in zip(sheet.index, sheet["relevant"]):
        if value not in MANUAL and value != "":
            raise SH.SheetError(f"{path}, row {row + 2}: relevant = {value!r}; expected 1, 0 or blank")
    sheet["claim_id"] = SH.integer_column(sheet, "claim_id", path, "a dev claim id")
    sheet = sheet[sheet["relevant"] != ""].copy()
    SH.once(sheet, ["claim_id", "doc_id"], path, "judged")
    for col, known, what in [("doc_id", doc_ids, "document"), ("claim_id", claim_ids, "claim")]:
        if known is not None:
            known = set(known)
            bad = [(r, v) for r, v in zip(sheet.index, sheet[col]) if v not in known]
            if bad:
                raise ValueError(f"{path}, row {bad[0][0] + 2}: {col} = {bad[0][1]!r} is not a {what} of this study")
    if pairs is not None:
        written = set(zip(pairs["claim_id"].astype(int), pairs["doc_id"].astype(str)))
        stray = [(r, c, d) for r, c, d in zip(sheet.index, sheet["claim_id"], sheet["doc_id"]) if (c, d) not in written]
        if stray:
            r, c, d = stray[0]
            raise SH.SheetError(
                f"{path}, row {r + 2}: claim {c} with document {d!r} is not a pair of the judging sheet "
                f"({len(stray)} judged rows are not; was a column sorted alone?)"
            )
        if "sheet_id" not in sheet.columns:  # without it, a block of columns sorted together reads as judged
            raise SH.SheetError(
                f"{path}: no sheet_id column; it ties each row to the pair it was written for (a block of columns "
                "sorted in a spreadsheet cannot be told otherwise): keep the column as the sheet was written"
            )
        _same_rows(path, sheet, pairs)  # `judging_sheet` numbers its rows: row i holds the pair i - 1 of `pairs`
    sheet["relevant"] = sheet["relevant"].map(MANUAL).astype(int)
    return sheet.reset_index(drop=True)


def _same_rows(path: Path, sheet: pd.DataFrame, pairs: pd.DataFrame) -> None:
    """Each judged row holds the pair its `sheet_id` was written for: a block of columns sorted in a
    spreadsheet without `relevant` moves every judgement onto another pair, all of them pairs of the sheet."""
    ids = SH.integer_column(sheet, "sheet_id", path, "the row number the sheet was written with")
    written = list(zip(pairs["claim_id"].astype(int), pairs["doc_id"].astype(str)))
    moved = [
        (r, i, c, d)
        for r, i, c, d in zip(sheet.index, ids, sheet["claim_id"], sheet["doc_id"])
        if not 1 <= i <= len(written) or written[i - 1] != (c, d)
    ]
    if moved:
        r, i, c, d = moved[0]
        was = (
            f"was written for claim {written[i - 1][0]} with document {written[i - 1][1]!r}"
            if 1 <= i <= len(written)
            else f"is not a row of the sheet (1 to {len(written)})"
        )
        raise SH.SheetError(
            f"{path}, row {r + 2}: sheet_id {i} {was}, but the row holds claim {c} with document {d!r} "
            f"({len(moved)} judged rows moved; were columns sorted without `relevant`?)"
        )


def judging_agreement(
    filled: pd.DataFrame, judgements: pd.DataFrame, threshold: float, names: Sequence[str] | None = None
) -> pd.DataFrame:
    """Cohen's kappa and raw agreement of the manual judgements with each automatic variant (relevant =
    grade >= 1; unjudged = not relevant), and the share the people found relevant per stratum."""

    qrels = variants(judgements, threshold, names)
    rows = {}
    for name, q in qrels.items():
        auto = [int(q.get(str(c), {}).get(d, 0) >= 1) for c, d in zip(filled["claim_id"], filled["doc_id"])]
        manual = filled["relevant"].tolist()
        rows[name] = {
            "items": len(filled),
            "agreement": float(np.mean(np.asarray(auto) == np.asarray(manual))) if len(filled) else float("nan"),
            "kappa": cohen_kappa(manual, auto),
            "automatic relevant": int(sum(auto)),
            "manual relevant": int(sum(manual)),
        }
    counts = ["items", "automatic relevant", "manual relevant"]
    return pd.DataFrame(rows).T.rename_axis("variant").astype({c: int for c in counts})


def stratum_of(pairs: pd.DataFrame, judgements: pd.DataFrame, threshold: float) -> pd.Series:
    """The automatic stratum (`STRATA`) of each (claim_id, doc_id) pair."""
    kind = kinds(judgements, threshold)
    lookup = dict(zip(zip(judgements["qid"].astype(int), judgements["doc_id"]), kind))
    return pd.Series(
        [lookup.get((int(c), d), "unjudged") for c, d in zip(pairs["claim_id"], pairs["doc_id"])],
        index=pairs.index,
        name="stratum",
    )


def manual_relevance_by_stratum(filled: pd.DataFrame, judgements: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Per automatic stratum: judged pairs and the share people found relevant."""
    frame = filled.assign(stratum=stratum_of(filled, judgements, threshold))
    out = (
        frame.groupby("stratum")["relevant"]
        .agg(["size", "mean"])
        .rename(columns={"size": "judged", "mean": "share relevant"})
    )
    return out.reindex([s for s in STRATA if s in out.index])


# --------------------------------------------------------------------------- what the judgements cover


def _size(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def claim_scope_depth(sizes: Sequence[int], depth: int) -> str:
    """What a run of `depth` documents means in the `claim` scope, given the claims' pool sizes: when no
    pool is larger than `depth`, every method that ranks the whole pool returns all of it, so Recall@depth
    is the same for all of them there and only the order (NDCG, MRR) can separate them."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if not len(sizes) or depth < 1:
        raise ValueError(f"claim_scope_depth: expected pool sizes and a depth >= 1, got {len(sizes)} pools, {depth}")
    n, over, median, top = len(sizes), int((sizes > depth).sum()), _size(np.median(sizes)), int(sizes.max())
    if over == 0:
        return (
            f"Every claim's pool holds at most {top:,} documents (median {median}), no more than the {depth} a run "
            f"keeps, so in the `claim` scope every method that ranks the whole pool returns all of it: Recall@{depth} "
            "is the same for all of them there, and only the order of the pool separates them."
        )
    which = (
        "every claim's pool holds"
        if over == n
        else f"{over:,} of {n:,} claims' pools {'holds' if over == 1 else 'hold'}"
    )
    return (
        f"In the `claim` scope {which} more than the {depth} documents a run keeps (median {median}, at most "
        f"{top:,}), so both Recall@{depth} and the order can separate methods there"
        + ("." if over == n else f", Recall@{depth} only on {'that claim' if over == 1 else 'those claims'}.")
    )


def judgement_limit(source: str) -> str:
    """Which documents the store's judgements leave out, for the store's `source` (`lib.store.build.SOURCES`):
    an unjudged document counts as non-relevant to trec_eval's measures. Whatever the source, a document
    from one of a claim's gold source URLs is judged relevant to it (`lib.store.build.build_qrels`)."""
    if source == "pooled":
        return (
            "A claim's judgements cover its pool (what systems retrieved for it, and its gold answers) and the "
            "documents from its gold source URLs; the pool is shallow, so a planner that finds other relevant "
            "sentences is scored as if they were not relevant."
        )
    if source == "knowledge_store":
        return (
            "A claim's judgements cover every passage of its own pages (and its gold answers) and the passages "
            "from its gold source URLs, but no other passage of other claims' pages: in the `global` scope a "
            "planner that finds relevant text there is scored as if it were not. Grade 1 marks every passage of "
            "a gold source page, whether or not it states the evidence."
        )
    raise ValueError(f"judgement_limit: store source {source!r}, expected 'pooled' or 'knowledge_store'")
