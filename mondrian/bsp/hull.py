"""Planar geometry of BSP cuts: convex hulls of projected points and the lines that hit them.

A hull is a set of row indices into X (the point store), its vertices in a pair of dimensions (d1, d2) in
counter-clockwise order without collinear vertices: one row when all points coincide, two for a segment. A line has
a direction theta in (0, pi] and a position u: the point z projects on (cos theta, sin theta) at
z[d1] cos theta + z[d2] sin theta, and is on the line's left side iff that is <= u (the BSP tree's convention).
By Cauchy's formula the widths of a convex set over theta in (0, pi] integrate to its perimeter (twice the length
of a segment), so drawing theta proportionally to the width, then u uniformly across it, draws a line uniformly
(for the isotropic line measure) among the lines that hit the hull: the BSP process's cut.

>>> import numpy as np
>>> from mondrian.bsp.hull import hull_of, perimeter
>>> # a unit square and a point inside it
>>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.2], [1.0, 1.0], [0.0, 1.0]])
>>> out = np.empty(5, np.int64)
>>> h = hull_of(X, np.arange(5), 5, 0, 1, out)
>>> out[:h].tolist()  # counter-clockwise from the lowest-left vertex
[0, 1, 3, 4]
>>> float(perimeter(X, out, h, 0, 1))
4.0
"""

import numpy as np

from mondrian._compile import kernel
from mondrian._process import uniform_below
from mondrian.bsp._hypot import hypot
from mondrian.bsp._orient import certain_orientation, orientation

__all__ = [
    "contains",
    "distance_to_hull",
    "hull_of",
    "hull_with",
    "perimeter",
    "projection_range",
    "sample_cut",
    "sample_separating_cut",
]  # the public geometry; the online BSP kernel's incremental helpers below are its own

UNDECIDED = -1  # what ``locate`` and ``hulls_with`` say when ``certain_orientation`` left a sign they need open


@kernel
def _cross(X, o, a, b, d1, d2):
    """(a - o) x (b - o) in the pair's plane: > 0 when o, a, b turn counter-clockwise (its sign exact)."""
    return orientation(X[o, d1], X[o, d2], X[a, d1], X[a, d2], X[b, d1], X[b, d2])


SMALL = 32  # sets up to this size are sorted by insertion, larger ones by merge sorts


@kernel(refcounts=False)
def _sorted_rows(X, rows, n_rows, d1, d2, out):
    """rows[:n_rows] into out, sorted by (x[d1], x[d2]), ties in their order (a stable sort): by insertion, or by
    ``_merge_sorted`` for more than SMALL rows (the kernels' small leaves: no allocation)."""
    if n_rows > SMALL:
        _merge_sorted(X, rows, n_rows, d1, d2, out)
        return
    for j in range(n_rows):
        r = rows[j]
        k = j
        while k > 0 and (
            X[out[k - 1], d1] > X[r, d1] or (X[out[k - 1], d1] == X[r, d1] and X[out[k - 1], d2] > X[r, d2])
        ):
            out[k] = out[k - 1]
            k -= 1
        out[k] = r


@kernel
def _merge_sorted(X, rows, n_rows, d1, d2, out):
    """``_sorted_rows`` by a bottom-up merge sort, stable as the two stable argsorts it replaces."""
    src, dst = np.empty(n_rows, np.int64), np.empty(n_rows, np.int64)
    for j in range(n_rows):
        src[j] = rows[j]
    width = 1
    while width < n_rows:
        for low in range(0, n_rows, 2 * width):
            mid, high = min(low + width, n_rows), min(low + 2 * width, n_rows)
            a, b = low, mid
            for k in range(low, high):
                take_b = b < high and (
                    a == mid
                    or X[src[b], d1] < X[src[a], d1]
                    or (X[src[b], d1] == X[src[a], d1] and X[src[b], d2] < X[src[a], d2])
                )
                if take_b:
                    dst[k] = src[b]
                    b += 1
                else:
                    dst[k] = src[a]
                    a += 1
        src, dst = dst, src
        width *= 2
    for j in range(n_rows):
        out[j] = src[j]


@kernel
def hull_of(X, rows, n_rows, d1, d2, out):
    """Compute the convex hull of points in a plane (Andrew's monotone chain).

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        The points (a forest's point store).
    rows : ndarray of int64
        The rows of X whose hull is taken, ``rows[:n_rows]`` (at least one).
    n_rows : int
        Their number.
    d1, d2 : int
        The pair of dimensions of the plane.
    out : ndarray of int64
        Room for the hull's vertices (n_rows at least): their rows of X are written into it, counter-clockwise from
        the lowest-left vertex, without collinear vertices.

    Returns
    -------
    int
        The number h of vertices written: 1 when all points coincide, 2 for a segment.
    """
    return hull_into(X, rows, n_rows, d1, d2, out, np.empty(3 * n_rows, np.int64))


