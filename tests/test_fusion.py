"""Fusion methods: hand-computed cases, edge cases, and equality with the dict-based reference."""

import warnings

import numpy as np
import pytest

from benchmarks.reference import fuse_dicts
from lib.retrieval import fusion as F
from lib.store import trec as T

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


def test_id_tiebreak_compares_ids_as_text_as_the_written_run_does():
    """The thirty-first pass: integer ids were compared as numbers (10 above 9) while `trec.rank`, the run file
    and trec_eval compare text (9 above 10)."""
    ints = [9, 10, 2]
    assert F.id_tiebreak(ints).tolist() == [2, 0, 1]  # "10" < "2" < "9"
    top = F.top_k(np.zeros(3), 3, F.id_tiebreak(ints))
    assert [str(ints[i]) for i in top] == T.rank({str(d): 0.0 for d in ints})


# --- pinned by mutation testing (`make mutation`): edges, defaults and the caller's inputs -------------


def test_minmax_rows_edges():
    assert F.minmax_rows(np.zeros((2, 0))).shape == (2, 0)  # no candidate: nothing to scale, no error
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a constant row must not divide by zero, even where the result is masked
        assert F.minmax_rows(np.array([[7.0, 7.0], [1.0, 3.0]])).tolist() == [[0.0, 0.0], [0.0, 1.0]]
    cosines = np.array([[0.31, 0.37, 0.34]])  # a span under 1 (dense scores) is rescaled like any other
    assert np.allclose(F.fuse(cosines, "combmax_norm"), [0.0, 1.0, 0.5])
    assert np.allclose(F.fuse(cosines, "combsum_norm"), [0.0, 1.0, 0.5])


def test_fuse_defaults_and_dtypes():
    assert F.concat_query("C.", ["Q?"]) == "C. Q?"  # the default separator is one space
    wide = np.arange(102, dtype=float)[None, :]  # one sub-query over 102 candidates
    assert np.isfinite(F.fuse(wide, "rrf")).sum() == 100  # the default depth is 100
    assert np.isfinite(F.fuse(wide, "rrf", depth=101)).sum() == 101
    ints = np.array([[1, 3], [2, 0]])
    assert F.fuse(ints, "combsum").dtype == np.float64 and F.fuse(ints, "combsum").tolist() == [3.0, 3.0]
    assert F.top_k(np.array([1.0, 3.0, 2.0]), 0).tolist() == []


def test_fuse_error_messages_name_the_problem():
    with pytest.raises(ValueError, match=r"^scores must be 2-D \(sub-queries x candidates\), got shape \(3,\)$"):
        F.fuse(np.zeros(3), "combmax")
    with pytest.raises(ValueError, match=r"^no sub-query scores: an empty plan must fall back to the claim"):
        F.fuse(np.zeros((0, 3)), "combmax")


def test_a_claim_with_one_candidate():
    one = np.array([[3.0], [1.0]])
    for method in F.FUSIONS:
        if method != "concat":
            assert F.fuse(one, method).shape == (1,) and np.isfinite(F.fuse(one, method)).all(), method
    assert F.fuse(one, "combmax").tolist() == [3.0] and F.fuse(one, "combsum").tolist() == [4.0]


def test_fuse_uses_the_callers_normalisation():
    given = np.array([[0.0, 0.2, 0.9, 0.1], [0.0, 0.1, 0.0, 0.4]])  # not minmax_rows(S): the caller's own
    assert F.fuse(S, "combmax_norm", norm=given).tolist() == [0.0, 0.2, 0.9, 0.4]
    assert F.fuse(S, "combsum_norm", norm=given).tolist() == pytest.approx([0.0, 0.3, 0.9, 0.5])
    # depth 2 (chosen on the raw scores): row 0 keeps d0, d3; row 1 keeps d1, d2; each adds its `given` value
    assert F.fuse(S, "combmnz", depth=2, norm=given).tolist() == pytest.approx([0.0, 0.1, 0.0, 0.1])


