"""Kernels of the online BSP tree (Fan, Li and Sisson 2020): HullCut, the conditional update cBSP, predictions.

A cut of a block lives in a pair of dimensions: its cost is Exp(rate_scale * sum over pairs of the perimeters of the
block's projected hulls), the pair is drawn proportionally to its perimeter, the line uniformly among the lines
hitting the projected hull (``hull.sample_cut``), and only blocks holding more than ``MAX_UNCUT`` points are cut.
``hull_cut`` is the batch recursion (Algorithm 5) below a leaf; ``insert`` is Algorithm 4 for one new point: absorb
it in a small leaf, put a cut that separates it from the old hull above a node (rate: the increase of the
perimeters; Algorithm 6) and demote the node under it, or extend the node's cut to the grown hull and go down x's
side, down to the leaf, which is sampled again (``leaf_sampling``: from scratch at every arrival as the text prints
it, or on from the budget it was sampled to). Times are absolute (the root starts at 0,
children at their parent's cut time), so a demoted node keeps its time.
"""

import numba
import numpy as np

from mondrian._bsp_nodes import goes_left, hull_size, leaf_of, new_node, set_hull, vertices, with_room
from mondrian._compile import drives
from mondrian._nodes import NO_NODE, replace_child
from mondrian._points import NO_POINT, add_point, points_of
from mondrian._process import choose_proportional
from mondrian.hull import contains, hull_of, hull_with, perimeter, sample_cut, sample_separating_cut

MAX_UNCUT = 3  # a block holding at most this many points is never cut (the paper's rule)
SOFT, HARD = 0, 1  # the forest's vote
LAW, TEXT = 0, 1  # how a leaf reached by a new point is sampled (``insert``)


@numba.njit(cache=True, nogil=True)
def _add_target(stats, node, y, onehot, sign):
    stats[node, 0] += sign
    if onehot:
        stats[node, 1 + int(y)] += sign
    else:
        stats[node, 1] += sign * y


@numba.njit(cache=True, nogil=True, inline="always")
def _perimeters(tree, pool, node, X, pairs, out):
    """out[p] = perimeter of the node's hull in pair p; returns their sum."""
    total = 0.0
    for p in range(pairs.shape[0]):
        out[p] = perimeter(X, vertices(tree, pool, node, p), hull_size(tree, node, p), pairs[p, 0], pairs[p, 1])
        total += out[p]
    return total


@numba.njit(cache=True, nogil=True, inline="always")
def _set_hulls_of_points(tree, pool, node, X, rows, n, pairs):
    """The node's hulls in every pair, computed from its points rows[:n]; returns the pool."""
    scratch = np.empty(n, np.int64)
    for p in range(pairs.shape[0]):
        h = hull_of(X, rows, n, pairs[p, 0], pairs[p, 1], scratch)
        pool = set_hull(tree, pool, node, p, scratch, h)
    return pool


@numba.njit(cache=True, nogil=True, inline="always")
def _cut_leaf(tree, pool, node, next_point, X, Y, onehot, pairs, perimeters, total, time, rng):
    """Cut the leaf at ``time`` in a pair drawn proportionally to its perimeter; returns (pool, left, right) with
    the leaf's points, statistics and hulls handed to the two new children (the caller made room for them)."""
    rows = np.empty(int(tree.stats[node, 0]), np.int64)
    n = points_of(tree.first_point, next_point, node, rows)
    side = np.empty(n, np.bool_)
    while True:  # a line through the hull leaves vertices on both sides; only rounding could say otherwise
        p = choose_proportional(perimeters, total, rng)
        theta, u = sample_cut(X, vertices(tree, pool, node, p), hull_size(tree, node, p), pairs[p, 0], pairs[p, 1], rng)
        tree.pair[node] = p
        tree.direction[node, 0] = np.cos(theta)
        tree.direction[node, 1] = np.sin(theta)
        tree.position[node] = u
        n_left = 0
        for k in range(n):
            side[k] = goes_left(tree, node, X[rows[k]], pairs)
            n_left += side[k]
        if 0 < n_left < n:
            break
    left, right = new_node(tree, node), new_node(tree, node)
    tree.left[node] = left
    tree.right[node] = right
    tree.split_time[node] = time
    tree.first_point[node] = NO_POINT
    for k in range(n):
        child = left if side[k] else right
        add_point(tree.first_point, next_point, child, rows[k])
        _add_target(tree.stats, child, Y[rows[k]], onehot, 1.0)
    for child in (left, right):
        count = int(tree.stats[child, 0])
        m = points_of(tree.first_point, next_point, child, rows)
        assert m == count
        pool = _set_hulls_of_points(tree, pool, child, X, rows, m, pairs)
    return pool, left, right


