"""hypot(x, y) = sqrt(x^2 + y^2) as glibc (2.35 on) computes it, compiled into the kernels' loops.

A perimeter is a sum of edge lengths, ``np.hypot`` of coordinate differences; numba calls libm's ``hypot`` for it,
a call per edge that took a fifth of an update of the online BSP tree at d = 10 (an update sums about 1000 edges).
This is glibc's algorithm, step by step (C. F. Borges, "An improved algorithm for hypot(a, b)", 2019: the rounded
square root corrected by the error of the sum of squares, without fused multiply-adds, as glibc builds it for
x86-64), so that the perimeters, the cut rates and the pair draws that depend on them keep their values to the last
bit where ``np.hypot`` is glibc's (``tests/mondrian/test_hypot.py`` compares them) and equal those anywhere else.
Inputs are finite (coordinate differences).
"""

import numpy as np

from mondrian._compile import kernel

_LARGE = 2.0**511  # above: scaled down (the squares would overflow)
_TINY = 2.0**-459  # below: scaled up (they would underflow)
_EPS = 2.0**-54  # a side below EPS times the other adds nothing but rounding: their sum is the length
_SCALE = 2.0**600


@kernel(inline="always")
def _corrected(ax, ay):
    """The length for ax >= ay >= 0 whose squares and their difference neither overflow nor underflow.

    Both of Borges' corrections are computed and one is selected: a branch on which applies is a coin flip for the
    processor's predictor, and its misses cost more than the arithmetic (half of an edge's time in a perimeter)."""
    h = np.sqrt(ax * ax + ay * ay)
    delta = h - ay
    near = ax * (delta + delta - ax) + (delta - ((ax - ay) + (ax - ay))) * delta
    delta = h - ax
    far = (delta + delta) * (ax - (ay + ay)) + ((4.0 * delta - ay) * ay + delta * delta)
    return h - (near if h <= ay + ay else far) / (h + h)


@kernel(inline="always")
def _scaled(ax, ay):
    """``hypot`` for ax >= ay >= 0 out of the common range: scaled, or the sum when one side is negligible."""
    if ax > _LARGE:
        if ay <= ax * _EPS:
            return ax + ay
        return _corrected(ax / _SCALE, ay / _SCALE) * _SCALE
    if ax >= ay / _EPS:
        return ax + ay
    return _corrected(ax * _SCALE, ay * _SCALE) / _SCALE


@kernel(inline="always")
def hypot(x, y):
    """sqrt(x^2 + y^2) for finite x and y, as glibc's ``hypot`` rounds it.

    Where neither square overflows or underflows (or the smaller side is 0), the correction gives glibc's value
    unscaled, a negligible side included (its square vanishes, the correction is below half a unit in the last
    place): one path without branches for the edges of a perimeter, the others apart (``_scaled``)."""
    x, y = abs(x), abs(y)
    ax, ay = max(x, y), min(x, y)
    if ax > _LARGE or ax < _TINY or (ay < _TINY and ay != 0.0):
        return _scaled(ax, ay)
    return _corrected(ax, ay)
