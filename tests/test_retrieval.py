"""BM25 equals rank_bm25 (fixture and real store text), dense index, scopes, hybrid, temporal filter."""

import re
from datetime import date

import numpy as np
import pandas as pd
import pytest
from rank_bm25 import BM25Okapi

from lib import models as MD
from lib.cli import NamedError
from lib.retrieval import bm25 as BM
from lib.retrieval import dense as DN
from lib.retrieval import fusion as F
from lib.retrieval import retrievers as R
from lib.retrieval import temporal as TP
from lib.store.build import claim_pools

CORPUS = [
    "The moon is made of rock and dust.",
    "Cheese is a dairy product, cheese cheese.",
    "NASA never said the moon is cheese.",
    "Rock music from the moon",
    "the the the",
]
QUERIES = ["moon cheese", "the moon the moon", "unknownword", "", "ROCK, dust!"]


def rank_bm25_scores(texts, queries, **params):
    ref = BM25Okapi([BM.tokenize(t) for t in texts], **params)
    return np.stack([ref.get_scores(BM.tokenize(q)) for q in queries])


def test_tokenize_lowercases_word_characters():
    assert BM.tokenize("NASA's 5% Moon-rock!") == ["nasa", "s", "5", "moon", "rock"]


@pytest.mark.parametrize("params", [{}, {"k1": 0.9, "b": 0.4, "epsilon": 0.1}])
def test_bm25_equals_rank_bm25_on_a_small_corpus(params):
    ours = BM.BM25.from_texts(CORPUS, BM.BM25Params(**params)).scores(QUERIES)
    assert np.abs(ours - rank_bm25_scores(CORPUS, QUERIES, **params)).max() < 1e-12
    assert (ours[2:4] == 0).all()  # unknown terms and empty queries score 0


def test_bm25_subset_has_the_subsets_statistics_and_rows_select_columns():
    bm25 = BM.BM25.from_texts(CORPUS)
    sub = bm25.subset([0, 2, 3])
    expect = rank_bm25_scores([CORPUS[i] for i in (0, 2, 3)], QUERIES)
    assert np.abs(sub.scores(QUERIES) - expect).max() < 1e-12
    assert np.array_equal(bm25.scores(QUERIES, rows=[4, 1]), bm25.scores(QUERIES)[:, [4, 1]])


def test_bm25_equals_rank_bm25_on_real_store_text(real_store):
    docs = real_store.docs
    texts = docs["text"].tolist()
    queries = texts[:5] + [
        "Sean Connery letter Steve Jobs Apple commercial",
        "covid-19 vaccine deaths 2021",
        "How many people died?",
        "the the the",
    ]
    ours = BM.BM25.from_texts(texts).scores(queries)
    assert np.abs(ours - rank_bm25_scores(texts, queries)).max() < 1e-9
    pool = claim_pools(docs)[0]
    sub = BM.BM25.from_texts(texts).subset(pool).scores(queries)
    assert np.abs(sub - rank_bm25_scores([texts[i] for i in pool], queries)).max() < 1e-9


def test_minmax_rows_handles_constant_rows():
    out = F.minmax_rows(np.array([[1.0, 3.0, 2.0], [5.0, 5.0, 5.0]]))
    assert np.array_equal(out, [[0.0, 1.0, 0.5], [0.0, 0.0, 0.0]])


def unit(rows):
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_dense_index_faiss_search_agrees_with_exhaustive_scores():
    rng = np.random.default_rng(0)
    docs, queries = unit(rng.normal(size=(50, 8))), unit(rng.normal(size=(3, 8)))
    index = DN.DenseIndex(docs, {f"q{i}": v for i, v in enumerate(queries)})
    names = ["q0", "q1", "q2"]
    full = index.scores(names)
    top_scores, top_rows = index.search(names, 5)
    assert np.array_equal(top_rows, np.argsort(-full, axis=1)[:, :5])
    assert np.allclose(top_scores, np.take_along_axis(full, top_rows, axis=1), atol=1e-6)
    assert np.allclose(index.scores(["q1"], rows=[3, 7]), full[1:2, [3, 7]])
    with pytest.raises(KeyError, match="no cached embedding"):
        index.scores(["unseen"])


def clustered(n, dim=32, centres=40, seed=0):
    """Unit vectors around `centres` random directions: the kind of structure IVF and HNSW rely on."""
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(centres, dim))[rng.integers(centres, size=n)] + 0.4 * rng.normal(size=(n, dim))
    return unit(points)


def recall_at(k, settings, docs, queries):
    """Share of the flat index's top k that the approximate index also returns in its top k."""
    names = [f"q{i}" for i in range(len(queries))]
    cache = dict(zip(names, queries))
    _, exact = DN.DenseIndex(docs, cache).search(names, k)
    _, approx = DN.DenseIndex(docs, cache, index=settings).search(names, k)
    return np.mean([len(set(a) & set(e)) / k for a, e in zip(approx, exact)])


