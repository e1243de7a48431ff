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

An update does the hull work it must and no more: the way down depends on the cuts only and a node's hull holds its
children's, so the levels from which the point is outside each pair's hulls are found by bisection along the path
(O(log depth) hull tests per pair, not one per node); only the hulls the point is outside of grow, and only their
perimeters are computed (a node keeps its own, per pair); a leaf of at most 3 points keeps no hulls
(``_small_blocks``): they are computed when it takes a fourth point; room made once per kernel call (``Growth``)
spares the updates any allocation but that of the cuts they make. Every tree is the one the node-by-node update
built, bit for bit (``tests/mondrian/test_bsp_bit_for_bit.py``).
"""

from typing import NamedTuple

import numpy as np

from mondrian._compile import kernel
from mondrian._nodes import NO_NODE, replace_child
from mondrian._points import NO_POINT, add_point, points_of
from mondrian._process import choose_proportional
from mondrian._schedule import value_at
from mondrian.bsp._nodes import (
    MAX_POOL,
    MAX_UNCUT,
    goes_left,
    hull_size,
    leaf_of,
    new_node,
    perimeters,
    set_hull,
    slot_length,
    slot_room,
    slots,
    vertices,
    with_pool_room,
    with_room,
)
from mondrian.bsp._small_blocks import has_hulls, leaf_hull_into
from mondrian.bsp.hull import (
    UNDECIDED,
    contains,
    hull_with,
    hulls_with,
    locate,
    perimeter_at,
    sample_cut,
    sample_separating_cut,
)

SOFT, HARD = 0, 1  # the forest's vote
LAW, TEXT = 0, 1  # how a leaf reached by a new point is sampled (``insert``)


@kernel
def _add_target(stats, node, y, onehot, sign):
    stats[node, 0] += sign
    if onehot:
        stats[node, 1 + int(y)] += sign
    else:
        stats[node, 1] += sign * y


class Growth(NamedTuple):
    """Room for the hull work of an update, made once per kernel call (``growth``) so that an update allocates
    nothing (a deeper path or more grown vertices make room of their own).

    The point's path and, per pair, the level from which it is outside the hulls; the hulls it grows, one per node
    and pair it is outside of, level by level from ``top`` (level ``top + r``'s are ``first[r]`` to
    ``first[r + 1] - 1``, in pair order): their pair, old slot and size, where the grown hull starts in ``vertices``
    and its size, its perimeter and the increase of the node's. One array per field, not rows of a table: a row
    would be a view, and numba counts the references to a view at every call that takes one.
    """

    path: np.ndarray  # int64 (levels,)
    outside_from: np.ndarray  # int64 (n_pairs,)
    first: np.ndarray  # int64 (levels + 1,)
    pair: np.ndarray  # int64 (levels * n_pairs,) for each grown hull
    start: np.ndarray  # int64, its old slot
    size: np.ndarray  # int64, its old size
    at: np.ndarray  # int64, where it grows in ``vertices``
    grown: np.ndarray  # int64, its size grown
    perimeter: np.ndarray  # float64, its perimeter grown
    increase: np.ndarray  # float64, the increase of the node's
    vertices: np.ndarray  # int32 (room for grown hulls,)


LEVELS = 64  # the levels of a path a kernel call's Growth holds


@kernel
def growth(n_pairs, levels, vertices):
    """Room for the hull work of updates whose paths have ``levels`` levels and grown hulls ``vertices`` vertices."""
    n = levels * n_pairs
    return Growth(
        np.empty(levels, np.int64),
        np.empty(n_pairs, np.int64),
        np.empty(levels + 1, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n),
        np.empty(n),
        np.empty(vertices, np.int32),
    )


@kernel(refcounts=False)
def _descend(tree, z, pairs, path):
    """The nodes from the root to the leaf whose cell holds z, into path (as far as it has room); returns their
    number. The way down depends on the cuts only, not on the hulls an update changes."""
    node, depth = tree.root[0], 0
    while True:
        if depth < path.shape[0]:
            path[depth] = node
        depth += 1
        left, right = tree.left[node], tree.right[node]
        if left == NO_NODE:
            return depth
        node = left if goes_left(tree, node, z, pairs) else right


@kernel(refcounts=False)
def _outside_from(hulls, pool, X, i, pairs, path, depth, outside_from):
    """outside_from[p]: the level of the path from which point i is outside the nodes' hulls in pair p (depth when
    it is inside them all); returns the least.

    A node's hull holds its children's, so i is inside the hulls of a top part of the path and outside below it:
    O(log depth) hull tests per pair instead of one per node, going up from the leaf by doubling steps (the boundary
    is mostly a few levels above the leaf, where hulls are small), then by bisection.
    """
    top = depth
    for p in range(pairs.shape[0]):
        d1, d2 = pairs[p, 0], pairs[p, 1]
        z1, z2 = X[i, d1], X[i, d2]
        low, high, step = 0, depth, 1  # inside above level low, outside from level high on
        while low < high:
            level = high - step if step > 0 else (low + high) >> 1
            if level < low:
                step, level = 0, (low + high) >> 1
            node = path[level]
            row = hulls.hull_row[node]
            where = locate(X, pool, hulls.hull_start[row, p], hulls.hull_size[row, p], d1, d2, z1, z2)
            if where == UNDECIDED:  # contains decides, exactly
                where = contains(X, vertices(hulls, pool, node, p), hull_size(hulls, node, p), d1, d2, z1, z2)
            if where == 0:
                high, step = level, 2 * step
            else:
                low, step = level + 1, 0
        outside_from[p] = low
        top = min(top, low)
    return top


@kernel(refcounts=False)
def _list_grown(tree, pairs, depth, top, work):
    """List the hulls an update grows (``Growth``): at each level from ``top`` on, in pair order, those the point is
    outside of, with their slots and where their grown copies go; returns the vertices they take."""
    n, at = 0, 0
    for level in range(top, depth):
        row = tree.hull_row[work.path[level]]
        work.first[level - top] = n
        for p in range(pairs.shape[0]):
            if work.outside_from[p] <= level:
                work.pair[n], work.start[n], work.size[n] = p, tree.hull_start[row, p], tree.hull_size[row, p]
                work.at[n] = at
                at += work.size[n] + 1
                n += 1
    work.first[depth - top] = n
    return at


@kernel(refcounts=False)
def _grow_level(hull_row, perimeter, pool, X, i, pairs, node, row, work):
    """The hulls of the node at level ``top + row`` with point i added, in the pairs i is outside of there, their
    perimeters and the increases of the node's; returns the sum of the increases (the rate of a cut separating i
    from the node), or NaN when ``hulls_with`` left a hull UNDECIDED (``_grow_undecided`` then decides). Levels are
    grown one by one as the walk down reaches them: it may stop above the leaf."""
    begin, end = work.first[row], work.first[row + 1]
    undecided = hulls_with(
        X, pool, work.start, work.size, work.pair, pairs, i, work.vertices, work.at, work.grown, begin, end
    )
    if undecided > 0:
        return np.nan
    return _increases(hull_row, perimeter, X, pairs, node, begin, end, work)


@kernel(refcounts=False)
def _increases(hull_row, perimeter, X, pairs, node, begin, end, work):
    """The perimeters of the grown hulls begin..end-1 of the node and the increases of its own; returns their sum."""
    total, row = 0.0, hull_row[node]
    for e in range(begin, end):
        p = work.pair[e]
        work.perimeter[e] = perimeter_at(X, work.vertices, work.at[e], work.grown[e], pairs[p, 0], pairs[p, 1])
        work.increase[e] = max(work.perimeter[e] - perimeter[row, p], 0.0)
        total += work.increase[e]
    return total


@kernel(refcounts=False)
def _grow_undecided(hulls, pool, X, i, pairs, node, row, work):
    """``_grow_level`` when ``hulls_with`` left a hull UNDECIDED: the exact predicates decide (``hull_with``)."""
    begin, end = work.first[row], work.first[row + 1]
    for e in range(begin, end):
        if work.grown[e] == UNDECIDED:
            p, at = work.pair[e], work.at[e]
            out = work.vertices[at : at + work.size[e] + 1]
            work.grown[e] = hull_with(X, vertices(hulls, pool, node, p), work.size[e], i, pairs[p, 0], pairs[p, 1], out)
    return _increases(hulls.hull_row, hulls.perimeter, X, pairs, node, begin, end, work)


@kernel
def _store_levels(tree, pool, top, stop, work):
    """The hulls grown at levels top..stop-1 of the path stored in their nodes; returns the pool (grown once, if it
    must, for them all)."""
    hulls = slots(tree)
    pool = with_pool_room(hulls, pool, _room_of_levels(hulls, top, stop, work))
    _set_levels(hulls, pool, top, stop, work)
    return pool


@kernel(refcounts=False)
def _room_of_levels(hulls, top, stop, work):
    """The pool room the hulls grown at levels top..stop-1 take (``slot_room``)."""
    need = 0
    for level in range(top, stop):
        for e in range(work.first[level - top], work.first[level - top + 1]):
            need += slot_room(hulls, work.path[level], work.pair[e], work.grown[e])
    return need


@kernel(refcounts=False)
def _set_levels(hulls, pool, top, stop, work):
    """Store the hulls grown at levels top..stop-1 (the pool has room for them, ``_room_of_levels``)."""
    for level in range(top, stop):
        for e in range(work.first[level - top], work.first[level - top + 1]):
            node, p = work.path[level], work.pair[e]
            set_hull(hulls, pool, node, p, work.vertices, work.at[e], work.grown[e], work.perimeter[e])


@kernel
def _set_leaf_hulls(hulls, pool, node, X, rows, n, initial, pairs, out, work):
    """The hulls of a leaf in every pair, computed from its points rows[:n] as the tree builds them (it was made with
    the last ``initial``, ``leaf_hull_into``), through ``out`` and ``work``; returns the pool. For a leaf a cut makes
    (all its points), and for a small leaf that takes its fourth point."""
    at = np.int64(0)  # an int64, not a literal: the one compiled version of set_hull and perimeter_at
    for p in range(pairs.shape[0]):
        d1, d2 = pairs[p, 0], pairs[p, 1]
        h = leaf_hull_into(X, rows, n, initial, d1, d2, out, work)
        pool = with_pool_room(hulls, pool, slot_room(hulls, node, p, h))
        set_hull(hulls, pool, node, p, out, at, h, perimeter_at(X, out, at, h, d1, d2))
    return pool


@kernel(inline="always")
def _cut_leaf(tree, pool, node, next_point, X, Y, onehot, pairs, total, time, rng):
    """Cut the leaf at ``time`` in a pair drawn proportionally to its perimeter; returns (pool, left, right) with
    the leaf's points, statistics and hulls handed to the two new children (the caller made room for them)."""
    count = int(tree.stats[node, 0])
    rows, side = np.empty(count, np.int64), np.empty(count, np.bool_)
    n = points_of(tree.first_point, next_point, node, rows)
    while True:  # a line through the hull leaves vertices on both sides; only rounding could say otherwise
        p = choose_proportional(perimeters(tree, node), total, rng)
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
    out, work = np.empty(2 * n, np.int32), np.empty(4 * n, np.int64)
    for child in (left, right):
        count = int(tree.stats[child, 0])
        m = points_of(tree.first_point, next_point, child, rows)
        assert m == count
        tree.initial_points[child] = min(m, MAX_UNCUT + 1)
        if m > MAX_UNCUT:
            pool = _set_leaf_hulls(slots(tree), pool, child, X, rows, m, np.int64(m), pairs, out, work)
    return pool, left, right


