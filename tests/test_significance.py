"""Bootstrap intervals and paired tests: known answers and seeded determinism."""

import warnings

import numpy as np
import pytest

from lib.evaluation import significance as SIG


def test_bootstrap_ci_of_a_constant_is_the_constant_and_is_seeded():
    assert SIG.bootstrap_ci([0.5] * 10) == (0.5, 0.5, 0.5)
    x = np.random.default_rng(0).random(50)
    mean, lo, hi = SIG.bootstrap_ci(x, seed=1)
    assert lo < mean < hi and mean == pytest.approx(x.mean())
    assert SIG.bootstrap_ci(x, seed=1) == (mean, lo, hi)


def test_paired_tests_separate_a_real_difference_from_none():
    rng = np.random.default_rng(0)
    a = rng.random(200)
    assert SIG.paired_bootstrap(a, a) == 1.0 and SIG.randomisation_test(a, a) == 1.0
    assert SIG.paired_bootstrap(a + 0.1, a) < 0.001 and SIG.randomisation_test(a + 0.1, a) < 0.001
    noise = a + rng.normal(0, 0.01, size=200)
    assert SIG.paired_bootstrap(noise, a) > 0.05 or SIG.randomisation_test(noise, a) > 0.05
    with pytest.raises(ValueError, match="aligned"):
        SIG.paired_bootstrap([1, 2], [1])


def test_randomisation_exact_case():
    # two differences of +1: of the 4 sign patterns, 2 reach |mean| >= 1, so p -> (n/2 + 1) / (n + 1)
    p = SIG.randomisation_test([1.0, 1.0], [0.0, 0.0], n_resamples=20000, seed=0)
    assert p == pytest.approx(0.5, abs=0.02)


