"""Test metrics on a held-out part while an online model learns the training stream (AMF Fig. 11 and 12).

The shuffled training part is revealed in chunks of ``every`` rows; an online model (one with ``partial_fit``)
learns each chunk and is tested on the whole test part after it (``every=None``: one pass, tested once at the
end). A batch model (no ``partial_fit``) is fitted once on the whole training stream and tested once, at its end:
its curve has a single row. Test metrics: AUC (binary: of the positive class; more classes: one-vs-rest macro
average, NaN when a class is absent from the test part), accuracy and log loss.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from experiments.data import Dataset
from experiments.protocols.fractions import aligned_proba
from experiments.protocols.metrics import classification_scores
from experiments.protocols.progressive import stream
from experiments.protocols.result import TrialResult


def auc(proba: np.ndarray, y_index: np.ndarray) -> float:
    """Area under the ROC curve of class probabilities (one column per class) for labels 0..K-1."""
    n_classes = proba.shape[1]
    if len(np.unique(y_index)) < n_classes:
        return float("nan")
    if n_classes == 2:
        return float(roc_auc_score(y_index, proba[:, 1]))
    proba = proba / proba.sum(axis=1, keepdims=True)
    return float(roc_auc_score(y_index, proba, multi_class="ovr", labels=np.arange(n_classes)))


def test_scores(estimator, dataset: Dataset) -> dict[str, float]:
    proba = aligned_proba(estimator, dataset.X_test, dataset.classes)
    y_index = np.searchsorted(dataset.classes, dataset.y_test)
    return {"auc": auc(proba, y_index), **classification_scores(proba, y_index)}


def run(
    model: Callable,
    dataset: Dataset,
    seed: int,
    every: int | None = 100,
    shuffle: bool = True,
    max_samples: int | None = None,
) -> TrialResult:
    """Learn the training stream (online: in chunks of ``every`` rows; batch: at once), test after each chunk."""
    if dataset.task != "classification":
        raise ValueError(f"the holdout protocol scores classifiers; {dataset.name} is a {dataset.task} dataset")
    if len(dataset.X_test) == 0:
        raise ValueError(f"the holdout protocol needs a test set; {dataset.name} has none (test_size=0?)")
    if every is not None and every < 1:
        raise ValueError(f"every must be a positive number of rows or null, got {every}")
    X, y = stream(dataset, seed, shuffle, max_samples)
    estimator = model()
    online = hasattr(estimator, "partial_fit")
    n = len(X)
    bounds = np.unique(np.r_[np.arange(0, n, every), n]) if online and every is not None else np.array([0, n])
    rows, train_time, test_time = [], 0.0, 0.0
    for a, b in itertools.pairwise(bounds):
        start = time.perf_counter()
        if online:
            estimator.partial_fit(X[a:b], y[a:b], classes=dataset.classes)
        else:
            estimator.fit(X[:b], y[:b])
        train_time += time.perf_counter() - start
        start = time.perf_counter()
        rows.append({"step": int(b), "train_time": train_time, **test_scores(estimator, dataset)})
        test_time += time.perf_counter() - start
    curves = pd.DataFrame(rows)
    summary = curves.iloc[-1].drop("step").to_dict()
    summary.update(n_train=float(n), n_test=float(len(dataset.X_test)), test_time=test_time)
    return TrialResult(curves=curves, summary=summary)
