"""hypot(x, y) = sqrt(x^2 + y^2) as glibc (2.35 on) computes it, compiled into the kernels' loops.

A perimeter is a sum of edge lengths, ``np.hypot`` of coordinate differences; numba calls libm's ``hypot`` for it,
a call per edge that took a fifth of an update of the online BSP tree at d = 10 (an update sums about 1000 edges).
This is glibc's algorithm, step by step (C. F. Borges, "An improved algorithm for hypot(a, b)", 2019: the rounded
square root corrected by the error of the sum of squares, without fused multiply-adds, as glibc builds it for
x86-64), so that the perimeters, the cut rates and the pair draws that depend on them keep their values to the last
bit where ``np.hypot`` is glibc's (``tests/mondrian/test_hypot.py`` compares them) and equal those anywhere else.
Inputs are finite (coordinate differences).
"""

import numba
import numpy as np

_LARGE = 2.0**511  # above: scaled down (the squares would overflow)
_TINY = 2.0**-459  # below: scaled up (they would underflow)
_EPS = 2.0**-54  # a side below EPS times the other adds nothing but rounding: their sum is the length
_SCALE = 2.0**600


@numba.njit(cache=True, nogil=True, inline="always")
def _corrected(ax, ay):
    """The length for ax >= ay >= 0 whose squares and their difference neither overflow nor underflow."""
    h = np.sqrt(ax * ax + ay * ay)
    if h <= ay + ay:
        delta = h - ay
        t1 = ax * (delta + delta - ax)
        t2 = (delta - ((ax - ay) + (ax - ay))) * delta
    else:
        delta = h - ax
        t1 = (delta + delta) * (ax - (ay + ay))
        t2 = (4.0 * delta - ay) * ay + delta * delta
    return h - (t1 + t2) / (h + h)


@numba.njit(cache=True, nogil=True, inline="always")
def hypot(x, y):
    """sqrt(x^2 + y^2) for finite x and y, as glibc's ``hypot`` rounds it."""
    x, y = abs(x), abs(y)
    ax, ay = (y, x) if x < y else (x, y)
    if ax > _LARGE:
        if ay <= ax * _EPS:
            return ax + ay
        return _corrected(ax / _SCALE, ay / _SCALE) * _SCALE
    if ay < _TINY:
        if ax >= ay / _EPS:
            return ax + ay
        return _corrected(ax * _SCALE, ay * _SCALE) / _SCALE
    if ay <= ax * _EPS:
        return ax + ay
    return _corrected(ax, ay)
