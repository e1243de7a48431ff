"""A tree of splits with split times (``SplitTree``): the ``TreeArrays`` layout read at a lifetime, what the
Mondrian trees and the online random trees share."""

from __future__ import annotations

import numpy as np

from mondrian._base_tree import BaseTree
from mondrian._nodes import COLUMNS, NO_NODE, depths
from mondrian._route import apply


class SplitTree(BaseTree):
    """A tree whose nodes split at a feature and a threshold, at a split time.

    A node is a leaf when it has no children or when its split time is at least the lifetime read, so that one tree
    answers for every smaller lifetime (the ``lifetime`` argument of the methods).
    """

    _columns = COLUMNS

    def is_leaf(self, lifetime: float | None = None) -> np.ndarray:
        """Tell which nodes are leaves of the tree read at a lifetime.

        Parameters
        ----------
        lifetime : float, default=None
            The lifetime; None: the tree's.

        Returns
        -------
        ndarray of bool of shape (n_nodes,)
            True for a node without children or whose split time is at least the lifetime (nodes that pruning
            removes included: see ``depths``).
        """
        lifetime = self.lifetime if lifetime is None else lifetime
        n = self.n_nodes
        return (self.nodes.left[:n] == NO_NODE) | (self.nodes.split_time[:n] >= lifetime)

    def depths(self, lifetime: float | None = None) -> np.ndarray:
        """Return the depth of each node.

        Parameters
        ----------
        lifetime : float, default=None
            The lifetime the tree is pruned at; None: the tree's.

        Returns
        -------
        ndarray of shape (n_nodes,)
            The depth of each node (root 0), -1 for the nodes that pruning at the lifetime removes.
        """
        return depths(self.nodes, self.lifetime if lifetime is None else lifetime)

    def leaves(self, lifetime: float | None = None) -> np.ndarray:
        """Return the leaves of the tree pruned at a lifetime.

        Parameters
        ----------
        lifetime : float, default=None
            The lifetime; None: the tree's.

        Returns
        -------
        ndarray of int
            The indices of the leaves.
        """
        return np.flatnonzero(self.is_leaf(lifetime) & (self.depths(lifetime) >= 0))

    def n_leaves(self, lifetime: float | None = None) -> int:
        """Count the leaves of the tree pruned at a lifetime.

        Parameters
        ----------
        lifetime : float, default=None
            The lifetime; None: the tree's.

        Returns
        -------
        int
            The number of leaves.
        """
        return int(self.leaves(lifetime).shape[0])

    def apply(self, X: np.ndarray, lifetime: float | None = None) -> np.ndarray:
        """Return the leaf holding each row of X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points.
        lifetime : float, default=None
            The lifetime the tree is pruned at; None: the tree's.

        Returns
        -------
        ndarray of shape (n_samples,)
            The index of the leaf of each row.

        Raises
        ------
        ValueError
            If the tree is empty.
        """
        if self.root == NO_NODE:
            raise ValueError("the tree is empty")
        X = np.ascontiguousarray(X, dtype=self.nodes.box_lower.dtype)  # the precision the tree was grown in
        return apply(self.nodes, X, self.lifetime if lifetime is None else lifetime)
