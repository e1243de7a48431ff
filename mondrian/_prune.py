"""Pruning a Mondrian tree at a smaller lifetime: keep the splits with time < lifetime."""

import numpy as np

from mondrian._compile import kernel
from mondrian._nodes import NO_NODE, add_node, empty_tree, is_leaf


@kernel
def _prune_into(tree, lifetime, out, origin):
    stack = np.empty(tree.n_nodes[0], np.int64)
    stack_new = np.empty(tree.n_nodes[0], np.int64)
    root = tree.root[0]
    out.root[0] = add_node(out, NO_NODE, tree.box_lower[root], tree.box_upper[root])
    origin[out.root[0]] = root
    stack[0], stack_new[0] = root, out.root[0]
    top = 1
    while top > 0:
        top -= 1
        j, k = stack[top], stack_new[top]
        if is_leaf(tree.left, tree.split_time, j, lifetime):
            continue
        out.split_time[k] = tree.split_time[j]
        out.feature[k] = tree.feature[j]
        out.threshold[k] = tree.threshold[j]
        for side in range(2):
            child = tree.left[j] if side == 0 else tree.right[j]
            c = add_node(out, k, tree.box_lower[child], tree.box_upper[child])
            origin[c] = child
            if side == 0:
                out.left[k] = c
            else:
                out.right[k] = c
            stack[top], stack_new[top] = child, c
            top += 1


def prune(tree, lifetime: float):
    """The tree pruned at ``lifetime`` (law MP(lifetime) when the tree has law MP(lam >= lifetime)).

    Returns the compact pruned tree and, for each of its nodes, the index of the node it comes from.
    """
    out = empty_tree(tree.box_lower.shape[1], max(int(tree.n_nodes[0]), 1), tree.box_lower.dtype)
    origin = np.full(max(int(tree.n_nodes[0]), 1), NO_NODE, np.int64)
    if tree.root[0] != NO_NODE:
        _prune_into(tree, lifetime, out, origin)
    return out, origin[: out.n_nodes[0]]
