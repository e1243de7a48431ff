"""Decision functions on a 2-D grid while a classifier learns the training stream (AMF Fig. 1, 7 and 9).

The shuffled training stream is revealed up to each of ``steps`` (default: all of it). After each step the model's
probability of the second class is evaluated on a ``grid_size`` x ``grid_size`` grid covering the train and test
points with a ``margin``, and scored on the test part (AUC, accuracy, log loss). An online model (``partial_fit``)
learns the new rows; a batch model is re-fitted on the rows revealed so far. ``per_tree`` also evaluates every tree of
the forest on its own (tree ``-1`` is the forest).

Tables: ``grid`` (step, tree, x0, x1, proba), ``points`` (x0, x1, y, order in the stream, -1 for test rows) and
``trees`` (step, tree, auc). Curves: the forest's test scores at each step.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from experiments.data import Dataset
from experiments.protocols.fractions import aligned_proba
from experiments.protocols.holdout import auc, test_scores
from experiments.protocols.progressive import stream
from experiments.protocols.result import TrialResult

FOREST = -1  # the ``tree`` of the forest's own rows


def grid_points(dataset: Dataset, grid_size: int, margin: float) -> np.ndarray:
    """A grid_size^2 x 2 grid over the bounding box of all the points, widened by ``margin`` on every side."""
    X = np.vstack([dataset.X_train, dataset.X_test])
    axes = [np.linspace(X[:, j].min() - margin, X[:, j].max() + margin, grid_size) for j in range(2)]
    x0, x1 = np.meshgrid(*axes)
    return np.column_stack([x0.ravel(), x1.ravel()])


def members(estimator) -> list:
    """The trees of a fitted online Mondrian forest, each as a shallow copy of the forest holding only that tree
    (so it predicts exactly as the forest does, from one tree)."""
    if not hasattr(estimator, "trees_"):
        raise ValueError(f"per_tree needs an online Mondrian forest; {type(estimator).__name__} has no trees_")
    out = []
    for tree in estimator.trees_:
        single = copy.copy(estimator)
        single.trees_ = [tree]
        out.append(single)
    return out


def _positive_proba(estimator, X: np.ndarray, classes: np.ndarray) -> np.ndarray:
    return aligned_proba(estimator, X, classes)[:, 1]


def run(
    model: Callable,
    dataset: Dataset,
    seed: int,
    steps: list[int] | None = None,
    grid_size: int = 100,
    margin: float = 0.5,
    per_tree: bool = False,
    shuffle: bool = True,
) -> TrialResult:
    """Learn the stream up to each step; after each, the decision function on the grid and the test scores."""
    if dataset.task != "classification" or dataset.n_features != 2 or len(dataset.classes) != 2:
        raise ValueError(f"the decision protocol draws binary classifiers on 2-D data; {dataset.name} is not one")
    if len(dataset.X_test) == 0:
        raise ValueError(f"the decision protocol needs a test set; {dataset.name} has none (test_size=0?)")
    X, y = stream(dataset, seed, shuffle, None)
    steps = sorted({min(int(s), len(X)) for s in (steps or [len(X)])})
    if steps[0] < 1:
        raise ValueError(f"steps must be positive numbers of rows, got {steps}")
    grid = grid_points(dataset, grid_size, margin)
    classes = dataset.classes
    y_test = np.searchsorted(classes, dataset.y_test)
    estimator = model()
    online = hasattr(estimator, "partial_fit")
    rows, grids, trees, train_time = [], [], [], 0.0
    for a, b in zip([0, *steps[:-1]], steps, strict=True):
        start = time.perf_counter()
        if online:
            estimator.partial_fit(X[a:b], y[a:b], classes=classes)
        else:
            estimator = model().fit(X[:b], y[:b])
        train_time += time.perf_counter() - start
        rows.append({"step": b, "train_time": train_time, **test_scores(estimator, dataset)})
        grids.append(pd.DataFrame({"step": b, "tree": FOREST, "proba": _positive_proba(estimator, grid, classes)}))
        for k, member in enumerate(members(estimator) if per_tree else []):
            grids.append(pd.DataFrame({"step": b, "tree": k, "proba": _positive_proba(member, grid, classes)}))
            proba = aligned_proba(member, dataset.X_test, classes)
            trees.append({"step": b, "tree": k, "auc": auc(proba, y_test)})
    grid_table = pd.concat(grids, ignore_index=True)
    n_grids = len(grid_table) // len(grid)
    grid_table.insert(2, "x0", np.tile(grid[:, 0], n_grids))
    grid_table.insert(3, "x1", np.tile(grid[:, 1], n_grids))
    points = pd.DataFrame(
        {
            "x0": np.r_[X[:, 0], dataset.X_test[:, 0]],
            "x1": np.r_[X[:, 1], dataset.X_test[:, 1]],
            "y": np.r_[np.searchsorted(classes, y), y_test],
            "order": np.r_[np.arange(len(X)), np.full(len(y_test), -1)],
        }
    )
    curves = pd.DataFrame(rows)
    tables = {"grid": grid_table, "points": points}
    if trees:
        tables["trees"] = pd.DataFrame(trees)
    return TrialResult(curves=curves, summary=curves.iloc[-1].drop("step").to_dict(), tables=tables)
