"""The families of Mondrian trees that keep their points, once for all trees in the forest's ``points_`` (a
``PointStore``): LRT14's paused blocks (a paused leaf is sampled again from its points when a second label joins it,
``_paused``) and MGS17's increasing lifetime (raising it splits leaves anywhere, ``_increasing``). Both predict with
their forecaster, as ``MondrianFamily``."""

from __future__ import annotations

from mondrian._family import MondrianFamily
from mondrian._nodes import capacity
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

    def keep(self, forest, X, targets) -> int:
        return forest.points_.append(X, targets)

    def _room(self, forest, tree: MondrianTree, n_new: int) -> int:
        """The nodes to reserve before learning ``n_new`` more points."""
        raise NotImplementedError

    def _grow_for(self, forest, tree: MondrianTree, n_new: int) -> None:
        """Room for the store's points (``_room``) and one list link per point."""
        tree.reserve(max(self._room(forest, tree, n_new), 0))
        tree.keep_points(forest.points_.n)


class PausedFamily(PointFamily):
    """LRT14's paused blocks: a block whose labels are all one is not split (the IKN classifier's ``pausing``).

    With ``max_nodes``, the forest keeps its first ``max_nodes`` points only (the store and each tree's lists are
    bounded by it): after them the leaves keep no points and no leaf is sampled again (a leaf a new label un-pauses
    stays a leaf until an extension splits it); and a tree whose arrays hold ``max_nodes`` samples a leaf again only
    if the nodes it may make (2 per point it holds) fit in the room left."""

    def keep(self, forest, X, targets) -> int:
        """The rows, up to the ``max_nodes`` points the forest keeps."""
        kept = X.shape[0] if forest.max_nodes is None else max(min(X.shape[0], forest.max_nodes - forest.points_.n), 0)
        return forest.points_.append(X[:kept], targets[:kept])

    def _room(self, forest, tree, n_new: int) -> int:
        """2 nodes per new point: the kernels stop and ask for more before a paused leaf is sampled again."""
        return 2 * n_new

    @staticmethod
    def _parts(forest, X, targets, first):
        """The call's rows as the kernels read them, (X, y, start, end, keep): those the store kept (by their index
        in it), then the others (themselves, kept by no leaf: max_nodes' budget of points)."""
        store = forest.points_
        kept = max(min(X.shape[0], store.n - first), 0)
        parts = [(store.X, store.y, first, first + kept, True)] if kept > 0 else []
        return parts + ([(X[kept:], targets[kept:], 0, X.shape[0] - kept, False)] if kept < X.shape[0] else [])

    @staticmethod
    def _at_bound(tree) -> bool:
        return tree.max_nodes is not None and capacity(tree.nodes) >= tree.max_nodes

    def learn(self, forest, tree, X, targets, first, params) -> None:
        self._grow_for(forest, tree, X.shape[0])
        for Xs, ys, start, end, keep in self._parts(forest, X, targets, first):
            while start < end:
                start, room = _paused.learn(
                    tree.nodes, tree.stats, tree.first_point, tree.next_point, Xs, ys, start, end, tree.lifetime,
                    tree.rng, keep, self._at_bound(tree),
                )  # fmt: skip
                tree.reserve(room)

    def progressive(self, forest, tree, X, targets, first, params, prior, out) -> None:
        self._grow_for(forest, tree, X.shape[0])
        done = 0  # the call's rows predicted so far
        for Xs, ys, start, end, keep in self._parts(forest, X, targets, first):
            rows, begin, predicted = out[done : done + end - start], start, False  # rows[i - begin]: row i's
            while start < end:
                start, room = _paused.progressive(
                    tree.nodes, tree.stats, tree.first_point, tree.next_point, Xs, ys, start, end, tree.lifetime,
                    params, tree.rng, prior, rows[start - begin :], predicted, keep, self._at_bound(tree),
                )  # fmt: skip
                tree.reserve(room)
                predicted = True
            done += end - begin


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
