"""The text's leaf rule of the online BSP tree (``leaf_sampling="text"``) against a plain-Python transcription of the
paper's Algorithms 4 (cBSP) and 5 (HullCut), with Algorithm 6's separating cut, fed the same random stream.

The transcription keeps each node's points and recomputes its hulls from them (no incremental hulls, no node arrays);
it draws in the order the algorithms are printed: at a node, the cost of a separating cut (line 7), then the pair
and the line of that cut; at a leaf of more than 3 points, HullCut from scratch with the remaining budget: the cost,
then the pair and the line (again until the line leaves points on both sides), then one block, then the other (line
10 does not say which of its blocks is the left one: the right block first here, as the kernel's stack does).
The kernel's tree must equal it draw for draw: same nodes, pairs, points, times and lines, and the random streams
left in the same state.
"""

import math

import numpy as np
import pytest

from mondrian import OnlineBSPForestClassifier, OnlineBSPForestRegressor
from mondrian._points import points_of
from mondrian._validation import tree_streams
from mondrian.bsp import dimension_pairs

MAX_UNCUT = 3  # Algorithm 4, line 2


# -- planar geometry, from the definitions ------------------------------------------------------------------------


def convex_hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Vertices of the convex hull, counter-clockwise, without collinear ones (monotone chain)."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def perimeter(vertices) -> float:
    """Length of the boundary: 0 for a point, twice the length of a segment."""
    if len(vertices) < 2:
        return 0.0
    return sum(math.dist(vertices[k], vertices[(k + 1) % len(vertices)]) for k in range(len(vertices)))


def inside(vertices, z) -> bool:
    """z in the hull, boundary included."""
    if len(vertices) == 1:
        return vertices[0] == z
    edges = len(vertices) if len(vertices) > 2 else 1
    for k in range(edges):
        (ax, ay), (bx, by) = vertices[k], vertices[(k + 1) % len(vertices)]
        side = (bx - ax) * (z[1] - ay) - (by - ay) * (z[0] - ax)
        if side < 0 or (len(vertices) == 2 and side != 0):
            return False
    if len(vertices) == 2:
        (ax, ay), (bx, by) = vertices
        return min(ax, bx) <= z[0] <= max(ax, bx) and min(ay, by) <= z[1] <= max(ay, by)
    return True


def projections(vertices, theta):
    c, s = math.cos(theta), math.sin(theta)
    along = [x * c + y * s for x, y in vertices]
    return min(along), max(along)


def uniform_below(low, high, rng):
    """U[low, high), high excluded after rounding."""
    while True:
        u = low + (high - low) * rng.random()
        if u < high:
            return u


def line_hitting(vertices, rng):
    """Algorithm 5, line 8: theta with density proportional to the hull's width (rejection against its diameter),
    then u uniform across the hull."""
    bound = max((math.dist(a, b) for a in vertices for b in vertices), default=0.0)
    while True:
        theta = math.pi * (1.0 - rng.random())
        lo, hi = projections(vertices, theta)
        if bound * rng.random() < hi - lo:
            return theta, uniform_below(lo, hi, rng)


def distance_to(vertices, z) -> float:
    if len(vertices) == 1:
        return math.dist(vertices[0], z)
    best = math.inf
    for k in range(len(vertices) if len(vertices) > 2 else 1):
        (ax, ay), (bx, by) = vertices[k], vertices[(k + 1) % len(vertices)]
        ex, ey = bx - ax, by - ay
        t = min(max(((z[0] - ax) * ex + (z[1] - ay) * ey) / (ex * ex + ey * ey), 0.0), 1.0)
        best = min(best, math.hypot(z[0] - ax - t * ex, z[1] - ay - t * ey))
    return best


def line_separating(vertices, z, rng):
    """Algorithm 6: a line through the hull of (vertices, z) that misses the hull of the vertices; theta with
    density proportional to the uncovered part of z's projection interval, u uniform on it. The directions along
    which z projects beyond every vertex form an arc of length pi - (the angle the vertices span seen from z); a
    direction is drawn on it and kept with probability gap / distance(z, hull)."""
    angles = [math.atan2(z[1] - y, z[0] - x) for x, y in vertices]
    turns = [((a - angles[0]) + math.pi) % (2 * math.pi) - math.pi for a in angles]
    low, high = min(turns), max(turns)
    start, length = angles[0] + high - math.pi / 2, max(math.pi - (high - low), 0.0)
    bound = distance_to(vertices, z)
    while True:
        direction = start + length * rng.random()
        theta = math.pi - (math.pi - direction) % math.pi
        lo, hi = projections(vertices, theta)
        along = z[0] * math.cos(theta) + z[1] * math.sin(theta)
        if bound * rng.random() < max(along - hi, lo - along):
            return (theta, uniform_below(hi, along, rng)) if along > hi else (theta, uniform_below(along, lo, rng))


