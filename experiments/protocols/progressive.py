"""Progressive validation logged on a log-spaced grid of steps (AMF Fig. 10).

The same predict-then-learn loop as :mod:`experiments.protocols.online` (each x_t is predicted by the model
that has learnt x_1..x_{t-1}, then learnt), but the running averages are logged at ``n_points`` steps spread
evenly on a log scale from 1 to n, plus every tenth of the stream, so that a log-x plot shows the first
samples as well as the last. ``max_samples`` keeps only the first rows of the shuffled stream (small profiles).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from experiments.data import Dataset
from experiments.protocols.online import progressive_curves
from experiments.protocols.result import TrialResult


def log_steps(n: int, n_points: int) -> np.ndarray:
    """Steps 1..n: ``n_points`` log-spaced ones, every tenth of n, and n itself (sorted, unique)."""
    if n < 1:
        raise ValueError("the stream is empty")
    geometric = np.rint(np.geomspace(1, n, max(n_points, 2)))
    tenths = np.ceil(np.arange(1, 11) * n / 10)
    steps = np.unique(np.r_[geometric, tenths, n].astype(int))
    return steps[(steps >= 1) & (steps <= n)]


def stream(dataset: Dataset, seed: int, shuffle: bool, max_samples: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The training rows in the order they are revealed: shuffled with ``seed``, cut to ``max_samples``."""
    X, y = dataset.X_train, dataset.y_train
    if shuffle:
        order = np.random.default_rng(seed).permutation(len(X))
        X, y = X[order], y[order]
    if max_samples is not None:
        if max_samples < 1:
            raise ValueError(f"max_samples must be positive, got {max_samples}")
        X, y = X[:max_samples], y[:max_samples]
    return X, y


def run(
    model: Callable,
    dataset: Dataset,
    seed: int,
    n_points: int = 100,
    shuffle: bool = True,
    max_samples: int | None = None,
) -> TrialResult:
    """Progressive validation on the training stream of ``dataset``; curves at log-spaced steps and tenths."""
    X, y = stream(dataset, seed, shuffle, max_samples)
    classes = dataset.classes if dataset.task == "classification" else None
    result = progressive_curves(model(), X, y, classes, log_steps(len(X), n_points))
    result.summary["n_samples"] = float(len(X))
    return result
