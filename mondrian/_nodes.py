"""Node-array storage shared by every Mondrian-family tree.

A tree is a struct of parallel arrays with one row per node, grown by doubling
capacity (as scikit-learn's ``Tree``), never a Python object per node. It grows in
Python, between kernel calls (``reserved``): the caller reserves room, or a kernel
stops before it could run out of it (kernels that copied the tree to grow it spent
most of their compile time there).
``box_lower``/``box_upper`` hold the node's box: the range of the data it has
seen for range-based (restricted) trees, the cell itself for full partitions.
``split_time`` is the Mondrian time of the node's split, ``inf`` for a leaf; a
node is internal at lifetime ``lam`` iff ``split_time < lam``.
"""

from typing import NamedTuple

import numpy as np
from numba.extending import overload

from mondrian._compile import kernel

NO_NODE = -1


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


def empty_tree(n_features: int, capacity: int = 16, dtype=np.float64) -> TreeArrays:
    """A tree with no node and room for ``capacity`` nodes, boxes in ``dtype`` (that of the points it will hold)."""
    capacity = max(int(capacity), 1)
    return TreeArrays(
        parent=np.full(capacity, NO_NODE, np.int32),
        left=np.full(capacity, NO_NODE, np.int32),
        right=np.full(capacity, NO_NODE, np.int32),
        feature=np.full(capacity, NO_NODE, np.int32),
        threshold=np.zeros(capacity, dtype),
        split_time=np.full(capacity, np.inf),
        box_lower=np.zeros((capacity, n_features), dtype),
        box_upper=np.zeros((capacity, n_features), dtype),
        n_nodes=np.zeros(1, np.int64),
        root=np.full(1, NO_NODE, np.int64),
    )


@kernel
def replace_child(left, right, root, parent, old, new):
    """Put node ``new`` where ``old`` was: under ``parent`` (NO_NODE: as the root)."""
    if parent == NO_NODE:
        root[0] = new
    elif left[parent] == old:
        left[parent] = new
    else:
        right[parent] = new


def capacity(tree):
    """The rows the node arrays have room for (callable from Python and from the kernels)."""
    return tree.parent.shape[0]


@overload(capacity, inline="always")
def _capacity_in_kernels(tree):
    return lambda tree: tree.parent.shape[0]


def grown(a: np.ndarray, rows: int, fill) -> np.ndarray:
    """A copy of a per-node array with ``rows`` rows, the new ones set to ``fill``. A fill of 0 (the boxes, the
    statistics) takes numpy's zeroed allocation: the pages of rows never used, most of what a growth reserves, are
    then never written (the system maps them, zero, when a node first lands there)."""
    if fill == 0:
        out = np.zeros((rows, *a.shape[1:]), a.dtype)
    else:
        out = np.empty((rows, *a.shape[1:]), a.dtype)
        out[a.shape[0] :] = fill
    out[: a.shape[0]] = a
    return out


def reserved(tree: TreeArrays, n_new: int) -> TreeArrays:
    """``tree`` itself if it has room for ``n_new`` more nodes, else a copy grown by doubling."""
    needed = int(tree.n_nodes[0]) + n_new
    if needed <= capacity(tree):
        return tree
    rows = max(needed, 2 * capacity(tree))
    return TreeArrays(
        *(grown(a, rows, fill) for a, fill in zip(tree[:8], (NO_NODE,) * 4 + (0.0, np.inf, 0.0, 0.0), strict=True)),
        tree.n_nodes,
        tree.root,
    )


def reserved_rows(a: np.ndarray, rows: int, fill=0) -> np.ndarray:
    """Side array ``a`` (new rows set to ``fill``) with at least ``rows`` rows, doubling: per node, or per point."""
    if a.shape[0] >= rows:
        return a
    return grown(a, max(rows, 2 * a.shape[0]), fill)


@kernel(inline="always")
def add_node(tree, parent, lower, upper):
    """Append a leaf with box [lower, upper] below ``parent``; the caller ensured capacity."""
    node = tree.n_nodes[0]
    tree.n_nodes[0] = node + 1
    tree.parent[node] = parent
    tree.left[node] = NO_NODE
    tree.right[node] = NO_NODE
    tree.feature[node] = NO_NODE
    tree.threshold[node] = 0.0
    tree.split_time[node] = np.inf
    for d in range(lower.shape[0]):  # element by element: a row assignment compiles numba's shape-error message
        tree.box_lower[node, d] = lower[d]
        tree.box_upper[node, d] = upper[d]
    return node


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