def choose(weights, rng):
    """Index j with probability weights[j] / sum(weights)."""
    target = sum(weights) * rng.random()
    acc, last = 0.0, 0
    for j, w in enumerate(weights):
        if w > 0:
            last = j
            acc += w
            if target < acc:
                return j
    return last


# -- Algorithms 4 and 5 on a tree of Python nodes ------------------------------------------------------------------


class Node:
    def __init__(self, rows):
        self.rows = list(rows)
        self.time = math.inf  # the absolute time of the node's cut (a leaf: none)
        self.pair = self.theta = self.u = None
        self.left = self.right = None


class ReferenceTree:
    def __init__(self, X, pairs, rate_scale, rng):
        self.X, self.pairs, self.rate_scale, self.rng = X, pairs, rate_scale, rng
        self.root = None
        self.separating = 0  # cuts put above a node (lines 8-10)

    def hull(self, rows, p):
        d1, d2 = self.pairs[p]
        return convex_hull([(self.X[r, d1], self.X[r, d2]) for r in rows])

    def left_side(self, node, row) -> bool:
        d1, d2 = self.pairs[node.pair]
        return self.X[row, d1] * math.cos(node.theta) + self.X[row, d2] * math.sin(node.theta) <= node.u

    def hull_cut(self, node, start, budget):
        """Algorithm 5 on the node's points from ``start``: cuts before ``budget`` (absolute times: the text's
        remaining budget tau - c is budget - start)."""
        if len(node.rows) <= MAX_UNCUT:
            return
        lengths = [perimeter(self.hull(node.rows, p)) for p in range(len(self.pairs))]
        if sum(lengths) <= 0:
            return
        time = start + self.rng.exponential(1.0 / (self.rate_scale * sum(lengths)))
        if not time < budget:
            return
        while True:
            node.pair = choose(lengths, self.rng)
            node.theta, node.u = line_hitting(self.hull(node.rows, node.pair), self.rng)
            goes = [self.left_side(node, r) for r in node.rows]
            if 0 < sum(goes) < len(goes):
                break
        node.time = time
        node.left = Node(r for r, g in zip(node.rows, goes, strict=True) if g)
        node.right = Node(r for r, g in zip(node.rows, goes, strict=True) if not g)
        self.hull_cut(node.right, time, budget)
        self.hull_cut(node.left, time, budget)

    def cbsp(self, node, row, start, budget):
        """Algorithm 4 for the point ``row``; returns the node that takes the node's place."""
        if node.left is None:  # lines 2-5: a leaf takes x; beyond 3 points it is cut again from scratch
            node.rows.append(row)
            self.hull_cut(node, start, budget)
            return node
        z = {p: (self.X[row, d1], self.X[row, d2]) for p, (d1, d2) in enumerate(self.pairs)}
        old = [self.hull(node.rows, p) for p in range(len(self.pairs))]
        increase = [
            0.0 if inside(old[p], z[p]) else max(perimeter(self.hull([*node.rows, row], p)) - perimeter(old[p]), 0.0)
            for p in range(len(self.pairs))
        ]
        if sum(increase) > 0:  # line 7
            time = start + self.rng.exponential(1.0 / (self.rate_scale * sum(increase)))
            if time < node.time:  # lines 8-10
                self.separating += 1
                above = Node([*node.rows, row])
                above.time, above.pair = time, choose(increase, self.rng)
                above.theta, above.u = line_separating(old[above.pair], z[above.pair], self.rng)
                leaf = Node([row])
                above.left, above.right = (leaf, node) if self.left_side(above, row) else (node, leaf)
                return above
        node.rows.append(row)  # lines 12-15
        if self.left_side(node, row):
            node.left = self.cbsp(node.left, row, node.time, budget)
        else:
            node.right = self.cbsp(node.right, row, node.time, budget)
        return node

    def learn(self, row, budget):
        self.root = Node([row]) if self.root is None else self.cbsp(self.root, row, 0.0, budget)


