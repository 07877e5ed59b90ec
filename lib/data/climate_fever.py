"""CLIMATE-FEVER: climate claims with Wikipedia evidence sentences."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lib.data import (
    DataError,
    LoadLog,
    choice_field,
    collect_records,
    optional_field,
    read_json_records,
    required_field,
    str_list_field,
    text_field,
)
from lib.data.labels import AVERITEC_LABELS, CLIMATE_FEVER_LABELS
from lib.paths import DATA_DIR

# The claim labels in AVeriTeC's (notebook 09 reads CLIMATE-FEVER with the AVeriTeC verifier): DISPUTED, evidence
# found both ways, is AVeriTeC's Conflicting Evidence/Cherrypicking.
TO_AVERITEC = dict(zip(CLIMATE_FEVER_LABELS, AVERITEC_LABELS))
SENTENCES = 5  # evidence sentences CLIMATE-FEVER gives each claim: notebook 09's selections keep fewer of them


@dataclass(frozen=True)
class ClimateEvidence:
    evidence_id: str
    article: str
    text: str
    label: str
    votes: tuple[str, ...]


@dataclass(frozen=True)
class ClimateClaim:
    claim_id: str
    text: str
    label: str
    evidences: tuple[ClimateEvidence, ...]


def load_climate_fever(
    path: Path | str | None = None, *, strict: bool = True, log: LoadLog | None = None
) -> list[ClimateClaim]:
    """CLIMATE-FEVER: claims with five Wikipedia sentences each, sentence and claim labels; one per claim_id."""
    path = Path(path) if path else DATA_DIR / "climate_fever" / "climate-fever.jsonl"
    ev_labels = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO")

    def parse(record: int, raw: dict) -> ClimateClaim:
        evs = []
        for i, e in enumerate(required_field(path, record, raw, "evidences", list)):
            at = f"evidences[{i}]."
            if not isinstance(e, dict):
                raise DataError(path, record, f"evidences[{i}]", "expected an object")
            votes = str_list_field(path, record, e, "votes", at=at, none_items=True)
            evs.append(
                ClimateEvidence(
                    optional_field(path, record, e, "evidence_id", str, "", at=at),
                    optional_field(path, record, e, "article", str, "", at=at),
                    text_field(path, record, e, "evidence", at=at),
                    choice_field(path, record, e, "evidence_label", ev_labels, at=at),
                    tuple(v for v in votes if v),
                )
            )
        claim_id = str(required_field(path, record, raw, "claim_id", (str, int)))
        if not claim_id.strip():
            raise DataError(path, record, "claim_id", "empty (expected the claim's id)")
        return ClimateClaim(
            claim_id,
            text_field(path, record, raw, "claim"),
            choice_field(path, record, raw, "claim_label", CLIMATE_FEVER_LABELS),
            tuple(evs),
        )

    return collect_records(
        path, iter(read_json_records(path)), parse, strict, log, unique=("claim_id", lambda c: c.claim_id)
    )
