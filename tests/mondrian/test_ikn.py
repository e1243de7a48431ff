"""IKN forecaster kernels (LRT14's hierarchical normalized stable process with interpolated Kneser-Ney smoothing).

- Exact: on a hand-built tree (a root and two leaves) the predictions equal the posterior means and the averaged
  walk computed here from the formulas (literal values for one setting), and a node that has seen nothing takes
  its parent's distribution; on random trees the kernel equals that direct computation, sums to 1, and is positive
  wherever every discount is.
- Limits: with lifetime inf a point inside its leaf's range gets the leaf's empirical distribution for any gamma;
  with a finite lifetime the gap to it is at most exp(-gamma Delta_leaf), so it vanishes as gamma -> inf.
- Statistical: for points outside the ranges, the prediction equals the Monte Carlo mean of a literal simulation of
  the extension of x's path (E ~ Exp(eta) against Delta at each node, a temporary parent with discount
  exp(-gamma E) and j's counts), within 5 standard errors.
- Counts: after a first batch (sample_block) and random online streams (hypothesis), every node's column 0 and IKN
  counts equal those recomputed from the data alone (label counts of the points in each leaf, then the sum of
  the children's tables), for lifetime inf and finite.
- predict leaves the tree alone; progressive == predict then learn, one point at a time; a batch prediction (every
  node's posterior computed once) equals the walk down each point's path, to the last bit.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_state import assert_equal_nested, tree_state, used_tree_state

from mondrian._nodes import NO_NODE, empty_tree
from mondrian.forest import _ikn
from mondrian.tree import MondrianTree

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- direct computations, from the tree's arrays and the data alone ----------------------------------------------


def is_leaf(a, j, lifetime):
    return a.left[j] == NO_NODE or a.split_time[j] >= lifetime


def route(a, x, lifetime):
    """Root-to-leaf path of x through the splits of the tree pruned at ``lifetime``."""
    j = int(a.root[0])
    path = [j]
    while not is_leaf(a, j, lifetime):
        j = int(a.left[j] if x[a.feature[j]] <= a.threshold[j] else a.right[j])
        path.append(j)
    return path


def reference_counts(a, X, y, n_classes, lifetime):
    """(points seen, IKN counts, nodes) for the nodes of the pruned tree: a leaf counts the labels of the training
    points its cell holds, an internal node sums its children's tables min(c_k, 1)."""
    n = int(a.n_nodes[0])
    seen, counts = np.zeros(n), np.zeros((n, n_classes))
    for x, label in zip(X, y, strict=True):
        counts[route(a, x, lifetime)[-1], int(label)] += 1
    nodes = []

    def fill(j):
        nodes.append(j)
        if is_leaf(a, j, lifetime):
            seen[j] = counts[j].sum()
            return
        left, right = int(a.left[j]), int(a.right[j])
        fill(left)
        fill(right)
        counts[j] = np.minimum(counts[left], 1) + np.minimum(counts[right], 1)
        seen[j] = seen[left] + seen[right]

    fill(int(a.root[0]))
    return seen, counts, np.array(nodes)


def posterior(c, d, base):
    """IKN posterior mean (c_k - d t_k + d t base_k) / c, the base for a node without customers; one row per
    discount when d is an array."""
    c = np.asarray(c, dtype=float)
    t = np.minimum(c, 1.0)
    d = np.asarray(d, dtype=float)[..., None]
    if c.sum() == 0:
        return np.broadcast_to(base, d.shape[:-1] + base.shape).copy()
    return (c - d * t + d * t.sum() * base) / c.sum()


def times(a, j, lifetime, leaf):
    """(tau_parent(j), tau_j), tau_j = the lifetime at a leaf."""
    tau_parent = 0.0 if a.parent[j] == NO_NODE else a.split_time[a.parent[j]]
    return tau_parent, (lifetime if leaf else a.split_time[j])


def eta_of(a, j, x):
    return float(np.sum(np.maximum(a.box_lower[j] - x, 0) + np.maximum(x - a.box_upper[j], 0)))


def discount(gamma, delta):
    return 0.0 if np.isinf(gamma) else np.exp(-gamma * delta)


