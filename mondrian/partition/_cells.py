"""Purely random Mondrian partitions fitted to data (MGS20): statistics of the cells and their predictions at any
lifetime up to the sampled one.

The partition is MP(lifetime, [0, 1]^d) drawn independently of the data, only where data lie
(``sample_partition_around``). Statistics, one row per node: column 0 the number of training points in the node's
cell, columns 1..m the sum of their encoded targets (one-hot rows for classification). They are kept at every node,
so that the tree pruned at a smaller lifetime, MGS20's nested estimators, is read from the same arrays: at lifetime
lam, x's cell is the first node of its path whose split time is >= lam. A cell without training points predicts
``empty`` (MGS20: 0).
"""

import numpy as np

from mondrian._compile import kernel
from mondrian._leaf_mean import add_weighted, weights_or_ones
from mondrian._nodes import NO_NODE
from mondrian._process import sample_partition_around
from mondrian._route import path_of


def n_stats(n_outputs: int) -> int:
    return 1 + n_outputs


def sample(tree, X, lifetime, rng):
    """MP(lifetime, the root's box) around the points X into ``tree`` (its root row set, nothing below); returns the
    grown tree and the leaf of each point."""
    leaves = np.empty(X.shape[0], np.int64)
    return sample_partition_around(tree, X, np.arange(X.shape[0]), lifetime, rng, leaves), leaves


def count(tree, stats, y, onehot, leaves, w=None):
    """stats += each point i (target y[i], weight w[i]; w None: all one) in its leaf ``leaves[i]`` and in every cell
    above it."""
    _count(tree, stats, y, weights_or_ones(y, w), onehot, leaves)


@kernel
def _count(tree, stats, y, w, onehot, leaves):
    for i in range(y.shape[0]):
        node = leaves[i]
        while node != NO_NODE:
            add_weighted(stats, node, y[i], w[i], onehot)
            node = tree.parent[node]


@kernel
def _add_cell_mean(stats, node, empty, out):
    """out += the mean encoded target of the node's cell, or ``empty`` when the cell holds no training point."""
    points = stats[node, 0]
    for k in range(out.shape[0]):
        out[k] += stats[node, 1 + k] / points if points > 0.0 else empty


@kernel
def predict_nested(tree, stats, X, lifetimes, empty, out):
    """out[l, i] += the prediction at X[i] of the tree pruned at lifetimes[l] (increasing, at most the sampled
    lifetime), all from one walk down X[i]'s path: the split times grow along it."""
    path = np.empty(tree.n_nodes[0], np.int64)
    for i in range(X.shape[0]):
        n = path_of(tree, X[i], np.inf, path)
        depth = 0
        for m in range(lifetimes.shape[0]):
            while depth < n - 1 and tree.split_time[path[depth]] < lifetimes[m]:
                depth += 1
            _add_cell_mean(stats, path[depth], empty, out[m, i])
