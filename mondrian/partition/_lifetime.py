"""CKU23's lifetime selection by polynomial estimation: the lifetime minimising the debiased forest's asymptotic
integrated mean squared error, its bias and variance constants estimated from a global polynomial fit.

The debiased forest of order J has bias beta_J B_(J+1)(x) lambda^(-2 J - 2) (``_debias.leading_bias_factor``) and
variance (lambda^d / n) V_J sigma^2(x) / f(x) (``_debias.variance_constant``). For a uniform design of interior x,
a cell's average of h^nu over x's Mondrian cell has expectation prod_j c(nu_j) lambda^-nu_j, c(k) = 2 k! / (k + 2)
for even k and 0 for odd k, so B_s(x) = sum over nu of even entries, |nu| = 2 s, of d^nu mu(x) prod_j 2 / (nu_j + 2)
(s = 1: half the Laplacian). Integrated against the design, the variance is sigma^2 V_J vol(domain) lambda^d / n
(homoskedastic noise, whatever f), and the minimiser is

    lambda = ((4 J + 4) n mean_i (beta_J B_(J+1)(X_i))^2 / (d sigma^2 V_J vol))^(1 / (4 J + 4 + d)).

mu's derivatives come from a least-squares polynomial of total degree 2 J + 2 in the features (the least degree
with derivatives of order 2 J + 2: on CKU23's design, n = 1000, degrees 2 J + 3 and 2 J + 4 gave fourth derivatives
whose mean square was 30 to 80 times the truth), sigma^2 from its residuals.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from math import factorial

import numpy as np

from mondrian.partition._debias import leading_bias_factor, variance_constant


def _exponents(d: int, degree: int) -> np.ndarray:
    """Every exponent vector of total degree at most ``degree`` in d variables, one row each."""
    rows = [np.bincount(np.array(c, dtype=np.int64), minlength=d) for k in range(degree + 1)
            for c in combinations_with_replacement(range(d), k)]  # fmt: skip
    return np.array(rows, dtype=np.int64).reshape(-1, d)


def _even_orders(d: int, order: int) -> list[np.ndarray]:
    """Every nu of even entries with |nu| = order."""
    return [nu for nu in _exponents(d, order) if nu.sum() == order and not np.any(nu % 2)]


def _derivative(coefs: np.ndarray, exponents: np.ndarray, nu: np.ndarray, U: np.ndarray) -> np.ndarray:
    """d^nu of the polynomial sum_k coefs[k] u^exponents[k] at each row of U."""
    out = np.zeros(U.shape[0])
    for coef, alpha in zip(coefs, exponents, strict=True):
        if np.all(alpha >= nu) and coef != 0.0:
            falling = np.prod([factorial(a) // factorial(a - v) for a, v in zip(alpha, nu, strict=True)])
            out += coef * falling * np.prod(U ** (alpha - nu), axis=1)
    return out


def polynomial_lifetime(X, y, w, lower, upper, scales: np.ndarray, weights: np.ndarray) -> float:
    """Select the lifetime by CKU23's polynomial estimation (see the module's docstring).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The training inputs, in the box [lower, upper].
    y : ndarray of shape (n,)
        The labels.
    w : ndarray of shape (n,) or None
        The sample weights (None: all one).
    lower, upper : ndarray of shape (d,)
        The forest's domain.
    scales, weights : ndarray of shape (J + 1,)
        The debiasing lifetime scales a_r and weights omega_r.

    Returns
    -------
    float
        The selected lifetime.

    Raises
    ------
    ValueError
        If the fitted polynomial has no curvature of the order the bias needs (the selected lifetime would be
        infinite), or has as many coefficients as points.
    """
    n, d = X.shape
    order = scales.size - 1
    sides = np.where(upper > lower, upper - lower, 1.0)
    U = (X - lower) / sides  # in [0, 1]^d: a well-conditioned fit
    exponents = _exponents(d, 2 * order + 2)
    if exponents.shape[0] >= n:
        raise ValueError(
            f"the polynomial lifetime fits {exponents.shape[0]} coefficients (degree {2 * order + 2} in {d} "
            f"features): it needs more samples than that, got {n}"
        )
    design = np.prod(U[:, None, :] ** exponents[None, :, :], axis=2)
    root = np.ones(n) if w is None else np.sqrt(w)
    coefs = np.linalg.lstsq(design * root[:, None], y * root, rcond=None)[0]
    residuals = y - design @ coefs
    mass = float(n if w is None else w.sum())
    sigma2 = float((root * residuals) @ (root * residuals)) / max(mass - exponents.shape[0], 1.0)
    curvature = np.zeros(n)
    for nu in _even_orders(d, 2 * order + 2):
        scale = np.prod(2.0 / (nu + 2.0)) / np.prod(sides**nu)  # the derivative in the data's units
        curvature += scale * _derivative(coefs, exponents, nu, U)
    bias2 = float(np.average((leading_bias_factor(scales, weights) * curvature) ** 2, weights=w))
    if not bias2 > 0.0 or not sigma2 > 0.0:
        raise ValueError(
            "the polynomial lifetime found no curvature or no noise in the data (its lifetime would be infinite "
            "or zero): give a number as lifetime"
        )
    variance = sigma2 * variance_constant(scales, weights, d) * float(np.prod(sides))
    power = 4 * order + 4
    return float((power * mass * bias2 / (d * variance)) ** (1.0 / (power + d)))
