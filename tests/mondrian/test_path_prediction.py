"""MondrianForestRegressor's ``prediction="path"``: scikit-garden's rule on the library's own trees.

A tree predicts at x with the mean labels of the nodes on x's path (a node's mean over all the points below it), node
j weighed by P(x not separated above j) * (1 - exp(-eta_j Delta_j)), the leaf taking the weight left. Checked against a
brute-force Python computation on the trees' arrays (internal nodes' statistics are not their subtrees' sums: the
leaf mean never reads them), for fixed, infinite and increasing lifetimes, trees learnt in batch and online, points
inside and outside the data's range; the leaf mean inside a leaf's range; ``"leaf"`` unchanged bit for bit (the
trees are the same whatever the rule); determinism whatever the batching, ``n_jobs``, or progressive validation.
"""

import copy
import pickle

import numpy as np
import pytest
from model_state import same_trees
from samples import regression
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from mondrian import MondrianForestRegressor
from mondrian.forest import _path_mean


def queries(n=200, d=3, seed=9):
    """Points inside and outside the unit cube the data fill (a third outside on some side)."""
    return np.random.default_rng(seed).uniform(-0.3, 1.3, size=(n, d))


def subtree_means(tree):
    """The mean label of the points below every node, from its leaves' statistics (by the nodes' parent links)."""
    arrays, n = tree.arrays(), tree.n_nodes
    leaf = tree.is_leaf()
    count, total = np.zeros(n), np.zeros(n)
    for j in np.flatnonzero(leaf & (tree.depths() >= 0)):
        node = j
        while node != -1:
            count[node] += tree.stats[j, 0]
            total[node] += tree.stats[j, 1]
            node = arrays["parent"][node]
    return total / np.where(count > 0, count, np.nan)


def brute_force(tree, x):
    """scikit-garden's MondrianTreeRegressor.predict at x on this tree, written out node by node from the root."""
    a = tree.arrays()
    means = subtree_means(tree)
    leaf = tree.is_leaf()
    j, tau_parent, not_separated, prediction = tree.root, 0.0, 1.0, 0.0
    while True:
        if leaf[j]:
            return prediction + not_separated * means[j]  # the leaf takes the weight left
        eta = np.sum(np.maximum(a["box_lower"][j] - x, 0.0) + np.maximum(x - a["box_upper"][j], 0.0))
        p = 1.0 - np.exp(-(a["split_time"][j] - tau_parent) * eta)
        prediction += not_separated * p * means[j]
        not_separated *= 1.0 - p
        tau_parent = a["split_time"][j]
        j = a["left"][j] if x[a["feature"][j]] <= a["threshold"][j] else a["right"][j]


def brute_force_forest(model, X):
    return np.array([np.mean([brute_force(tree, x) for tree in model.trees_]) for x in X])


def leaf_means(model, X):
    """The leaf rule in Python, trees summed in order then divided: the forest's floats exactly."""
    out = np.zeros(X.shape[0])
    for tree in model.trees_:
        leaves = tree.apply(X)
        out += tree.stats[leaves, 1] / tree.stats[leaves, 0]
    return out / len(model.trees_)


def online(model, X, y, batches=((0, 1), (1, 50), (50, 51), (51, None))):
    for start, stop in batches:
        model.partial_fit(X[start:stop], y[start:stop])
    return model


SETTINGS = {
    "inf-batch": (dict(lifetime=np.inf), "fit"),
    "inf-online": (dict(lifetime=np.inf), "online"),
    "finite-batch": (dict(lifetime=3.0), "fit"),
    "finite-online": (dict(lifetime=3.0), "online"),
    "increasing-online": (dict(lifetime="increasing", lifetime_scale=2.0, min_samples_split=4), "online"),
}


def grown(name, prediction="path", n=200, seed=0, **extra):
    params, how = SETTINGS[name]
    X, y = regression(n=n, seed=seed)
    model = MondrianForestRegressor(n_estimators=4, random_state=seed, prediction=prediction, **params, **extra)
    return model.fit(X, y) if how == "fit" else online(model, X, y), X, y


# -- (a) the rule, against a brute-force computation ----------------------------------------------------------------