def test_holm_by_hand():
    assert np.allclose(SIG.holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    assert np.allclose(SIG.holm([0.5, 0.9]), [1.0, 1.0])


def test_mcnemar_exact_by_hand():
    # 3 claims only a gets right, 0 only b: two-sided binomial p = 2 * 0.5**3
    assert SIG.mcnemar([1, 1, 1, 0, 1], [0, 0, 0, 0, 1]) == pytest.approx(0.25)
    # 1 against 1 discordant: p = 1; no discordant claims: p = 1
    assert SIG.mcnemar([1, 0, 1], [0, 1, 1]) == pytest.approx(1.0)
    assert SIG.mcnemar([1, 0], [1, 0]) == 1.0
    assert np.isnan(SIG.mcnemar([], []))  # no claims is no test, not "no difference"
    # 8 against 2: P(X <= 2 | 10, 0.5) * 2 = 2 * 56 / 1024
    a = [1] * 8 + [0] * 2
    assert SIG.mcnemar(a, [1 - x for x in a]) == pytest.approx(2 * 56 / 1024)
    with pytest.raises(ValueError, match="aligned"):
        SIG.mcnemar([1, 0], [1])


def test_paired_bootstrap_statistic_equals_paired_bootstrap_for_accuracy():
    rng = np.random.default_rng(3)
    gold = rng.integers(0, 3, 120)
    a = np.where(rng.random(120) < 0.7, gold, (gold + 1) % 3)
    b = np.where(rng.random(120) < 0.5, gold, (gold + 2) % 3)

    def accuracy(g, p):
        return float(np.mean(g == p))

    diff, p = SIG.paired_bootstrap_statistic(gold, a, b, accuracy, n_resamples=2000, seed=5)
    reference = SIG.paired_bootstrap((a == gold).astype(float), (b == gold).astype(float), n_resamples=2000, seed=5)
    assert diff == pytest.approx(accuracy(gold, a) - accuracy(gold, b))
    assert abs(p - reference) <= 2 / 2001  # the same resamples; ties at the boundary may differ by rounding
    assert SIG.paired_bootstrap_statistic(gold, a, a, accuracy) == (0.0, 1.0)
    assert SIG.paired_bootstrap_statistic(gold, a, b, accuracy, 500, 1) == SIG.paired_bootstrap_statistic(
        gold, a, b, accuracy, 500, 1
    )
    with pytest.raises(ValueError, match="aligned"):
        SIG.paired_bootstrap_statistic(gold, a[:-1], b, accuracy)


def test_spearman_ci_brackets_rho_and_handles_constant_input():
    x = np.arange(50, dtype=float)
    rho, lo, hi = SIG.spearman_ci(x, x**3, n_resamples=200)
    assert (rho, lo, hi) == pytest.approx((1.0, 1.0, 1.0))  # float rounding of the rank correlation
    rng = np.random.default_rng(1)
    y = x + rng.normal(0, 20, size=50)
    rho, lo, hi = SIG.spearman_ci(x, y, n_resamples=500, seed=3)
    from scipy.stats import spearmanr

    assert rho == pytest.approx(spearmanr(x, y).statistic) and lo < rho < hi
    assert SIG.spearman_ci(x, y, n_resamples=500, seed=3) == (rho, lo, hi)
    assert all(np.isnan(v) for v in SIG.spearman_ci(x, np.ones(50)))


def test_spearman_ci_resamples_whole_clusters():
    rng = np.random.default_rng(4)
    x = rng.normal(size=60)
    y = x + rng.normal(0, 1.5, size=60)
    plain = SIG.spearman_ci(x, y, n_resamples=400, seed=2)
    assert SIG.spearman_ci(x, y, n_resamples=400, seed=2, clusters=range(60)) == plain  # singletons: the same draws
    # every claim counted four times (four planners with identical scores): the pairs are not independent
    x4, y4, claim = np.repeat(x, 4), np.repeat(y, 4), np.repeat(np.arange(60), 4)
    naive = SIG.spearman_ci(x4, y4, n_resamples=400, seed=2)
    clustered = SIG.spearman_ci(x4, y4, n_resamples=400, seed=2, clusters=claim)
    assert naive[2] - naive[1] < 0.7 * (clustered[2] - clustered[1])  # one-by-one resampling is overconfident
    assert clustered == pytest.approx(plain)  # resampling claims recovers the interval of the 60 claims
    with pytest.raises(ValueError, match="one id per value"):
        SIG.spearman_ci(x, y, clusters=claim)
    with pytest.raises(ValueError, match="NaN"):
        SIG.spearman_ci(x, y, clusters=[float("nan")] * 60)
    rho, lo, hi = SIG.spearman_ci(x, y, clusters=[0] * 30 + [1] * 30)  # two claims: no interval, not a zero-width one
    assert rho == pytest.approx(plain[0]) and np.isnan(lo) and np.isnan(hi)


def test_sign_of_an_interval():
    assert SIG.sign_of(0.01, 0.3) == "positive"
    assert SIG.sign_of(-0.3, -0.01) == "negative"
    assert SIG.sign_of(-0.1, 0.2) == "indistinguishable from 0"
    assert SIG.sign_of(0.0, 0.2) == "indistinguishable from 0"  # an interval that touches 0 does not exclude it
    assert SIG.sign_of(float("nan"), float("nan")) == "indistinguishable from 0"


def test_p_floor_is_the_smallest_p_value_the_tests_return():
    assert SIG.p_floor(1999) == 1 / 2000
    a, b = np.arange(50, dtype=float) + 10, np.arange(50, dtype=float)  # every difference the same sign
    assert SIG.paired_bootstrap(a, b, 199, seed=0) == SIG.p_floor(199)
    assert SIG.randomisation_test(a, b, 199, seed=0) == SIG.p_floor(199)
    assert "1/(B+1) = 0.005" in SIG.p_floor_note(199)
    with pytest.raises(ValueError):
        SIG.p_floor(0)


def test_minimum_detectable_difference_by_hand():
    # z_0.975 + z_0.8 = 1.95996 + 0.84162
    assert SIG.minimum_detectable_difference(0.01) == pytest.approx(0.0280158, abs=1e-6)
    assert SIG.minimum_detectable_difference(0.01, alpha=0.05, power=0.5) == pytest.approx(0.0195996, abs=1e-6)
    assert SIG.minimum_detectable_difference(0.0) == 0.0
    with pytest.raises(ValueError, match="alpha and power"):
        SIG.minimum_detectable_difference(0.01, power=1.0)
    with pytest.raises(ValueError, match="negative"):
        SIG.minimum_detectable_difference(-0.01)


def test_paired_difference_se_of_a_mean_matches_the_standard_error():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 1, 400), rng.normal(0, 1, 400)
    mean = lambda g, p: float(np.mean(p))  # noqa: E731
    se = SIG.paired_difference_se(np.zeros(400), a, b, mean, n_resamples=4000)
    assert se == pytest.approx(np.std(a - b, ddof=1) / np.sqrt(400), rel=0.05)
    assert SIG.paired_difference_se(np.zeros(400), a, a, mean) == 0.0
    with pytest.raises(ValueError, match="at least two aligned"):
        SIG.paired_difference_se([0], [1], [1], mean)


