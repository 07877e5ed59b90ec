"""ClaimDecomp: PolitiFact claims with annotators' yes/no sub-questions (few-shot examples of CLAIMDECOMP)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lib.config import DATA_DIR
from lib.data import (
    DataError,
    LoadLog,
    _choice,
    _collect,
    _opt,
    _req,
    _str_list,
    _text,
    read_json_records,
)
from lib.labels import CLAIMDECOMP_LABELS

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
        for i, a in enumerate(_req(path, record, raw, "annotations", list)):
            at = f"annotations[{i}]."
            if not isinstance(a, dict):
                raise DataError(path, record, f"annotations[{i}]", f"expected an object, got {type(a).__name__}")
            anns.append(
                Decomposition(
                    _str_list(path, record, a, "questions", at=at, required=True, texts=True),
                    tuple(x.lower() for x in _str_list(path, record, a, "answers", at=at)),
                    tuple(x.lower() for x in _str_list(path, record, a, "question_source", at=at)),
                )
            )
        return ClaimDecompClaim(
            _req(path, record, raw, "example_id", int),
            _text(path, record, raw, "claim"),
            _choice(path, record, raw, "label", CLAIMDECOMP_LABELS),
            _opt(path, record, raw, "url", str, ""),
            _opt(path, record, raw, "person", str, ""),
            _opt(path, record, raw, "venue", str, ""),
            _str_list(path, record, raw, "justification"),
            _str_list(path, record, raw, "full_article"),
            tuple(anns),
        )

    return _collect(
        path, iter(read_json_records(path)), parse, strict, log, unique=("example_id", lambda c: c.example_id)
    )
