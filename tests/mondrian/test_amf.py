"""AMFClassifier / AMFRegressor (Mourtada, Gaïffas and Scornet, 2021).

- Context-tree weighting is exact: a tree's prediction and its weighted depth equal the brute-force aggregation
  over every pruning T of the tree, prior 2^-||T||, with node weights and forecasters replayed from the data alone
  (hypothesis, both losses, random small trees grown by partial_fit).
- Lemma 1's regret bound: on a fixed partition, for every pruning T and every label sequence (random and
  adversarial), cumulative loss of AMF - cumulative loss of T's forecaster <= ||T|| log 2 / step <= |T| log 2 / step.
- 10^6 updates stay finite; the estimator API: determinism for any n_jobs, pickling mid-stream, predict leaves the
  model alone, progressive validation == predict then partial_fit, fit == partial_fit, use_aggregation,
  split_pure, duplicates and constant features, parameter validation.
"""

import itertools
import pickle

import numpy as np
import pytest
from estimators import AMF_MODELS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_state import assert_equal_nested, model_state, same_trees, single, used_tree_state
from samples import classification, data_for, regression
from scipy.special import logsumexp

from mondrian import AMFClassifier, AMFRegressor
from mondrian._nodes import NO_NODE

LOG2 = np.log(2.0)
SETTINGS = settings(
    max_examples=120,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- brute force: the tree's prunings, node forecasters replayed from the data --------------------------------


def path_of(tree, x):
    """Root-to-leaf path of x through the tree's splits (x[feature] <= threshold goes left)."""
    a = tree.nodes
    j = tree.root
    path = [j]
    while a.left[j] != NO_NODE:
        j = int(a.left[j] if x[a.feature[j]] <= a.threshold[j] else a.right[j])
        path.append(j)
    return path


class Replay:
    """Every node's forecaster and log weight, replayed from the data: node v learns, in order, the points whose
    path through the (final) tree passes through v; its loss on each is taken before learning it."""

    def __init__(self, n_nodes, m, onehot, dirichlet):
        self.count = np.zeros(n_nodes)
        self.sums = np.zeros((n_nodes, m))
        self.log_w = np.zeros(n_nodes)
        self.onehot, self.dirichlet = onehot, dirichlet

    def forecast(self, nodes):
        """Forecasts of an array of nodes: KT/Dirichlet (n_k + a) / (n + K a), or the mean label (0 when empty)."""
        count, sums = self.count[nodes], self.sums[nodes]
        if self.onehot:
            return (sums + self.dirichlet) / (count + sums.shape[-1] * self.dirichlet)[..., None]
        return np.where(count > 0, sums[..., 0] / np.maximum(count, 1), 0.0)[..., None]

    def loss(self, nodes, y):
        pred = self.forecast(nodes)
        return -np.log(pred[..., int(y)]) if self.onehot else (pred[..., 0] - y) ** 2

    def learn(self, path, y, step):
        for v in path:
            self.log_w[v] -= step * self.loss(np.array(v), y)
            self.count[v] += 1
            self.sums[v, int(y) if self.onehot else 0] += 1.0 if self.onehot else y


def replay(tree, X, targets, onehot, m, dirichlet, step):
    r = Replay(tree.n_nodes, m, onehot, dirichlet)
    for x, y in zip(X, targets, strict=True):
        r.learn(path_of(tree, x), y, step)
    return r


def prunings(tree, v=None):
    """Every pruning of the subtree rooted at v, as (tuple of its leaves, log prior). Stopping at a node that is
    split in the full tree has prior 1/2, splitting 1/2 times the children's; a leaf of the full tree has prior 1:
    the prior is 2^-||T||, ||T|| the number of nodes of T that are not leaves of the full tree."""
    a = tree.nodes
    v = tree.root if v is None else v
    if a.left[v] == NO_NODE:
        return [((v,), 0.0)]
    out = [((v,), -LOG2)]
    for left, lp in prunings(tree, int(a.left[v])):
        for right, rp in prunings(tree, int(a.right[v])):
            out.append((left + right, -LOG2 + lp + rp))
    return out


def leaf_on_path(leaves, path):
    """The leaf of a pruning holding x, given x's path in the full tree (exactly one of its leaves is on it)."""
    found = [v for v in leaves if v in set(path)]
    assert len(found) == 1
    return found[0]


def brute_force(tree, r, x):
    """(aggregated prediction, weighted depth) at x: prunings weighted by prior * product of their leaves' w."""
    path = path_of(tree, x)
    all_prunings = prunings(tree)
    log_weight = np.array([lp + r.log_w[list(leaves)].sum() for leaves, lp in all_prunings])
    weight = np.exp(log_weight - log_weight.max())
    weight /= weight.sum()
    holding = np.array([leaf_on_path(leaves, path) for leaves, _ in all_prunings])
    depth = np.array([path.index(v) for v in holding])
    return weight @ r.forecast(holding), weight @ depth


def log_weight_tolerance(stats, log_w, n_updates):
    """Absolute error allowed on a stored log weight: the kernel rounds it to the statistics' precision (float32 for
    the classifier, float64 for the regressor) once per update, half an ulp of at most max |log w| each time."""
    eps = np.finfo(stats.dtype).eps
    return max(1e-9, n_updates * eps * max(1.0, float(np.abs(log_w).max())))


def check_node_statistics(tree, r, m, n_updates):
    """The kernel's statistics are the replayed ones; log wbar is the sum over the prunings rooted at each node.
    Returns the tolerance on the log weights (log wbar adds one rounding per level below the node: twice it)."""
    n = tree.n_nodes
    stats = tree.stats[:n]
    tol = log_weight_tolerance(stats, r.log_w, n_updates)
    np.testing.assert_array_equal(stats[:, 0], r.count)
    np.testing.assert_allclose(stats[:, 1 : 1 + m], r.sums, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(stats[:, 1 + m], r.log_w, rtol=0, atol=tol)
    for v in range(n):
        expected = logsumexp([lp + r.log_w[list(leaves)].sum() for leaves, lp in prunings(tree, v)])
        np.testing.assert_allclose(stats[v, 2 + m], expected, rtol=0, atol=2 * tol)
    return tol


def queries(tree, X, seed):
    """Training points, points on split thresholds (ties go left), random points in and around the data's range."""
    rng = np.random.default_rng(seed)
    low, high = X.min(axis=0), X.max(axis=0)
    span = np.maximum(high - low, 1.0)
    Q = [X, single(low + (rng.random((15, X.shape[1])) * 1.6 - 0.3) * span)]
    a = tree.nodes
    for v in range(tree.n_nodes):
        if a.left[v] != NO_NODE:
            q = X[rng.integers(X.shape[0])].copy()
            q[a.feature[v]] = a.threshold[v]
            Q.append(q[None])
    return np.vstack(Q)


coordinate = st.one_of(
    st.sampled_from([0.0, 1.0, -1.0, 0.5]),
    st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 6)),
)


