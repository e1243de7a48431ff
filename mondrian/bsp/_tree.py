"""The tree of an online BSP forest: its node arrays, random stream and leaves' point lists (``BSPTree``)."""

from __future__ import annotations

import numpy as np

from mondrian._base_tree import BaseTree
from mondrian._points import empty_lists
from mondrian.bsp._nodes import HULL_COLUMNS, NODE_COLUMNS, BSPArrays, empty_bsp_tree, with_room
from mondrian.bsp._small_blocks import block_hull


class BSPTree(BaseTree):
    """One tree of an online BSP forest.

    Parameters
    ----------
    n_pairs : int
        The number of feature pairs the tree cuts in.
    n_stats : int
        The columns of a node's statistics.
    rng : numpy.random.Generator
        The tree's random stream.
    budget : float or tuple
        The budget setting the tree follows (the forest checks it is unchanged between calls).

    Attributes
    ----------
    nodes : BSPArrays
        The node arrays, one row per node: parent and children, the cut (its pair, direction and position), split
        time, statistics, leaf point lists and the blocks' hulls.
    rng : numpy.random.Generator
        The tree's random stream, kept across calls.
    lifetime : float or tuple
        The budget setting, as given.
    next_point : ndarray
        The links of the leaves' point lists, one per point of the forest's store.
    """

    _columns = NODE_COLUMNS

    def __init__(self, n_pairs: int, n_stats: int, rng: np.random.Generator, budget):
        self.nodes: BSPArrays = empty_bsp_tree(n_pairs, n_stats)
        self.rng = rng
        self.lifetime = budget  # the budget setting the tree follows (the forest checks it is unchanged)
        self.next_point = empty_lists(16)

    @property
    def stats(self) -> np.ndarray:
        """The node statistics (the column ``stats`` of the node arrays): points below a node, then their one-hot
        labels or the sum of their targets."""
        return self.nodes.stats

    def reserve(self, n_new: int) -> None:
        """Make room for more nodes in the node arrays and their hull tables (growing them by a quarter at least).

        Parameters
        ----------
        n_new : int
            The number of nodes to make room for.
        """
        self.nodes = with_room(self.nodes, n_new, n_new)

    @property
    def n_leaves(self) -> int:
        """The number of leaves."""
        n = self.n_nodes
        return int(np.count_nonzero(self.nodes.left[:n] == -1))

    def hull(self, node: int, pair: int, X: np.ndarray, pairs: np.ndarray) -> np.ndarray:
        """Return the block of a node in the plane of a pair of features.

        Parameters
        ----------
        node : int
            The node.
        pair : int
            The index of the pair in ``pairs``.
        X : ndarray of shape (n_points, n_features)
            The forest's point store (``points_.X``): a leaf of at most 3 points keeps no hulls, they are computed
            from its points.
        pairs : ndarray of shape (n_pairs, 2)
            The forest's ``pairs_``.

        Returns
        -------
        ndarray of int32
            The rows of ``X`` on the block's convex hull, counter-clockwise (see ``mondrian.bsp.hull``).
        """
        return block_hull(self.nodes, self.next_point, X, pairs, node, pair)

    def cuts_on_segment(self, a: np.ndarray, b: np.ndarray, pairs: np.ndarray) -> np.ndarray:
        """Return where the tree's cuts meet a segment of the space.

        The segment is walked down the cells, each cut counted where it divides the piece in its cell (the line
        slice of the paper's Lemma 2).

        Parameters
        ----------
        a, b : ndarray of shape (n_features,)
            The ends of the segment, in the forest's features (two of them with one feature).
        pairs : ndarray of shape (n_pairs, 2)
            The forest's ``pairs_``.

        Returns
        -------
        ndarray
            The positions s in [0, 1] of the crossings, sorted: the points a + s (b - a).
        """
        nodes = self.nodes
        found = []
        stack = [(int(nodes.root[0]), 0.0, 1.0)] if self.n_nodes else []
        while stack:
            node, s0, s1 = stack.pop()
            if nodes.left[node] == -1:
                continue
            pair = pairs[nodes.pair[node]]
            f0, f1 = ((a + s * (b - a))[pair] @ nodes.direction[node] - nodes.position[node] for s in (s0, s1))
            if f0 <= 0 and f1 <= 0:
                stack.append((int(nodes.left[node]), s0, s1))
            elif f0 > 0 and f1 > 0:
                stack.append((int(nodes.right[node]), s0, s1))
            else:
                s = s0 + (s1 - s0) * f0 / (f0 - f1)
                found.append(s)
                first, second = (
                    (nodes.left[node], nodes.right[node]) if f0 <= 0 else (nodes.right[node], nodes.left[node])
                )
                stack += [(int(first), s0, s), (int(second), s, s1)]
        return np.sort(np.array(found))

    def __getstate__(self):
        """The tree's attributes, its node arrays and hull tables trimmed to the rows in use (one at least)."""
        state = super().__getstate__()
        state["nodes"] = HULL_COLUMNS.trimmed(state["nodes"], max(int(self.nodes.hull_rows_used[0]), 1))
        return state
