"""LRT14's paused Mondrian blocks (its supplement's Algorithms 9-10, as its authors' code runs them), for the IKN
classifier.

A block whose points all have one label, or whose range has size 0, is paused: it is not split. Sampling a block
(``sample_paused_block``) stops at paused blocks. Online, x never splits off a paused leaf: it joins it (the range
grows, ``extend`` with KEEP_PAUSED_LEAVES); if x's label is new to the leaf and the range has grown beyond a point,
the leaf is un-paused: its block is sampled again from all its points (from its parent's split time, pausing as it
goes). Leaves keep their points (``_points``) for that. Counts are the IKN counts (``_ikn``): a sampled block is
counted bottom-up from its leaves' points, each online point is seated along its path; a re-sampled leaf holds the
same labels as before, so the counts above it do not change.
"""

import numpy as np

from mondrian._compile import kernel
from mondrian._extend import KEEP_PAUSED_LEAVES, is_paused
from mondrian._nodes import NO_NODE, add_node, capacity
from mondrian._points import NO_POINT, add_point, points_of
from mondrian._process import batch_fits, sample_paused_block
from mondrian._route import path_of
from mondrian.forest._ikn import add_prediction, count_up, learn_one, prediction_scratch


@kernel
def _sample(tree, stats, first, next_point, X, y, samples, node, lifetime, rng, reached):
    """Sample the block of ``node`` from the points ``samples`` with pausing; link the points to the leaves and count
    the new subtree (the node's own row included). ``reached[i]`` receives the leaf of point i."""
    n_before = tree.n_nodes[0]
    sample_paused_block(tree, X, y, samples, node, lifetime, rng, reached)
    stats[node] = 0.0
    stats[n_before : tree.n_nodes[0]] = 0.0
    for k in range(samples.shape[0]):
        i = samples[k]
        leaf = reached[i]
        add_point(first, next_point, leaf, i)
        stats[leaf, 0] += 1.0
        stats[leaf, 1 + int(y[i])] += 1.0
    count_up(tree, stats, lifetime, node)


@kernel
def _learn_one(tree, stats, first, next_point, X, y, i, lifetime, rng, path, n, scratch, reached, keep, resample):
    """Point i of the store, routed along path[:n], into a non-empty tree: extended as LRT14 with paused leaves kept,
    then the leaf it joined sampled again if i un-paused it and ``resample``. ``keep``: the leaf keeps the point (a
    tree past its max_nodes' budget of points keeps none, and samples no leaf again)."""
    n_before = tree.n_nodes[0]
    was_paused = is_paused(tree, stats, path[n - 1])
    leaf = learn_one(tree, stats, X[i], y[i], lifetime, KEEP_PAUSED_LEAVES, rng, path, n)
    if keep:
        add_point(first, next_point, leaf, i)
    if resample and leaf < n_before and was_paused and not is_paused(tree, stats, leaf):
        n = points_of(first, next_point, leaf, scratch)
        first[leaf] = NO_POINT
        _sample(tree, stats, first, next_point, X, y, scratch[:n].copy(), leaf, lifetime, rng, reached)


@kernel
def _room_needed(tree, stats, path, n, keep):
    """Nodes that learning the point routed along path[:n] may add: 2 for an extension, and if its leaf is paused
    (and the tree ``keep``s points), room to sample the leaf again from its points and this one (at most 2 nodes
    per point)."""
    leaf = path[n - 1]
    return 2 + (2 * (int(stats[leaf, 0]) + 1) if keep and is_paused(tree, stats, leaf) else 0)


@kernel(inline="always")
def _fits(tree, room, at_bound, keep):
    """(go on, sample again): the point's ``room`` fits in the tree's arrays; else the caller grows them, unless
    they hold the tree's max_nodes (``at_bound``): the point is then learnt without sampling a leaf again (as
    always when the leaves ``keep`` no points)."""
    fits = tree.n_nodes[0] + room <= capacity(tree)
    return fits or at_bound, fits and keep


def learn(tree, stats, first, next_point, X, y, start, end, lifetime, rng, keep=True, at_bound=False):
    """Learn points start..end-1 of the store (X, y): sampled at once into an empty tree with room for them, else
    one at a time.

    Returns (i, room): points start..i-1 are learnt; i < end when point i may need more than the tree's free room
    (the caller grows the tree by ``room`` nodes and calls again from i). An empty tree needs room for 2 nodes per
    point. ``keep``: the leaves keep the points (False past max_nodes' budget of points: X, y are then the rows
    themselves, no leaf is sampled again); ``at_bound``: the arrays hold the tree's max_nodes, and a point whose
    leaf would be sampled again in more room than is left is learnt without it. The two ways are two kernels, so
    that a first fit compiles only the first."""
    if tree.root[0] == NO_NODE:
        stop = end if batch_fits(tree, end - start) else start + 1  # (else the rest point by point: max_nodes)
        return _learn_first(tree, stats, first, next_point, X, y, start, stop, lifetime, rng)
    return _learn_more(tree, stats, first, next_point, X, y, start, end, lifetime, rng, keep, at_bound)


@kernel
def _learn_first(tree, stats, first, next_point, X, y, start, end, lifetime, rng):
    """``learn`` into an empty tree: points start..end-1 sampled at once."""
    reached = np.empty(end, np.int64)
    tree.root[0] = add_node(tree, NO_NODE, X[start], X[start])
    _sample(tree, stats, first, next_point, X, y, np.arange(start, end), tree.root[0], lifetime, rng, reached)
    return end, 0


@kernel
def _learn_more(tree, stats, first, next_point, X, y, start, end, lifetime, rng, keep, at_bound):
    """``learn`` into a non-empty tree: one point at a time."""
    reached = np.empty(end, np.int64)
    path = np.empty(capacity(tree), np.int64)
    scratch = np.empty(end, np.int64)
    for i in range(start, end):
        n = path_of(tree, X[i], lifetime, path)
        room = _room_needed(tree, stats, path, n, keep)
        go_on, resample = _fits(tree, room, at_bound, keep)
        if not go_on:
            return i, room
        _learn_one(tree, stats, first, next_point, X, y, i, lifetime, rng, path, n, scratch, reached, keep, resample)
    return end, 0


@kernel
def progressive(
    tree, stats, first, next_point, X, y, start, end, lifetime, params, rng, prior, out, predicted, keep, at_bound
):
    """Progressive validation: out[i - start] += the IKN prediction at X[i] before learning point i; then learn it.
    Returns (i, room) as ``learn`` (``keep``, ``at_bound`` as there); when called again from i, ``predicted`` says
    out already holds point i's prediction."""
    reached = np.empty(end, np.int64)
    scratch = np.empty(end, np.int64)
    path, base, g = prediction_scratch(tree, True, out.shape[1])
    for i in range(start, end):
        if tree.root[0] == NO_NODE:
            for k in range(prior.shape[0]):
                out[i - start, k] += prior[k]
            tree.root[0] = add_node(tree, NO_NODE, X[i], X[i])
            _sample(tree, stats, first, next_point, X, y, np.arange(i, i + 1), tree.root[0], lifetime, rng, reached)
            continue
        if i == start and predicted:
            n = path_of(tree, X[i], lifetime, path)
        else:
            n = add_prediction(tree, stats, X[i], lifetime, params[0], path, base, g, out[i - start])
        room = _room_needed(tree, stats, path, n, keep)
        go_on, resample = _fits(tree, room, at_bound, keep)
        if not go_on:
            return i, room
        _learn_one(tree, stats, first, next_point, X, y, i, lifetime, rng, path, n, scratch, reached, keep, resample)
    return end, 0
