"""ClaimDecomp: PolitiFact claims with annotators' yes/no sub-questions (few-shot examples of CLAIMDECOMP)."""

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
from lib.data.labels import CLAIMDECOMP_LABELS
from lib.paths import DATA_DIR

# --------------------------------------------------------------------------- ClaimDecomp, CLIMATE-FEVER


@dataclass(frozen=True)
class Decomposition:
    """One annotator's yes/no sub-questions for a claim."""

    questions: tuple[str, ...]
    answers: tuple[str, ...]
    question_source: tuple[str, ...]


@dataclass(frozen=True)
class ClaimDecompClaim:
    example_id: int
    text: str
    label: str
    url: str
    person: str
    venue: str
    justification: tuple[str, ...]
    article: tuple[str, ...]
    annotations: tuple[Decomposition, ...]


def load_claimdecomp(
    split: str = "dev", path: Path | str | None = None, *, strict: bool = True, log: LoadLog | None = None
) -> list[ClaimDecompClaim]:
    """ClaimDecomp (Chen et al. 2022): PolitiFact claims with human yes/no decompositions; one per example_id."""
    path = Path(path) if path else DATA_DIR / "claimdecomp" / f"{split}.jsonl"

    def parse(record: int, raw: dict) -> ClaimDecompClaim:
        anns = []
        for i, a in enumerate(required_field(path, record, raw, "annotations", list)):
            at = f"annotations[{i}]."
            if not isinstance(a, dict):
                raise DataError(path, record, f"annotations[{i}]", f"expected an object, got {type(a).__name__}")
            anns.append(
                Decomposition(
                    str_list_field(path, record, a, "questions", at=at, required=True, texts=True),
                    tuple(x.lower() for x in str_list_field(path, record, a, "answers", at=at)),
                    tuple(x.lower() for x in str_list_field(path, record, a, "question_source", at=at)),
                )
            )
        return ClaimDecompClaim(
            required_field(path, record, raw, "example_id", int),
            text_field(path, record, raw, "claim"),
            choice_field(path, record, raw, "label", CLAIMDECOMP_LABELS),
            optional_field(path, record, raw, "url", str, ""),
            optional_field(path, record, raw, "person", str, ""),
            optional_field(path, record, raw, "venue", str, ""),
            str_list_field(path, record, raw, "justification"),
            str_list_field(path, record, raw, "full_article"),
            tuple(anns),
        )

    return collect_records(
        path, iter(read_json_records(path)), parse, strict, log, unique=("example_id", lambda c: c.example_id)
    )
