"""MGS20's adaptive lifetime for the partition regressor: the forest is fitted on a random half of the data at the
largest lifetime of a grid, and read at every grid value; the other half picks the lifetime of least empirical risk,
then Audibert's (2007) STAR step combines it with a partner (``star``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

ADAPTIVE = "adaptive"

# Why the adaptive lifetime takes whole sample weights only (as copies of their rows).
HALVES = "the adaptive lifetime deals the points into two halves (one fits, one chooses), whole points"


def lifetime_grid(n: int, d: int) -> np.ndarray:
    """Return the default grid of the adaptive lifetime.

    1, 2, 4, ... up to the first value >= n^(1/d), the lifetime whose cells hold about one point each (MGS20's
    lam_n ~ n^(1/(d + 2 beta)) as the smoothness beta goes to 0).

    Parameters
    ----------
    n : int
        The number of points the forest is fitted on (half of the data with the adaptive lifetime).
    d : int
        The number of features.

    Returns
    -------
    ndarray
        The grid, increasing powers of 2.

    Examples
    --------
    >>> from mondrian.partition import lifetime_grid
    >>> lifetime_grid(1000, 2).tolist()  # 1000 ** (1 / 2) = 31.6
    [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
    """
    top = max(int(np.ceil(np.log2(max(n, 2) ** (1.0 / d)))), 0)
    return 2.0 ** np.arange(top + 1)


def star(first: np.ndarray, others: np.ndarray, y: np.ndarray) -> tuple[int, float, np.ndarray]:
    """Apply Audibert's STAR step: the best point on the segments from one predictor to the others.

    For each row b of ``others``, alpha = clip(sum (y - a)(b - a) / sum (b - a)^2, 0, 1) minimises the empirical
    square risk of (1 - alpha) a + alpha b, a = ``first``.

    Parameters
    ----------
    first : ndarray of shape (n_samples,)
        The predictions a of the empirical risk minimiser.
    others : ndarray of shape (n_candidates, n_samples)
        The predictions of the candidates, one row each.
    y : ndarray of shape (n_samples,)
        The labels.

    Returns
    -------
    best : int
        The row whose segment holds the least empirical risk.
    alpha : float
        Its weight.
    risks : ndarray of shape (n_candidates,)
        The least empirical risk on each row's segment.
    """
    step = others - first
    spread = (step**2).sum(axis=1)
    alphas = np.clip(
        np.divide((step * (y - first)).sum(axis=1), spread, out=np.zeros_like(spread), where=spread > 0), 0, 1
    )
    risks = ((first + alphas[:, None] * step - y) ** 2).mean(axis=1)
    best = int(np.argmin(risks))
    return best, float(alphas[best]), risks


class AdaptiveLifetime:
    """The regressor's ``lifetime="adaptive"``: the grid ``lifetimes`` checked, the fit on one half and the choice
    on the other (``selection_``), and the STAR combination it predicts with."""

    if TYPE_CHECKING:  # what it uses of its host, the partition regressor (declared for the type checker only)
        lifetimes: object
        inner_margin: float
        selection_: dict

        def _grow(self, X, y, w, lifetime: float, lower, upper, streams) -> None: ...

        def predict_nested(self, X, lifetimes) -> np.ndarray: ...

    def _check_grid(self) -> None:
        """Refuse a grid ``lifetimes`` that is not increasing positive finite numbers."""
        if self.lifetimes is None:
            return
        try:
            grid = np.asarray(self.lifetimes, dtype=np.float64)
        except (TypeError, ValueError):  # not numbers
            grid = np.full(0, np.nan)
        valid = grid.ndim == 1 and grid.size > 0 and np.all(np.isfinite(grid) & (grid > 0))
        if not valid or np.any(np.diff(grid) <= 0):
            raise ValueError(f"lifetimes must be increasing positive finite numbers, got {self.lifetimes!r}")

    def _fit_adaptive(self, X: np.ndarray, y: np.ndarray, lower, upper, streams) -> None:
        """Fit the trees on a half of (X, y) dealt by the last stream (whole rows), at the grid's largest lifetime,
        and choose on the held-out points of the inner box (``selection_``)."""
        if X.shape[0] < 2:
            raise ValueError(
                f"the adaptive lifetime needs 2 samples or more (half to fit, half to choose), got {len(y)} sample"
            )
        order = streams[-1].permutation(len(y))
        fit_half, held_out = order[: len(y) // 2], order[len(y) // 2 :]
        grid = (
            lifetime_grid(len(fit_half), X.shape[1])
            if self.lifetimes is None
            else np.asarray(self.lifetimes, dtype=np.float64)
        )
        self._grow(X[fit_half], y[fit_half], None, float(grid[-1]), lower, upper, streams[: len(streams) - 1])
        eps = self.inner_margin * (upper - lower)
        inner = held_out[np.all((X[held_out] >= lower + eps) & (X[held_out] <= upper - eps), axis=1)]
        if inner.size == 0:
            raise ValueError("no held-out point in the inner box: lower inner_margin")
        nested = self.predict_nested(X[inner], grid)
        risks = ((nested - y[inner]) ** 2).mean(axis=1)
        erm = int(np.argmin(risks))
        partner, alpha, star_risks = star(nested[erm], nested, y[inner])
        self.selection_ = {
            "lifetimes": grid, "risks": risks, "erm": float(grid[erm]), "partner": float(grid[partner]),
            "alpha": alpha, "star_risk": float(star_risks[partner]),
        }  # fmt: skip

    def _star_prediction(self, X) -> np.ndarray:
        """(1 - alpha) f_erm + alpha f_partner at the rows of X, the choice of ``selection_``."""
        chosen = self.selection_
        pair = np.array(sorted({chosen["erm"], chosen["partner"]}))
        rows = dict(zip(pair, self.predict_nested(X, pair), strict=True))
        return (1.0 - chosen["alpha"]) * rows[chosen["erm"]] + chosen["alpha"] * rows[chosen["partner"]]