@pytest.mark.parametrize("name", SETTINGS)
def test_path_rule_is_scikit_gardens_on_the_same_trees(name):
    model, _, _ = grown(name)
    Q = queries()
    expected = brute_force_forest(model, Q)
    np.testing.assert_allclose(model.predict(Q), expected, rtol=1e-12, atol=1e-12)
    # the rule reads more than the leaf: points outside their leaf's range get other predictions
    assert np.mean(model.predict(Q) != leaf_means(model, Q)) > 0.3


def test_internal_nodes_do_not_hold_their_subtrees_sums():
    """Why the rule sums the leaves: after online learning, an internal node's statistics are stale (a copy of the
    child it was inserted above), so reading them would give a different, wrong, mean."""
    model, _, _ = grown("inf-online")
    tree = model.trees_[0]
    internal = ~tree.is_leaf()
    count, total = tree.stats[: tree.n_nodes][internal].T
    assert not np.allclose(total, count * subtree_means(tree)[internal])


def test_hand_made_tree():
    """One split at tau = 1 of two points 0 and 1 on a line (labels 0 and 4), leaves at lifetime inf: x = 2 lies
    eta = 1 outside the root's range, separated above it with probability 1 - e^-1 (the root's mean, 2), else in the
    right leaf (mean 4)."""
    model = MondrianForestRegressor(n_estimators=1, prediction="path", random_state=0).fit([[0.0], [1.0]], [0.0, 4.0])
    tree = model.trees_[0]
    assert tree.n_nodes == 3 and tree.n_leaves() == 2
    tau = tree.nodes.split_time[tree.root]
    p = 1.0 - np.exp(-tau * 1.0)
    np.testing.assert_allclose(model.predict([[2.0]]), [p * 2.0 + (1 - p) * 4.0], rtol=1e-14)
    np.testing.assert_allclose(model.predict([[-0.5]]), [(1 - np.exp(-tau * 0.5)) * 2.0], rtol=1e-14)
    np.testing.assert_array_equal(model.predict([[0.0], [1.0]]), [0.0, 4.0])  # inside a leaf's range: its mean


# -- (b) inside a leaf's range the rule gives the leaf mean -------------------------------------------------------


@pytest.mark.parametrize("name", SETTINGS)
def test_inside_a_leafs_range_the_path_rule_is_the_leaf_mean(name):
    """A point inside its leaf's range lies inside every range on its path (they are nested): all the weight is the
    leaf's. At lifetime inf the training points are such points; with larger leaves, so are the leaves' centres."""
    model, X, _ = grown(name)
    leafy = copy.deepcopy(model).set_params(prediction="leaf")
    np.testing.assert_array_equal(model.predict(X), leafy.predict(X))
    for tree in model.trees_:
        leaves = tree.leaves()
        centres = (tree.nodes.box_lower[leaves] + tree.nodes.box_upper[leaves]) / 2
        out = np.zeros((leaves.shape[0], 1))
        _path_mean.predict(tree.nodes, tree.stats, centres, False, tree.lifetime, model.predict_params_, out)
        np.testing.assert_array_equal(out[:, 0], tree.stats[leaves, 1] / tree.stats[leaves, 0])


# -- (c) "leaf" unchanged; the same trees whatever the rule ---------------------------------------------------------


@pytest.mark.parametrize("name", SETTINGS)
def test_leaf_rule_is_the_leaf_mean_bit_for_bit_and_the_default(name):
    assert MondrianForestRegressor().prediction == "leaf"
    model, _, _ = grown(name, prediction="leaf")
    Q = queries()
    np.testing.assert_array_equal(model.predict(Q), leaf_means(model, Q))


@pytest.mark.parametrize("name", SETTINGS)
def test_the_trees_are_the_same_whatever_the_rule(name):
    leaf, _, _ = grown(name, prediction="leaf")
    path, _, _ = grown(name, prediction="path")
    same_trees(leaf, path)
    # progressive validation learns the same trees too, and predicts before each point as predict would
    for model in (leaf, path):
        model.progressive_predict(*regression(n=40, seed=7))
    same_trees(leaf, path)