def test_approximate_indexes_find_most_of_the_exact_top_10_and_a_starved_one_does_not():
    vecs = clustered(4050)
    docs, queries = vecs[:4000], vecs[4000:]
    assert recall_at(10, DN.GlobalIndex(kind="ivf", nprobe=16), docs, queries) >= 0.95
    assert recall_at(10, DN.GlobalIndex(kind="hnsw", ef_search=128), docs, queries) >= 0.95
    # one of 256 cells per query misses much of the answer: the measure can fail
    assert recall_at(10, DN.GlobalIndex(kind="ivf", nlist=256, nprobe=1), docs, queries) < 0.8
    assert recall_at(10, DN.GlobalIndex(kind="ivf", nlist=256, nprobe=256), docs, queries) == 1.0  # every cell: exact


@pytest.mark.parametrize("kind", ["ivf", "hnsw"])
def test_approximate_indexes_are_built_the_same_twice(kind):
    import faiss

    docs = clustered(3000, seed=2)
    first, second = (faiss.serialize_index(DN.build_faiss_index(docs, DN.GlobalIndex(kind=kind))) for _ in range(2))
    assert len(first) > docs.nbytes and np.array_equal(first, second)  # every byte of the index, vectors too


def test_global_index_settings_are_checked():
    assert DN.GlobalIndex().kind == "flat" and not DN.GlobalIndex().approximate
    with pytest.raises(ValueError, match="kind"):
        DN.GlobalIndex(kind="annoy")
    with pytest.raises(ValueError, match="candidates"):
        DN.GlobalIndex(kind="hnsw", candidates=0)
    with pytest.raises(ValueError, match="nlist"):
        DN.DenseIndex(unit(np.eye(4)), index=DN.GlobalIndex(kind="ivf", nlist=5))


