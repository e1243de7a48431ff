"""Online Mondrian forests (LRT14): ``MondrianForestClassifier`` and ``MondrianForestRegressor``.

Each tree is a restricted Mondrian tree MT(lifetime, data): ``fit`` samples it in batch,
``partial_fit`` extends it online point by point (same law, whatever the order or
batching). A leaf predicts the mean of its encoded targets (empirical label
distribution or average label); the forest averages its trees.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin

from mondrian import _leaf_mean
from mondrian._forest import Classification, OnlineForest, Regression
from mondrian._validation import check_lifetime


class _MondrianForest(OnlineForest):
    _forecaster = _leaf_mean

    def __init__(self, n_estimators: int = 10, lifetime: float = np.inf, random_state=None, n_jobs=None):
        self.n_estimators = n_estimators
        self.lifetime = lifetime
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_forecaster_params(self) -> float:
        return check_lifetime(self.lifetime)

    def _kernel_params(self) -> np.ndarray:
        return _leaf_mean.kernel_params()


class MondrianForestClassifier(ClassifierMixin, Classification, _MondrianForest):
    """Online Mondrian forest classifier (Lakshminarayanan, Roy and Teh, 2014).

    Parameters
    ----------
    n_estimators : number of trees.
    lifetime : the Mondrian lifetime lambda, a positive float or ``np.inf`` (the default,
        as in LRT14's experiments: trees grow until every leaf holds one distinct point).
    random_state : int, RandomState, Generator or None; each tree draws from its own
        stream spawned from it, so that results are the same for every ``n_jobs``.
    n_jobs : threads over trees (None means 1, -1 all cores).

    A leaf predicts the empirical distribution of its labels; the forest averages the trees.
    """


class MondrianForestRegressor(RegressorMixin, Regression, _MondrianForest):
    """Online Mondrian forest regressor (Lakshminarayanan, Roy and Teh, 2014).

    Same parameters as ``MondrianForestClassifier``; a leaf predicts the mean of its labels.
    """