# --- pinned by mutation testing (`make mutation`): exact values against a reference of the same seeded
# resample, the defaults, both edges of every threshold ------------------------------------------------

X = np.array([0.1, 0.5, 0.9, 0.3, 0.7, 0.0])


def _means(x, n, seed):
    return x[np.random.default_rng(seed).integers(0, len(x), size=(n, len(x)))].mean(axis=1)


def test_bootstrap_ci_is_the_percentile_interval_of_the_seeded_resample():
    ref = _means(X, 1000, 0)  # the defaults: 1000 resamples, seed 0, 95 %
    assert SIG.bootstrap_ci(X) == (X.mean(), np.quantile(ref, 0.025), np.quantile(ref, 0.975))
    ref = _means(X, 200, 3)
    assert SIG.bootstrap_ci(X, 200, 0.8, 3) == (X.mean(), np.quantile(ref, 0.1), np.quantile(ref, 0.9))
    empty = SIG.bootstrap_ci([])
    assert len(empty) == 3 and all(np.isnan(v) for v in empty)
    assert SIG.bootstrap_ci([2.0] * 5, 40) == (2.0, 2.0, 2.0)  # every resample is that value
    # fewer than MIN_CLUSTERS values: no interval (one value gave a zero-width "95%" interval, a positive effect)
    one, four = SIG.bootstrap_ci([2.0], 40), SIG.bootstrap_ci([2.0, 1.0, 3.0, 2.0], 40)
    assert one[0] == 2.0 and four[0] == 2.0 and all(np.isnan(v) for v in (*one[1:], *four[1:]))


def test_too_few_resamples_for_an_interval_are_refused():
    """`n_resamples: 1` passed the schema and gave "95%" intervals of zero width that excluded their own mean
    ([0.0593, 0.0617, 0.0617]), and notebook 02 read eight of them as negative effects."""
    assert [SIG.min_resamples(c) for c in (0.95, 0.9, 0.99, 0.8)] == [40, 20, 200, 10]
    with pytest.raises(ValueError, match=r"n_resamples=39: a 95% percentile interval needs at least 40 resamples"):
        SIG.bootstrap_ci(X, 39)
    SIG.bootstrap_ci(X, 40)
    with pytest.raises(ValueError, match="needs at least 40 resamples"):
        SIG.spearman_ci(X, X**2, n_resamples=1)
    from lib.site.sections.retrieval_metrics import RetrievalMetricsSection

    assert RetrievalMetricsSection.model_fields["n_resamples"].metadata[0].ge == SIG.MIN_RESAMPLES == 40


def test_paired_tests_of_too_few_pairs_are_no_tests():
    """One pair, or three, put the bootstrap's p-value at its floor (1e-4) whatever the data; no pairs at all
    read 1.0, "no difference", where McNemar said NaN."""
    assert np.isnan(SIG.paired_bootstrap([1.0], [0.0])) and np.isnan(SIG.paired_bootstrap([1, 0.5, 0.2], [0, 0, 0]))
    assert 0 < SIG.paired_bootstrap([1, 0.5, 0.2, 0.9, 0.1], [0, 0, 0, 0, 0]) < 1
    assert SIG.paired_bootstrap([1, 1, 1, 1, 1], [1, 1, 1, 1, 1]) == 1.0  # no difference at all
    assert all(np.isnan(p) for p in (SIG.randomisation_test([], []), SIG.paired_t([1.0], [0.0]), SIG.paired_t([], [])))
    assert all(np.isnan(v) for v in SIG.paired_bootstrap_statistic([], [], [], lambda g, p: 0.0))


def _spearman_reference(x, y, n, seed, confidence, members):
    from scipy.stats import spearmanr

    rhos = []
    for pick in np.random.default_rng(seed).integers(0, len(members), size=(n, len(members))):
        idx = np.concatenate([members[i] for i in pick])
        if np.ptp(x[idx]) > 0 and np.ptp(y[idx]) > 0:
            rhos.append(spearmanr(x[idx], y[idx]).statistic)
    a = (1 - confidence) / 2
    return np.quantile(rhos, a), np.quantile(rhos, 1 - a)