def test_bundled_minilm_encodes_normalised_vectors_that_rank_by_meaning():
    assert MD.resolve_model("sentence-transformers/all-MiniLM-L6-v2").endswith("model")
    assert MD.model_slug("sentence-transformers/all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"
    encoder = MD.load_encoder("all-MiniLM-L6-v2", device="cpu", max_seq_length=64)
    emb = MD.encode(
        encoder,
        ["The moon is made of rock.", "Lunar soil consists of rock and dust.", "Cheese is a dairy product."],
        progress=False,
    )
    assert emb.dtype == np.float32 and np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    assert emb[0] @ emb[1] > emb[0] @ emb[2]
    index = DN.DenseIndex(emb, encoder=encoder)  # queries without a cache entry are encoded on demand
    assert index.search(["What is the moon made of?"], 1)[1][0, 0] in (0, 1)


def test_embeddings_round_trip_and_model_check(tmp_path):
    DN.save_embeddings(tmp_path / "m", ["a", "b"], np.eye(2, dtype=np.float32), "model-x")
    keys, emb = DN.load_embeddings(tmp_path / "m", "model-x")
    assert keys == ["a", "b"] and np.array_equal(emb, np.eye(2))
    with pytest.raises(NamedError, match="model-x"):
        DN.load_embeddings(tmp_path / "m", "model-y")
    with pytest.raises(FileNotFoundError, match="embed-documents` \\(and `embed-queries`\\) with this --out-dir"):
        DN.load_embeddings(tmp_path / "missing")  # a folder of the user's: no stage to name


def test_damaged_or_mismatched_embeddings_are_named(tmp_path):
    """The fifty-first pass (S 4): a keys file without `model`, not JSON, or beside vectors of another run ended in
    KeyError, JSONDecodeError or a ValueError shown as a traceback."""
    DN.save_embeddings(tmp_path / "m", ["a", "b"], np.eye(2, dtype=np.float32), "model-x")
    meta = tmp_path / "m.json"
    for text, message in [('{"keys": ["a", "b"]}', "expected an object with `model`"), ("not json", "cannot be read"),
                          ("[1]", "expected an object"), ('{"model": "model-x", "keys": ["a"]}', "1 keys for 2 vectors")]:  # fmt: skip
        meta.write_text(text)
        with pytest.raises(NamedError, match=rf"^{re.escape(str(tmp_path / 'm'))}(\.json)?: .*{message}.*--out-dir$"):
            DN.load_embeddings(tmp_path / "m", "model-x")
    meta.write_text('{"model": "model-x", "keys": ["a", "b"]}')
    (tmp_path / "m.npy").write_text("no array")
    with pytest.raises(NamedError, match=r"m\.npy: not a saved array"):
        DN.load_embeddings(tmp_path / "m", "model-x")


def test_retriever_scopes_and_hybrid(tiny_store):
    docs = tiny_store.docs
    bm25 = BM.BM25.from_texts(docs["text"])
    rng = np.random.default_rng(1)
    dense = DN.DenseIndex(unit(rng.normal(size=(len(docs), 4))), {"moon rock": unit(rng.normal(size=(1, 4)))[0]})
    pools = claim_pools(docs)
    claim = R.Retriever("bm25", "claim", bm25, dense, pools)
    assert np.array_equal(claim.candidates(0), pools[0])
    pool_texts = docs["text"].to_numpy()[pools[0]].tolist()
    assert np.allclose(claim.score(0, ["moon rock"]), rank_bm25_scores(pool_texts, ["moon rock"]))
    glob = R.Retriever("bm25", "global", bm25, dense, pools)
    assert np.allclose(glob.score(0, ["moon rock"]), bm25.scores(["moon rock"]))
    hybrid = R.Retriever("hybrid", "global", bm25, dense, pools).score(0, ["moon rock"])
    expect = 0.5 * (F.minmax_rows(bm25.scores(["moon rock"])) + F.minmax_rows(dense.scores(["moon rock"])))
    assert np.allclose(hybrid, expect)
    with pytest.raises(ValueError, match="outside its pool"):
        claim.score(0, ["moon"], rows=np.array([int(np.setdiff1d(np.arange(len(docs)), pools[0])[0])]))
    approx = DN.DenseIndex(dense.doc_emb, dense.query_emb, index=DN.GlobalIndex(kind="hnsw", candidates=2))
    near = R.Retriever("dense", "global", bm25, approx, pools)
    assert np.array_equal(near.candidates(0, ["moon rock"]), np.sort(approx.search(["moon rock"], 2)[1][0]))
    assert np.array_equal(claim.candidates(0, ["moon rock"]), pools[0])  # the claim scope ignores queries
    with pytest.raises(ValueError, match="'hnsw' index finds candidates from the claim's queries"):
        near.candidates(0)
    with pytest.raises(ValueError, match="unknown scope"):
        R.Retriever("bm25", "web", bm25)
    with pytest.raises(ValueError, match="dense index"):
        R.Retriever("dense", "global", bm25)


def test_temporal_rules_by_hand():
    docs = pd.DataFrame(
        {
            "path_date": [date(2020, 1, 1), date(2020, 3, 1), None, None, None],
            "capture_date": [date(2021, 1, 1), None, date(2019, 1, 1), date(2021, 1, 1), None],
        }
    )
    pub, cap = TP.date_ordinals(docs)
    status = TP.date_status(pub, cap, date(2020, 2, 1))
    assert list(status) == ["before", "published_after_claim", "before", "captured_after_claim_undated", "undated"]
    assert list(TP.temporal_mask(status, keep_undated=True)) == [True, False, True, True, True]
    assert list(TP.temporal_mask(status, keep_undated=False)) == [True, False, True, False, False]
    assert TP.temporal_report(status, keep_undated=False) == {
        "candidates": 5,
        "removed_published_after_claim": 1,
        "removed_captured_after_claim_undated": 1,
        "removed_undated": 1,
        "kept": 2,
    }
    assert TP.temporal_report(status, keep_undated=True)["kept"] == 4
    assert list(TP.date_status(pub, cap, None)) == ["no_claim_date"] * 5
    assert TP.temporal_mask(TP.date_status(pub, cap, None), keep_undated=False).all()


def test_a_kind_registered_with_its_scorer_is_a_retriever_of_its_own():
    """A new kind is its module's `Kind` in `KINDS`: the retriever needs the indexes it names and scores with it."""
    from lib.retrieval.kind import Kind

    docs = ["the cat sat", "a dog barked", "cats and dogs"]
    bm25 = BM.BM25.from_texts(docs)
    doubled = Kind(
        "bm25x2", needs_bm25=True, needs_dense=False, scores=lambda r, c, q, rows: 2 * r.bm25_scores(c, q, rows)
    )
    R.KINDS["bm25x2"] = doubled
    try:
        plain = R.Retriever("bm25", "global", bm25=bm25).score(0, ["cat"])
        twice = R.Retriever("bm25x2", "global", bm25=bm25).score(0, ["cat"])
        assert np.array_equal(twice, 2 * plain) and plain.max() > 0
        with pytest.raises(ValueError, match="needs a BM25 index$"):
            R.Retriever("bm25x2", "global")
        with pytest.raises(ValueError, match="'hybrid' needs a BM25 index and a dense index$"):
            R.Retriever("hybrid", "global")
        with pytest.raises(ValueError, match="'hybrid' needs a dense index$"):
            R.Retriever("hybrid", "global", bm25=bm25)
    finally:
        del R.KINDS["bm25x2"]
