"""A knowledge store's pages as passages: what the study's store (stage `store`, `store.source:
knowledge_store`) and per-claim retrieval (`lib.retrieval.per_claim`) index.

- `sentence`: each of the page's sentences, as the 2024 baseline indexes them;
- `chunk`: about `chunk_chars` characters of whole sentences, with up to `context_chars` of the
  neighbouring chunks' text before and after, as the 2025 winner indexes them (the context is indexed
  with the chunk: `indexed_texts`).

Each passage keeps its URL, the page's line in the claim's file and its position in the page. Kept apart
from `lib.retrieval.per_claim` so that the stages, which read passages, do not depend on the retrieval code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandas as pd
from pydantic import ConfigDict

from lib.data import knowledge_store as KS
from lib.params import NonNegInt, PosInt, Section

PASSAGE_COLUMNS = ["claim_id", "url", "line", "position", "text", "before", "after"]


def clean_text(text: str) -> str:
    """Whitespace collapsed; the form in which texts are compared and stored."""
    return " ".join(text.split())


class PassageSettings(Section):
    """How pages become passages: `sentence` (each sentence) or `chunk` (about `chunk_chars` characters of
    whole sentences, with up to `context_chars` of the neighbouring chunks on each side)."""

    model_config = ConfigDict(frozen=True)

    unit: Literal["sentence", "chunk"] = "sentence"
    chunk_chars: PosInt = 1000
    context_chars: NonNegInt = 200


def _chunks(sentences: Sequence[str], size: int) -> list[str]:
    """Whole sentences joined until a chunk reaches `size` characters (a longer sentence stands alone)."""
    out, current = [], ""
    for s in sentences:
        current = f"{current} {s}" if current else s
        if len(current) >= size:
            out.append(current)
            current = ""
    if current:
        out.append(current)
    return out


def page_passages(page: KS.Page, settings: PassageSettings = PassageSettings()) -> list[tuple]:
    """The passages of one page as rows of `PASSAGE_COLUMNS`; blank sentences are left out."""
    sentences = [s for s in map(clean_text, page.sentences) if s]
    if settings.unit == "sentence":
        return [(page.claim_id, page.url, page.line, i, s, "", "") for i, s in enumerate(sentences)]
    chunks, n = _chunks(sentences, settings.chunk_chars), settings.context_chars
    return [
        (
            page.claim_id,
            page.url,
            page.line,
            i,
            c,
            chunks[i - 1][-n:] if i and n else "",
            chunks[i + 1][:n] if i + 1 < len(chunks) and n else "",
        )
        for i, c in enumerate(chunks)
    ]


def claim_passages(
    store: Path | str,
    claim_id: int,
    name: str,
    settings: PassageSettings = PassageSettings(),
    counts: Counter | None = None,
) -> pd.DataFrame:
    """One claim's passages (`PASSAGE_COLUMNS`), read as a stream from its file `name` in the store."""
    rows = [row for page in KS.read_pages(store, claim_id, name, counts) for row in page_passages(page, settings)]
    return pd.DataFrame(rows, columns=PASSAGE_COLUMNS)


def indexed_texts(passages: pd.DataFrame) -> list[str]:
    """What is indexed of each passage: its text with its context before and after (a sentence has none)."""
    return [clean_text(" ".join(parts)) for parts in zip(passages["before"], passages["text"], passages["after"])]


@dataclass(frozen=True)
class ReadJob:
    """One claim's file to turn into documents for the study's store (`lib.store.build`, source knowledge_store)."""

    store: str
    claim_id: int
    name: str
    passages: PassageSettings = PassageSettings()


def read_claim(job: ReadJob) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """One claim's passages as (indexed text, URL), in page and position order, and its counts (pages,
    empty pages, sentences, passages): the per-claim work of building the study's store from a knowledge
    store, run by `lib.compute.map_claims`."""
    counts: Counter = Counter()
    passages = claim_passages(job.store, job.claim_id, job.name, job.passages, counts)
    counts["passages"] = len(passages)
    return list(zip(indexed_texts(passages), passages["url"])), dict(counts)
