"""Predictive distributions on a test set (LRT16): RMSE, NLPD, and the coverage and width of central intervals.

One fit on the training part (online models: one ``partial_fit`` over the rows in their order), then each test row's
predictive distribution, scored against its label:

- a model whose ``predict`` takes ``return_std`` (the Mondrian forest with ``prediction="gaussian"``, scikit-learn's
  Gaussian process) gives the mean and standard deviation of its predictive distribution;
- a scikit-learn forest (``estimators_``) gives the spread across its trees: the mean of the trees' predictions (the
  forest's prediction) and their standard deviation (the decision forests' uncertainty of LRT16's comparisons, read
  as the trees' spread: see the figures' configs);
- a split-conformal regressor (MAPIE's ``SplitConformalRegressor``, its levels those of the protocol) is fitted on a
  seeded random part of the training rows, conformalized on the rest (``conformal_fraction``) and gives intervals
  only: no density, so no NLPD (nan).

The NLPD is the mean over test rows of -log N(y; mean, std^2), the Gaussian with the model's predictive mean and
standard deviation (for the Mondrian forest, whose predictive distribution is the mixture of its trees' Gaussians:
the Gaussian with that mixture's mean and standard deviation, as ``predict(X, return_std=True)`` returns them). A
standard deviation below ``STD_FLOOR`` times the training labels' is raised to it: a forest whose trees all agree
would otherwise put the label at an infinite NLPD. The central interval at level c is mean +- z_{(1+c)/2} std for a
Gaussian, MAPIE's own for the conformal model; its coverage is the fraction of test labels inside it (bounds
included), its width the mean of upper - lower.

Summary: ``rmse``, ``nlpd``, ``coverage_<c>`` and ``width_<c>`` per level (c in percent: ``coverage_95``), the mean
predictive standard deviation (``mean_std``, nan for the conformal model), ``train_time``, ``n_train`` and
``n_test``. Tables: ``calibration`` (level, coverage, width), ``predictions`` (at most ``max_points`` test rows, a
seeded sample: features, target, mean, std, and the bounds of the highest level's interval) and ``training`` (at most
``max_points`` training rows: features and target, to draw an illustration's data).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from mapie.regression import SplitConformalRegressor
from scipy.stats import norm

from experiments.data import Dataset
from experiments.progress import progress
from experiments.protocols.fractions import warm_up
from experiments.protocols.metrics import regression_scores
from experiments.protocols.result import TrialResult

STD_FLOOR = 1e-6  # the least predictive standard deviation, relative to the training labels' standard deviation
CHUNK = 10_000  # test rows predicted at a time (the progress bar's step)


def gaussian_nlpd(y: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    """-log N(y; mean, std^2) per row."""
    z = (y - mean) / std
    return 0.5 * np.log(2 * np.pi) + np.log(std) + 0.5 * z**2


def gaussian_intervals(mean: np.ndarray, std: np.ndarray, levels) -> np.ndarray:
    """Central intervals of N(mean, std^2) at each level: (n rows, 2 bounds, k levels)."""
    z = norm.ppf(0.5 + np.asarray(levels, dtype=float) / 2)
    half = std[:, None] * z[None, :]
    return np.stack([mean[:, None] - half, mean[:, None] + half], axis=1)


def interval_scores(y: np.ndarray, intervals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coverage (fraction of labels within the bounds, bounds included) and mean width of each level's intervals."""
    lower, upper = intervals[:, 0, :], intervals[:, 1, :]
    inside = (lower <= y[:, None]) & (y[:, None] <= upper)
    return inside.mean(axis=0), (upper - lower).mean(axis=0)


def percent(level: float) -> str:
    """A level's name in the summary's keys: 0.95 -> "95", 0.995 -> "99.5"."""
    return f"{100 * level:g}"


