"""CKU23's debiased Mondrian forests and their confidence intervals on ``MondrianPartitionForestRegressor``: the plain
forest (J = 0) unchanged, the generalized jackknife's weights, its smaller bias, the variance estimator against a
direct computation of its formula, the lifetime selection by polynomial estimation, errors, pickling, determinism,
and the coverage of the intervals on the design of CKU23's simulations (slow)."""

import pickle
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from mondrian import MondrianPartitionForestClassifier, MondrianPartitionForestRegressor
from mondrian._route import apply
from mondrian.partition import debiasing_weights, default_scales
from mondrian.partition._debias import overlap, variance_constant
from mondrian.partition._lifetime import aimse_lifetime

OLD_PICKLE = Path(__file__).parent / "data" / "partition_regressor_before_debiasing.pkl"


def sines(n, d, sigma, seed):
    """CKU23's simulation design: X uniform on [0, 1]^d, Y = sum_j sin(pi X_j) + N(0, sigma^2)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    return X, np.sin(np.pi * X).sum(axis=1) + sigma * rng.normal(size=n)


def data_of_the_old_pickle():
    """The data ``partition_regressor_before_debiasing.pkl`` was fitted on (the commit before debiasing)."""
    rng = np.random.default_rng(7)
    X = rng.uniform(size=(300, 2))
    y = np.sin(np.pi * X).sum(1) + 0.3 * rng.normal(size=300)
    return X, y, rng.uniform(size=(6, 2)), rng.uniform(0.5, 2, size=300)


# the predictions of the code before debiasing (its commit 5928f8c), as exact floats
BEFORE = [
    "0x1.3cb05cce88059p+0", "0x1.0ec50f8f5e296p+0", "0x1.270b742b32d22p+0", "0x1.300beab60de3fp+0",
    "0x1.7a65fd7afe589p+0", "0x1.e5c00fa040d33p-1",
]  # fmt: skip
BEFORE_PRUNED = [
    "0x1.6bd130a40c877p+0", "0x1.30301000212f2p+0", "0x1.431f88a83e83cp+0", "0x1.2e77b31cfe7c3p+0",
    "0x1.5ca4ce57da9c4p+0", "0x1.2ef4d74aa1c01p+0",
]  # fmt: skip
BEFORE_WEIGHTED = [
    "0x1.2649fd972fc21p+0", "0x1.0ec93f10d785dp+0", "0x1.3c73c24eadf8ep+0", "0x1.4f415649a54e1p+0",
    "0x1.40743eda57affp+0", "0x1.3f934fb78562dp+0",
]  # fmt: skip


def floats(hexes):
    return np.array([float.fromhex(h) for h in hexes])


def test_order_zero_predicts_bit_for_bit_as_before():
    X, y, Xt, w = data_of_the_old_pickle()
    reg = MondrianPartitionForestRegressor(n_estimators=5, lifetime=3.0, domain="unit", random_state=3).fit(X, y)
    np.testing.assert_array_equal(reg.predict(Xt), floats(BEFORE))
    np.testing.assert_array_equal(reg.predict(Xt, lifetime=1.5), floats(BEFORE_PRUNED))
    weighted = MondrianPartitionForestRegressor(n_estimators=4, lifetime=2.0, random_state=1).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(weighted.predict(Xt), floats(BEFORE_WEIGHTED))


@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_the_weights_solve_the_generalized_jackknife_system(order):
    for scales in (default_scales(order), np.r_[1.0, np.sort(np.random.default_rng(order).uniform(1.1, 3, order))]):
        omega = debiasing_weights(scales)
        assert omega.sum() == pytest.approx(1.0, abs=1e-10)  # keeps mu
        for s in range(1, order + 1):  # cancels the bias terms lambda^(-2 s), s = 1..J
            assert omega @ scales ** (-2.0 * s) == pytest.approx(0.0, abs=1e-10)


def test_the_default_scales_are_cku23s_and_the_constants_those_of_the_authors_code():
    # CKU23: "We suggest for concreteness taking $a_r = 1.05^r$."
    np.testing.assert_allclose(default_scales(3), 1.05 ** np.arange(4))
    # the authors' replication code (a_1 = 1.5): omega = (-0.8, 1.8), variance constants 0.4091^d (J = 0) and
    # 0.64 0.4091^d - 2.88 0.4932^d + 3.24 0.6137^d (J = 1)
    authors = np.array([1.0, 1.5])
    np.testing.assert_allclose(debiasing_weights(authors), [-0.8, 1.8])
    assert overlap(1.0, 1.0) == pytest.approx((4 - 4 * np.log(2)) / 3)
    assert overlap(1.0, 1.5) == pytest.approx(0.4932, abs=1e-4)
    for d in (1, 2, 3):
        assert variance_constant(np.ones(1), np.ones(1), d) == pytest.approx(0.4091**d, rel=1e-3)
        expected = 0.64 * 0.4091**d - 2.88 * 0.4932**d + 3.24 * 0.6137**d
        assert variance_constant(authors, debiasing_weights(authors), d) == pytest.approx(expected, rel=1e-3)


def test_the_debiased_forest_has_a_smaller_bias_on_a_smooth_function():
    # mu = sin(pi x) at x = 1/2, lifetime 8: the plain forest's bias is about -pi^2 / (2 * 64) = -0.077, the debiased
    # forest's (a_1 = 1.5) about omega_bar pi^4 / (3 * 8^4) = -0.0035; averaged over 20 data sets of small noise.
    # (The default a_1 = 1.05 weighs its forests -9.76 and 10.76, which multiplies the trees' Monte Carlo error
    # about 15 times: its bias would need hundreds of trees per data set to be seen.)
    x = np.array([[0.5]])
    errors = {0: [], 1: []}
    for seed in range(20):
        X, y = sines(2000, 1, 0.05, seed)
        for order in (0, 1):
            reg = MondrianPartitionForestRegressor(
                50,
                lifetime=8.0,
                debias_order=order,
                debias_scales=[1.0, 1.5][: order + 1],
                domain="unit",
                random_state=seed,
            )
            errors[order].append(reg.fit(X, y).predict(x)[0] - 1.0)
    plain, debiased = np.mean(errors[0]), np.mean(errors[1])
    assert plain < -0.05
    assert abs(debiased) < abs(plain) / 4


def direct_standard_error(reg, X, y, x):
    """CKU23's Sigma_hat(x) computed from its formula with numpy, and sqrt(lambda^d Sigma_hat / n)."""
    n, d = X.shape
    lam = reg.lifetime_
    forests = [reg.trees_, *reg.debias_trees_]
    w = np.zeros((len(forests), n))  # w_ri(x) = (1/B) sum_b 1(X_i in T_rb(x)) / N_rb(x)
    for r, trees in enumerate(forests):
        for tree in trees:
            same = apply(tree.nodes, X, np.inf) == apply(tree.nodes, x, np.inf)[0]
            if same.any():
                w[r] += same / same.sum() / len(trees)
    mu = reg.debias_weights_ @ (w @ y)  # the debiased estimate (no empty cell here: empty_value 0 adds nothing)
    sigma2 = w[0] @ (y - w[0] @ y) ** 2  # eq. (sigma2_hat): the lifetime-lambda forest and its own estimate
    Sigma = sigma2 * n / lam**d * ((reg.debias_weights_ @ w) ** 2).sum()
    return mu, np.sqrt(lam**d * Sigma / n)


