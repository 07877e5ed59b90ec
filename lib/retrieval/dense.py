"""Dense retrieval: sentence-transformers vectors in a faiss index (exact, or approximate for the global
scope: `GlobalIndex`), and the `dense` retriever kind."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, get_args

import numpy as np
from pydantic import ConfigDict

from lib import outputs as OUT
from lib.cli import NamedError, made_by
from lib.models import encode
from lib.params import NonNegInt, PosInt, Section
from lib.paths import OUTPUTS_DIR
from lib.retrieval.kind import Kind

EMBEDDINGS_DIR = OUTPUTS_DIR / "embeddings"

GlobalIndexKind = Literal["flat", "ivf", "hnsw"]  # flat: exact

GLOBAL_INDEXES: tuple[str, ...] = get_args(GlobalIndexKind)


def save_embeddings(path_stem: Path | str, keys: Sequence[str], emb: np.ndarray, model: str) -> None:
    """`<stem>.npy` (vectors) and `<stem>.json` (model, keys in row order)."""
    stem = Path(path_stem)
    with OUT.together():
        with OUT.atomic(stem.with_suffix(".npy")) as tmp:
            np.save(tmp, emb)
        meta = {"model": model, "dim": int(emb.shape[1]) if emb.ndim == 2 else 0, "keys": list(keys)}
        OUT.write_text(stem.with_suffix(".json"), json.dumps(meta) + "\n")


def load_embeddings(path_stem: Path | str, model: str | None = None) -> tuple[list[str], np.ndarray]:
    """Keys and vectors saved by `save_embeddings`; a named error (the file, what to rerun) when they are missing,
    made by another model, damaged, or of another run (keys and vectors that do not pair)."""
    stem = Path(path_stem)
    rerun = (
        "rerun `dvc repro embed_documents embed_queries`"
        if made_by(stem.with_suffix(".npy"))
        else "rerun `python -m lib.retrieval.runs embed-documents` (and `embed-queries`) with this --out-dir"
    )
    if not stem.with_suffix(".npy").exists():
        raise FileNotFoundError(f"{stem}.npy is missing: {rerun}")
    try:
        meta = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise NamedError(
            f"{stem}.json: cannot be read as the embeddings' keys ({type(err).__name__}): {rerun}"
        ) from None
    keys = meta.get("keys") if isinstance(meta, dict) else None
    if (
        not isinstance(keys, list)
        or not all(isinstance(k, str) for k in keys)
        or not isinstance(meta.get("model"), str)
    ):
        raise NamedError(f"{stem}.json: expected an object with `model` (text) and `keys` (a list of ids): {rerun}")
    if model is not None and meta["model"] != model:
        raise NamedError(f"{stem}: embeddings were made with {meta['model']!r}, not {model!r}: {rerun}")
    try:
        emb = np.load(stem.with_suffix(".npy"), allow_pickle=False)
    except (OSError, ValueError) as err:
        raise NamedError(f"{stem}.npy: not a saved array ({err}): {rerun}") from None
    if emb.ndim != 2 or len(keys) != len(emb):
        raise NamedError(f"{stem}: {len(keys)} keys for {len(emb) if emb.ndim else 0} vectors ({emb.ndim}-D): {rerun}")
    return keys, emb


class GlobalIndex(Section):
    """`retrieval.global_index`: the faiss index of the global scope's dense retrieval (module docstring).

    `nlist` IVF cells (0: 4 * sqrt(documents), at most one per 39 documents, faiss' training minimum),
    `nprobe` of them searched per query; `hnsw_m` links per node, `ef_search` the HNSW search breadth."""

    params_complete = True

    model_config = ConfigDict(frozen=True)

    kind: GlobalIndexKind = "flat"
    candidates: PosInt = 1000  # per query, from an approximate index; their union is scored exactly
    nlist: NonNegInt = 0
    nprobe: PosInt = 16
    hnsw_m: PosInt = 32
    ef_search: PosInt = 256

    @property
    def approximate(self) -> bool:
        return self.kind != "flat"


def build_faiss_index(emb: np.ndarray, settings: GlobalIndex = GlobalIndex()):
    """A faiss inner-product index over `emb` of the kind `settings` names. Approximate indexes are built
    on one thread: faiss' multi-threaded k-means and HNSW insertion do not give the same index twice."""
    import faiss

    n, dim = emb.shape
    if settings.kind == "flat":
        index = faiss.IndexFlatIP(dim)
        index.add(emb)
        return index
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        if settings.kind == "ivf":
            nlist = settings.nlist or max(1, min(round(4 * n**0.5), n // 39))
            if nlist > n:
                raise ValueError(f"retrieval.global_index.nlist: {nlist} cells for {n} documents")
            index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
            index.cp.seed = 0
            index.train(emb)
            index.nprobe = min(settings.nprobe, nlist)
        else:
            index = faiss.IndexHNSWFlat(dim, settings.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efSearch = settings.ef_search
        index.add(emb)
    finally:
        faiss.omp_set_num_threads(threads)
    return index


class DenseIndex:
    """Normalised document embeddings in a faiss index (`GlobalIndex`; flat by default); `search` is that
    index's top-k (exact when flat), `scores` the exact inner products for any rows (what min-max
    normalisation needs)."""

    def __init__(
        self,
        doc_emb: np.ndarray,
        query_emb: dict[str, np.ndarray] | None = None,
        encoder=None,
        index: GlobalIndex = GlobalIndex(),
    ):
        self.doc_emb = np.ascontiguousarray(doc_emb, dtype=np.float32)
        self.settings = index
        self.index = build_faiss_index(self.doc_emb, index)
        self.query_emb = dict(query_emb or {})
        self.encoder = encoder

    @property
    def n_docs(self) -> int:
        return self.index.ntotal

    @property
    def approximate(self) -> bool:
        return self.settings.approximate

    def embed(self, queries: Sequence[str]) -> np.ndarray:
        """Query vectors from the cache; missing ones are encoded when an encoder was given."""
        missing = [q for q in dict.fromkeys(queries) if q not in self.query_emb]
        if missing:
            if self.encoder is None:
                raise KeyError(
                    f"{len(missing)} queries have no cached embedding (first: {missing[0]!r}); "
                    "rerun `dvc repro embed_documents embed_queries` or pass an encoder"
                )
            self.query_emb.update(zip(missing, encode(self.encoder, missing, progress=False)))
        return (
            np.stack([self.query_emb[q] for q in queries])
            if queries
            else np.zeros((0, self.doc_emb.shape[1]), dtype=np.float32)
        )

    def scores(self, queries: Sequence[str], rows: Sequence[int] | None = None) -> np.ndarray:
        q = self.embed(queries)
        if rows is not None and len(rows) < self.n_docs // 4:  # a small pool: gather its vectors first
            return q @ self.doc_emb[np.asarray(rows, dtype=np.int64)].T
        scores = q @ self.doc_emb.T
        return scores if rows is None else scores[:, np.asarray(rows, dtype=np.int64)]

    def search(self, queries: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """The index's top-k over the whole collection: (scores, row indices), each queries x k. An
        approximate index may return fewer than k (row -1): IVF returns at most what its `nprobe` cells
        hold; HNSW searches at least k deep (`ef_search` raised to k)."""
        k = min(k, self.n_docs)
        if self.settings.kind == "hnsw":
            self.index.hnsw.efSearch = max(self.settings.ef_search, k)
        return self.index.search(self.embed(queries), k)


KIND = Kind(
    "dense",
    needs_bm25=False,
    needs_dense=True,
    scores=lambda retriever, claim_id, queries, rows: retriever.dense.scores(queries, rows).astype(np.float64),
)
