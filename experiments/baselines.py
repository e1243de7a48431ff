"""Baselines that are not Mondrian forests and that no library provides."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
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