def test_spearman_ci_is_the_percentile_interval_of_the_seeded_resample():
    from scipy.stats import spearmanr

    x = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.5])  # values in [0, 1]: every span is below 1
    y = np.array([0.2, 0.3, 0.5, 0.7, 0.1, 0.6, 0.65])
    singles = [np.array([i]) for i in range(len(x))]
    rho = spearmanr(x, y).statistic
    assert SIG.spearman_ci(x, y) == (rho, *_spearman_reference(x, y, 1000, 0, 0.95, singles))
    u, v = np.random.default_rng(1).random((2, 40))  # continuous values: every resample moves the quantiles
    assert SIG.spearman_ci(u, v)[1:] == _spearman_reference(u, v, 1000, 0, 0.95, [np.array([i]) for i in range(40)])
    assert SIG.spearman_ci(x, y, 300, 0.8, 4) == (rho, *_spearman_reference(x, y, 300, 4, 0.8, singles))
    ids = ["a", "a", "b", "c", "d", "e", "e"]  # five clusters: the fewest that get an interval
    members = [np.array([0, 1]), np.array([2]), np.array([3]), np.array([4]), np.array([5, 6])]
    got = SIG.spearman_ci(x, y, 300, seed=2, clusters=ids)
    assert got == (rho, *_spearman_reference(x, y, 300, 2, 0.95, members))
    four = SIG.spearman_ci(x, y, 300, seed=2, clusters=["a", "a", "b", "c", "d", "d", "d"])
    assert four[0] == rho and np.isnan(four[1]) and np.isnan(four[2])