@numba.njit(cache=True, nogil=True, inline="always")
def _cut_time(tree, pool, node, start, budget, X, pairs, rate_scale, perimeters, rng):
    """The node is sampled until ``budget``: (the time of its cut after ``start``, inf for a block that cannot be
    cut; the sum of its perimeters), with the perimeters per pair in ``perimeters``."""
    tree.sampled_until[node] = budget
    if tree.stats[node, 0] <= MAX_UNCUT:
        return np.inf, 0.0
    total = _perimeters(tree, pool, node, X, pairs, perimeters)
    if total <= 0.0:
        return np.inf, total
    return start + rng.exponential(1.0 / (rate_scale * total)), total


@numba.njit(cache=True, nogil=True)
def hull_cut(tree, pool, leaf, start_time, budget, next_point, X, Y, onehot, pairs, rate_scale, rng):
    """Algorithm 5 (HullCut) below the leaf from ``start_time``: cuts before ``budget``; every leaf it leaves has
    been sampled until ``budget``. Returns the pool."""
    perimeters = np.empty(pairs.shape[0])
    # The blocks left to sample, last in first out: at most one per point of the leaf (each block holds one).
    stack_node = np.empty(int(tree.stats[leaf, 0]), np.int64)
    stack_start = np.empty(stack_node.shape[0])
    stack_node[0], stack_start[0] = leaf, start_time
    top = 1
    while top > 0:
        top -= 1
        node, start = stack_node[top], stack_start[top]
        time, total = _cut_time(tree, pool, node, start, budget, X, pairs, rate_scale, perimeters, rng)
        if time < budget:
            pool, stack_node[top], stack_node[top + 1] = _cut_leaf(
                tree, pool, node, next_point, X, Y, onehot, pairs, perimeters, total, time, rng
            )
            stack_start[top] = stack_start[top + 1] = time
            top += 2
    return pool


@numba.njit(cache=True, nogil=True)
def _hold(tree, pool, leaf, i, next_point, X, Y, onehot, pairs):
    """Point i joins the leaf: its list, its statistics, and its hull in every pair. Returns the pool."""
    add_point(tree.first_point, next_point, leaf, i)
    _add_target(tree.stats, leaf, Y[i], onehot, 1.0)
    for p in range(pairs.shape[0]):
        h = hull_size(tree, leaf, p)
        grown = np.empty(h + 1, np.int64)
        if h == 0:
            grown[0] = i
            g = 1
        else:
            g = hull_with(X, vertices(tree, pool, leaf, p), h, i, pairs[p, 0], pairs[p, 1], grown)
        pool = set_hull(tree, pool, leaf, p, grown, g)
    return pool


@numba.njit(cache=True, nogil=True, inline="always")
def _grown_hulls(tree, pool, node, z, i, X, pairs, grown, grown_size, increase):
    """The node's hulls with point i added (grown[p, :grown_size[p]], or grown_size[p] = -1 when i is already inside
    the hull of pair p) and, per pair, the increase of the perimeter; returns the sum of the increases."""
    total = 0.0
    for p in range(pairs.shape[0]):
        d1, d2 = pairs[p, 0], pairs[p, 1]
        old = vertices(tree, pool, node, p)
        h = hull_size(tree, node, p)
        if contains(X, old, h, d1, d2, z[d1], z[d2]):
            grown_size[p] = -1
            increase[p] = 0.0
            continue
        grown_size[p] = hull_with(X, old, h, i, d1, d2, grown[p])
        increase[p] = max(perimeter(X, grown[p], grown_size[p], d1, d2) - perimeter(X, old, h, d1, d2), 0.0)
        total += increase[p]
    return total


@numba.njit(cache=True, nogil=True, inline="always")
def _store_grown(tree, pool, node, grown, grown_size):
    for p in range(grown_size.shape[0]):
        if grown_size[p] >= 0:
            pool = set_hull(tree, pool, node, p, grown[p], grown_size[p])
    return pool