@pytest.mark.parametrize("order", [0, 1, 2])
def test_the_standard_error_is_cku23s_variance_estimator(order):
    X, y = sines(80, 2, 0.3, 0)
    reg = MondrianPartitionForestRegressor(3, lifetime=2.0, debias_order=order, domain="unit", random_state=1)
    reg.fit(X, y)
    points = np.random.default_rng(2).uniform(size=(5, 2))
    mean, std = reg.predict(points, return_std=True)
    for k, x in enumerate(points):
        mu, se = direct_standard_error(reg, X, y, x[None, :])
        assert mean[k] == pytest.approx(mu, rel=1e-12)
        assert std[k] == pytest.approx(se, rel=1e-12)
        assert std[k] > 0
    interval = reg.predict_interval(points, alpha=0.1)
    np.testing.assert_allclose(
        interval, np.c_[mean - NormalDist().inv_cdf(0.95) * std, mean + NormalDist().inv_cdf(0.95) * std]
    )


def test_the_standard_error_weighs_rows_as_copies():
    X, y = sines(60, 1, 0.3, 3)
    counts = np.random.default_rng(4).integers(1, 3, size=60)
    points = np.array([[0.2], [0.5], [0.9]])
    kw = {"lifetime": 3.0, "debias_order": 1, "domain": "unit", "random_state": 0}
    weighted = MondrianPartitionForestRegressor(4, **kw).fit(X, y, sample_weight=counts)
    copied = MondrianPartitionForestRegressor(4, **kw).fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
    # the same partitions (drawn around the same distinct points): the same cells' weighted means and weights
    for a, b in zip(weighted.predict(points, return_std=True), copied.predict(points, return_std=True), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_polynomial_lifetime_is_near_the_aimse_optimal_one():
    # mu = sin(pi x) in d = 1, J = 0: lambda_AIMSE(0) = (n int (mu'')^2 / (sigma^2 (4 - 4 log 2) / 3))^(1/5)
    n, sigma = 4000, 0.3
    X, y = sines(n, 1, sigma, 5)
    oracle = (n * np.pi**4 / 2 / (sigma**2 * (4 - 4 * np.log(2)) / 3)) ** (1 / 5)
    assert aimse_lifetime(X, y, None, np.zeros(1), np.ones(1), np.ones(1)) == pytest.approx(oracle, rel=0.15)


@pytest.mark.parametrize("order", [0, 1, 2])
def test_polynomial_lifetime_is_cku23s_procedure_for_inference(order):
    # lambda_hat_AIMSE(J - 1) for the debiased forest of order J >= 1, lambda_hat_AIMSE(0) for J = 0
    X, y = sines(500, 2, 0.3, 6)
    reg = MondrianPartitionForestRegressor(2, lifetime="polynomial", debias_order=order, random_state=0).fit(X, y)
    scales = default_scales(max(order - 1, 0))
    assert reg.lifetime_ == aimse_lifetime(X, y, None, np.zeros(2), np.ones(2), scales)
    assert [trees[0].lifetime for trees in [reg.trees_, *reg.debias_trees_]] == pytest.approx(
        reg.lifetime_ * default_scales(order)
    )


def refused(call, pattern):
    """call() raises a one-line ValueError matching pattern."""
    with pytest.raises(ValueError, match=pattern) as caught:
        call()
    assert "\n" not in str(caught.value)


def test_errors_are_one_line_and_leave_the_model_unchanged():
    X, y = sines(50, 2, 0.3, 0)
    with pytest.raises(NotFittedError):
        MondrianPartitionForestRegressor().predict_interval(X)
    with pytest.raises(NotFittedError):
        MondrianPartitionForestRegressor().predict(X, return_std=True)
    reg = MondrianPartitionForestRegressor(3, lifetime=2.0, debias_order=1, random_state=0).fit(X, y)
    before = pickle.dumps(reg)
    for alpha in (0.0, 1.0, -0.1, True, "0.05", None):
        refused(lambda alpha=alpha: reg.predict_interval(X, alpha=alpha), r"^alpha must be a number in \(0, 1\), got")
    refused(lambda: reg.predict(X, return_std="yes"), "^return_std must be a bool")
    refused(lambda: reg.predict(X, lifetime=1.0, return_std=True), "^the standard error is the fitted lifetime's")
    for bad in ([1.0], [1.0, 1.0], [2.0, 3.0], [1.0, -1.5], ["a", "b"]):
        refused(lambda bad=bad: reg.set_params(debias_scales=bad).fit(X, y), "^debias_scales must be debias_order")
    reg.set_params(debias_scales=None)
    refused(lambda: reg.set_params(lifetime="adaptive").fit(X, y), "^debias_order > 0 needs a number or 'polynomial'")
    refused(
        lambda: reg.set_params(lifetime="polynomial", debias_order=3).fit(X[:15], y[:15]), "^the polynomial lifetime"
    )
    reg.set_params(lifetime=2.0, debias_order=1)
    assert pickle.dumps(reg) == before  # every failed fit left the fitted model as it was
    adaptive = MondrianPartitionForestRegressor(3, lifetime="adaptive", random_state=0).fit(X, y)
    for call in (lambda: adaptive.predict(X, return_std=True), lambda: adaptive.predict_interval(X)):
        refused(call, "^the variance estimator needs a number or 'polynomial'")
    assert not hasattr(MondrianPartitionForestClassifier(), "predict_interval")  # no regression function to cover


def test_a_model_pickled_before_debiasing_loads_predicts_and_refuses_intervals():
    X, y, Xt, _ = data_of_the_old_pickle()
    old = pickle.loads(OLD_PICKLE.read_bytes())
    assert old.get_params()["debias_order"] == 0 and old.get_params()["debias_scales"] is None
    np.testing.assert_array_equal(old.predict(Xt), floats(BEFORE))
    with pytest.raises(ValueError, match=r"^this forest was fitted before the variance estimator existed"):
        old.predict_interval(Xt)
    np.testing.assert_array_equal(old.fit(X, y).predict(Xt), floats(BEFORE))  # fitted again: the same forest
    assert old.predict_interval(Xt).shape == (6, 2)


def test_pickles_and_is_deterministic_for_any_n_jobs():
    X, y = sines(200, 2, 0.3, 1)
    points = np.random.default_rng(3).uniform(size=(7, 2))
    kw = {"lifetime": "polynomial", "debias_order": 1, "random_state": 4}
    reg = MondrianPartitionForestRegressor(6, **kw).fit(X, y)
    mean, std = reg.predict(points, return_std=True)
    again = MondrianPartitionForestRegressor(6, n_jobs=2, **kw).fit(X, y)
    loaded = pickle.loads(pickle.dumps(reg))
    for other in (again, loaded):
        got_mean, got_std = other.predict(points, return_std=True)
        np.testing.assert_array_equal(got_mean, mean)
        np.testing.assert_array_equal(got_std, std)
    np.testing.assert_array_equal(loaded.predict_interval(points), reg.predict_interval(points))


REPLICATIONS = 400
NOMINAL = 0.95
LEVEL = 0.001  # the chance that an exact 95% interval fails the test
# the authors' replication design: d = 1, n = 1000, mu(x) = sin(pi x), noise N(0, 0.3^2), x = 1/2
N, SIGMA = 1000, 0.3
# two-sided binomial tolerance: z_(1 - LEVEL/2) standard deviations of the coverage of an exact interval (0.036)
TOLERANCE = NormalDist().inv_cdf(1 - LEVEL / 2) * np.sqrt(NOMINAL * (1 - NOMINAL) / REPLICATIONS)


def coverage(ratio: float, trees: int) -> float:
    """The coverage of mu(1/2) = 1 by CKU23's 95% intervals over REPLICATIONS data sets, their procedure for
    inference (J = 1 at lambda_hat_AIMSE(0)), a_r = ratio^r."""
    covered = 0
    for rep in range(REPLICATIONS):
        X, y = sines(N, 1, SIGMA, rep)
        reg = MondrianPartitionForestRegressor(
            trees, lifetime="polynomial", debias_order=1, debias_scales=[1.0, ratio], domain="unit", random_state=rep
        )
        low, high = reg.fit(X, y).predict_interval([[0.5]])[0]
        covered += low <= 1.0 <= high
    return covered / REPLICATIONS


@pytest.mark.slow
def test_debiased_intervals_cover_at_the_nominal_level_with_the_authors_scales():
    # a_1 = 1.5 (the authors' replication code), B = 100 trees per lifetime (theirs 800, fewer for the time):
    # measured 0.965 (mean lifetime 17.1, width 0.144)
    assert abs(coverage(1.5, 100) - NOMINAL) <= TOLERANCE


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="measured 0.855 at B = 100 (width 0.209 for an sd of the estimate 0.070): the weights (-9.76, 10.76) of "
    "a_1 = 1.05 multiply the trees' Monte Carlo error, which the interval, conditional on the trees, leaves out",
)
def test_debiased_intervals_cover_at_the_nominal_level_with_the_printed_scales():
    # CKU23's printed suggestion a_r = 1.05^r, B = 100 (their B = n^((2J - 1) / (2J)) = 32 at J = 1)
    assert abs(coverage(1.05, 100) - NOMINAL) <= TOLERANCE


