"""The names params sections may use for retrieval: retriever kinds and fusion methods. Kept apart from the
code that implements them, so a stage that only names them (a verifier's run selection, a notebook's focus)
does not rerun when a retriever or a fusion is edited. `lib.retrieval.retrievers.KINDS` and
`lib.retrieval.fusion.fuse` implement exactly these names (checked on import and by the tests)."""

from __future__ import annotations

from typing import Literal, get_args

RetrieverKind = Literal["bm25", "dense", "hybrid"]  # each one a module of lib/retrieval with a KIND
RETRIEVERS: tuple[str, ...] = get_args(RetrieverKind)

ThesisFusion = Literal["top1", "concat", "combmax", "combsum", "combmax_norm", "combsum_norm"]  # the thesis' methods
Fusion = Literal[ThesisFusion, "rrf", "combmnz", "wsum_norm"]  # with the extensions
FUSIONS: tuple[str, ...] = get_args(Fusion)
THESIS_FUSIONS: tuple[str, ...] = get_args(ThesisFusion)

# the columns that name one run (a setting) in a runs table: every runs file's first five columns
CONFIG_COLUMNS = ["plan", "retriever", "scope", "temporal", "fusion"]