@numba.njit(cache=True, nogil=True, inline="always")
def _new_parent(tree, pool, node, i, next_point, X, Y, onehot, pairs, grown, grown_size, increase, total, time, rng):
    """Algorithm 6: a cut at ``time`` that separates point i from the node's hull, in a new node above it; the node
    is demoted under it, beside a new leaf holding i. Returns the pool (the caller made room for the nodes)."""
    parent = tree.parent[node]
    above = new_node(tree, parent)
    leaf = new_node(tree, above)
    replace_child(tree.left, tree.right, tree.root, parent, node, above)
    tree.parent[node] = above
    p = choose_proportional(increase, total, rng)
    z = X[i]
    d1, d2 = pairs[p, 0], pairs[p, 1]
    theta, u = sample_separating_cut(
        X, vertices(tree, pool, node, p), hull_size(tree, node, p), d1, d2, z[d1], z[d2], rng
    )
    tree.pair[above] = p
    tree.direction[above, 0] = np.cos(theta)
    tree.direction[above, 1] = np.sin(theta)
    tree.position[above] = u
    tree.split_time[above] = time
    if goes_left(tree, above, z, pairs):
        tree.left[above] = leaf
        tree.right[above] = node
    else:
        tree.left[above] = node
        tree.right[above] = leaf
    for k in range(tree.stats.shape[1]):
        tree.stats[above, k] = tree.stats[node, k]
    _add_target(tree.stats, above, Y[i], onehot, 1.0)
    for q in range(pairs.shape[0]):
        if grown_size[q] >= 0:
            pool = set_hull(tree, pool, above, q, grown[q], grown_size[q])
        else:
            pool = set_hull(tree, pool, above, q, vertices(tree, pool, node, q).copy(), hull_size(tree, node, q))
    return _hold(tree, pool, leaf, i, next_point, X, Y, onehot, pairs)


@numba.njit(cache=True, nogil=True, inline="always")
def insert(tree, pool, i, budget, next_point, X, Y, onehot, pairs, rate_scale, leaf_sampling, rng):
    """Algorithm 4 (cBSP) for the stored point i with the budget of the current number of points.

    An internal node first draws the time of a cut separating i from its hull (rate: the increase of the
    perimeters); before the node's own cut that cut goes above it (Algorithm 6), else i extends the node's cut and
    goes down its side. A leaf that holds at most 3 points with i takes it (lines 2-3). Beyond that the two
    ``leaf_sampling`` rules differ:
    - ``TEXT``, lines 4-5 as printed: the leaf takes i and is sampled again from scratch by HullCut with the
      current budget, at every arrival; a cut, once drawn, stays, so cuts pile up as points arrive.
    - ``LAW``: the leaf is treated as a node whose cut has not come before the budget it was sampled to: a cut
      separating i may go above it before that budget, else it takes i and is sampled on from that budget to the
      current one (the process is memoryless). A leaf that reaches 4 points is sampled from its start, as it
      could not be cut before. Under this rule the tree keeps the law of the batch process at the current budget
      whatever the arrival order, as the paper's Theorem requires.

    The tree must have room for the nodes (2 per point it holds); returns the pool, which may have grown.
    """
    if tree.root[0] == NO_NODE:
        tree.root[0] = new_node(tree, NO_NODE)
        return _hold(tree, pool, tree.root[0], i, next_point, X, Y, onehot, pairs)
    n_pairs = pairs.shape[0]
    increase = np.empty(n_pairs)
    grown_size = np.empty(n_pairs, np.int64)
    z = X[i]
    node = tree.root[0]
    start = 0.0
    while True:
        is_leaf = tree.left[node] == NO_NODE
        if is_leaf and (tree.stats[node, 0] <= MAX_UNCUT or leaf_sampling == TEXT):
            pool = _hold(tree, pool, node, i, next_point, X, Y, onehot, pairs)
            cut = tree.stats[node, 0] > MAX_UNCUT
            break
        widest = 0
        for p in range(n_pairs):
            widest = max(widest, hull_size(tree, node, p))
        grown = np.empty((n_pairs, widest + 1), np.int64)
        total = _grown_hulls(tree, pool, node, z, i, X, pairs, grown, grown_size, increase)
        limit = tree.sampled_until[node] if is_leaf else tree.split_time[node]
        if total > 0.0:
            time = start + rng.exponential(1.0 / (rate_scale * total))
            if time < limit:
                return _new_parent(
                    tree, pool, node, i, next_point, X, Y, onehot, pairs, grown, grown_size, increase, total, time, rng
                )
        pool = _store_grown(tree, pool, node, grown, grown_size)
        _add_target(tree.stats, node, Y[i], onehot, 1.0)
        if is_leaf:
            add_point(tree.first_point, next_point, node, i)
            cut, start = budget > limit, limit
            break
        start = tree.split_time[node]
        node = tree.left[node] if goes_left(tree, node, z, pairs) else tree.right[node]
    if cut:  # the leaf x joined is sampled again
        pool = hull_cut(tree, pool, node, start, budget, next_point, X, Y, onehot, pairs, rate_scale, rng)
    return pool


