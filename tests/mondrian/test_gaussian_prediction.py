"""MondrianForestRegressor's ``prediction="gaussian"``: LRT16's hierarchical Gaussian prior and predictive.

The kernels run Gaussian belief propagation over each tree; the reference here computes the same law another way, as
a Gaussian process over the labels whose covariance is the tree's Brownian motion (two node means covary by s(tau) -
s(0) at their lowest common ancestor, s(t) = sigma_mu^2 * sigmoid(gamma t)), conditioned with dense linear algebra in
numpy; x branching off above node j of its path at the expected time t is predicted by j's posterior plus the
increment s(t) - s(tau_parent(j)) (the authors' code's law), or by x's new leaf below a new node inserted at t
(``branch_law="exact"``). Also: the conjugate normal posterior of a one-leaf tree
written out by hand, the spread
growing as x leaves the data, the leaf mean inside a leaf of many points, the forest's mixture of its trees, online
== batch bit for bit (fit, partial_fit in chunks, learn_one), determinism for any n_jobs, pickling, and the errors.
"""

import copy
import pickle
from statistics import NormalDist

import numpy as np
import pytest
from samples import regression
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from mondrian import MondrianForestRegressor


def sigmoid_time(t, variance, gamma):
    return variance / (1.0 + np.exp(-gamma * t))


def truncated_mean(eta, delta):
    return 1.0 / eta if np.isinf(delta) else 1.0 / eta - delta * np.exp(-eta * delta) / -np.expm1(-eta * delta)


class TreeLaw:
    """One tree's nodes (pruned at its lifetime) and the Gaussian process its prior puts on the training labels."""

    def __init__(self, tree, X, y, noise, variance, mean, gamma, exact=False):
        a = tree.arrays()
        self.a, self.lifetime = a, tree.lifetime
        self.leaf = tree.is_leaf()
        self.tau = np.where(self.leaf, tree.lifetime, a["split_time"])
        self.s = lambda t: sigmoid_time(t, variance, gamma)
        self.noise, self.mean, self.y, self.exact = noise, mean, y, exact
        self.leaves = tree.apply(X)
        k = np.array([[self.cov(i, j) for j in self.leaves] for i in self.leaves])
        self.K_inv = np.linalg.inv(k + noise * np.eye(len(y)))
        self.root = tree.root

    def ancestors(self, j):
        chain = [j]
        while self.a["parent"][chain[-1]] != -1:
            chain.append(self.a["parent"][chain[-1]])
        return chain

    def cov(self, i, j):
        above = set(self.ancestors(j))
        lca = next(node for node in self.ancestors(i) if node in above)
        return self.s(self.tau[lca]) - self.s(0.0)

    def condition(self, k, prior_variance):
        """The predictive of a label whose leaf mean has prior variance ``prior_variance`` and covariances k."""
        mean = self.mean + k @ self.K_inv @ (self.y - self.mean)
        return mean, prior_variance - k @ self.K_inv @ k + self.noise

    def path(self, x):
        node = self.root
        path = [node]
        while not self.leaf[node]:
            f, threshold = self.a["feature"][node], self.a["threshold"][node]
            node = self.a["left"][node] if x[f] <= threshold else self.a["right"][node]
            path.append(node)
        return path

    def components(self, x):
        """(weight, mean, variance) of each Gaussian of the tree's predictive at x."""
        out, not_separated = [], 1.0
        path = self.path(x)
        for j in path:
            parent = self.a["parent"][j]
            tau_parent = 0.0 if parent == -1 else self.tau[parent]
            delta = self.tau[j] - tau_parent
            eta = np.sum(np.maximum(self.a["box_lower"][j] - x, 0) + np.maximum(x - self.a["box_upper"][j], 0))
            if eta == 0.0:
                continue
            p = 1.0 if np.isinf(delta) else -np.expm1(-eta * delta)
            t = tau_parent + truncated_mean(eta, delta)
            if self.exact:  # x's new leaf: it meets a leaf below j at the new node (time t), another where j does
                below_j = [j in self.ancestors(leaf) for leaf in self.leaves]
                k = np.array([self.s(t) - self.s(0.0) if below else self.cov(j, leaf)
                              for leaf, below in zip(self.leaves, below_j, strict=True)])  # fmt: skip
                out.append((not_separated * p, *self.condition(k, self.s(self.lifetime) - self.s(0.0))))
            else:
                k = np.array([self.cov(j, leaf) for leaf in self.leaves])
                mean, variance = self.condition(k, self.s(self.tau[j]) - self.s(0.0))  # j's posterior, and noise
                out.append((not_separated * p, mean, variance + self.s(t) - self.s(tau_parent)))
            not_separated *= 1.0 - p
        leaf = path[-1]
        k = np.array([self.cov(leaf, other) for other in self.leaves])
        out.append((not_separated, *self.condition(k, self.s(self.tau[leaf]) - self.s(0.0))))
        return out


