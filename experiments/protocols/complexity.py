"""Time and memory of an online forest's update and prediction against the number of points seen (AMF Table 2).

A stream of uniform points of [0, 1]^dim with labels of a fixed function (a class boundary for a classifier, a smooth
function plus noise for a regressor) is learnt point by point (``partial_fit``). At each n of ``sizes`` the model is
measured, all on copies so that the stream goes on from the same state:

- update: the time to learn the next ``block_fraction * n`` points (at least ``min_block``, so that the cost of a
  call is spread over many points), per point, the smallest of ``repeats`` runs on
  fresh copies (CPU time of this process, which other processes' load disturbs least), and the depth of the leaves
  those points reach (the path an update walks down and back up, averaged over trees);
- predict: the time to predict ``test_size`` new points, per point, the smallest of ``repeats`` runs, and the depth
  of the leaves they fall in;
- memory: the size of the pickled model (its node arrays trimmed to the nodes in use) and its number of nodes.

Curves: one row per n (``step``) with ``update_us``, ``predict_us``, ``update_depth``, ``predict_depth``,
``model_bytes`` and ``nodes``. The timings are the figure's data, never assertions.
"""

from __future__ import annotations

import copy
import pickle
import time
from collections.abc import Callable

import numpy as np
import pandas as pd
from sklearn.base import is_classifier

from experiments.protocols.result import TrialResult


def labels(X: np.ndarray, classification: bool, rng: np.random.Generator) -> np.ndarray:
    """A class boundary x0 > 0.5 + 0.2 sin(6 x1) (two classes), or sin(2 pi x0) + x1 + N(0, 0.1^2)."""
    if classification:
        return (X[:, 0] > 0.5 + 0.2 * np.sin(6 * X[:, 1])).astype(int)
    return np.sin(2 * np.pi * X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(len(X))


def leaf_depth(model, X: np.ndarray) -> float:
    """The mean depth of the leaves the rows of X fall in, averaged over the forest's trees."""
    return float(np.mean([tree.depths()[tree.apply(X)] for tree in model.trees_]))


def fastest(repeats: int, work: Callable[[], object]) -> tuple[float, object]:
    """The smallest CPU time of ``repeats`` calls of ``work`` and the last call's result."""
    best, result = np.inf, None
    for _ in range(repeats):
        start = time.process_time()
        result = work()
        best = min(best, time.process_time() - start)
    return best, result


def measure(model, X_next: np.ndarray, y_next: np.ndarray, X_test: np.ndarray, repeats: int) -> dict[str, float]:
    """Update and prediction time per point and depth, and the model's size, at the model's current state."""

    def update():
        grown = copy.deepcopy(model)
        grown.partial_fit(X_next, y_next)
        return grown

    update_time, grown = fastest(repeats, update)
    predict_time, _ = fastest(repeats, lambda: model.predict(X_test))
    return {
        "update_us": 1e6 * update_time / len(X_next),
        "predict_us": 1e6 * predict_time / len(X_test),
        "update_depth": leaf_depth(grown, X_next),
        "predict_depth": leaf_depth(model, X_test),
        "model_bytes": float(len(pickle.dumps(model))),
        "nodes": float(sum(tree.n_nodes for tree in model.trees_)),
    }


def run(
    model: Callable,
    seed: int,
    sizes: list[int],
    dim: int = 2,
    repeats: int = 5,
    block_fraction: float = 0.125,
    min_block: int = 1024,
    test_size: int = 2000,
) -> TrialResult:
    """Learn the stream up to each n of ``sizes``; measure the update, the prediction and the size there."""
    sizes = sorted(int(n) for n in sizes)
    if sizes[0] < 2 or repeats < 1 or not 0 < block_fraction <= 1 or min_block < 1 or test_size < 1:
        raise ValueError(f"need sizes >= 2, repeats >= 1, 0 < block_fraction <= 1, min_block >= 1, test_size >= 1; "
                         f"got {sizes}, {repeats}, {block_fraction}, {min_block}, {test_size}")  # fmt: skip
    rng = np.random.default_rng(seed)
    blocks = [max(min_block, round(block_fraction * n)) for n in sizes]
    total = max(n + b for n, b in zip(sizes, blocks, strict=True))
    estimator = model()
    classification = is_classifier(estimator)
    X, X_test = rng.uniform(size=(total, dim)), rng.uniform(size=(test_size, dim))
    y = labels(X, classification, rng)
    extra = {"classes": [0, 1]} if classification else {}
    rows, seen = [], 0
    for n, block in zip(sizes, blocks, strict=True):
        estimator.partial_fit(X[seen:n], y[seen:n], **(extra if seen == 0 else {}))
        seen = n
        rows.append({"step": n, "block": block, **measure(estimator, X[n : n + block], y[n : n + block], X_test,
                                                          repeats)})  # fmt: skip
    curves = pd.DataFrame(rows)
    return TrialResult(curves=curves, summary={"trees": float(len(estimator.trees_)), "dim": float(dim)})