def test_spearman_ci_edges():
    nan3 = SIG.spearman_ci([1.0, 2.0], [1.0, 3.0])  # two values: no correlation to speak of
    assert len(nan3) == 3 and all(np.isnan(v) for v in nan3)
    three = SIG.spearman_ci([1.0, 2.0, 3.0], [1.0, 3.0, 2.0], 50)
    # three values: a correlation, but one resample in nine has no correlation: no interval
    assert three[0] == pytest.approx(0.5) and np.isnan(three[1]) and np.isnan(three[2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a constant side is answered, never handed to scipy
        assert np.isnan(SIG.spearman_ci([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])[0])  # x constant
        assert np.isnan(SIG.spearman_ci([1.0, 2.0, 3.0], [2.0, 2.0, 2.0])[0])  # y constant
    with pytest.raises(ValueError, match=r"^a correlation needs aligned values, got \(3,\) and \(2,\)$"):
        SIG.spearman_ci([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="^cluster ids must not be NaN$"):
        SIG.spearman_ci([1, 2, 3], [1, 3, 2], clusters=[1.0, float("nan"), 2.0])
    # with ties but many values, the interval is the reference percentile bootstrap
    x, y = np.repeat(np.arange(5.0), 2), np.arange(10.0)
    singles = [np.array([i]) for i in range(10)]
    assert SIG.spearman_ci(x, y, 50)[1:] == _spearman_reference(x, y, 50, 0, 0.95, singles)
    assert SIG.spearman_ci(y, x, 50)[1:] == _spearman_reference(y, x, 50, 0, 0.95, singles)
    assert not np.isnan(SIG.spearman_ci(x, y, 50)[1])
    # one value against nine ties: a third of the resamples have no correlation, so no interval
    x = np.array([0.0] * 9 + [1.0])
    rho, lo, hi = SIG.spearman_ci(x, y, 50)  # a correlation, but no interval
    assert not np.isnan(rho) and np.isnan(lo) and np.isnan(hi)


def test_sign_of_on_both_edges():
    assert SIG.sign_of(0.1, 0.5) == "positive"
    assert SIG.sign_of(0.0, 0.5) == "indistinguishable from 0"
    assert SIG.sign_of(-0.5, 0.0) == "indistinguishable from 0"
    assert SIG.sign_of(-0.5, -0.1) == "negative"
    assert SIG.sign_of(float("nan"), float("nan")) == "indistinguishable from 0"


def test_p_floor_and_its_note():
    assert SIG.p_floor(1) == 0.5 and SIG.p_floor(1999) == 0.0005
    with pytest.raises(ValueError, match="^n_resamples must be >= 1, got 0$"):
        SIG.p_floor(0)
    assert SIG.p_floor_note(2000) == (
        "With B = 2,000 resamples the smallest p-value these tests can give is 1/(B+1) = 0.0005: a p-value at that "
        "floor means *at most* that, and more resamples would only lower the floor, not change a decision at 0.05."
    )
    # the forty-ninth pass: said whatever the floor, alpha and the Holm family were
    assert SIG.p_floor_note(40, family=3).endswith(
        "Holm over 3 tests multiplies the smallest by 3, which is not below 0.05: no test here can be significant at "
        "this B, and more resamples could change a decision."
    )
    assert SIG.p_floor_note(99, alpha=0.01).endswith("which is not below 0.01: no test here can be significant at this "
                                                     "B, and more resamples could change a decision.")  # fmt: skip
    assert SIG.p_floor_note(2000, alpha=0.01, family=3).endswith("not change a decision at 0.01.")


def test_paired_bootstrap_is_the_shift_method_on_the_seeded_resample():
    a, b = X, X[::-1] * 0.5
    d = a - b

    def reference(n, seed):
        means = _means(d - d.mean(), n, seed)
        return (np.sum(np.abs(means) >= abs(d.mean())) + 1) / (n + 1)

    assert SIG.paired_bootstrap(a, b) == reference(10000, 0)  # the defaults
    assert SIG.paired_bootstrap(a, b, 500, 7) == reference(500, 7)
    ties = [5.0, 0.0, 0.0, 0.0, 0.0]  # centred [4, -1, -1, -1, -1]: a resample of -1s hits |mean| 1, which counts
    assert (
        SIG.paired_bootstrap(ties, [0.0] * 5, 99, 1)
        == (np.sum(np.abs(_means(np.array([4.0, -1.0, -1.0, -1.0, -1.0]), 99, 1)) >= 1) + 1) / 100
    )
    assert np.isnan(SIG.paired_bootstrap([1.0], [0.0], 9))  # one difference: no test (its floor, 0.1, before)
    assert SIG.paired_bootstrap([True, False, True, True, False], [False, False, True, False, False], 99) == (
        SIG.paired_bootstrap([1, 0, 1, 1, 0], [0, 0, 1, 0, 0], 99)
    )


def test_randomisation_test_on_the_seeded_sign_flips():
    d = X - X[::-1] * 0.5

    def reference(n, seed):
        signs = np.random.default_rng(seed).choice([-1.0, 1.0], size=(n, len(d)))
        return (np.sum(np.abs((signs * d).mean(axis=1)) >= abs(d.mean()) - 1e-15) + 1) / (n + 1)

    assert SIG.randomisation_test(X, X[::-1] * 0.5) == reference(10000, 0)
    assert SIG.randomisation_test(X, X[::-1] * 0.5, 300, 5) == reference(300, 5)


def _accuracy(gold, pred):
    return float(np.mean(gold == pred))


G3 = np.array([0, 1, 2, 0, 1, 2, 0, 1])
A3 = np.array([0, 1, 2, 0, 1, 1, 2, 1])
B3 = np.array([0, 2, 2, 1, 1, 1, 2, 0])


def test_paired_bootstrap_statistic_against_a_reference():
    observed = _accuracy(G3, A3) - _accuracy(G3, B3)

    def reference(n, seed):
        idx = np.random.default_rng(seed).integers(0, len(G3), size=(n, len(G3)))
        diffs = np.array([_accuracy(G3[i], A3[i]) - _accuracy(G3[i], B3[i]) for i in idx])
        return (np.sum(np.abs(diffs - observed) >= abs(observed) - 1e-12) + 1) / (n + 1)

    assert SIG.paired_bootstrap_statistic(G3, A3, B3, _accuracy) == (observed, reference(10000, 0))
    assert SIG.paired_bootstrap_statistic(G3, A3, B3, _accuracy, 300, 3) == (observed, reference(300, 3))
    assert all(np.isnan(v) for v in SIG.paired_bootstrap_statistic([], [], [], _accuracy))
    assert SIG.paired_bootstrap_statistic(G3, A3, A3.copy(), _accuracy) == (0.0, 1.0)
    observed, p = SIG.paired_bootstrap_statistic([1], [1], [0], _accuracy, 9)
    assert observed == 1.0 and np.isnan(p)  # one claim: no test (each shifted resample was 0: p at its floor)


def test_paired_difference_se_against_a_reference():
    def reference(n, seed):
        idx = np.random.default_rng(seed).integers(0, len(G3), size=(n, len(G3)))
        return np.array([_accuracy(G3[i], A3[i]) - _accuracy(G3[i], B3[i]) for i in idx]).std(ddof=1)

    assert SIG.paired_difference_se(G3, A3, B3, _accuracy) == reference(2000, 0)
    assert SIG.paired_difference_se(G3, A3, B3, _accuracy, 100, 9) == reference(100, 9)
    assert SIG.paired_difference_se([0, 1], [0, 1], [1, 1], _accuracy, 50) >= 0  # two claims are enough
    with pytest.raises(ValueError, match="at least two aligned predictions, got 1, 1 and 1"):
        SIG.paired_difference_se([0], [0], [1], _accuracy)


def test_minimum_detectable_difference_bounds():
    assert SIG.minimum_detectable_difference(0.01) == pytest.approx(0.0280, abs=1e-4)
    for alpha, power in ((0.0, 0.8), (1.0, 0.8), (1.5, 0.8), (0.05, 0.0), (0.05, 1.0)):
        with pytest.raises(ValueError, match=r"alpha and power must be in \(0, 1\)"):
            SIG.minimum_detectable_difference(0.01, alpha, power)


def test_mcnemar_counts_only_the_discordant_claims():
    from scipy.stats import binomtest

    a = [1, 1, 1, 1, 1, 0, 0, 1]  # 0/1 outcomes are read as booleans
    b = [1, 0, 0, 0, 0, 1, 0, 1]
    assert SIG.mcnemar(a, b) == binomtest(4, 5, 0.5).pvalue
    assert SIG.mcnemar([2, 2, 2], [0, 0, 0]) == SIG.mcnemar([0, 0, 0], [2, 2, 2]) == 0.25  # any non-zero is "correct"
    assert SIG.mcnemar([True, False], [False, True]) == 1.0  # one each way
    assert SIG.mcnemar([True, True, True], [False, False, False]) == binomtest(3, 3, 0.5).pvalue == 0.25


def test_holm_by_hand_and_capped_at_one():
    assert SIG.holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert SIG.holm([0.5, 0.4]).tolist() == [0.8, 0.8]
    assert SIG.holm([0.9, 0.8, 0.7]).tolist() == [1.0, 1.0, 1.0]
    assert SIG.holm(["0.01", "0.02"]).tolist() == pytest.approx([0.02, 0.02])  # read as numbers


def test_paired_t_matches_the_textbook_and_handles_degenerate_differences():
    from scipy.stats import t as student

    a, b = [3.0, 5.0, 4.0, 6.0], [2.0, 5.0, 2.0, 4.0]  # differences 1, 0, 2, 2: mean 1.25, sd 0.9574
    t = 1.25 / (np.std([1, 0, 2, 2], ddof=1) / 2)
    assert SIG.paired_t(a, b) == pytest.approx(2 * student.sf(t, 3))
    assert SIG.paired_t(b, a) == pytest.approx(SIG.paired_t(a, b))
    assert SIG.paired_t([1.0, 2.0], [1.0, 2.0]) == 1.0  # no difference
    assert np.isnan(SIG.paired_t([3.0], [1.0]))  # one pair: no test
    assert SIG.paired_t([2.0, 3.0], [1.0, 2.0]) == 0.0  # the same difference on every claim
    with pytest.raises(ValueError, match="aligned"):
        SIG.paired_t([1.0], [1.0, 2.0])


def test_spearman_ci_is_undefined_when_most_resamples_have_no_correlation():
    # one method against ten ties: a resample without that method has no correlation, and the kept
    # resamples all hold it, so their interval would start at the estimate itself
    x = np.array([0.9] + [0.1] * 10)
    y = np.array([0.8, 0.1, 0.3, 0.2, 0.5, 0.4, 0.6, 0.7, 0.05, 0.15, 0.25])
    rho, lo, hi = SIG.spearman_ci(x, y, n_resamples=500, seed=0)
    from scipy.stats import spearmanr

    assert rho == pytest.approx(spearmanr(x, y).statistic)
    assert np.isnan(lo) and np.isnan(hi)
    # the permutation test still reads it: the tied ten make rho take few values under shuffling
    p = SIG.spearman_permutation(x, y, n_resamples=999, seed=0)
    assert 0 < p <= 1
    assert p == SIG.spearman_permutation(x, y, n_resamples=999, seed=0)


def test_spearman_permutation_on_both_sides():
    x = np.arange(12, dtype=float)
    assert SIG.spearman_permutation(x, x, n_resamples=199) == pytest.approx(1 / 200)  # nothing beats 1
    rng = np.random.default_rng(1)
    assert SIG.spearman_permutation(x, rng.permutation(x), n_resamples=199) > 0.05
    assert np.isnan(SIG.spearman_permutation(x, np.ones(12)))
    with pytest.raises(ValueError, match="aligned"):
        SIG.spearman_permutation(x, x[:3])


@pytest.mark.parametrize("test", [SIG.paired_bootstrap, SIG.randomisation_test, SIG.paired_t])
def test_a_missing_score_is_an_error_never_a_significant_difference(test):
    """With a NaN among the per-claim scores the resampling tests returned their smallest p (9.999e-05)."""
    with pytest.raises(ValueError, match=r"1 of 3 pairs hold NaN \(an item missing from one run\?\)"):
        test([0.1, float("nan"), 0.3], [0.2, 0.2, 0.25])


# ---------------------------------------------------------------- boundaries and messages (mutation testing)


def test_min_resamples_rounds_up_at_every_confidence():
    assert SIG.min_resamples() == 40 == SIG.MIN_RESAMPLES
    assert SIG.min_resamples(0.9699) == 67  # 2 / 0.0301 = 66.4: up, not to the nearest
    assert SIG.min_resamples(0.9) == 20  # 2 / 0.1 is 20.000000000000004 in floating point: not 21


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5, -0.5])
def test_a_confidence_outside_0_1_is_refused_by_name(confidence):
    with pytest.raises(ValueError, match=rf"^confidence must be in \(0, 1\), got {confidence}$"):
        SIG.bootstrap_ci([0.1] * 10, confidence=confidence)


def test_no_values_give_no_mean_and_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the mean of an empty array warns
        assert all(np.isnan(v) for v in SIG.bootstrap_ci([]))


def test_a_spearman_interval_skips_constant_resamples_up_to_the_limit():
    """Seed 3 draws exactly one resample of 100 in which y (or x, swapped) is constant: 1% skipped is within
    `MAX_SKIPPED`, so the interval is defined, and the constant resample is left out, not a NaN in it."""
    x, y = np.arange(10.0), np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 1.0])
    for a, b in ((x, y), (y, x)):
        rho, low, high = SIG.spearman_ci(a, b, n_resamples=100, seed=3)
        assert np.isfinite([rho, low, high]).all() and low <= rho <= high


