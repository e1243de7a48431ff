"""LRT14's online extension of a restricted Mondrian tree by one point (ExtendMondrianBlock).

Helpers run per point or per node are inlined into their callers (numba's ``inline="always"``): a call that is not
inlined costs reference counting on every array it is passed (a tree is ten), and code scattered over many small
functions.
"""

import numpy as np

from mondrian._compile import kernel
from mondrian._nodes import NO_NODE, add_node, full, replace_child
from mondrian._process import set_split, store_uniform_below
from mondrian._route import path_of

# What the extension does at a leaf that x reaches (the rule for internal nodes never changes):
SPLIT_LEAVES = 0  # LRT14: an extension split can separate x from the leaf's range
KEEP_PURE_LEAVES = 1  # AMF (onelearn): not when all the leaf's labels equal x's; its range grows instead
KEEP_PAUSED_LEAVES = 2  # LRT14's paused blocks: not if the leaf is paused (one label, or a range of size 0); x joins
# it and the caller samples the block again if x un-pauses it
KEEP_LEAVES = 3  # never: x joins the leaf (a block too small to be cut: the increasing lifetime's min_samples_split)


@kernel
def _gap(low, high, v):
    """e_l + e_u in one dimension: how far v lies outside [low, high]."""
    return low - v if v < low else (v - high if v > high else 0.0)


@kernel(inline="always")
def extension_rate(lower, upper, j, x):
    """sum(e_l + e_u) for node j's box: the rate of extension splits above j."""
    total = 0.0
    for d in range(x.shape[0]):
        total += _gap(lower[j, d], upper[j, d], x[d])
    return total


@kernel
def _outside(lower, upper, j, x):
    """x lies outside node j's box [lower[j], upper[j]] (the common case, inside, reads the box once)."""
    for d in range(x.shape[0]):  # noqa: SIM110 (a loop with an early return compiles to less than any())
        if x[d] < lower[j, d] or x[d] > upper[j, d]:
            return True
    return False


@kernel(inline="always")
def first_outside(lower, upper, path, n, x):
    """The first node of the root-to-leaf path path[:n] whose box does not hold x (n if all do). Boxes are nested (a
    node's box holds its children's), so the nodes holding x come first. x mostly leaves only the last few boxes, or
    none: the search gallops up from the leaf (path[n - 1], path[n - 2], path[n - 4], ...), then halves the last
    gap; it reads few boxes, most of them those the extension reads next."""
    first, end = 0, n  # path[:first] hold x, path[end:] do not
    step = 1
    while step <= n:
        if not _outside(lower, upper, path[n - step], x):
            first = n - step + 1
            break
        end = n - step
        step *= 2
    while first < end:
        mid = (first + end) // 2
        if _outside(lower, upper, path[mid], x):
            end = mid
        else:
            first = mid + 1
    return first


@kernel(inline="always")
def _enclose(lower, upper, j, x):
    """Grow node j's box to hold x."""
    for d in range(x.shape[0]):
        lower[j, d] = min(lower[j, d], x[d])
        upper[j, d] = max(upper[j, d], x[d])


@kernel(inline="always")
def _extension_dimension(lower, upper, j, x, total, rng):
    """A dimension drawn with probability (e_l + e_u)_d / total, ``total`` = ``extension_rate`` (as
    ``choose_proportional`` over the per-dimension extensions, without an array of them)."""
    target = total * rng.random()
    acc = 0.0
    last = 0
    for d in range(x.shape[0]):
        e = _gap(lower[j, d], upper[j, d], x[d])
        if e > 0.0:
            last = d
            acc += e
            if target < acc:
                return d
    return last


@kernel(refcounts=False)
def insert_parent_above(tree, stats, j, x, time, rng):
    """New split at ``time`` just above j separating j's box from x, in a dimension drawn proportionally to how far x
    lies outside the box in each; x goes to a new leaf, which is returned.

    The new parent has seen exactly j's points, so it starts with a copy of j's statistics. Its box is j's grown to x.
    No array is made or sliced here: a row view or scratch array per call would be reference-counted and allocated
    once per point."""
    lower, upper = tree.box_lower, tree.box_upper
    dim = _extension_dimension(lower, upper, j, x, extension_rate(lower, upper, j, x), rng)
    grandparent = tree.parent[j]
    p = add_node(tree, grandparent, x, x)
    for d in range(x.shape[0]):
        lower[p, d] = min(lower[j, d], x[d])
        upper[p, d] = max(upper[j, d], x[d])
    if x[dim] > upper[j, dim]:
        threshold = store_uniform_below(tree.threshold, p, upper[j, dim], x[dim], rng)
    else:
        threshold = store_uniform_below(tree.threshold, p, x[dim], lower[j, dim], rng)
    leaf = add_node(tree, p, x, x)
    for k in range(stats.shape[1]):
        stats[p, k] = stats[j, k]
    replace_child(tree.left, tree.right, tree.root, grandparent, j, p)
    tree.parent[j] = p
    if x[dim] <= threshold:
        set_split(tree, p, time, dim, threshold, leaf, j)
    else:
        set_split(tree, p, time, dim, threshold, j, leaf)
    return leaf


