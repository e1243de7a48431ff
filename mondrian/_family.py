"""The tree-family contract: what an online forest's trees of one kind do (``TreeFamily``), and the family of Mondrian
trees learnt by a forecaster's kernels (``MondrianFamily``: the leaf mean, IKN, the path mean, AMF).

An online forest (``OnlineForest``) validates, makes one random stream per tree, runs the trees in threads and keeps
a failed call from changing the model; it picks its family (``_family``), which makes the trees, learns, runs the
progressive loop, predicts and tells the box of the data learnt. The families whose trees keep their points (paused
blocks, the increasing lifetime) are in ``mondrian.forest._family_points``; the online random forest's and the BSP
forest's beside their kernels (``mondrian.orf._family``, ``mondrian.bsp._family``).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Protocol

import numpy as np

from mondrian._node_arrays import with_new_classes
from mondrian._schedule import Schedule
from mondrian.tree import MondrianTree


class TreeFamily(Protocol):
    """The trees of one kind, as a forest runs them. Each method receives the forest, whose fitted state it reads
    (``trees_``, ``n_features_in_``, ``points_``, ``_schedule``) and whose parameters it reads where its kernels need
    them; a family keeps no state of its own."""

    @property
    def forecaster(self) -> ModuleType:
        """The kernel module the one-sample calls use (``learn_one_forest``, ``predict_one_forest``)."""
        ...

    def kernel_params(self, forest) -> np.ndarray:
        """The kernels' parameters, from the forest's (fixed at each call that learns: ``predict_params_``)."""
        ...

    def new_trees(self, forest, n_features: int, schedule: Schedule) -> list:
        """Empty trees, one per random stream (``forest._tree_streams()``), following ``schedule``."""
        ...

    def check_unchanged(self, forest) -> None:
        """Refuse, in a ValueError, a forest whose parameters would change the fitted trees' settings (beyond their
        number and schedule, which the forest checks) before they are extended."""
        ...

    def store(self, forest, X: np.ndarray, targets: np.ndarray, weights: np.ndarray | None) -> int:
        """Keep what the forest needs of the rows about to be learnt (their ``weights``, None: all one): the rows if
        the trees revisit past points; the index of the first kept (0 if none are)."""
        ...

    def learn(self, forest, tree, X: np.ndarray, targets: np.ndarray, first: int, params: np.ndarray) -> None:
        """Extend ``tree`` with the rows, in order (``first``: the index ``store`` gave them)."""
        ...

    def weights_refused(self, forest) -> str | None:
        """Why the trees cannot learn weighted rows (a sample weight other than 0 and 1), None if they can: the
        family is then a ``WeighingFamily``."""
        ...

    def progressive(self, forest, tree, X, targets, first: int, params, prior, out) -> None:
        """Add to ``out`` the tree's prediction at each row before learning it (``prior`` in an empty tree)."""
        ...

    def predict(self, forest, X: np.ndarray, params: np.ndarray, out: np.ndarray) -> None:
        """Add the sum of the trees' predictions at each row of X to ``out``."""
        ...

    def learnt_box(self, forest, tree) -> tuple[np.ndarray, np.ndarray] | None:
        """The box of the data ``tree`` has learnt, None if it has none to tell."""
        ...

    def add_classes(self, forest, n_new: int) -> None:
        """Give every tree of ``forest.trees_`` zero statistics for the last ``n_new`` classes of ``classes_`` (new
        labels, appended), the statistics of the others unchanged."""
        ...

    def widest_side(self, forest) -> tuple[float, str]:
        """The widest side of a box the kernels take, and why."""
        ...


class WeighingFamily(TreeFamily, Protocol):
    """A family whose trees weigh rows (``weights_refused`` gives None)."""

    def learn_weighted(self, forest, tree, X, targets, weights: np.ndarray, first: int, params) -> None:
        """``learn`` the rows, of positive ``weights``."""
        ...


def add_tree_predictions(forecaster: ModuleType, forest, X: np.ndarray, params, out: np.ndarray) -> None:
    """Add each tree's prediction at the rows of X to ``out``, through the forecaster's ``predict`` kernel."""
    for tree in forest.trees_:
        forecaster.predict(tree.nodes, tree.stats, X, forest._onehot, tree.lifetime, params, out)


def largest_float(forest) -> tuple[float, str]:
    """The widest side of a box the kernels take: the largest float of the forest's precision."""
    return float(np.finfo(forest._dtype).max), f"the largest {np.dtype(forest._dtype).name}"


