"""Retrieval scopes: which documents a retriever may return for a claim."""

from __future__ import annotations

from typing import Literal, get_args

# claim: only the documents pooled for the claim (as the per-claim knowledge store); global: the whole collection
Scope = Literal["claim", "global"]
SCOPES: tuple[str, ...] = get_args(Scope)