def test_the_rule_may_change_between_calls():
    model, _, _ = grown("finite-online", prediction="leaf")
    Q = queries()
    before = model.predict(Q)
    path = model.set_params(prediction="path").predict(Q)
    np.testing.assert_allclose(path, brute_force_forest(model, Q), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(model.set_params(prediction="leaf").predict(Q), before)


# -- determinism -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SETTINGS)
def test_same_floats_whatever_the_batching_or_n_jobs(name):
    """One point at a time sums the subtrees it needs; a batch keeps its sums once it has summed the tree's size
    (points outside the data's range sum whole trees): the same floats either way, and for every n_jobs."""
    model, _, _ = grown(name)
    Q = queries(n=300)
    batch = model.predict(Q)
    rows = np.concatenate([model.predict(Q[i : i + 1]) for i in range(Q.shape[0])])
    np.testing.assert_array_equal(rows, batch)
    far = np.random.default_rng(3).uniform(2.0, 3.0, size=(60, 3))  # outside the root's range: whole trees
    np.testing.assert_array_equal(
        model.predict(far), np.concatenate([model.predict(far[i : i + 1]) for i in range(60)])
    )
    for n_jobs in (2, -1):
        twin, _, _ = grown(name, n_jobs=n_jobs)
        np.testing.assert_array_equal(twin.predict(Q), batch)


@pytest.mark.parametrize("n_estimators", [1, 3])
@pytest.mark.parametrize("name", ["inf-online", "finite-online", "increasing-online"])
def test_progressive_predict_is_predict_then_partial_fit(name, n_estimators):
    """The sums progressive validation keeps from point to point (forgetting those a point changes) are those predict
    computes afresh: one tree's predictions are the same floats; the forest sums its trees in another order (each
    tree's total, where predict adds node by node), as the leaf rule's does."""
    params = SETTINGS[name][0]
    X, y = regression(n=120, seed=3)
    X2, y2 = regression(n=60, seed=4)
    X2 = X2 * 1.5 - 0.25  # partly outside the range learnt before
    model = MondrianForestRegressor(n_estimators=n_estimators, random_state=5, prediction="path", n_jobs=2, **params)
    reference = MondrianForestRegressor(n_estimators=n_estimators, random_state=5, prediction="path", **params)
    check = np.testing.assert_array_equal if n_estimators == 1 else np.testing.assert_allclose
    for data, first in ((X, y), True), ((X2, y2), False):  # then on, from the fitted trees
        out = model.progressive_predict(*data)
        expected = np.empty_like(out)
        for i in range(out.shape[0]):
            expected[i] = 0.0 if first and i == 0 else reference.predict(data[0][i : i + 1])[0]
            reference.partial_fit(data[0][i : i + 1], data[1][i : i + 1])
        check(out, expected)
        same_trees(model, reference)


def test_pickling_keeps_the_rule_and_the_predictions():
    model, _, _ = grown("increasing-online")
    Q = queries()
    again = pickle.loads(pickle.dumps(model))
    assert again.prediction == "path"
    np.testing.assert_array_equal(again.predict(Q), model.predict(Q))


# -- validation ------------------------------------------------------------------------------------------------------


def test_a_bad_rule_is_refused_by_name_by_learning_and_predicting():
    X, y = regression(n=50)
    for bad in ("mean", "split", None, 1):
        with pytest.raises(InvalidParameterError, match="The 'prediction' parameter of MondrianForestRegressor"):
            MondrianForestRegressor(n_estimators=2, prediction=bad).fit(X, y)
    model = MondrianForestRegressor(n_estimators=2, random_state=0).fit(X, y)
    before = model.predict(X)
    model.set_params(prediction="bad")
    for call in (lambda: model.predict(X), lambda: model.partial_fit(X, y), lambda: model.progressive_predict(X, y)):
        with pytest.raises(InvalidParameterError, match="The 'prediction' parameter of MondrianForestRegressor"):
            call()
    np.testing.assert_array_equal(model.set_params(prediction="leaf").predict(X), before)


@parametrize_with_checks(
    [MondrianForestRegressor(prediction="path"), MondrianForestRegressor(lifetime="increasing", prediction="path")]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
