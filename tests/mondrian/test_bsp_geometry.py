"""The planar geometry of BSP cuts (``mondrian.bsp.hull``).

- Hulls equal scipy's (random sets) and are convex, counter-clockwise and hold every point (hypothesis, small grids
  with duplicates and collinear points); adding a point equals the hull of the union; perimeters and projection
  ranges equal direct computations; Cauchy's formula: the widths integrate to the perimeter.
- The cut sampler draws theta with density proportional to the width (chi-square test; a uniform-theta sampler is
  rejected by the same statistic on the same hull) and u uniformly across the hull (KS); both sides hold a vertex.
- The separating sampler never crosses the old hull, puts z alone on its side, and its theta histogram follows the
  uncovered length, whose integral is the increase of the perimeter.
- The kernels' allocation-free steps answer as the exact ones wherever they decide: ``locate`` as ``contains``,
  ``hulls_with`` as ``hull_with`` (the same rows in the same order), ``hull_into`` as ``hull_of``, ``perimeter_at``
  as ``perimeter`` (bit for bit), on grids with duplicates and collinear points and on points collinear up to
  rounding (where they leave some signs open).
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.spatial import ConvexHull

from mondrian.bsp.hull import (
    UNDECIDED,
    contains,
    distance_to_hull,
    hull_into,
    hull_of,
    hull_with,
    hulls_with,
    locate,
    perimeter,
    perimeter_at,
    projection_range,
    sample_cut,
    sample_separating_cut,
)

THETAS = np.linspace(0.0, np.pi, 20001)[1:]


def hull_rows(X, rows=None):
    rows = np.arange(len(X)) if rows is None else np.asarray(rows, np.int64)
    out = np.empty(len(rows), np.int64)
    return out[: hull_of(X, rows, len(rows), 0, 1, out)]


def widths(X, hull):
    P = X[hull][:, :2]
    along = np.cos(THETAS)[:, None] * P[:, 0] + np.sin(THETAS)[:, None] * P[:, 1]
    return along.max(axis=1) - along.min(axis=1)


def test_hull_and_perimeter_equal_scipys():
    rng = np.random.default_rng(0)
    for n in (3, 10, 200):
        X = rng.random((n, 2))
        h = hull_rows(X)
        reference = ConvexHull(X)
        assert set(h) == set(reference.vertices)
        np.testing.assert_allclose(perimeter(X, h, len(h), 0, 1), reference.area, rtol=1e-12)  # 2-D "area" = perimeter


@settings(max_examples=200, deadline=None, database=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=25), st.integers(0, 24))
def test_hulls_are_convex_ccw_and_hold_every_point(points, extra):
    X = np.array(points, float)
    h = hull_rows(X)
    assert_strictly_convex_ccw(X, h)
    assert all(contains(X, h, len(h), 0, 1, x[0], x[1]) for x in X)
    # adding a point: the hull of the union, grown from the hull of the others
    k = extra % len(X)
    first = hull_rows(X, [r for r in range(len(X)) if r != k] or [k])
    out = np.empty(len(first) + 1, np.int64)
    g = hull_with(X, first, len(first), k, 0, 1, out)
    assert {tuple(X[r]) for r in out[:g]} == {tuple(X[r]) for r in h}
    assert_strictly_convex_ccw(X, out[:g])


def assert_strictly_convex_ccw(X, hull):
    assert len(set(map(tuple, X[hull]))) == len(hull)  # no vertex twice
    if len(hull) >= 3:
        P = X[hull]
        edges = np.roll(P, -1, axis=0) - P
        turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
        assert np.all(turns > 0)  # strictly convex, counter-clockwise


def test_degenerate_hulls_and_cauchys_formula():
    X = np.array([[0.25, 0.25], [0.25, 0.25], [0.75, 0.75], [0.5, 0.5], [0.125, 0.875], [0.875, 0.125]])
    assert len(hull_rows(X[:2])) == 1 and perimeter(X, hull_rows(X[:2]), 1, 0, 1) == 0.0
    segment = hull_rows(X[:4])
    assert len(segment) == 2
    np.testing.assert_allclose(perimeter(X, segment, 2, 0, 1), 2 * 0.5 * np.sqrt(2), rtol=1e-12)  # twice the length
    assert contains(X, segment, 2, 0, 1, 0.5, 0.5) and not contains(X, segment, 2, 0, 1, 0.5, 0.5625)
    assert not contains(X, segment, 2, 0, 1, 0.875, 0.875)  # on the line, beyond the segment
    for h in (segment, hull_rows(X)):
        c, s = np.cos(1.0), np.sin(1.0)
        along = X[h] @ np.array([c, s])
        assert projection_range(X, h, len(h), 0, 1, c, s) == (along.min(), along.max())
        integral = widths(X, h).mean() * np.pi
        np.testing.assert_allclose(integral, perimeter(X, h, len(h), 0, 1), rtol=1e-4)


def theta_histogram(draws, density, bins=20):
    """Chi-square p-value of the thetas against a density tabulated on THETAS."""
    edges = np.linspace(0.0, np.pi, bins + 1)
    observed = np.histogram(draws, edges)[0]
    cumulative = np.concatenate([[0.0], np.cumsum(density)])
    at_edges = np.interp(edges, np.concatenate([[0.0], THETAS]), cumulative)
    expected = np.diff(at_edges) / cumulative[-1] * len(draws)
    possible = expected > 1e-9 * len(draws)
    if observed[~possible].any():  # a draw where the density vanishes
        return 0.0
    return stats.chisquare(observed[possible], expected[possible] * len(draws) / expected[possible].sum()).pvalue


def test_cut_angles_follow_the_width_and_positions_are_uniform():
    X = np.array([[0.0, 0.0], [1.0, 0.1], [1.0, 0.25], [0.0, 0.2], [0.5, 0.05]])  # elongated: widths vary 5-fold
    h = hull_rows(X)
    rng = np.random.default_rng(0)
    draws = np.array([sample_cut(X, h, len(h), 0, 1, rng) for _ in range(20000)])
    theta, u = draws[:, 0], draws[:, 1]
    density = widths(X, h)
    assert theta_histogram(theta, density) > 1e-3
    assert theta_histogram(rng.uniform(0, np.pi, 20000), density) < 1e-6  # the statistic sees a wrong sampler
    lo_hi = np.array([projection_range(X, h, len(h), 0, 1, np.cos(t), np.sin(t)) for t in theta])
    relative = (u - lo_hi[:, 0]) / (lo_hi[:, 1] - lo_hi[:, 0])
    assert stats.kstest(relative, "uniform").pvalue > 1e-3
    along = np.cos(theta)[:, None] * X[h, 0] + np.sin(theta)[:, None] * X[h, 1]
    assert np.all((along <= u[:, None]).any(axis=1) & (along > u[:, None]).any(axis=1))


@pytest.mark.parametrize(
    "z, distance",
    [((1.6, 0.4), 0.6), ((0.5, -0.01), 0.01), ((-0.3, 1.4), 0.5)],  # off an edge, close to one, off a corner
)
def test_separating_cuts_never_cross_the_old_hull_and_follow_the_uncovered_length(z, distance):
    X = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], z])
    h, z = hull_rows(X[:4]), X[4]
    rng = np.random.default_rng(1)
    assert np.isclose(distance_to_hull(X, h, len(h), 0, 1, *z), distance)
    draws = np.array([sample_separating_cut(X, h, len(h), 0, 1, z[0], z[1], rng) for _ in range(20000)])
    theta, u = draws[:, 0], draws[:, 1]
    direction = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    old = direction @ X[h].T  # projections of the old vertices
    z_along = direction @ z
    z_left = z_along <= u
    assert np.all(np.where(z_left, (old > u[:, None]).all(axis=1), (old <= u[:, None]).all(axis=1)))
    assert np.all(np.where(z_left, True, z_along > u))
    P = np.cos(THETAS)[:, None] * X[h, 0] + np.sin(THETAS)[:, None] * X[h, 1]
    z_on = np.cos(THETAS) * z[0] + np.sin(THETAS) * z[1]
    uncovered = np.maximum(z_on - P.max(axis=1), 0.0) + np.maximum(P.min(axis=1) - z_on, 0.0)
    grown = hull_rows(X)
    increase = perimeter(X, grown, len(grown), 0, 1) - perimeter(X, h, len(h), 0, 1)
    np.testing.assert_allclose(uncovered.mean() * np.pi, increase, rtol=1e-4)
    assert theta_histogram(theta, uncovered) > 1e-3
    assert theta_histogram(rng.uniform(0, np.pi, 20000), uncovered) < 1e-6


def exactly_strictly_convex_ccw(X, hull):
    P = [(Fraction(x), Fraction(y)) for x, y in X[hull]]
    h = len(P)
    return h < 3 or all(
        (P[(k + 1) % h][0] - P[k][0]) * (P[(k + 2) % h][1] - P[k][1])
        - (P[(k + 1) % h][1] - P[k][1]) * (P[(k + 2) % h][0] - P[k][0])
        > 0
        for k in range(h)
    )


def test_hulls_of_nearly_collinear_points_are_exact():
    """Points on a line up to rounding (two features equal after re-scaling): the hull is strictly convex in exact
    arithmetic, holds every point, has no more vertices than points, and grown point by point equals the hull of
    all; with the floating-point cross product it was not, and the BSP forest's update did not end."""
    rng = np.random.default_rng(0)
    for _ in range(40):
        x = rng.uniform(0, 3000, 60)
        X = np.column_stack([x, x * 0.13])
        X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))  # equal up to rounding
        h = hull_rows(X)
        assert len(h) <= len(X) and len(set(h)) == len(h) and exactly_strictly_convex_ccw(X, h)
        assert all(contains(X, h, len(h), 0, 1, z[0], z[1]) for z in X)
        grown = np.array([0])
        for row in range(1, len(X)):
            out = np.empty(len(grown) + 1, np.int64)
            grown = out[: hull_with(X, grown, len(grown), row, 0, 1, out)].copy()
            assert exactly_strictly_convex_ccw(X, grown)
        assert set(grown) == set(h)