@kernel(refcounts=False)
def hull_into(X, rows, n_rows, d1, d2, out, work):
    """``hull_of`` with the caller's room for its work (3 n_rows rows at least), so that kernels allocate nothing."""
    order, chain = work[:n_rows], work[n_rows:]
    _sorted_rows(X, rows, n_rows, d1, d2, order)
    first, last = order[0], order[n_rows - 1]
    if X[first, d1] == X[last, d1] and X[first, d2] == X[last, d2]:
        out[0] = first
        return 1
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
    for j in range(h):  # element by element: a slice assignment compiles numba's shape-error message
        out[j] = chain[j]
    return h


@kernel(refcounts=False)
def contains(X, hull, h, d1, d2, z1, z2):
    """Tell whether a point of the plane lies in a hull.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        The points (a forest's point store).
    hull : ndarray of int64
        The hull's rows of X, counter-clockwise (as ``hull_of`` gives them).
    h : int
        The number of its vertices.
    d1, d2 : int
        The pair of dimensions of the plane.
    z1, z2 : float
        The point, in the pair's coordinates.

    Returns
    -------
    bool
        True in the hull or on its boundary (for one vertex: equal to it; for a segment: on it).
    """
    if h == 1:
        return X[hull[0], d1] == z1 and X[hull[0], d2] == z2
    for k in range(h if h > 2 else 1):
        a, b = hull[k], hull[(k + 1) % h]
        side = orientation(X[a, d1], X[a, d2], X[b, d1], X[b, d2], z1, z2)
        if side < 0.0 or (h == 2 and side != 0.0):
            return False
    if h == 2:
        ax, ay, bx, by = X[hull[0], d1], X[hull[0], d2], X[hull[1], d1], X[hull[1], d2]
        return min(ax, bx) <= z1 <= max(ax, bx) and min(ay, by) <= z2 <= max(ay, by)
    return True


@kernel
def hull_with(X, hull, h, row, d1, d2, out):
    """Compute the hull of a hull and one more point.

    A polygon (h >= 3) is grown in O(h): the edges X[row] sees (on or to the right of them, as ``contains`` tests)
    form one chain; its inner vertices go, X[row] comes in their place.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        The points (a forest's point store).
    hull : ndarray of int64
        The hull's rows of X, counter-clockwise (as ``hull_of`` gives them).
    h : int
        The number of its vertices.
    row : int
        The row of X of the new point.
    d1, d2 : int
        The pair of dimensions of the plane.
    out : ndarray of int64
        Room for h + 1 vertices: the new hull's rows of X, counter-clockwise.

    Returns
    -------
    int
        The number of vertices written (the hull itself when X[row] is in it).
    """
    return hull_with_into(X, hull, h, row, d1, d2, out, np.empty(4 * (h + 1), np.int64))


@kernel(refcounts=False)
def hull_with_into(X, hull, h, row, d1, d2, out, work):
    """``hull_with`` with the caller's room for its work (4 (h + 1) rows at least), so that kernels allocate nothing
    (a point or a segment grown by a point is a hull of h + 1 points taken from scratch, ``hull_into``)."""
    if contains(X, hull, h, d1, d2, X[row, d1], X[row, d2]):
        for j in range(h):
            out[j] = hull[j]
        return h
    first = -1  # an edge that X[row] sees whose predecessor it does not see: the start of the chain
    for k in range(h if h > 2 else 0):
        sees = _cross(X, hull[k], hull[(k + 1) % h], row, d1, d2) <= 0.0
        if sees and _cross(X, hull[k - 1], hull[k], row, d1, d2) > 0.0:  # hull[-1] is the last vertex
            first = k
            break
    if first < 0:  # a point or a segment (or a polygon rounding made look degenerate): from scratch
        rows = work[: h + 1]
        for j in range(h):
            rows[j] = hull[j]
        rows[h] = row
        return hull_into(X, rows, h + 1, d1, d2, out, work[h + 1 :])
    last = first
    while _cross(X, hull[(last + 1) % h], hull[(last + 2) % h], row, d1, d2) <= 0.0:
        last += 1
    # kept: hull[last + 1], ..., hull[first] (going round), then the new point
    g = 0
    k = (last + 1) % h
    while True:
        out[g] = hull[k]
        g += 1
        if k == first:
            break
        k = (k + 1) % h
    out[g] = row
    return g + 1


