"""Small blocks of the online BSP tree (Fan, Li and Sisson 2020): a leaf of at most 3 points keeps no hulls.

Such a block is never cut (``MAX_UNCUT``), and a cut separating a new point goes above a leaf only when it holds more
(``_kernels.insert``): its hulls and perimeters take no part in an update until a fourth point joins it. Half of a
tree's nodes are such leaves; their hulls took 40 % of the hull pool. They are computed from the leaf's points when
needed (its fourth point, ``_kernels._set_leaf_hulls``; ``block_hull``) as the tree would have built them, to the rows:
the hull of the points the leaf was made with (``initial_points``, the last ones of its list; one for a new leaf) taken
at once in its list's order (``hull.hull_of``, as ``_kernels._cut_leaf`` does), then grown by the others one at a time
in the order they came (``hull.hull_with``, as updates grow them). Which of two points equal in a pair a hull keeps
depends on that order. A node that keeps no hulls has no row in the hull tables (``_nodes``).
"""

import numpy as np

from mondrian._compile import kernel
from mondrian._points import points_of
from mondrian.bsp._nodes import MAX_UNCUT, NO_HULLS, vertices
from mondrian.bsp.hull import hull_into, hull_with_into


@kernel(inline="always")
def has_hulls(tree, node):
    """Whether the node keeps its hulls: every node but a leaf of at most ``MAX_UNCUT`` points."""
    return tree.hull_row[node] != NO_HULLS


@kernel(refcounts=False)
def leaf_hull_into(X, rows, n, initial, d1, d2, out, work):
    """The hull in the pair (d1, d2) of a leaf's points rows[:n] (as ``points_of`` lists them, most recent first;
    the leaf was made with the last ``initial``) as the tree builds it, into out[:n] (out[n : 2 n] and work[: 4 n]
    are room for the steps); returns its size."""
    h = hull_into(X, rows[n - initial : n], initial, d1, d2, out, work)
    for k in range(n - initial - 1, -1, -1):
        hull, step = out[:h], out[n : 2 * n]  # hull_with reads hull[-1] as the last vertex
        h = hull_with_into(X, hull, h, rows[k], d1, d2, step, work)
        for j in range(h):
            out[j] = out[n + j]
    return h


@kernel
def block_hull(tree, next_point, X, pairs, node, p):
    """The node's hull in pair p: its stored vertices, or those of a small leaf computed from its points (a
    copy)."""
    if has_hulls(tree, node):
        return vertices(tree, tree.pool, node, p).copy()
    n = MAX_UNCUT
    rows, out, work = np.empty(n, np.int64), np.empty(2 * n, np.int32), np.empty(4 * n, np.int64)
    n = points_of(tree.first_point, next_point, node, rows)
    return out[
        : leaf_hull_into(X, rows, n, np.int64(tree.initial_points[node]), pairs[p, 0], pairs[p, 1], out, work)
    ].copy()