@st.composite
def small_streams(draw, classification):
    """Up to 12 points (duplicates and ties likely), labels, and where partial_fit calls cut the stream."""
    d = draw(st.integers(1, 3))
    n = draw(st.integers(1, 12))
    X = np.array(draw(st.lists(st.lists(coordinate, min_size=d, max_size=d), min_size=n, max_size=n)))
    X = single(X.reshape(n, d))
    if classification:
        n_classes = draw(st.integers(2, 4))
        y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    else:
        n_classes = 1
        y = np.array(draw(st.lists(st.floats(-5.0, 5.0).map(lambda v: round(v, 3)), min_size=n, max_size=n)))
    cuts = sorted(draw(st.sets(st.integers(1, n), max_size=3)) | {0, n})
    return X, y, n_classes, cuts


@SETTINGS
@given(
    data=small_streams(classification=True),
    dirichlet=st.sampled_from([0.5, 0.01, 2.0]),
    step=st.sampled_from([1.0, 0.2, 3.0]),
    split_pure=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_classifier_tree_is_the_aggregation_over_all_its_prunings(data, dirichlet, step, split_pure, seed):
    X, y, n_classes, cuts = data
    # replay() charges as the text's Algorithm 4
    clf = AMFClassifier(
        n_estimators=1, step=step, dirichlet=dirichlet, split_pure=split_pure, weighting="paper", random_state=seed
    )
    for start, stop in itertools.pairwise(cuts):
        clf.partial_fit(X[start:stop], y[start:stop], classes=np.arange(n_classes))
    tree = clf.trees_[0]
    r = replay(tree, X, y, True, n_classes, dirichlet, step)
    tol = check_node_statistics(tree, r, n_classes, len(X))
    assert np.isclose(logsumexp([lp for _, lp in prunings(tree)]), 0.0)  # the prior is a probability
    Q = queries(tree, X, seed)
    expected = [brute_force(tree, r, q) for q in Q]
    proba = clf.predict_proba(Q)
    # weights w_i / sum_j w_j with every log weight within 2 tol: each ratio within a factor exp(4 tol)
    np.testing.assert_allclose(proba, np.array([e[0] for e in expected]), rtol=5 * tol, atol=1e-12)
    np.testing.assert_allclose(clf.weighted_depth(Q), [e[1] for e in expected], rtol=5 * tol, atol=5 * tol)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    # At the training points (inside every range on their path) the text's prediction is the routed one.
    np.testing.assert_allclose(clf.set_params(prediction="split").predict_proba(X), proba[: len(X)], rtol=1e-12)


@SETTINGS
@given(
    data=small_streams(classification=False),
    step=st.sampled_from([1.0, 0.05, 3.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_regressor_tree_is_the_aggregation_over_all_its_prunings(data, step, seed):
    X, y, _, cuts = data
    reg = AMFRegressor(n_estimators=1, step=step, random_state=seed)
    for start, stop in itertools.pairwise(cuts):
        reg.partial_fit(X[start:stop], y[start:stop])
    tree = reg.trees_[0]
    r = replay(tree, X, y, False, 1, 0.0, step)
    tol = check_node_statistics(tree, r, 1, len(X))
    Q = queries(tree, X, seed)
    expected = [brute_force(tree, r, q) for q in Q]
    pred = reg.predict(Q)
    np.testing.assert_allclose(pred, [e[0][0] for e in expected], rtol=5 * tol, atol=5 * tol)
    np.testing.assert_allclose(reg.weighted_depth(Q), [e[1] for e in expected], rtol=5 * tol, atol=5 * tol)
    np.testing.assert_allclose(reg.set_params(prediction="split").predict(X), pred[: len(X)], rtol=1e-12)


# -- Lemma 1: regret against every pruning of a fixed partition --------------------------------------------------


class FixedPartition:
    """Prunings of one tree whose structure no longer changes, each with its own cumulative loss."""

    def __init__(self, tree, r, X):
        self.tree, self.r = tree, r
        all_prunings = prunings(tree)
        self.log_prior = np.array([lp for _, lp in all_prunings])
        self.size = np.array([2 * len(leaves) - 1 for leaves, _ in all_prunings])  # |T|, nodes of T
        self.paths = [path_of(tree, x) for x in X]
        # cover[p, i]: the leaf of pruning p holding the point X[i]
        self.cover = np.array([[leaf_on_path(leaves, path) for path in self.paths] for leaves, _ in all_prunings])
        self.loss = np.zeros(len(all_prunings))

    def observe(self, i, y, step):
        self.loss += self.r.loss(self.cover[:, i], y)
        self.r.learn(self.paths[i], y, step)


def build_fixed_partitions(task, n_estimators, n_points, seed, **params):
    """A forest grown on n_points distinct points whose node weights are still the prior (as in Lemma 1, where the
    partition is fixed before the sequence starts): classification trees are grown with a negligible step, regression
    trees on zero labels (every node forecaster predicts 0 and loses nothing). Points repeated exactly never change
    the structure afterwards (they lie in every range on their path). The node forecasters keep the labels seen while
    growing: the exponential-weights bound (the paper's Lemma 4) holds whatever the experts predict."""
    rng = np.random.default_rng(seed)
    X = rng.random((n_points, 2))
    if task == "classification":
        n_classes = 3
        y = rng.integers(0, n_classes, n_points)
        # Lemma 1 is the regret of the text's weights (Algorithm 4)
        model = AMFClassifier(n_estimators=n_estimators, step=1e-300, weighting="paper", random_state=seed, **params)
        model.partial_fit(X, y, classes=np.arange(n_classes))
        onehot, m = True, n_classes
    else:
        y = np.zeros(n_points)
        model = AMFRegressor(n_estimators=n_estimators, random_state=seed, **params).partial_fit(X, y)
        onehot, m = False, 1
    partitions = []
    for tree in model.trees_:
        r = replay(tree, X, y, onehot, m, params.get("dirichlet", 0.5), 1e-300)
        stats = tree.stats[: tree.n_nodes]
        # weights at the prior, up to the rounding of log 2 in float32 statistics
        assert np.all(np.abs(stats[:, 1 + m :]) <= log_weight_tolerance(stats, 0.0, n_points))
        assert np.all(np.abs(r.log_w) < 1e-280)
        partitions.append(FixedPartition(tree, r, X))
    return model, X, partitions


def next_point(scenario, t, rng, model, X, leaf_label, task, bound):
    """(index of the repeated point, label) for step t of a label sequence."""
    n = X.shape[0]
    i = int(rng.integers(n))
    if task == "classification":
        if scenario == "random":
            return i, int(rng.integers(3))
        if scenario == "leaf":  # a label per point: the full tree is the best pruning
            return i, int(leaf_label[i])
        if scenario == "constant":  # the root is the best pruning
            return i, 0
        if scenario == "switching":
            return i, (t // 25) % 3
        proba = model.predict_proba(X)  # adversarial: the least likely (point, label) for AMF
        i, k = np.unravel_index(np.argmin(proba), proba.shape)
        return int(i), int(k)
    if scenario == "random":
        return i, float(rng.uniform(-bound, bound))
    if scenario == "leaf":
        return i, float(leaf_label[i])
    if scenario == "constant":
        return i, bound
    if scenario == "switching":
        return i, bound * (-1.0) ** (t // 25)
    pred = model.predict(X)  # adversarial: the label at -sign(prediction) farthest from AMF's prediction
    i = int(np.argmax(np.abs(pred)))
    return i, -bound if pred[i] > 0 else bound


SCENARIOS = ["random", "leaf", "constant", "switching", "adversarial"]


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize(
    ("task", "n_estimators", "eta_or_bound", "params"),
    [
        ("classification", 1, 1.0, {}),
        ("classification", 1, 0.4, {"split_pure": True, "dirichlet": 0.1}),
        ("classification", 3, 1.0, {"split_pure": True}),
        ("regression", 1, 1.0, {}),
        ("regression", 3, 2.5, {}),
    ],
)
def test_regret_against_every_pruning_of_a_fixed_partition(scenario, task, n_estimators, eta_or_bound, params):
    """Lemma 1 (log loss, 1-exp-concave: step eta <= 1; square loss on [-B, B] with the paper's step 1/(8 B^2)):
    sum_t loss(AMF_t) - sum_t loss(T_t) <= ||T|| log 2 / step <= |T| log 2 / step for every pruning T, with ||T|| the
    number of nodes of T that are not leaves of the tree (the tree's prior 2^-||T||, eq. (21)) and |T| its number of
    nodes (the paper's constant). For a forest, by convexity of the loss: loss(forest) <= mean over trees of
    min_T (loss(T) + ||T|| log 2 / step). With step 1 the log loss of AMF is the Bayesian mixture's exactly."""
    n_steps = 200
    seed = SCENARIOS.index(scenario) + 10 * n_estimators
    model, X, partitions = build_fixed_partitions(task, n_estimators, 10, seed, **params)
    classification = task == "classification"
    step = eta_or_bound if classification else 1.0 / (8.0 * eta_or_bound**2)
    bound = None if classification else eta_or_bound
    model.set_params(step=step)
    before = [used_tree_state(t) for t in model.trees_]
    rng = np.random.default_rng(seed)
    leaf_label = rng.integers(0, 3, X.shape[0]) if classification else bound * rng.choice([-1.0, 1.0], X.shape[0])
    amf_loss = 0.0
    for t in range(n_steps):
        i, y = next_point(scenario, t, rng, model, X, leaf_label, task, bound)
        if classification:
            amf_loss -= np.log(model.predict_proba(X[i : i + 1])[0, y])
        else:
            amf_loss += (model.predict(X[i : i + 1])[0] - y) ** 2
        model.partial_fit(X[i : i + 1], [y])
        for p in partitions:
            p.observe(i, y, step)
    for tree, state in zip(model.trees_, before, strict=True):  # the partition stayed fixed
        assert_equal_nested(used_tree_state(tree)[:2], state[:2])
        assert tree.rng.bit_generator.state == state[4]
    penalty = [-p.log_prior / step for p in partitions]  # ||T|| log 2 / step
    assert all(np.all(pen <= p.size * LOG2 / step + 1e-12) for pen, p in zip(penalty, partitions, strict=True))
    # the log weights are rounded to the statistics' precision once per step (float32 for the classifier)
    rtol = max(1e-9, n_steps * np.finfo(model.trees_[0].stats.dtype).eps)
    tol = rtol * max(1.0, amf_loss)
    best = np.mean([np.min(p.loss + pen) for p, pen in zip(partitions, penalty, strict=True)])
    assert amf_loss <= best + tol
    if n_estimators == 1:
        (p,) = partitions
        regret = amf_loss - p.loss
        assert np.all(regret <= penalty[0] + tol), np.max(regret - penalty[0])
        assert np.all(regret <= p.size * LOG2 / step + tol)
        if classification and step == 1.0:
            np.testing.assert_allclose(amf_loss, -logsumexp(p.log_prior - p.loss), rtol=rtol)
            # ... and the bound is nearly attained by the pruning the sequence favours
            if scenario in ("leaf", "constant"):
                assert np.max(regret - penalty[0]) > -0.2
    # The text's prediction (Algorithm 6) coincides with the routed one at points already seen.
    method = "predict_proba" if classification else "predict"
    routed = getattr(model, method)(X)
    np.testing.assert_allclose(getattr(model.set_params(prediction="split"), method)(X), routed, rtol=1e-12)


def make(Model, **params):
    """Model(**params), with dirichlet=0.3 for the classifier."""
    return Model(dirichlet=0.3, **params) if Model is AMFClassifier else Model(**params)


def prediction_of(model, X):
    return model.predict_proba(X) if isinstance(model, AMFClassifier) else model.predict(X)


# -- numerical stability ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_million_updates_stay_finite():
    """10^6 noisy points on a 64 x 64 grid (root weights far below exp(-10^4)), two trees per forest."""
    rng = np.random.default_rng(0)
    n = 10**6
    X = np.floor(rng.random((n, 2)) * 64) / 64
    y = np.where(rng.random(n) < 0.05, 2, (X[:, 0] + 0.2 * rng.standard_normal(n) > 0.5).astype(int))
    Q = rng.random((500, 2)) * 1.4 - 0.2
    clf = AMFClassifier(n_estimators=2, random_state=0, n_jobs=2)
    out = clf.progressive_predict_proba(X, y)
    assert np.all(np.isfinite(out)) and np.all(out > 0) and np.all(out <= 1)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=0, atol=1e-9)
    log_loss = -np.mean(np.log(out[np.arange(n), y]))
    assert log_loss < 0.95 * np.log(3)
    proba = clf.predict_proba(Q)
    assert np.all(np.isfinite(proba)) and np.all(proba > 0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9)
    assert np.all(np.isfinite(clf.weighted_depth(Q)))
    reg = AMFRegressor(n_estimators=2, random_state=0, n_jobs=2)
    target = 100.0 * X[:, 0] + 30.0 * rng.standard_normal(n)
    pred = reg.progressive_predict(X, target)
    assert np.all(np.isfinite(pred)) and np.all(np.isfinite(reg.predict(Q)))
    assert np.all(np.isfinite(reg.weighted_depth(Q)))
    for model, m in ((clf, 3), (reg, 1)):
        for tree in model.trees_:
            stats = tree.stats[: tree.n_nodes]
            assert np.all(np.isfinite(stats))
            log_w, log_wbar = stats[:, 1 + m], stats[:, 2 + m]
            ulp = np.finfo(stats.dtype).eps * np.abs(log_w)  # float32 statistics in the classifier
            assert np.all(log_w <= 0) and np.all(log_wbar <= 0) and np.all(log_wbar >= log_w - LOG2 - ulp - 1e-9)
            assert log_w[tree.root] < -1e4  # the weights went far below what plain floats can hold


@pytest.mark.parametrize("step", [1e30, 1e200, 1e308])
@pytest.mark.parametrize("prediction", ["route", "split"])
def test_extreme_steps_stay_finite(step, prediction):
    """A huge step drives log weights to -inf after one loss: predictions stay distributions (and finite means)."""
    rng = np.random.default_rng(12)
    X = rng.random((300, 3))
    Q = rng.random((50, 3)) * 1.4 - 0.2
    clf = AMFClassifier(n_estimators=2, step=step, prediction=prediction, random_state=0)
    out = clf.progressive_predict_proba(X, (X[:, 0] > 0.5).astype(int))
    for proba in (out, clf.predict_proba(Q)):
        assert np.all(np.isfinite(proba)) and np.all(proba >= 0)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    reg = AMFRegressor(n_estimators=2, step=step, prediction=prediction, random_state=0)
    assert np.all(np.isfinite(reg.progressive_predict(X, X[:, 0])))
    for model in (clf, reg):
        assert np.all(np.isfinite(prediction_of(model, Q))) and np.all(np.isfinite(model.weighted_depth(Q)))


# -- estimator API ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("Model", AMF_MODELS)
def test_same_seed_same_model_for_any_n_jobs(Model):
    X, y = data_for(Model)
    Q = np.random.default_rng(9).random((50, X.shape[1])) * 1.4 - 0.2
    results = {}
    for n_jobs in (1, 2, -1):
        fitted = Model(n_estimators=6, random_state=3, n_jobs=n_jobs).fit(X, y)
        progressive = Model(n_estimators=6, random_state=3, n_jobs=n_jobs)
        if Model is AMFClassifier:
            out = progressive.progressive_predict_proba(X, y)
        else:
            out = progressive.progressive_predict(X, y)
        preds = [prediction_of(m, Q) for m in (fitted, progressive)]
        depths = [m.weighted_depth(Q) for m in (fitted, progressive)]
        results[n_jobs] = (fitted, progressive, out, preds, depths)
    ref = results[1]
    for n_jobs in (2, -1):
        other = results[n_jobs]
        same_trees(ref[0], other[0])
        same_trees(ref[1], other[1])
        np.testing.assert_array_equal(ref[2], other[2])
        for a, b in zip(ref[3] + ref[4], other[3] + other[4], strict=True):
            np.testing.assert_array_equal(a, b)
    other_seed = Model(n_estimators=6, random_state=4).fit(X, y)
    assert not np.array_equal(prediction_of(other_seed, Q), ref[3][0])


@pytest.mark.parametrize("Model", AMF_MODELS)
def test_fit_is_partial_fit_of_the_same_rows(Model):
    X, y = data_for(Model, n=200, seed=1)
    fitted = Model(n_estimators=4, random_state=7).fit(X, y)
    extra = {"classes": np.unique(y)} if Model is AMFClassifier else {}
    one_call = Model(n_estimators=4, random_state=7).partial_fit(X, y, **extra)
    chunks = Model(n_estimators=4, random_state=7)
    for start, stop in [(0, 1), (1, 2), (2, 50), (50, 51), (51, 200)]:
        chunks.partial_fit(X[start:stop], y[start:stop], **extra)
    same_trees(fitted, one_call)
    same_trees(fitted, chunks)
    refit = Model(n_estimators=4, random_state=7).fit(X[:50] + 1, y[:50]).fit(X, y)  # fit starts afresh
    same_trees(fitted, refit)


@pytest.mark.parametrize("prediction", ["route", "split"])
def test_progressive_predict_proba_is_predict_proba_then_partial_fit(prediction):
    X, y = classification(n=120, n_classes=4, seed=2)
    classes = np.unique(y)
    model = AMFClassifier(n_estimators=4, prediction=prediction, random_state=11, n_jobs=2)
    out = model.progressive_predict_proba(X, y)
    reference = AMFClassifier(n_estimators=4, prediction=prediction, random_state=11)
    expected = np.empty_like(out)
    for i in range(X.shape[0]):
        expected[i] = 1.0 / len(classes) if i == 0 else reference.predict_proba(X[i : i + 1])[0]
        reference.partial_fit(X[i : i + 1], y[i : i + 1], classes=classes)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=0)
    same_trees(model, reference)
    X2, y2 = classification(n=40, n_classes=4, seed=3)  # continuing a fitted model
    out2 = model.progressive_predict_proba(X2, y2)
    for i in range(X2.shape[0]):
        np.testing.assert_allclose(out2[i], reference.predict_proba(X2[i : i + 1])[0], rtol=1e-12, atol=0)
        reference.partial_fit(X2[i : i + 1], y2[i : i + 1])
    same_trees(model, reference)


@pytest.mark.parametrize("prediction", ["route", "split"])
def test_progressive_predict_is_predict_then_partial_fit(prediction):
    X, y = regression(n=100, seed=4)
    model = AMFRegressor(n_estimators=3, prediction=prediction, random_state=5)
    out = model.progressive_predict(X, y)
    reference = AMFRegressor(n_estimators=3, prediction=prediction, random_state=5)
    expected = np.empty_like(out)
    for i in range(X.shape[0]):
        expected[i] = 0.0 if i == 0 else reference.predict(X[i : i + 1])[0]
        reference.partial_fit(X[i : i + 1], y[i : i + 1])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    same_trees(model, reference)


@pytest.mark.parametrize("Model", AMF_MODELS)
def test_predicting_does_not_change_the_model(Model):
    X, y = data_for(Model, n=150, seed=5)
    model = Model(n_estimators=3, random_state=1).fit(X, y)
    Q = np.random.default_rng(0).random((60, X.shape[1])) * 3 - 1  # many points outside every range
    before = model_state(model)
    first = prediction_of(model, Q)
    for prediction in ("route", "split", "route"):
        model.set_params(prediction=prediction)
        prediction_of(model, Q)
        model.predict(Q)
        model.weighted_depth(Q)
        model.score(X, y)
    model.set_params(prediction="route")
    assert_equal_nested(model_state(model), before)
    np.testing.assert_array_equal(prediction_of(model, Q), first)


@pytest.mark.parametrize("Model", AMF_MODELS)
def test_pickle_round_trip_mid_stream_then_identical_training(Model):
    X, y = data_for(Model, n=200, seed=6)
    Q = np.random.default_rng(1).random((40, X.shape[1])) * 2 - 0.5
    model = Model(n_estimators=4, random_state=2, n_jobs=2)
    model.partial_fit(X[:100], y[:100], **({"classes": np.unique(y)} if Model is AMFClassifier else {}))
    clone = pickle.loads(pickle.dumps(model))
    assert clone.get_params() == model.get_params()
    same_trees(model, clone)
    np.testing.assert_array_equal(prediction_of(clone, Q), prediction_of(model, Q))
    for m in (model, clone):
        m.partial_fit(X[100:150], y[100:150])
        if Model is AMFClassifier:
            m.progressive_predict_proba(X[150:], y[150:])
        else:
            m.progressive_predict(X[150:], y[150:])
    same_trees(model, clone)
    np.testing.assert_array_equal(prediction_of(clone, Q), prediction_of(model, Q))
    np.testing.assert_array_equal(clone.weighted_depth(Q), model.weighted_depth(Q))


def test_predict_proba_is_a_distribution():
    X, y = classification(n=300, n_classes=5, seed=7)
    Q = np.random.default_rng(2).random((200, 3)) * 4 - 2
    for params in ({}, {"dirichlet": 1e-3}, {"step": 20.0}, {"use_aggregation": False}, {"prediction": "split"}):
        clf = AMFClassifier(n_estimators=3, random_state=0, **params).fit(X, y)
        proba = clf.predict_proba(Q)
        assert np.all(proba > 0) and np.all(proba < 1)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(clf.predict(Q), clf.classes_[np.argmax(proba, axis=1)])


@pytest.mark.parametrize("Model", AMF_MODELS)
def test_without_aggregation_the_leaf_forecaster_predicts(Model):
    """use_aggregation=False: the forecaster of the leaf holding x, from the training points routed to that leaf."""
    X, y = data_for(Model, n=200, seed=8)
    Q = np.vstack([X[:30], np.random.default_rng(3).random((40, X.shape[1])) * 2 - 0.5])
    model = make(Model, n_estimators=3, use_aggregation=False, random_state=4).fit(X, y)
    expected = 0.0
    for tree in model.trees_:
        train_leaf, query_leaf = tree.apply(X), tree.apply(Q)
        if Model is AMFClassifier:
            counts = np.array([np.bincount(y[train_leaf == v], minlength=3) for v in query_leaf])
            expected = expected + (counts + 0.3) / (counts.sum(axis=1, keepdims=True) + 3 * 0.3)
        else:
            expected = expected + np.array([y[train_leaf == v].mean() for v in query_leaf])
    expected = expected / 3
    np.testing.assert_allclose(prediction_of(model, Q), expected, rtol=1e-12, atol=1e-12)
    # The weights are kept either way: switching aggregation on gives the model that always had it.
    aggregated = make(Model, n_estimators=3, random_state=4).fit(X, y)
    same_trees(model, aggregated)
    np.testing.assert_array_equal(
        prediction_of(model.set_params(use_aggregation=True), Q), prediction_of(aggregated, Q)
    )
    assert not np.allclose(prediction_of(aggregated, Q), expected)


def test_split_pure_false_grows_a_pure_leaf_and_true_splits_it():
    pure = AMFClassifier(n_estimators=1, split_pure=False, random_state=0)
    pure.partial_fit([[0.0, 0.0]], [0], classes=[0, 1])
    pure.partial_fit([[1.0, 2.0], [0.5, -1.0]], [0, 0])
    tree = pure.trees_[0]
    assert tree.n_nodes == 1  # the pure leaf's range grew to the new points
    np.testing.assert_array_equal(tree.nodes.box_lower[0], [0.0, -1.0])
    np.testing.assert_array_equal(tree.nodes.box_upper[0], [1.0, 2.0])
    np.testing.assert_array_equal(tree.stats[0, :3], [3, 3, 0])
    pure.partial_fit([[3.0, 3.0]], [1])  # another label outside the range: split
    assert pure.trees_[0].n_nodes == 3
    pure.partial_fit([[0.2, 0.2]], [1])  # inside the (now impure) leaf's range: nothing to split on
    assert pure.trees_[0].n_nodes == 3
    split = AMFClassifier(n_estimators=1, split_pure=True, random_state=0)
    split.partial_fit([[0.0, 0.0]], [0], classes=[0, 1])
    split.partial_fit([[1.0, 2.0], [0.5, -1.0]], [0, 0])
    assert split.trees_[0].n_nodes == 5  # every distinct point in a leaf of its own
    leaves = split.trees_[0].leaves()
    a = split.trees_[0].nodes
    np.testing.assert_array_equal(a.box_lower[leaves], a.box_upper[leaves])
    # One class only: the whole stream stays in the root with split_pure=False.
    X = np.random.default_rng(0).random((100, 2))
    assert AMFClassifier(n_estimators=2, random_state=0).fit(X, np.zeros(100)).trees_[0].n_nodes == 1
    assert AMFClassifier(n_estimators=2, split_pure=True, random_state=0).fit(X, np.zeros(100)).trees_[0].n_nodes == 199
    # The regressor always splits.
    assert AMFRegressor(n_estimators=1, random_state=0).fit(X, np.zeros(100)).trees_[0].n_nodes == 199


@pytest.mark.parametrize("Model", AMF_MODELS)
def test_duplicates_and_constant_features(Model):
    rng = np.random.default_rng(9)
    same = np.tile([[0.3, -2.0, 5.0]], (50, 1))
    labels = rng.integers(0, 3, 50) if Model is AMFClassifier else rng.standard_normal(50)
    model = Model(n_estimators=3, random_state=0).fit(same, labels)
    assert all(t.n_nodes == 1 for t in model.trees_)  # a repeated point never splits
    Q = np.array([[0.3, -2.0, 5.0], [10.0, 10.0, 10.0], [-1.0, 0.0, 0.0]])
    if Model is AMFClassifier:
        counts = np.bincount(labels, minlength=3)
        np.testing.assert_allclose(model.predict_proba(Q), np.tile((counts + 0.5) / (50 + 1.5), (3, 1)), rtol=1e-12)
    else:
        np.testing.assert_allclose(model.predict(Q), labels.mean(), rtol=1e-12)
    np.testing.assert_array_equal(model.weighted_depth(Q), 0.0)
    # Constant columns are never split on; duplicated rows do not crash anything.
    X = np.column_stack([np.full(300, 7.0), rng.random(300), np.full(300, -1.0), rng.integers(0, 3, 300)])
    X = np.vstack([X, X[:100]])
    y = rng.integers(0, 2, 400) if Model is AMFClassifier else rng.standard_normal(400)
    for prediction in ("route", "split"):
        model = Model(n_estimators=3, prediction=prediction, random_state=1).fit(X, y)
        for tree in model.trees_:
            a = tree.arrays()
            internal = a["left"] != NO_NODE
            assert not np.isin(a["feature"][internal], [0, 2]).any()
        pred = prediction_of(model, np.vstack([X[:20], X[:20] + 0.5]))
        assert np.all(np.isfinite(pred))
        if Model is AMFClassifier:
            out = model.progressive_predict_proba(X, y)
        else:
            out = model.progressive_predict(X, y)
        assert np.all(np.isfinite(out))
    one = Model(n_estimators=2, random_state=0).fit(X[:1], y[:1])
    assert np.all(np.isfinite(prediction_of(one, X[:5])))


@pytest.mark.parametrize("Model", AMF_MODELS)
def test_adjacent_single_precision_values_are_still_separated(Model):
    """X is taken in single precision and so are the thresholds: between two neighbouring float32 values the only
    threshold is the lower one, and a split there must still send each point to its own leaf."""
    low = np.float32(0.1)
    X = np.array([[low], [np.nextafter(low, np.float32(1.0))], [low]], dtype=np.float64)
    y = np.array([0, 1, 0])
    for seed in range(20):
        model = Model(n_estimators=1, random_state=seed).fit(X, y)
        tree = model.trees_[0]
        leaves = tree.apply(X)
        assert leaves[0] == leaves[2] != leaves[1]
        assert tree.nodes.threshold[tree.root] == low
        np.testing.assert_array_equal(tree.nodes.box_lower[leaves, 0], X[:, 0])


# -- parameter validation ---------------------------------------------------------------------------------------


def bad_parameters(Model):
    bad = [
        ({"n_estimators": 0}, "n_estimators"),
        ({"n_estimators": 1.5}, "n_estimators"),
        ({"step": 0}, "step"),
        ({"step": -1.0}, "step"),
        ({"step": np.nan}, "step"),
        ({"step": "1"}, "step"),
        ({"step": True}, "step"),
        ({"step": None}, "step"),
        ({"use_aggregation": 1}, "use_aggregation"),
        ({"use_aggregation": "yes"}, "use_aggregation"),
        ({"use_aggregation": None}, "use_aggregation"),
        ({"prediction": "temporary"}, "prediction"),
        ({"prediction": None}, "prediction"),
        ({"random_state": -1}, "random_state"),
    ]
    if Model is AMFClassifier:
        bad += [
            ({"dirichlet": 0.0}, "dirichlet"),
            ({"dirichlet": -0.5}, "dirichlet"),
            ({"dirichlet": np.nan}, "dirichlet"),
            ({"dirichlet": True}, "dirichlet"),
            ({"dirichlet": "0.5"}, "dirichlet"),
            ({"split_pure": 0}, "split_pure"),
            ({"split_pure": "no"}, "split_pure"),
        ]
    return bad


@pytest.mark.parametrize("Model", AMF_MODELS)
def test_bad_parameters_raise_and_leave_the_model_unchanged(Model):
    X, y = data_for(Model, n=40, seed=10)
    Q = np.random.default_rng(5).random((20, X.shape[1]))
    for params, message in bad_parameters(Model):
        with pytest.raises(ValueError, match=message):
            Model(**params).fit(X, y)
        with pytest.raises(ValueError, match=message):
            Model(**params).partial_fit(X, y, **({"classes": np.unique(y)} if Model is AMFClassifier else {}))
        model = Model(n_estimators=3, random_state=0).fit(X, y)
        before, predictions = model_state(model), prediction_of(model, Q)
        good = model.get_params()
        calls = [lambda m: m.fit(X, y)]
        if "random_state" not in params:  # the seed is only read when the trees are created
            calls.append(lambda m: m.partial_fit(X, y))
        for call in calls:
            with pytest.raises(ValueError, match=message):
                call(model.set_params(**params))
            model.set_params(**good)
            assert_equal_nested(model_state(model), before, path=str(params))
            np.testing.assert_array_equal(prediction_of(model, Q), predictions)
    with pytest.raises(ValueError, match="call fit"):  # partial_fit extends the trees it started with
        Model(n_estimators=3, random_state=0).fit(X, y).set_params(n_estimators=4).partial_fit(X, y)
    if Model is AMFRegressor:
        with pytest.raises(TypeError):
            AMFRegressor(dirichlet=0.5)


@pytest.mark.parametrize("Model", AMF_MODELS)
def test_plain_arrays_skip_validate_data_but_not_its_checks(Model):
    """Numeric ndarrays on a fitted model take a short validation path (one-sample calls): same results as other
    inputs, and every bad input still raises scikit-learn's error, leaving the model unchanged."""
    X, y = data_for(Model, n=60, seed=11)
    plain = Model(n_estimators=3, random_state=0).fit(X[:30], y[:30])
    listed = Model(n_estimators=3, random_state=0).fit(X[:30], y[:30])
    for i in range(30, 60):
        plain.partial_fit(X[i : i + 1], y[i : i + 1])
        listed.partial_fit(X[i : i + 1].tolist(), y[i : i + 1].tolist())
    Q = np.random.default_rng(6).random((10, X.shape[1]))
    np.testing.assert_array_equal(prediction_of(plain, Q), prediction_of(listed, Q.tolist()))
    before, predictions = model_state(plain), prediction_of(plain, Q)
    nan_row, inf_row = X[:1].copy(), X[:1].copy()
    nan_row[0, 0], inf_row[0, 0] = np.nan, np.inf
    bad_calls = [
        (lambda m: m.partial_fit(X[:1, :-1], y[:1]), "features"),
        (lambda m: m.partial_fit(nan_row, y[:1]), "NaN"),
        (lambda m: m.partial_fit(inf_row, y[:1]), "infinity"),
        (lambda m: m.partial_fit(X[:2], y[:1]), "inconsistent numbers of samples"),
        (lambda m: prediction_of(m, inf_row), "infinity"),
        (lambda m: prediction_of(m, np.full((1, X.shape[1]), 1e300)), "too large"),
    ]
    if Model is AMFClassifier:
        bad_calls.append((lambda m: m.partial_fit(X[:1], np.array([0.5])), "Unknown label type"))
    else:
        bad_calls.append((lambda m: m.partial_fit(X[:1], np.array([np.nan])), "NaN"))
    for call, message in bad_calls:
        with pytest.raises(ValueError, match=message):
            call(plain)
        assert_equal_nested(model_state(plain), before, path=message)
    np.testing.assert_array_equal(prediction_of(plain, Q), predictions)


@pytest.mark.parametrize(
    ("Model", "params"),
    [
        (AMFClassifier, {"step": np.inf}),
        (AMFClassifier, {"dirichlet": np.inf}),
        (AMFRegressor, {"step": np.inf}),
    ],
)
def test_non_finite_step_or_dirichlet_is_refused(Model, params):
    X, y = data_for(Model, n=20, seed=11)
    with pytest.raises(ValueError):
        Model(**params).fit(X, y)


def test_hyperparameters_can_change_between_partial_fit_calls():
    """step, dirichlet, use_aggregation, prediction and n_jobs are read at each call; the trees stay."""
    X, y = classification(n=100, seed=12)
    a = AMFClassifier(n_estimators=2, random_state=3).partial_fit(X[:50], y[:50], classes=np.unique(y))
    a.set_params(step=0.5, dirichlet=0.1, n_jobs=2).partial_fit(X[50:], y[50:])
    b = AMFClassifier(n_estimators=2, random_state=3).partial_fit(X[:50], y[:50], classes=np.unique(y))
    b.set_params(step=0.5, dirichlet=0.1).partial_fit(X[50:], y[50:])
    same_trees(a, b)
    c = AMFClassifier(n_estimators=2, random_state=3).fit(X, y)
    assert not np.array_equal(a.trees_[0].stats[: a.trees_[0].n_nodes], c.trees_[0].stats[: c.trees_[0].n_nodes])


def test_string_labels_and_a_single_class():
    X, y = classification(n=120, seed=13)
    names = np.array(["cat", "dog", "emu"])
    clf = AMFClassifier(n_estimators=3, random_state=0).fit(X, names[y])
    np.testing.assert_array_equal(clf.classes_, names)
    reference = AMFClassifier(n_estimators=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(X), reference.predict_proba(X))
    np.testing.assert_array_equal(clf.predict(X), names[reference.predict(X)])
    one = AMFClassifier(n_estimators=2, random_state=0).fit(X, ["only"] * 120)
    np.testing.assert_array_equal(one.predict_proba(X[:5] * 3), np.ones((5, 1)))
    np.testing.assert_array_equal(one.predict(X[:5]), ["only"] * 5)


def test_onelearn_weighting_spares_new_leaves_and_counts_the_point_first():
    """weighting="onelearn" (the default) reproduces onelearn 0.3's rules; "paper" charges every node (Algorithm 4)."""
    x = np.array([[0.2, 0.4]])
    X, y = np.repeat(x, 3, axis=0), np.array([1, 0, 1])  # duplicates: one leaf, never split
    lw = 1 + 3  # three classes: log w is column 4
    a = 0.5
    paper = AMFClassifier(n_estimators=1, weighting="paper", random_state=0).partial_fit(X, y, classes=[0, 1, 2])
    onelearn = AMFClassifier(n_estimators=1, random_state=0).partial_fit(X, y, classes=[0, 1, 2])
    # paper: -[log((0+a)/(0+3a)) + log((0+a)/(1+3a)) + log((1+a)/(2+3a))]
    expected_paper = np.log(1 / 3) + np.log(a / (1 + 3 * a)) + np.log((1 + a) / (2 + 3 * a))
    # onelearn: the creating point is free; then -log((n_y + a)/(n + 1 + K a)) with n = 1, 2
    expected_onelearn = np.log(a / (2 + 3 * a)) + np.log((1 + a) / (3 + 3 * a))
    assert paper.trees_[0].stats[0, lw] == pytest.approx(expected_paper)
    assert onelearn.trees_[0].stats[0, lw] == pytest.approx(expected_onelearn)
    rng = np.random.default_rng(0)
    Z, labels = rng.uniform(size=(200, 2)), rng.integers(0, 2, 200)
    model = AMFClassifier(n_estimators=2, weighting="onelearn", split_pure=True, random_state=1).fit(Z, labels)
    for tree in model.trees_:
        single = (tree.stats[: tree.n_nodes, 0] == 1) & (tree.nodes.left[: tree.n_nodes] == -1)
        np.testing.assert_array_equal(tree.stats[: tree.n_nodes, 1 + 2][single], 0.0)  # never charged
    with pytest.raises(ValueError, match="weighting"):
        AMFClassifier(weighting="river").fit(Z, labels)
