"""CKU23's lifetime selection with polynomial estimation, lambda_hat_AIMSE(J) (their Section "Tuning parameter
selection").

For X uniform on [0, 1]^d, a leading bias additively separable, omega_bar B_(J+1)(x) lambda^(-2J-2) ~
lambda^(-2J-2) omega_bar / (J + 2) sum_j d_j^(2J+2) mu(x), and homoskedastic noise, the asymptotic integrated mean
squared error of the debiased forest of order J is minimised by

    lambda_AIMSE(J) = ((4J + 4) omega_bar^2 / (J + 2)^2 n int (sum_j d_j^(2J+2) mu)^2
                       / (d sigma^2 sum_(r, r') omega_r omega_r' (l_rr' + l_r'r)^d))^(1 / (4J + 4 + d)),

omega_bar = sum_r omega_r a_r^(-2J-2). The estimate replaces the integral by the sum over the training points of the
derivatives of a global least-squares polynomial of order 2J + 4 without interaction terms (design rows
1, X_i1, ..., X_i1^(2J+4), ..., X_id^(2J+4)), and sigma^2 by its residual sum of squares over n - (2J + 4) d - 1.
"""

from __future__ import annotations

from math import factorial

import numpy as np

from mondrian.partition._debias import debiasing_weights, leading_bias_factor, variance_constant

POLYNOMIAL = "polynomial"  # the lifetime parameter's value that selects lambda_hat_AIMSE


def aimse_lifetime(X, y, w, lower, upper, scales) -> float:
    """CKU23's lambda_hat_AIMSE(J) for the debiased forest of the given scales (J + 1 of them).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The training inputs, in the box [lower, upper] (mapped onto [0, 1]^d, CKU23's domain).
    y : ndarray of shape (n,)
        The labels.
    w : ndarray of shape (n,) or None
        The sample weights, as counts of rows (None: all one).
    lower, upper : ndarray of shape (d,)
        The forest's domain.
    scales : ndarray of shape (J + 1,)
        The debiasing lifetime scales a_r.

    Returns
    -------
    float
        The selected lifetime, in the units of X (the unit-cube lifetime over the box's sides, when they are equal).

    Raises
    ------
    ValueError
        If there are no more points than the polynomial's coefficients, or the fit finds no curvature or no noise
        (the lifetime would be infinite or zero).
    """
    n, d = X.shape
    order = scales.size - 1
    degree = 2 * order + 4
    sides = np.where(upper > lower, upper - lower, 1.0)
    U = (X - lower) / sides
    powers = np.arange(1, degree + 1)
    design = np.hstack([np.ones((n, 1)), *(U[:, [j]] ** powers for j in range(d))])
    mass = float(n if w is None else w.sum())
    dof = mass - design.shape[1]
    if dof <= 0:
        raise ValueError(
            f"the polynomial lifetime fits {design.shape[1]} coefficients (order {degree} in {d} features): it "
            f"needs more samples than that, got {mass:g}"
        )
    root = np.ones(n) if w is None else np.sqrt(w)
    coefs = np.linalg.lstsq(design * root[:, None], y * root, rcond=None)[0]
    residuals = root * (y - design @ coefs)
    sigma2 = float(residuals @ residuals) / dof
    # sum_j d_j^(2J+2) of the fitted polynomial, in the units of [0, 1]^d
    k = 2 * order + 2
    derivatives = np.zeros(n)
    for j in range(d):
        own = coefs[1 + j * degree : 1 + (j + 1) * degree]  # the coefficients of U_j^1 .. U_j^degree
        for p in range(k, degree + 1):
            derivatives += own[p - 1] * factorial(p) / factorial(p - k) * U[:, j] ** (p - k)
    weights = debiasing_weights(scales)
    bias2 = (
        float(np.sum((1.0 if w is None else w) * derivatives**2))
        * (leading_bias_factor(scales, weights) / (order + 2)) ** 2
    )
    if not (bias2 > 0.0 and sigma2 > 0.0):
        raise ValueError(
            "the polynomial lifetime found no curvature or no noise in the data (its lifetime would be infinite "
            "or zero): give a number as lifetime"
        )
    power = 4 * order + 4
    unit = (power * bias2 / (d * sigma2 * variance_constant(scales, weights, d))) ** (1.0 / (power + d))
    return float(unit / np.exp(np.log(sides).mean()))  # a cell of the unit cube's size 1/lambda, in the data's units