@kernel(inline="always")
def _before(ax, ay, bx, by):
    """Whether (ax, ay) comes before (bx, by) in the order ``hull_of`` sorts by (d1, then d2)."""
    return ax < bx or (ax == bx and ay < by)


@kernel(inline="always")
def locate(X, vertices, start, h, d1, d2, z1, z2):
    """``contains`` for the hull vertices[start : start + h] (h >= 1), without allocating and in O(log h) signs:
    1 when z is in it or on its boundary, 0 when outside, UNDECIDED when ``certain_orientation`` left a sign open.

    A point or a segment: equal to it, or on it. A polygon: in the wedge of its first vertex o and in the triangle
    (o, v_k, v_k+1) of the fan whose wedge holds it, found by bisection (with exact signs, the answer of the edge
    scan of ``contains``). No allocation and no call: the kernels test a point against O(log depth) hulls per pair
    this way (``_kernels._outside_from``).
    """
    a = vertices[start]
    ax, ay = X[a, d1], X[a, d2]
    if h == 1:
        where = 1 if ax == z1 and ay == z2 else 0
    else:
        b = vertices[start + 1]
        bx, by = X[b, d1], X[b, d2]
        after = certain_orientation(ax, ay, bx, by, z1, z2)
        if after != after:
            where = UNDECIDED
        elif h == 2:
            on = after == 0.0 and min(ax, bx) <= z1 <= max(ax, bx) and min(ay, by) <= z2 <= max(ay, by)
            where = 1 if on else 0
        else:
            c = vertices[start + h - 1]
            before = certain_orientation(ax, ay, X[c, d1], X[c, d2], z1, z2)
            if before != before:
                where = UNDECIDED
            elif after < 0.0 or before > 0.0:
                where = 0
            else:
                low, high, open_sign = 1, h - 1, False
                while high - low > 1:  # conditional moves: each step's direction is a coin flip for a predictor
                    middle = (low + high) >> 1
                    v = vertices[start + middle]
                    side = certain_orientation(ax, ay, X[v, d1], X[v, d2], z1, z2)
                    open_sign |= side != side
                    low, high = (middle, high) if side >= 0.0 else (low, middle)
                v, w = vertices[start + low], vertices[start + high]
                side = certain_orientation(X[v, d1], X[v, d2], X[w, d1], X[w, d2], z1, z2)
                where = UNDECIDED if open_sign or side != side else (1 if side >= 0.0 else 0)
    return where