def test_spearman_permutation_at_its_edges():
    assert np.isnan(SIG.spearman_permutation([1, 2], [1, 2]))  # fewer than 3 pairs
    assert np.isnan(SIG.spearman_permutation([1, 1, 1], [1, 2, 3]))  # x constant
    assert np.isnan(SIG.spearman_permutation([1, 2, 3], [2, 2, 2]))  # y constant
    # 3 pairs is a test; a spread of exactly 1 is not a constant
    p = SIG.spearman_permutation([0, 0.5, 1], [1, 2, 3])
    # of the 6 orders of 3 values, 2 (this one and its reverse) give |rho| = 1: a permutation equal to the
    # observed one counts, so p is near 1/3, not at its floor
    assert 0.25 < p < 0.45
    # the defaults are 2,000 resamples and seed 0
    assert SIG.spearman_permutation([0, 0.5, 1, 3], [1, 2, 4, 3]) == SIG.spearman_permutation(
        [0, 0.5, 1, 3], [1, 2, 4, 3], 2000, 0
    )
    assert SIG.spearman_permutation([0, 0.5, 1, 3], [1, 2, 4, 3]) != SIG.spearman_permutation(
        [0, 0.5, 1, 3], [1, 2, 4, 3], 2001, 0
    )
    assert SIG.spearman_permutation([0, 0.5, 1, 3], [1, 2, 4, 3]) != SIG.spearman_permutation(
        [0, 0.5, 1, 3], [1, 2, 4, 3], 2000, 1
    )


