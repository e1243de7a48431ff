"""CKU23's generalized jackknife over lifetimes: the debiasing weights, and the constants of the debiased forest's
bias and variance that its lifetime selection reads.

The debiased forest of order J averages J + 1 independent Mondrian forests, the r-th at lifetime a_r lambda
(a_0 = 1): mu_d(x) = sum_r omega_r mu_r(x). A forest's bias is a series in lambda^-2 (its cells are symmetric about
x in law), sum_s B_s(x) lambda^(-2 s), so weights with sum_r omega_r = 1 and sum_r omega_r a_r^(-2 s) = 0 for
s = 1..J keep mu and cancel the first J terms; what is left leads with B_(J+1)(x) lambda^(-2 J - 2) times
sum_r omega_r a_r^(-2 J - 2).
"""

from __future__ import annotations

import numpy as np

# The default ratio of consecutive lifetimes, CKU23's: "We suggest for concreteness taking $a_r = 1.05^r$."
SCALE_RATIO = 1.05


def default_scales(order: int) -> np.ndarray:
    """Return CKU23's suggested lifetime scales a_r = 1.05^r, r = 0..J.

    Parameters
    ----------
    order : int
        The debiasing order J.

    Returns
    -------
    ndarray of shape (order + 1,)
        The scales, a_0 = 1.

    Examples
    --------
    >>> from mondrian.partition import default_scales
    >>> default_scales(2).round(4).tolist()
    [1.0, 1.05, 1.1025]
    """
    return SCALE_RATIO ** np.arange(order + 1, dtype=np.float64)


def debiasing_weights(scales) -> np.ndarray:
    """Solve CKU23's linear system for the debiasing weights omega_r.

    sum_r omega_r a_r^(-2 s) = 1 if s = 0 else 0, for s = 0..J: a Vandermonde system in a_r^-2.

    Parameters
    ----------
    scales : array-like of shape (J + 1,)
        The lifetime scales a_r, distinct and positive.

    Returns
    -------
    ndarray of shape (J + 1,)
        The weights omega_r.

    Examples
    --------
    >>> from mondrian.partition import debiasing_weights
    >>> debiasing_weights([1.0, 1.5]).round(6).tolist()
    [-0.8, 1.8]
    """
    scales = np.asarray(scales, dtype=np.float64)
    powers = scales[None, :] ** (-2.0 * np.arange(scales.size)[:, None])
    target = np.zeros(scales.size)
    target[0] = 1.0
    return np.linalg.solve(powers, target)


def leading_bias_factor(scales: np.ndarray, weights: np.ndarray) -> float:
    """sum_r omega_r a_r^(-2 J - 2): the factor of B_(J+1)(x) lambda^(-2 J - 2), the debiased forest's leading bias."""
    return float(weights @ scales ** (-2.0 * scales.size))


def overlap(a: float, b: float) -> float:
    """CKU23's l_ab + l_ba, l_ab = (2 a / 3) (1 - (a / b) log(b / a + 1)): the variance constant of two independent
    one-dimensional Mondrian cells of x at lifetimes a and b, E[|C_a cap C_b| / (|C_a| |C_b|)]; at a = b = 1
    (4 - 4 log 2) / 3."""

    def ell(a: float, b: float) -> float:
        return 2.0 * a / 3.0 * (1.0 - a / b * np.log1p(b / a))

    return ell(a, b) + ell(b, a)


def variance_constant(scales: np.ndarray, weights: np.ndarray, d: int) -> float:
    """sum_(r, s) omega_r omega_s overlap(a_r, a_s)^d: the debiased forest's variance is sigma^2(x) / f(x) times it,
    times lambda^d / n (J = 0: ((4 - 4 log 2) / 3)^d)."""
    table = np.array([[overlap(a, b) for b in scales] for a in scales])
    return float(weights @ table**d @ weights)
