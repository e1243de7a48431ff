"""One fit on the training part, then the test set (BSP Table 1 and Fig. 8): the test scores and the predictions.

Online models learn the training rows in their order with one ``partial_fit`` (the airline data's time order, or
the random split's order), batch models fit them. The summary holds the test scores (RMSE, or accuracy and log loss),
the training time (one-off costs paid first, as in the fractions protocol) and the mean leaves per tree (nan for a
model that does not tell them; the groups' average, weighted by their trees, below); the table ``predictions`` holds the
features, target and prediction of at most ``max_points`` test rows (a seeded sample, to draw maps from).

``trees_per_fit`` = k grows a forest of M trees k trees at a time, so that memory holds k trees, not M: each group is
a copy of the forest with k trees (the last one the rest) and its own seed, spawned from the forest's; it is fitted,
predicts the test set and is dropped, and the forest's prediction is the groups' average weighted by their trees (a
forest's prediction is the mean of its trees'; mean class probabilities for a classifier). The trees are independent
given the data, so the result has the law of the M-tree forest's, from other draws. A grid-searched forest (its
``estimator__n_estimators``) searches within each group. The training time is the groups' sum.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import numpy as np
import pandas as pd
from sklearn.base import clone

from experiments.data import Dataset
from experiments.protocols.fractions import aligned_proba, mean_leaves, warm_up
from experiments.protocols.metrics import classification_scores, regression_scores
from experiments.protocols.result import TrialResult


def _forest_parameters(params: dict) -> tuple[str, str] | None:
    """The names of a forest's number of trees and seed among an estimator's parameters (or its grid search's
    estimator's); None for a model that is not a forest."""
    for prefix in ("", "estimator__"):
        if f"{prefix}n_estimators" in params and f"{prefix}random_state" in params:
            return f"{prefix}n_estimators", f"{prefix}random_state"
    return None


def tree_groups(estimator, trees_per_fit: int | None) -> Iterator[tuple[object, float]]:
    """The models to fit in turn, each with its share of the forest's trees: the estimator itself, or copies with
    ``trees_per_fit`` trees each (the last one the rest) and seeds spawned from the forest's."""
    params = estimator.get_params()
    names = _forest_parameters(params)
    if trees_per_fit is None or names is None or params[names[0]] <= trees_per_fit:
        yield estimator, 1.0
        return
    trees, seed = names
    n_trees = params[trees]
    sizes = [trees_per_fit] * (n_trees // trees_per_fit) + [n_trees % trees_per_fit] * (n_trees % trees_per_fit > 0)
    streams = np.random.SeedSequence(params[seed]).spawn(len(sizes))
    for size, stream in zip(sizes, streams, strict=True):
        yield clone(estimator).set_params(**{trees: size, seed: int(stream.generate_state(1)[0])}), size / n_trees


def test_outputs(estimator, dataset: Dataset) -> np.ndarray:
    """The model's predictions of the test rows: values (regression) or class probabilities, one column per class of
    the dataset (classification)."""
    if dataset.task == "classification":
        return aligned_proba(estimator, dataset.X_test, dataset.classes)
    return estimator.predict(dataset.X_test)


def prediction_table(outputs: np.ndarray, dataset: Dataset, max_points: int, seed: int) -> pd.DataFrame:
    """Features (named as the dataset names them), target and prediction of at most ``max_points`` test rows."""
    n_test = len(dataset.X_test)
    rows = np.arange(n_test)
    if n_test > max_points:
        rows = np.sort(np.random.default_rng(seed).choice(n_test, max_points, replace=False))
    names = list(dataset.feature_names) or [f"x{j}" for j in range(dataset.n_features)]
    table = pd.DataFrame(dataset.X_test[rows], columns=names)
    table["target"] = dataset.y_test[rows]
    predicted = outputs[rows]
    table["prediction"] = dataset.classes[np.argmax(predicted, axis=1)] if predicted.ndim == 2 else predicted
    return table


def run(
    model: Callable, dataset: Dataset, seed: int, max_points: int = 5000, trees_per_fit: int | None = None
) -> TrialResult:
    if len(dataset.X_test) == 0:
        raise ValueError(f"the predictions protocol needs a test set; {dataset.name} has none")
    if max_points < 1:
        raise ValueError(f"max_points must be at least 1, got {max_points}")
    if trees_per_fit is not None and trees_per_fit < 1:
        raise ValueError(f"trees_per_fit must be at least 1 (or null: the whole forest at once), got {trees_per_fit}")
    X, y = dataset.X_train, dataset.y_train
    online = hasattr(model(), "partial_fit")
    fit_kwargs = {"classes": dataset.classes} if online and dataset.task == "classification" else {}
    warm_up(model, X, y, dataset, online)
    train_time, outputs, leaves = 0.0, 0.0, 0.0
    for estimator, share in tree_groups(model(), trees_per_fit):
        start = time.perf_counter()
        if online:
            estimator.partial_fit(X, y, **fit_kwargs)
        else:
            estimator.fit(X, y)
        train_time += time.perf_counter() - start
        outputs = outputs + share * test_outputs(estimator, dataset)
        leaves += share * mean_leaves(estimator)
    summary = {"n_train": float(len(X)), "n_test": float(len(dataset.X_test)), "train_time": train_time,
               "leaves": leaves}  # fmt: skip
    if dataset.task == "classification":
        summary |= classification_scores(outputs, np.searchsorted(dataset.classes, dataset.y_test))
    else:
        summary |= regression_scores(outputs, dataset.y_test)
    curves = pd.DataFrame([{"step": len(X), **summary}])
    tables = {"predictions": prediction_table(outputs, dataset, max_points, seed)}
    return TrialResult(curves=curves, summary=summary, tables=tables)
