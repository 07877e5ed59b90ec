"""Bootstrap intervals and paired tests: known answers and seeded determinism."""

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