def reference(model, X, y, Q, **hyper):
    """The forest's predictive mean and std at the rows of Q, from each tree's Gaussian process."""
    v, n = float(np.var(y)), len(y)
    k = min(2 * n, 500)  # the authors' code's defaults
    variance = hyper.get("prior_variance") or 2 * v * k / (k + 2)
    noise = hyper.get("noise_variance") or v / k
    mean = hyper.get("prior_mean", float(np.mean(y)))
    gamma = hyper.get("gamma") or X.shape[1] / (2 * np.log2(n))
    exact = hyper.get("branch_law") == "exact"
    laws = [TreeLaw(tree, X, y, noise, variance, mean, gamma, exact) for tree in model.trees_]
    means, seconds = [], []
    for x in Q:
        tree_means, tree_seconds = [], []
        for law in laws:
            parts = np.array(law.components(x))
            w, m, v = parts.T
            assert np.isclose(w.sum(), 1.0)
            tree_means.append(w @ m)
            tree_seconds.append(w @ (v + m**2))
        means.append(np.mean(tree_means))
        seconds.append(np.mean(tree_seconds))
    means = np.array(means)
    return means, np.sqrt(np.array(seconds) - means**2)


def queries(n=40, d=2, seed=5):
    """Points inside and outside the unit square the data fill."""
    return np.random.default_rng(seed).uniform(-0.5, 1.5, size=(n, d))


@pytest.mark.parametrize(
    "params",
    [
        dict(lifetime=np.inf),
        dict(lifetime=3.0),
        dict(lifetime=np.inf, noise_variance=0.02, prior_variance=2.0, prior_mean=0.3, gamma=0.5),
        dict(lifetime="increasing", lifetime_scale=2.0),
        dict(lifetime=np.inf, branch_law="exact"),
        dict(lifetime=3.0, branch_law="exact", noise_variance=0.05),
        dict(lifetime="increasing", branch_law="exact"),
    ],
    ids=["inf", "finite", "given", "increasing", "exact-inf", "exact-finite", "exact-increasing"],
)
def test_the_predictive_is_the_gaussian_process_of_the_trees_brownian_motion(params):
    X, y = regression(n=40, d=2, seed=1)
    model = MondrianForestRegressor(n_estimators=3, prediction="gaussian", random_state=2, **params).fit(X, y)
    hyper = {k: v for k, v in params.items() if k not in ("lifetime", "lifetime_scale")}
    Q = np.vstack([queries(), X[:5]])
    mean, std = model.predict(Q, return_std=True)
    want_mean, want_std = reference(model, X, y, Q, **hyper)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(std, want_std, rtol=1e-7)


def test_a_one_leaf_tree_is_the_conjugate_normal_posterior():
    """A lifetime before any split: one leaf, mu ~ N(m, s(lam) - s(0)), labels N(mu, sigma_y^2); inside the data's
    box the predictive is N(posterior mean, posterior variance + sigma_y^2)."""
    X, y = regression(n=50, d=2, seed=3)
    lam, gamma, variance, noise, m = 1e-3, 50.0, 2.0, 0.3, -0.2
    model = MondrianForestRegressor(
        n_estimators=1, lifetime=lam, prediction="gaussian", random_state=0,
        prior_mean=m, prior_variance=variance, noise_variance=noise, gamma=gamma,
    ).fit(X, y)  # fmt: skip
    assert model.trees_[0].n_leaves() == 1
    phi = variance * (1.0 / (1.0 + np.exp(-gamma * lam)) - 0.5)
    precision = 1.0 / phi + len(y) / noise
    post_mean = (m / phi + y.sum() / noise) / precision
    mean, std = model.predict([[0.5, 0.5]], return_std=True)
    np.testing.assert_allclose(mean, post_mean, rtol=1e-12)
    np.testing.assert_allclose(std, np.sqrt(1.0 / precision + noise), rtol=1e-12)


