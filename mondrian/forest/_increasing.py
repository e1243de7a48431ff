"""MGS17's online Mondrian tree with increasing lifetime lam_n = scale * n^(1/(d+2)).

Point n first extends the tree at the current lifetime lam_{n-1} (LRT14's extension, ``extend``), then the lifetime
is raised to lam_n by letting every leaf go on splitting from lam_{n-1} (the Mondrian process is memoryless).
Raising uses the superposition of the leaves' clocks: the tree's next split comes after Exp(R), R the sum over
leaves of the linear dimension of their range, and falls on leaf l with probability |range_l| / R; the leaf splits
at that time inside its range (dimension proportional to the sides, threshold uniform) and its points go to the two
children, whose ranges are the ranges of their points (the tree stays restricted to the data); the next split is
drawn from that time on. So leaves keep their points (``_points``); their statistics are those of the leaf mean.
A first batch into an empty tree is sampled at once as MT(lam_n, data) (``sample_block``), the same law.

``min_split``: a block is split only while it holds at least that many points (BSP's experiments cut only blocks of
more than 3 points, 4; 2 or less: no restriction, as a block of one point has no range to split): the tree after n
points has the law of MT(lam_n, data) with that rule, whatever the order of the points. Only leaves that hold as many
count in R, and x does not split off a leaf that holds fewer with it (it joins the leaf). A leaf that x brings to
``min_split`` points had its clock stopped since its birth (its parent's split time): it is sampled from that time to
the lifetime, as the batch tree samples a block of that many points (``_wake``; its children hold fewer, so one split
at most), not from x's extension alone, which misses the splits inside its old range (the first implementation did:
its trees grew too few leaves, the fewer the more points fell inside their leaves' ranges, so that their law
depended on the order of the points). A first batch is learnt point by point.
"""

import numpy as np

from mondrian._compile import kernel
from mondrian._extend import KEEP_LEAVES, SPLIT_LEAVES, extend_along
from mondrian._leaf_mean import add_prediction, add_target
from mondrian._nodes import NO_NODE, add_node, capacity
from mondrian._points import NO_POINT, add_point, points_of
from mondrian._process import choose_proportional, sample_block, set_split, uniform_below
from mondrian._route import path_of
from mondrian._schedule import lifetime_at


@kernel
def _linear_dimension(lower, upper, j):
    total = 0.0
    for d in range(lower.shape[1]):
        total += upper[j, d] - lower[j, d]
    return total


@kernel
def _leaf_rate(tree, stats, j, min_split):
    """Leaf j's part of R: the linear dimension of its range if it holds at least ``min_split`` points, else 0."""
    return _linear_dimension(tree.box_lower, tree.box_upper, j) if stats[j, 0] >= min_split else 0.0


@kernel
def total_rate(tree, stats, min_split):
    """R: the sum over the leaves that may split of the linear dimension of their range (the rate of the tree's next
    split)."""
    total = 0.0
    for j in range(tree.n_nodes[0]):
        if tree.left[j] == NO_NODE:
            total += _leaf_rate(tree, stats, j, min_split)
    return total


@kernel
def _pick_leaf(tree, stats, target, min_split):
    """The leaf where the running sum of the leaves' parts of R first exceeds ``target``."""
    acc = 0.0
    last = NO_NODE
    for j in range(tree.n_nodes[0]):
        if tree.left[j] == NO_NODE:
            side = _leaf_rate(tree, stats, j, min_split)
            if side > 0.0:
                last = j
                acc += side
                if target < acc:
                    return j
    return last


@kernel
def _refit(tree, stats, first, next_point, X, y, onehot, node, scratch):
    """The node's range and statistics from the points it holds."""
    n = points_of(first, next_point, node, scratch)
    for d in range(X.shape[1]):
        tree.box_lower[node, d] = X[scratch[0], d]
        tree.box_upper[node, d] = X[scratch[0], d]
    stats[node] = 0.0
    for k in range(n):
        i = scratch[k]
        for d in range(X.shape[1]):
            tree.box_lower[node, d] = min(tree.box_lower[node, d], X[i, d])
            tree.box_upper[node, d] = max(tree.box_upper[node, d], X[i, d])
        add_target(stats, node, y[i], onehot)


@kernel
def _split_leaf(tree, stats, first, next_point, X, y, onehot, j, time, min_split, rng, scratch):
    """Split leaf j at ``time`` inside its range; its points go to the children. Returns the change of R."""
    sides = tree.box_upper[j] - tree.box_lower[j]
    before = sides.sum()
    dim = choose_proportional(sides, before, rng)
    threshold = uniform_below(tree.box_lower[j, dim], tree.box_upper[j, dim], rng)
    left = add_node(tree, j, tree.box_lower[j], tree.box_upper[j])
    right = add_node(tree, j, tree.box_lower[j], tree.box_upper[j])
    set_split(tree, j, time, dim, threshold, left, right)
    n = points_of(first, next_point, j, scratch)
    first[j] = NO_POINT
    for k in range(n):
        i = scratch[k]
        add_point(first, next_point, left if X[i, dim] <= threshold else right, i)
    _refit(tree, stats, first, next_point, X, y, onehot, left, scratch)
    _refit(tree, stats, first, next_point, X, y, onehot, right, scratch)
    return _leaf_rate(tree, stats, left, min_split) + _leaf_rate(tree, stats, right, min_split) - before


