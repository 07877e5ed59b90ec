"""QuanTemp: numerical claims, their BM25 snippets, taxonomy, decompositions and published predictions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lib.data import (
    DataError,
    LoadLog,
    collect_records,
    int_text_field,
    label_field,
    nonempty_field,
    optional_field,
    read_csv_records,
    read_json_records,
    required_field,
    str_list_field,
    text_field,
)
from lib.paths import DATA_DIR

# --------------------------------------------------------------------------- QuanTemp


@dataclass(frozen=True)
class QuanTempClaim:
    """A QuanTemp validation claim with up to three BM25 snippets from the QuanTemp corpus."""

    claim_id: int
    text: str
    label: str
    query: str
    snippets: tuple[str, ...]


def load_quantemp_val(
    path: Path | str | None = None, *, strict: bool = True, log: LoadLog | None = None
) -> list[QuanTempClaim]:
    path = Path(path) if path else DATA_DIR / "quantemp" / "val_claims_bm25_evidence.json"

    def parse(record: int, raw: dict) -> QuanTempClaim:
        evs = required_field(path, record, raw, "evidences", list)
        queries, snippets = [], []
        for i, ev in enumerate(evs):
            if not isinstance(ev, dict):
                raise DataError(path, record, f"evidences[{i}]", "expected an object {questions, top_k_doc}")
            queries.append(optional_field(path, record, ev, "questions", str, "", at=f"evidences[{i}]."))
            # a blank snippet is no evidence: it counted a claim as one with snippets
            snippets.extend(
                s for s in str_list_field(path, record, ev, "top_k_doc", at=f"evidences[{i}].") if s.strip()
            )
        return QuanTempClaim(
            record,
            text_field(path, record, raw, "claim"),
            label_field(path, record, raw, "label", "quantemp"),
            " ".join(queries),
            tuple(snippets),
        )

    return collect_records(path, iter(read_json_records(path)), parse, strict, log)


QUANTEMP_TAXONOMY = ("statistical", "temporal", "interval", "comparison")


@dataclass(frozen=True)
class TaxonomyClaim:
    text: str
    taxonomy: str


def load_quantemp_taxonomy(path: Path | str | None = None) -> list[TaxonomyClaim]:
    """Numerical claims labelled with the QuanTemp taxonomy ('@'-separated CSV)."""
    path = Path(path) if path else DATA_DIR / "quantemp" / "taxonomy_labelled_claims.csv"

    def parse(record: int, raw: dict) -> TaxonomyClaim:
        label = raw["taxonomy_labels"].strip().lower()
        if label not in QUANTEMP_TAXONOMY:
            raise DataError(path, record, "taxonomy_labels", f"unknown label {label!r} (expected {QUANTEMP_TAXONOMY})")
        return TaxonomyClaim(text_field(path, record, raw, "claim").strip(), label)

    rows = read_csv_records(path, ("claim", "taxonomy_labels"), sep="@")
    return collect_records(path, iter(rows), parse, True, None)


@dataclass(frozen=True)
class DecomposedClaim:
    text: str
    questions: tuple[str, ...]


def load_quantemp_decompositions(path: Path | str | None = None) -> list[DecomposedClaim]:
    """QuanTemp test claims with LLM-generated ClaimDecomp questions (joined by 'Next Question:')."""
    path = Path(path) if path else DATA_DIR / "quantemp" / "test_claimdecomp_questions.csv"

    def parse(record: int, raw: dict) -> DecomposedClaim:
        qs = [q.strip() for q in re.split(r"\n?Next Question:", raw["questions"]) if q.strip()]
        if not qs:
            raise DataError(path, record, "questions", "no questions")
        return DecomposedClaim(text_field(path, record, raw, "claims"), tuple(qs))

    return collect_records(path, iter(read_csv_records(path, ("claims", "questions"), sep="@")), parse, True, None)


@dataclass(frozen=True)
class ClaimPrediction:
    text: str
    label: str


def load_quantemp_predictions(path: Path | str) -> list[ClaimPrediction]:
    """A published QuanTemp system's test predictions (claim, verdict)."""
    path = Path(path)
    rows = read_csv_records(path, ("claim", "verdict"))
    return collect_records(
        path,
        iter(rows),
        lambda r, raw: ClaimPrediction(
            text_field(path, r, raw, "claim"), label_field(path, r, raw, "verdict", "quantemp")
        ),
        True,
        None,
    )


@dataclass(frozen=True)
class GoldArticleClaim:
    """A gold-labelled QuanTemp test claim with its fact-check article and GPT-4o's prediction."""

    row_id: int
    text: str
    article: str
    label: str
    gpt4o_label: str


_FEATURES = re.compile(r"^\[Claim\]:(?P<claim>.*?)\[Evidences\]:(?P<article>.*)$", re.S)


def load_quantemp_gold_subset(path: Path | str | None = None) -> list[GoldArticleClaim]:
    """The gold subset; its unnamed index column is the row id (the row number where blank), one row per id."""
    path = Path(path) if path else DATA_DIR / "quantemp" / "test_subset_gold_with_article.csv"

    def parse(record: int, raw: dict) -> GoldArticleClaim:
        m = _FEATURES.match(raw["features"])
        if not m:
            raise DataError(path, record, "features", "expected '[Claim]:...[Evidences]:...'")
        return GoldArticleClaim(
            int_text_field(path, record, raw, "", default=record),
            nonempty_field(path, record, "features", m["claim"].strip()),
            m["article"].strip(),
            label_field(path, record, raw, "true_label", "quantemp"),
            label_field(path, record, raw, "pred_label", "quantemp"),
        )

    rows = read_csv_records(path, ("", "features", "true_label", "pred_label"))
    return collect_records(path, iter(rows), parse, True, None, unique=("", lambda c: c.row_id))
