"""The exact orientation predicate (``mondrian.bsp._orient``): its sign equals the sign of the determinant computed in
rationals, on triples that are nearly collinear (where the floating-point cross product takes the wrong sign) and on
random ones (magnitudes whose products stay above the subnormal range); its value is the floating-point cross product
wherever that sign is certain. ``certain_orientation`` (the part the hull kernels inline) gives the same sign
wherever it decides, decides every triple whose coordinate differences are exact (grids: collinear triples), and
leaves some nearly collinear ones open."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mondrian.bsp._orient import certain_orientation, orientation


def exact_sign(ox, oy, ax, ay, bx, by):
    o, a, b = [(Fraction(x), Fraction(y)) for x, y in ((ox, oy), (ax, ay), (bx, by))]
    determinant = (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    return (determinant > 0) - (determinant < 0)


def float_cross(ox, oy, ax, ay, bx, by):
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


def nearly_collinear(rng, n):
    """Triples on the line y = slope x + shift, rounded to float64, some nudged by one ulp."""
    slope, shift = rng.uniform(-3, 3), rng.uniform(-1, 1)
    t = rng.uniform(0, 1, (n, 3))
    x = t * rng.uniform(1e-3, 1e3)
    y = slope * x + shift
    y = np.where(rng.random((n, 3)) < 0.3, np.nextafter(y, np.inf), y)
    return np.stack([x[:, 0], y[:, 0], x[:, 1], y[:, 1], x[:, 2], y[:, 2]], axis=1)


def test_the_sign_is_exact_where_floating_point_gets_it_wrong():
    rng = np.random.default_rng(0)
    triples = np.concatenate([nearly_collinear(rng, 500) for _ in range(20)])
    wrong = 0
    for triple in triples:
        truth = exact_sign(*triple)
        assert np.sign(orientation(*triple)) == truth, triple
        wrong += np.sign(float_cross(*triple)) != truth
    assert wrong > 100  # the floating-point cross product errs on these triples: the test can fail


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(st.one_of(st.just(0.0), st.floats(1e-50, 1e6), st.floats(-1e6, -1e-50)), min_size=6, max_size=6))
def test_the_sign_is_exact_on_any_triple_and_the_value_is_the_cross_product_when_certain(coordinates):
    value = orientation(*coordinates)
    assert np.sign(value) == exact_sign(*coordinates)
    assert value in (float_cross(*coordinates), 1.0, -1.0)


def test_certain_orientation_decides_grids_and_is_exact_where_it_decides():
    rng = np.random.default_rng(1)
    grid = rng.integers(-8, 9, (5000, 6)).astype(float) * 2.0 ** rng.integers(-30, 30, (5000, 1))
    assert all(np.sign(certain_orientation(*triple)) == exact_sign(*triple) for triple in grid)
    triples = np.concatenate([nearly_collinear(rng, 500) for _ in range(10)])
    signs = np.array([certain_orientation(*triple) for triple in triples])
    decided = ~np.isnan(signs)
    assert 0 < decided.sum() < len(triples)
    assert all(np.sign(signs[k]) == exact_sign(*triples[k]) for k in np.flatnonzero(decided))
