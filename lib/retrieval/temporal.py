"""The temporal filter: evidence dated after its claim is removed (params `retrieval.temporal`,
`retrieval.keep_undated`).

A document whose URL path dates it after the claim date is removed; a document with no publication date is
kept or removed by `keep_undated`. A Wayback capture date is an upper bound on publication: captured before
the claim means published before it (kept); captured after says nothing (the document counts as undated).
`temporal_report` counts each rule's removals.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

TEMPORAL_RULES = ("published_after_claim", "captured_after_claim_undated", "undated")


def date_ordinals(docs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per document: publication date (URL path) and Wayback capture date as ordinals, 0 when unknown."""

    def ords(col: str) -> np.ndarray:
        return np.array([d.toordinal() if isinstance(d, date) else 0 for d in docs[col]], dtype=np.int64)

    return ords("path_date"), ords("capture_date")


def date_status(published: np.ndarray, captured: np.ndarray, claim_date: date | None) -> np.ndarray:
    """Per document, relative to one claim date: "before" (kept), or one of TEMPORAL_RULES.

    `published` and `captured` are `date_ordinals` (0 = unknown): a URL-path date is a publication
    date; a Wayback capture date only bounds it (captured before the claim = published before it)."""
    if claim_date is None:
        return np.full(len(published), "no_claim_date", dtype=object)
    c = claim_date.toordinal()
    return np.select(
        [published > c, published > 0, (captured > 0) & (captured <= c), captured > 0],
        ["published_after_claim", "before", "before", "captured_after_claim_undated"],
        default="undated",
    ).astype(object)


def temporal_mask(status: np.ndarray, keep_undated: bool) -> np.ndarray:
    """Which documents survive the filter, given `date_status`."""
    keep = (status == "before") | (status == "no_claim_date")
    if keep_undated:
        keep |= (status == "undated") | (status == "captured_after_claim_undated")
    return keep


def temporal_report(status: np.ndarray, keep_undated: bool) -> dict[str, int]:
    """How many documents each rule removed (and kept) for one claim's candidates."""
    counts = {rule: int((status == rule).sum()) for rule in TEMPORAL_RULES}
    removed = {
        "removed_" + r: (c if r == "published_after_claim" or not keep_undated else 0) for r, c in counts.items()
    }
    return {"candidates": int(len(status)), **removed, "kept": int(temporal_mask(status, keep_undated).sum())}
