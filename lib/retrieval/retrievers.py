"""Retrievers over the pooled store: BM25 (rank_bm25's BM25Okapi, vectorised), dense (sentence-transformers
+ faiss), their hybrid, the two scopes and the temporal filter.

Every retriever answers the same question: given query texts and the candidate documents (row indices of
`documents.parquet`), what is the score of every (query, candidate) pair? Scoring the whole candidate set
(not only a top-k) is what min-max normalisation "over the whole scored collection" in `lib.retrieval.fusion` needs.

Scopes: `claim` ranks only the claim's pool (the per-claim knowledge store of AVeriTeC; BM25 statistics
come from that pool, as the AVeriTeC baseline builds one BM25 index per claim), `global` ranks the whole
collection (open domain; statistics from the whole collection).

Global index (`GlobalIndex`, params `retrieval.global_index`): `flat` (the default) scores every document
of the collection exactly. For a collection too large for that (the organisers' store holds millions of
passages), `ivf` or `hnsw` builds faiss' approximate index: the candidates of a set of queries in the
global scope are the union of each query's (up to) `candidates` nearest documents by that index (for
hybrid, with each query's `candidates` best BM25 documents that match it), and only they are scored,
exactly. `lib.retrieval.runs` gives each plan the candidates of its own queries. A run then misses what the index
missed, and min-max normalisation runs over those candidates rather than the whole collection.

Temporal filter (`temporal_mask`): a document whose URL path dates it after the claim date is removed;
a document with no publication date is kept or removed by `keep_undated`. A Wayback capture date is an
upper bound on publication: captured before the claim means published before it (kept); captured after
says nothing (the document counts as undated). `temporal_report` counts each rule's removals.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import Literal, get_args

import numpy as np
import pandas as pd
import scipy.sparse as sp
from pydantic import ConfigDict

from lib.models import encode
from lib.params import NonNegFloat, NonNegInt, PosInt, Section, Share
from lib.paths import OUTPUTS_DIR
from lib.retrieval import fusion as F
from lib.store.scopes import SCOPES

EMBEDDINGS_DIR = OUTPUTS_DIR / "embeddings"
RetrieverKind = Literal["bm25", "dense", "hybrid"]  # the retriever kinds that params sections name
RETRIEVERS: tuple[str, ...] = get_args(RetrieverKind)
_TOKEN = re.compile(r"\w+")


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens (`\\w+`): the tokenisation given to both this BM25 and rank_bm25."""
    return _TOKEN.findall(text.lower())


# --------------------------------------------------------------------------- BM25


class BM25Params(Section):
    """`retrieval.bm25`, rank_bm25's BM25Okapi defaults."""

    params_complete = True

    model_config = ConfigDict(frozen=True)

    k1: NonNegFloat = 1.5
    b: Share = 0.75
    epsilon: NonNegFloat = 0.25


class BM25:
    """rank_bm25's `BM25Okapi` scores, computed as one sparse product (queries x terms) @ (terms x docs).

    Same formula, term by term: idf = log(N - df + 0.5) - log(df + 0.5); a negative idf becomes
    epsilon * (mean idf over the corpus vocabulary); a term repeated in the query counts every time;
    a term absent from the corpus scores 0. The state (vocabulary, weights) is what makes this a class.
    """

    def __init__(
        self,
        tf: sp.csr_matrix,
        vocab: dict[str, int],
        params: BM25Params = BM25Params(),
        tokenizer: Callable[[str], list[str]] = tokenize,
    ):
        self.tf = sp.csr_matrix(tf, dtype=np.float64)
        self.vocab, self.params, self.tokenizer = vocab, params, tokenizer
        n_docs = self.tf.shape[0]
        if n_docs == 0:
            raise ValueError("BM25 needs at least one document")
        doc_len = np.asarray(self.tf.sum(axis=1)).ravel()
        avgdl = doc_len.sum() / n_docs
        df = np.bincount(self.tf.indices, minlength=self.tf.shape[1]).astype(np.float64)
        present = df > 0
        idf = np.zeros(self.tf.shape[1])
        idf[present] = np.log(n_docs - df[present] + 0.5) - np.log(df[present] + 0.5)
        if present.any():
            average_idf = idf[present].sum() / present.sum()
            idf[present & (idf < 0)] = params.epsilon * average_idf
        self.idf = idf
        # per (doc, term): idf * tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))
        norm = params.k1 * (1 - params.b + params.b * doc_len / avgdl) if avgdl > 0 else np.full(n_docs, params.k1)
        rows = np.repeat(np.arange(n_docs), np.diff(self.tf.indptr))
        tfv = self.tf.data
        data = idf[self.tf.indices] * (tfv * (params.k1 + 1) / (tfv + norm[rows]))
        self.weights = sp.csr_matrix((data, self.tf.indices, self.tf.indptr), shape=self.tf.shape)
        self._weights_t = self.weights.T.tocsr()

    @classmethod
    def from_texts(
        cls, texts: Iterable[str], params: BM25Params = BM25Params(), tokenizer: Callable[[str], list[str]] = tokenize
    ) -> BM25:
        tf, vocab = term_matrix([tokenizer(t) for t in texts])
        return cls(tf, vocab, params, tokenizer)

    @property
    def n_docs(self) -> int:
        return self.tf.shape[0]

    def subset(self, rows: Sequence[int]) -> BM25:
        """A BM25 index over some of the documents only (corpus statistics from those documents)."""
        return BM25(self.tf[np.asarray(rows, dtype=np.int64)], self.vocab, self.params, self.tokenizer)

    def query_matrix(self, queries: Sequence[str]) -> sp.csr_matrix:
        """Term counts of each query over the vocabulary (unknown terms dropped: they score 0)."""
        rows, cols = [], []
        for i, q in enumerate(queries):
            for tok in self.tokenizer(q):
                j = self.vocab.get(tok)
                if j is not None:
                    rows.append(i)
                    cols.append(j)
        data = np.ones(len(rows))
        return sp.csr_matrix((data, (rows, cols)), shape=(len(queries), len(self.vocab)))

    def scores(self, queries: Sequence[str], rows: Sequence[int] | None = None) -> np.ndarray:
        """(queries x documents) BM25 scores; `rows` restricts the documents (statistics unchanged)."""
        scores = (self.query_matrix(queries) @ self._weights_t).toarray()
        return scores if rows is None else scores[:, np.asarray(rows, dtype=np.int64)]


