"""The families of Mondrian trees that keep their points, once for all trees in the forest's ``points_`` (a
``PointStore``): LRT14's paused blocks (a paused leaf is sampled again from its points when a second label joins it,
``_paused``) and MGS17's increasing lifetime (raising it splits leaves anywhere, ``_increasing``). Both predict with
their forecaster, as ``MondrianFamily``."""

from __future__ import annotations

from mondrian._family import MondrianFamily
from mondrian._points import PointStore
from mondrian._schedule import Schedule
from mondrian.forest import _increasing, _path_mean, _paused
from mondrian.tree import MondrianTree


class PointFamily(MondrianFamily):
    """Mondrian trees whose leaves keep their points (linked lists into the forest's ``points_``)."""

    def new_trees(self, forest, n_features: int, schedule: Schedule) -> list[MondrianTree]:
        trees = super().new_trees(forest, n_features, schedule)
        forest.points_ = PointStore(n_features, forest._dtype)
        for tree in trees:
            tree.keep_points(16)
        return trees

    def store(self, forest, X, targets) -> int:
        return forest.points_.append(X, targets)

    def _room(self, forest, tree: MondrianTree, n_new: int) -> int:
        """The nodes to reserve before learning ``n_new`` more points."""
        raise NotImplementedError

    def _grow_for(self, forest, tree: MondrianTree, n_new: int) -> None:
        """Room for the store's points (``_room``) and one list link per point."""
        tree.reserve(max(self._room(forest, tree, n_new), 0))
        tree.keep_points(forest.points_.n)


class PausedFamily(PointFamily):
    """LRT14's paused blocks: a block whose labels are all one is not split (the IKN classifier's ``pausing``)."""

    def _room(self, forest, tree, n_new: int) -> int:
        """2 nodes per new point: the kernels stop and ask for more before a paused leaf is sampled again."""
        return 2 * n_new

    def learn(self, forest, tree, X, targets, first, params) -> None:
        self._grow_for(forest, tree, X.shape[0])
        store, start, end = forest.points_, first, first + X.shape[0]
        while start < end:
            start, room = _paused.learn(
                tree.nodes, tree.stats, tree.first_point, tree.next_point, store.X, store.y, start, end,
                tree.lifetime, tree.rng,
            )  # fmt: skip
            tree.reserve(room)

    def progressive(self, forest, tree, X, targets, first, params, prior, out) -> None:
        self._grow_for(forest, tree, X.shape[0])
        store, start, end = forest.points_, first, first + X.shape[0]
        predicted = False
        while start < end:
            start, room = _paused.progressive(
                tree.nodes, tree.stats, tree.first_point, tree.next_point, store.X, store.y, start, end,
                tree.lifetime, params, tree.rng, prior, out[start - first :], predicted,
            )  # fmt: skip
            tree.reserve(room)
            predicted = True


class IncreasingFamily(PointFamily):
    """MGS17's increasing lifetime lam_n = scale * n^(1/(d+2)) (the forest's ``_schedule``), whose scale and least
    points per split block the forest shows as ``lifetime_scale_`` and ``min_samples_split_``."""

    def new_trees(self, forest, n_features: int, schedule: Schedule) -> list[MondrianTree]:
        trees = super().new_trees(forest, n_features, schedule)
        forest.lifetime_scale_, forest.min_samples_split_ = schedule.scale, schedule.min_split
        return trees

    def weights_refused(self, forest) -> str | None:
        return (
            "the increasing lifetime lam_n = scale * n^(1/(d+2)) and min_samples_split count points, which a fraction "
            "of a point cannot be"
        )

    def _room(self, forest, tree, n_new: int) -> int:
        """2 nodes per stored point: raising the lifetime splits leaves anywhere."""
        return 2 * forest.points_.n - tree.n_nodes

    def learn(self, forest, tree, X, targets, first, params) -> None:
        self._grow_for(forest, tree, X.shape[0])
        store, schedule = forest.points_, forest._schedule
        tree.lifetime = _increasing.learn(
            tree.nodes, tree.stats, tree.first_point, tree.next_point, store.X, store.y, first, first + X.shape[0],
            forest._onehot, schedule.scale, schedule.min_split, tree.rng,
        )  # fmt: skip

    def progressive(self, forest, tree, X, targets, first, params, prior, out) -> None:
        """The increasing loop, predicting as the forecaster does (the path mean has its own loop)."""
        self._grow_for(forest, tree, X.shape[0])
        store, schedule = forest.points_, forest._schedule
        loop = _path_mean.progressive_increasing if self.forecaster is _path_mean else _increasing.progressive
        tree.lifetime = loop(
            tree.nodes, tree.stats, tree.first_point, tree.next_point, store.X, store.y, first, first + X.shape[0],
            forest._onehot, schedule.scale, schedule.min_split, params, tree.rng, prior, out,
        )  # fmt: skip
