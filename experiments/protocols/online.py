"""Online progressive validation: predict x_t, then learn (x_t, y_t); running average losses over t."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from experiments.data import Dataset
from experiments.protocols.metrics import log_losses
from experiments.protocols.result import TrialResult


def _predictions_one_by_one(model, X, y, classes, classification: bool) -> np.ndarray:
    """Fallback for estimators without a compiled loop: one predict and one partial_fit call per sample."""
    out = np.empty((len(X), len(classes))) if classification else np.empty(len(X))
    for i in range(len(X)):
        xi = X[i : i + 1]
        if classification:
            out[i] = model.predict_proba(xi)[0] if hasattr(model, "classes_") else 1.0 / len(classes)
            model.partial_fit(xi, y[i : i + 1], classes=classes)
        else:
            out[i] = model.predict(xi)[0] if hasattr(model, "n_features_in_") else 0.0
            model.partial_fit(xi, y[i : i + 1])
    return out


def _progressive(model, X, y, classes, classification: bool) -> np.ndarray:
    if classification and hasattr(model, "progressive_predict_proba"):
        return model.progressive_predict_proba(X, y, classes=classes)
    if not classification and hasattr(model, "progressive_predict"):
        return model.progressive_predict(X, y)
    if not hasattr(model, "partial_fit"):
        raise ValueError(f"the online protocol needs partial_fit; {type(model).__name__} has none")
    return _predictions_one_by_one(model, X, y, classes, classification)


def progressive_curves(estimator, X: np.ndarray, y: np.ndarray, classes, steps: np.ndarray) -> TrialResult:
    """Progressive validation of ``estimator`` on the stream (X, y), running averages logged at ``steps``."""
    classification = classes is not None
    losses, correct, elapsed = [], [], []
    start = time.perf_counter()
    for a, b in zip(np.r_[0, steps[:-1]], steps, strict=True):
        prediction = _progressive(estimator, X[a:b], y[a:b], classes, classification)
        elapsed.append(time.perf_counter() - start)
        if classification:
            y_index = np.searchsorted(classes, y[a:b])
            losses.append(log_losses(prediction, y_index))
            correct.append(np.argmax(prediction, axis=1) == y_index)
        else:
            losses.append((prediction - y[a:b]) ** 2)
    seen = np.arange(1, len(X) + 1)
    curves = pd.DataFrame({"step": steps, "train_time": elapsed})
    loss_name = "log_loss" if classification else "mse"
    curves[f"average_{loss_name}"] = (np.cumsum(np.concatenate(losses)) / seen)[steps - 1]
    if classification:
        curves["average_accuracy"] = (np.cumsum(np.concatenate(correct)) / seen)[steps - 1]
    summary = curves.iloc[-1].drop("step").to_dict()
    summary["samples_per_second"] = len(X) / max(elapsed[-1], 1e-12)
    return TrialResult(curves=curves, summary=summary)


def run(model: Callable, dataset: Dataset, seed: int, log_every: int = 100, shuffle: bool = True) -> TrialResult:
    """Progressive validation on the training stream of ``dataset`` (shuffled with ``seed``), logged every
    ``log_every`` samples."""
    X, y = dataset.X_train, dataset.y_train
    if shuffle:
        order = np.random.default_rng(seed).permutation(len(X))
        X, y = X[order], y[order]
    classes = dataset.classes if dataset.task == "classification" else None
    steps = np.unique(np.r_[np.arange(log_every, len(X), log_every), len(X)])
    return progressive_curves(model(), X, y, classes, steps)
