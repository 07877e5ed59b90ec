"""lib.planning.mmr: the thesis' MMR filter, on hand-computed 2-d examples and against the literal formula."""

from __future__ import annotations

import numpy as np
import pytest

from lib.planning.mmr import MMRParams, mmr_filter

C = np.array([1.0, 0.0])
Q = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])


def test_diversity_weights_by_hand():
    # w_rel 0.6, w_div 0.4: picks q0 (0.6), then q1 (0.6*0.8 - 0.4*0.8 = 0.16), then q2 scores -0.24 and stops
    kept, scores = mmr_filter(Q, C, None, MMRParams(lam=0.4, gamma=0.1, lambda_weights="diversity"))
    assert kept == [0, 1]
    assert scores == pytest.approx([0.6, 0.16])


def test_relevance_weights_by_hand():
    # w_rel 0.4, w_div 0.6: q0 (0.4), then q1 scores 0.32 - 0.48 = -0.16
    kept, scores = mmr_filter(Q, C, None, MMRParams(lam=0.4, gamma=0.1, lambda_weights="relevance"))
    assert kept == [0] and scores == pytest.approx([0.4])


def test_justification_by_hand():
    # relevance = 0.8*sim_c + 0.2*sim_j = [0.8, 0.76, 0.2]; s = 0.6*rel -> q0 0.48; then q1 0.456 - 0.32 = 0.136
    kept, scores = mmr_filter(Q, C, np.array([0.0, 1.0]), MMRParams())
    assert kept == [0] and scores == pytest.approx([0.48])


def test_thesis_numbers_under_carbonell_goldstein_keep_nothing():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(20, 8))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    kept, _ = mmr_filter(v[1:], v[0], v[0], MMRParams(lambda_weights="relevance"))
    assert kept == []  # lambda * cos <= 0.4 = gamma


def literal(queries, claim, just, p: MMRParams):
    """s(q) = a*MMR(q, claim) + (1-a)*MMR(q, just), greedy, written out term by term."""
    w_rel, w_div = p.weights
    kept, scores, left = [], [], list(range(len(queries)))
    while left:

        def s(i):
            red = max([0.0, *(float(queries[i] @ queries[k]) for k in kept)])  # floored at 0
            mmr_c = w_rel * float(queries[i] @ claim) - w_div * red
            mmr_j = w_rel * float(queries[i] @ just) - w_div * red
            return p.alpha * mmr_c + (1 - p.alpha) * mmr_j

        best = max(left, key=lambda i: (s(i), -i))
        value = s(best)
        if not value > p.gamma:
            break
        kept.append(best)
        scores.append(value)
        left.remove(best)
    return kept, scores


@pytest.mark.parametrize("seed", range(5))
def test_equals_the_literal_formula(seed):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(12, 6)) + 1.5  # positive correlations, so several are kept
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    p = MMRParams(gamma=0.05)
    kept, scores = mmr_filter(v[2:], v[0], v[1], p)
    ref_kept, ref_scores = literal(v[2:], v[0], v[1], p)
    assert kept == ref_kept and len(kept) >= 2
    assert scores == pytest.approx(ref_scores, abs=1e-12)


def test_a_negative_redundancy_counts_as_zero():
    """The forty-eighth pass: the docstring's max had no floor, the code one; the floor is the documented
    choice. q2 points away from the kept q1 (cosine -0.15): unfloored it would score 0.36 + 0.06 = 0.42 > 0.4."""
    c = np.array([1.0, 0, 0])
    q1 = np.array([0.7, np.sqrt(0.51), 0])
    y = (-0.15 - 0.42) / np.sqrt(0.51)
    q2 = np.array([0.6, y, np.sqrt(1 - 0.36 - y * y)])
    assert float(q1 @ q2) == pytest.approx(-0.15)
    kept, scores = mmr_filter(np.stack([q1, q2]), c, None, MMRParams())
    assert kept == [0] and scores == pytest.approx([0.42])  # q2: 0.6 * 0.6 - 0.4 * 0 = 0.36 <= 0.4
    assert mmr_filter(np.stack([q1, q2]), c, None, MMRParams(gamma=0.35)) == ([0, 1], pytest.approx([0.42, 0.36]))
    rng = np.random.default_rng(0)  # spread vectors: negative cosines among them (unfloored: [4, 9, 8, 1, 7, 5, 2])
    v = rng.normal(size=(12, 6))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    p = MMRParams(gamma=-0.2)
    assert (v[2:] @ v[2:].T).min() < 0
    kept, scores = mmr_filter(v[2:], v[0], v[1], p)
    assert (kept, scores) == (literal(v[2:], v[0], v[1], p)[0], pytest.approx(literal(v[2:], v[0], v[1], p)[1]))
    assert kept == [4, 6, 8, 1, 7]


def test_edge_cases():
    assert mmr_filter(np.zeros((0, 2)), C) == ([], [])
    with pytest.raises(ValueError, match="lambda_weights"):
        MMRParams(lambda_weights="both")
    with pytest.raises(ValueError, match="alpha"):
        MMRParams(alpha=1.5)


def test_a_nan_embedding_and_a_gamma_outside_the_cosine_range_are_refused():
    """The thirty-second pass: one NaN candidate was taken by argmax and the filter kept nothing, silently;
    gamma = 2 was taken by the dataclass that the params section refuses."""
    with pytest.raises(ValueError, match=r"^MMR: the candidate query 0 has an embedding that is not finite"):
        mmr_filter(np.array([[np.nan, np.nan], [1.0, 0.0]]), np.array([1.0, 0.0]), None, MMRParams(gamma=0.0))
    with pytest.raises(ValueError, match=r"^MMR: the claim has an embedding that is not finite"):
        mmr_filter(np.eye(2), np.array([np.nan, 0.0]), None, MMRParams(gamma=0.0))
    for gamma in (2.0, -1.5, float("nan")):
        with pytest.raises(ValueError, match=r"^gamma must lie in \[-1, 1\]"):
            MMRParams(gamma=gamma)
    assert mmr_filter(np.eye(2), np.array([1.0, 0.0]), None, MMRParams(gamma=-1.0))[0] == [0, 1]