@kernel
def _pure_at(stats, node, y):
    """Every label the node has seen equals y (statistics: column 0 the count, column 1 + k class k's count)."""
    return stats[node, 0] > 0.0 and stats[node, 1 + int(y)] == stats[node, 0]


@kernel
def extend(tree, stats, x, y, lifetime, leaf_rule, rng, path):
    """ExtendMondrianTree(T, lifetime, x): returns the leaf that x ends in.

    Walks down from the root; at each node j an extension split appears above j with
    rate sum(e_l + e_u) before tau_j (lifetime at a leaf), else j's box grows to x and
    the walk goes on into x's side. ``leaf_rule`` says whether a leaf may be separated from
    x (SPLIT_LEAVES), not if its labels all equal x's label y (KEEP_PURE_LEAVES, AMF's pure
    nodes), or not if it is paused (KEEP_PAUSED_LEAVES, LRT14); a leaf kept grows its box to x.
    The caller ensured room for 2 new nodes in the tree and in ``stats``, unless the tree is at its max_nodes
    (``full``): then no split appears, every box on x's path grows to x and x joins the leaf it reaches;
    ``path`` is scratch room for the nodes of a root-to-leaf path (capacity(tree) rows).
    """
    if tree.root[0] == NO_NODE:
        tree.root[0] = add_node(tree, NO_NODE, x, x)
        return tree.root[0]
    return extend_along(tree, stats, x, y, lifetime, leaf_rule, rng, path, path_of(tree, x, lifetime, path))


@kernel(inline="always")
def is_paused(tree, stats, j):
    """LRT14's paused block: all its labels are the same (statistics: column 1 + k the count of class k), or its
    range has size 0."""
    labels = 0
    for k in range(1, stats.shape[1]):
        labels += stats[j, k] > 0.0
    if labels <= 1:
        return True
    for d in range(tree.box_lower.shape[1]):  # noqa: SIM110 (numba: no generator expressions)
        if tree.box_upper[j, d] > tree.box_lower[j, d]:
            return False
    return True


@kernel(inline="always")
def _may_split(tree, stats, j, y, leaf, leaf_rule):
    if full(tree):  # at max_nodes: no more splits, x joins the leaf it reaches (``full``)
        return False
    if not leaf or leaf_rule == SPLIT_LEAVES:
        return True
    if leaf_rule == KEEP_PURE_LEAVES:
        return not _pure_at(stats, j, y)
    if leaf_rule == KEEP_LEAVES:
        return False
    return not is_paused(tree, stats, j)


@kernel(inline="always")
def extension_split(tree, stats, x, y, lifetime, leaf_rule, rng, path, n):
    """Where ``extend_along`` splits: down x's root-to-leaf path path[:n], from the first box that does not hold x
    (``first_outside``; rate 0 above), an extension split appears above each node j at the time drawn, if before
    tau_j (lifetime at a leaf) and ``leaf_rule`` allows it and the tree is not ``full``; else j's box grows to x (a
    full tree draws the times as one with room, but goes on down the path instead of splitting). Returns (i, time)
    for a split above path[i], (n, inf) if none (the boxes then all hold x). The parent of path[i] is path[i - 1]."""
    split_time, lower, upper = tree.split_time, tree.box_lower, tree.box_upper
    for i in range(first_outside(lower, upper, path, n, x), n):
        j = path[i]
        leaf = i == n - 1
        rate = extension_rate(lower, upper, j, x)
        time = (split_time[path[i - 1]] if i > 0 else 0.0) + rng.exponential(1.0 / rate)
        if time < (lifetime if leaf else split_time[j]) and _may_split(tree, stats, j, y, leaf, leaf_rule):
            return i, time
        _enclose(lower, upper, j, x)
    return n, np.inf


@kernel
def extend_along(tree, stats, x, y, lifetime, leaf_rule, rng, path, n):
    """``extend`` in a non-empty tree, given x's root-to-leaf path path[:n] (``path_of``)."""
    i, time = extension_split(tree, stats, x, y, lifetime, leaf_rule, rng, path, n)
    return path[n - 1] if i == n else insert_parent_above(tree, stats, path[i], x, time, rng)


@kernel(inline="always")
def path_after(tree, path, n, leaf):
    """Make path[:n], x's root-to-leaf path before ``extend`` (n = 0: the tree was empty), the path to ``leaf``, the
    leaf x ended in; returns its length. Either x stayed in path[n - 1], or a new parent p was inserted above some
    path[i] = j with x in a new leaf below p: the path becomes path[:i], p, leaf."""
    if n > 0 and leaf == path[n - 1]:
        return n
    p = tree.parent[leaf]
    i = 0
    if p != NO_NODE:
        j = tree.left[p] if tree.right[p] == leaf else tree.right[p]
        while path[i] != j:
            i += 1
        path[i] = p
        i += 1
    path[i] = leaf
    return i + 1