def term_matrix(token_lists: Sequence[Sequence[str]]) -> tuple[sp.csr_matrix, dict[str, int]]:
    """(documents x vocabulary) term counts and the vocabulary {term: column}."""
    vocab: dict[str, int] = {}
    indptr, indices = [0], []
    for toks in token_lists:
        indices.extend(vocab.setdefault(t, len(vocab)) for t in toks)
        indptr.append(len(indices))
    tf = sp.csr_matrix(
        (np.ones(len(indices)), np.asarray(indices, dtype=np.int64), np.asarray(indptr)),
        shape=(len(token_lists), len(vocab)),
    )
    tf.sum_duplicates()
    return tf, vocab


# --------------------------------------------------------------------------- dense


def save_embeddings(path_stem: Path | str, keys: Sequence[str], emb: np.ndarray, model: str) -> None:
    """`<stem>.npy` (vectors) and `<stem>.json` (model, keys in row order)."""
    stem = Path(path_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    np.save(stem.with_suffix(".npy"), emb)
    stem.with_suffix(".json").write_text(
        json.dumps({"model": model, "dim": int(emb.shape[1]) if emb.ndim == 2 else 0, "keys": list(keys)}) + "\n"
    )


def load_embeddings(path_stem: Path | str, model: str | None = None) -> tuple[list[str], np.ndarray]:
    """Keys and vectors saved by `save_embeddings`; a clear error when missing or made by another model."""
    stem = Path(path_stem)
    if not stem.with_suffix(".npy").exists():
        raise FileNotFoundError(f"{stem}.npy is missing: run `dvc repro embed_documents embed_queries` first")
    meta = json.loads(stem.with_suffix(".json").read_text())
    if model is not None and meta["model"] != model:
        raise ValueError(
            f"{stem}: embeddings were made with {meta['model']!r}, not {model!r}: rerun `dvc repro embed_documents embed_queries`"
        )
    emb = np.load(stem.with_suffix(".npy"))
    if len(meta["keys"]) != len(emb):
        raise ValueError(f"{stem}: {len(meta['keys'])} keys for {len(emb)} vectors")
    return meta["keys"], emb


GlobalIndexKind = Literal["flat", "ivf", "hnsw"]  # flat: exact
GLOBAL_INDEXES: tuple[str, ...] = get_args(GlobalIndexKind)


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


class Retriever:
    """One retriever (`bm25`, `dense` or `hybrid`) in one scope over the store's documents.

    `score(claim_id, queries, rows)` returns (queries x rows) scores for candidate rows of the claim.
    Hybrid: the mean of BM25 and dense scores, each min-max normalised per query over the candidates.
    With an approximate global index, the global scope's candidates depend on the claim's queries.
    """

    def __init__(
        self,
        kind: str,
        scope: str,
        bm25: BM25 | None = None,
        dense: DenseIndex | None = None,
        pools: dict[int, np.ndarray] | None = None,
    ):
        if kind not in RETRIEVERS:
            raise ValueError(f"unknown retriever {kind!r} (expected one of {RETRIEVERS})")
        if scope not in SCOPES:
            raise ValueError(f"unknown scope {scope!r} (expected one of {SCOPES})")
        if kind in ("bm25", "hybrid") and bm25 is None or kind in ("dense", "hybrid") and dense is None:
            raise ValueError(f"retriever {kind!r} needs {'a BM25 index' if bm25 is None else 'a dense index'}")
        if scope == "claim" and pools is None:
            raise ValueError("the claim scope needs the claim pools (lib.store.build.claim_pools)")
        self.kind, self.scope, self.bm25, self.dense, self.pools = kind, scope, bm25, dense, pools
        self._pool_bm25: dict[int, BM25] = {}

    @property
    def approximate(self) -> bool:
        """Whether this retriever's candidates come from an approximate index (global scope, dense part)."""
        return self.scope == "global" and self.kind != "bm25" and self.dense.approximate

    def candidates(self, claim_id: int, queries: Sequence[str] = ()) -> np.ndarray:
        """Row indices the claim may retrieve in this scope (sorted). With an approximate global index
        they are found from the claim's `queries` (module docstring), which must then be given."""
        if self.scope == "claim":
            return self.pools.get(claim_id, np.empty(0, dtype=np.int64))
        if not self.approximate:
            return np.arange(self.bm25.n_docs if self.bm25 is not None else self.dense.n_docs)
        if not len(queries):
            raise ValueError(
                f"claim {claim_id}: the global scope with a {self.dense.settings.kind!r} index finds candidates "
                "from the claim's queries; none were given"
            )
        k = self.dense.settings.candidates
        found = [self.dense.search(queries, k)[1].ravel()]
        if self.kind == "hybrid":  # each query's best BM25 documents that match it at all, lower row first on ties
            lower_first = -np.arange(self.bm25.n_docs)
            found += [F.top_k(np.where(s > 0, s, -np.inf), k, lower_first) for s in self.bm25.scores(queries)]
        rows = np.unique(np.concatenate(found))
        return rows[rows >= 0]

    def _bm25_scores(self, claim_id: int, queries: Sequence[str], rows: np.ndarray) -> np.ndarray:
        if self.scope == "global":
            return self.bm25.scores(queries, rows)
        pool = self.candidates(claim_id)
        if claim_id not in self._pool_bm25:
            self._pool_bm25 = {claim_id: self.bm25.subset(pool)}  # one claim at a time: bounded memory
        local = np.searchsorted(pool, rows)
        if (local >= len(pool)).any() or not np.array_equal(pool[np.minimum(local, len(pool) - 1)], rows):
            raise ValueError(f"claim {claim_id}: candidate rows outside its pool")
        return self._pool_bm25[claim_id].scores(queries, local)

    def score(self, claim_id: int, queries: Sequence[str], rows: np.ndarray | None = None) -> np.ndarray:
        rows = self.candidates(claim_id, queries) if rows is None else np.asarray(rows, dtype=np.int64)
        if len(rows) == 0 or len(queries) == 0:
            return np.zeros((len(queries), len(rows)))
        if self.kind == "bm25":
            return self._bm25_scores(claim_id, queries, rows)
        if self.kind == "dense":
            return self.dense.scores(queries, rows).astype(np.float64)
        return 0.5 * (
            F.minmax_rows(self._bm25_scores(claim_id, queries, rows))
            + F.minmax_rows(self.dense.scores(queries, rows).astype(np.float64))
        )


# --------------------------------------------------------------------------- temporal filter

TEMPORAL_RULES = ("published_after_claim", "captured_after_claim_undated", "undated")


def date_ordinals(docs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per document: publication date (URL path) and Wayback capture date as ordinals, 0 when unknown."""

    def ords(col: str) -> np.ndarray:
        return np.array([d.toordinal() if isinstance(d, date) else 0 for d in docs[col]], dtype=np.int64)

    return ords("path_date"), ords("capture_date")


def date_status(published: np.ndarray, captured: np.ndarray, claim_date: date | None) -> np.ndarray:
    """Per document, relative to one claim date: "before" (kept), or one of TEMPORAL_RULES.

    `published` and `captured` are `date_ordinals` (0 = unknown): a URL-path date is a publication
    date; a Wayback capture date only bounds it (captured before the claim = published before it)."""
    if claim_date is None:
        return np.full(len(published), "no_claim_date", dtype=object)
    c = claim_date.toordinal()
    return np.select(
        [published > c, published > 0, (captured > 0) & (captured <= c), captured > 0],
        ["published_after_claim", "before", "before", "captured_after_claim_undated"],
        default="undated",
    ).astype(object)


def temporal_mask(status: np.ndarray, keep_undated: bool) -> np.ndarray:
    """Which documents survive the filter, given `date_status`."""
    keep = (status == "before") | (status == "no_claim_date")
    if keep_undated:
        keep |= (status == "undated") | (status == "captured_after_claim_undated")
    return keep


def temporal_report(status: np.ndarray, keep_undated: bool) -> dict[str, int]:
    """How many documents each rule removed (and kept) for one claim's candidates."""
    counts = {rule: int((status == rule).sum()) for rule in TEMPORAL_RULES}
    removed = {
        "removed_" + r: (c if r == "published_after_claim" or not keep_undated else 0) for r, c in counts.items()
    }
    return {"candidates": int(len(status)), **removed, "kept": int(temporal_mask(status, keep_undated).sum())}
