"""CKU23's debiasing and inference on MGS20's partition forest (``MondrianPartitionForestRegressor``'s): the J + 1
forests of the debiased forest at lifetimes a_r lambda, their weights omega_r (``_debias``), and the variance
estimator behind ``predict(X, return_std=True)`` and ``predict_interval``, from the forest's weights of its training
points at x (``_weights``).

The forest is mu_hat(x) = sum_i w_i(x) Y_i, w_i(x) = (1/B) sum_b 1(X_i in T_b(x)) / N_b(x), "If there are no samples
$X_i$ in $T_b(x)$ then $N_b(x) = 0$, so we define $0/0 = 0$". Its standard error at the fitted lifetime lambda is
sqrt(lambda^d Sigma_hat_d(x) / n), CKU23's variance estimator Sigma_hat_d(x) = sigma2_hat(x) (n / lambda^d)
sum_i (sum_r omega_r w_ri(x))^2 with sigma2_hat(x) = sum_i w_0i(x) (Y_i - mu_hat(x))^2 (their eq. sigma2_hat: the
lifetime-lambda forest r = 0 and its own estimate); a row of sample weight k counts as k rows, as in the cells'
statistics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from joblib import effective_n_jobs
from sklearn.utils.validation import check_is_fitted

from mondrian._intervals import CentralInterval
from mondrian._parallel import for_each
from mondrian._validation import tree_streams
from mondrian.partition._adaptive import ADAPTIVE
from mondrian.partition._debias import debiasing_weights, default_scales
from mondrian.partition._lifetime import POLYNOMIAL, aimse_lifetime
from mondrian.partition._weights import add_weights

# The most weights of training points (evaluation rows times training points, per forest) the variance estimator holds
# at once: rows are taken in chunks of about this many weights.
WEIGHTS_PER_CHUNK = 1 << 22


class DebiasedForest(CentralInterval):
    """What CKU23 add to MGS20's regressor: the debiased forest of order ``debias_order`` at ``debias_scales`` (its
    nested predictions, MGS20's for J = 0), and the standard error and interval of its estimate of mu(x)."""

    if TYPE_CHECKING:  # what it uses of its host, the partition regressor (declared for the type checker only)
        debias_order: int
        debias_scales: object
        lifetime: float | str
        n_estimators: int
        n_jobs: int | None
        random_state: object
        trees_: list
        debias_trees_: list[list]

        def _grow(self, X, y, w, lifetime: float, lower, upper, streams) -> None: ...

        def _grown(self, X, y, w, lifetime: float, lower, upper, streams) -> list: ...

        def _checked_X(self, X) -> np.ndarray: ...

        def _checked_lifetimes(self, lifetimes) -> np.ndarray: ...

        def _trees_nested(
            self, X: np.ndarray, lifetimes: np.ndarray, trees: list, empty_only: bool = False
        ) -> np.ndarray: ...

        def predict(self, X, lifetime: float | None = None, return_std: bool = False): ...

    def _scales(self) -> np.ndarray:
        """The checked lifetime scales a_r, r = 0..J."""
        if self.debias_scales is None:
            return default_scales(self.debias_order)
        try:
            scales = np.asarray(self.debias_scales, dtype=np.float64)
        except (TypeError, ValueError):  # not numbers
            scales = np.full(0, np.nan)
        valid = scales.shape == (self.debias_order + 1,) and np.all(np.isfinite(scales) & (scales > 0))
        if not valid or scales[0] != 1.0 or np.unique(scales).size != scales.size:
            raise ValueError(
                f"debias_scales must be debias_order + 1 = {self.debias_order + 1} distinct positive finite numbers, "
                f"the first 1.0, got {self.debias_scales!r}"
            )
        return scales

    def _check_debiasing(self) -> None:
        """Refuse scales that are not J + 1 distinct positive numbers from 1, and an order J > 0 with a lifetime
        the variance estimator cannot read."""
        if self.debias_order > 0 and self.lifetime == ADAPTIVE:
            raise ValueError("debias_order > 0 needs a number or 'polynomial' as lifetime, not 'adaptive'")
        self._scales()

    def _start_debiased(self) -> list:
        """Set the scales a_r and weights omega_r of the forest about to be fitted (its forests r >= 1: none yet);
        return the random streams of its trees: one per tree of forest 0 (the same trees' streams whatever the
        lifetime), one for the adaptive lifetime's half split, then one per tree of the forests r = 1..J."""
        scales = self._scales()
        self.debias_scales_, self.debias_weights_, self.debias_trees_ = scales, debiasing_weights(scales), []
        return tree_streams(self.random_state, (self.debias_order + 1) * self.n_estimators + 1)

    def _grow_debiased(self, X, y, w, lower, upper, streams) -> None:
        """CKU23's forests on (X, y) of weights w: the lifetime lambda (``lifetime``, or with ``"polynomial"``
        lambda_hat_AIMSE(J - 1), their choice for inference at order J >= 1, (0) at J = 0), the forest r = 0 at it
        on the first B streams, the forests r = 1..J at a_r lambda on B streams each after the next one, and the
        labels the variance estimator reads."""
        scales, B = self.debias_scales_, self.n_estimators
        lifetime = (
            aimse_lifetime(X, y, w, lower, upper, scales[: max(self.debias_order, 1)])
            if self.lifetime == POLYNOMIAL
            else float(self.lifetime)
        )
        self._grow(X, y, w, lifetime, lower, upper, streams[:B])
        self.debias_trees_ = [
            self._grown(X, y, w, a * lifetime, lower, upper, streams[B + 1 + (r - 1) * B : B + 1 + r * B])
            for r, a in enumerate(scales[1:], start=1)
        ]
        self.training_targets_, self.training_weights_ = y, w

    def predict_nested(self, X, lifetimes) -> np.ndarray:
        """Predict with the forest pruned at each of several lifetimes (MGS20's nested estimators).

        One walk down each tree per point gives every lifetime's prediction.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.
        lifetimes : array-like of float
            Increasing lifetimes, at most the fitted one.

        Returns
        -------
        ndarray of shape (n_lifetimes, n_samples)
            One row of predictions per lifetime: with ``debias_order`` J > 0, the debiased forest
            sum_r omega_r mu_r, the r-th forest pruned at a_r times each lifetime.
        """
        X = self._checked_X(X)
        lifetimes = self._checked_lifetimes(lifetimes)
        (_, weight, trees), *others = self._forests()
        total = weight * self._trees_nested(X, lifetimes, trees)[:, :, 0]  # a_0 = 1
        for scale, weight, trees in others:
            total += weight * self._trees_nested(X, scale * lifetimes, trees)[:, :, 0]
        return total

    def _forests(self) -> list[tuple[float, float, list]]:
        """(a_r, omega_r, trees of forest r) for r = 0..J (a model fitted before debiasing: its one forest)."""
        scales, weights = getattr(self, "debias_scales_", [1.0]), getattr(self, "debias_weights_", [1.0])
        forests = [self.trees_, *getattr(self, "debias_trees_", [])]
        return [(float(a), float(omega), trees) for a, omega, trees in zip(scales, weights, forests, strict=True)]

    def _estimate_and_std(self, X, caller: str) -> tuple[np.ndarray, np.ndarray]:
        """The (debiased) estimate and CKU23's standard error, ``predict(X, return_std=True)``'s, which
        ``predict_interval`` builds on."""
        check_is_fitted(self)
        return self.predict(X, return_std=True)

    def _check_inference(self, lifetime) -> None:
        """Refuse a standard error the fitted forest cannot give."""
        if hasattr(self, "selection_"):
            raise ValueError(
                "the variance estimator needs a number or 'polynomial' as lifetime: the adaptive lifetime's STAR "
                "combination of forests fitted on half of the data has none"
            )
        if not hasattr(self, "training_targets_"):
            raise ValueError(
                "this forest was fitted before the variance estimator existed (it keeps no training points): fit it "
                "again for return_std or predict_interval"
            )
        if lifetime is not None:
            raise ValueError(f"the standard error is the fitted lifetime's: lifetime must be None, got {lifetime!r}")

    def _standard_error(self, X: np.ndarray) -> np.ndarray:
        """sqrt(sigma2_hat(x) sum_i (sum_r omega_r w_ri(x))^2) at each row of X (see the module's docstring), chunks
        of rows on ``n_jobs`` threads."""
        y, w = self.training_targets_, self.training_weights_
        point_weights = np.ones_like(y) if w is None else w
        forests = self._forests()
        omegas = np.array([omega for _, omega, _ in forests])
        threads = effective_n_jobs(self.n_jobs)
        rows = max(1, min(WEIGHTS_PER_CHUNK // (y.shape[0] * len(forests)), -(-X.shape[0] // threads)))
        std = np.empty(X.shape[0])

        def chunk(start: int) -> None:
            part = X[start : start + rows]
            weights = np.zeros((len(forests), part.shape[0], y.shape[0]))  # w_ri(x): forest, row, training point
            for r, (_, _, trees) in enumerate(forests):
                for tree in trees:
                    add_weights(tree.nodes, tree.stats, tree.first_point, tree.next_point, point_weights,
                                         part, 1.0 / len(trees), weights[r])  # fmt: skip
            plain = weights[0] @ y  # the lifetime-lambda forest's mu_hat(x), 0/0 = 0: eq. sigma2_hat's
            sigma2 = (weights[0] * (y[None, :] - plain[:, None]) ** 2).sum(axis=1)
            # a row of weight k is k rows (k copies), each of a k-th of its weight: sum_i w_i^2 / k_i
            squares = (np.tensordot(omegas, weights, axes=1) ** 2 / point_weights).sum(axis=1)
            std[start : start + rows] = np.sqrt(sigma2 * squares)

        for_each(chunk, range(0, X.shape[0], rows), self.n_jobs)
        return std