def test_fuse_follows_the_callers_tie_break():
    ties = np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 2.0]])  # row 0 ties d0 and d1, row 1 ties d1 and d2
    reverse = np.array([2, 1, 0])  # the caller's order: d0 wins ties, then d1
    assert ranking(F.fuse(ties, "top1")) == [1, 2]  # identity tie-break: the larger index tops each row
    assert ranking(F.fuse(ties, "top1", reverse)) == [0, 1]
    # depth 1: each row keeps the candidate its tie-break prefers
    assert F.fuse(ties, "rrf", depth=1).tolist() == pytest.approx([-np.inf, 1 / 61, 1 / 61])
    assert F.fuse(ties, "rrf", reverse, depth=1).tolist() == pytest.approx([1 / 61, 1 / 61, -np.inf])
    assert F.fuse(ties, "combmnz", depth=1).tolist() == [-np.inf, 1.0, 1.0]
    assert F.fuse(ties, "combmnz", reverse, depth=1).tolist() == [1.0, 1.0, -np.inf]


def test_id_tiebreak_keeps_equal_ids_in_their_order_on_long_inputs():
    ids = np.array(["b", "a"] * 40 + ["a"])  # long enough for numpy's default sort to be unstable
    ranks = F.id_tiebreak(ids)
    assert ranks[1::2][:40].tolist() == list(range(40)) and ranks[-1] == 40  # the a's, in order of appearance
    assert ranks[0:80:2].tolist() == list(range(41, 81))


def test_nan_scores_an_empty_top1_row_and_a_negative_k_are_refused():
    """The thirty-first pass: one NaN normalised a sub-query's top candidate to 0 (COMBMAX-NORM put it last);
    TOP-1 over a row without a finite score was an IndexError; top_k(-1) kept all but the last."""
    nan = np.array([[5.0, 1.0, np.nan], [0.0, 1.0, 2.0]])
    for method in ("combmax_norm", "combmax", "rrf", "top1"):
        with pytest.raises(ValueError, match=r"^sub-query 0 scores candidate 2 NaN"):
            F.fuse(nan, method)
    with pytest.raises(ValueError, match=r"^sub-query 1 has no candidate with a finite score"):
        F.fuse(np.array([[1.0, 2.0], [-np.inf, -np.inf]]), "top1")
    with pytest.raises(ValueError, match=r"^top_k: k = -1; expected a count of at least 0"):
        F.top_k(np.array([3.0, 2.0, 1.0]), -1)
    assert F.top_k(np.array([3.0, 2.0, 1.0]), 0).tolist() == []