@kernel(inline="always")
def hulls_with(X, vertices, starts, sizes, planes, pairs, row, out, at, grown, begin, end):
    """``hull_with`` for the hulls begin..end-1 that X[row] is outside of (as ``locate`` found), in one call and
    without allocating: the hull work of a kernel's update, for the pairs it changes at a node.

    Hull e is vertices[starts[e] : starts[e] + sizes[e]] in the plane of the pair of dimensions pairs[planes[e]];
    it grows into out[at[e] :] and grown[e] becomes its size, or UNDECIDED when ``certain_orientation`` left a
    sign open (``hull_with`` then answers). Returns the number of hulls UNDECIDED.
    - A point or a segment (or nothing): ``hull_of`` of the h + 1 points, sorted (by d1, then d2), then the
      monotone chain of three points is the triangle counter-clockwise from the first, or the extremes' segment when
      they are collinear.
    - A polygon: the edges X[row] sees form one chain (as ``hull_with`` finds it: the first edge seen after one not
      seen, then on while they are seen); their inner vertices go, the point comes in their place.
    One loop without allocation or calls: numba would count references to the arrays at every hull otherwise,
    which costs more than the geometry.
    """
    undecided = 0
    for e in range(begin, end):
        d1, d2 = pairs[planes[e], 0], pairs[planes[e], 1]
        start, h, a0 = starts[e], sizes[e], at[e]
        z1, z2 = X[row, d1], X[row, d2]
        if h <= 2:
            g = 1
            if h == 0:
                out[a0] = row
            elif h == 1:
                a = vertices[start]
                out[a0], out[a0 + 1] = (a, row) if _before(X[a, d1], X[a, d2], z1, z2) else (row, a)
                g = 2
            else:
                a, b = vertices[start], vertices[start + 1]
                ax, ay, bx, by = X[a, d1], X[a, d2], X[b, d1], X[b, d2]
                turn = certain_orientation(ax, ay, bx, by, z1, z2)
                if turn != turn:
                    grown[e] = UNDECIDED
                    undecided += 1
                    continue
                # the segment's ends are sorted: X[row] goes before, between (an odd permutation) or after them
                if _before(z1, z2, ax, ay):
                    out[a0], middle, last = row, a, b
                elif _before(z1, z2, bx, by):
                    out[a0], middle, last, turn = a, row, b, -turn
                else:
                    out[a0], middle, last = a, b, row
                g = 2 if turn == 0.0 else 3
                if turn == 0.0:
                    out[a0 + 1] = last
                else:
                    out[a0 + 1], out[a0 + 2] = (middle, last) if turn > 0.0 else (last, middle)
            grown[e] = g
            continue
        # the chain: ``first`` is its first edge (first - 1 not seen, first seen), ``last`` the vertex after it
        a, c = vertices[start], vertices[start + h - 1]
        previous = certain_orientation(X[c, d1], X[c, d2], X[a, d1], X[a, d2], z1, z2)
        first = -1
        for k in range(h):
            v, w = vertices[start + k], vertices[start + (k + 1 if k + 1 < h else 0)]
            sees = certain_orientation(X[v, d1], X[v, d2], X[w, d1], X[w, d2], z1, z2)
            if sees != sees or previous != previous:
                break
            if sees <= 0.0 and previous > 0.0:
                first = k
                break
            previous = sees
        last = first + 1
        while first >= 0:
            j = last if last < h else last - h
            v, w = vertices[start + j], vertices[start + (j + 1 if j + 1 < h else 0)]
            sees = certain_orientation(X[v, d1], X[v, d2], X[w, d1], X[w, d2], z1, z2)
            if sees != sees:
                first = -1
            elif sees > 0.0:
                break
            last += 1
        if first < 0:  # a sign open, or no chain (rounding made the polygon look degenerate): hull_with decides
            grown[e] = UNDECIDED
            undecided += 1
            continue
        g = 0  # kept: from the vertex after the chain round to its first vertex, then the point
        k = last if last < h else last - h
        while True:
            out[a0 + g] = vertices[start + k]
            g += 1
            if k == first:
                break
            k = k + 1 if k + 1 < h else 0
        out[a0 + g] = row
        grown[e] = g + 1
    return undecided


@kernel(inline="always")
def perimeter_at(X, vertices, start, h, d1, d2):
    """``perimeter`` of the hull vertices[start:start + h] (the same sums in the same order)."""
    if h == 1:
        return 0.0
    first = vertices[start]
    x0, y0 = X[first, d1], X[first, d2]
    ax, ay, total = x0, y0, 0.0
    for k in range(1, h):  # each vertex read once: an edge's end is the next one's start
        b = vertices[start + k]
        bx, by = X[b, d1], X[b, d2]
        total += hypot(bx - ax, by - ay)  # np.hypot's values, without a call per edge
        ax, ay = bx, by
    return total + hypot(x0 - ax, y0 - ay)


@kernel
def perimeter(X, hull, h, d1, d2):
    """Return the perimeter of a hull.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        The points (a forest's point store).
    hull : ndarray of int64
        The hull's rows of X, counter-clockwise (as ``hull_of`` gives them).
    h : int
        The number of its vertices.
    d1, d2 : int
        The pair of dimensions of the plane.

    Returns
    -------
    float
        The perimeter: 0 for a point, twice the length of a segment.
    """
    return perimeter_at(X, hull, 0, h, d1, d2)


@kernel
def projection_range(X, hull, h, d1, d2, c, s):
    """Return the range of a hull's projections on a direction.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        The points (a forest's point store).
    hull : ndarray of int64
        The hull's rows of X, counter-clockwise (as ``hull_of`` gives them).
    h : int
        The number of its vertices.
    d1, d2 : int
        The pair of dimensions of the plane.
    c, s : float
        The direction (cos theta, sin theta).

    Returns
    -------
    lo, hi : float
        The least and largest projection of a vertex.
    """
    lo = np.inf
    hi = -np.inf
    for k in range(h):
        along = X[hull[k], d1] * c + X[hull[k], d2] * s
        lo = min(lo, along)
        hi = max(hi, along)
    return lo, hi


@kernel
def _diameter(X, hull, h, d1, d2):
    """The largest distance between two vertices: it bounds the width in every direction."""
    best = 0.0
    for a in range(h):
        for b in range(a + 1, h):
            best = max(best, np.hypot(X[hull[b], d1] - X[hull[a], d1], X[hull[b], d2] - X[hull[a], d2]))
    return best


