"""AVeriTeC's dataset statistics for the splits here, row for row as the shared-task overview prints them (its
Table 1): claims, questions per claim, the re-annotated share, and the shares of labels, claim types and
fact-checking strategies (types and strategies are multi-label, so their shares sum to more than 1).

Keys are the overview's abbreviations, so a printed cell and the study's number pair up by name. Shares are
fractions (the overview prints percentages), rounded to 4 places like every metrics file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lib.data.averitec import Claim
from lib.data.labels import AVERITEC_LABELS

PLACES = 4  # rounding of every share and mean
LABEL_CODES = dict(zip(AVERITEC_LABELS, ("S", "R", "N", "C")))
TYPE_CODES = {
    "Position Statement": "PS",
    "Numerical Claim": "NC",
    "Event/Property Claim": "EPC",
    "Quote Verification": "QV",
    "Causal Claim": "CC",
}
STRATEGY_CODES = {
    "Written Evidence": "WE",
    "Numerical Comparison": "NCP",
    "Fact-checker Reference": "FR",
    "Consultation": "EC",  # the overview's "expert consultation"
    "Satirical Source Identification": "SS",
}


def reannotated(path: Path | str) -> list[bool]:
    """`required_reannotation` of each record of a split file (the loader keeps no such field: only this table
    reads it); a record without it, or with another value than true/false, is an error naming the record."""
    out = []
    for i, record in enumerate(json.loads(Path(path).read_text(encoding="utf-8"))):
        value = record.get("required_reannotation") if isinstance(record, dict) else None
        if not isinstance(value, bool):
            raise ValueError(f"{path}: record {i}: field 'required_reannotation' is {value!r}, expected true or false")
        out.append(value)
    return out


def _shares(values: Sequence[Sequence[str]], codes: dict[str, str], n: int, what: str) -> dict[str, float]:
    unknown = sorted({v for vs in values for v in vs} - set(codes))
    if unknown:
        raise ValueError(f"{what} {unknown}: expected one of {sorted(codes)}")
    return {code: round(sum(name in vs for vs in values) / n, PLACES) for name, code in codes.items()}


def split_statistics(claims: Sequence[Claim], reannotated_flags: Sequence[bool]) -> dict[str, Any]:
    """The overview's Table 1 column for one split."""
    n = len(claims)
    if n == 0:
        raise ValueError("no claims: a split's statistics need at least one")
    if len(reannotated_flags) != n:
        raise ValueError(f"{len(reannotated_flags)} re-annotation flags for {n} claims")
    return {
        "claims": n,
        "questions_per_claim": round(sum(len(c.questions) for c in claims) / n, PLACES),
        "reannotated": round(sum(reannotated_flags) / n, PLACES),
        "labels": _shares([(c.label,) for c in claims], LABEL_CODES, n, "labels"),
        "types": _shares([c.claim_types for c in claims], TYPE_CODES, n, "claim types"),
        "strategies": _shares([c.fact_checking_strategies for c in claims], STRATEGY_CODES, n, "strategies"),
    }
