"""The kernels' hypot (``mondrian.bsp._hypot``) equals ``np.hypot`` to the last bit where libm is glibc 2.35 or
later (its algorithm): perimeters, and the trees' rates and draws, keep their values. Coordinate differences of
uniform points and of points on a grid (zeros, equal sides), and pairs of any magnitude and ratio (the scaled
paths, the sums of a side and a negligible one)."""

import platform

import numba
import numpy as np
import pytest

from mondrian.bsp._hypot import hypot

libc, version = platform.libc_ver()
pytestmark = pytest.mark.skipif(
    libc != "glibc" or tuple(int(v) for v in version.split(".")[:2]) < (2, 35),
    reason="np.hypot is libm's: the kernels' hypot is glibc's algorithm from 2.35 on",
)


@numba.njit(cache=True)
def _differing(x, y):
    return np.array([k for k in range(x.shape[0]) if hypot(x[k], y[k]) != np.hypot(x[k], y[k])], np.int64)


def _pairs(rng, n):
    a, b, c, d = rng.random((4, n))
    yield a - b, c - d
    yield np.round(a * 4) / 4 - np.round(b * 4) / 4, np.round(c * 4) / 4 - np.round(d * 4) / 4
    sign = rng.choice([-1.0, 1.0], (2, n))
    x = sign[0] * np.ldexp(rng.random(n) + 0.5, rng.integers(-1074, 1023, n))
    yield x, sign[1] * np.ldexp(rng.random(n) + 0.5, rng.integers(-1074, 1023, n))
    yield x, x * (1.0 + np.ldexp(1.0, rng.integers(-60, 1, n)))
    yield x, x * rng.random(n)
    yield x, np.ldexp(x, -rng.integers(0, 70, n))


def test_hypot_is_np_hypot_to_the_last_bit():
    rng = np.random.default_rng(0)
    for x, y in _pairs(rng, 1_000_000):
        differing = _differing(x, y)
        assert differing.size == 0, (x[differing[:3]], y[differing[:3]])
    special = np.array([0.0, -0.0, 5e-324, 2.0**-459, 2.0**511, 1e308, 1.0, 3.0])
    x, y = np.meshgrid(special, special)
    assert _differing(x.ravel(), y.ravel()).size == 0