def test_paired_t_of_a_constant_difference_and_of_a_spread_of_one():
    assert SIG.paired_t([1, 1, 1], [0, 0, 0]) == 0.0  # every difference the same non-zero value
    p = SIG.paired_t([0, 1, 0.5], [0, 0, 0])  # differences spread by exactly 1: a t-test, not "constant"
    assert 0 < p < 1


def test_paired_bootstrap_statistic_of_equal_predictions_and_at_the_fewest_claims():
    def acc(g, p):
        return float(np.mean(g == p))

    gold = np.array([0, 1, 1])
    assert SIG.paired_bootstrap_statistic(gold, gold, gold.copy(), acc) == (0.0, 1.0)  # 3 claims, no test needed
    gold5 = np.array([0, 1, 1, 0, 1])
    observed, p = SIG.paired_bootstrap_statistic(gold5, gold5, np.array([0, 1, 0, 0, 0]), acc, n_resamples=200)
    assert observed == pytest.approx(0.4) and 0 < p <= 1  # MIN_CLUSTERS claims: a test


@pytest.mark.parametrize("test", [SIG.paired_t, SIG.paired_bootstrap, SIG.randomisation_test])
def test_floating_point_noise_is_no_difference(test):
    """The thirty-second pass: the same scores summed in another order differ by ~1e-17 per claim; the paired
    t-test separated them at p = 0.04, and constant noise at p = 0 (the bootstrap at its floor)."""
    rng = np.random.default_rng(2)
    x, y, z = rng.random((3, 200))
    a, b = ((x + y) + z) / 3, (x + (y + z)) / 3
    assert (a != b).any()  # the noise is there
    assert test(a, b) == 1.0
    assert test([0.1 + 0.2] * 6, [0.3] * 6) == 1.0
    # the tolerance is relative to the scores and far below any printed digit: 1e-9 apart is a difference
    assert test(np.full(6, 0.3 + 1e-9), np.full(6, 0.3)) < 0.05
    # the bound is relative to the scores' scale (the thirty-third pass: an absolute 1e-15 made 2e-16 against
    # 1e-16, twice as large on every item, "no difference", and inf against 0 as well)
    assert test([1.0] + [1e-13] * 6, [1.0] + [0.0] * 6) == 1.0  # 1e-13 on a scale of 1: noise
    assert test([1.0] + [1e-12] * 6, [1.0] + [0.0] * 6) == 1.0  # at the bound: noise
    assert test([2e-16] * 6, [1e-16] * 6) < 0.05 and test([1e-14] * 6, [0.0] * 6) < 0.05
    with pytest.raises(ValueError, match=r"^paired tests need finite scores; 6 of 6 pairs differ by an infinite"):
        test([np.inf] * 6, [0.0] * 6)


