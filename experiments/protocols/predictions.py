"""One fit on the training part, then the test set (BSP Table 1 and Fig. 8): the test scores and the predictions.

Online models learn the training rows in their order with one ``partial_fit`` (the airline data's time order, or
the random split's order), batch models fit them. The summary holds the test scores (RMSE, or accuracy and log loss)
and the training time (one-off costs paid first, as in the fractions protocol); the table ``predictions`` holds the
features, target and prediction of at most ``max_points`` test rows (a seeded sample, to draw maps from).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from experiments.data import Dataset
from experiments.protocols.fractions import scores_on_test, warm_up
from experiments.protocols.result import TrialResult


def prediction_table(estimator, dataset: Dataset, max_points: int, seed: int) -> pd.DataFrame:
    """Features (named as the dataset names them), target and prediction of at most ``max_points`` test rows."""
    n_test = len(dataset.X_test)
    rows = np.arange(n_test)
    if n_test > max_points:
        rows = np.sort(np.random.default_rng(seed).choice(n_test, max_points, replace=False))
    names = list(dataset.feature_names) or [f"x{j}" for j in range(dataset.n_features)]
    table = pd.DataFrame(dataset.X_test[rows], columns=names)
    table["target"] = dataset.y_test[rows]
    table["prediction"] = estimator.predict(dataset.X_test[rows])
    return table


def run(model: Callable, dataset: Dataset, seed: int, max_points: int = 5000) -> TrialResult:
    if len(dataset.X_test) == 0:
        raise ValueError(f"the predictions protocol needs a test set; {dataset.name} has none")
    if max_points < 1:
        raise ValueError(f"max_points must be at least 1, got {max_points}")
    X, y = dataset.X_train, dataset.y_train
    estimator = model()
    online = hasattr(estimator, "partial_fit")
    fit_kwargs = {"classes": dataset.classes} if online and dataset.task == "classification" else {}
    warm_up(model, X, y, dataset, online)
    start = time.perf_counter()
    if online:
        estimator.partial_fit(X, y, **fit_kwargs)
    else:
        estimator.fit(X, y)
    train_time = time.perf_counter() - start
    summary = {"n_train": float(len(X)), "n_test": float(len(dataset.X_test)), "train_time": train_time}
    summary |= scores_on_test(estimator, dataset)
    curves = pd.DataFrame([{"step": len(X), **summary}])
    tables = {"predictions": prediction_table(estimator, dataset, max_points, seed)}
    return TrialResult(curves=curves, summary=summary, tables=tables)