@kernel(inline="always")
def _cut_time(tree, node, start, budget, pairs, rate_scale, rng):
    """The node is sampled until ``budget``: (the time of its cut after ``start``, inf for a block that cannot be
    cut; the sum of its perimeters)."""
    tree.sampled_until[node] = budget
    if tree.stats[node, 0] <= MAX_UNCUT:
        return np.inf, 0.0
    total, perimeter = 0.0, perimeters(tree, node)
    for p in range(pairs.shape[0]):
        total += perimeter[p]
    if total <= 0.0:
        return np.inf, total
    return start + rng.exponential(1.0 / (rate_scale * total)), total


@kernel
def hull_cut(tree, pool, leaf, start_time, budget, next_point, X, Y, onehot, pairs, rate_scale, rng):
    """Algorithm 5 (HullCut) below the leaf from ``start_time``: cuts before ``budget``; every leaf it leaves has
    been sampled until ``budget``. Returns the pool."""
    time, total = _cut_time(tree, leaf, start_time, budget, pairs, rate_scale, rng)
    if not time < budget:  # most calls: the leaf is not cut
        return pool
    # The blocks left to sample, last in first out: at most one per point of the leaf (each block holds one).
    stack_node = np.empty(int(tree.stats[leaf, 0]), np.int64)
    stack_start = np.empty(stack_node.shape[0])
    stack_node[0], stack_start[0] = leaf, start_time
    top = 1
    while top > 0:
        top -= 1
        node, start = stack_node[top], stack_start[top]
        if node != leaf:  # the leaf's time was drawn above
            time, total = _cut_time(tree, node, start, budget, pairs, rate_scale, rng)
        if time < budget:
            pool, stack_node[top], stack_node[top + 1] = _cut_leaf(
                tree, pool, node, next_point, X, Y, onehot, pairs, total, time, rng
            )
            stack_start[top] = stack_start[top + 1] = time
            top += 2
    return pool


