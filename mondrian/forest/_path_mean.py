"""Path-mean forecaster kernels: the regressor's ``prediction="path"``, the rule of scikit-garden's Mondrian trees.

A tree predicts at x by walking x's root-to-leaf path: an extension of the tree to x splits just above node j with
probability p_j = 1 - exp(-eta_j Delta_j) (eta_j how far x lies outside j's range, Delta_j = tau_j - tau_parent(j):
``_ikn.time_above`` and ``_ikn.separate``, the walk of the classifier's IKN prediction), and x, separated there, is
predicted by j's mean label; node j weighs P(no split above j) * p_j, and the leaf takes the weight left (at the leaf
both cases predict its mean). A node's mean is over every point below it.

The trees and their statistics are the leaf mean's (``_leaf_mean``: learning is shared, so the trees are the same
whatever the rule): column 0 the number of points, columns 1..m the sum of their targets, exact at the leaves only
(an internal node's row is whatever it held when it was a leaf, or a copy of its child's when it was inserted). The
sums below each node are computed when a prediction needs them, children first: a leaf's row is its own, an internal
node's the sum of its left and right children's, so that they are the same floats whatever the order nodes are
visited in (a batch, one point, progressive validation, any n_jobs). A prediction walks x's path from the first box
that does not hold x (eta = 0 above) and sums the subtree of the first node with a positive weight; a batch keeps the
sums it computed (``table``) once it has summed as many nodes as the tree holds, so that a prediction costs at most
the tree's size in sums plus O(depth) per point, and a tree learnt online keeps them between points, forgetting those
of the nodes a new point changes.

``params`` is the leaf mean's (unused by the path rule).
"""

import numpy as np

from mondrian import _leaf_mean
from mondrian._compile import kernel
from mondrian._extend import SPLIT_LEAVES, extend, extension_rate, first_outside
from mondrian._leaf_mean import add_target
from mondrian._nodes import NO_NODE, capacity, is_leaf
from mondrian._route import leaf_of, path_of
from mondrian._schedule import lifetime_at
from mondrian.forest._ikn import separate, time_above
from mondrian.forest._increasing import _learn_one, _start, total_rate

# The trees and their learning are the leaf mean's: only predictions differ.
n_stats = _leaf_mean.n_stats
learn = _leaf_mean.learn
weights_refused = _leaf_mean.weights_refused  # a node's mean is then the weighted mean of the points below it


@kernel
def _sum_below(tree, stats, lifetime, top, table, order, memo):
    """table[j] = the statistics summed over the leaves below j (the points below j: their number, their target
    sums), for every node j of top's subtree in the tree pruned at ``lifetime``: a leaf's row is its own, an internal
    node's the sum of its left and right children's. ``memo``: rows with a positive count hold their sums already, and
    so do all the rows below them (they are not visited again); else every row of the subtree is computed. ``order``
    is scratch room for the subtree's nodes. Returns the number of nodes summed."""
    left, right, split_time = tree.left, tree.right, tree.split_time
    if memo and table[top, 0] > 0.0:
        return 0
    order[0] = top  # breadth first: a node comes after its parent
    filled = 1
    i = 0
    while i < filled:
        node = order[i]
        i += 1
        if not is_leaf(left, split_time, node, lifetime):
            a, b = left[node], right[node]
            if not (memo and table[a, 0] > 0.0):
                order[filled] = a
                filled += 1
            if not (memo and table[b, 0] > 0.0):
                order[filled] = b
                filled += 1
    for i in range(filled - 1, -1, -1):
        node = order[i]
        if is_leaf(left, split_time, node, lifetime):
            for k in range(table.shape[1]):
                table[node, k] = stats[node, k]
        else:
            a, b = left[node], right[node]
            for k in range(table.shape[1]):
                table[node, k] = table[a, k] + table[b, k]
    return filled


@kernel
def add_prediction(tree, stats, x, lifetime, table, order, memo, path, out):
    """out += the tree's path-weighted mean at x (the model is unchanged). ``table`` holds the sums below the nodes
    (``_sum_below``, with ``memo``); ``order`` and ``path`` are scratch rows of the tree's size. Returns the number of
    nodes summed."""
    parent, split_time = tree.parent, tree.split_time
    lower, upper = tree.box_lower, tree.box_upper
    n = path_of(tree, x, lifetime, path)
    summed = -1  # no subtree summed yet
    not_separated = 1.0
    for i in range(first_outside(lower, upper, path, n, x), n - 1):  # eta = 0 above: the boxes there hold x
        j = path[i]
        delta = time_above(parent, split_time, j, False, lifetime)
        weight, not_separated = separate(extension_rate(lower, upper, j, x), delta, not_separated)
        if weight > 0.0:
            if summed < 0:  # the first node weighed: its subtree holds every node weighed after it
                summed = _sum_below(tree, stats, lifetime, j, table, order, memo)
            for k in range(out.shape[0]):
                out[k] += weight * (table[j, 1 + k] / table[j, 0])
    leaf = path[n - 1]  # the weight left: x not separated above the leaf, or separated there (its mean either way)
    for k in range(out.shape[0]):
        out[k] += not_separated * (stats[leaf, 1 + k] / stats[leaf, 0])
    return max(summed, 0)