@numba.njit(cache=True, nogil=True)
def budget_at(n, budget_scale, budget_exponent):
    """tau_n = budget_scale * n^budget_exponent (exponent 1/(d+2) for the paper's schedule, 0 for a fixed budget)."""
    return budget_scale * float(n) ** budget_exponent


@numba.njit(cache=True, nogil=True)
def _insert_points(
    tree, pool, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent, leaf_sampling,
    rng,
):  # fmt: skip
    """``learn``'s loop over the points; returns the pool."""
    for i in range(start, end):
        budget = budget_at(i + 1, budget_scale, budget_exponent)
        pool = insert(tree, pool, i, budget, next_point, X, Y, onehot, pairs, rate_scale, leaf_sampling, rng)
    return pool


@drives(_insert_points)
def learn(
    tree, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent, leaf_sampling, rng
):
    """Insert the stored points start..end-1 in order; the budget of point i is tau_{i+1}. Returns the tree (grown
    here first: every leaf holds a point, so 2 nodes per point are room enough)."""
    tree = with_room(tree, 2 * end - int(tree.n_nodes[0]))
    pool = _insert_points(
        tree, tree.pool, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent,
        leaf_sampling, rng,
    )  # fmt: skip
    return tree._replace(pool=pool)


@numba.njit(cache=True, nogil=True)
def _add_leaf_prediction(stats, leaf, onehot, vote, out):
    count = stats[leaf, 0]
    if not onehot:
        out[0] += stats[leaf, 1] / count
    elif vote == HARD:
        out[np.argmax(stats[leaf, 1:])] += 1.0
    else:
        for k in range(out.shape[0]):
            out[k] += stats[leaf, 1 + k] / count


@numba.njit(cache=True, nogil=True)
def predict(tree, X, onehot, pairs, vote, out):
    """out[i] += the tree's prediction at X[i]: its leaf's label distribution (or a vote for its majority label),
    or its mean target."""
    for i in range(X.shape[0]):
        _add_leaf_prediction(tree.stats, leaf_of(tree, X[i], pairs), onehot, vote, out[i])


@numba.njit(cache=True, nogil=True)
def _progressive_points(
    tree, pool, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent, leaf_sampling,
    vote, rng, prior, out,
):  # fmt: skip
    """``progressive``'s loop over the points; returns the pool."""
    for i in range(start, end):
        if tree.root[0] == NO_NODE:
            for k in range(prior.shape[0]):
                out[i - start, k] += prior[k]
        else:
            _add_leaf_prediction(tree.stats, leaf_of(tree, X[i], pairs), onehot, vote, out[i - start])
        budget = budget_at(i + 1, budget_scale, budget_exponent)
        pool = insert(tree, pool, i, budget, next_point, X, Y, onehot, pairs, rate_scale, leaf_sampling, rng)
    return pool


def progressive(
    tree, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent, leaf_sampling, vote,
    rng, prior, out,
):  # fmt: skip
    """Progressive validation: out[i - start] += the prediction at stored point i before it is inserted (``prior``
    while the tree is empty). Returns the tree (grown here first, as in ``learn``)."""
    tree = with_room(tree, 2 * end - int(tree.n_nodes[0]))
    pool = _progressive_points(
        tree, tree.pool, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent,
        leaf_sampling, vote, rng, prior, out,
    )  # fmt: skip
    return tree._replace(pool=pool)
