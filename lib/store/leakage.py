"""What the pooled store holds and how far to trust it: per-system contribution and overlap, gold
coverage, and three kinds of leakage (fact-check articles, documents dated after the claim,
misinformation sites).

Every per-system table has one row per system plus `ALL_SYSTEMS`, the union of their hits.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from lib.data import averitec
from lib.evaluation.comparisons import and_list, apart, highest, printed
from lib.evaluation.printing import noise_equal
from lib.store.build import GOLD, SOURCES, Store, gold_source_urls
from lib.store.urls import normalise_url

ALL_SYSTEMS = "all systems"


def system_names(store: Store) -> list[str]:
    """The systems pooled, in the order of the parameters (from a knowledge store: `knowledge_store`, the
    organisers' search results for each claim)."""
    return list(store.report["systems"])


def _pair_sets(store: Store) -> dict[str, frozenset]:
    """Per origin: the (claim, document) pairs it returned."""
    return {o: frozenset(zip(g["claim_id"], g["doc_id"])) for o, g in store.hits.groupby("origin", observed=True)}


def identical_systems(store: Store) -> list[list[str]]:
    """Groups of two or more pooled systems that returned exactly the same (claim, document) pairs
    (Jaccard overlap 1), in the order of the parameters: one run under several names."""
    pairs = _pair_sets(store)
    groups: dict[frozenset, list[str]] = {}
    for name in system_names(store):
        if pairs.get(name):
            groups.setdefault(pairs[name], []).append(name)
    return [g for g in groups.values() if len(g) > 1]


def merge_identical_systems(store: Store) -> Store:
    """The store with each group of `identical_systems` as one system named `a = b` (hits, documents'
    origins and the systems in the report), so that figures draw an identical run once, not as two bars."""

    groups = identical_systems(store)
    rename = {name: " = ".join(g) for g in groups for name in g}
    if not rename:
        return store
    hits = store.hits.assign(origin=store.hits["origin"].map(lambda o: rename.get(o, o)))
    hits = hits.drop_duplicates(["origin", "claim_id", "doc_id"], keep="first").reset_index(drop=True)
    docs = store.docs.assign(origin=[list(dict.fromkeys(rename.get(o, o) for o in os)) for os in store.docs["origin"]])
    report = copy.deepcopy(store.report)
    systems = report["systems"]
    files = {" = ".join(g): " = ".join(systems[n] for n in g) for g in groups}
    report["systems"] = {rename.get(n, n): files.get(rename.get(n), f) for n, f in systems.items()}
    return replace(store, docs=docs, hits=hits, report=report)


def claim_table(claims: Iterable[averitec.Claim]) -> pd.DataFrame:
    """One row per claim: id, date, label, types, gold source URLs and own fact-check article URL."""
    return pd.DataFrame(
        [
            {
                "claim_id": c.claim_id,
                "claim_date": c.claim_date,
                "label": c.label,
                "claim_types": list(c.claim_types),
                "gold_urls": gold_source_urls(c),
                "article_url": normalise_url(c.fact_checking_article),
            }
            for c in claims
        ]
    )


def retrieved_by_systems(store: Store) -> pd.Series:
    """Per document: did any pooled system return it (whatever else it is)?"""
    systems = set(system_names(store))
    return store.docs["origin"].map(lambda o: bool(systems & set(o)))


def document_source(store: Store) -> pd.Series:
    """Per document: "gold (dev)" if it is a dev gold answer, else "system" if a pooled system returned
    it, else "distractor (train/test gold)"."""
    gold = store.docs["origin"].map(lambda o: GOLD in o)
    source = np.where(
        gold, "gold (dev)", np.where(retrieved_by_systems(store), "system", "distractor (train/test gold)")
    )
    return pd.Series(source, index=store.docs.index, name="source")


def system_hits(store: Store) -> pd.DataFrame:
    """The systems' hits joined with their documents, plus the `ALL_SYSTEMS` union."""
    systems = system_names(store)
    hits = store.hits[store.hits["origin"].isin(systems)]
    union = hits.assign(origin=ALL_SYSTEMS).drop_duplicates(["claim_id", "doc_id"])
    cols = [
        "doc_id",
        "norm_url",
        "domain",
        "date",
        "date_source",
        "fact_checking_site",
        "fact_checking_domain",
        "misinfo_site",
        "n_words",
    ]
    out = pd.concat([hits, union], ignore_index=True).merge(store.docs[cols], on="doc_id", how="left")
    out["origin"] = pd.Categorical(out["origin"], categories=systems + [ALL_SYSTEMS], ordered=True)
    return out


def pool_sizes(store: Store) -> pd.DataFrame:
    """Documents pooled per claim: all, found by systems, gold answers."""
    hits = store.hits
    systems = set(system_names(store))
    all_ = hits.groupby("claim_id")["doc_id"].nunique().rename("all")
    sys_ = hits[hits["origin"].isin(systems)].groupby("claim_id")["doc_id"].nunique().rename("systems")
    gold = hits[hits["origin"] == GOLD].groupby("claim_id")["doc_id"].nunique().rename("gold")
    return pd.concat([all_, sys_, gold], axis=1).fillna(0).astype(int)


def median_text(sizes: Sequence[int]) -> str:
    """The median pool size as sentences print it: whole, or to a tenth when it falls between two sizes
    (`int()` printed 12 for 12.5)."""
    if not len(sizes):  # the text 'nan' for no pools
        raise ValueError("median_text: no pool sizes (no claim has a pool)")
    median = float(np.median(np.asarray(sizes, dtype=np.int64)))
    return f"{median:,.0f}" if median.is_integer() else f"{median:,.1f}"


def pool_scale(sizes: Sequence[int], source: str) -> str:
    """How large the claim pools (`pool_sizes`' "all") are and what retrieving from them means, for the
    store's `source`: the organisers' store holds up to about 1,000 scraped pages per claim."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if not len(sizes):
        raise ValueError("pool_scale: no claim pool")
    size = f"a median of {median_text(sizes)} documents ({int(sizes.min()):,} to {int(sizes.max()):,})"
    if source == "pooled":
        return (
            f"The organisers' knowledge store holds up to about 1,000 scraped pages per claim; these pools hold {size}: "
            "sentences that systems already chose from it (and the claim's gold answers when they are documents), "
            "so retrieval in the `claim` scope re-ranks likely candidates."
        )
    if source == "knowledge_store":
        return (
            f"Each claim's pool is the passages of its own pages in the knowledge store, what a system of the "
            f"shared task retrieves from (and the claim's gold answers when they are documents): {size}."
        )
    raise ValueError(f"pool_scale: store source {source!r}, expected one of {SOURCES}")


def origin_overlap(store: Store, origins: list[str] | None = None) -> pd.DataFrame:
    """Jaccard overlap of the (claim, document) pairs each origin returned."""
    origins = origins or system_names(store)
    sets = _pair_sets(store)
    m = np.zeros((len(origins), len(origins)))
    for i, a in enumerate(origins):
        for j, b in enumerate(origins):
            sa, sb = sets.get(a, set()), sets.get(b, set())
            m[i, j] = len(sa & sb) / len(sa | sb) if sa | sb else np.nan
    return pd.DataFrame(m, index=origins, columns=origins)


def contribution(store: Store) -> pd.DataFrame:
    """Per system: (claim, document) pairs returned, distinct documents, and pairs no other system returned."""
    systems = system_names(store)
    hits = store.hits[store.hits["origin"].isin(systems)].drop_duplicates(["origin", "claim_id", "doc_id"])
    n_sources = hits.groupby(["claim_id", "doc_id"])["origin"].transform("nunique")
    rows = []
    for o in systems:
        h = hits[hits["origin"] == o]
        rows.append(
            {
                "system": o,
                "pairs": len(h),
                "documents": h["doc_id"].nunique(),
                "unique_pairs": int((n_sources[h.index] == 1).sum()),
            }
        )
    return pd.DataFrame(rows).set_index("system")


def _per_claim(hits: pd.DataFrame, flag: pd.Series, claims: pd.DataFrame) -> pd.Series:
    """Share of claims (those in `claims`) for which some hit of the origin has `flag`."""
    hit_claims = hits.loc[flag.values, ["origin", "claim_id"]].drop_duplicates()
    hit_claims = hit_claims[hit_claims["claim_id"].isin(claims["claim_id"])]
    return hit_claims.groupby("origin", observed=False)["claim_id"].nunique() / len(claims)


def _attach_claims(hits: pd.DataFrame, claims: pd.DataFrame) -> pd.DataFrame:
    return hits.merge(claims[["claim_id", "claim_date", "gold_urls", "article_url"]], on="claim_id", how="inner")


def gold_coverage(store: Store, claims: pd.DataFrame) -> pd.DataFrame:
    """Per system: share of claims for which it retrieved a sentence from one of the claim's gold
    sources (normalised URL match). Claims without any gold URL are left out of the denominator."""
    with_urls = claims[claims["gold_urls"].map(len) > 0]
    h = _attach_claims(system_hits(store), with_urls)
    hit = pd.Series([u in g for u, g in zip(h["norm_url"], h["gold_urls"])], index=h.index)
    out = _per_claim(h, hit, with_urls).rename("gold_coverage").to_frame()
    out["claims_with_gold_urls"] = len(with_urls)
    return out


def fact_check_leakage(store: Store, claims: pd.DataFrame) -> pd.DataFrame:
    """Per system: share of claims whose evidence includes a fact-checking site (strict and loose
    flags), or the very fact-check article the claim came from; and the share of hits that are
    fact-checking sites."""
    h = _attach_claims(system_hits(store), claims)
    own = pd.Series([bool(a) and u == a for u, a in zip(h["norm_url"], h["article_url"])], index=h.index)
    out = pd.DataFrame(
        {
            "claims_fact_check_site": _per_claim(h, h["fact_checking_site"], claims),
            "claims_fact_check_domain": _per_claim(h, h["fact_checking_domain"], claims),
            "claims_own_article": _per_claim(h, own, claims),
            "hits_fact_check_site": h.groupby("origin", observed=False)["fact_checking_site"].mean(),
            "hits_fact_check_domain": h.groupby("origin", observed=False)["fact_checking_domain"].mean(),
        }
    )
    return out


def temporal_leakage(store: Store, claims: pd.DataFrame) -> pd.DataFrame:
    """Per system and date source: dated hits, share dated after the claim, and share of claims
    with at least one such hit. URL-path dates are publication dates; Wayback dates are capture
    dates (only an upper bound on publication), so they are reported apart."""
    h = _attach_claims(system_hits(store), claims)
    h = h[h["date"].notna() & h["claim_date"].notna()].copy()
    h["after"] = [d > c for d, c in zip(h["date"], h["claim_date"])]
    rows = []
    for (origin, source), g in h.groupby(["origin", "date_source"], observed=True):
        rows.append(
            {
                "system": origin,
                "date_source": source,
                "dated_hits": len(g),
                "share_after_claim": g["after"].mean(),
                "claims_with_post_claim_doc": g.loc[g["after"], "claim_id"].nunique() / len(claims),
            }
        )
    columns = ["system", "date_source", "dated_hits", "share_after_claim", "claims_with_post_claim_doc"]
    return pd.DataFrame(rows, columns=columns).set_index(["system", "date_source"])  # no dated hit: no row, no KeyError


def misinfo_share(store: Store) -> pd.Series:
    """Per system: share of hits from known misinformation sites."""
    h = system_hits(store)
    return h.groupby("origin", observed=False)["misinfo_site"].mean().rename("misinfo_share")


def relevance_coverage(store: Store) -> dict[str, int]:
    """How many claims keep relevant documents, by grade and by setting.

    `without_gold_answers` counts claims with a grade-1 document that some system retrieved, which is
    what remains when gold answer texts are not documents (`store.include_gold: false`).
    """
    q = store.qrels
    system_docs = set(store.docs.loc[retrieved_by_systems(store), "doc_id"])
    return {
        "claims": int(q["qid"].nunique()),
        "with_grade_2": int(q.loc[q["grade"] == 2, "qid"].nunique()),
        "with_grade_1": int(q.loc[q["grade"] == 1, "qid"].nunique()),
        "with_any_relevant": int(q.loc[q["grade"] >= 1, "qid"].nunique()),
        "without_gold_answers": int(q.loc[(q["grade"] == 1) & q["doc_id"].isin(system_docs), "qid"].nunique()),
    }


def grade1_share(share_without_gold: float) -> str:
    """The share `grade1_reach` reads, printed with the decimals that show its side of half and of all (99.96%
    was printed "100.0%" beside "not all"); "undefined" for NaN (no claim)."""
    if share_without_gold != share_without_gold:
        return "undefined"
    return apart(share_without_gold, ".1%", (0.0, 0.5, 1.0))


def grade1_reach(share_without_gold: float) -> str:
    """How many claims a result resting on grade 1 alone speaks for, from the share of claims that have a
    relevant document when gold answers are not documents."""
    if share_without_gold != share_without_gold:  # NaN "speaks for every claim"
        return "How many claims results resting on grade 1 alone speak for is undefined here (no claim)."
    if isinstance(share_without_gold, bool) or not 0 <= share_without_gold <= 1:  # 1.0000000001 was "every claim"
        raise ValueError(f"the share of claims with a relevant document is {share_without_gold!r}, expected 0 to 1")
    if noise_equal(share_without_gold, 0.0):  # 0% was "a minority of claims"
        return "Results that rest on grade 1 alone speak for no claim."
    if noise_equal(share_without_gold, 0.5):  # exactly half was "most claims"
        return "Results that rest on grade 1 alone speak for half of the claims."
    if share_without_gold < 0.5:
        return "Results that rest on grade 1 alone speak for a minority of claims."
    if share_without_gold < 1 and not noise_equal(share_without_gold, 1.0):  # 1 - 1e-16 printed 100.0% beside "not all"
        return "Results that rest on grade 1 alone speak for most claims, not all."
    return "Results that rest on grade 1 alone speak for every claim."


def _leaders(shares: pd.Series) -> tuple[list[str], str] | None:
    """The systems with the largest share and that share as printed (".1%", ties as printed), or None where no
    share is defined or the largest is 0. A largest share under 0.05% is no tie with 0: its systems compared as
    numbers and the share printed apart from 0 (0.04% was "0.0%", or "no system retrieved one")."""
    top = highest(shares, ".1%")
    value = float(pd.to_numeric(shares, errors="coerce").max()) if top else 0.0
    if not top or noise_equal(value, 0.0):  # 1e-17 was a leader "for 0.0%"; noise at 0 is 0, as it prints
        return None
    if printed(value, ".1%") in (0.0, 1.0):  # 0.04% is no tie with 0, 99.96% none with 100% (the forty-fifth pass)
        top = highest(shares)
    return top, apart(value, ".1%", (0.0, 1.0))


def best_coverage_phrase(coverage: pd.Series) -> str:
    """Notebook 01's best single system by gold coverage (`gold_coverage`'s column, one row per system): tied
    systems are named together, and a coverage of 0 everywhere names no system."""
    if coverage.dropna().empty:  # NaN everywhere: "no single system retrieved one" was read from no number
        return "no system's gold coverage is defined (no claim with gold source URLs)"
    if (leaders := _leaders(coverage)) is None:
        return "no single system retrieved one"
    top, value = leaders
    if len(top) == 1:
        return f"the best single system, {top[0]}, for {value}"
    return f"the best single systems, tied, {and_list(top)}, for {value} each"


def leakiest_phrase(leakage: pd.Series) -> str:
    """Notebook 01's most leaky system (`fact_check_leakage`'s share of claims, one row per system): tied
    systems named together; where no system's evidence comes from a fact-checking site, none is named."""
    if leakage.dropna().empty:  # NaN everywhere, or no system: no finding ("no ... site" was read from it)
        return "no system's fact-checking leakage is defined (no claim)" if len(leakage) else "no system to compare"
    if (leaders := _leaders(leakage)) is None:
        return "no single system's evidence comes from a fact-checking site"
    top, value = leaders
    if len(top) == 1:
        return f"the most leaky system is {top[0]} ({value})"
    return f"the most leaky systems are {and_list(top)} (tied at {value})"


