"""The BSP forest's tree family (Fan, Li and Sisson's binary space partitioning trees, ``_kernels``): cuts in pairs of
features, points kept once for all trees in the forest's ``points_``, the budget the forest's ``_schedule``."""

from __future__ import annotations

import numpy as np

from mondrian._node_arrays import with_new_classes
from mondrian._points import PointStore
from mondrian._schedule import Schedule
from mondrian.bsp import _kernels as _bsp
from mondrian.bsp._tree import BSPTree

LEAF_SAMPLINGS = {"law": _bsp.LAW, "text": _bsp.TEXT}


def dimension_pairs(n_features: int) -> np.ndarray:
    """The pairs (d1, d2), d1 < d2, of d features in lexicographic order (int64), the pairs a BSP tree cuts in."""
    return np.array([(a, b) for a in range(n_features) for b in range(a + 1, n_features)], np.int64).reshape(-1, 2)


def kernel_X(X: np.ndarray) -> np.ndarray:
    """X as the kernels take it: with one feature, a zero second coordinate (a line of the plane)."""
    return np.hstack([X, np.zeros_like(X)]) if X.shape[1] == 1 else X


class BSPFamily:
    """The trees of the online BSP forests; ``hard_vote``: a classifier tree votes for its majority label."""

    forecaster = _bsp

    def __init__(self, hard_vote: bool = False):
        self.hard_vote = hard_vote

    def kernel_params(self, forest) -> np.ndarray:
        """The vote predictions use (fixed at each fit / partial_fit)."""
        return np.array([float(_bsp.HARD if self.hard_vote else _bsp.SOFT)])

    def new_trees(self, forest, n_features: int, schedule: Schedule) -> list[BSPTree]:
        n_kernel = max(n_features, 2)
        forest.pairs_ = dimension_pairs(n_kernel)
        forest.points_ = PointStore(n_kernel)
        n_stats = 1 + forest._n_outputs
        return [BSPTree(len(forest.pairs_), n_stats, rng, schedule) for rng in forest._tree_streams()]

    def check_unchanged(self, forest) -> None:
        """Nothing but the forest's schedule and number of trees (``OnlineForest._check_unchanged``)."""

    def store(self, forest, X, targets, weights) -> int:
        return forest.points_.append(kernel_X(X), targets)

    def _budget(self, forest) -> tuple[float, float]:
        """(scale, exponent) of the budget tau_n = scale * n^exponent after n points (``_schedule``)."""
        return forest._schedule.scale, forest._schedule.exponent(forest.n_features_in_)

    def weights_refused(self, forest) -> str | None:
        return (
            "its budget tau_n and its small leaves (at most 3 points, uncut) count points, which a fraction of a point "
            "cannot be"
        )

    def learn(self, forest, tree: BSPTree, X, targets, first: int, params) -> None:
        tree.keep_points(forest.points_.n)
        scale, exponent = self._budget(forest)
        store = forest.points_
        tree.nodes = _bsp.learn(
            tree.nodes, tree.next_point, store.X, store.y, first, first + X.shape[0], forest._onehot, forest.pairs_,
            float(forest.rate_scale), scale, exponent, LEAF_SAMPLINGS[forest.leaf_sampling], tree.rng,
        )  # fmt: skip

    def progressive(self, forest, tree: BSPTree, X, targets, first: int, params, prior, out) -> None:
        tree.keep_points(forest.points_.n)
        scale, exponent = self._budget(forest)
        store = forest.points_
        tree.nodes = _bsp.progressive(
            tree.nodes, tree.next_point, store.X, store.y, first, first + X.shape[0], forest._onehot, forest.pairs_,
            float(forest.rate_scale), scale, exponent, LEAF_SAMPLINGS[forest.leaf_sampling], int(params[0]),
            tree.rng, prior, out,
        )  # fmt: skip

    def predict(self, forest, X, params, out) -> None:
        X, vote = kernel_X(X), int(params[0])
        for tree in forest.trees_:
            _bsp.predict(tree.nodes, X, forest._onehot, forest.pairs_, vote, out)

    def learnt_box(self, forest, tree) -> tuple[np.ndarray, np.ndarray]:
        """The box of the points learnt (kept once for all trees), in the data's features."""
        store = forest.points_
        return store.lower[: forest.n_features_in_], store.upper[: forest.n_features_in_]

    def add_classes(self, forest, n_new: int) -> None:
        """The nodes' statistics count the points, then the classes (``with_new_classes``); the store keeps class
        indices, which appended classes leave valid."""
        for tree in forest.trees_:
            stats = with_new_classes(tree.nodes.stats, forest.n_classes_ - n_new, n_new)
            tree.nodes = tree.nodes._replace(stats=stats)

    def widest_side(self, forest) -> tuple[float, str]:
        """Hull tests multiply two sides of the box (cross products of point differences in a pair of features):
        a side must stay below sqrt(max / 2) for them to be finite; half of the largest float's square root."""
        return float(np.sqrt(np.finfo(np.float64).max)) / 2, "half the square root of the largest float64"
