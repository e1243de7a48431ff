"""Baselines that are not Mondrian forests and that no library provides."""

from __future__ import annotations

import numpy as np
from mapie.regression import SplitConformalRegressor
from scipy.stats import norm
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.ensemble import RandomForestRegressor
from sklearn.utils.validation import check_is_fitted, validate_data


class KTDummyClassifier(ClassifierMixin, BaseEstimator):
    """AMF's Dummy: the Krichevsky-Trofimov estimator on the labels alone, (n_k + 1/2) / (n + K/2), ignoring X."""

    def __init__(self, dirichlet: float = 0.5):
        self.dirichlet = dirichlet

    def partial_fit(self, X, y, classes=None):
        first = not hasattr(self, "counts_")
        X, y = validate_data(self, X, y, reset=first)
        if first:
            self.classes_ = np.unique(y if classes is None else classes)
            self.counts_ = np.zeros(len(self.classes_))
        index = np.searchsorted(self.classes_, y)
        if np.any(index >= len(self.classes_)) or np.any(self.classes_[np.minimum(index, len(self.classes_) - 1)] != y):
            raise ValueError(f"y has labels outside classes_ {self.classes_!r}")
        self.counts_ = self.counts_ + np.bincount(index, minlength=len(self.classes_))
        return self

    def fit(self, X, y):
        for attribute in ("counts_", "classes_"):
            self.__dict__.pop(attribute, None)
        return self.partial_fit(X, y)

    def progressive_predict_proba(self, X, y, classes=None) -> np.ndarray:
        """Row i: the forecast for y[i] from the labels before it (the online protocol's compiled path); learns y."""
        before = self.counts_.copy() if hasattr(self, "counts_") else None
        self.partial_fit(X, y, classes)
        index = np.searchsorted(self.classes_, y)
        onehot = np.zeros((len(index), len(self.classes_)))
        onehot[np.arange(len(index)), index] = 1.0
        seen = np.cumsum(onehot, axis=0) - onehot + (0.0 if before is None else before)
        return (seen + self.dirichlet) / (seen.sum(axis=1, keepdims=True) + len(self.classes_) * self.dirichlet)

    def predict_proba(self, X):
        check_is_fitted(self, "counts_")
        X = validate_data(self, X, reset=False)
        p = (self.counts_ + self.dirichlet) / (self.counts_.sum() + len(self.classes_) * self.dirichlet)
        return np.tile(p, (X.shape[0], 1))

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class ForestSpreadRegressor(RandomForestRegressor):
    """scikit-learn's random forest with the spread of its trees as its uncertainty: the interval
    mean +- z_(1 - alpha/2) * std of the trees' predictions at x (what scikit-garden's ``return_std`` gives for its
    forests). It targets neither mu(x) nor a new y: the trees' spread is neither the standard error of the forest's
    mean nor the noise.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(size=(200, 1)); y = X[:, 0]
    >>> ForestSpreadRegressor(10, random_state=0).fit(X, y).predict_interval(X[:2]).shape
    (2, 2)
    """

    def predict(self, X, return_std: bool = False):
        """The forest's mean at each row of X, and with ``return_std`` the std of its trees' predictions there."""
        mean = super().predict(X)
        if not return_std:
            return mean
        X = validate_data(self, X, reset=False, dtype=np.float32)
        return mean, np.stack([tree.predict(X) for tree in self.estimators_]).std(axis=0)

    def predict_interval(self, X, alpha: float = 0.05) -> np.ndarray:
        """[lower, upper] per row: mean -+ z_(1 - alpha/2) * the trees' std."""
        mean, std = self.predict(X, return_std=True)
        half = norm.ppf(1 - _checked_alpha(alpha) / 2) * std
        return np.column_stack([mean - half, mean + half])


class SplitConformalForest(RegressorMixin, BaseEstimator):
    """Split-conformal prediction intervals (MAPIE's ``SplitConformalRegressor``, absolute residual scores) around a
    scikit-learn random forest: the forest learns a random ``1 - conformalize_fraction`` of the rows, the rest
    conformalize it. The interval targets a new y at x (marginal coverage over x and y), not mu(x).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(size=(200, 1)); y = X[:, 0]
    >>> SplitConformalForest(10, random_state=0).fit(X, y).predict_interval(X[:2]).shape
    (2, 2)
    """

    def __init__(self, n_estimators: int = 100, *, conformalize_fraction: float = 0.5, random_state=None):
        self.n_estimators = n_estimators
        self.conformalize_fraction = conformalize_fraction
        self.random_state = random_state

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        rng = np.random.default_rng(self.random_state)
        held = rng.permutation(len(y)) < round(self.conformalize_fraction * len(y))
        if held.all() or not held.any():
            raise ValueError(f"conformalize_fraction {self.conformalize_fraction} leaves no rows to fit or to hold out")
        seed = int(rng.integers(2**31))
        self.forest_ = RandomForestRegressor(self.n_estimators, random_state=seed).fit(X[~held], y[~held])
        self.held_ = (X[held], y[held])
        return self

    def predict(self, X):
        check_is_fitted(self, "forest_")
        return self.forest_.predict(validate_data(self, X, reset=False))

    def predict_interval(self, X, alpha: float = 0.05) -> np.ndarray:
        """[lower, upper] per row: MAPIE's split-conformal interval of level 1 - alpha."""
        check_is_fitted(self, "forest_")
        conformal = SplitConformalRegressor(self.forest_, confidence_level=1 - _checked_alpha(alpha), prefit=True)
        conformal.conformalize(*self.held_)
        _, bounds = conformal.predict_interval(validate_data(self, X, reset=False))
        return bounds[:, :, 0]


def _checked_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    return float(alpha)