@kernel
def _wake(tree, stats, first, next_point, X, y, onehot, j, lifetime, min_split, rng, scratch):
    """Leaf j, which has just reached ``min_split`` points, sampled from its birth to ``lifetime`` as MT(lifetime)
    samples a block of that many points: a split after Exp(its linear dimension), children of fewer points never
    split. Returns the change of R."""
    birth = 0.0 if tree.parent[j] == NO_NODE else tree.split_time[tree.parent[j]]
    time = birth + rng.exponential(1.0 / _linear_dimension(tree.box_lower, tree.box_upper, j))
    if not time < lifetime:
        return 0.0
    return _split_leaf(tree, stats, first, next_point, X, y, onehot, j, time, min_split, rng, scratch)


@kernel
def _raise(tree, stats, first, next_point, X, y, onehot, old, new, rate, min_split, rng, scratch):
    """Let the leaves split from lifetime ``old`` to ``new``; returns R afterwards."""
    time = old
    while rate > 0.0:
        time += rng.exponential(1.0 / rate)
        if not time < new:
            break
        leaf = _pick_leaf(tree, stats, rate * rng.random(), min_split)
        rate += _split_leaf(tree, stats, first, next_point, X, y, onehot, leaf, time, min_split, rng, scratch)
    return rate


@kernel
def _learn_one(tree, stats, first, next_point, X, y, i, onehot, lifetime, scale, rate, min_split, rng, path, scratch):
    """Point i of the store: extend at ``lifetime`` (lam_i), then raise to lam_{i+1}. Returns (lam_{i+1}, R)."""
    x = X[i]
    n = path_of(tree, x, lifetime, path)
    leaf = path[n - 1]
    before = _leaf_rate(tree, stats, leaf, min_split)
    # x brings a leaf with a range to min_split points: it joins it, which is then sampled from its birth (_wake); a
    # leaf of one point (or of equal points) has no range, and x's extension is then its whole clock
    wakes = stats[leaf, 0] + 1 == min_split and _linear_dimension(tree.box_lower, tree.box_upper, leaf) > 0.0
    rule = SPLIT_LEAVES if stats[leaf, 0] + 1 >= min_split and not wakes else KEEP_LEAVES
    j = extend_along(tree, stats, x, y[i], lifetime, rule, rng, path, n)
    add_point(first, next_point, j, i)
    add_target(stats, j, y[i], onehot)
    if j == leaf:  # x joined an existing leaf, whose range (and count) grew; a new leaf holds x alone (R unchanged)
        rate += _leaf_rate(tree, stats, j, min_split) - before
        if wakes:
            rate += _wake(tree, stats, first, next_point, X, y, onehot, j, lifetime, min_split, rng, scratch)
    new = lifetime_at(i + 1, scale, X.shape[1])
    return new, _raise(tree, stats, first, next_point, X, y, onehot, lifetime, new, rate, min_split, rng, scratch)


@kernel
def _start(tree, stats, first, next_point, X, y, start, end, onehot, scale, rng):
    """Into an empty tree, points start..end-1 at once: MT(lam_end, data). Returns lam_end."""
    lifetime = lifetime_at(end, scale, X.shape[1])
    tree.root[0] = add_node(tree, NO_NODE, X[start], X[start])
    leaves = np.empty(end, np.int64)
    sample_block(tree, X, np.arange(start, end), tree.root[0], lifetime, rng, leaves)
    for i in range(start, end):
        add_point(first, next_point, leaves[i], i)
        add_target(stats, leaves[i], y[i], onehot)
    return lifetime


def learn(tree, stats, first, next_point, X, y, start, end, onehot, scale, min_split, rng):
    """Learn points start..end-1 of the store (X, y), points 0..start-1 being in the tree already; the caller
    reserved room for 2 * end nodes. Returns the lifetime reached, lam_end. A first batch sampled at once and the
    points learnt one by one are two kernels, so that a first fit compiles only the first."""
    if tree.root[0] == NO_NODE and min_split <= 2:
        return _start(tree, stats, first, next_point, X, y, start, end, onehot, scale, rng)
    return _learn_each(tree, stats, first, next_point, X, y, start, end, onehot, scale, min_split, rng)


@kernel
def _learn_each(tree, stats, first, next_point, X, y, start, end, onehot, scale, min_split, rng):
    """``learn`` point by point (the first one alone into an empty tree)."""
    if tree.root[0] == NO_NODE:
        _start(tree, stats, first, next_point, X, y, start, start + 1, onehot, scale, rng)
        start += 1
    path = np.empty(capacity(tree), np.int64)
    scratch = np.empty(end, np.int64)
    lifetime = lifetime_at(start, scale, X.shape[1])
    rate = total_rate(tree, stats, min_split)
    for i in range(start, end):
        lifetime, rate = _learn_one(
            tree, stats, first, next_point, X, y, i, onehot, lifetime, scale, rate, min_split, rng, path, scratch
        )
    return lifetime


@kernel
def progressive(tree, stats, first, next_point, X, y, start, end, onehot, scale, min_split, params, rng, prior, out):
    """Progressive validation: out[i - start] += prediction at X[i] before learning point i; then learn it."""
    path = np.empty(capacity(tree), np.int64)
    scratch = np.empty(end, np.int64)
    lifetime = lifetime_at(start, scale, X.shape[1])
    rate = total_rate(tree, stats, min_split)
    for i in range(start, end):
        if tree.root[0] == NO_NODE:
            for k in range(prior.shape[0]):
                out[i - start, k] += prior[k]
            lifetime = _start(tree, stats, first, next_point, X, y, i, i + 1, onehot, scale, rng)
            continue
        n = path_of(tree, X[i], lifetime, path)
        add_prediction(stats, path[n - 1], params, out[i - start])
        lifetime, rate = _learn_one(
            tree, stats, first, next_point, X, y, i, onehot, lifetime, scale, rate, min_split, rng, path, scratch
        )
    return lifetime
