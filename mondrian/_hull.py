"""Planar geometry of BSP cuts: convex hulls of projected points and the lines that hit them.

A hull is a set of row indices into X (the point store), its vertices in a pair of dimensions (d1, d2) in
counter-clockwise order without collinear vertices: one row when all points coincide, two for a segment. A line has
a direction theta in (0, pi] and a position u: the point z projects on (cos theta, sin theta) at
z[d1] cos theta + z[d2] sin theta, and is on the line's left side iff that is <= u (the BSP tree's convention).
By Cauchy's formula the widths of a convex set over theta in (0, pi] integrate to its perimeter (twice the length
of a segment), so drawing theta proportionally to the width, then u uniformly across it, draws a line uniformly
(for the isotropic line measure) among the lines that hit the hull: the BSP process's cut.
"""

import numba
import numpy as np

from mondrian._process import uniform_below


@numba.njit(cache=True, nogil=True)
def _cross(X, o, a, b, d1, d2):
    """(a - o) x (b - o) in the pair's plane: > 0 when o, a, b turn counter-clockwise."""
    return (X[a, d1] - X[o, d1]) * (X[b, d2] - X[o, d2]) - (X[a, d2] - X[o, d2]) * (X[b, d1] - X[o, d1])


@numba.njit(cache=True, nogil=True)
def hull_of(X, rows, n_rows, d1, d2, out):
    """The convex hull of X[rows[:n_rows]] in the pair (Andrew's monotone chain): its rows into out, CCW; returns
    their number."""
    candidates = rows[:n_rows]
    by_second = candidates[np.argsort(X[candidates, d2], kind="mergesort")]
    order = by_second[np.argsort(X[by_second, d1], kind="mergesort")]  # by (x[d1], x[d2])
    first, last = order[0], order[n_rows - 1]
    if X[first, d1] == X[last, d1] and X[first, d2] == X[last, d2]:
        out[0] = first
        return 1
    chain = np.empty(2 * n_rows, np.int64)
    k = 0
    for j in range(n_rows):  # lower chain
        r = order[j]
        while k >= 2 and _cross(X, chain[k - 2], chain[k - 1], r, d1, d2) <= 0.0:
            k -= 1
        chain[k] = r
        k += 1
    lower = k + 1
    for j in range(n_rows - 2, -1, -1):  # upper chain
        r = order[j]
        while k >= lower and _cross(X, chain[k - 2], chain[k - 1], r, d1, d2) <= 0.0:
            k -= 1
        chain[k] = r
        k += 1
    h = k - 1  # the last point repeats the first
    out[:h] = chain[:h]
    return h


@numba.njit(cache=True, nogil=True)
def contains(X, hull, h, d1, d2, z1, z2):
    """Whether (z1, z2) lies in the hull (boundary included; for one vertex: equal to it; for a segment: on it)."""
    if h == 1:
        return X[hull[0], d1] == z1 and X[hull[0], d2] == z2
    for k in range(h if h > 2 else 1):
        a, b = hull[k], hull[(k + 1) % h]
        ax, ay, bx, by = X[a, d1], X[a, d2], X[b, d1], X[b, d2]
        side = (bx - ax) * (z2 - ay) - (by - ay) * (z1 - ax)
        if side < 0.0 or (h == 2 and side != 0.0):
            return False
    if h == 2:
        ax, ay, bx, by = X[hull[0], d1], X[hull[0], d2], X[hull[1], d1], X[hull[1], d2]
        return min(ax, bx) <= z1 <= max(ax, bx) and min(ay, by) <= z2 <= max(ay, by)
    return True


@numba.njit(cache=True, nogil=True)
def hull_with(X, hull, h, row, d1, d2, out):
    """The hull of the hull's vertices and X[row] into out (room h + 1); the hull itself when X[row] is in it."""
    if contains(X, hull, h, d1, d2, X[row, d1], X[row, d2]):
        out[:h] = hull[:h]
        return h
    rows = np.empty(h + 1, np.int64)
    rows[:h] = hull[:h]
    rows[h] = row
    return hull_of(X, rows, h + 1, d1, d2, out)


