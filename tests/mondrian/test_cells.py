"""Purely random Mondrian partitions fitted to data (MGS20's trees, ``mondrian.partition._cells``).

- Law (statistical, exact): the cell holding a point x of MP(lam, [0,1]^d) is prod_j [x_j - L_j, x_j + R_j] with
  L_j, R_j independent, L_j = min(E, x_j), R_j = min(E', 1 - x_j), E, E' ~ Exp(lam) (MGS20 Proposition 1). Checked on
  the cell of a data point among others, at the sampled lifetime and at a smaller one read from the same tree
  (nested lifetimes): mean distances and the probabilities of reaching the domain's sides, within 5 standard errors.
- Structure (hypothesis): only cells holding points are split; every point lies in its leaf's cell and is routed
  there; the leaves tile [0,1]^d; each node counts the points and targets of its cell (recount from the data).
- Predictions: at every lifetime of a grid (one walk per point), the mean of the cell holding the point in the tree
  pruned at that lifetime, or ``empty`` in a cell without training points.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mondrian._nodes import NO_NODE, add_node, empty_tree
from mondrian._route import leaf_of
from mondrian.partition import _cells


def sampled(X, y, lifetime, rng, n_outputs=1, onehot=False):
    d = X.shape[1]
    tree = empty_tree(d)
    tree.root[0] = add_node(tree, NO_NODE, np.zeros(d), np.ones(d))
    tree, leaves = _cells.sample(tree, X, lifetime, rng)
    stats = np.zeros((tree.n_nodes[0], _cells.n_stats(n_outputs)))
    _cells.count(tree, stats, y, onehot, leaves)
    return tree, stats, leaves


def in_box(points, lower, upper):
    """Which points lie in the box [lower, upper]."""
    return np.all((points >= lower) & (points <= upper), axis=1)


def truncated_exponential(lam, a):
    """Mean and P(= a) of min(E, a), E ~ Exp(lam)."""
    return -np.expm1(-lam * a) / lam, np.exp(-lam * a)


@pytest.mark.parametrize("d", [1, 2])
def test_the_cell_of_a_point_has_mgs20s_law_at_the_sampled_and_a_smaller_lifetime(d):
    x = np.array([0.3, 0.65])[:d]
    rng = np.random.default_rng(7)
    replicates, lifetimes = 4000, (4.0, 1.5)
    distances = {lam: [] for lam in lifetimes}
    for _ in range(replicates):
        X = np.vstack([x, rng.random((10, d))])
        tree, _, leaves = sampled(X, np.zeros(len(X)), lifetimes[0], rng)
        for lam in lifetimes:
            node = leaves[0] if lam == lifetimes[0] else leaf_of(tree, x, lam)
            distances[lam].append(np.concatenate([x - tree.box_lower[node], tree.box_upper[node] - x]))
    sides = np.concatenate([x, 1 - x])
    for lam in lifetimes:
        observed = np.array(distances[lam])
        mean, p_side = truncated_exponential(lam, sides)
        se = observed.std(axis=0, ddof=1) / np.sqrt(replicates)
        assert np.all(np.abs(observed.mean(axis=0) - mean) < 5 * se), (lam, observed.mean(axis=0), mean)
        reached = (np.abs(observed - sides) < 1e-12).mean(axis=0)
        assert np.all(np.abs(reached - p_side) < 5 * np.sqrt(p_side * (1 - p_side) / replicates)), (lam, reached)


@settings(max_examples=60, deadline=None, database=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 40),
    d=st.integers(1, 3),
    lifetime=st.sampled_from([0.5, 2.0, 6.0]),
)
def test_only_cells_with_points_are_split_and_count_their_points(seed, n, d, lifetime):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = rng.normal(size=n)
    tree, stats, leaves = sampled(X, y, lifetime, rng)
    m = tree.n_nodes[0]
    is_leaf = tree.left[:m] == NO_NODE
    lower, upper = tree.box_lower[:m], tree.box_upper[:m]
    for i, x in enumerate(X):
        assert leaf_of(tree, x, np.inf) == leaves[i]
        assert np.all(lower[leaves[i]] <= x) and np.all(x <= upper[leaves[i]])
    inside = np.array([in_box(X, lower[j], upper[j]) for j in range(m)]).reshape(m, n)
    in_cell = np.zeros((m, n), bool)
    for i, leaf in enumerate(leaves):  # a point is in its leaf's cell and in the cells above it
        j = leaf
        while j != NO_NODE:
            in_cell[j, i] = True
            j = tree.parent[j]
    assert np.all(in_cell <= inside)
    np.testing.assert_array_equal(stats[:, 0], in_cell.sum(axis=1))
    np.testing.assert_allclose(stats[:, 1], in_cell @ y, atol=1e-12)
    assert np.all(is_leaf[stats[:, 0] == 0])  # a cell without points is never split
    assert np.all(tree.split_time[:m][~is_leaf] < lifetime)
    assert np.prod(upper[is_leaf] - lower[is_leaf], axis=1).sum() == pytest.approx(1.0)


def test_nested_predictions_are_the_cell_means_at_each_lifetime_or_empty():
    rng = np.random.default_rng(3)
    X = rng.random((60, 2)) * 0.5  # the upper right of the square holds no point: empty cells there
    y = rng.integers(0, 3, 60).astype(float)
    tree, stats, _ = sampled(X, y, 8.0, rng, n_outputs=3, onehot=True)
    queries = rng.random((200, 2))
    lifetimes = np.array([0.0, 0.5, 2.0, 8.0])
    nested = np.zeros((len(lifetimes), len(queries), 3))
    _cells.predict_nested(tree, stats, queries, lifetimes, -1.0, nested)
    for lam, out in zip(lifetimes, nested, strict=True):
        for q, p in zip(queries, out, strict=True):
            node = leaf_of(tree, q, lam)
            held = in_box(X, tree.box_lower[node], tree.box_upper[node])
            if held.any():
                np.testing.assert_allclose(p, np.bincount(y[held].astype(int), minlength=3) / held.sum())
            else:
                np.testing.assert_array_equal(p, -1.0)
    root = np.bincount(y.astype(int), minlength=3) / 60
    np.testing.assert_allclose(nested[0], np.broadcast_to(root, nested[0].shape))  # lifetime 0: the root's cell
    assert (nested[-1] == -1.0).all(axis=1).any()  # some queries fall in empty cells