def stump(X, y, **hyper):
    """A one-tree forest whose tree has one split: the first lifetime of a few that gives one."""
    for lifetime in (0.3, 0.5, 0.8, 1.2, 2.0):
        for seed in range(20):
            model = MondrianForestRegressor(
                n_estimators=1, lifetime=lifetime, prediction="gaussian", random_state=seed, **hyper
            ).fit(X, y)
            if model.trees_[0].n_leaves() == 2:
                return model
    raise AssertionError("no stump")


def test_a_stump_is_two_conjugate_leaves_below_one_shared_root():
    """Root mean N(m, s(tau_r) - s(0)), each leaf's N(root's, s(lam) - s(tau_r)), labels N(leaf's, sigma_y^2): the
    posterior of leaf a by hand, its sibling b's labels reaching it through the root; x inside a's box."""
    X, y = regression(n=60, d=2, seed=8)
    variance, noise, m, gamma = 1.5, 0.2, 0.1, 3.0
    model = stump(X, y, prior_variance=variance, noise_variance=noise, prior_mean=m, gamma=gamma)
    tree = model.trees_[0]
    a = tree.arrays()
    root, lam = tree.root, tree.lifetime
    s = lambda t: variance / (1.0 + np.exp(-gamma * t))  # noqa: E731
    phi = s(lam) - s(a["split_time"][root])
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        other = np.setdiff1d(np.unique(leaves), [leaf])[0]
        n_a, sum_a = np.sum(leaves == leaf), y[leaves == leaf].sum()
        n_b, sum_b = np.sum(leaves == other), y[leaves == other].sum()
        q_b = (n_b / noise) / (1.0 + (n_b / noise) * phi)  # b's labels, about the root's mean
        root_prior = s(a["split_time"][root]) - s(0.0)
        root_precision = 1.0 / root_prior + q_b
        root_mean = (m / root_prior + q_b * sum_b / n_b) / root_precision
        prior_precision = 1.0 / (1.0 / root_precision + phi)  # a's mean before its own labels
        precision = prior_precision + n_a / noise
        mean = (prior_precision * root_mean + sum_a / noise) / precision
        x = X[leaves == leaf][:1]  # inside a's box
        got_mean, got_std = model.predict(x, return_std=True)
        np.testing.assert_allclose(got_mean, mean, rtol=1e-12)
        np.testing.assert_allclose(got_std, np.sqrt(1.0 / precision + noise), rtol=1e-12)


@pytest.mark.parametrize("law", ["code", "exact"])
def test_the_spread_grows_as_x_leaves_the_data_and_settles_far_away(law):
    """Just out of the data's box the std grows with either law. Far away x branches off above the root at a time
    near 0: the code's law gives the root's posterior (the increment s(t) - s(0) vanishing) and the noise, below the
    std inside; the exact law x's new leaf below a node of prior N(m, s(t) - s(0) -> 0), about the prior's std
    sqrt(s(inf) - s(0) + sigma_y^2), above it. Not monotone all the way with the exact law either: the mixture's std
    also counts the spread of its components' means."""
    X, y = regression(n=200, d=2, seed=4)
    model = MondrianForestRegressor(n_estimators=5, prediction="gaussian", branch_law=law, random_state=0).fit(X, y)
    distances = [0.0, 0.003, 0.01, 0.03, 1e4, 1e6]
    Q = np.array([[1.0 + r, 0.5] for r in distances])
    mean, std = model.predict(Q, return_std=True)
    assert np.all(np.diff(std[:4]) > 0), std
    want_mean, want_std = reference(model, X, y, Q[-2:], branch_law=law)
    np.testing.assert_allclose(mean[-2:], want_mean, rtol=1e-6)
    np.testing.assert_allclose(std[-2:], want_std, rtol=1e-6)
    np.testing.assert_allclose(std[-2], std[-1], rtol=1e-3)
    v = np.var(y)
    prior_std = np.sqrt(2 * v * 400 / 402 / 2 + v / 400)  # s(inf) - s(0) + sigma_y^2 at the defaults, K = 2n = 400
    if law == "exact":
        np.testing.assert_allclose(std[-1], prior_std, rtol=1e-3)
    else:
        assert std[-1] < std[0] < prior_std