@kernel
def sample_cut(X, hull, h, d1, d2, rng):
    """Draw a line that hits a hull, uniformly for the isotropic line measure: the BSP process's cut.

    The direction theta is drawn with density proportional to the hull's width in it (by rejection against the
    diameter), then the position u uniformly on [lo, hi) of ``projection_range``, so that both sides hold a vertex.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        The points (a forest's point store).
    hull : ndarray of int64
        The hull's rows of X, counter-clockwise, with a positive perimeter.
    h : int
        The number of its vertices.
    d1, d2 : int
        The pair of dimensions of the plane.
    rng : numpy.random.Generator
        The random stream.

    Returns
    -------
    theta : float
        The direction of the line's normal, in (0, pi].
    u : float
        Its position: z is on the left side iff z[d1] cos theta + z[d2] sin theta <= u.
    """
    bound = _diameter(X, hull, h, d1, d2)
    while True:
        theta = np.pi * (1.0 - rng.random())
        c, s = np.cos(theta), np.sin(theta)
        lo, hi = projection_range(X, hull, h, d1, d2, c, s)
        if bound * rng.random() < hi - lo:
            return theta, uniform_below(lo, hi, rng)


@kernel
def distance_to_hull(X, hull, h, d1, d2, z1, z2):
    """Return the Euclidean distance from a point of the plane to a hull.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        The points (a forest's point store).
    hull : ndarray of int64
        The hull's rows of X, counter-clockwise (as ``hull_of`` gives them).
    h : int
        The number of its vertices.
    d1, d2 : int
        The pair of dimensions of the plane.
    z1, z2 : float
        The point, in the pair's coordinates.

    Returns
    -------
    float
        The distance, 0 inside the hull.
    """
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


@kernel
def _separating_arc(X, hull, h, d1, d2, z1, z2):
    """(start, length) of the arc of directions u with u . (z - v) > 0 for every vertex v: those along which z
    projects beyond the hull. The vectors z - v span an angle alpha < pi (z is outside), the arc pi - alpha."""
    reference = np.arctan2(z2 - X[hull[0], d2], z1 - X[hull[0], d1])
    low, high = 0.0, 0.0
    for k in range(1, h):
        turn = np.arctan2(z2 - X[hull[k], d2], z1 - X[hull[k], d1]) - reference
        turn = (turn + np.pi) % (2.0 * np.pi) - np.pi  # in [-pi, pi)
        low, high = min(low, turn), max(high, turn)
    return reference + high - np.pi / 2, max(np.pi - (high - low), 0.0)


@kernel
def sample_separating_cut(X, hull, h, d1, d2, z1, z2, rng):
    """Draw a line that separates a point from a hull, uniformly among the lines that do (the paper's Algorithm 6).

    A line hitting the hull of (hull, z) but not the hull, for z outside it: theta with density proportional to the
    part of z's projection interval the hull's does not cover, u uniform on that part. That part is positive only
    for the directions along which z projects beyond the hull (and their opposites): a direction is drawn uniformly
    among them and kept with probability gap / (distance from z to the hull, which bounds it), so that the draw
    stays fast when z is close to a long edge.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        The points (a forest's point store).
    hull : ndarray of int64
        The hull's rows of X, counter-clockwise (as ``hull_of`` gives them).
    h : int
        The number of its vertices.
    d1, d2 : int
        The pair of dimensions of the plane.
    z1, z2 : float
        The point, outside the hull, in the pair's coordinates.
    rng : numpy.random.Generator
        The random stream.

    Returns
    -------
    theta : float
        The direction of the line's normal, in (0, pi].
    u : float
        Its position: z is on the line's left side iff its projection is below the hull's.
    """
    bound = distance_to_hull(X, hull, h, d1, d2, z1, z2)
    start, length = _separating_arc(X, hull, h, d1, d2, z1, z2)
    while True:
        direction = start + length * rng.random()
        theta = np.pi - (np.pi - direction) % np.pi  # the direction or its opposite: the same line angle, in (0, pi]
        c, s = np.cos(theta), np.sin(theta)
        lo, hi = projection_range(X, hull, h, d1, d2, c, s)
        along = z1 * c + z2 * s
        gap = max(along - hi, lo - along)
        if bound * rng.random() < gap:
            if along > hi:
                return theta, uniform_below(hi, along, rng)  # the hull on or below u, z above
            return theta, uniform_below(along, lo, rng)  # z on or below u, the hull above