def test_a_pruned_lifetime_reads_each_forest_at_its_scale():
    # the debiased forest at lifetime l < lambda: sum_r omega_r mu_r, forest r pruned at a_r l (MGS20's nesting)
    X, y = sines(300, 2, 0.3, 8)
    points = np.random.default_rng(9).uniform(size=(5, 2))
    reg = MondrianPartitionForestRegressor(4, lifetime=6.0, debias_order=1, domain="unit", random_state=2).fit(X, y)
    plain = MondrianPartitionForestRegressor(4, lifetime=6.0, domain="unit", random_state=2).fit(X, y)
    second = MondrianPartitionForestRegressor(4, lifetime=6.0, domain="unit", random_state=2).fit(X, y)
    second.trees_, second.lifetime_ = reg.debias_trees_[0], 6.0 * reg.debias_scales_[1]
    (a0, a1), (w0, w1) = reg.debias_scales_, reg.debias_weights_
    assert a0 == 1.0
    for lifetime in (2.0, 6.0):
        expected = w0 * plain.predict(points, lifetime=lifetime) + w1 * second.predict(points, lifetime=a1 * lifetime)
        np.testing.assert_allclose(reg.predict(points, lifetime=lifetime), expected, rtol=1e-12)
    np.testing.assert_array_equal(reg.predict(points), reg.predict_nested(points, [6.0])[0])
