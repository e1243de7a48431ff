"""The online random forest's tree family (Saffari et al.'s trees, ``_kernels``): trees that grow from an empty root by
candidate tests, without Mondrian times or boxes of the data."""

from __future__ import annotations

import numpy as np

from mondrian._family import add_tree_predictions, largest_float
from mondrian._schedule import Schedule
from mondrian.orf import _kernels as _orf
from mondrian.orf._tree import OnlineRandomTree


class OnlineRandomFamily:
    """The trees of an ``OnlineRandomForestClassifier`` (their lifetime is inf: the schedule is not read)."""

    forecaster = _orf

    def kernel_params(self, forest) -> np.ndarray:
        feature_range = None if forest.feature_range is None else tuple(map(float, forest.feature_range))
        return _orf.kernel_params(
            forest.min_samples_split,
            forest.min_gain,
            forest.max_depth,
            forest.n_passes,
            feature_range,
            tests=forest.tests,
            thresholds=forest.thresholds,
            gain=forest.gain,
            bagging=forest.bagging,
        )

    def new_trees(self, forest, n_features: int, schedule: Schedule) -> list[OnlineRandomTree]:
        return [
            OnlineRandomTree(
                n_features,
                forest.n_classes_,
                forest.n_tests,
                forest.max_depth,
                rng,
                forest._dtype,
                forest.tests,
                forest.n_projection_features,
            )
            for rng in forest._tree_streams()
        ]

    def check_unchanged(self, forest) -> None:
        """The trees being extended keep their n_tests, max_depth (which leaves keep tests), tests and the features
        of a projection test: the forest's must be theirs."""
        tree = forest.trees_[0]
        p = min(forest.n_projection_features, forest.n_features_in_) if forest.tests == "projection" else 1
        if (tree.n_tests, tree.max_depth, tree.tests, tree.n_projection_features) != (
            forest.n_tests,
            forest.max_depth,
            forest.tests,
            p,
        ):
            raise ValueError(
                f"n_tests={forest.n_tests}, max_depth={forest.max_depth}, tests={forest.tests!r}, "
                f"n_projection_features={forest.n_projection_features} differ from the trees being extended "
                f"(n_tests={tree.n_tests}, max_depth={tree.max_depth}, tests={tree.tests!r}, "
                f"{tree.n_projection_features} features per test); call fit to start again"
            )

    def store(self, forest, X, targets, weights) -> int:
        return 0

    def weights_refused(self, forest) -> str | None:
        """None: a row's weight multiplies its Poisson counts (the updates' weights)."""
        return None

    def learn(self, forest, tree, X, targets, first, params) -> None:
        self.learn_weighted(forest, tree, X, targets, None, first, params)

    def learn_weighted(self, forest, tree, X, targets, weights, first, params) -> None:
        tree.nodes, tree.stats = _orf.learn(tree.nodes, tree.stats, X, targets, True, np.inf, params, tree.rng, weights)

    def progressive(self, forest, tree, X, targets, first, params, prior, out) -> None:
        tree.nodes, tree.stats = _orf.progressive(
            tree.nodes, tree.stats, X, targets, True, np.inf, params, tree.rng, prior, out
        )

    def predict(self, forest, X, params, out) -> None:
        add_tree_predictions(_orf, forest, X, params, out)

    def learnt_box(self, forest, tree) -> None:
        """None: the trees keep no box of the data."""
        return None

    def add_classes(self, forest, n_new: int) -> None:
        for tree in forest.trees_:
            tree.stats = _orf.with_classes_added(tree.stats, n_new)

    def widest_side(self, forest) -> tuple[float, str]:
        return largest_float(forest)