class MondrianFamily:
    """Mondrian trees (``MondrianTree``) learnt, predicted and progressively validated by a forecaster's kernels
    (``n_stats``, ``learn``, ``predict``, ``progressive``); ``params`` gives its kernel parameters from the forest's,
    ``learn_block`` the rows per learn call (None: all at once), ``attributes`` the fitted attributes that tell
    the forest's user what the trees are (set when they are made), and ``labels(forest, targets, weights)`` what the
    forest keeps of the labels it learns (called by ``store``; None: nothing)."""

    def __init__(
        self,
        forecaster: ModuleType,
        params: Callable,
        learn_block: int | None = None,
        attributes: dict | None = None,
        labels: Callable | None = None,
    ):
        self.forecaster = forecaster
        self._params = params
        self.learn_block = learn_block
        self.attributes = attributes or {}
        self.labels = labels

    def kernel_params(self, forest) -> np.ndarray:
        return self._params(forest)

    def new_trees(self, forest, n_features: int, schedule: Schedule) -> list[MondrianTree]:
        """Empty trees at the schedule's start (lam_0 = 0 when it increases)."""
        forest.__dict__.update(self.attributes)
        n_stats = self.forecaster.n_stats(forest._n_outputs)
        lifetime = schedule.at(0, n_features)
        return [
            MondrianTree.empty(n_features, rng, lifetime, n_stats, forest._dtype, forest._stats_dtype, forest.max_nodes)
            for rng in forest._tree_streams()
        ]

    def check_unchanged(self, forest) -> None:
        """The trees' ``max_nodes``, beyond the forest's schedule and number of trees
        (``OnlineForest._check_unchanged``): a bound is fixed once the trees are started."""
        started = forest.trees_[0].max_nodes
        if forest.max_nodes != started:
            raise ValueError(
                f"max_nodes={forest.max_nodes!r}: the trees being extended were started with max_nodes={started!r}; "
                "set it back, or call fit to start again"
            )

    def store(self, forest, X, targets, weights) -> int:
        if self.labels is not None:
            self.labels(forest, targets, weights)
        return self.keep(forest, X, targets)

    def keep(self, forest, X, targets) -> int:
        """Keep the rows if the trees revisit past points (``store``'s); these trees do not: 0."""
        return 0

    def weights_refused(self, forest) -> str | None:
        return self.forecaster.weights_refused

    def learn(self, forest, tree, X, targets, first, params) -> None:
        self.learn_weighted(forest, tree, X, targets, None, first, params)

    def learn_weighted(self, forest, tree, X, targets, weights, first, params) -> None:
        """``learn`` with the rows' positive weights (None: all one), which the forecaster's ``learn`` takes."""
        # A forecaster that learns point by point is fed blocks, so that node capacity grows with the nodes actually
        # made (2 per point at most) rather than being reserved for the whole input; the leaf mean samples its
        # first batch at once.
        block = self.learn_block or max(X.shape[0], 1)
        for start in range(0, X.shape[0], block):
            Xb, tb = X[start : start + block], targets[start : start + block]
            tree.reserve(2 * Xb.shape[0])
            rows = () if weights is None else (weights[start : start + block],)
            self.forecaster.learn(
                tree.nodes, tree.stats, Xb, tb, forest._onehot, tree.lifetime, params, tree.rng, *rows
            )

    def progressive(self, forest, tree, X, targets, first, params, prior, out) -> None:
        tree.reserve(2 * X.shape[0])
        self.forecaster.progressive(
            tree.nodes, tree.stats, X, targets, forest._onehot, tree.lifetime, params, tree.rng, prior, out
        )

    def predict(self, forest, X, params, out) -> None:
        add_tree_predictions(self.forecaster, forest, X, params, out)

    def learnt_box(self, forest, tree) -> tuple[np.ndarray, np.ndarray] | None:
        """The tree's root box (None while it is empty)."""
        root = tree.nodes.root[0]
        return None if root < 0 else (tree.nodes.box_lower[root], tree.nodes.box_upper[root])

    def add_classes(self, forest, n_new: int) -> None:
        """Every forecaster counts the classes in columns 1 to n_classes of its statistics (``with_new_classes``);
        the point stores keep class indices, which appended classes leave valid."""
        for tree in forest.trees_:
            tree.stats = with_new_classes(tree.stats, forest.n_classes_ - n_new, n_new)

    def widest_side(self, forest) -> tuple[float, str]:
        return largest_float(forest)
