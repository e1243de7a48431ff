"""The orientation of three points of the plane, exactly: the sign of (a - o) x (b - o) for float64 coordinates.

Evaluated in floating point the cross product can take the wrong sign when the points are nearly collinear (features
that are equal up to rounding after re-scaling): hulls built from such signs are not convex, and walking them does
not end. The cross product is evaluated as usual and kept when it exceeds the bound on its rounding error (Shewchuk's
filter, "Adaptive precision floating-point arithmetic and fast robust geometric predicates", 1997); otherwise the
determinant is summed exactly from error-free differences and products (an expansion) and its sign read off its
largest component. Exact while products of two coordinate differences stay finite and above the subnormal range.
"""

import numba
import numpy as np

_EPSILON = 2.0**-53
_FILTER = (3.0 + 16.0 * _EPSILON) * _EPSILON  # Shewchuk's ccwerrboundA
_SPLITTER = 2.0**27 + 1.0  # Veltkamp's split of a float64 into two 26-bit halves


@numba.njit(cache=True, nogil=True, inline="always")
def _two_sum(a, b):
    """(x, y) with x = fl(a + b) and x + y = a + b exactly."""
    x = a + b
    virtual = x - a
    return x, (a - (x - virtual)) + (b - virtual)


@numba.njit(cache=True, nogil=True, inline="always")
def _two_product(a, b):
    """(x, y) with x = fl(a * b) and x + y = a * b exactly (Dekker's product)."""
    x = a * b
    c = _SPLITTER * a
    a_hi = c - (c - a)
    a_lo = a - a_hi
    c = _SPLITTER * b
    b_hi = c - (c - b)
    b_lo = b - b_hi
    return x, a_lo * b_lo - (((x - a_hi * b_hi) - a_lo * b_hi) - a_hi * b_lo)


@numba.njit(cache=True, nogil=True)
def _exact_sign(ox, oy, ax, ay, bx, by):
    """The sign of (a - o) x (b - o) from its 16 exact terms summed into a non-overlapping expansion."""
    terms = np.empty(16)
    ux, ux_error = _two_sum(ax, -ox)
    uy, uy_error = _two_sum(ay, -oy)
    vx, vx_error = _two_sum(bx, -ox)
    vy, vy_error = _two_sum(by, -oy)
    n = 0
    for p, q, sign in (
        (ux, vy, 1.0), (ux, vy_error, 1.0), (ux_error, vy, 1.0), (ux_error, vy_error, 1.0),
        (uy, vx, -1.0), (uy, vx_error, -1.0), (uy_error, vx, -1.0), (uy_error, vx_error, -1.0),
    ):  # fmt: skip
        product, error = _two_product(p, q)
        terms[n] = sign * product
        terms[n + 1] = sign * error
        n += 2
    expansion = np.zeros(16)  # increasing magnitude, components that do not overlap (Shewchuk's Grow-Expansion)
    m = 0
    for t in range(16):
        carry = terms[t]
        for i in range(m):
            carry, expansion[i] = _two_sum(carry, expansion[i])
        expansion[m] = carry
        m += 1
    for i in range(m - 1, -1, -1):
        if expansion[i] != 0.0:
            return 1.0 if expansion[i] > 0.0 else -1.0
    return 0.0


@numba.njit(cache=True, nogil=True)
def orientation(ox, oy, ax, ay, bx, by):
    """(a - o) x (b - o): > 0 when o, a, b turn counter-clockwise, < 0 clockwise, 0 collinear; its sign is exact (the
    value is the floating-point one, or +-1 when that could have the wrong sign)."""
    left = (ax - ox) * (by - oy)
    right = (ay - oy) * (bx - ox)
    determinant = left - right
    if (left > 0.0 and right <= 0.0) or (left < 0.0 and right >= 0.0) or left == 0.0:
        return determinant  # no cancellation: the sign is right
    if abs(determinant) >= _FILTER * abs(left + right):
        return determinant
    return _exact_sign(ox, oy, ax, ay, bx, by)