def reference_prediction(a, counts, x, lifetime, gamma):
    """The prediction walk of NOTES section 2, written out in numpy."""
    n_classes = counts.shape[1]
    path = route(a, x, lifetime)
    base = np.full(n_classes, 1.0 / n_classes)
    pred, not_separated = np.zeros(n_classes), 1.0
    for i, j in enumerate(path):
        tau_parent, tau = times(a, j, lifetime, i == len(path) - 1)
        delta = tau - tau_parent
        eta = eta_of(a, j, x)
        p_separated = -np.expm1(-eta * delta) if eta > 0 else 0.0
        if p_separated > 0:
            dbar = eta / (eta + gamma) * np.expm1(-(eta + gamma) * delta) / np.expm1(-eta * delta)
            pred += not_separated * p_separated * posterior(counts[j], dbar, base)
            not_separated *= 1 - p_separated
        base = posterior(counts[j], discount(gamma, delta), base)
    return pred + not_separated * base


# -- trees grown by the kernels ----------------------------------------------------------------------------------


def grow(X, y, n_classes, lifetime, seed, first, chunk=None, gamma=1.0):
    """A tree learnt by _ikn.learn: X[:first] sampled at once, the rest online in calls of ``chunk`` points."""
    tree = MondrianTree.empty(X.shape[1], np.random.default_rng(seed), lifetime, _ikn.n_stats(n_classes))
    params = _ikn.kernel_params(gamma)
    chunk = chunk or max(X.shape[0] - first, 1)
    starts = [0, *range(first, X.shape[0], chunk)]
    for start, end in zip(starts, [*starts[1:], X.shape[0]], strict=True):
        tree.reserve(2 * (end - start))
        _ikn.learn(tree.nodes, tree.stats, X[start:end], y[start:end], True, lifetime, params, tree.rng)
    return tree


def predictions(tree, X, n_classes, gamma):
    out = np.zeros((X.shape[0], n_classes))
    _ikn.predict(tree.nodes, tree.stats, X, True, tree.lifetime, _ikn.kernel_params(gamma), out)
    return out


def data(seed, n, d, n_classes, grid=False):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    if grid:  # duplicates, and points inside the ranges of existing leaves
        X = np.round(X * 8) / 8
    # labels follow x_0 (one band per class) for 80% of the points, so that leaves differ and smoothing shows
    band = np.minimum(X[:, 0] * n_classes, n_classes - 1) // 1
    return X, np.where(rng.random(n) < 0.8, band, rng.integers(0, n_classes, n)).astype(np.float64)


# -- a hand-built tree -------------------------------------------------------------------------------------------


def hand_built(left_counts=(3, 1, 0), right_counts=(0, 2, 2)):
    """Root (split x_0 <= 0.5 at time 0.4, range [0,1]^2) over leaves with ranges [0,.3]x[.2,.9] and [.6,1]x[0,1]."""
    a = empty_tree(2, capacity=3)
    a.parent[:] = [NO_NODE, 0, 0]
    a.left[0], a.right[0], a.feature[0], a.threshold[0], a.split_time[0] = 1, 2, 0, 0.5, 0.4
    a.box_lower[:] = [[0.0, 0.0], [0.0, 0.2], [0.6, 0.0]]
    a.box_upper[:] = [[1.0, 1.0], [0.3, 0.9], [1.0, 1.0]]
    a.n_nodes[0], a.root[0] = 3, 0
    counts = np.array([np.zeros(3), left_counts, right_counts], dtype=float)
    counts[0] = np.minimum(counts[1], 1) + np.minimum(counts[2], 1)
    stats = np.column_stack([[counts[1].sum() + counts[2].sum(), counts[1].sum(), counts[2].sum()], counts])
    return a, stats, counts


HAND_QUERIES = np.array(
    [
        [0.1, 0.5],  # inside the left leaf's range
        [0.8, 0.5],  # inside the right leaf's range
        [0.45, 0.5],  # inside the root's range, 0.15 outside the left leaf's
        [0.55, 0.95],  # inside the root's range, 0.05 outside the right leaf's
        [0.2, 0.05],  # routed left, 0.15 below the left leaf's range
        [1.4, -0.3],  # 0.7 outside the root's and the right leaf's ranges
        [-0.2, 1.1],  # 0.3 outside the root's range, 0.4 outside the left leaf's
    ]
)


def hand_predictions(a, stats, lifetime, gamma):
    out = np.zeros((HAND_QUERIES.shape[0], 3))
    _ikn.predict(a, stats, HAND_QUERIES, True, lifetime, _ikn.kernel_params(gamma), out)
    return out


