"""Data the estimator tests share: a noisy classification and a regression on the unit cube, by size and seed.

A plain module, imported by name like ``model_state`` (a conftest.py is not importable by a stable name: pytest loads
every conftest.py of a folder without ``__init__.py`` as the same module ``conftest``)."""

import numpy as np
from sklearn.base import ClassifierMixin


def classification(n=300, d=3, n_classes=3, seed=0):
    """Labels by the first feature's slice of [0, 1], a fifth of them redrawn at random."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.floor(X[:, 0] * n_classes).astype(int)
    flip = rng.random(n) < 0.2
    y[flip] = rng.integers(0, n_classes, size=flip.sum())
    return X, y


def regression(n=300, d=3, seed=0):
    """sin(4 x_0) + x_1 with Gaussian noise of standard deviation 0.1."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    return X, np.sin(4 * X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(n)


def data_for(Model, **kwargs):
    """``classification(**kwargs)`` for a classifier class, else ``regression(**kwargs)``."""
    return classification(**kwargs) if issubclass(Model, ClassifierMixin) else regression(**kwargs)
