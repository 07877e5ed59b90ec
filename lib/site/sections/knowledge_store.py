"""Params section `knowledge_store`: notebook 01 (what the evidence store holds)."""

from __future__ import annotations

from lib.params import PosInt, Section, Text


class KnowledgeStoreNotebookSection(Section):
    store_dir: Text
    data_dir: Text
    metrics_path: Text
    top_domains: PosInt
