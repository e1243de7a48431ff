"""The tree of ORF-Saffari (``OnlineRandomTree``): node arrays, per-leaf candidate tests and their statistics."""

from __future__ import annotations

import numpy as np

from mondrian._nodes import NO_NODE, empty_tree
from mondrian._split_tree import SplitTree
from mondrian.orf import _kernels as _orf
from mondrian.tree import MondrianTree


class OnlineRandomTree(SplitTree):
    """One tree of ``OnlineRandomForestClassifier``.

    A tree of the Mondrian trees' node arrays whose boxes have zero width (its splits are tests, not Mondrian cuts;
    internal nodes have split time 0, leaves inf, its lifetime is inf) and whose statistics hold, per node, the
    label counts and the split's test, and per leaf that can still split its range and candidate tests. The kernels
    grow the arrays themselves (``reserve`` grows them as they do). The node arrays'
    ``feature`` and ``threshold`` hold a split's first feature and its threshold: they route the tree when its
    tests are axis-aligned; a tree of projection tests routes by ``stats.split_feature`` and ``stats.split_weight``
    (``apply`` does).

    Parameters
    ----------
    n_features : int
        The number of features.
    n_classes : int
        The number of classes.
    n_tests : int
        The candidate tests per leaf.
    max_depth : int or None
        The depth leaves stop at (which leaves keep tests depends on it).
    rng : numpy.random.Generator
        The tree's random stream.
    dtype : numpy dtype, default=np.float64
        The precision of the thresholds, weights and ranges.
    tests : {"axis", "projection"}, default="axis"
        The kind of candidate tests (see ``OnlineRandomForestClassifier``).
    n_projection_features : int, default=2
        The features of a projection test, at most ``n_features`` (fewer features: all of them); not read for
        axis-aligned tests, which have one.

    Attributes
    ----------
    nodes : TreeArrays
        The node arrays (see ``MondrianTree``).
    stats : LeafStats
        Label counts and split tests per node, ranges and candidate tests per leaf.
    rng : numpy.random.Generator
        The tree's random stream.
    max_depth : int or None
        As given.
    tests : str
        As given.
    """

    def __init__(
        self,
        n_features: int,
        n_classes: int,
        n_tests: int,
        max_depth: int | None,
        rng,
        dtype=np.float64,
        tests: str = "axis",
        n_projection_features: int = 2,
    ):
        self.nodes = empty_tree(0, dtype=dtype)
        self.rng = rng
        self.lifetime = np.inf
        self.next_point = None  # it keeps no points
        p = min(n_projection_features, n_features) if tests == "projection" else 1
        self.stats = _orf.empty_stats(n_features, n_classes, n_tests, dtype, n_projection_features=max(p, 1))
        self.max_depth = max_depth
        self.tests = tests

    def reserve(self, n_new: int) -> None:
        """Make room for more nodes in the node arrays and their statistics (doubling the capacity).

        Parameters
        ----------
        n_new : int
            The number of nodes to make room for.
        """
        self.nodes, self.stats = _orf._with_room(self.nodes, self.stats, n_new, 0)

    @property
    def n_tests(self) -> int:
        """The number of candidate tests per leaf."""
        return self.stats.test_feature.shape[1]

    @property
    def n_projection_features(self) -> int:
        """The number of features of each test (1 for axis-aligned tests)."""
        return self.stats.test_feature.shape[2]

    def apply(self, X: np.ndarray, lifetime: float | None = None) -> np.ndarray:
        """Return the leaf holding each row of X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points.
        lifetime : float, default=None
            Not read: the tree has no Mondrian times (its lifetime is inf).

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
        X = np.ascontiguousarray(X, dtype=self.stats.lower.dtype)
        return _orf.apply(self.nodes, self.stats, X, self.tests == "projection")

    def pruned(self, lifetime: float):
        """Return the tree pruned at a lifetime, for axis-aligned tests only.

        As ``MondrianTree.pruned``: all of it, as internal nodes have split time 0. A ``MondrianTree`` cannot hold
        projection tests.

        Parameters
        ----------
        lifetime : float
            A positive lifetime (inf allowed).

        Returns
        -------
        tree : MondrianTree
            The pruned tree, without statistics.
        origin : ndarray
            For each node of the pruned tree, the node of this tree it comes from.

        Raises
        ------
        NotImplementedError
            For a tree of projection tests.
        """
        if self.tests == "projection":
            raise NotImplementedError("a MondrianTree cannot hold projection tests")
        return MondrianTree(self.nodes, self.rng, self.lifetime).pruned(lifetime)

    def __getstate__(self):
        state = super().__getstate__()
        state["stats"] = _orf.trimmed_stats(self.stats, self._rows_kept())
        return state