def fast_steps_agree(X, hull, row):
    """``locate`` and ``hulls_with`` (the kernels' steps, on a hull stored at an offset of an int32 pool) against
    ``contains`` and ``hull_with`` for the point X[row]; returns whether they decided."""
    h = len(hull)
    pool = np.concatenate([np.full(3, -7), hull]).astype(np.int32)  # the hull at offset 3, as in a tree's pool
    z1, z2 = X[row]
    where = locate(X, pool, 3, h, 0, 1, z1, z2)
    inside = contains(X, hull, h, 0, 1, z1, z2)
    if where == UNDECIDED:
        return False
    assert where == inside
    if inside:
        return True
    expected = np.empty(h + 1, np.int64)
    expected = expected[: hull_with(X, hull, h, row, 0, 1, expected)]
    out, grown = np.full(h + 4, -1, np.int32), np.zeros(1, np.int64)
    pairs, one = np.array([[0, 1]]), np.zeros(1, np.int64)
    undecided = hulls_with(X, pool, np.array([3]), np.array([h]), one, pairs, row, out, np.array([2]), grown, 0, 1)
    if undecided:
        assert grown[0] == UNDECIDED
        return False
    assert out[2 : 2 + grown[0]].tolist() == expected.tolist()
    return True


@settings(max_examples=300, deadline=None, database=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=25),
    st.lists(st.tuples(st.integers(-1, 5), st.integers(-1, 5)), min_size=1, max_size=6),
)
def test_the_kernels_steps_answer_as_the_exact_ones_on_grids(points, probes):
    X = np.array(points + probes, float)
    rows = np.arange(len(points))
    hull = hull_rows(X, rows)
    out, work = np.empty(len(rows), np.int32), np.empty(3 * len(rows), np.int64)
    assert out[: hull_into(X, rows, len(rows), 0, 1, out, work)].tolist() == hull.tolist()
    assert perimeter_at(X, np.concatenate([[-7], hull]), 1, len(hull), 0, 1) == perimeter(X, hull, len(hull), 0, 1)
    for row in range(len(X)):  # every grid sign is decided (the differences of small integers are exact)
        assert fast_steps_agree(X, hull, row)


def test_the_kernels_steps_answer_as_the_exact_ones_on_points_collinear_up_to_rounding():
    rng = np.random.default_rng(1)
    decided = []
    for _ in range(40):
        x = rng.uniform(0, 3000, 40)
        X = np.column_stack([x, x * 0.13])
        X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))  # equal up to rounding
        hull = hull_rows(X, np.arange(30))
        decided += [fast_steps_agree(X, hull, row) for row in range(30, 40)]
    assert 0 < sum(decided) < len(decided)  # some signs are left open there: the exact fallback is exercised
