"""LRT14's online extension of a restricted Mondrian tree by one point (ExtendMondrianBlock)."""

import numba
import numpy as np

from mondrian._nodes import NO_NODE, add_node, is_leaf, parent_time
from mondrian._process import choose_proportional, set_split, uniform_below


@numba.njit(cache=True, nogil=True)
def _extension(lower, upper, x, out):
    """out = e_l + e_u, how far x lies outside [lower, upper] per dimension; returns the sum."""
    total = 0.0
    for d in range(x.shape[0]):
        e = lower[d] - x[d] if x[d] < lower[d] else (x[d] - upper[d] if x[d] > upper[d] else 0.0)
        out[d] = e
        total += e
    return total


@numba.njit(cache=True, nogil=True)
def _insert_parent_above(tree, stats, j, x, time, dim, rng):
    """New split at ``time`` just above j separating j's box from x; x goes to a new leaf.

    The new parent has seen exactly j's points, so it starts with a copy of j's statistics."""
    if x[dim] > tree.box_upper[j, dim]:
        threshold = uniform_below(tree.box_upper[j, dim], x[dim], rng)
    else:
        threshold = uniform_below(x[dim], tree.box_lower[j, dim], rng)
    grandparent = tree.parent[j]
    p = add_node(tree, grandparent, np.minimum(tree.box_lower[j], x), np.maximum(tree.box_upper[j], x))
    leaf = add_node(tree, p, x, x)
    stats[p] = stats[j]
    if grandparent == NO_NODE:
        tree.root[0] = p
    elif tree.left[grandparent] == j:
        tree.left[grandparent] = p
    else:
        tree.right[grandparent] = p
    tree.parent[j] = p
    if x[dim] <= threshold:
        set_split(tree, p, time, dim, threshold, leaf, j)
    else:
        set_split(tree, p, time, dim, threshold, j, leaf)
    return leaf


@numba.njit(cache=True, nogil=True)
def _pure_at(stats, node, y):
    """Every label the node has seen equals y (statistics: column 0 the count, column 1 + k class k's count)."""
    return stats[node, 0] > 0.0 and stats[node, 1 + int(y)] == stats[node, 0]


@numba.njit(cache=True, nogil=True)
def extend(tree, stats, x, y, lifetime, split_pure, rng):
    """ExtendMondrianTree(T, lifetime, x): returns the leaf that x ends in.

    Walks down from the root; at each node j an extension split appears above j with
    rate sum(e_l + e_u) before tau_j (lifetime at a leaf), else j's box grows to x and
    the walk goes on into x's side. With ``split_pure`` False (classification), a leaf
    whose labels all equal the label y of x is not split: its box grows to x (AMF's
    pure nodes). The caller ensured room for 2 new nodes in the tree and in ``stats``.
    """
    if tree.root[0] == NO_NODE:
        tree.root[0] = add_node(tree, NO_NODE, x, x)
        return tree.root[0]
    parent, left, right, feature, threshold, split_time = (
        tree.parent,
        tree.left,
        tree.right,
        tree.feature,
        tree.threshold,
        tree.split_time,
    )
    lower, upper = tree.box_lower, tree.box_upper
    e = np.empty(x.shape[0])
    j = tree.root[0]
    while True:
        rate = _extension(lower[j], upper[j], x, e)
        leaf = is_leaf(left, split_time, j, lifetime)
        if rate > 0.0:
            time = parent_time(parent, split_time, j) + rng.exponential(1.0 / rate)
            if time < (lifetime if leaf else split_time[j]) and (split_pure or not leaf or not _pure_at(stats, j, y)):
                return _insert_parent_above(tree, stats, j, x, time, choose_proportional(e, rate, rng), rng)
            np.minimum(lower[j], x, lower[j])
            np.maximum(upper[j], x, upper[j])
        if leaf:
            return j
        j = left[j] if x[feature[j]] <= threshold[j] else right[j]
