"""Excess risk against the sample size (MGS20's rates, MGS17's fixed-lifetime plateau).

For each n of ``sizes`` the model is fitted on the first n training points with its lifetime following n,
lam_n = lifetime_scale * n^(1 / (d + 2 smoothness)) (MGS20's minimax choice for a Hölder regression function of
that smoothness), or a fixed ``lifetime`` (a number, or "adaptive" for MGS20's STAR choice), and optionally
M_n = ceil(trees_scale * n^trees_exponent) trees; its excess risk E[(f_hat(X) - f(X))^2] is measured against the
noiseless regression function on the test points of the inner box [eps, 1 - eps]^d. An adaptive lifetime also
records its choice (the ERM lifetime, the STAR partner, its weight and held-out risk) and two oracles it competes
with, in hindsight against f on the test points: the best lifetime of its own grid for the same forest, fitted on the
same half (``half_oracle_*``, MGS20's (5.7)), and the best lifetime of the grid for n points for a second forest,
fitted on all n points (``full_oracle_*``: the forest tuned on the full data), with each grid's risks in the table
``grid_risks``; a fixed one of a model with empty cells (MGS20's forests: ``empty_fraction``) records their share of
the risk, mean((q f)^2) / risk with q(x) the fraction of trees whose cell at x holds no training point: the part of
the error f_hat - f that the trees predicting 0 there make (for a single tree, the risk at the points whose cell is
empty).
With ``limit`` a fixed lifetime also records the risk its forest tends to as n -> infinity (``limit_risk``): the
partitions of the forest fitted on the largest n (the same trees at every n of a seed: one stream per tree), every
cell predicting the mean of f over it (by quadrature) instead of its points' mean.
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
from mondrian.partition import lifetime_grid

QUADRATURE = 12  # Gauss-Legendre nodes per side of a cell for the mean of f over it


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
    limit: bool = False,
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
    rows, grids = [], []
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
        if chosen:  # an adaptive lifetime: its choice, and the oracles it competes with
            half = grid_risks(estimator, X_test, truth, chosen["lifetimes"])
            full = model().set_params(lifetime=float(lifetime_grid(n, dataset.n_features)[-1]))
            start = time.perf_counter()
            full.fit(dataset.X_train[:n], dataset.y_train[:n])
            full_seconds = time.perf_counter() - start
            full_grid = grid_risks(full, X_test, truth, lifetime_grid(n, dataset.n_features))
            row.update(
                chosen_lifetime=chosen["erm"],
                partner_lifetime=chosen["partner"],
                alpha=chosen["alpha"],
                star_risk=chosen["star_risk"],
                n_fit=n // 2,
                n_held=n - n // 2,
                **oracle(half, "half_oracle"),
                **oracle(full_grid, "full_oracle"),
                full_fit_time=full_seconds,
            )
            held = pd.Series(chosen["risks"], index=chosen["lifetimes"])
            grids += [
                half.assign(n=n, forest="half", held_out_risk=held.reindex(half["lifetime"]).to_numpy()),
                full_grid.assign(n=n, forest="full", held_out_risk=np.nan),
            ]
        rows.append({**row, "n_estimators": int(estimator.n_estimators), "fit_time": seconds})
    curves = pd.DataFrame(rows)
    tables = {"grid_risks": pd.concat(grids, ignore_index=True)} if grids else {}
    summary = {"final_risk": float(curves["risk"].iloc[-1])}
    if limit and lifetime is not None and lifetime != "adaptive":
        summary["limit_risk"] = limit_risk(estimator, f, X_test, truth)
    return TrialResult(curves=curves, summary=summary, tables=tables)


def cell_means(f: Callable, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """The mean of f over each box [lower_k, upper_k] (rows), by Gauss-Legendre quadrature on a product grid."""
    nodes, weights = np.polynomial.legendre.leggauss(QUADRATURE)
    nodes, weights = (nodes + 1) / 2, weights / 2  # on [0, 1], summing to 1
    d = lower.shape[1]
    grid = np.stack(np.meshgrid(*[nodes] * d, indexing="ij"), -1).reshape(-1, d)
    weight = np.prod(np.stack(np.meshgrid(*[weights] * d, indexing="ij"), -1).reshape(-1, d), axis=1)
    points = lower[:, None, :] + grid[None] * (upper - lower)[:, None, :]
    return (f(points.reshape(-1, d)).reshape(len(lower), -1) * weight).sum(axis=1)


def limit_risk(forest, f: Callable, X_test: np.ndarray, truth: np.ndarray) -> float:
    """The risk against f on the test points of a fitted forest's partitions with every cell predicting the mean of
    f over it: the n -> infinity limit of the forest's risk (its fitted lifetime fixed)."""
    prediction = np.zeros(len(X_test))
    for tree in forest.trees_:
        leaves = tree.leaves()
        means = np.zeros(tree.n_nodes)
        means[leaves] = cell_means(f, tree.nodes.box_lower[leaves], tree.nodes.box_upper[leaves])
        prediction += means[tree.apply(X_test)]
    return float(np.mean((prediction / len(forest.trees_) - truth) ** 2))


def grid_risks(estimator, X_test: np.ndarray, truth: np.ndarray, lifetimes) -> pd.DataFrame:
    """The risk against f of a fitted forest pruned at each of ``lifetimes``."""
    risks = np.mean((estimator.predict_nested(X_test, lifetimes) - truth) ** 2, axis=1)
    return pd.DataFrame({"lifetime": np.asarray(lifetimes, dtype=float), "risk": risks})


def oracle(grid: pd.DataFrame, name: str) -> dict:
    """The grid's lifetime of least risk, that risk, and whether it sits at an end of the grid (which would then be
    too narrow to hold the best lifetime)."""
    best = int(np.argmin(grid["risk"].to_numpy()))
    return {
        f"{name}_risk": float(grid["risk"].iloc[best]),
        f"{name}_lifetime": float(grid["lifetime"].iloc[best]),
        f"{name}_at_edge": float(best in (0, len(grid) - 1)),
    }