@numba.njit(cache=True, nogil=True)
def perimeter(X, hull, h, d1, d2):
    """The hull's perimeter: 0 for a point, twice the length of a segment."""
    if h == 1:
        return 0.0
    total = 0.0
    for k in range(h):
        a, b = hull[k], hull[(k + 1) % h]
        total += np.hypot(X[b, d1] - X[a, d1], X[b, d2] - X[a, d2])
    return total


@numba.njit(cache=True, nogil=True)
def projection_range(X, hull, h, d1, d2, c, s):
    """(min, max) of the vertices' projections on the direction (c, s) = (cos theta, sin theta)."""
    lo = np.inf
    hi = -np.inf
    for k in range(h):
        along = X[hull[k], d1] * c + X[hull[k], d2] * s
        lo = min(lo, along)
        hi = max(hi, along)
    return lo, hi


@numba.njit(cache=True, nogil=True)
def _diameter(X, hull, h, d1, d2):
    """The largest distance between two vertices: it bounds the width in every direction."""
    best = 0.0
    for a in range(h):
        for b in range(a + 1, h):
            best = max(best, np.hypot(X[hull[b], d1] - X[hull[a], d1], X[hull[b], d2] - X[hull[a], d2]))
    return best


@numba.njit(cache=True, nogil=True)
def sample_cut(X, hull, h, d1, d2, rng):
    """A line hitting the hull (positive perimeter): theta with density proportional to the width (rejection against
    the diameter), then u uniform on [lo, hi) (both sides hold a vertex). Returns (theta, u)."""
    bound = _diameter(X, hull, h, d1, d2)
    while True:
        theta = np.pi * (1.0 - rng.random())
        c, s = np.cos(theta), np.sin(theta)
        lo, hi = projection_range(X, hull, h, d1, d2, c, s)
        if bound * rng.random() < hi - lo:
            return theta, uniform_below(lo, hi, rng)


@numba.njit(cache=True, nogil=True)
def distance_to_hull(X, hull, h, d1, d2, z1, z2):
    """Euclidean distance from (z1, z2) to the hull (0 inside)."""
    if h == 1:
        return np.hypot(z1 - X[hull[0], d1], z2 - X[hull[0], d2])
    if contains(X, hull, h, d1, d2, z1, z2):
        return 0.0
    best = np.inf
    for k in range(h if h > 2 else 1):
        a, b = hull[k], hull[(k + 1) % h]
        ax, ay = X[a, d1], X[a, d2]
        ex, ey = X[b, d1] - ax, X[b, d2] - ay
        t = min(max(((z1 - ax) * ex + (z2 - ay) * ey) / (ex * ex + ey * ey), 0.0), 1.0)
        best = min(best, np.hypot(z1 - ax - t * ex, z2 - ay - t * ey))
    return best


@numba.njit(cache=True, nogil=True)
def sample_separating_cut(X, hull, h, d1, d2, z1, z2, rng):
    """A line hitting the hull of (hull, z) but not the hull, for z outside it (the paper's Algorithm 6): theta with
    density proportional to the part of z's projection interval the hull's does not cover (rejection against the
    distance from z to the hull, which bounds it), u uniform on that part. z is on the line's left side iff its
    projection is below the hull's. Returns (theta, u)."""
    bound = distance_to_hull(X, hull, h, d1, d2, z1, z2)
    while True:
        theta = np.pi * (1.0 - rng.random())
        c, s = np.cos(theta), np.sin(theta)
        lo, hi = projection_range(X, hull, h, d1, d2, c, s)
        along = z1 * c + z2 * s
        gap = max(along - hi, lo - along)
        if bound * rng.random() < gap:
            if along > hi:
                return theta, uniform_below(hi, along, rng)  # the hull on or below u, z above
            return theta, uniform_below(along, lo, rng)  # z on or below u, the hull above
