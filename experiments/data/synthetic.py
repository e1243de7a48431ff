"""Seeded synthetic datasets: Friedman, the 2-D toys, and regression on [0,1]^d with known smoothness."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn import datasets as skd

from experiments.data.dataset import Dataset, split


def friedman(
    n_samples: int,
    n_features: int = 5,
    noise: float = 1.0,
    test_size: float = 0.3,
    seed: int = 0,
    noiseless_test: bool = False,
):
    """y = 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5 + N(0, noise^2), x ~ U[0,1]^d (d >= 5).

    ``noiseless_test``: the test targets are the true function's values (BSP Fig. 4 measures the error to it)."""
    X, y = skd.make_friedman1(n_samples, n_features, noise=noise, random_state=seed)
    _, truth = skd.make_friedman1(n_samples, n_features, noise=0.0, random_state=seed)  # the same X, no noise
    name = f"friedman{n_features}"
    rows = split(
        name, "regression", X, np.arange(n_samples), test_size, seed, noise=noise, noiseless_test=noiseless_test
    )
    train, test = rows.y_train, rows.y_test
    targets = truth if noiseless_test else y
    return Dataset(name, "regression", X[train], y[train], X[test], targets[test], (), rows.metadata)


def moons(n_samples: int = 1000, noise: float = 0.3, test_size: float = 0.3, seed: int = 0):
    X, y = skd.make_moons(n_samples, noise=noise, random_state=seed)
    return split("moons", "classification", X, y, test_size, seed, noise=noise)


def circles(n_samples: int = 1000, noise: float = 0.2, factor: float = 0.5, test_size: float = 0.3, seed: int = 0):
    X, y = skd.make_circles(n_samples, noise=noise, factor=factor, random_state=seed)
    return split("circles", "classification", X, y, test_size, seed, noise=noise, factor=factor)


def linear(n_samples: int = 1000, noise: float = 2.0, test_size: float = 0.3, seed: int = 0):
    """Two Gaussian-blob classes separated by a line, jittered (scikit-learn's "linearly separable" toy)."""
    X, y = skd.make_classification(
        n_samples, n_features=2, n_redundant=0, n_informative=2, n_clusters_per_class=1, random_state=seed
    )
    X = X + noise * np.random.default_rng(seed).uniform(size=X.shape)
    return split("linear", "classification", X, y, test_size, seed, noise=noise)


