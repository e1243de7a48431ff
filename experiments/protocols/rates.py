"""Excess risk against the sample size (MGS20's rates, MGS17's fixed-lifetime plateau).

For each n of ``sizes`` the model is fitted on the first n training points with its lifetime following n,
lam_n = lifetime_scale * n^(1 / (d + 2 smoothness)) (MGS20's minimax choice for a Hölder regression function of
that smoothness), or a fixed ``lifetime`` (a number, or "adaptive" for MGS20's STAR choice), and optionally
M_n = ceil(trees_scale * n^trees_exponent) trees; its excess risk E[(f_hat(X) - f(X))^2] is measured against the
noiseless regression function on the test points of the inner box [eps, 1 - eps]^d. An adaptive lifetime also
records its choice and the risk of the best lifetime of its grid in hindsight (the oracle it competes with); a fixed
one of a model with empty cells (MGS20's forests: ``empty_fraction``) records their share of the risk,
mean((q f)^2) / risk with q(x) the fraction of trees whose cell at x holds no training point: the part of the error
f_hat - f that the trees predicting 0 there make (for a single tree, the risk at the points whose cell is empty).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from experiments.data import Dataset
from experiments.data.synthetic import regression_function
from experiments.protocols.result import TrialResult


def lifetime_at(n: int, d: int, lifetime_scale: float, smoothness: float, lifetime) -> float | str:
    """The lifetime for n points: the fixed one if given, else lifetime_scale * n^(1 / (d + 2 smoothness))."""
    return lifetime if lifetime is not None else lifetime_scale * n ** (1.0 / (d + 2.0 * smoothness))


def run(
    model: Callable,
    dataset: Dataset,
    seed: int,
    sizes: list[int],
    lifetime_scale: float = 1.0,
    smoothness: float = 1.0,
    lifetime: float | str | None = None,
    trees_scale: float = 1.0,
    trees_exponent: float | None = None,
    inner_margin: float = 0.0,
) -> TrialResult:
    """Risk of the model fitted on the first n training points, for each n of ``sizes`` (increasing)."""
    sizes = [int(n) for n in sizes]
    if not sizes or sizes != sorted(set(sizes)) or sizes[0] < 1 or sizes[-1] > len(dataset.X_train):
        raise ValueError(f"sizes must increase within 1..{len(dataset.X_train)} (the training set), got {sizes}")
    f = regression_function(dataset)
    inner = np.all((dataset.X_test >= inner_margin) & (dataset.X_test <= 1.0 - inner_margin), axis=1)
    if not inner.any():
        raise ValueError(f"no test point in the inner box [{inner_margin}, {1 - inner_margin}]^d")
    X_test = dataset.X_test[inner]
    truth = f(X_test)
    rows = []
    for n in sizes:
        params = {"lifetime": lifetime_at(n, dataset.n_features, lifetime_scale, smoothness, lifetime)}
        if trees_exponent is not None:
            params["n_estimators"] = max(1, math.ceil(trees_scale * n**trees_exponent))
        estimator = model().set_params(**params)
        start = time.perf_counter()
        estimator.fit(dataset.X_train[:n], dataset.y_train[:n])
        seconds = time.perf_counter() - start
        risk = float(np.mean((estimator.predict(X_test) - truth) ** 2))
        row = {"step": n, "risk": risk, "lifetime": float(estimator.lifetime_)}
        chosen = getattr(estimator, "selection_", None)
        if not chosen and hasattr(estimator, "empty_fraction"):  # the empty cells' part of the error: -q f
            row["empty_share"] = float(np.mean((estimator.empty_fraction(X_test) * truth) ** 2)) / risk
        if chosen:  # an adaptive lifetime: its choice, and the best lifetime of its grid in hindsight (the oracle)
            grid_risks = np.mean((estimator.predict_nested(X_test, chosen["lifetimes"]) - truth) ** 2, axis=1)
            best = int(np.argmin(grid_risks))
            row.update(
                chosen_lifetime=chosen["erm"],
                oracle_lifetime=float(chosen["lifetimes"][best]),
                oracle_risk=float(grid_risks[best]),
            )
        rows.append({**row, "n_estimators": int(estimator.n_estimators), "fit_time": seconds})
    curves = pd.DataFrame(rows)
    return TrialResult(curves=curves, summary={"final_risk": float(curves["risk"].iloc[-1])})
