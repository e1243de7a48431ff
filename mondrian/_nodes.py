"""The node arrays of the Mondrian-family trees (``TreeArrays``): the core's links and counters
(``mondrian._node_arrays``), with a split and a box per node.

``feature`` and ``threshold`` are the node's split (x goes left when ``x[feature] <= threshold``); ``split_time``
is the Mondrian time of the split, ``inf`` for a leaf: a node is internal at lifetime ``lam`` iff
``split_time < lam``. ``box_lower``/``box_upper`` hold the node's box: the range of the data it has seen for
range-based (restricted) trees, the cell itself for full partitions. The arrays grow by doubling their capacity (as
scikit-learn's ``Tree``), between kernel calls (``reserved``).
"""

from typing import NamedTuple

import numpy as np

from mondrian._compile import kernel
from mondrian._node_arrays import (
    LINKS,
    MAX_ROWS,
    NO_NODE,
    Columns,
    capacity,
    counters,
    links,
    replace_child,
    reserved_rows,
    take_node,
)

# re-exported: the kernels of the Mondrian-family trees take what they use of the core from here
__all__ = [
    "COLUMNS",
    "MAX_ROWS",
    "NO_NODE",
    "TreeArrays",
    "add_node",
    "capacity",
    "depths",
    "empty_tree",
    "full",
    "is_leaf",
    "parent_time",
    "replace_child",
    "reserved",
    "reserved_rows",
]


class TreeArrays(NamedTuple):
    parent: np.ndarray  # int32 (capacity,), NO_NODE at the root
    left: np.ndarray  # int32 (capacity,), NO_NODE at a leaf
    right: np.ndarray  # int32 (capacity,)
    feature: np.ndarray  # int32 (capacity,), split dimension
    threshold: np.ndarray  # (capacity,) in the boxes' dtype, x[feature] <= threshold goes left
    split_time: np.ndarray  # float64 (capacity,), inf at a leaf
    box_lower: np.ndarray  # (capacity, n_features), in the dtype of the data (float64, or float32 for AMF)
    box_upper: np.ndarray  # (capacity, n_features)
    n_nodes: np.ndarray  # int64 (1,), rows in use
    root: np.ndarray  # int64 (1,), NO_NODE while the tree is empty


# the per-node columns and the fill of new rows; the capacity doubles
COLUMNS = Columns(
    {**LINKS, "feature": NO_NODE, "threshold": 0.0, "split_time": np.inf, "box_lower": 0.0, "box_upper": 0.0},
    used="n_nodes",
    growth=2.0,
)


def empty_tree(n_features: int, capacity: int = 16, dtype=np.float64) -> TreeArrays:
    """A tree with no node and room for ``capacity`` nodes, boxes in ``dtype`` (that of the points it will hold)."""
    capacity = max(int(capacity), 1)
    return TreeArrays(
        **links(capacity),
        feature=np.full(capacity, NO_NODE, np.int32),
        threshold=np.zeros(capacity, dtype),
        split_time=np.full(capacity, np.inf),
        box_lower=np.zeros((capacity, n_features), dtype),
        box_upper=np.zeros((capacity, n_features), dtype),
        **counters(),
    )


def reserved(tree: TreeArrays, n_new: int) -> TreeArrays:
    """``tree`` itself if it has room for ``n_new`` more nodes, else a copy grown by doubling."""
    return COLUMNS.with_room(tree, n_new)


@kernel(inline="always")
def add_node(tree, parent, lower, upper):
    """Append a leaf with box [lower, upper] below ``parent``; the caller ensured capacity."""
    node = take_node(tree, parent)
    tree.feature[node] = NO_NODE
    tree.threshold[node] = 0.0
    tree.split_time[node] = np.inf
    for d in range(lower.shape[0]):  # element by element: a row assignment compiles numba's shape-error message
        tree.box_lower[node, d] = lower[d]
        tree.box_upper[node, d] = upper[d]
    return node


@kernel(inline="always")
def full(tree):
    """The tree has no room for the 2 nodes of a split: it holds its ``max_nodes`` (the Python side reserves rows up
    to that bound only, and otherwise room for every node a kernel call may add), so it stops splitting."""
    return tree.n_nodes[0] + 2 > capacity(tree)


# Node-level helpers take the arrays they read, not the tree: a call per visited node that
# passes the whole tree costs reference counting on all its arrays (measured 6x slower routing).
@kernel
def parent_time(parent, split_time, node):
    """Split time of the node's parent, 0 at the root (tau_parent(root) = 0)."""
    p = parent[node]
    return 0.0 if p == NO_NODE else split_time[p]


@kernel
def is_leaf(left, split_time, node, lifetime):
    return left[node] == NO_NODE or split_time[node] >= lifetime


@kernel
def depths(tree, lifetime):
    """Depth of every node in use (root 0); -1 for nodes pruned away at ``lifetime``."""
    n = tree.n_nodes[0]
    depth = np.full(n, -1, np.int64)
    if n == 0:
        return depth
    left, right, split_time = tree.left, tree.right, tree.split_time
    stack = np.empty(n, np.int64)
    stack[0] = tree.root[0]
    depth[tree.root[0]] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        if not is_leaf(left, split_time, node, lifetime):
            for child in (left[node], right[node]):
                depth[child] = depth[node] + 1
                stack[top] = child
                top += 1
    return depth
