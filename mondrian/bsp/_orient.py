"""The orientation of three points of the plane, exactly: the sign of (a - o) x (b - o) for float64 coordinates.

Evaluated in floating point the cross product can take the wrong sign when the points are nearly collinear (features
that are equal up to rounding after re-scaling): hulls built from such signs are not convex, and walking them does
not end. The cross product is evaluated as usual and kept when it exceeds the bound on its rounding error (Shewchuk's
filter, "Adaptive precision floating-point arithmetic and fast robust geometric predicates", 1997); otherwise the
determinant is summed exactly from error-free differences and products (an expansion) and its sign read off its
largest component. Exact while products of two coordinate differences stay finite and above the subnormal range.

``certain_orientation`` is the part that never allocates: the filter, then, when the coordinate differences are
exact (points on a grid, integer features: where collinear triples are common), the exact sign of the two products'
difference from a four-term expansion held in scalars. The hull kernels' inner loops take it (small, it is compiled
into them): code that may allocate (the expansion's arrays) would cost them more than the predicate, a call per sign
and an exception path that keeps numba counting references to their arrays. They fall back on ``orientation`` in
the rare cases it leaves open (NaN).
"""

import numpy as np

from mondrian._compile import kernel

_EPSILON = 2.0**-53
_FILTER = (3.0 + 16.0 * _EPSILON) * _EPSILON  # Shewchuk's ccwerrboundA
_SPLITTER = 2.0**27 + 1.0  # Veltkamp's split of a float64 into two 26-bit halves


@kernel(inline="always")
def _two_sum(a, b):
    """(x, y) with x = fl(a + b) and x + y = a + b exactly."""
    x = a + b
    virtual = x - a
    return x, (a - (x - virtual)) + (b - virtual)


@kernel(inline="always")
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


@kernel
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


@kernel
def _sign_of_products_difference(p, q, r, s):
    """The sign of p q - r s, exactly: the two products split into value and error (Dekker), the four terms grown
    into a non-overlapping expansion of increasing magnitude (Shewchuk's Grow-Expansion), read off its largest
    non-zero component."""
    pq, pq_error = _two_product(p, q)
    rs, rs_error = _two_product(r, s)
    e1, e0 = _two_sum(pq_error, pq)  # the expansion (e0, e1) of p q, then -r s and its error grown into it
    carry, e0 = _two_sum(-rs, e0)
    carry, e1 = _two_sum(carry, e1)
    e2 = carry
    carry, e0 = _two_sum(-rs_error, e0)
    carry, e1 = _two_sum(carry, e1)
    carry, e2 = _two_sum(carry, e2)
    for component in (carry, e2, e1, e0):
        if component != 0.0:
            return 1.0 if component > 0.0 else -1.0
    return 0.0


@kernel
def certain_orientation(ox, oy, ax, ay, bx, by):
    """``orientation`` where its sign is settled without an expansion, NaN elsewhere; it never allocates.

    The floating-point cross product when it exceeds the bound on its rounding error (Shewchuk's filter: it holds
    whenever the two products have opposite signs, so one comparison decides); else, when the four coordinate
    differences are exact, the exact sign of the difference of their products (+-1 or 0); else NaN (nearly
    collinear points whose differences were rounded: ``orientation`` sums the expansion).
    """
    ux, uy, vx, vy = ax - ox, ay - oy, bx - ox, by - oy
    left = ux * vy
    right = uy * vx
    determinant = left - right
    if abs(determinant) >= _FILTER * (abs(left) + abs(right)):
        return determinant
    exact = _two_sum(ax, -ox)[1] == 0.0 and _two_sum(ay, -oy)[1] == 0.0
    if exact and _two_sum(bx, -ox)[1] == 0.0 and _two_sum(by, -oy)[1] == 0.0:
        return _sign_of_products_difference(ux, vy, uy, vx)
    return np.nan


@kernel
def orientation(ox, oy, ax, ay, bx, by):
    """(a - o) x (b - o): > 0 when o, a, b turn counter-clockwise, < 0 clockwise, 0 collinear; its sign is exact (the
    value is the floating-point one, or +-1 when that could have the wrong sign)."""
    determinant = certain_orientation(ox, oy, ax, ay, bx, by)
    if determinant == determinant:
        return determinant
    return _exact_sign(ox, oy, ax, ay, bx, by)