def test_an_unscored_candidate_is_left_out_of_the_normalised_fusions():
    """The thirty-second pass: `-inf` (a candidate a sub-query does not return, which `fuse` accepts) made a
    normalised row all NaN and the ranking empty; +inf was taken."""
    one = np.array([[-np.inf, 2.0, 1.0]])
    for method in ("combmax_norm", "combsum_norm", "wsum_norm", "combmnz", "combmax", "rrf"):
        assert F.top_k(F.fuse(one, method), 3).tolist() == [1, 2], method  # one sub-query: its own ranking
    assert F.minmax_rows(np.array([[-np.inf, -np.inf], [1.0, 1.0], [-np.inf, 5.0], [-np.inf, 2.0]])).tolist() == [
        [-np.inf, -np.inf], [0.0, 0.0], [-np.inf, 0.0], [-np.inf, 0.0]
    ]  # fmt: skip
    two = np.array([[-np.inf, 2.0, 1.0, 0.0], [3.0, -np.inf, 1.0, -np.inf]])  # an unscored candidate adds 0
    assert F.fuse(two, "combsum_norm").tolist() == [1.0, 1.0, 0.5, 0.0]
    assert F.fuse(two, "combmax_norm").tolist() == [1.0, 1.0, 0.5, 0.0]
    assert F.fuse(two, "wsum_norm").tolist() == [0.75, 0.75, 0.375, 0.0]
    # raw COMBSUM too: a candidate one sub-query does not return was "not returned" (the thirty-third pass)
    assert F.fuse(np.array([[5.0, 3.0, -np.inf], [-np.inf, 2.0, 1.0]]), "combsum").tolist() == [5.0, 5.0, 1.0]
    none = np.array([[-np.inf, 1.0], [-np.inf, 3.0]])  # returned by no sub-query: not returned
    assert F.fuse(none, "combsum").tolist() == [-np.inf, 4.0]
    assert F.fuse(none, "combsum_norm").tolist() == [-np.inf, 0.0]
    with pytest.raises(
        ValueError, match=r"^sub-query 0 scores candidate 1 \+inf: every candidate needs a number \(or -inf\)$"
    ):
        F.fuse(np.array([[1.0, np.inf]]), "combmax")
    # each row scaled over its own scored candidates (spans of 2, 4 and 0.2; a constant row with -inf: 0, no warning)
    rows = np.array(
        [[-np.inf, 3.0, 1.0, 2.0], [4.0, -np.inf, 0.0, 2.0], [-np.inf, 0.3, 0.1, 0.2], [5.0, 5.0, -np.inf, 5.0]]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = [
            [-np.inf, 1.0, 0.0, 0.5],
            [1.0, -np.inf, 0.0, 0.5],
            [-np.inf, 1.0, 0.0, 0.5],
            [0.0, 0.0, -np.inf, 0.0],
        ]
        assert np.allclose(F.minmax_rows(rows), expected)


def test_scores_near_a_floats_range_normalise_and_an_overflowing_sum_is_refused():
    """The thirty-seventh pass's leftover: 1e308 and -1e308 in one row made `max - min` overflow (every value
    NaN or 0), and raw COMBSUM's 1e308 + 1e308 was +inf, ranked first without a word."""
    huge = np.array([[1e308, -1e308, 0.0], [1.0, 2.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert F.minmax_rows(huge).tolist() == [[1.0, 0.0, 0.5], [0.0, 0.5, 1.0]]
        assert F.fuse(huge, "combsum_norm").tolist() == [1.0, 0.5, 1.5]
        assert F.minmax_rows(np.array([[-np.inf, 1e308, -1e308]])).tolist() == [[-np.inf, 1.0, 0.0]]
        small = np.array([[0.1, 0.7, 0.3]])  # a row far from the range is left bit for bit
        assert F.minmax_rows(small).tolist() == ((small - 0.1) / (0.7 - 0.1)).tolist()
        with pytest.raises(ValueError, match=r"^COMBSUM of candidate 1 lies beyond a float's range"):
            F.fuse(np.array([[1.0, 1e308], [2.0, 1e308]]), "combsum")
        assert F.fuse(np.array([[1e308, -np.inf], [-1e308, -np.inf]]), "combsum").tolist() == [0.0, -np.inf]


def test_a_negative_overflow_and_unrankable_scores_are_named():
    """The thirty-ninth pass: -1e308 - 1e308 was -inf, "not returned" of a candidate both sub-queries scored, and
    top_k left NaN and +inf out as if not returned."""
    with pytest.raises(ValueError, match=r"^COMBSUM of candidate 0 lies beyond a float's range"):
        F.fuse(np.array([[-1e308, 1.0], [-1e308, 2.0]]), "combsum")
    assert F.fuse(np.array([[-np.inf, 1.0], [-np.inf, 2.0]]), "combsum").tolist() == [-np.inf, 3.0]
    with pytest.raises(ValueError, match=r"^top_k: candidate 0 scores inf: a ranking needs numbers \(or -inf\)$"):
        F.top_k(np.array([np.inf, 5.0]), 2)
    with pytest.raises(ValueError, match=r"^top_k: candidate 1 scores nan"):
        F.top_k(np.array([1.0, np.nan, 2.0]), 3)
    assert F.top_k(np.array([-np.inf, 5.0]), 2).tolist() == [1]