@pytest.mark.parametrize("n", [500, 8000])
def test_inside_a_leaf_of_many_points_the_mean_is_the_leafs_mean(n):
    """A 1-tree forest with few leaves of many points: the posterior mean at a point of a leaf is the leaf's mean up
    to the prior's pull, about sigma_y^2 / (n_leaf phi_leaf), which more points shrink."""
    rng = np.random.default_rng(0)
    X = rng.random((n, 1))
    y = np.where(X[:, 0] < 0.5, 0.0, 1.0) + 0.3 * rng.standard_normal(n)
    model = MondrianForestRegressor(n_estimators=1, lifetime=4.0, prediction="gaussian", random_state=1, gamma=0.2)
    model.fit(X, y)
    tree = model.trees_[0]
    leaves = tree.apply(X)
    worst = 0.0
    for leaf in np.unique(leaves):
        x = X[leaves == leaf][:1]
        leaf_mean = tree.stats[leaf, 1] / tree.stats[leaf, 0]
        worst = max(worst, abs(model.predict(x)[0] - leaf_mean) * np.sqrt(tree.stats[leaf, 0]))
    assert worst < 0.3 * 3, worst  # within 3 standard errors of the leaf's mean (noise 0.3)
    # and the std there is about the noise's (a leaf's mean known to sigma_y / sqrt(n_leaf))
    _, std = model.predict(X[:3], return_std=True)
    np.testing.assert_allclose(std, np.sqrt(np.var(y) / 500.0), rtol=0.05)  # sigma_y^2 = var(y) / K, K = 500


def test_the_forest_is_the_mixture_of_its_trees():
    X, y = regression(n=150, d=3, seed=6)
    model = MondrianForestRegressor(n_estimators=4, prediction="gaussian", random_state=3).fit(X, y)
    Q = np.random.default_rng(0).uniform(-0.5, 1.5, size=(30, 3))
    singles = []
    for tree in model.trees_:
        one = copy.deepcopy(model)
        one.trees_ = [tree]
        singles.append(one.predict(Q, return_std=True))
    means = np.array([m for m, _ in singles])
    variances = np.array([s**2 for _, s in singles])
    mean, std = model.predict(Q, return_std=True)
    np.testing.assert_allclose(mean, means.mean(axis=0), rtol=1e-12, atol=1e-14)
    want = np.sqrt((variances + means**2).mean(axis=0) - means.mean(axis=0) ** 2)
    np.testing.assert_allclose(std, want, rtol=1e-10)
    np.testing.assert_array_equal(model.predict(Q), mean)  # predict gives the predictive mean


def test_the_interval_is_the_gaussian_of_the_predictive_mean_and_std():
    X, y = regression(n=150, d=3, seed=6)
    model = MondrianForestRegressor(n_estimators=4, prediction="gaussian", random_state=3).fit(X, y)
    Q = queries(d=3)
    mean, std = model.predict(Q, return_std=True)
    for alpha in (0.05, 0.5, 0.9):
        z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
        interval = model.predict_interval(Q, alpha=alpha)
        np.testing.assert_allclose(interval, np.column_stack([mean - z * std, mean + z * std]), rtol=1e-12)


def test_the_interval_covers_fresh_labels_about_as_often_as_it_says():
    """Noise of std 0.3 around a smooth function, the noise variance given: 90% intervals on fresh points inside the
    data's range cover about 90% of their labels (a loose band: the prior is not the data's law)."""
    rng = np.random.default_rng(0)
    X = rng.random((2000, 2))
    f = lambda X: np.sin(4 * X[:, 0]) + X[:, 1]  # noqa: E731
    y = f(X) + 0.3 * rng.standard_normal(2000)
    model = MondrianForestRegressor(n_estimators=10, prediction="gaussian", noise_variance=0.09, random_state=0)
    model.fit(X, y)
    Xt = rng.random((2000, 2))
    yt = f(Xt) + 0.3 * rng.standard_normal(2000)
    lower, upper = model.predict_interval(Xt, alpha=0.1).T
    coverage = np.mean((lower <= yt) & (yt <= upper))
    assert 0.8 < coverage < 0.99, coverage


