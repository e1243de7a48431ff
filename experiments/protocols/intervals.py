"""Coverage and width of intervals at a point, over replications of a simulation design (CKU23's simulations).

The design: X ~ U[0, 1]^dim, Y = mu(X) + N(0, noise^2) with mu(x) = sum_j sin(pi x_j), the evaluation point
x = (1/2, ..., 1/2) (the design of Cattaneo, Klusowski and Underwood's simulations, read from their replication
script: the text's simulation section is out of this project's reach). Each replication draws a training sample of
``n_samples`` points and a fresh Y at x, fits the method, and records its estimate of mu(x), its standard error when
it has one, its interval of level 1 - alpha, and whether that interval covers mu(x) (a confidence interval's target)
and the fresh Y (a prediction interval's). Replication r of a trial of seed s draws its data from the stream
(s, r), so that every method of the same seed meets the same samples.

The methods (``method``):

- ``mondrian``: MGS20's purely random Mondrian forest on [0, 1]^d with CKU's debiasing of order ``debias_order``
  (J = 0 is the plain forest; lifetimes a_r lambda with a_r = ``debias_ratio``^r, None the library's default) and
  their normal interval for mu(x) (``predict_interval``; ``predict(X, return_std=True)`` its standard error);
  ``lifetime`` a number, the library's name of CKU's lifetime rule
  ("polynomial"), or "amse_optimal": the infeasible lifetime minimizing the asymptotic MSE of the plain forest at x,
  from this design's constants (`amse_optimal_lifetime`), which the forest of every order runs at: CKU's inference
  recipe (their Sec. 6) runs the forest of order J at the lifetime tuned for order J - 1, as the library's
  "polynomial" does.
- ``forest_spread``: scikit-learn's random forest, mean +- z * std of its trees' predictions
  (experiments.baselines.ForestSpreadRegressor): neither a confidence nor a prediction interval.
- ``split_conformal``: MAPIE's split-conformal interval around a random forest
  (experiments.baselines.SplitConformalForest): a prediction interval for a new Y.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from experiments.baselines import ForestSpreadRegressor, SplitConformalForest
from experiments.progress import progress
from experiments.protocols.result import TrialResult
from mondrian import MondrianPartitionForestRegressor

METHODS = ("mondrian", "forest_spread", "split_conformal")
AMSE_OPTIMAL = "amse_optimal"
EMPTY_MEAN = "mean"  # an empty cell predicts the training labels' mean (the authors' code), not 0 (their text's 0/0)
# the constant of the plain forest's variance at an interior x, per dimension: lam^d sigma^2 / (n f(x)) times its d-th
# power ((4 - 4 log 2) / 3 = 0.4091)
VARIANCE_CONSTANT = (4 - 4 * math.log(2)) / 3


def regression_function(X: np.ndarray) -> np.ndarray:
    """mu(x) = sum_j sin(pi x_j)."""
    return np.sin(np.pi * X).sum(axis=1)


def amse_optimal_lifetime(dim: int, n_samples: int, noise: float) -> float:
    """The lifetime minimizing the plain forest's asymptotic MSE at x = (1/2, ...) for this design (infeasible: it
    knows mu and the noise): its bias -pi^2 d / (2 lam^2) (sum_j d^2 mu / dx_j^2 / (2 lam^2)) and its variance
    lam^d noise^2 VARIANCE_CONSTANT^d / n make it (pi^4 d n / (noise^2 VARIANCE_CONSTANT^d))^(1 / (4 + d))."""
    return (math.pi**4 * dim * n_samples / (noise**2 * VARIANCE_CONSTANT**dim)) ** (1 / (4 + dim))


def estimator(method: str, n_estimators: int, random_state: int, **mondrian):
    """A fresh estimator of ``method`` with ``predict`` and ``predict_interval(X, alpha)``. A Mondrian forest's
    settings (``mondrian``): ``debias_order``, ``lifetime``, ``empty_value`` (its empty cells' prediction) and
    ``debias_ratio`` (its lifetime scales a_r = debias_ratio^r; None: the library's default)."""
    if method == "mondrian":
        ratio, order = mondrian.pop("debias_ratio", None), mondrian.get("debias_order", 0)
        scales = None if ratio is None else ratio ** np.arange(order + 1, dtype=float)
        return MondrianPartitionForestRegressor(
            n_estimators, debias_scales=scales, domain="unit", random_state=random_state, n_jobs=1, **mondrian
        )
    if method == "forest_spread":
        return ForestSpreadRegressor(n_estimators, random_state=random_state, n_jobs=1)
    if method == "split_conformal":
        return SplitConformalForest(n_estimators, random_state=random_state)
    raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")


def mondrian_settings(method: str, **settings) -> dict:
    """``settings`` for a Mondrian forest, nothing for another method."""
    return settings if method == "mondrian" else {}


def replicate(model, X, y, point: np.ndarray, alpha: float) -> dict:
    """Fit ``model`` on (X, y) and read its estimate, standard error (NaN without one) and interval at ``point``."""
    start = time.perf_counter()
    model.fit(X, y)
    if isinstance(model, SplitConformalForest):
        estimate, std = float(model.predict(point)[0]), math.nan
    else:
        mean, sd = model.predict(point, return_std=True)
        estimate, std = float(mean[0]), float(sd[0])
    lower, upper = model.predict_interval(point, alpha=alpha)[0]
    seconds = time.perf_counter() - start
    # a Mondrian forest's share of trees (at its base lifetime) whose cell at x holds no training point
    empty = float(model.empty_fraction(point)[0]) if hasattr(model, "empty_fraction") else math.nan
    return {"estimate": estimate, "std": std, "lower": lower, "upper": upper, "empty_share": empty, "seconds": seconds}


def run(
    seed: int,
    method: str = "mondrian",
    debias_order: int = 0,
    debias_ratio: float | None = None,
    empty_value: float | str = 0.0,
    lifetime: float | str = AMSE_OPTIMAL,
    n_estimators: int = 1000,
    dim: int = 1,
    n_samples: int = 1000,
    noise: float = 0.3,
    replications: int = 100,
    alpha: float = 0.05,
) -> TrialResult:
    """``replications`` replications of the design; table ``replications`` (one row each), summary `summarize`."""
    if replications < 1:
        raise ValueError(f"replications must be at least 1, got {replications}")
    point = np.full((1, dim), 0.5)
    mu = float(regression_function(point)[0])
    if method != "mondrian" and (debias_order or debias_ratio is not None):
        raise ValueError(f"debias_order and debias_ratio apply to method 'mondrian' only, not {method!r}")
    if isinstance(empty_value, str) and empty_value != EMPTY_MEAN:
        raise ValueError(f"empty_value must be a number or {EMPTY_MEAN!r}, got {empty_value!r}")
    base_lifetime = amse_optimal_lifetime(dim, n_samples, noise) if lifetime == AMSE_OPTIMAL else lifetime
    order = {"debias_order": debias_order, "debias_ratio": debias_ratio}
    warm = np.random.default_rng([seed, replications]).uniform(size=(50, dim))  # compile before the clock
    settings = mondrian_settings(method, **order, lifetime=base_lifetime, empty_value=0.0)
    estimator(method, 2, 0, **settings).fit(warm, regression_function(warm))
    rows = []
    for r in progress(range(replications), desc=f"intervals {method} J={debias_order}", leave=False, mininterval=2.0):
        rng = np.random.default_rng([seed, r])
        X = rng.uniform(size=(n_samples, dim))
        y = regression_function(X) + noise * rng.standard_normal(n_samples)
        y_new = mu + noise * rng.standard_normal()
        empty = float(y.mean()) if empty_value == EMPTY_MEAN else float(empty_value)
        settings = mondrian_settings(method, **order, lifetime=base_lifetime, empty_value=empty)
        model = estimator(method, n_estimators, int(rng.integers(2**31)), **settings)
        row = replicate(model, X, y, point, alpha)
        lifetime_used = float(getattr(model, "lifetime_", math.nan))
        rows.append({"replication": r, "mu": mu, "y_new": y_new, "lifetime": lifetime_used, **row})
    table = covered(pd.DataFrame(rows))
    return TrialResult(summary=summarize(table), tables={"replications": table})


def covered(table: pd.DataFrame) -> pd.DataFrame:
    """The replications' table with each interval's width and whether it covers mu(x) and the fresh Y."""
    return table.assign(
        width=table["upper"] - table["lower"],
        covers_mu=((table["lower"] <= table["mu"]) & (table["mu"] <= table["upper"])).astype(float),
        covers_y=((table["lower"] <= table["y_new"]) & (table["y_new"] <= table["upper"])).astype(float),
    )


def summarize(table: pd.DataFrame) -> dict[str, float]:
    """Coverage of mu(x) and of the fresh Y with their Monte Carlo standard errors, mean width, and the estimate's
    bias, sd and RMSE against mu(x), the mean estimated standard error and share of empty cells at x, over the rows
    of ``table`` (`covered`'s)."""
    k = len(table)
    error = table["estimate"] - table["mu"]
    out = {"replications": float(k), "width": float(table["width"].mean()), "std_hat": float(table["std"].mean())}
    out["empty_share"] = float(table["empty_share"].mean())
    for target in ("mu", "y"):
        p = float(table[f"covers_{target}"].mean())
        out |= {f"coverage_{target}": p, f"coverage_{target}_se": math.sqrt(p * (1 - p) / k)}
    bias, sd = float(error.mean()), float(error.std(ddof=0))
    return out | {
        "bias": bias,
        "sd": sd,
        "rmse": math.sqrt(bias**2 + sd**2),
        "lifetime": float(table["lifetime"].mean()),
    }