def test_posterior_means_of_a_hand_built_tree_literal_values():
    # gamma (0.8 - 0.4) = log 2 with lifetime 0.8: d = 1/2 at the root (Delta 0.4) and at both leaves (Delta 0.4).
    # Root: c = (1, 2, 1), t = (1, 1, 1): G = (c - t/2 + 3/2 * 1/3) / 4 = (1, 2, 1) / 4.
    # Left (3, 1, 0): (3 - 1/2 + 1/4, 1 - 1/2 + 1/2, 0 + 1/4) / 4; right (0, 2, 2): (1/4, 2, 2 - 1/2 + 1/4) / 4.
    a, stats, _ = hand_built()
    out = hand_predictions(a, stats, 0.8, np.log(2) / 0.4)
    np.testing.assert_allclose(out[0], [0.6875, 0.25, 0.0625], rtol=0, atol=1e-14)
    np.testing.assert_allclose(out[1], [0.0625, 0.5, 0.4375], rtol=0, atol=1e-14)


@pytest.mark.parametrize("lifetime", [np.inf, 0.8, 3.0])
@pytest.mark.parametrize("gamma", [0.5, 1.7, 20.0, np.inf])
def test_hand_built_tree_matches_the_direct_computation(lifetime, gamma):
    a, stats, counts = hand_built()
    out = hand_predictions(a, stats, lifetime, gamma)
    expected = np.array([reference_prediction(a, counts, x, lifetime, gamma) for x in HAND_QUERIES])
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-14)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=0, atol=1e-14)
    # inside a leaf's range nothing separates: the prediction is the leaf's posterior mean under the root's
    root = posterior(counts[0], discount(gamma, 0.4), np.full(3, 1 / 3))
    np.testing.assert_allclose(out[0], posterior(counts[1], discount(gamma, lifetime - 0.4), root), atol=1e-14)
    if lifetime == np.inf:  # d = 0 at the leaves: their empirical distributions
        np.testing.assert_allclose(out[:2], [[0.75, 0.25, 0.0], [0.0, 0.5, 0.5]], rtol=0, atol=1e-14)


@pytest.mark.parametrize("lifetime", [np.inf, 3.0])
def test_a_node_that_has_seen_nothing_takes_its_parents_distribution(lifetime):
    a, stats, counts = hand_built(right_counts=(0, 0, 0))
    gamma = 1.3
    out = hand_predictions(a, stats, lifetime, gamma)
    root = posterior(counts[0], discount(gamma, 0.4), np.full(3, 1 / 3))
    np.testing.assert_allclose(out[1], root, rtol=0, atol=1e-14)  # inside the empty leaf's range
    # outside the root: split above the root with its counts, else the empty leaf's G = G_root
    eta = 0.7
    dbar = eta / (eta + gamma) * np.expm1(-(eta + gamma) * 0.4) / np.expm1(-eta * 0.4)
    p = -np.expm1(-eta * 0.4)
    expected = p * posterior(counts[0], dbar, np.full(3, 1 / 3)) + (1 - p) * root
    np.testing.assert_allclose(out[5], expected, rtol=0, atol=1e-14)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=0, atol=1e-14)


