"""Params section `knowledge_store`: notebook 01 (what the evidence store holds)."""

from __future__ import annotations

from lib.params import FilePath, PosInt, Section


class KnowledgeStoreNotebookSection(Section):
    store_dir: FilePath
    data_dir: FilePath
    metrics_path: FilePath
    top_domains: PosInt