def chunks(n, rng):
    cuts = np.sort(rng.choice(np.arange(1, n), size=4, replace=False))
    return np.split(np.arange(n), cuts)


@pytest.mark.parametrize(
    "seed, n, d, lifetime",
    [(0, 60, 2, np.inf), (1, 45, 3, 2.0), (2, 50, 2, "increasing")],
)
def test_online_is_batch_bit_for_bit(seed, n, d, lifetime):
    """The labels' mean and variance are the same floats however the rows come (fit, partial_fit in chunks,
    learn_one); the trees have the same law only (a batch is sampled at once, rows online extend the tree), and a
    model predicts the same floats with another's trees once it has them: nothing else is learnt."""
    X, y = regression(n=n, d=d, seed=seed)
    y = 100.0 + 7.0 * y  # labels far from 0: the mean and variance are learnt, not assumed
    make = lambda: MondrianForestRegressor(  # noqa: E731
        n_estimators=3, lifetime=lifetime, prediction="gaussian", random_state=seed
    )
    batch = make().fit(X, y)
    whole = make().partial_fit(X, y)
    chunked, rows_one, one = make(), make(), make()
    for rows in chunks(n, np.random.default_rng(seed)):
        chunked.partial_fit(X[rows], y[rows])
    for i, (x, label) in enumerate(zip(X, y, strict=True)):
        one.learn_one(x, label)
        rows_one.partial_fit(X[i : i + 1], y[i : i + 1])
    Q = queries(d=d)
    for model in (whole, chunked, rows_one, one):
        np.testing.assert_array_equal(model.label_moments_, batch.label_moments_)
    np.testing.assert_allclose(batch.label_moments_, [n, np.mean(y), n * np.var(y)], rtol=1e-12)
    for a, b in [(batch, whole), (one, rows_one)]:  # the same trees: the same predictive
        for got, want in zip(a.predict(Q, return_std=True), b.predict(Q, return_std=True), strict=True):
            np.testing.assert_array_equal(got, want)
    for model in (chunked, one):
        hybrid = copy.deepcopy(batch)
        hybrid.trees_ = model.trees_
        for got, want in zip(hybrid.predict(Q, return_std=True), model.predict(Q, return_std=True), strict=True):
            np.testing.assert_array_equal(got, want)


def test_sample_weights_are_the_labels_weights():
    X, y = regression(n=40, d=2, seed=0)
    w = np.random.default_rng(0).integers(1, 4, size=40).astype(float)
    model = MondrianForestRegressor(n_estimators=2, prediction="gaussian", random_state=0).fit(X, y, sample_weight=w)
    mean = np.average(y, weights=w)
    np.testing.assert_allclose(model.label_moments_, [w.sum(), mean, w @ (y - mean) ** 2], rtol=1e-12)


def test_the_same_whatever_n_jobs_and_after_pickling():
    X, y = regression(n=300, d=3, seed=2)
    Q = queries(n=500, d=3)
    results = []
    for n_jobs in (1, 2, -1):
        model = MondrianForestRegressor(n_estimators=4, prediction="gaussian", random_state=0, n_jobs=n_jobs)
        results.append(model.fit(X, y).predict(Q, return_std=True))
    for got in results[1:]:
        np.testing.assert_array_equal(got[0], results[0][0])
        np.testing.assert_array_equal(got[1], results[0][1])
    copy_ = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy_.predict_interval(Q), model.predict_interval(Q))


def test_the_rule_switches_after_fit_on_the_same_trees():
    X, y = regression(n=100, d=2, seed=0)
    leaf = MondrianForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    gaussian = MondrianForestRegressor(n_estimators=3, prediction="gaussian", random_state=0).fit(X, y)
    Q = queries()
    switched = copy.deepcopy(leaf).set_params(prediction="gaussian")
    np.testing.assert_array_equal(switched.predict(Q, return_std=True)[1], gaussian.predict(Q, return_std=True)[1])
    np.testing.assert_array_equal(gaussian.set_params(prediction="leaf").predict(Q), leaf.predict(Q))