# -- random trees: the direct computation, sums, signs, limits ---------------------------------------------------


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    d=st.integers(1, 3),
    n_classes=st.integers(2, 4),
    lifetime=st.sampled_from([np.inf, 0.5, 2.0, 8.0]),
    gamma=st.sampled_from([0.05, 0.3, 1.0, 30.0, np.inf]),
    first=st.integers(1, 40),
)
def test_predictions_match_the_direct_computation_and_are_distributions(seed, n, d, n_classes, lifetime, gamma, first):
    X, y = data(seed, n, d, n_classes, grid=True)
    tree = grow(X, y, n_classes, lifetime, seed, min(first, n))
    _, counts, _ = reference_counts(tree.nodes, X, y, n_classes, lifetime)
    queries = np.vstack([np.random.default_rng(seed + 1).uniform(-0.5, 1.5, size=(8, d)), X[:4]])
    out = predictions(tree, queries, n_classes, gamma)
    expected = np.array([reference_prediction(tree.nodes, counts, x, lifetime, gamma) for x in queries])
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(out >= 0)
    # Every discount is positive (finite gamma and lifetime), or x leaves its leaf's range (dbar > 0 there): every
    # class has positive probability. gamma <= 1 and ranges of at least 1/8 keep the products above underflow.
    a = tree.nodes
    for x, p in zip(queries, out, strict=True):
        outside = eta_of(a, route(a, x, lifetime)[-1], x) > 0
        if gamma <= 1 and (lifetime < np.inf or outside):
            assert np.all(p > 0), (x, p)


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 60),
    d=st.integers(1, 3),
    n_classes=st.integers(2, 4),
    lifetime=st.sampled_from([np.inf, 0.5, 2.0]),
    gamma=st.sampled_from([0.3, 30.0, np.inf]),
)
def test_a_batch_prediction_equals_the_walk_down_each_path(seed, n, d, n_classes, lifetime, gamma):
    X, y = data(seed, n, d, n_classes, grid=True)
    tree = grow(X, y, n_classes, lifetime, seed, max(n // 2, 1), chunk=3)
    queries = np.vstack([np.random.default_rng(seed + 1).uniform(-0.5, 1.5, size=(200, d)), X])
    assert queries.shape[0] * _ikn.TABLE_POINTS_PER_NODE >= tree.n_nodes  # the batch way: the posterior table
    batch = predictions(tree, queries, n_classes, gamma)
    path, base, g = _ikn.prediction_scratch(tree.nodes, True, n_classes)
    walked = np.zeros_like(batch)
    for x, out in zip(queries, walked, strict=True):
        _ikn.add_prediction(tree.nodes, tree.stats, x, lifetime, gamma, path, base, g, out)
    np.testing.assert_array_equal(batch, walked)


@pytest.mark.parametrize("lifetime", [np.inf, 4.0])
def test_large_gamma_gives_the_leaf_empirical_distribution(lifetime):
    X, y = data(3, 300, 2, 3)
    tree = grow(X, y, 3, lifetime, 4, 150)
    a = tree.nodes
    _, counts, _ = reference_counts(a, X, y, 3, lifetime)
    leaves = [route(a, x, lifetime)[-1] for x in X]  # training points lie inside their leaf's range
    empirical = counts[leaves] / counts[leaves].sum(axis=1, keepdims=True)
    delta = np.array([lifetime - times(a, j, lifetime, True)[0] for j in leaves])
    errors = []
    for gamma in [0.5, 5.0, 50.0, 500.0, np.inf]:
        gap = np.abs(predictions(tree, X, 3, gamma) - empirical).max(axis=1)
        if lifetime == np.inf:  # d = 0 at every leaf: exact for any gamma
            np.testing.assert_allclose(gap, 0.0, rtol=0, atol=1e-14)
        else:  # |G_leaf - empirical| <= d_leaf t / c <= exp(-gamma Delta_leaf)
            assert np.all(gap <= np.exp(-gamma * delta) + 1e-14)
        errors.append(gap.max())
    if lifetime < np.inf:
        assert errors[0] > 1e-3 and errors[-1] <= 1e-14  # smoothing acts at small gamma, vanishes at gamma = inf


# -- the average over extensions: a Monte Carlo of the literal extension ----------------------------------------


def simulated_predictions(a, counts, x, lifetime, gamma, rng, draws):
    """One prediction per draw: walk x's path, at each node draw E ~ Exp(eta) and separate iff E < Delta; a
    separated x sits below a temporary parent at tau_parent + E with discount exp(-gamma E), j's counts and base
    G_parent(j); otherwise x gets its leaf's posterior mean."""
    n_classes = counts.shape[1]
    path = route(a, x, lifetime)
    base = np.full(n_classes, 1.0 / n_classes)
    pred = np.empty((draws, n_classes))
    going = np.ones(draws, dtype=bool)
    for i, j in enumerate(path):
        tau_parent, tau = times(a, j, lifetime, i == len(path) - 1)
        eta = eta_of(a, j, x)
        if eta > 0:
            E = rng.exponential(1 / eta, size=draws)
            here = going & (tau_parent + E < tau)
            pred[here] = posterior(counts[j], np.exp(-gamma * E[here]), base)
            going &= ~here
        base = posterior(counts[j], discount(gamma, tau - tau_parent), base)
    pred[going] = base
    return pred


@pytest.mark.parametrize("lifetime", [np.inf, 2.0])
def test_out_of_range_prediction_is_the_mean_over_extensions(lifetime):
    X, y = data(11, 30, 2, 3)
    gamma = 1.5
    tree = grow(X, y, 3, lifetime, 12, 10)
    _, counts, _ = reference_counts(tree.nodes, X, y, 3, lifetime)
    rng = np.random.default_rng(13)
    queries = np.vstack([rng.uniform(-0.5, 1.5, size=(6, 2)), [[1.6, 0.5], [0.5, -0.4]], X[:2]])
    exact = predictions(tree, queries, 3, gamma)
    draws = 100_000
    separated = 0
    for x, expected in zip(queries, exact, strict=True):
        samples = simulated_predictions(tree.nodes, counts, x, lifetime, gamma, rng, draws)
        error = samples.std(axis=0) / np.sqrt(draws)
        separated += error.max() > 0
        np.testing.assert_array_less(np.abs(samples.mean(axis=0) - expected), 5 * error + 1e-10)
    assert separated >= 6  # most queries leave some range: the comparison is not between constants


# -- the counts stay exact under every structural change ---------------------------------------------------------


def assert_counts_exact(tree, X, y, n_classes):
    seen, counts, nodes = reference_counts(tree.nodes, X, y, n_classes, tree.lifetime)
    np.testing.assert_array_equal(tree.stats[nodes, 0], seen[nodes])
    np.testing.assert_array_equal(tree.stats[nodes, 1:], counts[nodes])


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    d=st.integers(1, 3),
    n_classes=st.integers(2, 4),
    lifetime=st.sampled_from([np.inf, 0.5, 2.0, 8.0]),
    first=st.integers(1, 40),
    chunk=st.integers(1, 10),
    grid=st.booleans(),
)
def test_counts_stay_exact_on_random_streams(seed, n, d, n_classes, lifetime, first, chunk, grid):
    X, y = data(seed, n, d, n_classes, grid)
    tree = grow(X, y, n_classes, lifetime, seed, min(first, n), chunk)
    assert_counts_exact(tree, X, y, n_classes)


@pytest.mark.parametrize("lifetime", [np.inf, 3.0])
def test_counts_exact_after_the_first_batch_and_a_long_stream(lifetime):
    X, y = data(5, 600, 3, 4)
    tree = grow(X[:300], y[:300], 4, lifetime, 6, 300)  # sample_block only
    assert_counts_exact(tree, X[:300], y[:300], 4)
    n_batch = tree.n_nodes
    params = _ikn.kernel_params(1.0)
    tree.reserve(600)
    _ikn.learn(tree.nodes, tree.stats, X[300:], y[300:], True, lifetime, params, tree.rng)
    assert tree.n_nodes > n_batch
    assert_counts_exact(tree, X, y, 4)


# -- the interface: predict is read-only, progressive = predict then learn ---------------------------------------


@pytest.mark.parametrize("lifetime", [np.inf, 1.0])
def test_predict_leaves_the_tree_unchanged(lifetime):
    X, y = data(7, 80, 2, 3)
    tree = grow(X, y, 3, lifetime, 8, 40)
    before = tree_state(tree)
    predictions(tree, np.random.default_rng(9).uniform(-1, 2, size=(50, 2)), 3, 2.0)
    assert_equal_nested(before, tree_state(tree))


@pytest.mark.parametrize("lifetime", [np.inf, 1.0])
def test_progressive_is_predict_then_learn_one_point_at_a_time(lifetime):
    X, y = data(10, 60, 2, 3, grid=True)
    params = _ikn.kernel_params(2.0)
    prior = np.full(3, 1 / 3)

    def new_tree():
        return MondrianTree.empty(2, np.random.default_rng(1), lifetime, _ikn.n_stats(3))

    online = new_tree()
    online.reserve(2 * len(X))
    progressive = np.zeros((len(X), 3))
    _ikn.progressive(online.nodes, online.stats, X, y, True, lifetime, params, online.rng, prior, progressive)

    stepwise = new_tree()
    expected = np.zeros((len(X), 3))
    for i in range(len(X)):
        if stepwise.root == NO_NODE:
            expected[i] = prior
        else:
            _ikn.predict(stepwise.nodes, stepwise.stats, X[i : i + 1], True, lifetime, params, expected[i : i + 1])
        stepwise.reserve(2)
        _ikn.learn(stepwise.nodes, stepwise.stats, X[i : i + 1], y[i : i + 1], True, lifetime, params, stepwise.rng)
    np.testing.assert_array_equal(progressive, expected)
    assert_equal_nested(used_tree_state(online), used_tree_state(stepwise))
    assert_counts_exact(online, X, y, 3)


def test_kernel_params_and_task_are_checked():
    assert _ikn.kernel_params(np.inf)[0] == np.inf
    for gamma in [0.0, -1.0, np.nan]:
        with pytest.raises(ValueError, match="gamma"):
            _ikn.kernel_params(gamma)
    tree = MondrianTree.empty(1, np.random.default_rng(0), np.inf, _ikn.n_stats(1))
    tree.reserve(2)
    with pytest.raises(ValueError, match="classification"):
        _ikn.learn(
            tree.nodes, tree.stats, np.zeros((1, 1)), np.zeros(1), False, np.inf, _ikn.kernel_params(1.0), tree.rng
        )