@kernel(inline="always")
def _room_above(tree, node, begin, end, work):
    """The pool room the hulls of a new node above ``node`` take: its grown ones (``work``'s begin..end-1), its
    others."""
    need, row = 0, tree.hull_row[node]
    for q in range(tree.hull_size.shape[1]):
        need += slot_length(tree.hull_size[row, q])
    for e in range(begin, end):
        need += slot_length(work.grown[e]) - slot_length(work.size[e])
    return need


@kernel(inline="always")
def _new_parent(tree, pool, node, row, i, next_point, X, Y, onehot, pairs, total, time, rng, work):
    """Algorithm 6: a cut at ``time`` that separates point i from the node's hull, in a new node above it; the node
    is demoted under it, beside a new leaf holding i. The node's grown hulls (level ``top + row`` of ``work``) go
    above. Returns the pool (the caller made room for the nodes)."""
    parent = tree.parent[node]
    above = new_node(tree, parent)
    leaf = new_node(tree, above)
    replace_child(tree.left, tree.right, tree.root, parent, node, above)
    tree.parent[node] = above
    begin, end = work.first[row], work.first[row + 1]  # the grown, by pair
    p = work.pair[begin + choose_proportional(work.increase[begin:end], total, rng)]
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
    hulls = slots(tree)
    pool = with_pool_room(hulls, pool, _room_above(tree, node, begin, end, work))
    e, row = begin, tree.hull_row[node]
    for q in range(pairs.shape[0]):
        if e < end and work.pair[e] == q:
            set_hull(hulls, pool, above, q, work.vertices, work.at[e], work.grown[e], work.perimeter[e])
            e += 1
        else:
            start, h = np.int64(tree.hull_start[row, q]), np.int64(tree.hull_size[row, q])
            set_hull(hulls, pool, above, q, pool, start, h, tree.perimeter[row, q])
    add_point(tree.first_point, next_point, leaf, i)
    _add_target(tree.stats, leaf, Y[i], onehot, 1.0)
    return pool