def test_progressive_predict_is_predict_then_partial_fit():
    X, y = regression(n=30, d=2, seed=0)
    model = MondrianForestRegressor(n_estimators=2, prediction="gaussian", random_state=0)
    loop = copy.deepcopy(model)
    rows = model.progressive_predict(X, y)
    want = [0.0]
    loop.partial_fit(X[:1], y[:1])
    for i in range(1, 30):
        want.append(loop.predict(X[i : i + 1])[0])
        loop.partial_fit(X[i : i + 1], y[i : i + 1])
    np.testing.assert_array_equal(rows, want)
    np.testing.assert_array_equal(model.predict(X, return_std=True)[1], loop.predict(X, return_std=True)[1])


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 1.5, np.nan, True, "0.1", None])
def test_a_bad_alpha_is_refused_in_one_line(alpha):
    X, y = regression(n=30, d=2)
    model = MondrianForestRegressor(n_estimators=2, prediction="gaussian", random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="alpha must be a number in \\(0, 1\\)") as error:
        model.predict_interval(X, alpha=alpha)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("rule", ["leaf", "path"])
def test_another_rule_names_the_fix(rule):
    X, y = regression(n=30, d=2)
    model = MondrianForestRegressor(n_estimators=2, prediction=rule, random_state=0).fit(X, y)
    for call in (lambda: model.predict(X, return_std=True), lambda: model.predict_interval(X)):
        with pytest.raises(ValueError, match=r"set_params\(prediction='gaussian'\)") as error:
            call()
        assert "\n" not in str(error.value)


def test_errors_of_an_unfitted_model_a_bad_return_std_and_bad_hyperparameters():
    model = MondrianForestRegressor(prediction="gaussian")
    with pytest.raises(NotFittedError):
        model.predict([[0.0]], return_std=True)
    with pytest.raises(NotFittedError):
        model.predict_interval([[0.0]])
    X, y = regression(n=30, d=2)
    model.fit(X, y)
    with pytest.raises(ValueError, match="return_std must be True or False"):
        model.predict(X, return_std="yes")
    for name, value in [("noise_variance", 0.0), ("prior_variance", -1.0), ("gamma", np.nan), ("prior_mean", np.inf)]:
        trial = copy.deepcopy(model).set_params(**{name: value})
        with pytest.raises(InvalidParameterError, match=name):
            trial.predict(X)


def test_a_model_pickled_before_the_gaussian_rule_is_refused_by_it_in_one_line():
    X, y = regression(n=30, d=2)
    model = MondrianForestRegressor(n_estimators=2, random_state=0).fit(X, y)
    state = model.__getstate__()
    del state["label_moments_"]  # as an older version pickled it
    old = MondrianForestRegressor.__new__(MondrianForestRegressor)
    old.__setstate__(state)
    np.testing.assert_array_equal(old.predict(X), model.predict(X))
    old.partial_fit(X, y)  # it still learns
    with pytest.raises(ValueError, match="pickled before it does not hold: fit it again"):
        old.set_params(prediction="gaussian").predict(X)


def test_labels_too_large_for_the_gaussian_rule_are_refused_in_one_line():
    X, y = regression(n=30, d=2)
    model = MondrianForestRegressor(n_estimators=2, random_state=0).fit(X, 1e200 * y)  # the leaf rule takes them
    with pytest.raises(ValueError, match=r"prediction='gaussian' needs labels within \+-1e\+150"):
        model.set_params(prediction="gaussian").predict(X)
    with pytest.raises(ValueError, match="y must lie within"):
        MondrianForestRegressor(prediction="gaussian").fit(X, 1e200 * y)


def test_a_failed_call_leaves_the_model_unchanged():
    X, y = regression(n=60, d=2, seed=0)
    model = MondrianForestRegressor(n_estimators=2, prediction="gaussian", random_state=0).fit(X, y)
    before = pickle.dumps(model)
    bad = X.copy()
    bad[3, 0] = np.nan
    for call in (
        lambda: model.predict_interval(X, alpha=2.0),
        lambda: model.predict(bad, return_std=True),
        lambda: model.partial_fit(bad, y),
        lambda: model.progressive_predict(bad, y),  # a bad row after good ones: those are unlearnt
    ):
        with pytest.raises(ValueError):
            call()
        assert pickle.dumps(model) == before


@parametrize_with_checks([MondrianForestRegressor(n_estimators=3, prediction="gaussian", random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
