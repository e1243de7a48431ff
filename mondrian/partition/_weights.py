"""The forest's weights of its training points at x, CKU23's w_i(x) = (1/B) sum_b 1(X_i in T_b(x)) / N_b(x), from
which their variance estimator is built.

Each tree keeps the points of its leaves at the fitted lifetime as linked lists (``mondrian._points``); the weight of
a point at x is its share of x's leaf (its sample weight over the leaf's, ``stats[leaf, 0]``), zero for every point
when x's leaf holds none (CKU23's 0/0 = 0).
"""

import numpy as np

from mondrian._compile import kernel
from mondrian._points import NO_POINT, add_point
from mondrian._route import leaf_of


def keep(tree, leaves) -> None:
    """Keep each point i in the list of its leaf ``leaves[i]`` of the tree."""
    tree.keep_points(leaves.shape[0])
    _keep(tree.first_point, tree.next_point, leaves)


@kernel
def _keep(first, next_point, leaves):
    for i in range(leaves.shape[0] - 1, -1, -1):  # each list ends up in increasing point order
        add_point(first, next_point, leaves[i], i)


@kernel
def add_weights(tree, stats, first, next_point, point_weights, X, coef, out):
    """out[i, p] += coef * point_weights[p] / stats[leaf, 0] for every training point p of the leaf of X[i]."""
    for i in range(X.shape[0]):
        leaf = leaf_of(tree, X[i], np.inf)
        total = stats[leaf, 0]
        p = first[leaf]
        while p != NO_POINT:
            out[i, p] += coef * point_weights[p] / total
            p = next_point[p]