def bsp_sin(n_samples: int = 5000, noise: float = 0.2, test_size: float = 0.3, seed: int = 0):
    """BSP's 2-D toy (Fan, Li, Sisson 2020, Fig. 5): y = 10 sin(pi x1 x2) + N(0, noise^2), x ~ U[0,1]^2."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n_samples, 2))
    y = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + noise * rng.standard_normal(n_samples)
    return split("bsp_sin", "regression", X, y, test_size, seed, noise=noise)


SIGNALS = ("heavisine", "doppler", "blocks", "bumps")
# Donoho & Johnstone (1994)'s test signals: jump locations, heights and widths of blocks and bumps.
_DJ_LOCATIONS = np.array([0.1, 0.13, 0.15, 0.23, 0.25, 0.4, 0.44, 0.65, 0.76, 0.78, 0.81])
_DJ_BLOCK_HEIGHTS = np.array([4, -5, 3, -4, 5, -4.2, 2.1, 4.3, -3.1, 2.1, -4.2])
_DJ_BUMP_HEIGHTS = np.array([4, 5, 3, 4, 5, 4.2, 2.1, 4.3, 3.1, 5.1, 4.2])
_DJ_BUMP_WIDTHS = np.array([0.005, 0.005, 0.006, 0.01, 0.01, 0.03, 0.01, 0.01, 0.005, 0.008, 0.005])


def _raw_signal(t: np.ndarray, name: str) -> np.ndarray:
    if name == "heavisine":
        return 4 * np.sin(4 * np.pi * t) - np.sign(t - 0.3) - np.sign(0.72 - t)
    if name == "doppler":
        return np.sqrt(t * (1 - t)) * np.sin(2 * np.pi * 1.05 / (t + 0.05))
    offsets = t[:, None] - _DJ_LOCATIONS
    if name == "blocks":
        return ((1 + np.sign(offsets)) / 2 * _DJ_BLOCK_HEIGHTS).sum(axis=1)
    if name == "bumps":
        return (_DJ_BUMP_HEIGHTS / (1 + np.abs(offsets / _DJ_BUMP_WIDTHS)) ** 4).sum(axis=1)
    raise ValueError(f"unknown signal {name!r}; choose one of {SIGNALS}")


def signal_function(t: np.ndarray, name: str) -> np.ndarray:
    """A Donoho-Johnstone signal on [0, 1], rescaled to [0, 1] by its range on a fine grid."""
    grid = _raw_signal(np.linspace(0, 1, 100_001), name)
    return (_raw_signal(np.asarray(t, dtype=np.float64), name) - grid.min()) / (grid.max() - grid.min())


def signal1d(
    n_samples: int = 5000, signal: str = "doppler", noise: float = 0.03, test_size: float = 0.0, seed: int = 0
):
    """1-D regression on a Donoho-Johnstone signal (AMF's Fig. 8): x ~ U[0,1], y = signal(x) + N(0, noise^2)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=n_samples)
    y = signal_function(x, signal) + noise * rng.standard_normal(n_samples)
    return split(f"signal1d-{signal}", "regression", x[:, None], y, test_size, seed, signal=signal, noise=noise)


def hoelder_function(X: np.ndarray, beta: float) -> np.ndarray:
    """f(x) = ||x - 1/2||_2^beta: beta-Hoelder on [0,1]^d (Lipschitz for beta = 1), no smoother at the centre."""
    return np.linalg.norm(X - 0.5, axis=1) ** beta


def smooth_function(X: np.ndarray) -> np.ndarray:
    """f(x) = sum_j sin(2 pi x_j) / d: C^infinity, so in the s = 2 (C^2) class of MGS20."""
    return np.sin(2 * np.pi * X).mean(axis=1)


def hoelder(
    n_samples: int,
    n_features: int = 1,
    beta: float = 1.0,
    noise: float = 0.1,
    test_size: float = 0.3,
    seed: int = 0,
):
    """Regression y = ||x - 1/2||^beta + N(0, noise^2), x ~ U[0,1]^d (beta in (0, 1]; 1 is Lipschitz)."""
    if not 0 < beta <= 1:
        raise ValueError(f"beta must lie in (0, 1], got {beta}")
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n_samples, n_features))
    y = hoelder_function(X, beta) + noise * rng.standard_normal(n_samples)
    name = f"hoelder{beta:g}-d{n_features}"
    return split(name, "regression", X, y, test_size, seed, function="hoelder", beta=beta, noise=noise)


def smooth(n_samples: int, n_features: int = 1, noise: float = 0.1, test_size: float = 0.3, seed: int = 0):
    """Regression y = mean_j sin(2 pi x_j) + N(0, noise^2), x ~ U[0,1]^d (smoothness s = 2 of MGS20)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n_samples, n_features))
    y = smooth_function(X) + noise * rng.standard_normal(n_samples)
    return split(f"smooth-d{n_features}", "regression", X, y, test_size, seed, function="smooth", noise=noise)


def gap_sine(n_samples: int = 200, n_test: int = 401, noise: float = 0.1, seed: int = 0):
    """1-D regression whose test inputs leave the training ones' range (LRT16's illustration): y = sin(2 pi x) +
    N(0, noise^2); training x ~ U([0, 1/3] u [2/3, 1]) (two clusters and a gap), test x on an even grid of n_test
    points over [-1/2, 3/2] (the gap and both sides beyond the data), test labels noisy like the training ones."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=n_samples) / 3 + 2 / 3 * (rng.uniform(size=n_samples) < 0.5)
    grid = np.linspace(-0.5, 1.5, n_test)
    y, y_test = (np.sin(2 * np.pi * t) + noise * rng.standard_normal(len(t)) for t in (x, grid))
    metadata = {"function": "sine", "noise": noise, "seed": seed}
    return Dataset("gap_sine", "regression", x[:, None], y, grid[:, None], y_test, ("x",), metadata)


def regression_function(dataset) -> Callable[[np.ndarray], np.ndarray]:
    """The noiseless regression function f of a synthetic dataset that records it (``hoelder``, ``smooth``)."""
    meta = dataset.metadata
    if meta.get("function") == "hoelder":
        return lambda X: hoelder_function(X, meta["beta"])
    if meta.get("function") == "smooth":
        return smooth_function
    raise ValueError(f"{dataset.name} does not record its regression function (only hoelder and smooth do)")


__all__ = ["Dataset", "bsp_sin", "circles", "friedman", "gap_sine", "hoelder", "linear", "moons", "signal1d", "smooth"]
