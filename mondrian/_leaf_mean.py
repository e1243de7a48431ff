"""Leaf-mean forecaster kernels: a leaf predicts the mean of the encoded targets it has seen.

Node statistics are one row per node: column 0 the number of points, columns 1..m
the sum of their encoded targets (one-hot rows for classification, so the mean is the
empirical label distribution; the label itself for regression, so the mean is the
leaf average). Learning goes through the shared structural kernels; prediction is
this separate kernel, so a smoother forecaster can replace it.
"""

import numpy as np

from mondrian._compile import kernel
from mondrian._extend import SPLIT_LEAVES, extend
from mondrian._nodes import NO_NODE, add_node, capacity
from mondrian._process import batch_fits, sample_block
from mondrian._route import leaf_of


def n_stats(n_outputs: int) -> int:
    return 1 + n_outputs


def kernel_params(hard_vote: bool = False) -> np.ndarray:
    """``hard_vote``: a classifier tree votes for its leaf's most frequent label instead of giving its leaf's label
    distribution (MGS17's majority vote)."""
    return np.array([float(hard_vote)])


@kernel
def add_weighted(stats, node, y, w, onehot):
    """Add a point of target y and weight w to the node: its count grows by w, its label sum by w * y."""
    stats[node, 0] += w
    if onehot:
        stats[node, 1 + int(y)] += w
    else:
        stats[node, 1] += w * y


@kernel
def add_target(stats, node, y, onehot):
    add_weighted(stats, node, y, 1.0, onehot)  # (1.0 * y is y: bit for bit the unweighted sums)


@kernel
def add_leaf_mean(stats, node, out):
    count = stats[node, 0]
    for k in range(out.shape[0]):
        out[k] += stats[node, 1 + k] / count


@kernel
def add_prediction(stats, node, params, out):
    """out += the leaf's mean target, or a vote for its most frequent label (ties: the lowest) with a hard vote."""
    if params[0] > 0.0:
        out[np.argmax(stats[node, 1 : 1 + out.shape[0]])] += 1.0
    else:
        add_leaf_mean(stats, node, out)


@kernel
def _sample_first(tree, stats, X, y, w, onehot, lifetime, rng):
    """``learn`` into an empty tree: the points sampled at once (w: their weights)."""
    n = X.shape[0]
    tree.root[0] = add_node(tree, NO_NODE, X[0], X[0])
    leaves = np.empty(n, np.int64)
    sample_block(tree, X, np.arange(n), tree.root[0], lifetime, rng, leaves)
    for i in range(n):
        add_weighted(stats, leaves[i], y[i], w[i], onehot)


@kernel
def _extend_each(tree, stats, X, y, w, onehot, lifetime, rng):
    """``learn`` into a non-empty tree, or a first batch the tree's max_nodes cuts short (``batch_fits``): each
    point extends it in turn (their targets are added after)."""
    n = X.shape[0]
    leaves = np.empty(n, np.int64)
    path = np.empty(capacity(tree), np.int64)
    for i in range(n):
        leaves[i] = extend(tree, stats, X[i], y[i], lifetime, SPLIT_LEAVES, rng, path)
    for i in range(n):
        add_weighted(stats, leaves[i], y[i], w[i], onehot)


# Sample weights are counts and label sums multiplied by them (``learn``'s ``w``): this forecaster takes them.
weights_refused = None


def weights_or_ones(X: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The rows' weights for the kernels: ``w``, or ones (a row of weight 1 adds exactly what it adds unweighted)."""
    return np.ones(X.shape[0]) if w is None else w


def learn(tree, stats, X, y, onehot, lifetime, params, rng, w=None):
    """Add the points (X, y) to the tree: batch sampling into an empty tree with room for them, else online
    extension.

    Both give a tree with the law MT(lifetime, data). The caller reserved 2 * len(X) nodes. The two ways are two
    kernels, so that a first fit compiles only the first. ``w``: the points' positive weights (None: all one).
    """
    w = weights_or_ones(X, w)
    if batch_fits(tree, X.shape[0]):
        _sample_first(tree, stats, X, y, w, onehot, lifetime, rng)
    else:
        _extend_each(tree, stats, X, y, w, onehot, lifetime, rng)


@kernel
def predict(tree, stats, X, onehot, lifetime, params, out):
    """out[i] += mean target of the leaf holding X[i]."""
    for i in range(X.shape[0]):
        add_prediction(stats, leaf_of(tree, X[i], lifetime), params, out[i])


@kernel
def progressive(tree, stats, X, y, onehot, lifetime, params, rng, prior, out):
    """Progressive validation: out[i] += prediction for X[i] before learning (X[i], y[i]); then learn it."""
    path = np.empty(capacity(tree), np.int64)
    for i in range(X.shape[0]):
        if tree.root[0] == NO_NODE:
            for k in range(prior.shape[0]):
                out[i, k] += prior[k]
        else:
            add_prediction(stats, leaf_of(tree, X[i], lifetime), params, out[i])
        add_target(stats, extend(tree, stats, X[i], y[i], lifetime, SPLIT_LEAVES, rng, path), y[i], onehot)