# -- the comparison ---------------------------------------------------------------------------------------------


def assert_same_tree(kernel_tree, pairs, ref: Node, node: int):
    a = kernel_tree.nodes
    if ref.left is None:
        assert a.left[node] == -1, "the kernel cut a block the text leaves whole"
        rows = np.empty(int(a.stats[node, 0]), np.int64)
        n = points_of(a.first_point, kernel_tree.next_point, node, rows)
        assert sorted(rows[:n]) == sorted(ref.rows)
        return
    assert a.left[node] != -1, "the text cuts a block the kernel leaves whole"
    assert a.pair[node] == ref.pair
    np.testing.assert_allclose(a.split_time[node], ref.time, rtol=1e-9)
    np.testing.assert_allclose(a.direction[node], [math.cos(ref.theta), math.sin(ref.theta)], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.position[node], ref.u, rtol=1e-9, atol=1e-12)
    assert a.stats[node, 0] == len(ref.rows)
    assert_same_tree(kernel_tree, pairs, ref.left, int(a.left[node]))
    assert_same_tree(kernel_tree, pairs, ref.right, int(a.right[node]))


def count_leaves(node: Node) -> int:
    return 1 if node.left is None else count_leaves(node.left) + count_leaves(node.right)


@pytest.mark.parametrize(
    ("d", "n", "scale", "seed", "sort"),
    [(2, 150, 3.0, 0, False), (2, 150, 3.0, 1, True), (3, 120, 2.0, 2, True), (4, 100, 1.0, 3, False)],
)
def test_text_rule_equals_a_transcription_of_algorithm_4_draw_for_draw(d, n, scale, seed, sort):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    if sort:  # points arriving along a direction mostly land outside the hulls: separating cuts (Algorithm 6)
        X = X[np.argsort(X @ np.linspace(1.0, 0.3, d))]
    y = rng.random(n)
    model = OnlineBSPForestRegressor(n_estimators=1, budget_scale=scale, leaf_sampling="text", random_state=seed)
    for start in range(0, n, 37):  # several partial_fit calls: the stream goes on across them
        model.partial_fit(X[start : start + 37], y[start : start + 37])
    pairs = dimension_pairs(d)
    (stream,) = tree_streams(seed, 1)
    ref = ReferenceTree(X, [tuple(p) for p in pairs], 0.5, stream)
    for i in range(n):
        ref.learn(i, scale * (i + 1) ** (1 / (d + 2)))
    tree = model.trees_[0]
    assert_same_tree(tree, pairs, ref.root, int(tree.nodes.root[0]))
    assert tree.rng.bit_generator.state == stream.bit_generator.state  # the same number of draws
    assert count_leaves(ref.root) == tree.n_leaves > 5
    assert ref.separating > 0 or not sort


def test_text_rule_cuts_pile_up_where_the_law_rule_keeps_the_batch_law():
    """1-D, fixed budget tau = 2, cost rate L/2: the batch process (the law) has Poisson(2 * 0.5 * 2 * length)
    cuts; with 4000 points the text's rule, which draws a fresh HullCut at each arrival, has many times more."""
    X = np.random.default_rng(0).random((4000, 1))
    leaves = {}
    for rule in ("law", "text"):
        model = OnlineBSPForestRegressor(n_estimators=20, budget=2.0, leaf_sampling=rule, random_state=0, n_jobs=2)
        model.fit(X, np.zeros(len(X)))
        leaves[rule] = model.n_leaves().mean()
    expected = 1 + 0.5 * 2 * 2.0 * 1.0  # 1 + E[cuts]: rate 0.5 * perimeter (twice the length) * tau
    assert abs(leaves["law"] - expected) < 1.5, leaves
    assert leaves["text"] > 5 * expected, leaves


def test_leaf_sampling_is_checked():
    X, y = np.random.default_rng(0).random((10, 2)), np.arange(10) % 2
    with pytest.raises(ValueError, match="'leaf_sampling' parameter of OnlineBSPForestClassifier must be a str among"):
        OnlineBSPForestClassifier(leaf_sampling="fresh").fit(X, y)