def test_sign_of_reads_an_end_at_0_but_for_noise_as_0():
    """The forty-second pass: an end of 1e-17 was "positive" beside its printed 0.000."""
    assert SIG.sign_of(1e-17, 0.2) == SIG.sign_of(-0.2, -1e-17) == "indistinguishable from 0"
    assert SIG.sign_of(1e-9, 0.2) == "positive" and SIG.sign_of(-0.2, -1e-9) == "negative"
    assert SIG.sign_of(0.0, 0.2) == "indistinguishable from 0"


@pytest.mark.parametrize("where", ["x", "y"])
def test_a_correlation_over_nan_is_named_not_significant(where):
    """spearman_permutation returned its floor, p = 1/(B+1), for one NaN in x."""
    x, y = [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 1.0, 4.0, 3.0, 5.0]
    (x if where == "x" else y)[3] = float("nan")
    message = (
        r"^a correlation needs a value on both sides of every pair; 1 of 5 pairs hold NaN \(the first at position 3\)$"
    )
    with pytest.raises(ValueError, match=message):
        SIG.spearman_permutation(x, y, n_resamples=200)
    with pytest.raises(ValueError, match=message):
        SIG.spearman_ci(x, y, n_resamples=200)


def test_an_infinite_value_ranks_as_the_largest():
    finite = SIG.spearman_permutation([1.0, 2.0, 3.0, 4.0, 9.0], [2.0, 1.0, 4.0, 3.0, 5.0], n_resamples=200)
    assert (
        SIG.spearman_permutation([1.0, 2.0, 3.0, 4.0, float("inf")], [2.0, 1.0, 4.0, 3.0, 5.0], n_resamples=200)
        == finite
    )


@pytest.mark.parametrize("bad", [float("nan"), "yes"])
def test_mcnemar_outcomes_are_true_or_false(bad):
    """NaN was read as a right answer, text was NumPy's ValueError."""
    with pytest.raises(ValueError, match=r"^correct_a: outcomes are True/False \(or 1/0\), got .* at position 1$"):
        SIG.mcnemar([True, bad, False], [False, True, True])
    assert SIG.mcnemar([1, 0, 1], [0, 0, 1]) == SIG.mcnemar([True, False, True], [False, False, True]) == 1.0


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_holm_refuses_p_values_outside_0_and_1_and_keeps_undefined_ones(bad):
    with pytest.raises(ValueError, match=r"^Holm's adjustment needs p-values in \[0, 1\], got "):
        SIG.holm([0.01, bad])
    out = SIG.holm([0.01, float("nan"), 0.04])
    assert out[0] == pytest.approx(0.03) and np.isnan(out[1]) and out[2] == pytest.approx(0.08)
