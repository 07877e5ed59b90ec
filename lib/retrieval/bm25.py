"""BM25, rank_bm25's BM25Okapi vectorised: the scores of every (query, candidate) pair as one sparse product,
and the `bm25` retriever kind."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import scipy.sparse as sp
from pydantic import ConfigDict

from lib.params import NonNegFloat, Section, Share
from lib.retrieval.kind import Kind

_TOKEN = re.compile(r"\w+")


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens (`\\w+`): the tokenisation given to both this BM25 and rank_bm25."""
    return _TOKEN.findall(text.lower())


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


KIND = Kind(
    "bm25",
    needs_bm25=True,
    needs_dense=False,
    scores=lambda retriever, claim_id, queries, rows: retriever.bm25_scores(claim_id, queries, rows),
)
