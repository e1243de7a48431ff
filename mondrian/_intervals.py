"""Central intervals around an estimate and its standard error, what the regressors that give one share.

``CentralInterval.predict_interval(X, alpha)`` is the estimate -/+ z_(1 - alpha/2) times its standard error, both
from the class's ``_estimate_and_std(X, caller)``; what the interval covers is the class's to say: a new label
(``MondrianForestRegressor(prediction="gaussian")``, LRT16's predictive) or the regression function mu(x)
(``MondrianPartitionForestRegressor``, CKU23's confidence interval).
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real
from statistics import NormalDist

import numpy as np

from mondrian._threads import takes_turns


class CentralInterval:
    """``predict_interval`` over the class's ``_estimate_and_std(X, caller) -> (estimate, standard error)``."""

    _estimate_and_std: Callable[..., tuple[np.ndarray, np.ndarray]]  # the class's, called with (X, caller)

    @takes_turns
    def predict_interval(self, X, alpha: float = 0.05) -> np.ndarray:
        """Return the central 1 - alpha interval at each row: the estimate -/+ z_(1 - alpha/2) its standard error.

        The estimate and standard error are ``predict(X, return_std=True)``'s, z the standard normal quantile; the
        class's Notes say what the interval covers (a new label, or the regression function mu(x)).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.
        alpha : float, default=0.05
            The probability left outside the interval, in (0, 1).

        Returns
        -------
        ndarray of shape (n_samples, 2)
            The lower and upper ends of each row's interval.

        Raises
        ------
        ValueError
            If alpha is not a number in (0, 1), or as ``predict(X, return_std=True)``.

        Examples
        --------
        >>> import numpy as np
        >>> from mondrian import MondrianForestRegressor
        >>> X = np.random.default_rng(0).uniform(size=(200, 1))
        >>> y = np.sin(6 * X[:, 0])
        >>> reg = MondrianForestRegressor(n_estimators=5, prediction="gaussian", random_state=0).fit(X, y)
        >>> lower, upper = reg.predict_interval([[0.5]], alpha=0.1)[0]  # the central 90% interval of a new y
        >>> bool(lower < reg.predict([[0.5]])[0] < upper)
        True
        """
        if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0.0 < float(alpha) < 1.0:
            raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
        estimate, std = self._estimate_and_std(X, "predict_interval")
        half = NormalDist().inv_cdf(1.0 - float(alpha) / 2.0) * std
        return np.column_stack([estimate - half, estimate + half])
