"""Routing points down a tree by its splits."""

import numpy as np

from mondrian._compile import kernel
from mondrian._nodes import NO_NODE, is_leaf


@kernel
def leaf_of(tree, x, lifetime):
    """The leaf of the tree pruned at ``lifetime`` whose cell holds x (boxes are not consulted)."""
    left, right, feature, threshold, split_time = (tree.left, tree.right, tree.feature, tree.threshold, tree.split_time)
    j = tree.root[0]
    if lifetime == np.inf:  # nothing pruned: internal nodes are those with children (one array read less per node)
        while left[j] != NO_NODE:
            j = left[j] if x[feature[j]] <= threshold[j] else right[j]
        return j
    while not is_leaf(left, split_time, j, lifetime):
        j = left[j] if x[feature[j]] <= threshold[j] else right[j]
    return j


@kernel(inline="always")
def path_of(tree, x, lifetime, path):
    """Store the root-to-leaf path of x in the tree pruned at ``lifetime`` in ``path``; return its length. Inlined
    into its callers: it runs once per point, and a call would reference-count every array of the tree."""
    left, right, feature, threshold, split_time = (tree.left, tree.right, tree.feature, tree.threshold, tree.split_time)
    n = 0
    j = tree.root[0]
    if lifetime == np.inf:  # as in leaf_of: split times need not be read
        while True:
            path[n] = j
            n += 1
            if left[j] == NO_NODE:
                return n
            j = left[j] if x[feature[j]] <= threshold[j] else right[j]
    while True:
        path[n] = j
        n += 1
        if is_leaf(left, split_time, j, lifetime):
            return n
        j = left[j] if x[feature[j]] <= threshold[j] else right[j]


@kernel
def apply(tree, X, lifetime):
    """Leaf index of every row of X."""
    out = np.empty(X.shape[0], np.int64)
    for i in range(X.shape[0]):
        out[i] = leaf_of(tree, X[i], lifetime)
    return out