def temporal_sentence(url_path: float | None, wayback: float | None) -> str:
    """Notebook 01's temporal leakage: the share of hits published after their claim, by how the hit is dated
    (`store_metrics`' `post_claim_hits_url_path` and `post_claim_hits_wayback`; None where no hit is dated
    that way, which a store without archive.org URLs gives)."""
    url_path, wayback = (None if v is None or v != v else v for v in (url_path, wayback))  # NaN: "nan% of hits"
    for key, v in (("post_claim_hits_url_path", url_path), ("post_claim_hits_wayback", wayback)):
        if v is not None and not 0 <= v <= 1:  # "inf%" and "-20.0%" of hits were printed
            raise ValueError(f"{key} is {v!r}, expected a share from 0 to 1 (or none)")
    # kept off 0% and 100% as printed: 0.04% of hits read "0.0% ... published after the claim" (the forty-third pass)
    url_path, wayback = (None if v is None else apart(v, ".1%", (0.0, 1.0)) for v in (url_path, wayback))
    if url_path is not None and wayback is not None:
        return (
            f"{url_path} of hits dated by their URL path were published after the claim, against {wayback} "
            "of hits dated only by a Wayback capture, which mostly measures when annotators archived pages, not "
            "leakage."
        )
    by_path = (
        f"{url_path} of hits dated by their URL path were published after the claim"
        if url_path is not None
        else "no hit is dated by its URL path"
    )
    by_capture = (
        f"{wayback} of hits dated only by a Wayback capture were published after the claim (which mostly "
        "measures when annotators archived pages)"
        if wayback is not None
        else "no hit is dated only by a Wayback capture"
    )
    return f"{by_path}; {by_capture}."


