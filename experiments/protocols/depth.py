"""A 1-D regression learnt online, read back on a grid: the prediction and the aggregation-weighted depth (AMF Fig. 8).

The model learns the shuffled training stream in one pass; then, on ``grid_size`` points evenly spread over the
range of the training inputs, the forest's prediction, its weighted depth (the depth of the cell holding x in each
pruning, averaged with the pruning's aggregation weight, then over trees) and, with ``per_tree``, every tree's own.

Tables: ``grid`` (x, prediction, weighted_depth, then depth_0 .. depth_{M-1} per tree) and ``points`` (x, y).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from experiments.data import Dataset
from experiments.protocols.decision import members
from experiments.protocols.progressive import stream
from experiments.protocols.result import TrialResult


def run(
    model: Callable, dataset: Dataset, seed: int, grid_size: int = 1000, per_tree: bool = True, shuffle: bool = True
) -> TrialResult:
    """One online pass over the stream, then the prediction and weighted depths on the grid."""
    if dataset.task != "regression" or dataset.n_features != 1:
        raise ValueError(f"the depth protocol reads 1-D regressions; {dataset.name} is not one")
    X, y = stream(dataset, seed, shuffle, None)
    estimator = model()
    if not hasattr(estimator, "weighted_depth"):
        raise ValueError(f"the depth protocol needs weighted_depth; {type(estimator).__name__} has none")
    start = time.perf_counter()
    estimator.partial_fit(X, y)
    train_time = time.perf_counter() - start
    grid = np.linspace(X.min(), X.max(), grid_size)[:, None]
    table = pd.DataFrame(
        {"x": grid[:, 0], "prediction": estimator.predict(grid), "weighted_depth": estimator.weighted_depth(grid)}
    )
    if per_tree:
        depths = {f"depth_{k}": tree.weighted_depth(grid) for k, tree in enumerate(members(estimator))}
        table = pd.concat([table, pd.DataFrame(depths)], axis=1)
    return TrialResult(
        summary={"train_time": train_time, "n_train": float(len(X))},
        tables={"grid": table, "points": pd.DataFrame({"x": X[:, 0], "y": y})},
    )
