"""Fusion methods: hand-computed cases, edge cases, and equality with the dict-based reference."""

import numpy as np
import pytest

from benchmarks.reference import fuse_dicts
from lib.retrieval import fusion as F

# two sub-queries over four candidates (doc ids d0 < d1 < d2 < d3, so tie-break key = column index)
S = np.array([[4.0, 2.0, 0.0, 2.0], [1.0, 3.0, 1.0, 0.0]])


def ranking(fused):
    return list(F.top_k(fused, 10))


def test_combmax_and_combsum_on_raw_scores():
    assert list(F.fuse(S, "combmax")) == [4.0, 3.0, 1.0, 2.0]
    assert list(F.fuse(S, "combsum")) == [5.0, 5.0, 1.0, 2.0]
    assert ranking(F.fuse(S, "combsum")) == [1, 0, 3, 2]  # 5.0 tie: larger doc id first


def test_normalised_variants_rescale_each_subquery_over_all_candidates():
    # row 0: (r - 0) / 4 -> 1, .5, 0, .5 ; row 1: (r - 0) / 3 -> 1/3, 1, 1/3, 0
    assert np.allclose(F.fuse(S, "combmax_norm"), [1.0, 1.0, 1 / 3, 0.5])
    assert np.allclose(F.fuse(S, "combsum_norm"), [4 / 3, 1.5, 1 / 3, 0.5])


def test_top1_keeps_each_subquerys_top_document_in_subquery_order():
    fused = F.fuse(S, "top1")
    assert ranking(fused) == [0, 1]  # d0 tops sub-query 1, d1 tops sub-query 2
    assert np.isneginf(fused[[2, 3]]).all()
    same_top = np.array([[1.0, 0.0], [2.0, 0.0]])
    assert ranking(F.fuse(same_top, "top1")) == [0]


def test_rrf_and_combmnz_by_hand():
    # ranks (1-based) row 0: d0 1, d3 2, d1 3, d2 4 (tie 2.0: d3 first); row 1: d1 1, d2 2, d0 3, d3 4
    rrf = F.fuse(S, "rrf", rrf_k=60)
    assert rrf[0] == pytest.approx(1 / 61 + 1 / 63) and rrf[3] == pytest.approx(1 / 62 + 1 / 64)
    depth2 = F.fuse(S, "rrf", depth=2, rrf_k=60)
    assert depth2[0] == pytest.approx(1 / 61) and depth2[2] == pytest.approx(1 / 62)
    mnz = F.fuse(S, "combmnz", depth=2)
    # depth 2: row 0 keeps d0, d3; row 1 keeps d1, d2
    assert np.allclose(mnz, [1.0, 1.0, 1 / 3, 0.5])
    assert np.allclose(F.fuse(S, "combmnz"), [2 * (4 / 3), 2 * 1.5, 2 * (1 / 3), 2 * 0.5])


def test_wsum_norm_by_hand():
    # normalised rows of S: [1, .5, 0, .5] and [1/3, 1, 1/3, 0]; max [1, 1, 1/3, .5], mean [2/3, .75, 1/6, .25]
    assert np.allclose(F.fuse(S, "wsum_norm"), [5 / 6, 7 / 8, 1 / 4, 3 / 8])
    assert ranking(F.fuse(S, "wsum_norm")) == [1, 0, 3, 2]
    spans_below_one = np.array([[0.2, 0.1, 0.15]])  # dense cosines: a span under 1 is still rescaled to [0, 1]
    assert np.allclose(F.fuse(spans_below_one, "wsum_norm"), [1.0, 0.0, 0.5])


def test_one_subquery_returns_its_own_ranking():
    row = np.array([[0.3, 0.9, 0.1, 0.5]])
    for method in ("combmax", "combsum", "combmax_norm", "combsum_norm", "rrf", "combmnz", "wsum_norm", "concat"):
        assert ranking(F.fuse(row, method)) == [1, 3, 0, 2], method
    assert ranking(F.fuse(row, "top1")) == [1]


def test_all_equal_scores_do_not_divide_by_zero():
    flat = np.full((2, 3), 7.0)
    for method in F.FUSIONS[:1] + F.FUSIONS[2:]:
        fused = F.fuse(flat, method)
        assert not np.isnan(fused).any(), method
    assert list(F.fuse(flat, "combmax_norm")) == [0.0, 0.0, 0.0]
    assert ranking(F.fuse(flat, "combsum_norm")) == [2, 1, 0]  # tie-break only


def test_empty_plan_and_wrong_shapes_are_errors():
    with pytest.raises(ValueError, match="empty plan"):
        F.fuse(np.zeros((0, 3)), "combmax")
    with pytest.raises(ValueError, match="CONCAT"):
        F.fuse(S, "concat")
    with pytest.raises(ValueError, match="unknown fusion"):
        F.fuse(S, "borda")
    assert F.fuse(np.zeros((2, 0)), "combmax").shape == (0,)


def test_concat_query_joins_claim_and_subqueries_once():
    assert F.concat_query("The claim.", ["Q1?", " ", "The claim.", "Q2?"], " | ") == "The claim. | Q1? | Q2?"


@pytest.mark.parametrize("method", [m for m in F.FUSIONS if m != "concat"])
def test_equals_the_dict_reference_on_random_score_matrices(method):
    rng = np.random.default_rng(3)
    for _ in range(20):
        n_sub, n_docs = rng.integers(1, 6), rng.integers(1, 40)
        scores = rng.integers(0, 6, size=(n_sub, n_docs)).astype(float)  # many ties
        ids = [f"d{j:03d}" for j in range(n_docs)]
        ours = F.fuse(scores, method, np.arange(n_docs), depth=10)
        ref = fuse_dicts([dict(zip(ids, row)) for row in scores], method, depth=10)
        got = {ids[j]: ours[j] for j in range(n_docs) if np.isfinite(ours[j])}
        assert got.keys() == ref.keys()
        assert all(got[d] == pytest.approx(ref[d], abs=1e-12) for d in ref)
        assert [ids[j] for j in F.top_k(ours, 10, np.arange(n_docs))] == sorted(
            ref, key=lambda d: (ref[d], d), reverse=True
        )[:10]


def test_id_tiebreak_ranks_documents_by_ascending_id():
    assert F.id_tiebreak(np.array(["b", "a", "c", "a2"], dtype=object)).tolist() == [2, 0, 3, 1]
    # top_k puts the higher doc id first among equal scores
    assert F.top_k(np.zeros(3), 3, F.id_tiebreak(["b", "a", "c"])).tolist() == [2, 0, 1]