def share_metric(value: float, places: int = 4) -> float:
    """A share as the metrics file keeps it: `places` decimals, or as many more as keep it off 0 and 1 where it
    is neither (1 hit in 30,000 rounded to 0.0 and the sentence read from the file said "0.0% of hits")."""
    for d in range(places, 18):
        shown = round(value, d)
        if shown not in (0.0, 1.0) or shown == value:
            return shown
    return value


def store_metrics(store: Store, claims: pd.DataFrame) -> dict:
    """The headline numbers of notebook 01, for `outputs/metrics/store.json`."""
    docs = store.docs
    cov = gold_coverage(store, claims)
    fc = fact_check_leakage(store, claims)
    tl = temporal_leakage(store, claims)
    rel = relevance_coverage(store)
    n = len(claims)

    def tl_get(source: str, col: str) -> float | None:
        key = (ALL_SYSTEMS, source)
        return share_metric(float(tl.loc[key, col])) if key in tl.index else None

    return {
        "settings": {
            "source": store.report["source"],
            **{k: store.report["settings"][k] for k in ("include_gold", "distractor_splits", "min_words")},
        },
        "documents": int(len(docs)),
        "documents_from_systems": int(retrieved_by_systems(store).sum()),
        "judgements": int(len(store.qrels)),
        "claims_with_relevant_share": share_metric(rel["with_any_relevant"] / n),
        "claims_with_relevant_without_gold_share": share_metric(rel["without_gold_answers"] / n),
        "gold_coverage_all_systems": share_metric(float(cov.loc[ALL_SYSTEMS, "gold_coverage"])),
        "fact_check_leak_claims_strict": share_metric(float(fc.loc[ALL_SYSTEMS, "claims_fact_check_site"])),
        "fact_check_leak_claims_loose": share_metric(float(fc.loc[ALL_SYSTEMS, "claims_fact_check_domain"])),
        "own_article_leak_claims": share_metric(float(fc.loc[ALL_SYSTEMS, "claims_own_article"])),
        "post_claim_hits_url_path": tl_get("url_path", "share_after_claim"),
        "post_claim_hits_wayback": tl_get("wayback", "share_after_claim"),
        "misinfo_hits_share": share_metric(float(misinfo_share(store)[ALL_SYSTEMS])),
    }


def duplicates(store: Store) -> dict[str, float]:
    """How much pooling merged: candidates per document, texts under several URLs, URLs with many sentences."""
    docs = store.docs
    candidates = sum(store.report["candidates"].values())
    skipped = sum(sum(v.values()) for v in store.report["skipped"].values())
    per_text = docs.groupby("text")["norm_url"].nunique()
    per_url = docs[docs["norm_url"] != ""].groupby("norm_url").size()
    return {
        "candidates": candidates,
        "skipped": skipped,
        "documents": len(docs),
        "candidates_per_document": (candidates - skipped) / len(docs),
        "texts_under_several_urls": int((per_text > 1).sum()),
        "urls_with_several_sentences": int((per_url > 1).sum()),
        "max_sentences_per_url": int(per_url.max()) if len(per_url) else 0,
    }