def forest_spread(forest, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation of a scikit-learn forest's trees' predictions of each row."""
    trees = np.stack([tree.predict(X) for tree in forest.estimators_])
    return trees.mean(axis=0), trees.std(axis=0)


def gaussian_predictive(estimator, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation of the model's predictive distribution of each row."""
    if hasattr(estimator, "estimators_"):
        return forest_spread(estimator, X)
    mean, std = estimator.predict(X, return_std=True)
    return np.asarray(mean, dtype=float), np.asarray(std, dtype=float)


def _chunks(n: int, desc: str):
    return progress(range(0, n, CHUNK), desc=desc, leave=False, mininterval=2.0)


def _fit(estimator, X: np.ndarray, y: np.ndarray) -> None:
    if hasattr(estimator, "partial_fit"):
        estimator.partial_fit(X, y)
    else:
        estimator.fit(X, y)


def conformal_split(n: int, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Training rows to fit on and rows to conformalize on: a seeded random ``fraction`` of the n rows for the
    latter, each part in the rows' order."""
    rows = np.random.default_rng(seed).permutation(n)
    n_conformal = round(fraction * n)
    if not 0 < n_conformal < n:
        raise ValueError(f"conformal_fraction {fraction} leaves no rows to fit or to conformalize on ({n} rows)")
    return np.sort(rows[n_conformal:]), np.sort(rows[:n_conformal])


def run(
    model: Callable,
    dataset: Dataset,
    seed: int,
    levels: Sequence[float] = (0.5, 0.8, 0.9, 0.95),
    conformal_fraction: float = 0.25,
    max_points: int = 5000,
) -> TrialResult:
    if dataset.task != "regression":
        raise ValueError(f"the predictive protocol scores regressors; {dataset.name} is a {dataset.task} dataset")
    if len(dataset.X_test) == 0:
        raise ValueError(f"the predictive protocol needs a test set; {dataset.name} has none")
    levels = [float(c) for c in levels]
    if not levels or not all(0 < c < 1 for c in levels) or sorted(set(levels)) != levels:
        raise ValueError(f"levels must be increasing numbers in (0, 1), got {levels}")
    if max_points < 1:
        raise ValueError(f"max_points must be at least 1, got {max_points}")
    X, y, X_test, y_test = dataset.X_train, dataset.y_train, dataset.X_test, dataset.y_test
    estimator = model()
    conformal = isinstance(estimator, SplitConformalRegressor)
    if not conformal:
        warm_up(model, X, y, dataset, hasattr(estimator, "partial_fit"))
    start = time.perf_counter()
    if conformal:
        fit_rows, conformal_rows = conformal_split(len(y), conformal_fraction, seed)
        estimator.fit(X[fit_rows], y[fit_rows])
        estimator.conformalize(X[conformal_rows], y[conformal_rows])
    else:
        _fit(estimator, X, y)
    train_time = time.perf_counter() - start
    n = len(y_test)
    mean, std, intervals = np.empty(n), np.full(n, np.nan), np.empty((n, 2, len(levels)))
    for a in _chunks(n, f"predictive {dataset.name}"):
        rows = slice(a, min(a + CHUNK, n))
        if conformal:
            mean[rows], found = estimator.predict_interval(X_test[rows])
            if found.shape[2] != len(levels):
                raise ValueError(f"the conformal model has {found.shape[2]} levels, the protocol {len(levels)}")
            intervals[rows] = found
        else:
            mean[rows], std[rows] = gaussian_predictive(estimator, X_test[rows])
    if not conformal:
        std = np.maximum(std, STD_FLOOR * (float(np.std(y)) or 1.0))
        intervals = gaussian_intervals(mean, std, levels)
    coverage, width = interval_scores(y_test, intervals)
    summary = {
        **regression_scores(mean, y_test),
        "nlpd": float("nan") if conformal else float(np.mean(gaussian_nlpd(y_test, mean, std))),
        "mean_std": float(np.mean(std)),
        **{f"coverage_{percent(c)}": float(v) for c, v in zip(levels, coverage, strict=True)},
        **{f"width_{percent(c)}": float(v) for c, v in zip(levels, width, strict=True)},
        "train_time": train_time,
        "n_train": float(len(y)),
        "n_test": float(n),
    }
    curves = pd.DataFrame([{"step": len(y), **summary}])
    predicted = _sample(dataset, X_test, y_test, max_points, seed)
    rows = predicted.index.to_numpy()
    predicted = predicted.assign(
        mean=mean[rows], std=std[rows], lower=intervals[rows, 0, -1], upper=intervals[rows, 1, -1]
    )
    tables = {
        "calibration": pd.DataFrame({"level": levels, "coverage": coverage, "width": width}),
        "predictions": predicted.reset_index(drop=True),
        "training": _sample(dataset, X, y, max_points, seed).reset_index(drop=True),
    }
    return TrialResult(curves=curves, summary=summary, tables=tables)


def _sample(dataset: Dataset, X: np.ndarray, y: np.ndarray, max_points: int, seed: int) -> pd.DataFrame:
    """Features (named as the dataset names them) and target of at most ``max_points`` rows, a seeded sample in the
    rows' order, indexed by row."""
    rows = np.arange(len(y))
    if len(y) > max_points:
        rows = np.sort(np.random.default_rng(seed).choice(len(y), max_points, replace=False))
    names = list(dataset.feature_names) or [f"x{j}" for j in range(dataset.n_features)]
    table = pd.DataFrame(X[rows], columns=names, index=rows)
    table["target"] = y[rows]
    return table