@kernel
def predict(tree, stats, X, onehot, lifetime, params, out):
    """out[i] += the tree's path-weighted mean at X[i]. Each point sums the subtree it needs; once the points have
    summed as many nodes as the tree holds, the sums are kept for the points after (each node summed once more at
    most), so that few points cost their subtrees and many at most the tree's size."""
    n_nodes = tree.n_nodes[0]
    path = np.empty(n_nodes, np.int64)
    order = np.empty(n_nodes, np.int64)
    table = np.empty((n_nodes, stats.shape[1]))
    memo = False
    summed = 0
    for i in range(X.shape[0]):
        summed += add_prediction(tree, stats, X[i], lifetime, table, order, memo, path, out[i])
        if not memo and summed >= n_nodes:
            table[:] = 0.0  # count 0: not summed yet
            memo = True


@kernel
def _forget(tree, table, node, n_before):
    """The sums of ``node`` and of its ancestors are out of date (a point was added below, or the tree grew there):
    mark them not summed, up to an old node (one of the first ``n_before``) already marked, whose ancestors are."""
    parent = tree.parent
    while node != NO_NODE:
        if node < n_before and table[node, 0] == 0.0:
            return
        table[node, 0] = 0.0
        node = parent[node]


@kernel
def _forget_changes(tree, table, x, lifetime, n_before):
    """After x was learnt: forget the sums of the nodes whose points changed, those above x's leaf and above every
    new node (the rows of new nodes are 0: not summed)."""
    _forget(tree, table, leaf_of(tree, x, lifetime), n_before)
    for node in range(n_before, tree.n_nodes[0]):
        _forget(tree, table, node, n_before)


@kernel
def _online_scratch(tree, stats):
    """Scratch room for a progressive loop: a path, an order and the table of sums (0: none summed), one row per node
    the tree has room for."""
    rows = capacity(tree)
    return np.empty(rows, np.int64), np.empty(rows, np.int64), np.zeros((rows, stats.shape[1]))


@kernel
def progressive(tree, stats, X, y, onehot, lifetime, params, rng, prior, out):
    """Progressive validation: out[i] += path-weighted prediction at X[i] before learning (X[i], y[i]); then learn it
    as the leaf mean does (the same tree)."""
    path, order, table = _online_scratch(tree, stats)
    for i in range(X.shape[0]):
        if tree.root[0] == NO_NODE:
            for k in range(prior.shape[0]):
                out[i, k] += prior[k]
        else:
            add_prediction(tree, stats, X[i], lifetime, table, order, True, path, out[i])
        n_before = tree.n_nodes[0]
        add_target(stats, extend(tree, stats, X[i], y[i], lifetime, SPLIT_LEAVES, rng, path), y[i], onehot)
        _forget_changes(tree, table, X[i], lifetime, n_before)


@kernel
def progressive_increasing(
    tree, stats, first, next_point, X, y, start, end, onehot, scale, min_split, params, rng, prior, out
):
    """``_increasing.progressive`` with the path rule: out[i - start] += path-weighted prediction at X[i] before
    learning point i of the store; then learn it (the same tree). Returns the lifetime reached."""
    path, order, table = _online_scratch(tree, stats)
    scratch = np.empty(end, np.int64)
    lifetime = lifetime_at(start, scale, X.shape[1])
    rate = total_rate(tree, stats, min_split)
    for i in range(start, end):
        n_before = tree.n_nodes[0]
        if tree.root[0] == NO_NODE:
            for k in range(prior.shape[0]):
                out[i - start, k] += prior[k]
            lifetime = _start(tree, stats, first, next_point, X, y, i, i + 1, onehot, scale, rng)
        else:
            add_prediction(tree, stats, X[i], lifetime, table, order, True, path, out[i - start])
            lifetime, rate = _learn_one(
                tree, stats, first, next_point, X, y, i, onehot, lifetime, scale, rate, min_split, rng, path, scratch
            )
        _forget_changes(tree, table, X[i], lifetime, n_before)
    return lifetime