@kernel
def insert(tree, pool, i, budget, next_point, X, Y, onehot, pairs, rate_scale, leaf_sampling, rng, room):
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

    The way down depends on the cuts only, and a node's hull holds its children's: the levels from which i is
    outside each pair's hulls come first, in O(log depth) hull tests per pair (``_outside_from``); then the walk
    down grows the hulls of each level it reaches in the pairs i is outside of (``_grow_level``) and draws the
    times; the hulls of the nodes i joined are stored when it stops (``_store_levels``). A small leaf keeps no
    hulls: i is tested against and grows those above it, and its hulls are computed when i is its fourth point.
    ``room`` is the call's ``Growth``. The tree must have room for the nodes (``_room_needed``); returns the pool,
    which may have grown.
    """
    if tree.root[0] == NO_NODE:
        tree.root[0] = new_node(tree, NO_NODE)
        add_point(tree.first_point, next_point, tree.root[0], i)
        _add_target(tree.stats, tree.root[0], Y[i], onehot, 1.0)
        return pool
    z = X[i]
    depth = _descend(tree, z, pairs, room.path)
    work = room
    if depth > room.path.shape[0]:  # a deep path: room of its own
        work = growth(pairs.shape[0], depth, room.vertices.shape[0])
        _descend(tree, z, pairs, work.path)
    grown_depth = depth - 1 if not has_hulls(tree, work.path[depth - 1]) else depth  # the levels whose hulls i grows
    hulls = slots(tree)
    top = _outside_from(hulls, pool, X, i, pairs, work.path, grown_depth, work.outside_from)
    need = _list_grown(tree, pairs, grown_depth, top, work)
    if need > work.vertices.shape[0]:  # large hulls: room of their own
        # (mypy cannot count the fields star-unpacking gives: all but the last, then the last)
        work = Growth(*work[:-1], np.empty(need, np.int32))  # type: ignore[call-arg]
    start = 0.0
    for level in range(depth):
        node = work.path[level]
        is_leaf = level == depth - 1
        total = 0.0
        if top <= level < grown_depth:
            total = _grow_level(tree.hull_row, tree.perimeter, pool, X, i, pairs, node, level - top, work)
            if total != total:
                total = _grow_undecided(hulls, pool, X, i, pairs, node, level - top, work)
        if is_leaf and (tree.stats[node, 0] <= MAX_UNCUT or leaf_sampling == TEXT):
            pool = _store_levels(tree, pool, top, grown_depth, work)
            add_point(tree.first_point, next_point, node, i)
            _add_target(tree.stats, node, Y[i], onehot, 1.0)
            if grown_depth < depth and tree.stats[node, 0] > MAX_UNCUT:  # a small leaf took its fourth point
                n = MAX_UNCUT + 1
                rows, out, hull_work = np.empty(n, np.int64), np.empty(2 * n, np.int32), np.empty(4 * n, np.int64)
                points_of(tree.first_point, next_point, node, rows)
                initial = np.int64(tree.initial_points[node])
                pool = _set_leaf_hulls(hulls, pool, node, X, rows, n, initial, pairs, out, hull_work)
            if tree.stats[node, 0] > MAX_UNCUT:
                pool = hull_cut(tree, pool, node, start, budget, next_point, X, Y, onehot, pairs, rate_scale, rng)
            return pool
        limit = tree.sampled_until[node] if is_leaf else tree.split_time[node]
        if total > 0.0:
            time = start + rng.exponential(1.0 / (rate_scale * total))
            if time < limit:
                pool = _store_levels(tree, pool, top, level, work)
                return _new_parent(
                    tree, pool, node, level - top, i, next_point, X, Y, onehot, pairs, total, time, rng, work
                )
        _add_target(tree.stats, node, Y[i], onehot, 1.0)
        if is_leaf:
            pool = _store_levels(tree, pool, top, depth, work)
            add_point(tree.first_point, next_point, node, i)
            if budget > limit:
                pool = hull_cut(tree, pool, node, limit, budget, next_point, X, Y, onehot, pairs, rate_scale, rng)
            return pool
        start = tree.split_time[node]
    return pool


@kernel
def _insert_points(
    tree, pool, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent, leaf_sampling,
    rng, room,
):  # fmt: skip
    """``learn``'s loop over the points: (the pool, the point it stopped before, the room that point needs; ``end``
    and 0 when it inserted them all)."""
    for i in range(start, end):
        need = _room_needed(tree, _leaf_reached(tree, X[i], pairs))
        if not _has_room(tree, need):
            return pool, i, need
        budget = value_at(i + 1, budget_scale, budget_exponent)  # tau_n (``_schedule``)
        pool = insert(tree, pool, i, budget, next_point, X, Y, onehot, pairs, rate_scale, leaf_sampling, rng, room)
    return pool, end, 0


@kernel
def _leaf_reached(tree, z, pairs):
    """The leaf whose cell holds z; NO_NODE in the empty tree."""
    return NO_NODE if tree.root[0] == NO_NODE else leaf_of(tree, z, pairs)


@kernel
def _has_room(tree, need):
    """Whether the tree has room for ``need`` more nodes and the rows of hull tables they may take, with one more
    (a small leaf that takes a fourth point)."""
    nodes = tree.n_nodes[0] + need <= tree.parent.shape[0]
    return nodes & (tree.hull_rows_used[0] + need + 1 <= tree.hull_start.shape[0])


@kernel
def _room_needed(tree, leaf):
    """The nodes inserting a point that reaches ``leaf`` may make: the root of the empty tree (leaf NO_NODE), a new
    node above another and a new leaf, or the cuts of the leaf with the point (2 per point it then holds, at most)."""
    return 1 if leaf == NO_NODE else 2 * (int(tree.stats[leaf, 0]) + 1)


def _growth_for(pairs):
    """The ``Growth`` of a kernel call: paths of LEVELS levels, 8 vertices per pair and level."""
    return growth(pairs.shape[0], LEVELS, LEVELS * pairs.shape[0] * 8)


def _with_room_for(tree, start, end, need):
    """The tree with room for the nodes and hull rows of the stored points start..end-1 at the rates of those it
    holds (1 and 1/2 per point for the empty tree; the kernels stop before a point it may lack room for), at least
    for ``need`` nodes (``_has_room``); its hulls hold their rows as int32."""
    if end > MAX_POOL:
        raise ValueError(f"a BSP forest learns at most {MAX_POOL} points (its hulls hold their rows as int32)")
    nodes, hulls = (int(tree.n_nodes[0]) / start, int(tree.hull_rows_used[0]) / start) if start > 0 else (1.0, 0.5)
    n = end - start
    return with_room(tree, max(int(nodes * n) + 1, need), max(int(hulls * n) + 1, need + 1))


def learn(
    tree, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent, leaf_sampling, rng
):
    """Insert the stored points start..end-1 in order; the budget of point i is tau_{i+1}. Returns the tree (grown
    here as the points need: a kernel call stops before a point it may lack room for)."""
    room, need = _growth_for(pairs), 0
    while start < end:
        tree = _with_room_for(tree, start, end, need)
        pool, start, need = _insert_points(
            tree, tree.pool, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent,
            leaf_sampling, rng, room,
        )  # fmt: skip
        tree = tree._replace(pool=pool)
    return tree


@kernel
def _add_leaf_prediction(stats, leaf, onehot, vote, out):
    count = stats[leaf, 0]
    if not onehot:
        out[0] += stats[leaf, 1] / count
    elif vote == HARD:
        out[np.argmax(stats[leaf, 1:])] += 1.0
    else:
        for k in range(out.shape[0]):
            out[k] += stats[leaf, 1 + k] / count


@kernel
def predict(tree, X, onehot, pairs, vote, out):
    """out[i] += the tree's prediction at X[i]: its leaf's label distribution (or a vote for its majority label),
    or its mean target."""
    for i in range(X.shape[0]):
        _add_leaf_prediction(tree.stats, leaf_of(tree, X[i], pairs), onehot, vote, out[i])


@kernel
def _progressive_points(
    tree, pool, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent, leaf_sampling,
    vote, rng, prior, out, room,
):  # fmt: skip
    """``progressive``'s loop over the points: returns what ``_insert_points`` does."""
    for i in range(start, end):
        leaf = _leaf_reached(tree, X[i], pairs)
        need = _room_needed(tree, leaf)
        if not _has_room(tree, need):
            return pool, i, need
        if leaf == NO_NODE:
            for k in range(prior.shape[0]):
                out[i - start, k] += prior[k]
        else:
            _add_leaf_prediction(tree.stats, leaf, onehot, vote, out[i - start])
        budget = value_at(i + 1, budget_scale, budget_exponent)  # tau_n (``_schedule``)
        pool = insert(tree, pool, i, budget, next_point, X, Y, onehot, pairs, rate_scale, leaf_sampling, rng, room)
    return pool, end, 0


def progressive(
    tree, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent, leaf_sampling, vote,
    rng, prior, out,
):  # fmt: skip
    """Progressive validation: out[i - start] += the prediction at stored point i before it is inserted (``prior``
    while the tree is empty). Returns the tree (grown as in ``learn``)."""
    room, need, first = _growth_for(pairs), 0, start
    while start < end:
        tree = _with_room_for(tree, start, end, need)
        pool, start, need = _progressive_points(
            tree, tree.pool, next_point, X, Y, start, end, onehot, pairs, rate_scale, budget_scale, budget_exponent,
            leaf_sampling, vote, rng, prior, out[start - first :], room,
        )  # fmt: skip
        tree = tree._replace(pool=pool)
    return tree
